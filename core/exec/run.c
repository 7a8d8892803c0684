/*
 * run.c — one run of a compiled program: validate the inputs against the
 * signature, execute the schedule (steps.c) through the program's
 * backend, deliver the outputs.  Inputs are borrowed; nothing is copied
 * on the way in (the CUDA backend uploads a host input the first time a
 * kernel reads it, rt_array.h).  The run's stop request (its handle's
 * cancel flag, its deadline: core/base/stop.h) is checked between steps
 * and by the backends, whose check points read it.
 */
#include "core/exec/executor.h"

#include "core/backend/all/backends.h"
#include "core/backend/host_memory.h"
#include "core/backend/interp/interp.h"
#include "core/base/clock.h"
#include "core/base/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The size a descriptor must at least declare: every field of version 1. */
#define ARRAY_V1_SIZE sizeof(acc_array)

/* Host memory anywhere; device memory for CUDA programs, on their device. */
static acc_status check_memory(const compiled *p, const acc_array *a,
                               const char *what, size_t i, diag *d)
{
    if (a->memory == ACC_MEMORY_HOST)
        return ACC_OK;
    if (a->memory != ACC_MEMORY_CUDA_DEVICE)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s %zu: memory is %d, "
                         "not an acc_memory value", what, i, (int)a->memory);
    if (p->be->ops->memory != ACC_MEMORY_CUDA_DEVICE)
        return diag_fail(d, ACC_ERR_UNSUPPORTED, "%s %zu: the array is in "
                         "device memory, but this program runs on the host "
                         "(backend %s)", what, i,
                         acc_backend_name(p->be->ops->kind));
    if (a->device != p->device)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s %zu is on CUDA "
                         "device %d, the context runs on device %d", what, i,
                         (int)a->device, (int)p->device);
    return ACC_OK;
}

static acc_status check_descriptor(const compiled *p, const acc_array *a,
                                   const char *what, size_t i, diag *d)
{
    if (a->struct_size < ARRAY_V1_SIZE)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s %zu: struct_size is "
                         "%zu, expected at least %zu (use acc_array_init)",
                         what, i, a->struct_size, ARRAY_V1_SIZE);
    if (a->rank < 0 || a->rank > ACC_MAX_RANK)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s %zu: rank %d is out "
                         "of range 0..%d", what, i, (int)a->rank, ACC_MAX_RANK);
    for (int32_t k = 0; k < a->rank; k++)
        if (a->extents[k] < 0)
            return diag_fail(d, ACC_ERR_SHAPE, "%s %zu: extent %d is %lld; "
                             "extents must not be negative", what, i, (int)k,
                             (long long)a->extents[k]);
    if (rt_shape_size(a->rank, a->extents) < 0)
        return diag_fail(d, ACC_ERR_SHAPE, "%s %zu: the number of elements "
                         "overflows int64", what, i);
    return check_memory(p, a, what, i, d);
}

static acc_status check_input(const compiled *p, const ir_node *param,
                              const acc_array *a, size_t i, diag *d)
{
    char want[128], got[128];
    const acc_type *elem = param->type->elem;
    if (check_descriptor(p, a, "input", i, d) != ACC_OK)
        return d->status;
    if (!ty_is_type(a->type))
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "input %zu: type does "
                         "not point at a type", i);
    if (!a->type || !ty_equal(a->type, elem))
        return diag_fail(d, ACC_ERR_TYPE, "input %zu has element type %s, the "
                         "program expects %s", i,
                         a->type ? ty_format(a->type, got, sizeof got)
                                 : "NULL",
                         ty_format(elem, want, sizeof want));
    if (a->rank != param->type->rank)
        return diag_fail(d, ACC_ERR_SHAPE, "input %zu has rank %d, the program "
                         "expects rank %d", i, (int)a->rank,
                         (int)param->type->rank);
    if (rt_shape_size(a->rank, a->extents) > 0)
        for (size_t k = 0; k < elem->n_leaves; k++)
            if (!a->data[k])
                return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "input %zu: "
                                 "data[%zu] is NULL but the array has "
                                 "elements", i, k);
    return ACC_OK;
}

/* Not inlined: its message buffers would make exec_run's frame, which a
 * direct run sets up too, large. */
__attribute__((noinline)) static acc_status
check_arguments(const compiled *p, size_t n_inputs, const acc_array *inputs,
                size_t n_outputs, const acc_array *outputs, diag *d)
{
    const ir_program *ir = &p->ir;
    if (n_inputs != ir->n_inputs)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "acc_run: %zu inputs "
                         "given, the program expects %zu", n_inputs,
                         ir->n_inputs);
    if (n_outputs != ir->n_outputs)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "acc_run: %zu outputs "
                         "given, the program produces %zu", n_outputs,
                         ir->n_outputs);
    if (n_inputs > 0 && !inputs)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "acc_run: inputs is "
                         "NULL but %zu inputs are expected", n_inputs);
    if (n_outputs > 0 && !outputs)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "acc_run: outputs is "
                         "NULL but %zu outputs are produced", n_outputs);
    for (size_t i = 0; i < n_inputs; i++)
        if (check_input(p, ir->inputs[i], &inputs[i], i, d) != ACC_OK)
            return d->status;
    for (size_t i = 0; i < n_outputs; i++)
        if ((outputs[i].data[0]
                 ? check_descriptor(p, &outputs[i], "output", i, d)
                 : check_memory(p, &outputs[i], "output", i, d)) != ACC_OK)
            return d->status;
    return ACC_OK;
}

/* ---- delivering results ---------------------------------------------------- */

static acc_status check_caller_output(const acc_array *out, const rt_array *r,
                                      size_t i, diag *d)
{
    char want[160], got[160], tw[128], tg[128];
    if (!ty_is_type(out->type))
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "output %zu: type does "
                         "not point at a type", i);
    if (out->type && !ty_equal(out->type, r->elem))
        return diag_fail(d, ACC_ERR_TYPE, "output %zu has element type %s, the "
                         "program produces %s", i,
                         ty_format(out->type, tg, sizeof tg),
                         ty_format(r->elem, tw, sizeof tw));
    int same = out->rank == r->rank;
    for (int32_t k = 0; same && k < r->rank; k++)
        same = out->extents[k] == r->extents[k];
    if (!same)
        return diag_fail(d, ACC_ERR_SHAPE, "output %zu was given shape %s, the "
                         "result has shape %s", i,
                         rt_format_shape(out->rank, out->extents, got,
                                         sizeof got),
                         rt_format_shape(r->rank, r->extents, want,
                                         sizeof want));
    if (r->size > 0)
        for (size_t k = 0; k < r->elem->n_leaves; k++)
            if (!out->data[k])
                return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "output %zu: "
                                 "data[%zu] is NULL", i, k);
    return ACC_OK;
}

/* Moves (or copies) a result into a library-owned descriptor. */
static acc_status deliver_owned(acc_array *out, rt_array *r, diag *d)
{
    size_t n = r->elem->n_leaves;
    if (r->owns_data && r->refs == 1) { /* steal the buffers */
        acc_array_init(out, r->elem, r->rank, r->extents);
        memcpy(out->data, r->data, n * sizeof *out->data);
        out->ownership = ACC_OWNERSHIP_LIBRARY;
        out->release = hostmem_output_free;
        rt_disown(r);
        return ACC_OK;
    }
    acc_array fresh;
    if (!hostmem_output_new(&fresh, r->elem, r->rank, r->extents, r->size))
        return diag_oom(d, "acc_run: an output");
    for (size_t k = 0; k < n; k++)
        if (r->size > 0)
            memcpy(fresh.data[k], r->data[k],
                   (size_t)r->size * acc_scalar_size(r->elem->leaves[k]));
    *out = fresh;
    return ACC_OK;
}

/* One result into its descriptor: the caller's buffers or new ones, in
 * host memory or the backend's.  Returns d's status. */
static acc_status deliver_one(executor *ex, acc_array *out, rt_array *r,
                              diag *d)
{
    if (out->memory != ACC_MEMORY_HOST)
        return ex->ops->deliver(ex->run, out, r);
    if (out->data[0]) {
        int in_place = (r->valid & RT_ON_HOST) != 0;
        for (size_t k = 0; in_place && k < r->elem->n_leaves; k++)
            in_place = r->data[k] == out->data[k];
        if (!in_place)
            rt_copy_to_host(r, out->data, d); /* records its error */
        return d->status;
    }
    if (exec_to_host(ex, r) == ACC_OK)
        deliver_owned(out, r, d);
    return d->status;
}

/* Releases the outputs this run allocated (not those whose buffers the
 * caller gave: a DLPack import, say, is library-owned too). */
static void release_allocated(size_t n, acc_array *outputs,
                              const uint8_t *given)
{
    for (size_t i = 0; i < n; i++)
        if (!given[i] && outputs[i].ownership == ACC_OWNERSHIP_LIBRARY)
            acc_array_release(&outputs[i]);
}

static acc_status deliver(executor *ex, size_t n, acc_array *outputs,
                          rt_array **results, const uint8_t *given, diag *d)
{
    for (size_t i = 0; i < n; i++)
        if (outputs[i].data[0] &&
            check_caller_output(&outputs[i], results[i], i, d) != ACC_OK)
            return d->status;
    size_t done = 0;
    while (done < n &&
           deliver_one(ex, &outputs[done], results[done], d) == ACC_OK)
        done++;
    if (diag_ok(d))
        return ACC_OK;
    release_allocated(done, outputs, given); /* leave nothing allocated */
    return d->status;
}

/* The run's statistics; output bytes are the part of the allocation that
 * is not intermediate. */
static void run_stats(const executor *ex, rt_array *const *results, size_t n,
                      uint64_t ticks, exec_stats *out)
{
    uint64_t output_bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (results[i]->owns_data || results[i]->owns_dev)
            for (size_t k = 0; k < results[i]->elem->n_leaves; k++)
                output_bytes += (uint64_t)results[i]->size *
                                acc_scalar_size(results[i]->elem->leaves[k]);
    acc_run_stats r = {sizeof r, ex->kernels, ex->bytes,
                       ex->bytes > output_bytes ? ex->bytes - output_bytes : 0,
                       0};
    out->run = r;
    out->ticks = ticks;
}

/* Binds the inputs as values, and begins the host evaluator's run and
 * the backend's.  Returns the run diag's status. */
static acc_status begin(executor *ex, rt_array *const *ins, size_t n_inputs)
{
    run_env *env = &ex->env;
    const ir_program *ir = &ex->p->ir;
    if (values_init(&ex->values, ir, ex->p->sched.is_step,
                    (values_cache *)&ex->p->spare, env->d) != ACC_OK)
        return env->d->status;
    env->values = &ex->values;
    for (size_t i = 0; i < n_inputs; i++)
        if (values_bind(&ex->values, ir->inputs[i]->id, &ins[i], 1,
                        env->d) != ACC_OK)
            return env->d->status;
    ex->host_ops = backends_ops(ACC_BACKEND_INTERP);
    ex->ops = ex->p->be->ops;
    if (!(ex->host = ex->host_ops->run_begin(NULL, NULL, env)))
        return env->d->status;
    env->host = (struct interp *)ex->host;
    if (ex->ops == ex->host_ops)
        ex->run = ex->host;
    else
        ex->run = ex->ops->run_begin(ex->p->be, ex->p->bprog, env);
    return env->d->status;
}

/* Runs the root schedule and takes the outputs (new references); the
 * run's own references are released before delivery, so a result no
 * one else holds is handed over without a copy.  Returns the run diag's
 * status. */
static acc_status execute(executor *ex, rt_array **results)
{
    const schedule *root = &ex->p->sched.root;
    if (exec_schedule(ex, root, 1) == ACC_OK)
        interp_value_of(ex->env.host, root->result, results);
    values_end_step(&ex->values);
    exec_end_scope(ex, root);
    for (size_t i = 0; i < ex->p->ir.n_inputs; i++)
        values_release(&ex->values, ex->p->ir.inputs[i]->id);
    return ex->env.d->status;
}

/* The run of the schedule by the executor (exec_run, once the arguments
 * are checked and the backend declined to run it whole); not inlined,
 * so that a direct run does not set up its frame. */
__attribute__((noinline)) static acc_status
run_schedule(const compiled *p, const exec_call *call, double start,
             uint64_t t0, size_t n_inputs, const acc_array *inputs,
             size_t n_outputs, acc_array *outputs, exec_stats *run_stats_out,
             diag *d)
{
    run_stop stop;
    stop_init(&stop, call->cancel, start, call->deadline);
    executor ex;
    memset(&ex, 0, sizeof ex);
    ex.p = p;
    /* a program's few inputs and outputs live on the stack: acc_run's
     * fixed cost is part of every small run (bench/README.md) */
    enum { ON_STACK = 256, OUTS_ON_STACK = 16, WRAPS_ON_STACK = 4 };
    rt_array *in[ON_STACK], **in_heap = NULL;
    /* the first inputs' wrappers too (rt_wrap_at: every reference to
     * them is released below, before this frame ends), and the caller's
     * output buffers offered to the steps (destinations.h): a small run
     * allocates nothing for its arguments */
    rt_array wraps[WRAPS_ON_STACK];
    exec_dests dests_room;
    rt_array *res[OUTS_ON_STACK], **results = res, **res_heap = NULL;
    uint8_t giv[OUTS_ON_STACK], *given = giv, *given_heap = NULL;
    /* given, per output: the caller gave its buffers */
    exec_dests *dests = NULL;
    rt_array **ins = in;
    size_t wrapped = 0, produced = 0;
    int delivered = 0;
    if (n_inputs > ON_STACK &&
        !(ins = in_heap = mem_calloc(n_inputs, sizeof *ins)))
        return diag_oom(d, "acc_run");
    if (n_outputs > OUTS_ON_STACK &&
        (!(results = res_heap = mem_calloc(n_outputs, sizeof *results)) ||
         !(given = given_heap = mem_calloc(n_outputs, 1)))) {
        diag_oom(d, "acc_run");
        goto out;
    }
    for (size_t i = 0; i < n_outputs; i++)
        given[i] = outputs[i].data[0] != NULL;
    for (; wrapped < n_inputs; wrapped++)
        if (!(ins[wrapped] = wrapped < WRAPS_ON_STACK
                                 ? rt_wrap_at(&wraps[wrapped],
                                              &inputs[wrapped])
                                 : rt_wrap(&inputs[wrapped], d)))
            goto out;
    /* results may be computed into the caller's buffers in the memory
     * the backend writes */
    if (exec_dests_create(&p->ir, p->be->ops->memory, n_inputs, inputs,
                          n_outputs, outputs, &dests_room, &dests,
                          d) != ACC_OK)
        goto out;
    ex.env = (run_env){&p->ir, &p->sched, NULL, ins, n_inputs, dests, &stop,
                       call->queue, NULL, d, NULL};
    if (begin(&ex, ins, n_inputs) != ACC_OK || execute(&ex, results) != ACC_OK)
        goto out;
    produced = n_outputs;
    if (run_stats_out)
        run_stats(&ex, results, n_outputs, clock_ticks_since(t0),
                  run_stats_out);
    delivered = deliver(&ex, n_outputs, outputs, results, given, d) == ACC_OK;
out:
    /* every array of the run is released before the run ends */
    for (size_t i = 0; i < produced; i++)
        exec_release(&ex, results[i]);
    for (size_t i = 0; i < wrapped; i++)
        exec_release(&ex, ins[i]);
    /* the host evaluator's state lives in the values' memory
     * (values_host_block): it ends first */
    if (ex.host)
        ex.host_ops->run_end(ex.host);
    values_free(&ex.values);
    int failed_end = 0;
    if (ex.run && ex.run != ex.host)
        failed_end = ex.ops->run_end(ex.run) != ACC_OK;
    if (failed_end && delivered)
        release_allocated(n_outputs, outputs, given);
    exec_dests_free(dests);
    free(given_heap);
    free(res_heap);
    free(in_heap);
    return d->status;
}

acc_status exec_run(const compiled *p, const exec_call *call,
                    size_t n_inputs, const acc_array *inputs,
                    size_t n_outputs, acc_array *outputs,
                    exec_stats *run_stats_out, diag *d)
{
    /* the clocks are read only when a deadline or the statistics need
     * them (the statistics' is the cheap one: core/base/clock.h) */
    double start = call->deadline > 0 ? stop_now() : 0;
    uint64_t t0 = run_stats_out ? clock_ticks() : 0;
    /* a run the backend takes whole (no stop request, no queue: the
     * backend's direct runs have no check points), before anything of
     * the executor's is set up; it checks what it takes (a narrower
     * condition than check_arguments'), and declines anything else */
    uint64_t bytes = 0;
    if (p->be->ops->run_direct && !call->cancel && !call->queue &&
        call->deadline <= 0 &&
        p->be->ops->run_direct(p->be, p->bprog, n_inputs, inputs, n_outputs,
                               outputs, &bytes)) {
        if (run_stats_out)
            *run_stats_out =
                (exec_stats){{sizeof(acc_run_stats), 1, bytes, 0, 0},
                             clock_ticks_since(t0)};
        return ACC_OK;
    }
    if (check_arguments(p, n_inputs, inputs, n_outputs, outputs, d) != ACC_OK)
        return d->status;
    return run_schedule(p, call, start, t0, n_inputs, inputs, n_outputs,
                        outputs, run_stats_out, d);
}
