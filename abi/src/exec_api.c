/*
 * exec_api.c — execution handles (accel.h: acc_exec): the caller's stream
 * and whether runs are asynchronous, runs queued through a handle, and the
 * wait that reports what was queued.  A handle of a CUDA context owns a
 * cuda_queue (core/backend/cuda/cuda_backend.h); on host backends runs
 * complete before acc_run_exec returns and the handle only keeps their
 * first failure for acc_exec_wait.  acc_exec_cancel sets the handle's
 * cancel flag, which the run's check points read (core/base/stop.h).
 */
#include "abi/src/program.h"
#include "abi/src/struct_sizes.h"
#include "core/base/mem.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

acc_status acc_exec_options_init_sized(acc_exec_options *options, size_t size)
{
    return abi_init_sized(options, size, ABI_EXEC_OPTIONS_V1_SIZE,
                          "acc_exec_options_init_sized");
}

/* The symbol binaries built before the macro of accel.h call: their
 * struct's size is unknown, so only the first published fields. */
void(acc_exec_options_init)(acc_exec_options *options)
{
    (void)acc_exec_options_init_sized(options, ABI_EXEC_OPTIONS_V1_SIZE);
}

#define has_field(o, field) ABI_HAS_FIELD(o, acc_exec_options, field)

static acc_status check_exec_options(const acc_exec_options *o,
                                     error_slot *slot)
{
    static const char fn[] = "acc_exec_create";
    if (o->struct_size < ABI_EXEC_OPTIONS_V1_SIZE)
        return api_fail(slot, ACC_ERR_INVALID_ARGUMENT, "%s: options."
                        "struct_size is %zu, expected at least %zu (call "
                        "acc_exec_options_init first)", fn, o->struct_size,
                        (size_t)ABI_EXEC_OPTIONS_V1_SIZE);
    if (o->async != 0 && o->async != 1)
        return api_fail(slot, ACC_ERR_INVALID_ARGUMENT, "%s: options.async is "
                        "%d, expected 0 or 1", fn, (int)o->async);
    if (has_field(o, deadline_seconds) && !(o->deadline_seconds >= 0))
        return api_fail(slot, ACC_ERR_INVALID_ARGUMENT, "%s: options."
                        "deadline_seconds is %g, expected 0 (the context's), "
                        "a number of seconds or INFINITY (none)", fn,
                        o->deadline_seconds);
    return ACC_OK;
}

static void exec_free(acc_exec *x)
{
    if (x->queue)
        x->ctx->be->ops->queue_destroy(x->queue);
    error_slot_destroy(&x->error);
    pthread_mutex_destroy(&x->lock);
    ctx_release(x->ctx);
    free(x);
}

acc_status acc_exec_create(acc_context *ctx, const acc_exec_options *options,
                           acc_exec **out)
{
    acc_exec_options defaults;
    if (out)
        *out = NULL;
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, "acc_exec_create");
    if (!out)
        return api_fail(&ctx->error, ACC_ERR_INVALID_ARGUMENT,
                        "acc_exec_create: out is NULL");
    if (!options) {
        acc_exec_options_init(&defaults);
        options = &defaults;
    }
    acc_status st = check_exec_options(options, &ctx->error);
    if (st != ACC_OK)
        return st;
    acc_exec *x = mem_calloc(1, sizeof *x);
    if (!x)
        return api_fail(&ctx->error, ACC_ERR_OUT_OF_HOST_MEMORY,
                        "acc_exec_create: out of host memory");
    x->ctx = ctx;
    x->stream = options->stream;
    x->async = options->async;
    if (has_field(options, deadline_seconds))
        x->deadline = options->deadline_seconds;
    atomic_init(&x->cancel, 0);
    error_slot_init(&x->error);
    pthread_mutex_init(&x->lock, NULL);
    diag_clear(&x->pending);
    ctx_retain(ctx);
    const backend_ops *ops = ctx->be->ops;
    if ((ops->queue_create &&
         !(x->queue = ops->queue_create(ctx->be, x->stream, x->async))) ||
        !handle_register(x, HANDLE_EXEC)) {
        exec_free(x);
        return api_fail(&ctx->error, ACC_ERR_OUT_OF_HOST_MEMORY,
                        "acc_exec_create: out of host memory");
    }
    *out = x;
    return ACC_OK;
}

void acc_exec_destroy(acc_exec *x)
{
    if (!x || !handle_is_live(x, HANDLE_EXEC))
        return;
    handle_unregister(x);
    exec_free(x); /* cuda_queue_destroy waits for the stream */
}

const char *acc_exec_last_error(const acc_exec *x)
{
    if (!handle_is_live(x, HANDLE_EXEC))
        return "not a live execution handle";
    return x->error.message;
}

/* Keeps the first failure for acc_exec_wait. */
static void note_pending(acc_exec *x, const diag *d)
{
    pthread_mutex_lock(&x->lock);
    if (diag_ok(&x->pending))
        x->pending = *d;
    pthread_mutex_unlock(&x->lock);
}

acc_status acc_run_exec(acc_exec *x, acc_program *p, size_t n_inputs,
                        const acc_array *inputs, size_t n_outputs,
                        acc_array *outputs)
{
    diag d;
    diag_clear(&d);
    if (!handle_is_live(x, HANDLE_EXEC))
        return api_bad_handle(x, HANDLE_EXEC, "acc_run_exec");
    if (!handle_is_live(p, HANDLE_PROGRAM))
        return api_bad_handle(p, HANDLE_PROGRAM, "acc_run_exec");
    if (p->ctx != x->ctx)
        diag_fail(&d, ACC_ERR_INVALID_ARGUMENT, "acc_run_exec: the program "
                  "belongs to another context than the execution handle");
    else
        program_run(p, x, n_inputs, inputs, n_outputs, outputs, &d);
    /* a cancel is for the run in progress, or the next: this one is over */
    atomic_store(&x->cancel, 0);
    if (diag_ok(&d))
        return ACC_OK;
    note_pending(x, &d);
    api_fail_diag(&x->error, &d);
    return api_fail_diag(&p->error, &d);
}

acc_status acc_exec_cancel(acc_exec *x)
{
    if (!handle_is_live(x, HANDLE_EXEC))
        return api_bad_handle(x, HANDLE_EXEC, "acc_exec_cancel");
    atomic_store(&x->cancel, 1);
    return ACC_OK;
}

acc_status acc_exec_wait(acc_exec *x)
{
    diag d;
    diag_clear(&d);
    if (!handle_is_live(x, HANDLE_EXEC))
        return api_bad_handle(x, HANDLE_EXEC, "acc_exec_wait");
    if (x->queue)
        x->ctx->be->ops->queue_wait(x->queue, &d);
    pthread_mutex_lock(&x->lock);
    if (!diag_ok(&x->pending)) /* the first failure is the one reported */
        d = x->pending;
    diag_clear(&x->pending);
    pthread_mutex_unlock(&x->lock);
    return diag_ok(&d) ? ACC_OK : api_fail_diag(&x->error, &d);
}
