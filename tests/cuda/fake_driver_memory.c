/*
 * fake_driver_memory.c — the fake CUDA driver's memory, copies, streams,
 * events and memset (see fake_driver.c), on host memory: allocations
 * (with the failures the test injects), copies refused outside a live
 * allocation or on a stream that is not live, and streams and events
 * checked through their life.  Work runs when it is enqueued.
 */
#include <cuda.h>

#include "fake_driver.h"
#include "fake_driver_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ---------------------------------------------------------------- */

static int alloc_should_fail(void)
{
    if (config.alloc_fail_after < 0)
        return 0;
    if (config.alloc_fail_after > 0) {
        config.alloc_fail_after--;
        return 0;
    }
    if (config.alloc_fail_times > 0 && --config.alloc_fail_times == 0)
        config.alloc_fail_after = -1; /* that was the last failure */
    return 1;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *ptr, size_t bytes)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    allocation *a = NULL;
    if (r == CUDA_SUCCESS && (!ptr || bytes == 0))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc of 0 bytes");
    if (r == CUDA_SUCCESS &&
        (alloc_should_fail() ||
         (shape().memory && bytes > shape().memory - counters.live_bytes))) {
        counters.alloc_failures++;
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r == CUDA_SUCCESS &&
        (!(a = calloc(1, sizeof *a)) || !(a->bytes = calloc(1, bytes)))) {
        free(a);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r == CUDA_SUCCESS) {
        a->size = bytes;
        a->next = allocations;
        allocations = a;
        *ptr = (CUdeviceptr)(uintptr_t)a->bytes;
        counters.allocs++;
        counters.live_allocs++;
        counters.live_bytes += bytes;
        record(FAKE_ALLOC, NULL, bytes);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr ptr)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    allocation **at = &allocations;
    while (r == CUDA_SUCCESS && *at &&
           (CUdeviceptr)(uintptr_t)(*at)->bytes != ptr)
        at = &(*at)->next;
    if (r == CUDA_SUCCESS && !*at)
        r = misuse(CUDA_ERROR_INVALID_VALUE, "free of an unknown pointer");
    if (r == CUDA_SUCCESS) {
        allocation *a = *at;
        *at = a->next;
        counters.frees++;
        counters.live_allocs--;
        counters.live_bytes -= a->size;
        record(FAKE_FREE, NULL, a->size);
        free(a->bytes);
        free(a);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src,
                                   size_t bytes, CUstream stream)
{
    pthread_mutex_lock(&lock);
    CUresult r = copy_checks(stream);
    if (r == CUDA_SUCCESS && (!src || !holding(dst, bytes)))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "HtoD outside an allocation");
    if (r == CUDA_SUCCESS) {
        memcpy((void *)(uintptr_t)dst, src, bytes);
        counters.htod++;
        record(FAKE_HTOD, stream, bytes);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes,
                                   CUstream stream)
{
    pthread_mutex_lock(&lock);
    CUresult r = copy_checks(stream);
    if (r == CUDA_SUCCESS && (!dst || !holding(src, bytes)))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "DtoH outside an allocation");
    if (r == CUDA_SUCCESS) {
        memcpy(dst, (const void *)(uintptr_t)src, bytes);
        counters.dtoh++;
        record(FAKE_DTOH, stream, bytes);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src,
                                   size_t bytes, CUstream stream)
{
    pthread_mutex_lock(&lock);
    CUresult r = copy_checks(stream);
    if (r == CUDA_SUCCESS && (!holding(src, bytes) || !holding(dst, bytes)))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "DtoD outside an allocation");
    if (r == CUDA_SUCCESS) {
        memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
        counters.dtod++;
        record(FAKE_DTOD, stream, bytes);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---- streams ------------------------------------------------------------------ */

CUresult CUDAAPI cuStreamCreate(CUstream *stream, unsigned int flags)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    fake_stream *s = NULL;
    if (r == CUDA_SUCCESS && (!stream || flags > CU_STREAM_NON_BLOCKING))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "bad cuStreamCreate arguments");
    if (r == CUDA_SUCCESS && !(s = calloc(1, sizeof *s)))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        s->live = 1;
        s->next = streams;
        streams = s;
        *stream = (CUstream)(void *)s;
        counters.streams_created++;
        record(FAKE_STREAM_CREATE, *stream, 0);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuStreamDestroy(CUstream stream)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    if (r == CUDA_SUCCESS &&
        (stream == NULL || !stream_ok(stream) || stream == CU_STREAM_LEGACY ||
         stream == CU_STREAM_PER_THREAD))
        r = misuse(CUDA_ERROR_INVALID_HANDLE, "destroy of a stream that is "
                   "not live");
    if (r == CUDA_SUCCESS) {
        ((fake_stream *)(void *)stream)->live = 0;
        counters.streams_destroyed++;
        record(FAKE_STREAM_DESTROY, stream, 0);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream stream)
{
    pthread_mutex_lock(&lock);
    CUresult r = copy_checks(stream);
    if (r == CUDA_SUCCESS) {
        counters.syncs++;
        record(FAKE_SYNC, stream, 0);
        r = (CUresult)config.sync_error;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---- events, memset (the plugins') ------------------------------------------ */

/* Work runs when it is enqueued, so an event is complete as soon as it is
 * recorded; what is checked is the handles' life. */
typedef struct fake_cu_event {
    int magic;
} fake_cu_event;
enum { EVENT_MAGIC = 0x65766e74 };

static int event_ok(CUevent e)
{
    return e && ((fake_cu_event *)(void *)e)->magic == EVENT_MAGIC;
}

CUresult CUDAAPI cuEventCreate(CUevent *event, unsigned int flags)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    fake_cu_event *e = NULL;
    if (r == CUDA_SUCCESS && (!event || flags > 0xf))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "bad cuEventCreate arguments");
    if (r == CUDA_SUCCESS && !(e = calloc(1, sizeof *e)))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        e->magic = EVENT_MAGIC;
        *event = (CUevent)(void *)e;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuEventDestroy(CUevent event)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    if (r == CUDA_SUCCESS && !event_ok(event))
        r = misuse(CUDA_ERROR_INVALID_HANDLE, "destroy of an unknown event");
    if (r == CUDA_SUCCESS) {
        ((fake_cu_event *)(void *)event)->magic = 0;
        free(event);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuEventRecord(CUevent event, CUstream stream)
{
    pthread_mutex_lock(&lock);
    CUresult r = copy_checks(stream);
    if (r == CUDA_SUCCESS && !event_ok(event))
        r = misuse(CUDA_ERROR_INVALID_HANDLE, "record of an unknown event");
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuEventSynchronize(CUevent event)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    if (r == CUDA_SUCCESS && !event_ok(event))
        r = misuse(CUDA_ERROR_INVALID_HANDLE, "sync on an unknown event");
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream stream, CUevent event,
                                   unsigned int flags)
{
    pthread_mutex_lock(&lock);
    CUresult r = copy_checks(stream);
    if (r == CUDA_SUCCESS && (!event_ok(event) || flags != 0))
        r = misuse(CUDA_ERROR_INVALID_HANDLE, "wait on an unknown event");
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dst, unsigned int value,
                                  size_t count, CUstream stream)
{
    pthread_mutex_lock(&lock);
    CUresult r = copy_checks(stream);
    if (r == CUDA_SUCCESS && (count > SIZE_MAX / 4 || !holding(dst, count * 4)))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "memset outside an allocation");
    for (size_t i = 0; r == CUDA_SUCCESS && i < count; i++)
        memcpy((unsigned char *)(uintptr_t)dst + 4 * i, &value, 4);
    pthread_mutex_unlock(&lock);
    return r;
}
