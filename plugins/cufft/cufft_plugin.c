/*
 * cufft_plugin.c — the cufft plugin (DESIGN.md §8): cuFFT behind the
 * foreign names "fft.forward" and "fft.inverse", complex-to-complex
 * transforms of rank 1 to 3 over arrays of (re, im) pairs of f32 (C2C) or
 * f64 (Z2Z) in CUDA device memory (the cuda backend), priority 10.
 *
 * Nothing CUDA is linked: the driver, cuFFT (libcufft.so.12, .11,
 * libcufft.so, also in the toolkit folders) and NVRTC are opened when the
 * plugin is loaded.  Without a device, without cuFFT 12 or without NVRTC
 * the plugin still loads; its implementations refuse every node with the
 * reason (their note in acc_foreign_list).
 *
 * accel's (re, im) arrays are split; cuFFT's complex numbers interleaved.
 * The split is bridged inside cuFFT's own kernels by JIT LTO callbacks
 * (cufft_callbacks.cu), so there is no interleaving pass: per call, a
 * one-thread kernel writes the call's four buffers into the plan's caller
 * info, then the transform runs in place in a scratch buffer taken from
 * accel's workspace (with cuFFT's work area after it), reading the inputs
 * through the load callback and writing the results, divided by the
 * element count for the inverse, through the store callback.  Everything
 * is enqueued on the call's stream.  A plan's info block is shared by its
 * calls, so a call first makes its stream wait for the plan's previous
 * transform (an event), whatever stream that ran on.
 */
#include "cufft_plugin.h"

#include "pcuda_lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cfp_plugin {
    pcuda_plugin base;
    pcufft fft;
    pcuda_nvrtc nvrtc;
    pthread_mutex_t images_lock; /* guards images */
    cfp_images *images;          /* compiled per compute capability */
    cfp_binding bindings[2];
};

static const pcuda_symbol cufft_table[] = {
#define CUFFT_ENTRY(field, symbol, ret, params) \
    PCUDA_SYMBOL_ENTRY(pcufft, field, symbol)
    PCUFFT_FUNCTIONS(CUFFT_ENTRY)
#undef CUFFT_ENTRY
};

/* ---- capability --------------------------------------------------------- */

/* The element is (e, e) with e f32 or f64. */
static int complex_elem(const acc_type *t)
{
    if (acc_type_get_kind(t) != ACC_TYPE_TUPLE || acc_type_get_arity(t) != 2 ||
        acc_type_leaf_count(t) != 2)
        return 0;
    acc_scalar s = acc_type_leaf(t, 0);
    return (s == ACC_F32 || s == ACC_F64) && acc_type_leaf(t, 1) == s;
}

static int accepts(acc_foreign_query *q)
{
    const cfp_binding *b = q->user;
    if (q->n_args != 1 || q->n_results != 1)
        return pcuda_refuse(q, "expects one array and one result");
    if (!complex_elem(q->arg_elems[0]) ||
        !acc_type_equal(q->arg_elems[0], q->result_elems[0]))
        return pcuda_refuse(q, "the elements are not (re, im) pairs of f32 "
                               "or f64");
    if (q->arg_ranks[0] < 1 || q->arg_ranks[0] > 3 ||
        q->result_ranks[0] != q->arg_ranks[0])
        return pcuda_refuse(q, "cuFFT transforms ranks 1 to 3");
    return pcuda_accepts_available(&b->plugin->base, q);
}

static acc_status same_shape(acc_foreign_call *c)
{
    memcpy(c->results[0].extents, c->args[0].extents,
           sizeof c->results[0].extents);
    return ACC_OK;
}

/* ---- the per-context state ---------------------------------------------- */

/* The images for compute capability `arch`, compiled on first use. */
static const cfp_images *images_for(cfp_plugin *p, int arch, char *why,
                                    size_t why_size)
{
    pthread_mutex_lock(&p->images_lock);
    cfp_images *im = p->images;
    while (im && im->arch != arch)
        im = im->next;
    if (!im && (im = cfp_compile(&p->nvrtc, arch, why, why_size)) != NULL) {
        im->next = p->images;
        p->images = im;
    }
    pthread_mutex_unlock(&p->images_lock);
    return im;
}

static int device_arch(const pcuda_driver *d, pcu_device dev)
{
    int major = 0, minor = 0;
    if (d->cuDeviceGetAttribute(&major, PCU_ATTR_COMPUTE_MAJOR, dev) !=
            PCU_SUCCESS ||
        d->cuDeviceGetAttribute(&minor, PCU_ATTR_COMPUTE_MINOR, dev) !=
            PCU_SUCCESS)
        return 0;
    return major * 10 + minor;
}

/* Loads the set-info kernels into the entry's (current) context. */
static int load_kernels(const pcuda_driver *d, cfp_ctx *ctx, char *why,
                        size_t why_size)
{
    char err[256];
    pcu_result r = d->cuModuleLoadData(&ctx->module,
                                       ctx->images->set_info_ptx);
    for (int f64 = 0; r == PCU_SUCCESS && f64 < 2; f64++)
        r = d->cuModuleGetFunction(&ctx->set_info[f64], ctx->module,
                                   cfp_set_info_kernel(f64));
    if (r == PCU_SUCCESS)
        return 1;
    pcuda_error_text(d, r, err, sizeof err);
    snprintf(why, why_size, "loading the set-info kernels failed: %s", err);
    return 0;
}

static cfp_ctx *ctx_of(cfp_plugin *p, pcuda_ctx_entry *e, char *why,
                       size_t why_size)
{
    if (e->payload)
        return e->payload;
    const pcuda_driver *d = &p->base.driver;
    cfp_libs libs = {&p->fft, d};
    cfp_ctx *ctx = calloc(1, sizeof *ctx);
    int arch = device_arch(d, e->dev);
    if (!ctx || !arch) {
        snprintf(why, why_size, ctx ? "the device's compute capability is "
                 "unknown" : "out of host memory");
        free(ctx);
        return NULL;
    }
    ctx->images = images_for(p, arch, why, why_size);
    if (!ctx->images || !load_kernels(d, ctx, why, why_size)) {
        cfp_ctx_free(&libs, ctx);
        return NULL;
    }
    e->payload = ctx;
    return ctx;
}

/* ---- one transform ------------------------------------------------------ */

/* The extents as cuFFT's ints; 0 when a count is beyond them. */
static int dims_of(const acc_array *a, int *n)
{
    int64_t total = acc_array_size(a);
    if (total < 0 || total > 2147483647)
        return 0;
    for (int32_t d = 0; d < a->rank; d++)
        n[d] = (int)a->extents[d];
    return 1;
}

typedef struct fft_job {
    const cfp_binding *b;
    acc_foreign_call *call;
    cfp_ctx *ctx;
    cfp_plan *plan;
    int f64;
    int64_t count;
    char *work;          /* scratch (count complex values), then work area */
    size_t scratch_bytes;
} fft_job;

static acc_status cu_step(fft_job *j, pcu_result r, const char *what)
{
    char err[256];
    if (r == PCU_SUCCESS)
        return ACC_OK;
    pcuda_error_text(&j->b->plugin->base.driver, r, err, sizeof err);
    return pcuda_fail(j->call, ACC_ERR_DEVICE, what, err);
}

static acc_status fft_step(fft_job *j, pcufft_result r, const char *what)
{
    if (r == PCUFFT_SUCCESS)
        return ACC_OK;
    return pcuda_fail(j->call, r == PCUFFT_ALLOC_FAILED
                                   ? ACC_ERR_OUT_OF_DEVICE_MEMORY
                                   : ACC_ERR_DEVICE,
                      what, cfp_result_name(r));
}

/* The set-info kernel: this call's buffers and divisor into the info. */
static acc_status set_info(fft_job *j, pcu_stream stream)
{
    const pcuda_driver *d = &j->b->plugin->base.driver;
    const acc_foreign_call *c = j->call;
    void *re_in = c->args[0].data[0], *im_in = c->args[0].data[1];
    void *re_out = c->results[0].data[0], *im_out = c->results[0].data[1];
    pcu_deviceptr info = j->plan->info;
    double den_d = j->b->inverse ? (double)j->count : 1.0;
    float den_f = (float)den_d;
    void *params[6] = {&info, &re_in, &im_in, &re_out, &im_out,
                       j->f64 ? (void *)&den_d : (void *)&den_f};
    return cu_step(j, d->cuLaunchKernel(j->ctx->set_info[j->f64], 1, 1, 1, 1,
                                        1, 1, 0, stream, params, NULL),
                   "launching the set-info kernel");
}

static acc_status enqueue(fft_job *j)
{
    const cfp_plugin *p = j->b->plugin;
    const pcuda_driver *d = &p->base.driver;
    pcu_stream stream = (pcu_stream)j->call->stream;
    cfp_plan *plan = j->plan;
    int dir = j->b->inverse ? PCUFFT_INVERSE : PCUFFT_FORWARD;
    acc_status st = ACC_OK;
    if (plan->used) /* the info block is free once that transform is done */
        st = cu_step(j, d->cuStreamWaitEvent(stream, plan->last_use, 0),
                     "cuStreamWaitEvent");
    if (st == ACC_OK)
        st = set_info(j, stream);
    if (st == ACC_OK)
        st = fft_step(j, p->fft.cufftSetStream(plan->handle,
                                               (pcufft_stream)stream),
                      "cufftSetStream");
    if (st == ACC_OK && plan->work_bytes)
        st = fft_step(j, p->fft.cufftSetWorkArea(
                             plan->handle, j->work + j->scratch_bytes),
                      "cufftSetWorkArea");
    if (st == ACC_OK)
        st = fft_step(j, j->f64 ? p->fft.cufftExecZ2Z(
                                      plan->handle, (void *)j->work,
                                      (void *)j->work, dir)
                                : p->fft.cufftExecC2C(
                                      plan->handle, (void *)j->work,
                                      (void *)j->work, dir),
                      j->f64 ? "cufftExecZ2Z" : "cufftExecC2C");
    if (st == ACC_OK)
        st = cu_step(j, d->cuEventRecord(plan->last_use, stream),
                     "cuEventRecord");
    plan->used |= st == ACC_OK;
    return st;
}

/* The scratch buffer (256-byte aligned end) and cuFFT's work area. */
static acc_status take_workspace(fft_job *j)
{
    size_t complex_bytes = j->f64 ? 16 : 8;
    j->scratch_bytes = ((size_t)j->count * complex_bytes + 255) & ~(size_t)255;
    size_t total = j->scratch_bytes + j->plan->work_bytes;
    j->work = j->call->workspace(j->call, total);
    if (j->work)
        return ACC_OK;
    char detail[96];
    snprintf(detail, sizeof detail, "no workspace of %zu bytes", total);
    return pcuda_fail(j->call, ACC_ERR_OUT_OF_DEVICE_MEMORY,
                      j->b->impl_name, detail);
}

static acc_status transform(fft_job *j, pcuda_ctx_entry *e, const int *n)
{
    cfp_plugin *p = j->b->plugin;
    cfp_libs libs = {&p->fft, &p->base.driver};
    acc_status st = ACC_ERR_DEVICE;
    char why[1024];
    if (!(j->ctx = ctx_of(p, e, why, sizeof why)))
        return pcuda_fail(j->call, ACC_ERR_DEVICE, j->b->impl_name, why);
    j->plan = cfp_plan_get(&libs, j->ctx, j->f64, j->call->args[0].rank, n,
                           &st, why, sizeof why);
    if (!j->plan)
        return st == ACC_ERR_UNSUPPORTED
                   ? st
                   : pcuda_fail(j->call, st, j->b->impl_name, why);
    st = take_workspace(j);
    return st == ACC_OK ? enqueue(j) : st;
}

static acc_status execute(acc_foreign_call *c)
{
    const cfp_binding *b = c->user;
    cfp_plugin *p = b->plugin;
    char why[512];
    int n[3];
    acc_status st = pcuda_check_call(&p->base, c);
    if (st != ACC_OK)
        return st;
    fft_job j = {b, c, NULL, NULL,
                 acc_type_leaf(c->args[0].type, 0) == ACC_F64,
                 acc_array_size(&c->args[0]), NULL, 0};
    if (j.count == 0)
        return ACC_OK;
    if (!dims_of(&c->args[0], n))
        return ACC_ERR_UNSUPPORTED; /* beyond cuFFT's int: the fallback */
    pcuda_ctx_entry *e = pcuda_ctx_enter(&p->base.contexts, &p->base.driver,
                                         why, sizeof why);
    if (!e)
        return pcuda_fail(c, ACC_ERR_DEVICE, b->impl_name, why);
    st = transform(&j, e, n);
    pcuda_ctx_leave(e);
    return st;
}

/* ---- life cycle --------------------------------------------------------- */

static void destroy_ctx(void *payload, void *arg)
{
    const cfp_plugin *p = arg;
    cfp_libs libs = {&p->fft, &p->base.driver};
    cfp_ctx_free(&libs, payload);
}

static void destroy(cfp_plugin *p)
{
    pcuda_ctx_cache_destroy(&p->base.contexts, &p->base.driver, destroy_ctx,
                            p);
    while (p->images) {
        cfp_images *next = p->images->next;
        cfp_images_free(p->images);
        p->images = next;
    }
    pthread_mutex_destroy(&p->images_lock);
    free(p);
}

static void release(void *user)
{
    cfp_binding *b = user;
    if (pcuda_plugin_drop(&b->plugin->base))
        destroy(b->plugin);
}

/* Opens cuFFT (12 or later) and NVRTC; describes them in `found`. */
static int load_libraries(cfp_plugin *p, char *found, size_t found_size)
{
    static const char *const names[] = {"libcufft.so.12", "libcufft.so.11",
                                        "libcufft.so"};
    char why[PCUDA_TEXT], path[512];
    int v[3] = {0, 0, 0};
    void *lib = pcuda_open(names, 3, 1, path, sizeof path, why, sizeof why);
    if (!lib || !pcuda_resolve(lib, "libcufft", cufft_table,
                               sizeof cufft_table / sizeof cufft_table[0],
                               &p->fft, why, sizeof why)) {
        pcuda_plugin_unavailable(&p->base, why);
        return 0;
    }
    for (int i = 0; i < 3; i++)
        p->fft.cufftGetProperty(PCUFFT_MAJOR_VERSION + i, &v[i]);
    int n = snprintf(found, found_size, "cuFFT %d.%d.%d (%s)", v[0], v[1],
                     v[2], path);
    if (v[0] < 12) {
        pcuda_plugin_unavailable(&p->base, "cuFFT 12 (CUDA 13) or later is "
                                 "needed: the plugin attaches its LTO "
                                 "callbacks with cuFFT 12's "
                                 "cufftXtSetJITCallback");
        return 0;
    }
    if (!pcuda_load_nvrtc(&p->nvrtc, why, sizeof why)) {
        pcuda_plugin_unavailable(&p->base, why);
        return 0;
    }
    snprintf(found + n, found_size - (size_t)n, ", NVRTC %d.%d, ranks 1-3, "
             "f32 and f64, (re, im) through LTO callbacks", p->nvrtc.major,
             p->nvrtc.minor);
    return 1;
}

static cfp_plugin *load(void)
{
    char why[PCUDA_TEXT], found[1024] = "";
    cfp_plugin *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pcuda_plugin_init(&p->base);
    pthread_mutex_init(&p->images_lock, NULL);
    int device = pcuda_load_driver(&p->base.driver, why, sizeof why);
    if (!device)
        pcuda_plugin_unavailable(&p->base, why);
    int libraries = load_libraries(p, found, sizeof found);
    p->base.available = device && libraries;
    pcuda_plugin_finish_note(&p->base, found);
    return p;
}

static acc_status add(acc_plugin_registrar *reg, cfp_plugin *p, int inverse)
{
    acc_foreign_impl impl;
    cfp_binding *b = &p->bindings[inverse];
    b->plugin = p;
    b->inverse = inverse;
    b->name = inverse ? "fft.inverse" : "fft.forward";
    b->impl_name = inverse ? "cufft.inverse" : "cufft.forward";
    memset(&impl, 0, sizeof impl);
    impl.name = b->name;
    impl.impl_name = b->impl_name;
    impl.priority = 10;
    impl.accepts = accepts;
    impl.result_shape = same_shape;
    impl.execute = execute;
    impl.user = b;
    impl.release = release;
    return pcuda_plugin_add(reg, &p->base, &impl);
}

/* The plugin's entry (ACC_PLUGIN_ENTRY_SYMBOL). */
PCUDA_EXPORT acc_status acc_plugin_entry(acc_plugin_registrar *reg,
                                         uint32_t abi_version);

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version)
{
    acc_status st = ACC_PLUGIN_DECLARE(reg, "cufft");
    (void)abi_version; /* the declaration checks it */
    if (st != ACC_OK)
        return st;
    cfp_plugin *p = load();
    if (!p)
        return ACC_ERR_OUT_OF_HOST_MEMORY;
    for (int inverse = 0; st == ACC_OK && inverse < 2; inverse++)
        st = add(reg, p, inverse);
    if (p->base.refs == 0) /* nothing registered holds it */
        destroy(p);
    return st;
}
