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
 */
#include <cuda.h>

#include "fake_driver.h"

#ifdef FAKE_EMU
#include "emu/emu_build.h"
#include "emu/emu_launch.h"

#include <dlfcn.h>
#include <sys/mman.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_EVENTS = 8192, MAX_DEPTH = 16, EM_CUDA = 190 };

typedef struct allocation {
    unsigned char *bytes;
    size_t size;
    struct allocation *next;
} allocation;

typedef struct fake_stream {
    int live;
    struct fake_stream *next;
} fake_stream;

struct CUmod_st {
    unsigned char *image;
    size_t size;
    int ptx;
#ifdef FAKE_EMU
    void *so; /* the module built for the host */
#endif
};

struct CUfunc_st {
    char name[64];
    struct CUfunc_st *next;
#ifdef FAKE_EMU
    acc_emu_entry_fn entry;
#endif
};

/* The device's shape: the emulated device's from ACC_EMU_DEVICE, the
 * plain fake's fixed one. */
typedef struct device_shape {
    const char *name;
    int sms;       /* multiprocessors */
    int block;     /* the occupancy block size (at most; the fake's
                      config.occupancy_block when 0) */
    int min_grid;  /* the occupancy minimum grid */
    int max_block; /* threads per block */
    size_t memory; /* bytes of device memory (0: as much as the host's) */
    int reverse;   /* a block's threads run last to first */
    unsigned shared; /* bytes of dynamic shared memory a launch may ask
                        for: 48 KiB, CUDA's limit without the opt-in
                        (cuFuncSetAttribute, which no fake has) */
} device_shape;

static device_shape shape(void)
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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fake_config config = FAKE_CONFIG_DEFAULTS;
static fake_counters counters;
static fake_event events[MAX_EVENTS];
static size_t n_events;
static int initialised;
static int primary_refs;
static struct CUctx_st *const primary = (struct CUctx_st *)&primary_refs;
static allocation *allocations;
static fake_stream *streams;   /* every stream ever created (kept) */
static struct CUfunc_st *functions; /* kept until the process ends */
static _Thread_local CUcontext ctx_stack[MAX_DEPTH];
static _Thread_local int ctx_depth;

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

static fake_event *record(fake_kind kind, CUstream stream, size_t bytes)
{
    static fake_event spill;
    fake_event *e = n_events < MAX_EVENTS ? &events[n_events++] : &spill;
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->stream = (void *)stream;
    e->bytes = bytes;
    return e;
}

static CUresult misuse(CUresult r, const char *what)
{
    counters.misuse++;
    snprintf(counters.last_misuse, sizeof counters.last_misuse, "%s", what);
    return r;
}

/* The common preconditions of work on the device. */
static CUresult need_context(void)
{
    if (!initialised)
        return misuse(CUDA_ERROR_NOT_INITIALIZED, "call before cuInit");
    if (ctx_depth == 0 || ctx_stack[ctx_depth - 1] != primary ||
        primary_refs == 0)
        return misuse(CUDA_ERROR_INVALID_CONTEXT, "no current context");
    return CUDA_SUCCESS;
}

/* NULL and the two special handles are the default streams. */
static int stream_ok(CUstream s)
{
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
        return 1;
    for (fake_stream *f = streams; f; f = f->next)
        if ((CUstream)(void *)f == s)
            return f->live;
    return 0;
}

/* The live allocation holding [p, p + n), or NULL. */
static allocation *holding(CUdeviceptr p, size_t n)
{
    for (allocation *a = allocations; a; a = a->next) {
        CUdeviceptr base = (CUdeviceptr)(uintptr_t)a->bytes;
        if (p >= base && p - base <= a->size && n <= a->size - (p - base))
            return a;
    }
    return NULL;
}

static CUresult copy_checks(CUstream s)
{
    CUresult r = need_context();
    if (r != CUDA_SUCCESS)
        return r;
    return stream_ok(s) ? CUDA_SUCCESS
                        : misuse(CUDA_ERROR_INVALID_HANDLE, "dead stream");
}

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

/* ---- modules and functions ------------------------------------------------- */

/* An ELF image for the CUDA machine, or PTX text (".version" and
 * ".target" directives, NUL-terminated). */
static int image_kind(const unsigned char *p, size_t *size)
{
#ifdef FAKE_EMU
    /* only the test NVRTC's images (PTX-like text) */
    if (!emu_image_source((const char *)p))
        return -1;
#endif
    if (memcmp(p, "\177ELF", 4) == 0) {
        unsigned machine = (unsigned)p[18] | (unsigned)p[19] << 8;
        uint64_t shoff = 0;
        unsigned shentsize = (unsigned)p[58] | (unsigned)p[59] << 8;
        unsigned shnum = (unsigned)p[60] | (unsigned)p[61] << 8;
        for (int i = 0; i < 8; i++)
            shoff |= (uint64_t)p[40 + i] << (8 * i);
        if (p[4] != 2 || machine != EM_CUDA)
            return -1;
        *size = (size_t)(shoff + (uint64_t)shentsize * shnum);
        return 0;
    }
    const char *text = (const char *)p;
    if (!strstr(text, ".version") || !strstr(text, ".target"))
        return -1;
    *size = strlen(text) + 1;
    return 1;
}

#ifdef FAKE_EMU
/* Builds the image's source for the host (cached) and loads it; the lock
 * is held, so one module is built at a time in a process. */
static CUresult emu_load(struct CUmod_st *m, const void *image)
{
    char so[1200], *log = NULL;
    if (!emu_build(emu_image_source(image), so, sizeof so, &log)) {
        fprintf(stderr, "emulated device: the module does not build: %s\n",
                log ? log : "out of memory");
        free(log);
        return misuse(CUDA_ERROR_INVALID_IMAGE, "an emulated module that "
                      "does not build");
    }
    m->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!m->so) {
        fprintf(stderr, "emulated device: %s\n", dlerror());
        return misuse(CUDA_ERROR_INVALID_IMAGE, "an emulated module that "
                      "does not load");
    }
    return CUDA_SUCCESS;
}
#endif

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    size_t size = 0;
    int kind = r == CUDA_SUCCESS && image ? image_kind(image, &size) : -1;
    struct CUmod_st *m = NULL;
    if (r == CUDA_SUCCESS && (kind < 0 || !module))
        r = misuse(CUDA_ERROR_INVALID_IMAGE, "an image that is neither a "
                   "CUDA ELF cubin nor PTX");
    if (r == CUDA_SUCCESS &&
        (!(m = calloc(1, sizeof *m)) || !(m->image = malloc(size)))) {
        free(m);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
#ifdef FAKE_EMU
    if (r == CUDA_SUCCESS && (r = emu_load(m, image)) != CUDA_SUCCESS) {
        free(m->image);
        free(m);
    }
#endif
    if (r == CUDA_SUCCESS) {
        memcpy(m->image, image, size);
        m->size = size;
        m->ptx = kind;
        *module = m;
        counters.modules_loaded++;
        counters.cubins += kind == 0;
        counters.ptx_images += kind == 1;
        record(FAKE_MODULE_LOAD, NULL, size);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuModuleUnload(CUmodule module)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    if (r == CUDA_SUCCESS && !module)
        r = misuse(CUDA_ERROR_INVALID_HANDLE, "unload of NULL");
    if (r == CUDA_SUCCESS) {
        counters.modules_unloaded++;
#ifdef FAKE_EMU
        dlclose(module->so);
#endif
        free(module->image);
        free(module);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* Whether `name` is an entry of the module: a symbol name (NUL-delimited)
 * in a cubin, ".entry name(" in PTX. */
static int has_entry(const struct CUmod_st *m, const char *name)
{
    char want[96];
    size_t n = strlen(name);
#ifdef FAKE_EMU
    snprintf(want, sizeof want, "acc_emu_defined_%s", name);
    const int *defined = dlsym(m->so, want);
    return defined && *defined;
#endif
    if (m->ptx) {
        snprintf(want, sizeof want, ".entry %s(", name);
        return strstr((const char *)m->image, want) != NULL;
    }
    for (size_t i = 1; i + n < m->size; i++)
        if (m->image[i - 1] == '\0' && m->image[i + n] == '\0' &&
            memcmp(m->image + i, name, n) == 0)
            return 1;
    return 0;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *fn, CUmodule module,
                                     const char *name)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    struct CUfunc_st *f = NULL;
    if (r == CUDA_SUCCESS && (!fn || !module || !name || strlen(name) > 60))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "bad cuModuleGetFunction "
                   "arguments");
    if (r == CUDA_SUCCESS && !has_entry(module, name))
        r = CUDA_ERROR_NOT_FOUND;
    if (r == CUDA_SUCCESS && !(f = calloc(1, sizeof *f)))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        snprintf(f->name, sizeof f->name, "%s", name);
#ifdef FAKE_EMU
        char sym[96];
        snprintf(sym, sizeof sym, "acc_emu_launch_%s", name);
        *(void **)&f->entry = dlsym(module->so, sym);
#endif
        f->next = functions;
        functions = f;
        *fn = f;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(
    int *min_grid, int *block, CUfunction f, CUoccupancyB2DSize smem_of_block,
    size_t smem, int block_limit)
{
    (void)smem_of_block;
    (void)smem;
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    if (r == CUDA_SUCCESS && (!min_grid || !block || !f))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "bad occupancy arguments");
    if (r == CUDA_SUCCESS) {
        int most = shape().block > 0 ? shape().block : config.occupancy_block;
        *block = block_limit > 0 && block_limit < most ? block_limit : most;
        *min_grid = shape().min_grid;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---- launches ------------------------------------------------------------------ */

/* What a failing kernel leaves in its error slot. */
static void fail_launch(void **params)
{
    const unsigned char *args = params[0];
    CUdeviceptr err;
    memcpy(&err, args + FAKE_KARGS_ERR_OFFSET, sizeof err);
    struct { int code, site; int64_t pos; } slot = {
        config.fail_code, config.fail_site, config.fail_pos};
    if (!holding(err, sizeof slot)) {
        misuse(CUDA_ERROR_INVALID_VALUE, "error slot outside an allocation");
        return;
    }
    memcpy((void *)(uintptr_t)err, &slot, sizeof slot);
    config.fail_launches--;
}

/* What a kernel would leave in A->part[poke_part] (the test's bytes). */
static void poke_launch(void **params)
{
    const unsigned char *args = params[0];
    CUdeviceptr parts, target;
    memcpy(&parts, args + FAKE_KARGS_PART_OFFSET, sizeof parts);
    parts += 8 * (CUdeviceptr)config.poke_part;
    config.poke_function[0] = '\0';
    if (config.poke_len > sizeof config.poke_bytes ||
        !holding(parts, sizeof target)) {
        misuse(CUDA_ERROR_INVALID_VALUE, "poke: no such partial pointer");
        return;
    }
    memcpy(&target, (const void *)(uintptr_t)parts, sizeof target);
    if (!holding(target + config.poke_offset, config.poke_len)) {
        misuse(CUDA_ERROR_INVALID_VALUE, "poke outside an allocation");
        return;
    }
    memcpy((void *)(uintptr_t)(target + config.poke_offset),
           config.poke_bytes, config.poke_len);
}

/* What a launch's parameters say (fake_driver.h: fake_event). */
static void record_args(fake_event *e, void **params)
{
    const unsigned char *args = params[0];
    memcpy(&e->out_size, args + FAKE_KARGS_OUT_SIZE_OFFSET,
           sizeof e->out_size);
    memcpy(&e->inner, args + FAKE_KARGS_INNER_OFFSET, sizeof e->inner);
    e->has_arg1 = params[1] != NULL;
    if (e->has_arg1)
        memcpy(&e->arg1, params[1], sizeof e->arg1);
}

#ifdef FAKE_EMU
enum { EMU_STACK_BYTES = 128 * 1024, EMU_FIBER_BYTES = 1024 * 2048 };

/* Executes a launch (the lock held: one launch at a time). */
static CUresult emu_run(const struct CUfunc_st *f, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared_bytes, void **params)
{
    static unsigned char *stacks;
    static void *fibers;
    char why[512] = "";
    if (!fibers && !(fibers = malloc(EMU_FIBER_BYTES)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (!stacks) {
        void *p = mmap(NULL, (size_t)1024 * EMU_STACK_BYTES,
                       PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return CUDA_ERROR_OUT_OF_MEMORY;
        stacks = p;
    }
    acc_emu_launch_args L = {{gx, gy, gz}, {bx, by, bz}, shared_bytes, params,
                             stacks, EMU_STACK_BYTES, fibers,
                             EMU_FIBER_BYTES, shape().reverse, why,
                             sizeof why};
    if (f->entry(&L) == 0)
        return CUDA_SUCCESS;
    fprintf(stderr, "emulated device: kernel %s failed: %s\n", f->name, why);
    char what[160];
    snprintf(what, sizeof what, "kernel %s: %s", f->name, why);
    return misuse(CUDA_ERROR_LAUNCH_FAILED, what);
}
#endif

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                unsigned int gz, unsigned int bx,
                                unsigned int by, unsigned int bz,
                                unsigned int shared_bytes, CUstream stream,
                                void **params, void **extra)
{
    pthread_mutex_lock(&lock);
    CUresult r = copy_checks(stream);
    if (r == CUDA_SUCCESS && shared_bytes > shape().shared)
        r = misuse(CUDA_ERROR_INVALID_VALUE, "more dynamic shared memory "
                   "than a block has");
    if (r == CUDA_SUCCESS &&
        (!f || !params || extra || gx == 0 || gy == 0 || gz == 0 || bx == 0 ||
         by == 0 || bz == 0 || bx * by * bz > (unsigned)shape().max_block ||
         gy > 65535 ||
         gz > 65535))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "bad launch configuration");
    if (r == CUDA_SUCCESS) {
        fake_event *e = record(FAKE_LAUNCH, stream, 0);
        snprintf(e->function, sizeof e->function, "%s", f->name);
        e->grid[0] = gx, e->grid[1] = gy, e->grid[2] = gz;
        e->block[0] = bx, e->block[1] = by, e->block[2] = bz;
        /* only accel's kernels take an acc_kargs first (a user kernel's
         * parameters may be smaller than what record_args reads) */
        if (strncmp(f->name, "accel_", 6) == 0)
            record_args(e, params);
        counters.launches++;
#ifdef FAKE_EMU
        r = emu_run(f, gx, gy, gz, bx, by, bz, shared_bytes, params);
#endif
        if (config.fail_launches > 0)
            fail_launch(params);
        if (config.poke_function[0] &&
            strcmp(config.poke_function, f->name) == 0)
            poke_launch(params);
    }
    pthread_mutex_unlock(&lock);
    return r;
}
