/*
 * cuda_abi.h — the host's view of a CUDA kernel's arguments: the structs
 * at the top of core/skeletons/cuda/prelude.cuh.in (acc_karray, acc_kerr,
 * acc_kargs), field for field, with device pointers as 64-bit integers.
 * Both sides are LP64 with natural alignment, so the layouts agree; the
 * sizes and offsets below are asserted here and, against the device
 * compiler's own layout, by tests/cuda/test_cuda_kernel_abi.c (which has
 * NVRTC static_assert them).  A change to one side is a change to both
 * and to CUDA_KERNEL_ABI, part of every module's cache key.
 */
#ifndef ACC_CORE_BACKEND_CUDA_CUDA_ABI_H
#define ACC_CORE_BACKEND_CUDA_CUDA_ABI_H

#include "core/ir/ir.h"

#include <stddef.h>
#include <stdint.h>

#define CUDA_KERNEL_ABI "accel-cuda-kernel-v1"

typedef struct cuda_karray {
    uint64_t data[ACC_MAX_COMPONENTS];
    int64_t ext[ACC_MAX_RANK];
    int64_t size;
} cuda_karray;

typedef struct cuda_kerr {
    int32_t code; /* 0: no error */
    int32_t site;
    int64_t pos;  /* smallest failing position; INT64_MAX: none */
} cuda_kerr;

typedef struct cuda_kargs {
    uint64_t in;   /* cuda_karray[n_arrays] */
    uint64_t out;  /* device pointers, one per result leaf */
    int64_t out_ext[ACC_MAX_RANK];
    int64_t out_size;
    int64_t src_ext[ACC_MAX_RANK];
    int64_t inner;
    uint64_t seed; /* ir_value (acc_kval) per leaf */
    uint64_t part; /* device pointers to the partials, one per leaf */
    uint64_t part_has; /* int per partial */
    uint64_t err;  /* cuda_kerr */
} cuda_kargs;

_Static_assert(sizeof(cuda_karray) == 200, "acc_karray is 200 bytes");
_Static_assert(sizeof(cuda_kerr) == 16, "acc_kerr is 16 bytes");
_Static_assert(sizeof(cuda_kargs) == 192, "acc_kargs is 192 bytes");
_Static_assert(offsetof(cuda_kargs, err) == 184, "acc_kargs.err");
_Static_assert(sizeof(ir_value) == 8, "acc_kval has ir_value's layout");

#endif
