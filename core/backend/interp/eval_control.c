/*
 * eval_control.c — array-level control in the reference interpreter
 * (LANGUAGE.md §3.7): acond, awhile, and the application of array
 * functions (lambdas over array parameters).
 *
 * Array values are memoised per node for the run.  Applying an array
 * function again must not find values computed for the previous argument,
 * so an application first releases the memo entries of exactly the array
 * nodes of the body that depend (transitively, through arguments, nested
 * lambdas and let-bound variables) on the function's parameters, then binds
 * each parameter by storing a retained reference to its argument in the
 * parameter's memo entry, then evaluates the body.  Nodes that do not
 * depend on the parameters keep their values: loop-invariant arrays are
 * computed once.  The dependent nodes of each lambda are found once per
 * run, on its first application, and cached in interp.deps.
 */
#include "core/backend/interp/interp_state.h"

#include <stdlib.h>

typedef struct dep_list {
    int done;
    uint32_t n;
    uint32_t *ids; /* array nodes of the body that depend on the params */
} dep_list;

/* Per lambda node id; allocated on the first application of the run. */
struct interp_deps {
    dep_list *by_lambda;
};

typedef struct dep_walk {
    const ir_program *p;
    const ir_node *lam;
    uint8_t *mark; /* per node id: 0 unseen, 1 independent, 2 dependent */
    uint32_t *ids;
    uint32_t n, cap;
    int oom;
} dep_walk;

static int is_param_of(const ir_node *lam, const ir_node *n)
{
    for (uint32_t i = 0; i < lam->u.lambda.n_params; i++)
        if (ir_lambda_param(lam, i) == n)
            return 1;
    return 0;
}

static void push_id(dep_walk *w, uint32_t id)
{
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 16;
        uint32_t *grown = realloc(w->ids, cap * sizeof *grown);
        if (!grown) {
            w->oom = 1;
            return;
        }
        w->ids = grown;
        w->cap = cap;
    }
    w->ids[w->n++] = id;
}

/* Whether n depends on w->lam's parameters; records dependent array nodes.
 * Every argument is visited, so every dependent node is found. */
static int walk(dep_walk *w, const ir_node *n)
{
    if (w->mark[n->id])
        return w->mark[n->id] == 2;
    w->mark[n->id] = 1;
    int dep = is_param_of(w->lam, n);
    for (uint32_t i = 0; i < n->n_args; i++)
        dep |= walk(w, n->args[i]);
    if (n->op == IR_VAR && w->p->var_bound && n->u.let.var < w->p->n_vars &&
        w->p->var_bound[n->u.let.var])
        dep |= walk(w, w->p->var_bound[n->u.let.var]);
    if (!dep)
        return 0;
    w->mark[n->id] = 2;
    if (ir_is_array(n))
        push_id(w, n->id);
    return 1;
}

static int compute_deps(interp *st, const ir_node *lam, dep_list *out)
{
    dep_walk w = {st->p, lam, NULL, NULL, 0, 0, 0};
    w.mark = calloc(st->p->n_nodes ? st->p->n_nodes : 1, sizeof *w.mark);
    if (w.mark)
        walk(&w, ir_lambda_body(lam));
    free(w.mark);
    if (!w.mark || w.oom) {
        free(w.ids);
        diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "awhile: out of host "
                  "memory");
        return 0;
    }
    out->ids = w.ids;
    out->n = w.n;
    out->done = 1;
    return 1;
}

static const dep_list *lambda_deps(interp *st, const ir_node *lam)
{
    if (!st->deps && (st->deps = calloc(1, sizeof *st->deps)) != NULL)
        st->deps->by_lambda = calloc(st->p->n_nodes ? st->p->n_nodes : 1,
                                     sizeof *st->deps->by_lambda);
    if (!st->deps || !st->deps->by_lambda) {
        diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "awhile: out of host "
                  "memory");
        return NULL;
    }
    dep_list *l = &st->deps->by_lambda[lam->id];
    if (!l->done && !compute_deps(st, lam, l))
        return NULL;
    return l;
}

void interp_release_control(interp *st)
{
    if (!st->deps)
        return;
    for (uint32_t i = 0; st->deps->by_lambda && i < st->p->n_nodes; i++)
        free(st->deps->by_lambda[i].ids);
    free(st->deps->by_lambda);
    free(st->deps);
    st->deps = NULL;
}

static void memo_clear(interp_value *v)
{
    for (size_t j = 0; j < v->n; j++)
        rt_release(v->arrays[j]);
    free(v->arrays);
    v->n = 0;
    v->arrays = NULL;
}

/* Stores retained references to arrays in the parameter's memo entry. */
static int bind_param(interp *st, const ir_node *param,
                      rt_array *const *arrays)
{
    size_t count = param->type->n_leaves;
    rt_array **copy = calloc(count ? count : 1, sizeof *copy);
    if (!copy) {
        diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "awhile: out of host "
                  "memory");
        return 0;
    }
    for (size_t j = 0; j < count; j++)
        rt_retain(copy[j] = arrays[j]);
    interp_value *slot = &st->arrays[param->id];
    memo_clear(slot);
    slot->n = count;
    slot->arrays = copy;
    return 1;
}

const interp_value *interp_apply_array(interp *st, const ir_node *lam,
                                       rt_array *const *const *args)
{
    const dep_list *deps = lambda_deps(st, lam);
    if (!deps)
        return NULL;
    for (uint32_t k = 0; k < deps->n; k++)
        memo_clear(&st->arrays[deps->ids[k]]);
    for (uint32_t i = 0; i < lam->u.lambda.n_params; i++)
        if (!bind_param(st, ir_lambda_param(lam, i), args[i]))
            return NULL;
    return interp_eval_array(st, ir_lambda_body(lam));
}

/* Applies cond (returning a Scalar bool) to the state. */
static int test_cond(interp *st, const ir_node *cond, rt_array **state,
                     int *holds)
{
    rt_array *const *args[1] = {state};
    const interp_value *c = interp_apply_array(st, cond, args);
    if (!c || !rt_host(c->arrays[0], st->d))
        return 0;
    *holds = val_load(c->arrays[0]->data[0], ACC_BOOL, 0).i != 0;
    return 1;
}

/* out holds the state (owned references) from the start, so a failure
 * leaves it for the caller to release. */
static int eval_awhile(interp *st, const ir_node *n, rt_array **out)
{
    const ir_node *cond = n->args[0], *body = n->args[1];
    size_t count = n->type->n_leaves;
    const interp_value *init = interp_eval_array(st, n->args[2]);
    if (!init)
        return 0;
    for (size_t j = 0; j < count; j++)
        rt_retain(out[j] = init->arrays[j]);
    for (;;) {
        int holds = 0;
        if (interp_stopped(st, "an awhile iteration") ||
            !test_cond(st, cond, out, &holds))
            return 0;
        if (!holds)
            return 1;
        rt_array *const *args[1] = {out};
        const interp_value *next = interp_apply_array(st, body, args);
        if (!next)
            return 0;
        for (size_t j = 0; j < count; j++) {
            rt_array *a = next->arrays[j];
            rt_retain(a);
            rt_release(out[j]);
            out[j] = a;
        }
    }
}

static int eval_acond(interp *st, const ir_node *n, rt_array **out)
{
    const ir_value *c = interp_eval(st, n->args[0]);
    if (!c)
        return 0;
    const interp_value *v = interp_eval_array(st, n->args[c->i ? 1 : 2]);
    if (!v)
        return 0;
    for (size_t j = 0; j < v->n; j++)
        rt_retain(out[j] = v->arrays[j]);
    return 1;
}

int interp_eval_control(interp *st, const ir_node *n, rt_array **out)
{
    switch (n->op) {
    case IR_ACOND: return eval_acond(st, n, out);
    case IR_AWHILE: return eval_awhile(st, n, out);
    case IR_PARAM:
        diag_fail(st->d, ACC_ERR_INTERNAL, "interpreter: an array parameter "
                  "was used outside the function that binds it");
        return 0;
    default: break;
    }
    diag_fail(st->d, ACC_ERR_INTERNAL, "interpreter: %s is not a control "
              "operation", ir_op_name(n->op));
    return 0;
}
