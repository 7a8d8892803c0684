/*
 * cufft_plans.c — the cuFFT plans of one CUDA context, keyed by precision,
 * rank and extents (the direction is an argument of the execution, so one
 * plan serves fft and ifft).
 *
 * A plan is made once: cufftCreate, no automatic work area (each call
 * brings its own from accel's workspace), the load and store callbacks
 * attached before planning (cuFFT links them into its kernels when it
 * plans, which is why plans are kept), a device block for the callbacks'
 * caller info and an event that marks its last transform.  At most
 * CFP_MAX_PLANS are kept; the least recently used one is destroyed after
 * its last transform has finished.
 */
#include "cufft_plugin.h"

#include "pcuda_lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cfp_result_name(pcufft_result r)
{
    static const char *const names[] = {
        "CUFFT_SUCCESS", "CUFFT_INVALID_PLAN", "CUFFT_ALLOC_FAILED",
        "CUFFT_INVALID_TYPE", "CUFFT_INVALID_VALUE", "CUFFT_INTERNAL_ERROR",
        "CUFFT_EXEC_FAILED", "CUFFT_SETUP_FAILED", "CUFFT_INVALID_SIZE",
        "CUFFT_UNALIGNED_DATA", "status 10", "CUFFT_INVALID_DEVICE",
        "status 12", "CUFFT_NO_WORKSPACE", "CUFFT_NOT_IMPLEMENTED",
        "status 15", "CUFFT_NOT_SUPPORTED", "CUFFT_MISSING_DEPENDENCY",
        "CUFFT_NVRTC_FAILURE", "CUFFT_NVJITLINK_FAILURE",
        "CUFFT_NVSHMEM_FAILURE"};
    if (r >= 0 && (size_t)r < sizeof names / sizeof names[0])
        return names[r];
    return "an unknown cuFFT status";
}

static void plan_free(const cfp_libs *libs, cfp_plan *p)
{
    if (p->used)
        libs->driver->cuEventSynchronize(p->last_use);
    if (p->created)
        libs->fft->cufftDestroy(p->handle);
    if (p->info)
        libs->driver->cuMemFree(p->info);
    if (p->last_use)
        libs->driver->cuEventDestroy(p->last_use);
    free(p);
}

static int fail_fft(pcufft_result r, const char *what, acc_status *status,
                    char *why, size_t why_size)
{
    if (r == PCUFFT_SUCCESS)
        return 1;
    *status = r == PCUFFT_ALLOC_FAILED   ? ACC_ERR_OUT_OF_DEVICE_MEMORY
              : r == PCUFFT_INVALID_SIZE ? ACC_ERR_UNSUPPORTED
                                         : ACC_ERR_DEVICE;
    snprintf(why, why_size, "%s failed with %s%s", what, cfp_result_name(r),
             r == PCUFFT_INVALID_SIZE ? "" : " (cuFFT links the LTO "
             "callbacks with libnvJitLink when it plans)");
    return 0;
}

static int fail_cu(const cfp_libs *libs, pcu_result r, const char *what,
                   acc_status *status, char *why, size_t why_size)
{
    char err[256];
    if (r == PCU_SUCCESS)
        return 1;
    pcuda_error_text(libs->driver, r, err, sizeof err);
    *status = ACC_ERR_DEVICE;
    snprintf(why, why_size, "%s failed: %s", what, err);
    return 0;
}

/* The callbacks, attached before planning (cuFFT's rule for LTO
 * callbacks); both read the plan's info block. */
static int attach_callbacks(const cfp_libs *libs, const cfp_images *im,
                            cfp_plan *p, acc_status *st, char *why,
                            size_t why_size)
{
    void *info[1] = {(void *)(uintptr_t)p->info}; /* one per GPU */
    int f = p->f64;
    pcufft_result r = libs->fft->cufftXtSetJITCallback(
        p->handle, cfp_load_symbol(f), im->load[f], im->load_size[f],
        f ? PCUFFT_CB_LD_COMPLEX_DOUBLE : PCUFFT_CB_LD_COMPLEX, info);
    if (!fail_fft(r, "cufftXtSetJITCallback (load)", st, why, why_size))
        return 0;
    r = libs->fft->cufftXtSetJITCallback(
        p->handle, cfp_store_symbol(f), im->store[f], im->store_size[f],
        f ? PCUFFT_CB_ST_COMPLEX_DOUBLE : PCUFFT_CB_ST_COMPLEX, info);
    return fail_fft(r, "cufftXtSetJITCallback (store)", st, why, why_size);
}

static int make_plan(const cfp_libs *libs, const cfp_images *im,
                     cfp_plan *p, acc_status *st, char *why, size_t why_size)
{
    const pcufft *f = libs->fft;
    int n[3];
    memcpy(n, p->n, sizeof n);
    return fail_cu(libs, libs->driver->cuMemAlloc(&p->info, CFP_INFO_BYTES),
                   "cuMemAlloc", st, why, why_size) &&
           fail_cu(libs, libs->driver->cuEventCreate(
                             &p->last_use, PCU_EVENT_DISABLE_TIMING),
                   "cuEventCreate", st, why, why_size) &&
           fail_fft(f->cufftCreate(&p->handle), "cufftCreate", st, why,
                    why_size) &&
           (p->created = 1) &&
           fail_fft(f->cufftSetAutoAllocation(p->handle, 0),
                    "cufftSetAutoAllocation", st, why, why_size) &&
           attach_callbacks(libs, im, p, st, why, why_size) &&
           fail_fft(f->cufftMakePlanMany(p->handle, p->rank, n, NULL, 1, 0,
                                         NULL, 1, 0,
                                         p->f64 ? PCUFFT_Z2Z : PCUFFT_C2C, 1,
                                         &p->work_bytes),
                    "cufftMakePlanMany", st, why, why_size);
}

static cfp_plan *find(cfp_ctx *ctx, int f64, int rank, const int *n)
{
    for (cfp_plan *p = ctx->plans; p; p = p->next)
        if (p->f64 == f64 && p->rank == rank &&
            memcmp(p->n, n, (size_t)rank * sizeof *n) == 0)
            return p;
    return NULL;
}

/* Drops the least recently used plan. */
static void evict(const cfp_libs *libs, cfp_ctx *ctx)
{
    cfp_plan **oldest = &ctx->plans;
    for (cfp_plan **at = &ctx->plans; *at; at = &(*at)->next)
        if ((*at)->stamp < (*oldest)->stamp)
            oldest = at;
    cfp_plan *victim = *oldest;
    *oldest = victim->next;
    ctx->n_plans--;
    plan_free(libs, victim);
}

cfp_plan *cfp_plan_get(const cfp_libs *libs, cfp_ctx *ctx, int f64,
                       int rank, const int *n, acc_status *status, char *why,
                       size_t why_size)
{
    cfp_plan *p = find(ctx, f64, rank, n);
    if (!p) {
        if (ctx->n_plans >= CFP_MAX_PLANS)
            evict(libs, ctx);
        if (!(p = calloc(1, sizeof *p))) {
            *status = ACC_ERR_OUT_OF_HOST_MEMORY;
            snprintf(why, why_size, "out of host memory");
            return NULL;
        }
        p->f64 = f64;
        p->rank = rank;
        memcpy(p->n, n, (size_t)rank * sizeof *n);
        if (!make_plan(libs, ctx->images, p, status, why, why_size)) {
            plan_free(libs, p);
            return NULL;
        }
        p->next = ctx->plans;
        ctx->plans = p;
        ctx->n_plans++;
    }
    p->stamp = ++ctx->clock;
    return p;
}

void cfp_ctx_free(const cfp_libs *libs, cfp_ctx *ctx)
{
    while (ctx->plans) {
        cfp_plan *next = ctx->plans->next;
        plan_free(libs, ctx->plans);
        ctx->plans = next;
    }
    if (ctx->module)
        libs->driver->cuModuleUnload(ctx->module);
    free(ctx);
}
