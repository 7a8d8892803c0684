/*
 * builder_control.c — the builder functions of irregular expansion
 * (LANGUAGE.md §3.6) and of array-level control (§3.7): expand, acond and
 * awhile.
 *
 * acond and awhile work on array terms of any array-sort type (an array or
 * a tuple of arrays).  awhile takes array functions: lambdas over
 * parameters of array type (acc_param with an array type), which
 * acc_lambda has already checked to be closed over scalar parameters.
 */
#include "core/ir/builder_common.h"

/* Checks that n is an array term: an array or a tuple of arrays. */
static int want_array_term(acc_graph *g, const char *op, const char *what,
                           const acc_node *n)
{
    char t[128];
    if (!gr_arg(g, op, what, n))
        return 0;
    if (n->op == IR_LAMBDA || !n->type->array_sort) {
        gr_fail(g, ACC_ERR_TYPE, "%s: %s has type %s, expected an array or a "
                "tuple of arrays", op, what,
                n->op == IR_LAMBDA ? "function" : GR_TYPE(n->type, t));
        return 0;
    }
    return 1;
}

acc_node *acc_expand(acc_graph *g, acc_node *size, acc_node *get,
                     acc_node *xs)
{
    char t[128];
    static const char op[] = "expand";
    if (!gr_begin(g, op) || !gr_want_array(g, op, "the array", xs))
        return NULL;
    if (xs->type->rank != 1)
        return gr_fail(g, ACC_ERR_SHAPE, "expand: the array has type %s, "
                       "expected a vector (rank 1)", GR_TYPE(xs->type, t));
    const acc_type *e = xs->type->elem;
    const acc_type *st = gr_check_fun(g, op, "the size function", size, 1, &e);
    if (!st)
        return NULL;
    if (!ty_is_scalar(st, ACC_I64))
        return gr_fail(g, ACC_ERR_TYPE, "expand: the size function returns "
                       "%s, expected i64", GR_TYPE(st, t));
    const acc_type *ps[2] = {e, ty_scalar(ACC_I64)};
    const acc_type *b = gr_check_fun(g, op, "the get function", get, 2, ps);
    if (!b)
        return NULL;
    acc_node *args[3] = {size, get, xs};
    return gr_closed_node(g, op, IR_EXPAND, gr_array_type(g, b, 1), 3, args);
}

acc_node *acc_acond(acc_graph *g, acc_node *c, acc_node *a, acc_node *b)
{
    char ta[128], tb[128];
    static const char op[] = "acond";
    if (!gr_begin(g, op) ||
        !gr_want_scalar(g, op, "the condition", c, ACC_BOOL) ||
        !want_array_term(g, op, "the then branch", a) ||
        !want_array_term(g, op, "the else branch", b))
        return NULL;
    if (!ty_equal(a->type, b->type))
        return gr_fail(g, ACC_ERR_TYPE, "acond: the branches have different "
                       "types, %s and %s", GR_TYPE(a->type, ta),
                       GR_TYPE(b->type, tb));
    acc_node *args[3] = {c, a, b};
    return gr_closed_node(g, op, IR_ACOND, a->type, 3, args);
}

acc_node *acc_awhile(acc_graph *g, acc_node *cond, acc_node *body,
                     acc_node *init)
{
    char t[128], u[128];
    static const char op[] = "awhile";
    if (!gr_begin(g, op) ||
        !want_array_term(g, op, "the initial value", init))
        return NULL;
    const acc_type *state = init->type;
    const acc_type *ct = gr_check_fun(g, op, "the condition", cond, 1, &state);
    if (!ct)
        return NULL;
    if (ct->kind != ACC_TYPE_ARRAY || ct->rank != 0 ||
        !ty_is_scalar(ct->elem, ACC_BOOL))
        return gr_fail(g, ACC_ERR_TYPE, "awhile: the condition returns %s, "
                       "expected Scalar bool (an array of rank 0)",
                       GR_TYPE(ct, t));
    const acc_type *bt = gr_check_fun(g, op, "the body", body, 1, &state);
    if (!bt)
        return NULL;
    if (!ty_equal(bt, state))
        return gr_fail(g, ACC_ERR_TYPE, "awhile: the body returns %s, "
                       "expected the state type %s", GR_TYPE(bt, t),
                       GR_TYPE(state, u));
    acc_node *args[3] = {cond, body, init};
    return gr_closed_node(g, op, IR_AWHILE, state, 3, args);
}
