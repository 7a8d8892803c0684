/*
 * probe.c — the CUDA availability check: driver, device, NVRTC, and the
 * launcher (which does not exist yet).  Every library it loads is unloaded again; a context
 * that uses the backend loads what it needs itself.
 */
#include "core/backend/cuda/probe.h"

#include "core/backend/cuda/loader.h"

#include <stdio.h>

/* The device count, or -1 with why filled. */
static int device_count(const cuda_driver *d, char *why, size_t size)
{
    int count = 0;
    cu_result r = d->cuInit(0);
    if (r == CU_SUCCESS)
        r = d->cuDeviceGetCount(&count);
    if (r != CU_SUCCESS) {
        const char *text = NULL;
        if (d->cuGetErrorString(r, &text) != CU_SUCCESS || !text)
            text = "unknown error";
        snprintf(why, size, "the CUDA driver failed to start (error %d: %s)",
                 (int)r, text);
        return -1;
    }
    if (count == 0)
        snprintf(why, size, "no CUDA device");
    return count;
}

int cuda_probe(char *reason, size_t size)
{
    char why[768];
    cuda_driver driver;
    cuda_nvrtc nvrtc;
    if (!cuda_load_driver(&driver, why, sizeof why)) {
        snprintf(reason, size, "not available: %s", why);
        return 0;
    }
    int devices = device_count(&driver, why, sizeof why);
    cuda_unload_driver(&driver);
    if (devices <= 0) {
        snprintf(reason, size, "not available: %s", why);
        return 0;
    }
    if (!cuda_load_nvrtc(&nvrtc, why, sizeof why)) {
        snprintf(reason, size, "not available: %s", why);
        return 0;
    }
    int major = nvrtc.major, minor = nvrtc.minor;
    cuda_unload_nvrtc(&nvrtc);
    snprintf(reason, size, "not available: %d CUDA device(s) and NVRTC %d.%d "
             "were found, but this build of accel cannot launch CUDA "
             "kernels yet (it only generates and compiles them)", devices,
             major, minor);
    return 0;
}
