/*
 * expand_affine.c — proving, from the IR, that an expansion's targets are
 * affine in the position inside each source element (expand_affine.h).
 * A small abstract interpretation of get's target term: every subterm is
 * constant in k, affine in k, or neither; ignore-choosing conditions are
 * looked through on the target's path, as the kernel's candidate target
 * (the emitter's ignore collapse) looks through them.
 */
#include "core/codegen/expand_affine.h"

/* How a term depends on k. */
typedef enum af_kind { AF_NONE = -1, AF_CONST = 0, AF_LINEAR = 1 } af_kind;

/* Nodes visited at most per analysis: a get lambda is small; a term too
 * large to walk (a DAG shared many times over) is simply refused. */
#define AF_BUDGET 20000

typedef struct af_walk {
    const ir_program *p;
    uint32_t k;  /* the param slot of get's position */
    int budget;
} af_walk;

static int af_is_ignore_cond(const ir_node *n)
{
    return n->op == IR_COND &&
           (n->args[1]->op == IR_IGNORE || n->args[2]->op == IR_IGNORE);
}

/* Whether n mentions k, or holds an ignore-choosing condition (which the
 * candidate target would evaluate differently): either way it is not a
 * constant of the affine form.  Out of budget: 1 (refused). */
static int af_mentions(af_walk *w, const ir_node *n)
{
    if (--w->budget < 0)
        return 1;
    if (n->op == IR_PARAM)
        return n->u.param.slot == w->k;
    if (n->op == IR_VAR)
        return af_mentions(w, w->p->var_bound[n->u.let.var]);
    if (af_is_ignore_cond(n))
        return 1;
    for (uint32_t i = 0; i < n->n_args; i++)
        if (af_mentions(w, n->args[i]))
            return 1;
    return 0;
}

static af_kind af_sum(af_kind a, af_kind b)
{
    return a == AF_NONE || b == AF_NONE ? AF_NONE : a > b ? a : b;
}

/* An i64 scalar term: constant in k, a + k s, or neither. */
static af_kind af_term(af_walk *w, const ir_node *n)
{
    if (!af_mentions(w, n))
        return AF_CONST;
    if (w->budget < 0 || n->type->kind != ACC_TYPE_SCALAR ||
        n->type->scalar != ACC_I64)
        return AF_NONE;
    switch (n->op) {
    case IR_PARAM:
        return AF_LINEAR; /* k itself (af_mentions) */
    case IR_VAR:
        return af_term(w, w->p->var_bound[n->u.let.var]);
    case IR_LET:
        return af_term(w, n->args[1]);
    case IR_PRIM:
        switch (n->u.prim) {
        case ACC_OP_ADD: case ACC_OP_SUB:
            return af_sum(af_term(w, n->args[0]), af_term(w, n->args[1]));
        case ACC_OP_NEG:
            return af_term(w, n->args[0]);
        case ACC_OP_MUL: {
            af_kind a = af_term(w, n->args[0]), b = af_term(w, n->args[1]);
            return a == AF_LINEAR && b == AF_LINEAR ? AF_NONE : af_sum(a, b);
        }
        default:
            return AF_NONE;
        }
    default:
        return AF_NONE;
    }
}

/* A rank-1 target index term (a shape of one component, or ignore). */
static af_kind af_index(af_walk *w, const ir_node *n)
{
    if (--w->budget < 0)
        return AF_NONE;
    switch (n->op) {
    case IR_VAR:
        return af_index(w, w->p->var_bound[n->u.let.var]);
    case IR_LET:
        return af_index(w, n->args[1]);
    case IR_COND:
        if (n->args[1]->op == IR_IGNORE)
            return af_index(w, n->args[2]);
        if (n->args[2]->op == IR_IGNORE)
            return af_index(w, n->args[1]);
        return af_mentions(w, n) ? AF_NONE : AF_CONST;
    case IR_INDEX:
        return n->n_args == 1 ? af_term(w, n->args[0]) : AF_NONE;
    default:
        return AF_NONE;
    }
}

/* get's body: a pair (target, value), possibly under lets. */
static af_kind af_target(af_walk *w, const ir_node *n)
{
    if (--w->budget < 0)
        return AF_NONE;
    switch (n->op) {
    case IR_VAR:
        return af_target(w, w->p->var_bound[n->u.let.var]);
    case IR_LET:
        return af_target(w, n->args[1]);
    case IR_TUPLE:
        return n->n_args == 2 ? af_index(w, n->args[0]) : AF_NONE;
    default:
        return AF_NONE;
    }
}

int cg_expand_affine(const ir_program *p, const ir_node *ex)
{
    const ir_node *get = ex->args[1];
    if (ex->op != IR_EXPAND || get->op != IR_LAMBDA ||
        get->u.lambda.n_params != 2)
        return 0;
    af_walk w = {p, ir_lambda_param(get, 1)->u.param.slot, AF_BUDGET};
    return af_target(&w, ir_lambda_body(get)) != AF_NONE;
}
