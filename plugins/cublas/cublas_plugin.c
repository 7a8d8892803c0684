/*
 * cublas_plugin.c — the cublas plugin (DESIGN.md §8): cuBLAS behind the
 * foreign names "blas.dot", "blas.axpy", "blas.gemv" and "blas.gemm", for
 * f32 and f64 arrays in CUDA device memory (the cuda backend), priority 10.
 *
 * Nothing CUDA is linked: the driver (libcuda.so.1) and cuBLAS
 * (libcublas.so.13, .12, .11, libcublas.so, also in the toolkit folders)
 * are opened when the plugin is loaded.  Without a device or without
 * cuBLAS the plugin still loads; its implementations refuse every node
 * with the reason, which acc_foreign_list shows as their note and plans
 * show after "fallback:".
 *
 * One cuBLAS handle per CUDA context (pcuda_ctx.h), made on the first call
 * in that context and destroyed when the accel context that loaded the
 * plugin is destroyed; every call sets the call's stream on it first.
 */
#include "cublas_plugin.h"
#include "pcuda_lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pcuda_symbol cublas_table[] = {
#define CUBLAS_ENTRY(field, symbol, ret, params) \
    PCUDA_SYMBOL_ENTRY(pcublas, field, symbol)
    PCUBLAS_FUNCTIONS(CUBLAS_ENTRY)
#undef CUBLAS_ENTRY
};

/* ---- capability --------------------------------------------------------- */

static int is_float(const acc_type *t, acc_scalar *s)
{
    if (acc_type_get_kind(t) != ACC_TYPE_SCALAR)
        return 0;
    *s = acc_type_get_scalar(t);
    return *s == ACC_F32 || *s == ACC_F64;
}

/* The ranks and types first (what no device changes), then availability. */
static int accepts(acc_foreign_query *q)
{
    const cbp_binding *b = q->user;
    const cbp_op *op = b->op;
    acc_scalar s0 = 0, s = 0;
    if (q->n_args != op->n_args || q->n_results != 1 ||
        q->result_ranks[0] != op->result_rank)
        return pcuda_refuse(q, "the arguments or the result have other "
                               "ranks than the BLAS routine takes");
    for (size_t i = 0; i < q->n_args; i++)
        if (q->arg_ranks[i] != op->arg_ranks[i])
            return pcuda_refuse(q, "an argument has another rank than the "
                                   "BLAS routine takes");
    if (!is_float(q->result_elems[0], &s0))
        return pcuda_refuse(q, "the element type is not f32 or f64");
    for (size_t i = 0; i < q->n_args; i++)
        if (!is_float(q->arg_elems[i], &s) || s != s0)
            return pcuda_refuse(q, "the arrays are not all f32 or all f64");
    return pcuda_accepts_available(&b->plugin->base, q);
}

static acc_status result_shape(acc_foreign_call *c)
{
    const cbp_binding *b = c->user;
    return b->op->result_shape(c);
}

/* ---- calls -------------------------------------------------------------- */

/* The handle of the entry's context, made on first use (the context is
 * current: the caller's). */
static acc_status handle_of(cbp_plugin *p, pcuda_ctx_entry *e,
                            cbp_run *run)
{
    pcublas_handle h = e->payload;
    pcublas_status s = PCUBLAS_STATUS_SUCCESS;
    char detail[256];
    if (!h && (s = p->fn.cublasCreate(&h)) == PCUBLAS_STATUS_SUCCESS)
        e->payload = h;
    if (s != PCUBLAS_STATUS_SUCCESS) {
        snprintf(detail, sizeof detail, "status %d (%s)", (int)s,
                 p->fn.cublasGetStatusString(s));
        return pcuda_fail(run->call, s == PCUBLAS_STATUS_ALLOC_FAILED
                                         ? ACC_ERR_OUT_OF_DEVICE_MEMORY
                                         : ACC_ERR_DEVICE,
                          "cublasCreate", detail);
    }
    run->handle = h;
    s = p->fn.cublasSetStream(h, (pcublas_stream)run->call->stream);
    if (s == PCUBLAS_STATUS_SUCCESS)
        return ACC_OK;
    snprintf(detail, sizeof detail, "status %d (%s)", (int)s,
             p->fn.cublasGetStatusString(s));
    return pcuda_fail(run->call, ACC_ERR_DEVICE, "cublasSetStream", detail);
}

static acc_status execute(acc_foreign_call *c)
{
    const cbp_binding *b = c->user;
    cbp_plugin *p = b->plugin;
    char why[512];
    acc_status st = pcuda_check_call(&p->base, c);
    if (st != ACC_OK)
        return st;
    pcuda_ctx_entry *e = pcuda_ctx_enter(&p->base.contexts, &p->base.driver,
                                         why, sizeof why);
    if (!e)
        return pcuda_fail(c, ACC_ERR_DEVICE, b->op->impl_name, why);
    cbp_run run = {&p->fn, &p->base.driver, NULL, c};
    st = handle_of(p, e, &run);
    if (st == ACC_OK)
        st = b->op->run(&run);
    pcuda_ctx_leave(e);
    return st;
}

/* ---- life cycle --------------------------------------------------------- */

static void destroy_handle(void *payload, void *arg)
{
    const cbp_plugin *p = arg;
    p->fn.cublasDestroy((pcublas_handle)payload);
}

static void destroy(cbp_plugin *p)
{
    pcuda_ctx_cache_destroy(&p->base.contexts, &p->base.driver,
                            destroy_handle, p);
    free(p);
}

static void release(void *user)
{
    cbp_binding *b = user;
    if (pcuda_plugin_drop(&b->plugin->base))
        destroy(b->plugin);
}

/* Opens cuBLAS and describes it in `found`; 0 with the reason recorded. */
static int load_cublas(cbp_plugin *p, char *found, size_t found_size)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12",
                                        "libcublas.so.11", "libcublas.so"};
    char why[PCUDA_TEXT], path[512];
    int major = 0, minor = 0, patch = 0;
    void *lib = pcuda_open(names, 4, 1, path, sizeof path, why, sizeof why);
    if (!lib || !pcuda_resolve(lib, "libcublas", cublas_table,
                               sizeof cublas_table / sizeof cublas_table[0],
                               &p->fn, why, sizeof why)) {
        pcuda_plugin_unavailable(&p->base, why);
        return 0;
    }
    p->fn.cublasGetProperty(PCUBLAS_MAJOR_VERSION, &major);
    p->fn.cublasGetProperty(PCUBLAS_MINOR_VERSION, &minor);
    p->fn.cublasGetProperty(PCUBLAS_PATCH_LEVEL, &patch);
    snprintf(found, found_size, "cuBLAS %d.%d.%d (%s), f32 and f64", major,
             minor, patch, path);
    return 1;
}

static cbp_plugin *load(void)
{
    char why[PCUDA_TEXT], found[1024] = "";
    cbp_plugin *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pcuda_plugin_init(&p->base);
    int device = pcuda_load_driver(&p->base.driver, why, sizeof why);
    if (!device)
        pcuda_plugin_unavailable(&p->base, why);
    int library = load_cublas(p, found, sizeof found);
    p->base.available = device && library;
    pcuda_plugin_finish_note(&p->base, found);
    return p;
}

static acc_status add(acc_plugin_registrar *reg, cbp_plugin *p, size_t i)
{
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    p->bindings[i].plugin = p;
    p->bindings[i].op = &cbp_ops[i];
    impl.name = cbp_ops[i].name;
    impl.impl_name = cbp_ops[i].impl_name;
    impl.priority = 10;
    impl.accepts = accepts;
    impl.result_shape = result_shape;
    impl.execute = execute;
    impl.user = &p->bindings[i];
    impl.release = release;
    return pcuda_plugin_add(reg, &p->base, &impl);
}

/* The plugin's entry (ACC_PLUGIN_ENTRY_SYMBOL). */
PCUDA_EXPORT acc_status acc_plugin_entry(acc_plugin_registrar *reg,
                                         uint32_t abi_version);

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version)
{
    acc_status st = ACC_PLUGIN_DECLARE(reg, "cublas");
    (void)abi_version; /* the declaration checks it */
    if (st != ACC_OK)
        return st;
    cbp_plugin *p = load();
    if (!p)
        return ACC_ERR_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; st == ACC_OK && i < CBP_N_OPS; i++)
        st = add(reg, p, i);
    if (p->base.refs == 0) /* nothing registered holds it */
        destroy(p);
    return st;
}
