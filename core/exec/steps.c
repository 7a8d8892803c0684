/*
 * steps.c — executing a schedule (core/schedule/schedule.h): each array
 * step through the backend that the build chose for it, control steps
 * here (acond, awhile, foreign calls and their fallbacks), the values
 * released after each step as the schedule says.
 *
 * A compiled step whose kernel finds a runtime error it cannot name, or
 * that reads a value a lazy step failed to compute, is run again by the
 * interpreter (`run_step`'s replay outcome), which reports the error with its own
 * message when the error happens.  A lazy step's runtime error is kept
 * as its value (core/backend/values.h) instead of failing the run.
 *
 * Errors follow the library's convention (core/base/diag.h): every
 * function records the first error on the run's diag and returns its
 * status, as the value table, the interpreter's host evaluator and the
 * backend's run operations do, or a pointer that is NULL after an error.
 */
#include "core/exec/executor.h"

#include "core/backend/interp/interp.h"
#include "core/base/mem.h"
#include "core/ir/value.h"

#include <stdlib.h>

/* A check point between steps: the stop request's error, or ACC_OK. */
static acc_status check_stop(executor *ex, const char *where)
{
    run_stop *s = ex->env.stop;
    return s ? stop_fail(s, ex->env.d, where) : ACC_OK;
}

/* Run statistics: one kernel, and the memory its result owns (on the host
 * or on a device). */
static void count_kernel(executor *ex, const sched_step *st)
{
    const run_value *v = &ex->values.v[st->node->id];
    if (!st->counted || !v->n)
        return;
    const rt_array *a = v->arrays[0];
    ex->kernels++;
    if (!a->owns_data && !a->owns_dev)
        return;
    for (size_t i = 0; i < a->elem->n_leaves; i++)
        ex->bytes += (uint64_t)a->size * acc_scalar_size(a->elem->leaves[i]);
}

static acc_status run_array(executor *ex, const sched_step *st)
{
    int replay = 0;
    if (st->by == SCHED_BY_KERNEL) {
        acc_status s = ex->ops->run_step(ex->run, st, &replay);
        if (!replay)
            return s;
        /* a kernel stopped by the stop request hands its step back as a
         * failed kernel does: the run stops here */
        if (check_stop(ex, ir_op_name(st->node->op)) != ACC_OK)
            return ex->env.d->status;
    }
    return ex->host_ops->run_step(ex->host, st, &replay);
}

/* The value of term `t` (of array sort), as new references in a fresh
 * malloc'd vector of *n arrays; NULL after an error. */
static rt_array **value_of(executor *ex, const ir_node *t, size_t *n)
{
    *n = t->type->n_leaves;
    rt_array **v = mem_calloc(*n ? *n : 1, sizeof *v);
    if (!v) {
        diag_oom(ex->env.d, "acc_run");
        return NULL;
    }
    if (interp_value_of(ex->env.host, t, v) != ACC_OK) {
        free(v);
        return NULL;
    }
    return v;
}

void exec_release(executor *ex, rt_array *a)
{
    if (ex->run)
        ex->ops->release(ex->run, a);
    else if (a)
        rt_release(a);
}

acc_status exec_to_host(executor *ex, rt_array *a)
{
    if (ex->run)
        return ex->ops->copy(ex->run, a, ACC_MEMORY_HOST, ex->env.d);
    rt_host(a, ex->env.d); /* records its error */
    return ex->env.d->status;
}

static void release_all(executor *ex, rt_array **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        exec_release(ex, v[i]);
    free(v);
}

/* Stores v (n arrays, references taken over) as node id's value. */
static acc_status store(executor *ex, uint32_t id, rt_array **v, size_t n)
{
    acc_status s = values_set(&ex->values, id, v, n, ex->env.d);
    free(v);
    return s;
}

/* Binds the parameter of array function lam to v (n arrays). */
static acc_status bind(executor *ex, const ir_node *lam, rt_array *const *v,
                       size_t n)
{
    return values_bind(&ex->values, ir_lambda_param(lam, 0)->id, v, n,
                       ex->env.d);
}

static void unbind(executor *ex, const ir_node *lam)
{
    values_release(&ex->values, ir_lambda_param(lam, 0)->id);
}

/* Runs body s of a control step with its parameter bound to v (n
 * arrays; s->lambda NULL: none), and takes its result. */
static rt_array **run_body(executor *ex, const schedule *s, rt_array **v,
                           size_t n, int first, size_t *count)
{
    rt_array **r = NULL;
    if ((!s->lambda || bind(ex, s->lambda, v, n) == ACC_OK) &&
        exec_schedule(ex, s, first) == ACC_OK)
        r = value_of(ex, s->result, count);
    values_end_step(&ex->values);
    exec_end_scope(ex, s);
    if (s->lambda)
        unbind(ex, s->lambda);
    return r;
}

static acc_status run_cond(executor *ex, const sched_step *st)
{
    const ir_value *c = interp_scalar(ex->env.host, st->node->args[0]);
    size_t n;
    rt_array **r = c ? run_body(ex, st->body[c->i ? 0 : 1], NULL, 0, 1, &n)
                     : NULL;
    return r ? store(ex, st->node->id, r, n) : ex->env.d->status;
}

/* The condition of an awhile on state v: 1 holds, 0 does not, -1 after
 * an error. */
static int test(executor *ex, const schedule *s, rt_array **v, size_t n,
                int first)
{
    size_t count;
    rt_array **c = run_body(ex, s, v, n, first, &count);
    int holds = -1;
    if (c && exec_to_host(ex, c[0]) == ACC_OK)
        holds = val_load(c[0]->data[0], ACC_BOOL, 0).i != 0;
    release_all(ex, c, count);
    return holds;
}

static void release_once(executor *ex, const schedule *s)
{
    for (uint32_t i = 0; i < s->n_once; i++)
        values_release(&ex->values, s->once_values[i]);
}

/* awhile: the state starts as init; each iteration tests the condition
 * on it, then replaces it by the body's result.  The bodies' once steps
 * run on the first iteration; their values live until the loop ends. */
static acc_status run_while(executor *ex, const sched_step *st)
{
    size_t n, m;
    rt_array **state = value_of(ex, st->node->args[2], &n);
    int first = 1, holds = 0;
    while (state) {
        if (check_stop(ex, "an awhile iteration") != ACC_OK ||
            (holds = test(ex, st->body[0], state, n, first)) <= 0)
            break;
        rt_array **next = run_body(ex, st->body[1], state, n, first, &m);
        release_all(ex, state, n);
        state = next;
        first = 0;
    }
    release_once(ex, st->body[0]);
    release_once(ex, st->body[1]);
    if (holds != 0 || !diag_ok(ex->env.d)) {
        release_all(ex, state, n);
        return ex->env.d->status;
    }
    return store(ex, st->node->id, state, n);
}

/* A foreign call: the implementation when there is one and it accepts
 * the extents, else the fallback applied to the argument. */
static acc_status run_foreign(executor *ex, const sched_step *st)
{
    const ir_node *node = st->node;
    size_t n, m = node->type->n_leaves;
    rt_array **arg = value_of(ex, node->args[1], &n);
    rt_array **r = NULL;
    if (!arg)
        return ex->env.d->status;
    if (node->u.foreign.impl) {
        r = mem_calloc(m ? m : 1, sizeof *r);
        acc_status s = r ? ex->ops->call_foreign(ex->run, node, arg, r)
                         : diag_oom(ex->env.d, "acc_run");
        if (s != ACC_OK) {
            free(r);
            r = NULL;
        }
        if (s != ACC_OK && s != ACC_ERR_UNSUPPORTED) {
            release_all(ex, arg, n);
            return ex->env.d->status;
        }
    }
    if (!r)
        r = run_body(ex, st->body[0], arg, n, 1, &m);
    release_all(ex, arg, n);
    return r ? store(ex, node->id, r, m) : ex->env.d->status;
}

static acc_status run_step(executor *ex, const sched_step *st)
{
    switch (st->kind) {
    case SCHED_ARRAY: return run_array(ex, st);
    case SCHED_COND: return run_cond(ex, st);
    case SCHED_WHILE: return run_while(ex, st);
    case SCHED_FOREIGN: return run_foreign(ex, st);
    }
    return diag_fail(ex->env.d, ACC_ERR_INTERNAL, "acc_run: step kind %d",
                     (int)st->kind);
}

/* A runtime error of the program, which a lazy step keeps as its value. */
static int program_error(acc_status s)
{
    return s == ACC_ERR_RUNTIME || s == ACC_ERR_SHAPE;
}

acc_status exec_schedule(executor *ex, const schedule *s, int first)
{
    diag *d = ex->env.d;
    for (size_t i = 0; i < s->n_steps; i++) {
        const sched_step *st = &s->steps[i];
        if (st->once && !first)
            continue;
        if (check_stop(ex, ir_op_name(st->node->op)) != ACC_OK)
            return d->status;
        acc_status r = run_step(ex, st);
        values_end_step(&ex->values);
        if (r != ACC_OK && st->lazy && program_error(r))
            r = values_poison(&ex->values, st->node->id, d);
        else if (r == ACC_OK && st->kind == SCHED_ARRAY)
            count_kernel(ex, st);
        if (r != ACC_OK)
            return r;
        for (uint32_t k = 0; k < st->n_release; k++)
            values_release(&ex->values, st->release[k]);
    }
    return d->status;
}

void exec_end_scope(executor *ex, const schedule *s)
{
    for (uint32_t i = 0; i < s->n_release_end; i++)
        values_release(&ex->values, s->release_end[i]);
}
