/*
 * program_api.c — acc_compile, acc_run and the program's signature.
 * Each function checks its handles at the boundary, runs the work on a
 * local diag, and copies the first error to the handle in one place.
 */
#include "abi/src/program.h"
#include "core/base/mem.h"

#include "core/ir/json.h"

#include <math.h>
#include <stdlib.h>

static acc_status check_results(acc_graph *g, size_t n,
                                acc_node *const *results, diag *d)
{
    char t[128];
    if (n == 0 || !results)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "acc_compile: %s",
                         n == 0 ? "no results given (n_results is 0)"
                                : "results is NULL");
    for (size_t i = 0; i < n; i++) {
        const acc_node *r = results[i];
        if (!r)
            return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "acc_compile: "
                             "result %zu is NULL", i);
        if (r->magic != IR_NODE_MAGIC)
            return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "acc_compile: "
                             "result %zu is not a node", i);
        if (r->graph != g)
            return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "acc_compile: "
                             "result %zu belongs to another graph", i);
        if (r->op == IR_LAMBDA || !r->type->array_sort)
            return diag_fail(d, ACC_ERR_TYPE, "acc_compile: result %zu is %s "
                             "of type %s; results must be arrays (wrap a "
                             "scalar with acc_unit)", i,
                             r->op == IR_LAMBDA ? "a function" : "a scalar",
                             r->op == IR_LAMBDA ? "function"
                                                : ty_format(r->type, t,
                                                            sizeof t));
        if (r->afree.n > 0)
            return diag_fail(d, ACC_ERR_TYPE, "acc_compile: result %zu refers "
                             "to an array parameter outside the lambda that "
                             "binds it", i);
    }
    return ACC_OK;
}

acc_status acc_compile(acc_context *ctx, acc_graph *g, size_t n_results,
                       acc_node *const *results, acc_program **out)
{
    diag d;
    diag_clear(&d);
    acc_program *p = NULL;
    if (out)
        *out = NULL;
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, "acc_compile");
    if (!handle_is_live(g, HANDLE_GRAPH))
        return api_bad_handle(g, HANDLE_GRAPH, "acc_compile");
    if (!out) {
        diag_fail(&d, ACC_ERR_INVALID_ARGUMENT, "acc_compile: out is NULL");
        goto out;
    }
    if (g->ctx != ctx) {
        diag_fail(&d, ACC_ERR_INVALID_ARGUMENT, "acc_compile: the graph "
                  "belongs to another context");
        goto out;
    }
    if (!diag_ok(&g->diag)) {
        d = g->diag;
        goto out;
    }
    if (check_results(g, n_results, results, &d) != ACC_OK)
        goto out;
    p = mem_calloc(1, sizeof *p);
    if (!p) {
        diag_fail(&d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_compile: out of host "
                  "memory");
        goto out;
    }
    compile_target t = {ctx->be, ctx->cuda_device, ctx->foreign, ctx->autoload,
                        ctx->fusion_duplicate_max_ops, ctx->strict};
    if (compile_program(&t, g, n_results, results, &p->c, &d) != ACC_OK)
        goto out;
    p->ctx = ctx;
    error_slot_init(&p->error);
    spin_init(&p->stats_lock);
    if (!handle_register(p, HANDLE_PROGRAM)) {
        compiled_free(&p->c);
        error_slot_destroy(&p->error);
        diag_fail(&d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_compile: out of host "
                  "memory");
        goto out;
    }
    ctx_retain(ctx);
    *out = p;
    p = NULL;
out:
    free(p);
    if (!diag_ok(&d))
        return api_fail_diag(&ctx->error, &d);
    return ACC_OK;
}

void acc_program_free(acc_program *p)
{
    if (!p || !handle_is_live(p, HANDLE_PROGRAM))
        return;
    handle_unregister(p);
    acc_context *ctx = p->ctx;
    compiled_free(&p->c);
    error_slot_destroy(&p->error);
    free(p);
    ctx_release(ctx);
}

const char *acc_program_last_error(const acc_program *p)
{
    if (!handle_is_live(p, HANDLE_PROGRAM))
        return "not a live program";
    return p->error.message;
}

size_t acc_program_num_inputs(const acc_program *p)
{
    return handle_is_live(p, HANDLE_PROGRAM) ? p->c.ir.n_inputs : 0;
}

size_t acc_program_num_outputs(const acc_program *p)
{
    return handle_is_live(p, HANDLE_PROGRAM) ? p->c.ir.n_outputs : 0;
}

static acc_status signature_entry(const acc_program *p, size_t i, int input,
                                  const acc_type **elem, int32_t *rank)
{
    const char *fn = input ? "acc_program_input" : "acc_program_output";
    if (elem)
        *elem = NULL;
    if (rank)
        *rank = 0;
    if (!handle_is_live(p, HANDLE_PROGRAM))
        return api_bad_handle(p, HANDLE_PROGRAM, fn);
    error_slot *slot = (error_slot *)&p->error;
    size_t n = input ? p->c.ir.n_inputs : p->c.ir.n_outputs;
    if (i >= n)
        return api_fail(slot, ACC_ERR_INVALID_ARGUMENT, "%s: index %zu is out "
                        "of range; the program has %zu %s", fn, i, n,
                        input ? "inputs" : "outputs");
    const acc_type *t = input ? p->c.ir.inputs[i]->type : p->c.ir.outputs[i];
    if (elem)
        *elem = t->elem;
    if (rank)
        *rank = t->rank;
    return ACC_OK;
}

acc_status acc_program_input(const acc_program *p, size_t i,
                             const acc_type **elem, int32_t *rank)
{
    return signature_entry(p, i, 1, elem, rank);
}

acc_status acc_program_output(const acc_program *p, size_t i,
                              const acc_type **elem, int32_t *rank)
{
    return signature_entry(p, i, 0, elem, rank);
}

acc_status acc_program_signature_json(const acc_program *p, char **json)
{
    static const char fn[] = "acc_program_signature_json";
    if (json)
        *json = NULL;
    if (!handle_is_live(p, HANDLE_PROGRAM))
        return api_bad_handle(p, HANDLE_PROGRAM, fn);
    error_slot *slot = (error_slot *)&p->error;
    if (!json)
        return api_fail(slot, ACC_ERR_INVALID_ARGUMENT, "%s: json is NULL",
                        fn);
    strbuf b = {0};
    sb_puts(&b, "{\"inputs\":[");
    for (size_t i = 0; i < p->c.ir.n_inputs; i++) {
        sb_puts(&b, i ? "," : "");
        ir_json_signature_item(&b, p->c.ir.input_names[i],
                               p->c.ir.inputs[i]->type->elem,
                               p->c.ir.inputs[i]->type->rank);
    }
    sb_puts(&b, "],\"outputs\":[");
    for (size_t i = 0; i < p->c.ir.n_outputs; i++) {
        sb_puts(&b, i ? "," : "");
        ir_json_signature_item(&b, NULL, p->c.ir.outputs[i]->elem,
                               p->c.ir.outputs[i]->rank);
    }
    sb_puts(&b, "]}");
    if (b.failed) {
        sb_free(&b);
        return api_fail(slot, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                        "memory", fn);
    }
    *json = b.text;
    return ACC_OK;
}

acc_backend acc_program_backend(const acc_program *p)
{
    return handle_is_live(p, HANDLE_PROGRAM) ? p->c.be->ops->kind : ACC_BACKEND_AUTO;
}

acc_status acc_run(acc_program *p, size_t n_inputs, const acc_array *inputs,
                   size_t n_outputs, acc_array *outputs)
{
    diag d;
    diag_clear(&d);
    if (!handle_is_live(p, HANDLE_PROGRAM))
        return api_bad_handle(p, HANDLE_PROGRAM, "acc_run");
    if (program_run(p, NULL, n_inputs, inputs, n_outputs, outputs, &d) !=
        ACC_OK)
        return api_fail_diag(&p->error, &d);
    return ACC_OK;
}

/* The run's deadline in seconds (0: none): the handle's, else the
 * context's; INFINITY on the handle means none. */
static double deadline_of(const acc_program *p, const acc_exec *x)
{
    double s = x && x->deadline > 0 ? x->deadline : p->ctx->run_deadline;
    return s > 0 && s < HUGE_VAL ? s : 0;
}

acc_status program_run(acc_program *p, acc_exec *x, size_t n_inputs,
                       const acc_array *inputs, size_t n_outputs,
                       acc_array *outputs, diag *d)
{
    exec_call call = {x ? x->queue : NULL, x ? &x->cancel : NULL,
                      deadline_of(p, x)};
    exec_stats stats;
    if (exec_run(&p->c, &call, n_inputs, inputs, n_outputs, outputs, &stats,
                 d) != ACC_OK)
        return d->status;
    spin_acquire(&p->stats_lock);
    p->last_run = stats.run;
    p->last_ticks = stats.ticks;
    spin_release(&p->stats_lock);
    return ACC_OK;
}
