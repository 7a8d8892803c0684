/*
 * fake_driver_device.c — the fake CUDA driver's initialisation, devices,
 * error names and contexts (see fake_driver.c): cuInit with the result
 * the test configured, the devices and their attributes (the shape of
 * fake_driver_internal.h), the error table, and primary contexts with a
 * push/pop stack per thread.
 */
#include <cuda.h>

#include "fake_driver.h"
#include "fake_driver_internal.h"

#include <pthread.h>
#include <stdio.h>

/* ---- initialisation, devices, errors -------------------------------------- */

CUresult CUDAAPI cuInit(unsigned int flags)
{
    pthread_mutex_lock(&lock);
    CUresult r = flags != 0 ? CUDA_ERROR_INVALID_VALUE
                            : (CUresult)config.init_error;
    initialised = r == CUDA_SUCCESS;
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuDriverGetVersion(int *version)
{
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 13000;
    return CUDA_SUCCESS;
}

typedef struct error_entry {
    CUresult code;
    const char *name, *text;
} error_entry;

static const error_entry error_table[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED",
     "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
     "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
     "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
     "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
     "unspecified launch failure"},
};

static const error_entry *error_of(CUresult r)
{
    for (size_t i = 0; i < sizeof error_table / sizeof *error_table; i++)
        if (error_table[i].code == r)
            return &error_table[i];
    return NULL;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **text)
{
    const error_entry *e = error_of(error);
    if (!text)
        return CUDA_ERROR_INVALID_VALUE;
    *text = e ? e->name : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **text)
{
    const error_entry *e = error_of(error);
    if (!text)
        return CUDA_ERROR_INVALID_VALUE;
    *text = e ? e->text : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    CUresult r = initialised ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
    *count = initialised ? config.devices : 0;
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *dev, int ordinal)
{
    pthread_mutex_lock(&lock);
    CUresult r = !initialised ? CUDA_ERROR_NOT_INITIALIZED
                 : ordinal < 0 || ordinal >= config.devices
                     ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
    pthread_mutex_unlock(&lock);
    if (r == CUDA_SUCCESS)
        *dev = ordinal;
    return r;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
#ifdef FAKE_EMU
    snprintf(name, (size_t)len, "accel emulated CUDA device %d (%s)",
             (int)dev, shape().name);
#else
    snprintf(name, (size_t)len, "accel fake CUDA device %d", (int)dev);
#endif
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute attr,
                                      CUdevice dev)
{
    (void)dev;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    CUresult r = CUDA_SUCCESS;
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = config.cc_major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = config.cc_minor; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = shape().sms; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = shape().max_block; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *value = 65535; break;
    default: r = misuse(CUDA_ERROR_INVALID_VALUE, "unexpected attribute");
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* NVRTC looks for a loaded libcuda.so.1 and asks it for its private
 * export tables; the fake has none (NVRTC then compiles on its own). */
CUresult CUDAAPI cuGetExportTable(const void **table, const CUuuid *id)
{
    (void)id;
    if (table)
        *table = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- contexts --------------------------------------------------------------- */

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    pthread_mutex_lock(&lock);
    CUresult r = !initialised ? CUDA_ERROR_NOT_INITIALIZED
                 : dev < 0 || dev >= config.devices ? CUDA_ERROR_INVALID_DEVICE
                                                   : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) {
        primary_refs++;
        counters.primary_retains++;
        *ctx = primary;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
    (void)dev;
    pthread_mutex_lock(&lock);
    CUresult r = CUDA_SUCCESS;
    if (primary_refs == 0)
        r = misuse(CUDA_ERROR_INVALID_CONTEXT, "release of a primary "
                   "context that is not retained");
    else {
        primary_refs--;
        counters.primary_releases++;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx)
{
    pthread_mutex_lock(&lock);
    CUresult r = CUDA_SUCCESS;
    if (ctx != primary || primary_refs == 0)
        r = misuse(CUDA_ERROR_INVALID_CONTEXT, "push of an unknown context");
    else if (ctx_depth == MAX_DEPTH)
        r = misuse(CUDA_ERROR_INVALID_VALUE, "context stack overflow");
    else
        ctx_stack[ctx_depth++] = ctx;
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext *ctx)
{
    pthread_mutex_lock(&lock);
    CUresult r = CUDA_SUCCESS;
    if (ctx_depth == 0)
        r = misuse(CUDA_ERROR_INVALID_CONTEXT, "pop of an empty stack");
    else {
        CUcontext top = ctx_stack[--ctx_depth];
        if (ctx)
            *ctx = top;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* What the cuBLAS/cuFFT plugins ask of a context (plugins/cuda_common):
 * the current one (the top of the one stack the fake keeps for every
 * thread) and its device, always the first. */
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *ctx)
{
    pthread_mutex_lock(&lock);
    CUresult r = !initialised ? CUDA_ERROR_NOT_INITIALIZED
                 : !ctx       ? CUDA_ERROR_INVALID_VALUE
                              : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS)
        *ctx = ctx_depth ? ctx_stack[ctx_depth - 1] : NULL;
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *dev)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    if (r == CUDA_SUCCESS && !dev)
        r = misuse(CUDA_ERROR_INVALID_VALUE, "cuCtxGetDevice without room");
    if (r == CUDA_SUCCESS)
        *dev = 0;
    pthread_mutex_unlock(&lock);
    return r;
}
