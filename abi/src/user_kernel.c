/*
 * user_kernel.c — acc_register_kernel: the user's own C or CUDA source as
 * an implementation of a foreign name, with no plugin to write.
 *
 * Host (C): the source is compiled by the CPU backend's C compiler through
 * its kernel cache (the context's when it is a CPU context, else one of
 * the kernel's own over the same cache folder), with a few lines appended
 * that export a pointer to the entry function; the function is then an
 * ordinary C function (cfunc.c: libffi, the signature's mapping), split
 * over the context's thread pool by rows of result 0 when asked.
 *
 * CUDA: the source is compiled by NVRTC once here, to report its log at
 * registration, and again for the device of a cuda program that chooses
 * it (core/backend/cuda/cuda_user.c, through the module cache); each call
 * launches it on the run's stream with device pointers and extents.
 *
 * A scalar function (scalar parameters, a scalar result) implements
 * foreignExp nodes: its source is also put into the generated kernels
 * that call it (the node's u.foreign.source, core/codegen/emit_c.c).
 */
#include "abi/src/context.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cuda/cuda_backend.h"
#include "foreign/cfunc.h"
#include "foreign/registry.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The context's backend state when it is the CPU (CUDA) backend, else
 * NULL: the user kernel then brings its own toolchain and cache (is not
 * launched on a device). */
static cpu_backend *ctx_cpu(acc_context *ctx)
{
    return ctx->backend == ACC_BACKEND_CPU ? (cpu_backend *)ctx->be : NULL;
}

static cuda_backend *ctx_cuda(acc_context *ctx)
{
    return ctx->backend == ACC_BACKEND_CUDA ? (cuda_backend *)ctx->be
                                            : NULL;
}

static const char fn_name[] = "acc_register_kernel";

/* Every field of the first published acc_user_kernel (shared_bytes came
 * later). */
#define KERNEL_V1_SIZE offsetof(acc_user_kernel, shared_bytes)
#define KERNEL_HAS_SHARED(k)                                                  \
    ((k)->struct_size >= offsetof(acc_user_kernel, shared_bytes) +            \
                             sizeof(uint32_t))

/* ---- checks ------------------------------------------------------------------ */

static int is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; s[i]; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return strlen(s) < 128;
}

static int is_host(acc_backend b)
{
    return b == ACC_BACKEND_CPU || b == ACC_BACKEND_INTERP;
}

static acc_status check_kernel(const acc_user_kernel *k, diag *d)
{
    if (!k)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: kernel is NULL",
                         fn_name);
    if (k->struct_size < KERNEL_V1_SIZE)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: kernel.struct_size "
                         "is %zu, expected at least %zu", fn_name,
                         k->struct_size, KERNEL_V1_SIZE);
    if (!k->name || !k->name[0] || strlen(k->name) > 127)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: kernel.name must "
                         "be 1 to 127 characters", fn_name);
    if (!k->source || !k->signature)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: '%s' has no %s",
                         fn_name, k->name, k->source ? "signature" : "source");
    if (!is_identifier(k->entry))
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: '%s': entry must "
                         "be the name of a function of the source (a C "
                         "identifier), not %s%s%s", fn_name, k->name,
                         k->entry ? "'" : "", k->entry ? k->entry : "NULL",
                         k->entry ? "'" : "");
    if (!is_host(k->backend) && k->backend != ACC_BACKEND_CUDA)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: '%s' has backend "
                         "%d; expected ACC_BACKEND_CPU (C source) or "
                         "ACC_BACKEND_CUDA (CUDA source)", fn_name, k->name,
                         (int)k->backend);
    return ACC_OK;
}

/* The name compiler messages give the user's source: the foreign name,
 * with the characters a #line file name cannot hold replaced. */
static void source_label(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (; name[n] && n + 1 < size; n++)
        out[n] = name[n] == '"' || name[n] == '\\' || name[n] == '\n'
                     ? '_' : name[n];
    out[n] = '\0';
}

/* ---- the registry entry's extras -------------------------------------------------- */

/* The source and entry of a scalar function, for the generated kernels. */
static acc_status keep_scalar(reg_impl *e, const acc_user_kernel *k,
                              const reg_sig *sig, diag *d)
{
    if (!reg_sig_is_scalar(sig))
        return ACC_OK;
    e->source = strdup(k->source);
    e->entry = strdup(k->entry);
    e->sig = malloc(sizeof *e->sig);
    if (!e->source || !e->entry || !e->sig)
        return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                         "memory", fn_name);
    *e->sig = *sig;
    return ACC_OK;
}

/* ---- host kernels ------------------------------------------------------------------ */

typedef struct uk_host {
    cpu_toolchain own_tc;      /* when the context has no CPU backend */
    const cpu_toolchain *tc;
    kcache *cache;
    int own_cache;
    const cache_entry *entry;  /* the compiled source, kept loaded */
    pool *pool;                /* the context's, or NULL */
} uk_host;

static void host_free(void *p)
{
    uk_host *h = p;
    if (!h)
        return;
    if (h->cache)
        cache_release(h->cache, h->entry);
    if (h->own_cache)
        cache_destroy(h->cache);
    if (h->tc == &h->own_tc)
        cpu_toolchain_free(&h->own_tc);
    free(h);
}

static uk_host *host_create(acc_context *ctx, diag *d)
{
    uk_host *h = calloc(1, sizeof *h);
    if (h && ctx_cpu(ctx)) {
        h->tc = &ctx_cpu(ctx)->tc;
        h->cache = ctx_cpu(ctx)->cache;
        h->pool = ctx_cpu(ctx)->pool;
        return h;
    }
    if (h && cpu_toolchain_init(&h->own_tc)) {
        h->tc = &h->own_tc;
        h->own_cache = 1;
        if ((h->cache = cache_create(ctx->cache_dir, d)))
            return h;
    }
    host_free(h);
    diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory",
              fn_name);
    return NULL;
}

/* The translation unit: the user's source, then the exported pointer to
 * its entry and the symbols the kernel cache checks. */
static char *host_source(const acc_user_kernel *k)
{
    char label[160];
    strbuf b = {0};
    source_label(k->name, label, sizeof label);
    sb_printf(&b, "/* accel user kernel '%s' */\n"
              "#include <stdbool.h>\n#include <stddef.h>\n"
              "#include <stdint.h>\n"
              "#define ACC_EXPORT __attribute__((visibility(\"default\")))\n"
              "#line 1 \"%s\"\n", label, label);
    sb_puts(&b, k->source);
    sb_printf(&b, "\n#line 1 \"accel: the entry '%s' of '%s'\"\n"
              "ACC_EXPORT void accel_kernel_run(void);\n"
              "ACC_EXPORT void accel_kernel_run(void) {}\n"
              "ACC_EXPORT void (*const accel_user_entry)(void) = "
              "(void (*)(void))%s;\n", k->entry, label, k->entry);
    if (b.failed) {
        sb_free(&b);
        return NULL;
    }
    return b.text;
}

static void split_run(void *state, int64_t rows,
                      void (*fn)(void *arg, int64_t lo, int64_t hi), void *arg)
{
    pool *p = state;
    if (!p) {
        fn(arg, 0, rows);
        return;
    }
    int64_t grain = rows / (4 * (int64_t)pool_threads(p));
    pool_for(p, rows, grain > 0 ? grain : 1, fn, arg);
}

/* Compiles the source; the entry function's address into *fn. */
static acc_status host_compile(uk_host *h, const acc_user_kernel *k,
                               void (**fn)(void), diag *d)
{
    diag cd;
    diag_clear(&cd);
    char *src = host_source(k);
    if (!src)
        return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                         "memory", fn_name);
    cache_get(h->cache, h->tc, src, &h->entry, NULL, &cd);
    free(src);
    if (!diag_ok(&cd))
        return diag_fail(d, cd.status, "%s: '%s': the C source does not "
                         "compile: %s", fn_name, k->name, cd.message);
    void (*const *slot)(void) = cache_entry_symbol(h->entry,
                                                   "accel_user_entry");
    if (!slot || !*slot)
        return diag_fail(d, ACC_ERR_COMPILE, "%s: '%s': the compiled source "
                         "exports no accel_user_entry", fn_name, k->name);
    *fn = *slot;
    return ACC_OK;
}

static acc_status add_host(acc_context *ctx, const acc_user_kernel *k,
                           const reg_sig *sig, diag *d)
{
    char impl_name[160], note[512];
    void (*fn)(void) = NULL;
    reg_impl *e = NULL;
    reg_cfn *c = NULL;
    uk_host *h = host_create(ctx, d);
    if (!h || host_compile(h, k, &fn, d) != ACC_OK)
        goto fail;
    reg_split split = {k->split ? split_run : NULL, h->pool};
    if (!(c = reg_cfn_create(sig, fn, &split, fn_name, d)))
        goto fail;
    snprintf(impl_name, sizeof impl_name, "kernel:%s", k->entry);
    snprintf(note, sizeof note, "user C kernel %s %s%s", k->entry,
             k->signature, k->split ? ", split over the thread pool" : "");
    reg_cfn_entry how = {k->name, impl_name, note, "user kernel", fn_name,
                         k->priority};
    if (reg_cfn_add(ctx->foreign, &how, c, &e, d) != ACC_OK)
        goto fail;
    e->kernel = h; /* the entry owns c and h from here */
    e->kernel_free = host_free;
    return keep_scalar(e, k, sig, d);
fail:
    reg_cfn_free(c);
    host_free(h);
    return d->status;
}

/* ---- CUDA kernels ------------------------------------------------------------------ */

typedef struct uk_cuda {
    acc_context *ctx;          /* its cuda backend runs the kernel */
    char *source, *entry, *name;
    reg_sig sig;
    uint32_t grid[3], block[3];
    acc_status (*launch)(void *user, const acc_foreign_call *call,
                         uint32_t grid[3], uint32_t block[3]);
    void *user;
    uint32_t shared_bytes; /* dynamic shared memory per block */
} uk_cuda;

static void cuda_kernel_free(void *p)
{
    uk_cuda *u = p;
    if (!u)
        return;
    free(u->source);
    free(u->entry);
    free(u->name);
    free(u);
}

static int cuda_accepts(acc_foreign_query *q)
{
    const uk_cuda *u = q->user;
    return reg_sig_accepts(&u->sig, 0, 1, q);
}

/* The per-program state: the kernel loaded for the program's device. */
static acc_status cuda_create(acc_foreign_query *q, void **state)
{
    const uk_cuda *u = q->user;
    diag d;
    diag_clear(&d);
    cuda_user_fn *f = NULL;
    if (!ctx_cuda(u->ctx))
        return ACC_ERR_UNSUPPORTED;
    if (cuda_user_load(ctx_cuda(u->ctx), u->source, u->name, u->entry, &f,
                       &d) !=
        ACC_OK) {
        snprintf(q->reason, q->reason_size, "%s", d.message);
        return d.status;
    }
    *state = f;
    return ACC_OK;
}

static void cuda_destroy(void *user, void *state)
{
    const uk_cuda *u = user;
    if (ctx_cuda(u->ctx))
        cuda_user_unload(ctx_cuda(u->ctx), state);
}

/* The launch: the default (one thread per element of result 0), the
 * kernel's grid and block, or its launch function's. */
static acc_status cuda_shape(const uk_cuda *u, const acc_foreign_call *call,
                             uint32_t grid[3], uint32_t block[3])
{
    int64_t n = call->n_results ? acc_array_size(&call->results[0]) : 0;
    uint64_t blocks = (uint64_t)(n + 255) / 256;
    grid[0] = (uint32_t)(blocks ? blocks : 1);
    grid[1] = grid[2] = block[1] = block[2] = 1;
    block[0] = 256;
    if (blocks > 0x7fffffffu)
        return ACC_ERR_UNSUPPORTED;
    if (u->block[0]) {
        memcpy(grid, u->grid, sizeof u->grid);
        memcpy(block, u->block, sizeof u->block);
    }
    return u->launch ? u->launch(u->user, call, grid, block) : ACC_OK;
}

static acc_status cuda_execute(acc_foreign_call *call)
{
    const uk_cuda *u = call->user;
    uint32_t grid[3], block[3];
    uint64_t slots[REG_SIG_MAX_PARAMS];
    void *values[REG_SIG_MAX_PARAMS + 1] = {NULL};
    acc_status st = cuda_shape(u, call, grid, block);
    if (st != ACC_OK)
        return st;
    reg_sig_params(&u->sig, call, slots, values);
    diag d;
    diag_clear(&d);
    if (cuda_user_launch(ctx_cuda(u->ctx), call->state, grid, block,
                         u->shared_bytes, call->stream, values, &d) != ACC_OK)
        snprintf(call->message, call->message_size, "%s", d.message);
    return d.status;
}

static acc_status cuda_check(const uk_cuda *u, diag *d)
{
    return cuda_user_check(fn_name, u->source, u->name, u->entry, d);
}

static uk_cuda *cuda_kernel_make(acc_context *ctx, const acc_user_kernel *k,
                                 const reg_sig *sig)
{
    uk_cuda *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->ctx = ctx;
    u->sig = *sig;
    memcpy(u->grid, k->grid, sizeof u->grid);
    memcpy(u->block, k->block, sizeof u->block);
    u->launch = k->launch;
    u->user = k->user;
    u->shared_bytes = KERNEL_HAS_SHARED(k) ? k->shared_bytes : 0;
    u->source = strdup(k->source);
    u->entry = strdup(k->entry);
    u->name = strdup(k->name);
    if (!u->source || !u->entry || !u->name) {
        cuda_kernel_free(u);
        return NULL;
    }
    return u;
}

static acc_status add_cuda(acc_context *ctx, const acc_user_kernel *k,
                           const reg_sig *sig, diag *d)
{
    char impl_name[160], note[512];
    int scalar = reg_sig_is_scalar(sig);
    if (!scalar && !sig->ret_void)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: '%s': a CUDA "
                         "kernel returns void (it writes its results "
                         "through pointers); only a scalar __device__ "
                         "function returns a value", fn_name, k->name);
    uk_cuda *u = cuda_kernel_make(ctx, k, sig);
    if (!u)
        return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                         "memory", fn_name);
    if (!scalar && cuda_check(u, d) != ACC_OK) {
        cuda_kernel_free(u);
        return d->status;
    }
    snprintf(impl_name, sizeof impl_name, "kernel:%s", k->entry);
    snprintf(note, sizeof note, "user CUDA %s %s %s", scalar ? "function"
             : "kernel", k->entry, k->signature);
    acc_foreign_impl impl = {
        .struct_size = sizeof impl, .name = k->name, .impl_name = impl_name,
        .backend = ACC_BACKEND_CUDA, .priority = k->priority,
        .accepts = cuda_accepts, .result_shape = reg_sig_result_shape,
        .execute = cuda_execute, .create = cuda_create,
        .destroy = cuda_destroy, .user = u, .note = note};
    if (scalar) /* never called: foreignExp nodes are not calls */
        impl.create = NULL, impl.destroy = NULL;
    reg_impl *e = NULL;
    if (reg_add(ctx->foreign, &impl, "user kernel", fn_name, &e, d) !=
        ACC_OK) {
        cuda_kernel_free(u);
        return d->status;
    }
    e->kernel = u;
    e->kernel_free = cuda_kernel_free;
    return keep_scalar(e, k, sig, d);
}

/* ---- the API function ------------------------------------------------------------------ */

acc_status acc_register_kernel(acc_context *ctx, const acc_user_kernel *kernel)
{
    diag d;
    reg_sig sig;
    diag_clear(&d);
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, fn_name);
    if (check_kernel(kernel, &d) == ACC_OK &&
        reg_parse_signature(kernel->signature, &sig, &d) == ACC_OK) {
        if (is_host(kernel->backend))
            add_host(ctx, kernel, &sig, &d);
        else
            add_cuda(ctx, kernel, &sig, &d);
    }
    if (!diag_ok(&d))
        return api_fail_diag(&ctx->error, &d);
    return ACC_OK;
}
