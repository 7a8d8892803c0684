/*
 * nvrtc.h — compiling CUDA C source to a cubin for one architecture
 * (sm_XY) or to PTX for a virtual one (compute_XY) with NVRTC.  Works
 * without a device: this is how generated kernels are verified on
 * machines without a GPU.
 */
#ifndef ACC_CORE_BACKEND_CUDA_NVRTC_H
#define ACC_CORE_BACKEND_CUDA_NVRTC_H

#include "core/backend/cuda/loader.h"

typedef enum cuda_target {
    CUDA_TARGET_CUBIN, /* machine code for sm_<arch> */
    CUDA_TARGET_PTX    /* PTX for compute_<arch>, JIT-compiled by the driver */
} cuda_target;

typedef struct cuda_image {
    char *bytes; /* malloc'd; PTX is NUL-terminated */
    size_t size;
    char *log;   /* malloc'd compiler log ("" when silent) */
} cuda_image;

/* Compiles `source` (name used in messages) for `arch` (e.g. 90).  FMA
 * contraction is off so results match the host backends.  Returns 1 on
 * success; on failure out->log holds the compiler's messages (or why
 * NVRTC could not run) and bytes is NULL. */
int cuda_compile(const cuda_nvrtc *nvrtc, const char *source,
                 const char *name, int arch, cuda_target target,
                 cuda_image *out);
void cuda_image_free(cuda_image *image);
/* The options cuda_compile passes besides the architecture, as one line
 * ("--fmad=false ..."), for cache keys. */
void cuda_compile_flags(char *buf, size_t size);

#endif
