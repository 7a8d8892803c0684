/*
 * cuda_backend.c — the CUDA state of a context (see cuda_backend.h): the
 * device and its primary context, the pool, the idle streams, and the
 * reference count that keeps them while library-owned device outputs
 * live.
 */
#include "core/backend/cuda/cuda_internal.h"
#include "core/base/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

acc_status cuda_fail(const cuda_backend *be, diag *d, cu_result r,
                     const char *fmt, ...)
{
    char what[512], err[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    cuda_error_text(&be->drv, r, err, sizeof err);
    return diag_fail(d, r == CU_ERR_OUT_OF_MEMORY
                            ? ACC_ERR_OUT_OF_DEVICE_MEMORY : ACC_ERR_DEVICE,
                     "%s: %s", what, err);
}

acc_status cuda_enter(cuda_backend *be, diag *d)
{
    cu_result r = be->drv.cuCtxPushCurrent(be->ctx);
    if (r == CU_SUCCESS)
        return ACC_OK;
    return cuda_fail(be, d, r, "cuCtxPushCurrent of CUDA device %d's "
                     "primary context", be->dev.ordinal);
}

void cuda_leave(cuda_backend *be)
{
    cu_context popped;
    be->drv.cuCtxPopCurrent(&popped);
}

/* ---- creation ------------------------------------------------------------------ */

static cuda_backend *open_libraries(int ordinal, diag *d)
{
    cuda_backend *be = mem_calloc(1, sizeof *be);
    int count = 0;
    if (!be) {
        diag_oom(d, "cuda backend");
        return NULL;
    }
    be->base.ops = &cuda_ops;
    if (cuda_load_driver(&be->drv, d) ||
        cuda_device_query(&be->drv, ordinal, &be->dev, &count, d) ||
        cuda_load_nvrtc(&be->nv, d) ||
        cuda_arch_for(&be->nv, be->dev.cc, &be->arch, d)) {
        free(be);
        return NULL;
    }
    return be;
}

cuda_backend *cuda_backend_create(int ordinal, const char *cache_dir,
                                  diag *d)
{
    char err[256];
    cuda_backend *be = open_libraries(ordinal, d);
    if (!be)
        return NULL;
    cu_result r = be->drv.cuDevicePrimaryCtxRetain(&be->ctx, be->dev.dev);
    if (r != CU_SUCCESS) {
        cuda_error_text(&be->drv, r, err, sizeof err);
        diag_fail(d, ACC_ERR_DEVICE, "the primary context of CUDA device %d "
                  "cannot be retained: %s", ordinal, err);
        free(be);
        return NULL;
    }
    pthread_mutex_init(&be->lock, NULL);
    pthread_mutex_init(&be->module_lock, NULL);
    be->refs = 1;
    if (!(be->pool = cuda_pool_create(&be->drv)) ||
        cache_folder_init(&be->folder, cache_dir, d) != ACC_OK) {
        diag_oom(d, "cuda backend");
        cuda_backend_release(be);
        return NULL;
    }
    return be;
}

/* ---- lifetime ------------------------------------------------------------------ */

void cuda_backend_retain(cuda_backend *be)
{
    pthread_mutex_lock(&be->lock);
    be->refs++;
    pthread_mutex_unlock(&be->lock);
}

/* Everything the driver holds for us; the primary context last. */
static void destroy(cuda_backend *be)
{
    diag ignored;
    diag_clear(&ignored);
    /* without a current context these calls fail harmlessly; the host
     * memory is freed either way */
    int entered = cuda_enter(be, &ignored) == ACC_OK;
    for (size_t i = 0; i < be->n_streams; i++)
        be->drv.cuStreamDestroy(be->streams[i]);
    cuda_modules_unload(be);
    cuda_pool_destroy(be->pool);
    if (entered)
        cuda_leave(be);
    be->drv.cuDevicePrimaryCtxRelease(be->dev.dev);
    free(be->streams);
    cache_folder_free(&be->folder);
    pthread_mutex_destroy(&be->module_lock);
    pthread_mutex_destroy(&be->lock);
    free(be);
}

void cuda_backend_release(cuda_backend *be)
{
    pthread_mutex_lock(&be->lock);
    int last = --be->refs == 0;
    pthread_mutex_unlock(&be->lock);
    if (last)
        destroy(be);
}

void cuda_backend_close(cuda_backend *be)
{
    diag ignored;
    diag_clear(&ignored);
    if (!be)
        return;
    if (cuda_enter(be, &ignored) == ACC_OK) {
        cuda_pool_close(be->pool);
        cuda_leave(be);
    }
    cuda_backend_release(be);
}

void cuda_backend_memory(cuda_backend *be, cuda_memory_stats *out)
{
    cuda_pool_stats s;
    cuda_pool_get_stats(be->pool, &s);
    *out = (cuda_memory_stats){s.driver_allocs, s.driver_frees, s.reuses,
                               s.cached_bytes, s.live_bytes};
}
