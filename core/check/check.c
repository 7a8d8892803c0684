/*
 * check.c — type and scope checking of a program's IR.  The type rules
 * here restate the builder's for the operations whose typing does not
 * depend on options; the scope rules follow lets and lambdas.
 */
#include "core/check/check.h"

#include "core/base/mem.h"
#include "core/ir/primops.h"

#include <stdlib.h>

typedef struct checker {
    const ir_program *p;
    diag *d;
    uint32_t *var_depth;   /* per variable: > 0 while in scope      */
    uint32_t *param_depth; /* per parameter slot: > 0 while in scope */
    uint8_t *seen;         /* per node id: checked already            */
} checker;

static int fail(checker *c, const ir_node *n, const char *what,
                const acc_type *want, const acc_type *got)
{
    char a[128], b[128];
    const char *op = n->op == IR_PRIM ? acc_primop_name(n->u.prim)
                                      : ir_op_name(n->op);
    diag_fail(c->d, ACC_ERR_TYPE, "check: %s: %s%s%s%s%s", op,
              what, want ? ": expected " : "",
              want ? ty_format(want, a, sizeof a) : "",
              got ? ", found " : "", got ? ty_format(got, b, sizeof b) : "");
    return 0;
}

static int expect(checker *c, const ir_node *n, const char *what,
                  const acc_type *want, const acc_type *got)
{
    return ty_equal(want, got) ? 1 : fail(c, n, what, want, got);
}

/* A lambda's parameters must have the given types. */
static int expect_fun(checker *c, const ir_node *n, const ir_node *f,
                      uint32_t arity, const acc_type *const *types)
{
    if (f->op != IR_LAMBDA || f->u.lambda.n_params != arity)
        return fail(c, n, "a function of the right arity is required", NULL,
                    NULL);
    for (uint32_t i = 0; i < arity; i++)
        if (!expect(c, n, "function parameter", types[i], f->args[i]->type))
            return 0;
    return 1;
}

static int check_prim(checker *c, const ir_node *n)
{
    prim_info info = prim_lookup(n->u.prim);
    const acc_type *a = n->args[0]->type;
    if (info.arity != (int)n->n_args || a->kind != ACC_TYPE_SCALAR ||
        !prim_accepts(info.operands, a->scalar))
        return fail(c, n, "operand of the wrong kind", NULL, a);
    int shift = n->u.prim == ACC_OP_SHIFTL || n->u.prim == ACC_OP_SHIFTR;
    if (n->n_args == 2 && !shift &&
        !expect(c, n, "second operand", a, n->args[1]->type))
        return 0;
    if (info.result == PR_BOOL)
        return expect(c, n, "result", ty_scalar(ACC_BOOL), n->type);
    if (info.result == PR_I64)
        return expect(c, n, "result", ty_scalar(ACC_I64), n->type);
    if (info.result == PR_SAME)
        return expect(c, n, "result", a, n->type);
    return 1;
}

static int check_tuple(checker *c, const ir_node *n)
{
    if (n->type->kind != ACC_TYPE_TUPLE || n->type->arity != n->n_args)
        return fail(c, n, "tuple arity", NULL, n->type);
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!expect(c, n, "tuple field", n->type->fields[i], n->args[i]->type))
            return 0;
    return 1;
}

static int check_get(checker *c, const ir_node *n)
{
    const acc_type *t = n->args[0]->type;
    if (t->kind == ACC_TYPE_SHAPE && n->u.field < (size_t)t->rank)
        return expect(c, n, "component", ty_scalar(ACC_I64), n->type);
    if (t->kind == ACC_TYPE_TUPLE && n->u.field < t->arity)
        return expect(c, n, "field", t->fields[n->u.field], n->type);
    return fail(c, n, "component out of range", NULL, t);
}

static int check_read(checker *c, const ir_node *n)
{
    const acc_type *a = n->args[0]->type;
    if (a->kind != ACC_TYPE_ARRAY)
        return fail(c, n, "an array is required", NULL, a);
    if (n->op == IR_READ &&
        !expect(c, n, "index", ty_shape(a->rank), n->args[1]->type))
        return 0;
    return expect(c, n, "result", a->elem, n->type);
}

static int check_mapping(checker *c, const ir_node *n)
{
    const acc_type *elems[64];
    uint32_t m = n->n_args - 1;
    for (uint32_t i = 0; i < m; i++)
        elems[i] = n->args[i + 1]->type->elem;
    if (!expect_fun(c, n, n->args[0], m, elems))
        return 0;
    return expect(c, n, "element type", n->type->elem, n->args[0]->type);
}

static int check_fold(checker *c, const ir_node *n)
{
    const ir_node *xs = n->args[n->op == IR_FOLD ? 2 : 1];
    const acc_type *e = xs->type->elem;
    const acc_type *pair[2] = {e, e};
    if (xs->type->kind != ACC_TYPE_ARRAY || xs->type->rank != n->type->rank + 1)
        return fail(c, n, "the reduced array's rank", NULL, xs->type);
    if (!expect_fun(c, n, n->args[0], 2, pair) ||
        !expect(c, n, "function result", e, n->args[0]->type))
        return 0;
    return n->op == IR_FOLD1 || expect(c, n, "initial value", e,
                                       n->args[1]->type);
}

/* foreign name fallback arg: the fallback is a closed unary function
 * from arg's type to the node's type. */
static int check_foreign(checker *c, const ir_node *n)
{
    const ir_node *f = n->args[0];
    if (!expect_fun(c, n, f, 1, &n->args[1]->type) ||
        !expect(c, n, "fallback result", n->type, f->type))
        return 0;
    if (f->free.n > 0 || f->afree.n > 0)
        return fail(c, n, "the fallback refers to parameters of an enclosing "
                    "function (a fallback must be closed)", NULL, NULL);
    return 1;
}

/* Type rules of the operations whose typing is fixed; 1 when fine. */
static int check_types(checker *c, const ir_node *n)
{
    switch (n->op) {
    case IR_PRIM: return check_prim(c, n);
    case IR_COND:
        return expect(c, n, "condition", ty_scalar(ACC_BOOL), n->args[0]->type) &&
               expect(c, n, "then branch", n->type, n->args[1]->type) &&
               expect(c, n, "else branch", n->type, n->args[2]->type);
    case IR_TUPLE: return check_tuple(c, n);
    case IR_GET: return check_get(c, n);
    case IR_READ:
    case IR_READ_LINEAR: return check_read(c, n);
    case IR_WHILE:
        return expect_fun(c, n, n->args[0], 1, &n->type) &&
               expect_fun(c, n, n->args[1], 1, &n->type) &&
               expect(c, n, "condition result", ty_scalar(ACC_BOOL),
                      n->args[0]->type) &&
               expect(c, n, "body result", n->type, n->args[1]->type);
    case IR_LET: return expect(c, n, "body", n->type, n->args[1]->type);
    case IR_VAR:
        return expect(c, n, "bound term", c->p->var_bound[n->u.let.var]->type,
                      n->type);
    case IR_MAP:
    case IR_ZIPWITH: return check_mapping(c, n);
    case IR_FOLD:
    case IR_FOLD1: return check_fold(c, n);
    case IR_FOREIGN:
    case IR_FOREIGN_EXP: return check_foreign(c, n);
    default: return 1;
    }
}

static int visit(checker *c, const ir_node *n);

static int visit_lambda(checker *c, const ir_node *n)
{
    uint32_t np = n->u.lambda.n_params;
    for (uint32_t i = 0; i < np; i++)
        c->param_depth[n->args[i]->u.param.slot]++;
    int ok = visit(c, ir_lambda_body(n));
    for (uint32_t i = 0; i < np; i++)
        c->param_depth[n->args[i]->u.param.slot]--;
    return ok;
}

static int visit_scope(checker *c, const ir_node *n)
{
    if (n->op == IR_PARAM) {
        if (n->u.param.slot >= c->p->n_params ||
            !c->param_depth[n->u.param.slot])
            return fail(c, n, "a parameter is used outside the lambda that "
                        "binds it (the enclosing function is not closed)",
                        NULL, NULL);
        return 1;
    }
    if (n->op == IR_VAR && (n->u.let.var >= c->p->n_vars ||
                            !c->var_depth[n->u.let.var]))
        return fail(c, n, "a variable is used outside its let", NULL, NULL);
    return 1;
}

static int visit(checker *c, const ir_node *n)
{
    if (!visit_scope(c, n))
        return 0;
    if (n->op == IR_PARAM || c->seen[n->id])
        return 1;
    c->seen[n->id] = 1;
    if (n->op == IR_LAMBDA)
        return visit_lambda(c, n);
    if (n->op == IR_LET) {
        if (!visit(c, n->args[0]))
            return 0;
        c->var_depth[n->u.let.var]++;
        int ok = visit(c, n->args[1]);
        c->var_depth[n->u.let.var]--;
        return ok && check_types(c, n);
    }
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!visit(c, n->args[i]))
            return 0;
    return check_types(c, n);
}

acc_status check_program(const ir_program *p, diag *d)
{
    checker c = {p, d, NULL, NULL, NULL};
    c.var_depth = mem_calloc(p->n_vars ? p->n_vars : 1, sizeof *c.var_depth);
    c.param_depth = mem_calloc(p->n_params ? p->n_params : 1,
                           sizeof *c.param_depth);
    c.seen = mem_calloc(p->n_nodes ? p->n_nodes : 1, 1);
    if (!c.var_depth || !c.param_depth || !c.seen)
        diag_oom(d, "check");
    else
        visit(&c, p->root);
    free(c.var_depth);
    free(c.param_depth);
    free(c.seen);
    return d->status;
}
