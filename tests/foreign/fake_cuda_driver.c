/*
 * fake_cuda_driver.c — a stand-in libcuda.so.1 for the host-side check of
 * the cublas plugin (tests/foreign/test_cuda_plugins.c, ctest's
 * foreign.test_cuda_plugins.fake_device run, which puts its folder first
 * in the library path).  "Device memory" is host memory: every function
 * the plugins resolve exists; those the cublas plugin calls do what the
 * driver documents on host pointers (cuMemsetD32Async sets 32-bit words);
 * the others report CUDA_ERROR_NOT_SUPPORTED (801).  One device, whose
 * primary context is current on every thread.  It lacks functions accel's
 * own loader needs (cuDriverGetVersion), so libaccel's cuda backend stays
 * unavailable under it.
 *
 * fake_cuda_retained() counts the references held on the primary context,
 * so the test can check that the plugin gives back what it took.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int CUresult;
enum { OK = 0, NOT_SUPPORTED = 801 };

static int the_context; /* its address is the context */
static int retained;

int fake_cuda_retained(void);
int fake_cuda_retained(void)
{
    return retained;
}

#define FAKE(name, params) CUresult name params; CUresult name params

FAKE(cuInit, (unsigned flags)) { (void)flags; return OK; }
FAKE(cuGetErrorString, (CUresult e, const char **text))
{
    *text = e == NOT_SUPPORTED ? "not supported by the fake driver"
                               : "fake driver error";
    return OK;
}
FAKE(cuDeviceGetCount, (int *n)) { *n = 1; return OK; }
FAKE(cuDeviceGetAttribute, (int *v, int attr, int dev))
{
    (void)attr;
    (void)dev;
    *v = 9; /* compute capability 9.9 */
    return OK;
}
FAKE(cuDevicePrimaryCtxRetain, (void **ctx, int dev))
{
    (void)dev;
    *ctx = &the_context;
    retained++;
    return OK;
}
FAKE(cuDevicePrimaryCtxRelease_v2, (int dev))
{
    (void)dev;
    retained--;
    return OK;
}
FAKE(cuCtxGetCurrent, (void **ctx)) { *ctx = &the_context; return OK; }
FAKE(cuCtxGetDevice, (int *dev)) { *dev = 0; return OK; }
FAKE(cuCtxPushCurrent_v2, (void *ctx))
{
    return ctx == &the_context ? OK : NOT_SUPPORTED;
}
FAKE(cuCtxPopCurrent_v2, (void **ctx)) { *ctx = &the_context; return OK; }
FAKE(cuMemsetD32Async, (unsigned long long dst, unsigned value, size_t n,
                        void *stream))
{
    uint32_t *p = (uint32_t *)(uintptr_t)dst;
    (void)stream;
    for (size_t i = 0; i < n; i++)
        p[i] = value;
    return OK;
}

/* Resolved by the plugins, not called by the cublas plugin. */
FAKE(cuMemAlloc_v2, (unsigned long long *p, size_t n))
{
    (void)p;
    (void)n;
    return NOT_SUPPORTED;
}
FAKE(cuMemFree_v2, (unsigned long long p)) { (void)p; return NOT_SUPPORTED; }
FAKE(cuModuleLoadData, (void **m, const void *image))
{
    (void)m;
    (void)image;
    return NOT_SUPPORTED;
}
FAKE(cuModuleUnload, (void *m)) { (void)m; return NOT_SUPPORTED; }
FAKE(cuModuleGetFunction, (void **f, void *m, const char *name))
{
    (void)f;
    (void)m;
    (void)name;
    return NOT_SUPPORTED;
}
FAKE(cuLaunchKernel, (void *f, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, unsigned bz, unsigned smem,
                      void *stream, void **params, void **extra))
{
    (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz;
    (void)smem, (void)stream, (void)params, (void)extra;
    return NOT_SUPPORTED;
}
FAKE(cuEventCreate, (void **e, unsigned flags))
{
    (void)e;
    (void)flags;
    return NOT_SUPPORTED;
}
FAKE(cuEventDestroy_v2, (void *e)) { (void)e; return NOT_SUPPORTED; }
FAKE(cuEventRecord, (void *e, void *s))
{
    (void)e;
    (void)s;
    return NOT_SUPPORTED;
}
FAKE(cuEventSynchronize, (void *e)) { (void)e; return NOT_SUPPORTED; }
FAKE(cuStreamWaitEvent, (void *s, void *e, unsigned flags))
{
    (void)s;
    (void)e;
    (void)flags;
    return NOT_SUPPORTED;
}
