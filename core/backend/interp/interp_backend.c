/*
 * interp_backend.c — the reference interpreter as a backend (see
 * interp.h): every array step is its own; a run is one interpreter state
 * (scalar slots, let variables) over the run's values, which is also the
 * host evaluator the other backends' runs use.
 */
#include "core/backend/interp/interp_state.h"

#include "core/backend/foreign_call.h"
#include "core/backend/host_memory.h"
#include "core/base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static backend interp_instance = {&interp_ops};

static acc_status interp_probe(const backend_config *c, char *about,
                               size_t about_size, diag *d)
{
    (void)c;
    (void)d;
    snprintf(about, about_size, "available: the reference interpreter is "
             "always available");
    return ACC_OK;
}

static backend *interp_create(const backend_config *c, diag *d)
{
    (void)c;
    (void)d;
    return &interp_instance;
}

static void interp_destroy(backend *be)
{
    (void)be;
}

static void mark_steps(const schedule *s)
{
    for (size_t i = 0; i < s->n_steps; i++) {
        sched_step *st = &s->steps[i];
        st->by = SCHED_BY_INTERP;
        for (int k = 0; k < 2; k++)
            if (st->body[k])
                mark_steps(st->body[k]);
    }
}

static acc_status interp_build(backend *be, const ir_program *ir,
                               sched_program *s, int strict,
                               backend_program **out, diag *d)
{
    (void)be;
    (void)ir;
    (void)strict;
    *out = NULL;
    mark_steps(&s->root);
    return d->status;
}

static backend_run *interp_begin(backend *be, backend_program *bp,
                                 run_env *env)
{
    (void)be;
    (void)bp;
    const ir_program *p = env->ir;
    /* one block for the state, its slots and its variables, kept with
     * the program's value table between runs (values_host_block): a
     * run's fixed cost is part of every small run (bench/README.md).
     * The whole block is cleared, as a fresh allocation was: no run can
     * see the last run's slots or variables, whether or not every path
     * writes a slot before reading it (a few hundred bytes per run). */
    size_t n_slots = p->n_slots ? p->n_slots : 1;
    size_t n_vars = p->n_vars ? p->n_vars : 1;
    size_t slots_at = (sizeof(interp) + _Alignof(ir_value) - 1) /
                      _Alignof(ir_value) * _Alignof(ir_value);
    size_t vars_at = slots_at + n_slots * sizeof(ir_value);
    vars_at = (vars_at + _Alignof(const ir_value *) - 1) /
              _Alignof(const ir_value *) * _Alignof(const ir_value *);
    size_t bytes = vars_at + n_vars * sizeof(const ir_value *);
    /* a run begun without values (a test's, by hand) has its own */
    char *block = env->values ? values_host_block(env->values, bytes, env->d)
                              : mem_calloc(1, bytes);
    if (!block) {
        if (!env->values)
            diag_oom(env->d, "acc_run");
        return NULL;
    }
    interp *st = (interp *)block;
    memset(block, 0, bytes);
    st->own_block = !env->values;
    st->slots = (ir_value *)(block + slots_at);
    st->vars = (const ir_value **)(block + vars_at);
    st->env = env;
    st->p = p;
    st->values = env->values;
    st->d = env->d;
    st->dests = env->dests;
    st->stop = env->stop;
    return (backend_run *)st;
}

static acc_status interp_step(backend_run *r, const sched_step *s,
                              int *replay)
{
    interp *st = (interp *)r;
    *replay = 0;
    st->current = s->node;
    const run_value *v = interp_eval_array(st, s->node);
    st->current = NULL;
    if (!v && diag_ok(st->d)) /* every failure records its error */
        diag_fail(st->d, ACC_ERR_INTERNAL, "interpreter: %s failed without "
                  "an error", ir_op_name(s->node->op));
    return st->d->status;
}

static acc_status interp_foreign(backend_run *r, const ir_node *n,
                                 rt_array *const *args, rt_array **results)
{
    interp *st = (interp *)r;
    return reg_call_on_host_into(n, args, results, st->dests, st->d);
}

static acc_status interp_end(backend_run *r)
{
    /* its block is the run's values' (values_host_block): freed or kept
     * by values_free, which comes after */
    interp *st = (interp *)r;
    acc_status s = st->d->status;
    if (st->own_block)
        free(st);
    return s;
}

static rt_array *interp_alloc(backend_run *r, const ir_node *n,
                              const acc_type *elem, int32_t rank,
                              const int64_t *extents, const char *op,
                              diag *d)
{
    return hostmem_alloc(((interp *)r)->dests, n, elem, rank, extents, op, d);
}

static acc_status interp_copy(backend_run *r, rt_array *a, acc_memory to,
                              diag *d)
{
    (void)r;
    return hostmem_copy(a, to, d);
}

static void interp_release(backend_run *r, rt_array *a)
{
    (void)r;
    hostmem_release(a);
}

const backend_ops interp_ops = {
    ACC_BACKEND_INTERP, ACC_MEMORY_HOST,
    interp_probe, interp_create, interp_destroy, NULL,
    interp_build, NULL, NULL,
    interp_begin, interp_step, interp_foreign, interp_end, NULL,
    NULL, NULL, NULL,
    interp_alloc, interp_copy, interp_release,
    NULL,
};
