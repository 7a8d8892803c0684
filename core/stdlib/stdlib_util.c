/*
 * stdlib_util.c — the shared builders of stdlib_util.h, written over the
 * public builder API only.
 */
#include "core/stdlib/stdlib_util.h"

const acc_type *sl_elem(acc_graph *g, acc_node *xs)
{
    const acc_type *t = acc_node_type(xs);
    if (acc_type_get_kind(t) == ACC_TYPE_ARRAY)
        return acc_type_get_elem(t);
    acc_shape(g, xs); /* refuses xs: NULL, or not an array */
    return NULL;
}

int32_t sl_rank(acc_graph *g, acc_node *xs, int32_t min_rank)
{
    if (!sl_elem(g, xs))
        return -1;
    int32_t rank = acc_type_get_rank(acc_node_type(xs));
    if (rank >= min_rank)
        return rank;
    /* "get: cannot take component k of a value of type [rank]" */
    acc_get(g, acc_shape(g, xs), (size_t)min_rank - 1);
    return -1;
}

acc_scalar sl_scalar(acc_graph *g, acc_node *x)
{
    const acc_type *t = acc_node_type(x);
    if (acc_type_get_kind(t) == ACC_TYPE_SCALAR)
        return acc_type_get_scalar(t);
    acc_convert(g, x, ACC_I64); /* refuses x: NULL, or not a scalar */
    return (acc_scalar)0;
}

acc_node *sl_const(acc_graph *g, const acc_type *t, int64_t v)
{
    if (acc_type_get_kind(t) != ACC_TYPE_SCALAR)
        return NULL;
    return acc_const_i64(g, acc_type_get_scalar(t), v);
}

acc_node *sl_lambda1(acc_graph *g, acc_node *p, acc_node *body)
{
    return acc_lambda(g, 1, &p, body);
}

acc_node *sl_lambda2(acc_graph *g, acc_node *a, acc_node *b, acc_node *body)
{
    acc_node *ps[2] = {a, b};
    return acc_lambda(g, 2, ps, body);
}

acc_node *sl_binop_fn(acc_graph *g, acc_primop op, const acc_type *t)
{
    acc_node *a = acc_param(g, t), *b = acc_param(g, t);
    return sl_lambda2(g, a, b, acc_binop(g, op, a, b));
}

acc_node *sl_first_fn(acc_graph *g, const acc_type *t)
{
    acc_node *fresh = acc_param(g, t), *old = acc_param(g, t);
    return sl_lambda2(g, fresh, old, fresh);
}

acc_node *sl_extent(acc_graph *g, acc_node *xs, int32_t d)
{
    return acc_get(g, acc_shape(g, xs), (size_t)d);
}

void sl_components(acc_graph *g, acc_node *ix, int32_t rank,
                   acc_node **comps)
{
    for (int32_t d = 0; d < rank; d++)
        comps[d] = acc_get(g, ix, (size_t)d);
}

acc_node *sl_index1(acc_graph *g, acc_node *i)
{
    return acc_index(g, 1, &i);
}

acc_node *sl_with_last(acc_graph *g, acc_node *ix, int32_t rank,
                       acc_node *last)
{
    acc_node *comps[ACC_MAX_RANK];
    sl_components(g, ix, rank - 1, comps);
    comps[rank - 1] = last;
    return acc_index(g, (size_t)rank, comps);
}

acc_node *sl_outer(acc_graph *g, acc_node *ix, int32_t rank)
{
    acc_node *comps[ACC_MAX_RANK];
    sl_components(g, ix, rank - 1, comps);
    return acc_index(g, (size_t)rank - 1, comps);
}

acc_node *sl_clamp(acc_graph *g, acc_node *v, acc_node *lo, acc_node *hi)
{
    return acc_binop(g, ACC_OP_MIN, acc_binop(g, ACC_OP_MAX, v, lo), hi);
}
