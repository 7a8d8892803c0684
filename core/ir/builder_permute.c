/*
 * builder_permute.c — the builder functions of forward permutation
 * (LANGUAGE.md §3.4): the `ignore` target index, permute and permute'.
 *
 * Both operations combine source elements into a copy of `defaults`, so
 * the result has the type of `defaults`; the source may have another rank.
 * The combining function is checked to be (e, e) -> e for the element type
 * e of `defaults`.
 */
#include "core/ir/builder_common.h"

acc_node *acc_ignore(acc_graph *g, int32_t rank)
{
    if (!gr_begin(g, "ignore"))
        return NULL;
    if (rank < 1 || rank > ACC_MAX_RANK)
        return gr_fail(g, ACC_ERR_SHAPE, "ignore: rank %d is out of range; "
                       "the ignore target index has rank 1..%d (a Scalar "
                       "target cannot drop elements)", (int)rank,
                       ACC_MAX_RANK);
    return gr_node(g, IR_IGNORE, ty_shape(rank), 0, NULL, 0);
}

/* Checks the combining function f : (e, e) -> e of `op`, e the element type
 * of defaults (already checked to be an array). */
static int check_combine(acc_graph *g, const char *op, const acc_node *f,
                         const acc_node *defaults)
{
    char t[128], u[128];
    const acc_type *e = defaults->type->elem;
    const acc_type *ps[2] = {e, e};
    const acc_type *r = gr_check_fun(g, op, "the combining function", f, 2, ps);
    if (!r)
        return 0;
    if (!ty_equal(r, e)) {
        gr_fail(g, ACC_ERR_TYPE, "%s: the combining function returns %s, "
                "expected the element type %s of the defaults", op,
                GR_TYPE(r, t), GR_TYPE(e, u));
        return 0;
    }
    return 1;
}

acc_node *acc_permute(acc_graph *g, acc_node *f, acc_node *defaults,
                      acc_node *p, acc_node *xs)
{
    char t[128], u[128];
    static const char op[] = "permute";
    if (!gr_begin(g, op) || !gr_want_array(g, op, "the defaults", defaults) ||
        !gr_want_array(g, op, "the source array", xs) ||
        !check_combine(g, op, f, defaults))
        return NULL;
    if (!ty_equal(xs->type->elem, defaults->type->elem))
        return gr_fail(g, ACC_ERR_TYPE, "permute: the source elements have "
                       "type %s but the defaults have type %s",
                       GR_TYPE(xs->type->elem, t),
                       GR_TYPE(defaults->type->elem, u));
    const acc_type *ix = ty_shape(xs->type->rank);
    const acc_type *target = gr_check_fun(g, op, "the index function", p, 1,
                                          &ix);
    if (!target)
        return NULL;
    if (target->kind != ACC_TYPE_SHAPE ||
        target->rank != defaults->type->rank)
        return gr_fail(g, ACC_ERR_SHAPE, "permute: the index function returns "
                       "%s, expected a target index of rank %d (the rank of "
                       "the defaults) or ignore", GR_TYPE(target, t),
                       (int)defaults->type->rank);
    acc_node *args[4] = {f, defaults, p, xs};
    return gr_closed_node(g, op, IR_PERMUTE, defaults->type, 4, args);
}

acc_node *acc_permute_pairs(acc_graph *g, acc_node *f, acc_node *defaults,
                            acc_node *xs)
{
    char t[128], u[128];
    static const char op[] = "permute'";
    if (!gr_begin(g, op) || !gr_want_array(g, op, "the defaults", defaults) ||
        !gr_want_array(g, op, "the source array", xs) ||
        !check_combine(g, op, f, defaults))
        return NULL;
    const acc_type *fields[2] = {ty_shape(defaults->type->rank),
                                 defaults->type->elem};
    const acc_type *pair = gr_tuple_type(g, 2, fields);
    if (!pair)
        return NULL;
    if (!ty_equal(xs->type->elem, pair))
        return gr_fail(g, ACC_ERR_TYPE, "permute': the source elements have "
                       "type %s, expected pairs %s of a target index (or "
                       "ignore) and a value", GR_TYPE(xs->type->elem, t),
                       GR_TYPE(pair, u));
    acc_node *args[3] = {f, defaults, xs};
    return gr_closed_node(g, op, IR_PERMUTE_PAIRS, defaults->type, 3, args);
}
