/*
 * context.c — creating and destroying contexts, backend availability.
 * Which backends exist, how they are probed and how AUTO chooses is
 * core/backend/all/backends.h; the context keeps the answers and the
 * backend it opened.
 */
#include "abi/src/context.h"

#include "abi/src/struct_sizes.h"

#include "core/base/mem.h"
#include "foreign/autoload.h"
#include "foreign/registry.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *acc_backend_name(acc_backend kind)
{
    switch (kind) {
    case ACC_BACKEND_AUTO: return "auto";
    case ACC_BACKEND_INTERP: return "interp";
    case ACC_BACKEND_CPU: return "cpu";
    case ACC_BACKEND_CUDA: return "cuda";
    }
    return "unknown";
}

acc_status acc_context_options_init_sized(acc_context_options *options,
                                          size_t size)
{
    acc_status st = abi_init_sized(options, size, ABI_CONTEXT_OPTIONS_V1_SIZE,
                                   "acc_context_options_init_sized");
    if (st == ACC_OK)
        options->backend = ACC_BACKEND_AUTO;
    return st;
}

/* The symbol binaries built before the macro of accel.h call.  Their
 * struct may be as small as the first published one, and nothing tells
 * its size: writing more would overrun it. */
void(acc_context_options_init)(acc_context_options *options)
{
    (void)acc_context_options_init_sized(options, ABI_CONTEXT_OPTIONS_V1_SIZE);
}

/* Whether the caller's struct is large enough to contain `field`. */
#define has_field(o, field) ABI_HAS_FIELD(o, acc_context_options, field)

static acc_status check_options(const acc_context_options *o)
{
    static const char fn[] = "acc_context_create";
    if (o->struct_size < ABI_CONTEXT_OPTIONS_V1_SIZE)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "%s: options.struct_size is %zu, expected at least "
                        "%zu (call acc_context_options_init first)",
                        fn, o->struct_size,
                        (size_t)ABI_CONTEXT_OPTIONS_V1_SIZE);
    if ((int)o->backend < ACC_BACKEND_AUTO || (int)o->backend > ACC_BACKEND_CUDA)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "%s: options.backend is %d, not an acc_backend value",
                        fn, (int)o->backend);
    if (has_field(o, fusion_duplicate_max_ops) &&
        o->fusion_duplicate_max_ops < 0)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "%s: options.fusion_duplicate_max_ops is %d, expected "
                        "0 or more", fn, (int)o->fusion_duplicate_max_ops);
    if (o->num_threads < 0)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "%s: options.num_threads is %d, expected 0 or more",
                        fn, (int)o->num_threads);
    if (has_field(o, cuda_device) && o->cuda_device < 0)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "%s: options.cuda_device is %d, expected 0 or more",
                        fn, (int)o->cuda_device);
    if (has_field(o, strict) && o->strict != 0 && o->strict != 1)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "%s: options.strict is %d, expected 0 or 1", fn,
                        (int)o->strict);
    if (has_field(o, fp_contract) && o->fp_contract != 0 &&
        o->fp_contract != 1)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "%s: options.fp_contract is %d, expected 0 or 1", fn,
                        (int)o->fp_contract);
    if (has_field(o, run_deadline_seconds) &&
        !(o->run_deadline_seconds >= 0))
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "%s: options.run_deadline_seconds is %g, expected 0 "
                        "(none) or a number of seconds", fn,
                        o->run_deadline_seconds);
    return ACC_OK;
}

static void context_free(acc_context *ctx)
{
    reg_destroy(ctx->foreign);
    reg_autoload_destroy(ctx->autoload);
    free(ctx->plugin_path);
    if (ctx->be)
        ctx->be->ops->destroy(ctx->be);
    ty_store_destroy(ctx->types);
    free(ctx->cache_dir);
    error_slot_destroy(&ctx->error);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

/* acc_context_create; `probe` 0 leaves every backend but the interpreter
 * unprobed and unavailable (ctx_create_scratch). */
static acc_status create(const acc_context_options *options, int probe,
                         acc_context **out)
{
    acc_context_options defaults;
    acc_context *ctx = NULL;
    acc_status st = ACC_OK;
    if (!out)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "acc_context_create: out is NULL");
    *out = NULL;
    if (!options) {
        acc_context_options_init(&defaults);
        options = &defaults;
    }
    if ((st = check_options(options)) != ACC_OK)
        goto out;
    ctx = mem_calloc(1, sizeof *ctx);
    if (!ctx || !(ctx->types = ty_store_create()))
        goto oom;
    error_slot_init(&ctx->error);
    pthread_mutex_init(&ctx->lock, NULL);
    if (options->cache_dir &&
        !(ctx->cache_dir = mem_strdup(options->cache_dir)))
        goto oom_initialised;
    if (has_field(options, plugin_path) && options->plugin_path &&
        !(ctx->plugin_path = mem_strdup(options->plugin_path)))
        goto oom_initialised;
    if (!(ctx->foreign = reg_create()) ||
        !(ctx->autoload = reg_autoload_create(
              has_field(options, plugins) ? options->plugins : NULL)))
        goto oom_initialised;
    if (has_field(options, mpi_comm))
        ctx->foreign->mpi_comm = options->mpi_comm;
    ctx->num_threads = options->num_threads;
    ctx->foreign->cache_dir = ctx->cache_dir;
    ctx->foreign->num_threads = ctx->num_threads;
    if (has_field(options, fusion_duplicate_max_ops))
        ctx->fusion_duplicate_max_ops = options->fusion_duplicate_max_ops;
    if (has_field(options, cuda_device))
        ctx->cuda_device = options->cuda_device;
    if (has_field(options, run_deadline_seconds))
        ctx->run_deadline = options->run_deadline_seconds;
    if (has_field(options, strict))
        ctx->strict = options->strict;
    backend_config config = {ctx->cache_dir, ctx->num_threads,
                             ctx->cuda_device,
                             has_field(options, fp_contract) &&
                                 options->fp_contract};
    backends_init(&ctx->backends, &config, probe);
    diag d;
    diag_clear(&d);
    if (!(ctx->be = backends_open(&ctx->backends, options->backend, &d))) {
        st = api_fail_diag(NULL, &d);
        context_free(ctx);
        ctx = NULL;
        goto out;
    }
    ctx->backend = ctx->be->ops->kind;
    reg_autoload_bind(ctx->autoload, ctx->foreign, ctx->plugin_path,
                      ctx->backend, ctx->backends.available[ACC_BACKEND_CUDA],
                      ctx->backends.reason[ACC_BACKEND_CUDA]);
    if (!handle_register(ctx, HANDLE_CONTEXT))
        goto oom_initialised;
    *out = ctx;
    goto out;
oom_initialised:
    context_free(ctx);
    ctx = NULL;
oom:
    if (ctx) {
        ty_store_destroy(ctx->types);
        free(ctx);
    }
    st = api_fail(NULL, ACC_ERR_OUT_OF_HOST_MEMORY,
                  "acc_context_create: out of host memory");
out:
    return st;
}

acc_status acc_context_create(const acc_context_options *options,
                              acc_context **out)
{
    return create(options, 1, out);
}

acc_context *ctx_create_scratch(void)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.plugins = "none";
    return create(&o, 0, &ctx) == ACC_OK ? ctx : NULL;
}

void ctx_retain(acc_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    ctx->users++;
    pthread_mutex_unlock(&ctx->lock);
}

void ctx_release(acc_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    int last = --ctx->users == 0 && ctx->destroyed;
    pthread_mutex_unlock(&ctx->lock);
    if (last)
        context_free(ctx);
}

void acc_context_destroy(acc_context *ctx)
{
    if (!ctx || !handle_is_live(ctx, HANDLE_CONTEXT))
        return;
    handle_unregister(ctx);
    pthread_mutex_lock(&ctx->lock);
    ctx->destroyed = 1;
    int unused = ctx->users == 0;
    pthread_mutex_unlock(&ctx->lock);
    if (unused)
        context_free(ctx);
}

const char *acc_context_last_error(const acc_context *ctx)
{
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return "not a live context";
    return ctx->error.message;
}

acc_status acc_context_backend(const acc_context *ctx, acc_backend *out)
{
    if (out)
        *out = ACC_BACKEND_AUTO;
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, "acc_context_backend");
    if (!out)
        return api_fail((error_slot *)&ctx->error, ACC_ERR_INVALID_ARGUMENT,
                        "acc_context_backend: out is NULL");
    *out = ctx->backend;
    return ACC_OK;
}

acc_status acc_context_backend_available(const acc_context *ctx,
                                         acc_backend kind, int *available,
                                         const char **reason)
{
    static const char fn[] = "acc_context_backend_available";
    if (available)
        *available = 0;
    if (reason)
        *reason = NULL;
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, fn);
    error_slot *slot = (error_slot *)&ctx->error;
    if (!available)
        return api_fail(slot, ACC_ERR_INVALID_ARGUMENT, "%s: available is "
                        "NULL", fn);
    if ((int)kind < ACC_BACKEND_AUTO || (int)kind > ACC_BACKEND_CUDA)
        return api_fail(slot, ACC_ERR_INVALID_ARGUMENT, "%s: %d is not an "
                        "acc_backend value", fn, (int)kind);
    acc_context *mutable_ctx = (acc_context *)ctx;
    pthread_mutex_lock(&mutable_ctx->lock);
    backends_probe(&mutable_ctx->backends, kind);
    *available = ctx->backends.available[kind];
    if (reason)
        *reason = ctx->backends.reason[kind];
    pthread_mutex_unlock(&mutable_ctx->lock);
    return ACC_OK;
}
