/*
 * fake_cufft.c — a stand-in libcufft.so.12 for the cufft plugin on the
 * emulated device (build/emu-cuda/, docs/CUDA.md "The emulated device"):
 * every cuFFT function the plugin resolves (plugins/cufft/cufft_api.h),
 * computing with FFTW on the emulated device's memory (host memory).
 *
 * cuFFT's documented semantics, as the plugin relies on them: transforms
 * are unnormalised both ways; CUFFT_FORWARD is -1 and CUFFT_INVERSE +1,
 * the sign of the exponent, as FFTW_FORWARD/FFTW_BACKWARD; n[0] is the
 * slowest dimension (row-major), as FFTW's; C2C (f32) and Z2Z (f64) plans;
 * LTO callbacks are attached before planning (cufftXtSetJITCallback
 * after cufftMakePlanMany is refused); with auto-allocation off, a plan
 * that reports a work size needs cufftSetWorkArea before it executes; the
 * exec's type must be the plan's.  The work area is overwritten by each
 * transform, so a work area that overlaps the data shows up as a wrong
 * result, as it would on a GPU.  Only what the plugin uses is accepted:
 * contiguous layouts (inembed and onembed NULL) and a batch of 1; the
 * rest fails with CUFFT_NOT_SUPPORTED.
 *
 * The callbacks: the LTO IR the emulated NVRTC hands out is its image, the
 * CUDA source (tests/cuda/emu/emu_nvrtc.c).  The fake appends an exported
 * C function returning the address of the callback named by the plugin
 * (a C++ function with cuFFT's callback parameter types), builds that
 * (tests/cuda/emu/emu_build.c, cached) and calls the callback for every
 * element: load for each input element, store for each output element,
 * with the plan's caller info.
 */
#include "emu/emu_build.h"

#include <dlfcn.h>
#include <fftw3.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OK = 0, INVALID_PLAN = 1, ALLOC_FAILED = 2, INVALID_TYPE = 3,
    INVALID_VALUE = 4, EXEC_FAILED = 6, SETUP_FAILED = 7, INVALID_SIZE = 8,
    NOT_SUPPORTED = 16
};
enum { C2C = 0x29, Z2Z = 0x69, FORWARD = -1, INVERSE = 1 };
enum { CB_LD_C = 0, CB_LD_Z = 1, CB_ST_C = 4, CB_ST_Z = 5 };
enum { MAX_PLANS = 256 };

typedef struct fc { float x, y; } fc;
typedef struct zc { double x, y; } zc;
typedef fc (*load_c)(void *, unsigned long long, void *, void *);
typedef zc (*load_z)(void *, unsigned long long, void *, void *);
typedef void (*store_c)(void *, unsigned long long, fc, void *, void *);
typedef void (*store_z)(void *, unsigned long long, zc, void *, void *);

typedef struct fake_plan {
    int live, planned, auto_alloc, type, rank, n[3];
    size_t count, work_bytes;
    void *work, *stream;
    void *load, *store;           /* the callbacks (function addresses) */
    void *load_info, *store_info; /* their caller info */
    void *load_so, *store_so;
} fake_plan;

static fake_plan plans[MAX_PLANS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define EXPORT __attribute__((visibility("default")))
#define FAKE(name, params) EXPORT int name params; EXPORT int name params

static fake_plan *plan_of(int h)
{
    return h >= 0 && h < MAX_PLANS && plans[h].live ? &plans[h] : NULL;
}

FAKE(cufftCreate, (int *h))
{
    int r = ALLOC_FAILED;
    pthread_mutex_lock(&lock);
    for (int i = 0; h && r != OK && i < MAX_PLANS; i++)
        if (!plans[i].live) {
            memset(&plans[i], 0, sizeof plans[i]);
            plans[i].live = 1;
            plans[i].auto_alloc = 1;
            *h = i;
            r = OK;
        }
    pthread_mutex_unlock(&lock);
    return r;
}

FAKE(cufftDestroy, (int h))
{
    pthread_mutex_lock(&lock);
    fake_plan *p = plan_of(h);
    if (p) {
        if (p->load_so)
            dlclose(p->load_so);
        if (p->store_so)
            dlclose(p->store_so);
        p->live = 0;
    }
    pthread_mutex_unlock(&lock);
    return p ? OK : INVALID_PLAN;
}

/* cuFFT 12 (CUDA 13), the plugin's minimum. */
FAKE(cufftGetProperty, (int type, int *value))
{
    if (!value || type < 0 || type > 2)
        return INVALID_VALUE;
    *value = type == 0 ? 12 : 0;
    return OK;
}

FAKE(cufftSetAutoAllocation, (int h, int auto_allocate))
{
    fake_plan *p = plan_of(h);
    if (p)
        p->auto_alloc = auto_allocate;
    return p ? OK : INVALID_PLAN;
}

/* The address of `symbol` in the built source of the image `ir`: the
 * source and an exported function that returns it. */
static void *callback_address(const char *symbol, const char *ir,
                              void **so_out)
{
    static const char tail[] =
        "\nextern \"C\" __attribute__((visibility(\"default\"))) void *"
        "acc_fake_cufft_callback(void) { return (void *)&%s; }\n";
    const char *source = emu_image_source(ir);
    char so[1200], *log = NULL;
    void *fn = NULL, *lib = NULL;
    if (!source || strlen(symbol) > 200)
        return NULL;
    size_t size = strlen(source) + sizeof tail + strlen(symbol);
    char *full = malloc(size);
    if (!full)
        return NULL;
    int n = snprintf(full, size, "%s", source);
    snprintf(full + n, size - (size_t)n, tail, symbol);
    if (!emu_build(full, so, sizeof so, &log))
        fprintf(stderr, "fake cuFFT: the callback %s does not build:\n%s\n",
                symbol, log ? log : "");
    else if ((lib = dlopen(so, RTLD_NOW | RTLD_LOCAL)) != NULL) {
        void *(*get)(void);
        void *g = dlsym(lib, "acc_fake_cufft_callback");
        memcpy(&get, &g, sizeof g);
        fn = g ? get() : NULL;
    }
    free(log);
    free(full);
    if (!fn && lib)
        dlclose(lib);
    *so_out = fn ? lib : NULL;
    return fn;
}

FAKE(cufftXtSetJITCallback, (int h, const char *symbol, const void *lto_ir,
                             size_t lto_ir_size, int type, void **caller_info))
{
    pthread_mutex_lock(&lock);
    fake_plan *p = plan_of(h);
    int r = !p ? INVALID_PLAN
            : p->planned || !symbol || !lto_ir || lto_ir_size == 0 ||
                    (type != CB_LD_C && type != CB_LD_Z && type != CB_ST_C &&
                     type != CB_ST_Z)
                ? INVALID_VALUE
                : OK;
    int load = type == CB_LD_C || type == CB_LD_Z;
    if (r == OK && (load ? p->load : p->store))
        r = INVALID_VALUE; /* one callback of each kind */
    void *so = NULL, *fn = NULL;
    if (r == OK && !(fn = callback_address(symbol, lto_ir, &so)))
        r = INVALID_VALUE;
    if (r == OK) {
        *(load ? &p->load : &p->store) = fn;
        *(load ? &p->load_so : &p->store_so) = so;
        *(load ? &p->load_info : &p->store_info) =
            caller_info ? caller_info[0] : NULL;
        /* the callback's precision must be the plan's, checked at exec */
        p->type = type == CB_LD_Z || type == CB_ST_Z ? Z2Z : C2C;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

FAKE(cufftMakePlanMany, (int h, int rank, int *n, int *inembed, int istride,
                         int idist, int *onembed, int ostride, int odist,
                         int type, int batch, size_t *work_size))
{
    (void)istride, (void)idist, (void)ostride, (void)odist;
    pthread_mutex_lock(&lock);
    fake_plan *p = plan_of(h);
    int r = !p ? INVALID_PLAN
            : p->planned ? INVALID_VALUE
            : type != C2C && type != Z2Z ? INVALID_TYPE
            : (p->load || p->store) && p->type != type ? INVALID_TYPE
            : rank < 1 || rank > 3 || !n ? INVALID_SIZE
            : inembed || onembed || batch != 1 ? NOT_SUPPORTED
                                               : OK;
    size_t count = 1;
    for (int i = 0; r == OK && i < rank; i++) {
        if (n[i] < 1)
            r = INVALID_SIZE;
        else
            count *= (size_t)n[i];
    }
    if (r == OK) {
        p->planned = 1;
        p->type = type;
        p->rank = rank;
        memcpy(p->n, n, (size_t)rank * sizeof *n);
        p->count = count;
        /* room for one copy of the data, as cuFFT may ask */
        p->work_bytes = count * (type == Z2Z ? sizeof(zc) : sizeof(fc));
        if (work_size)
            *work_size = p->work_bytes;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

FAKE(cufftSetWorkArea, (int h, void *work_area))
{
    fake_plan *p = plan_of(h);
    if (p)
        p->work = work_area;
    return p ? OK : INVALID_PLAN;
}

FAKE(cufftSetStream, (int h, void *stream))
{
    fake_plan *p = plan_of(h);
    if (p)
        p->stream = stream;
    return p ? OK : INVALID_PLAN;
}

static int exec_checks(const fake_plan *p, int type, const void *in,
                       const void *out, int direction)
{
    if (!p)
        return INVALID_PLAN;
    if (!p->planned || p->type != type)
        return INVALID_TYPE;
    if (!in || !out || (direction != FORWARD && direction != INVERSE))
        return INVALID_VALUE;
    if (!p->auto_alloc && p->work_bytes && !p->work)
        return EXEC_FAILED; /* no work area set */
    return OK;
}

/* FFTW's planner is not thread-safe: plans are made under the lock. */
FAKE(cufftExecC2C, (int h, fc *idata, fc *odata, int direction))
{
    pthread_mutex_lock(&lock);
    fake_plan *p = plan_of(h);
    int r = exec_checks(p, C2C, idata, odata, direction);
    fftwf_complex *buf = NULL;
    if (r == OK && !(buf = fftwf_alloc_complex(p->count)))
        r = ALLOC_FAILED;
    if (r == OK) {
        load_c ld;
        store_c st;
        memcpy(&ld, &p->load, sizeof ld);
        memcpy(&st, &p->store, sizeof st);
        for (size_t i = 0; i < p->count; i++) {
            fc v = p->load ? ld(idata, i, p->load_info, NULL) : idata[i];
            buf[i][0] = v.x;
            buf[i][1] = v.y;
        }
        if (p->work)
            memset(p->work, 0xa5, p->work_bytes);
        fftwf_plan f = fftwf_plan_dft(p->rank, p->n, buf, buf, direction,
                                      FFTW_ESTIMATE);
        if (!f)
            r = EXEC_FAILED;
        else {
            fftwf_execute(f);
            fftwf_destroy_plan(f);
            for (size_t i = 0; i < p->count; i++) {
                fc v = {buf[i][0], buf[i][1]};
                if (p->store)
                    st(odata, i, v, p->store_info, NULL);
                else
                    odata[i] = v;
            }
        }
    }
    fftwf_free(buf);
    pthread_mutex_unlock(&lock);
    return r;
}

FAKE(cufftExecZ2Z, (int h, zc *idata, zc *odata, int direction))
{
    pthread_mutex_lock(&lock);
    fake_plan *p = plan_of(h);
    int r = exec_checks(p, Z2Z, idata, odata, direction);
    fftw_complex *buf = NULL;
    if (r == OK && !(buf = fftw_alloc_complex(p->count)))
        r = ALLOC_FAILED;
    if (r == OK) {
        load_z ld;
        store_z st;
        memcpy(&ld, &p->load, sizeof ld);
        memcpy(&st, &p->store, sizeof st);
        for (size_t i = 0; i < p->count; i++) {
            zc v = p->load ? ld(idata, i, p->load_info, NULL) : idata[i];
            buf[i][0] = v.x;
            buf[i][1] = v.y;
        }
        if (p->work)
            memset(p->work, 0xa5, p->work_bytes);
        fftw_plan f = fftw_plan_dft(p->rank, p->n, buf, buf, direction,
                                    FFTW_ESTIMATE);
        if (!f)
            r = EXEC_FAILED;
        else {
            fftw_execute(f);
            fftw_destroy_plan(f);
            for (size_t i = 0; i < p->count; i++) {
                zc v = {buf[i][0], buf[i][1]};
                if (p->store)
                    st(odata, i, v, p->store_info, NULL);
                else
                    odata[i] = v;
            }
        }
    }
    fftw_free(buf);
    pthread_mutex_unlock(&lock);
    return r;
}
