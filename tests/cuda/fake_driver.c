/*
 * fake_driver.c — a fake libcuda.so.1 for the tests of accel's CUDA
 * runtime on machines without a GPU (see fake_driver.h).  It implements,
 * on host memory, exactly the driver functions accel's loader resolves
 * (core/backend/cuda/loader.h), with the prototypes of the toolkit's
 * cuda.h (this file is only built where that header exists, so every
 * definition is checked against it).
 *
 * What it checks, as the real driver would refuse it: calls before cuInit,
 * work without a current context, streams that were never created or are
 * destroyed, copies that do not lie inside a live allocation, frees of
 * unknown pointers, images that are neither an ELF cubin for the CUDA
 * machine nor PTX text, functions absent from their module, launch
 * dimensions beyond the device's limits.  Each refusal counts as misuse.
 * What it cannot do: run a kernel.
 *
 * Built with FAKE_EMU (build/emu-cuda/libcuda.so.1), it is the emulated
 * device instead (docs/CUDA.md, "The emulated device"): the images are
 * those of the test NVRTC (tests/cuda/emu/emu_nvrtc.c), the CUDA source
 * itself, which a module load builds for the host (emu_build.c) and
 * dlopens, and a launch executes the kernel (tests/cuda/emu/cuda_emu.h),
 * every block of the grid, a block's threads as fibers.  The device's
 * shape (multiprocessors, occupancy block size) is ACC_EMU_DEVICE's:
 * "small" or "large" (the default).
 *
 * This file: the driver's state, the test interface (fake_driver.h) and
 * the bookkeeping every entry point uses (fake_driver_internal.h).  The
 * entry points are in fake_driver_device.c (initialisation, devices,
 * errors, contexts), fake_driver_memory.c (memory, copies, streams,
 * events, memset) and fake_driver_launch.c (modules, functions,
 * occupancy, launches, and the emulated device's module builds and
 * kernel runs).
 */
#include <cuda.h>

#include "fake_driver.h"
#include "fake_driver_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_EVENTS = 8192 };

device_shape shape(void)
{
#ifdef FAKE_EMU
    static const device_shape small = {"small", 2, 64, 64, 1024,
                                       (size_t)512 << 20, 0, 48 << 10};
    static const device_shape large = {"large", 24, 512, 96, 1024,
                                       (size_t)1 << 30, 1, 48 << 10};
    const char *e = getenv("ACC_EMU_DEVICE");
    return e && strcmp(e, "small") == 0 ? small : large;
#else
    static const device_shape fixed = {"fake", 132, 0, 264, 1024, 0, 0,
                                       48 << 10};
    return fixed;
#endif
}

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
fake_config config = FAKE_CONFIG_DEFAULTS;
fake_counters counters;
static fake_event events[MAX_EVENTS];
static size_t n_events;
int initialised;
int primary_refs;
struct CUctx_st *const primary = (struct CUctx_st *)&primary_refs;
allocation *allocations;
fake_stream *streams;   /* every stream ever created (kept) */
_Thread_local CUcontext ctx_stack[MAX_DEPTH];
_Thread_local int ctx_depth;

/* ---- the test interface ------------------------------------------------- */

void fake_cuda_reset(void)
{
    pthread_mutex_lock(&lock);
    fake_config fresh = FAKE_CONFIG_DEFAULTS;
    config = fresh;
    memset(&counters, 0, sizeof counters);
    n_events = 0;
    pthread_mutex_unlock(&lock);
}

void fake_cuda_configure(const fake_config *c)
{
    pthread_mutex_lock(&lock);
    config = *c;
    pthread_mutex_unlock(&lock);
}

void fake_cuda_get_config(fake_config *c)
{
    pthread_mutex_lock(&lock);
    *c = config;
    pthread_mutex_unlock(&lock);
}

void fake_cuda_counters(fake_counters *out)
{
    pthread_mutex_lock(&lock);
    *out = counters;
    pthread_mutex_unlock(&lock);
}

size_t fake_cuda_events(fake_event *out, size_t max)
{
    pthread_mutex_lock(&lock);
    size_t n = n_events < max ? n_events : max;
    memcpy(out, events, n * sizeof *out);
    size_t total = n_events;
    pthread_mutex_unlock(&lock);
    return total;
}

void fake_cuda_clear_events(void)
{
    pthread_mutex_lock(&lock);
    n_events = 0;
    pthread_mutex_unlock(&lock);
}

/* ---- bookkeeping (called with the lock held) ------------------------------ */

fake_event *record(fake_kind kind, CUstream stream, size_t bytes)
{
    static fake_event spill;
    fake_event *e = n_events < MAX_EVENTS ? &events[n_events++] : &spill;
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->stream = (void *)stream;
    e->bytes = bytes;
    return e;
}

CUresult misuse(CUresult r, const char *what)
{
    counters.misuse++;
    snprintf(counters.last_misuse, sizeof counters.last_misuse, "%s", what);
    return r;
}

/* The common preconditions of work on the device. */
CUresult need_context(void)
{
    if (!initialised)
        return misuse(CUDA_ERROR_NOT_INITIALIZED, "call before cuInit");
    if (ctx_depth == 0 || ctx_stack[ctx_depth - 1] != primary ||
        primary_refs == 0)
        return misuse(CUDA_ERROR_INVALID_CONTEXT, "no current context");
    return CUDA_SUCCESS;
}

/* NULL and the two special handles are the default streams. */
int stream_ok(CUstream s)
{
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
        return 1;
    for (fake_stream *f = streams; f; f = f->next)
        if ((CUstream)(void *)f == s)
            return f->live;
    return 0;
}

/* The live allocation holding [p, p + n), or NULL. */
allocation *holding(CUdeviceptr p, size_t n)
{
    for (allocation *a = allocations; a; a = a->next) {
        CUdeviceptr base = (CUdeviceptr)(uintptr_t)a->bytes;
        if (p >= base && p - base <= a->size && n <= a->size - (p - base))
            return a;
    }
    return NULL;
}

CUresult copy_checks(CUstream s)
{
    CUresult r = need_context();
    if (r != CUDA_SUCCESS)
        return r;
    return stream_ok(s) ? CUDA_SUCCESS
                        : misuse(CUDA_ERROR_INVALID_HANDLE, "dead stream");
}
