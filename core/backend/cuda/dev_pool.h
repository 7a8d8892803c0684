/*
 * dev_pool.h — the device memory pool of a CUDA context.
 *
 * Requests are rounded up to a size class (powers of two from 512 bytes
 * to 1 MiB, then multiples of 1 MiB); a freed block goes onto its class's
 * free list and the next request of that class takes it back, so a program
 * run again with the same shapes allocates nothing from the driver.  When
 * cuMemAlloc reports CUDA_ERROR_OUT_OF_MEMORY the pool frees every cached
 * block and tries once more.  cuda_pool_close (context destroy) frees the
 * cache and makes later frees go straight to the driver (blocks still held
 * by library-owned device outputs).  Thread-safe: one mutex guards the
 * lists; driver calls are made outside it.  Every function that may call
 * the driver needs the pool's context current on the calling thread.
 */
#ifndef ACC_CORE_BACKEND_CUDA_DEV_POOL_H
#define ACC_CORE_BACKEND_CUDA_DEV_POOL_H

#include "core/backend/cuda/loader.h"

#include <stdint.h>

typedef struct cuda_pool cuda_pool;

typedef struct cuda_pool_stats {
    uint64_t driver_allocs; /* cuMemAlloc calls that succeeded */
    uint64_t driver_frees;  /* cuMemFree calls */
    uint64_t reuses;        /* requests served from a free list */
    uint64_t cached_bytes;  /* on the free lists now */
    uint64_t live_bytes;    /* handed out and not yet freed */
} cuda_pool_stats;

cuda_pool *cuda_pool_create(const cuda_driver *d);
/* The size class (bytes actually reserved) of a request; 0 for 0. */
size_t cuda_pool_class(size_t bytes);
/* A block of at least `bytes` (> 0) bytes: CU_SUCCESS, or the driver's
 * error (CUDA_ERROR_OUT_OF_MEMORY after the retry) with *out unchanged. */
cu_result cuda_pool_alloc(cuda_pool *p, size_t bytes, cu_deviceptr *out);
/* Gives a block back (bytes as requested at allocation). */
void cuda_pool_free(cuda_pool *p, cu_deviceptr ptr, size_t bytes);
/* cuMemFree of every cached block. */
void cuda_pool_trim(cuda_pool *p);
/* Trims, and sends every later free straight to the driver. */
void cuda_pool_close(cuda_pool *p);
void cuda_pool_destroy(cuda_pool *p);
void cuda_pool_get_stats(cuda_pool *p, cuda_pool_stats *out);

#endif
