/*
 * dev_pool.c — size classes and free lists over cuMemAlloc (see
 * dev_pool.h).
 */
#include "core/backend/cuda/dev_pool.h"
#include "core/base/mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { MIN_CLASS = 512, BIG = 1 << 20 };

/* The free blocks of one size class. */
typedef struct bucket {
    size_t size;
    cu_deviceptr *blocks;
    size_t n, cap;
    struct bucket *next;
} bucket;

struct cuda_pool {
    const cuda_driver *d;
    pthread_mutex_t lock;
    bucket *buckets;
    int closed;
    cuda_pool_stats stats;
};

cuda_pool *cuda_pool_create(const cuda_driver *d)
{
    cuda_pool *p = mem_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->d = d;
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

size_t cuda_pool_class(size_t bytes)
{
    if (bytes == 0)
        return 0;
    if (bytes > BIG)
        return bytes > SIZE_MAX - BIG ? bytes : (bytes + BIG - 1) / BIG * BIG;
    size_t c = MIN_CLASS;
    while (c < bytes)
        c *= 2;
    return c;
}

static bucket *bucket_of(cuda_pool *p, size_t size, int create)
{
    bucket *b = p->buckets;
    while (b && b->size != size)
        b = b->next;
    if (b || !create)
        return b;
    if ((b = mem_calloc(1, sizeof *b)) != NULL) {
        b->size = size;
        b->next = p->buckets;
        p->buckets = b;
    }
    return b;
}

/* A cached block of class `size`, or 0. */
static cu_deviceptr take(cuda_pool *p, size_t size)
{
    cu_deviceptr ptr = 0;
    pthread_mutex_lock(&p->lock);
    bucket *b = bucket_of(p, size, 0);
    if (b && b->n > 0) {
        ptr = b->blocks[--b->n];
        p->stats.reuses++;
        p->stats.cached_bytes -= size;
        p->stats.live_bytes += size;
    }
    pthread_mutex_unlock(&p->lock);
    return ptr;
}

cu_result cuda_pool_alloc(cuda_pool *p, size_t bytes, cu_deviceptr *out)
{
    size_t size = cuda_pool_class(bytes);
    cu_deviceptr ptr = take(p, size);
    if (ptr) {
        *out = ptr;
        return CU_SUCCESS;
    }
    cu_result r = p->d->cuMemAlloc(&ptr, size);
    if (r == CU_ERR_OUT_OF_MEMORY) { /* the cache may hold what we need */
        cuda_pool_trim(p);
        r = p->d->cuMemAlloc(&ptr, size);
    }
    if (r != CU_SUCCESS)
        return r;
    pthread_mutex_lock(&p->lock);
    p->stats.driver_allocs++;
    p->stats.live_bytes += size;
    pthread_mutex_unlock(&p->lock);
    *out = ptr;
    return CU_SUCCESS;
}

/* Pushes a block onto its list; 0 when it must go to the driver instead
 * (the pool is closed, or no memory for the list). */
static int cache_block(cuda_pool *p, cu_deviceptr ptr, size_t size)
{
    bucket *b = p->closed ? NULL : bucket_of(p, size, 1);
    if (b && b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 8;
        cu_deviceptr *grown = mem_realloc(b->blocks, cap * sizeof *grown);
        if (grown) {
            b->blocks = grown;
            b->cap = cap;
        }
    }
    if (!b || b->n == b->cap)
        return 0;
    b->blocks[b->n++] = ptr;
    p->stats.cached_bytes += size;
    return 1;
}

void cuda_pool_free(cuda_pool *p, cu_deviceptr ptr, size_t bytes)
{
    size_t size = cuda_pool_class(bytes);
    if (!ptr)
        return;
    pthread_mutex_lock(&p->lock);
    p->stats.live_bytes -= size;
    int cached = cache_block(p, ptr, size);
    if (!cached)
        p->stats.driver_frees++;
    pthread_mutex_unlock(&p->lock);
    if (!cached)
        p->d->cuMemFree(ptr); /* nothing to do about a failure here */
}

/* Detaches every cached block: the caller frees them outside the lock. */
static bucket *detach(cuda_pool *p)
{
    pthread_mutex_lock(&p->lock);
    bucket *all = p->buckets;
    p->buckets = NULL;
    for (bucket *b = all; b; b = b->next) {
        p->stats.cached_bytes -= (uint64_t)b->n * b->size;
        p->stats.driver_frees += b->n;
    }
    pthread_mutex_unlock(&p->lock);
    return all;
}

void cuda_pool_trim(cuda_pool *p)
{
    bucket *b = detach(p);
    while (b) {
        bucket *next = b->next;
        for (size_t i = 0; i < b->n; i++)
            p->d->cuMemFree(b->blocks[i]);
        free(b->blocks);
        free(b);
        b = next;
    }
}

void cuda_pool_close(cuda_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->closed = 1;
    pthread_mutex_unlock(&p->lock);
    cuda_pool_trim(p);
}

void cuda_pool_destroy(cuda_pool *p)
{
    if (!p)
        return;
    cuda_pool_trim(p);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void cuda_pool_get_stats(cuda_pool *p, cuda_pool_stats *out)
{
    pthread_mutex_lock(&p->lock);
    *out = p->stats;
    pthread_mutex_unlock(&p->lock);
}
