/*
 * kernel_abi.h — the host's view of a compiled CPU kernel: the argument
 * block and error slot the kernel receives, and its entry points.  These
 * structs mirror, field for field, the ones at the top of
 * core/skeletons/cpu/prelude.h.in (ACC_KERNEL_ABI_VERSION there); a change
 * to one is a change to both and to CPU_KERNEL_ABI below, which is part of
 * every kernel's cache key.
 */
#ifndef ACC_CORE_BACKEND_CPU_KERNEL_ABI_H
#define ACC_CORE_BACKEND_CPU_KERNEL_ABI_H

#include "core/ir/ir.h"

#include <stdatomic.h>
#include <stdint.h>

#define CPU_KERNEL_ABI "accel-cpu-kernel-v2"

typedef struct cpu_karray {
    const void *data[ACC_MAX_COMPONENTS];
    int64_t ext[ACC_MAX_RANK];
    int64_t size;
} cpu_karray;

typedef struct cpu_kerr {
    atomic_int code;  /* 0: no error */
    atomic_int site;
    atomic_llong pos; /* smallest failing position; LLONG_MAX: none */
    int (*stop)(const void *state); /* the run is to stop (NULL: never) */
    const void *stop_state;
} cpu_kerr;

typedef struct cpu_kargs {
    const cpu_karray *in;
    void *const *out;
    int64_t out_ext[ACC_MAX_RANK];
    int64_t out_size;
    int64_t src_ext[ACC_MAX_RANK];
    int64_t inner;
    const ir_value *seed; /* acc_kval has ir_value's layout */
    void *const *part;
    cpu_kerr *err;
} cpu_kargs;

/* The kinds of cpu_kerr.code (ACC_KERR_* in the prelude). */
enum { CPU_KERR_DIV_ZERO = 1, CPU_KERR_SHIFT = 2, CPU_KERR_BOUNDS = 3,
       CPU_KERR_EMPTY = 4, CPU_KERR_STOP = 5 };

/* The phases of permute.c.in's _part (ACC_PHASE_* there). */
enum { CPU_PERMUTE_DEFAULTS = 0, CPU_PERMUTE_SIZES = 1, CPU_PERMUTE_MAP = 2,
       CPU_PERMUTE_MERGE = 3, CPU_PERMUTE_CLEAR = 4,
       CPU_PERMUTE_RANGED = 5 };

typedef void (*cpu_run_fn)(const cpu_kargs *a, int64_t start, int64_t end);
typedef void (*cpu_part_fn)(const cpu_kargs *a, int64_t row, int64_t lo,
                            int64_t hi, int64_t p);
typedef void (*cpu_finish_fn)(const cpu_kargs *a, int64_t row, int64_t n);

#endif
