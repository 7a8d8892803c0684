/*
 * producers.c — the scalar helpers even and odd, and the producers of the
 * standard library (LANGUAGE.md §3.1): enumFromN, enumFromStepN, zip and
 * zip3..zip9 (acc_zip_n), unzip, indexed and length, each a generate,
 * map, zipWith or shape query over the public builder.
 */
#include "core/stdlib/stdlib_util.h"

/* x `rem` 2 `cmp` 0 in the type of x. */
static acc_node *parity(acc_graph *g, acc_node *x, acc_primop cmp)
{
    acc_scalar s = sl_scalar(g, x);
    if (!s)
        return NULL;
    acc_node *r = acc_binop(g, ACC_OP_REM, x, acc_const_i64(g, s, 2));
    return acc_binop(g, cmp, r, acc_const_i64(g, s, 0));
}

acc_node *acc_even(acc_graph *g, acc_node *x)
{
    return parity(g, x, ACC_OP_EQ);
}

acc_node *acc_odd(acc_graph *g, acc_node *x)
{
    return parity(g, x, ACC_OP_NE);
}

/* The number of elements of shape sh (rank `rank`): the product of its
 * components, 1 for rank 0. */
static acc_node *shape_size(acc_graph *g, acc_node *sh, int32_t rank)
{
    acc_node *n = acc_const_i64(g, ACC_I64, 1);
    for (int32_t d = 0; d < rank; d++)
        n = acc_binop(g, ACC_OP_MUL, n, acc_get(g, sh, (size_t)d));
    return n;
}

/* reshape sh (generate [size sh] (\[k] -> x + convert k * step)) */
acc_node *acc_enum_from_step_n(acc_graph *g, acc_node *shape, acc_node *x,
                               acc_node *step)
{
    acc_scalar s = sl_scalar(g, x);
    if (!s)
        return NULL;
    int32_t rank = acc_type_get_rank(acc_node_type(shape));
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *k = acc_convert(g, acc_get(g, ix, 0), s);
    acc_node *body = acc_binop(g, ACC_OP_ADD, x,
                               acc_binop(g, ACC_OP_MUL, k, step));
    acc_node *flat = acc_generate(g, sl_index1(g, shape_size(g, shape, rank)),
                                  sl_lambda1(g, ix, body));
    return acc_reshape(g, shape, flat);
}

acc_node *acc_enum_from_n(acc_graph *g, acc_node *shape, acc_node *x)
{
    acc_scalar s = sl_scalar(g, x);
    if (!s)
        return NULL;
    return acc_enum_from_step_n(g, shape, x, acc_const_i64(g, s, 1));
}

/* zipWith (\a0 .. a(n-1) -> (a0, .., a(n-1))) xs0 .. xs(n-1).  n < 2, a
 * NULL list or more arrays than zipWith takes (64) are passed on to
 * acc_zipwith, which refuses them; an element of more than
 * ACC_MAX_COMPONENTS leaves is refused by the array type. */
acc_node *acc_zip_n(acc_graph *g, size_t n, acc_node *const *arrays)
{
    acc_node *ps[64];
    if (!arrays || n < 2 || n > 64)
        return acc_zipwith(g, NULL, n < 2 ? 0 : n, arrays);
    for (size_t i = 0; i < n; i++) {
        const acc_type *t = sl_elem(g, arrays[i]);
        if (!t)
            return NULL;
        ps[i] = acc_param(g, t);
    }
    acc_node *f = acc_lambda(g, n, ps, acc_tuple(g, n, ps));
    return acc_zipwith(g, f, n, arrays);
}

acc_node *acc_zip(acc_graph *g, acc_node *xs, acc_node *ys)
{
    acc_node *arrays[2] = {xs, ys};
    return acc_zip_n(g, 2, arrays);
}

/* The number of fields unzip splits an element of type e into: the fields
 * of a tuple, the components of an index, else 1 (and acc_get refuses). */
static size_t unzip_arity(const acc_type *e)
{
    switch (acc_type_get_kind(e)) {
    case ACC_TYPE_TUPLE:
        return acc_type_get_arity(e);
    case ACC_TYPE_SHAPE:
        return (size_t)acc_type_get_rank(e);
    default:
        return 1;
    }
}

/* (map (\t -> get t 0) xs, ..., map (\t -> get t (n-1)) xs).  A tuple type
 * has at most ACC_MAX_COMPONENTS fields, an index at most ACC_MAX_RANK. */
acc_node *acc_unzip(acc_graph *g, acc_node *xs)
{
    const acc_type *e = sl_elem(g, xs);
    if (!e)
        return NULL;
    size_t n = unzip_arity(e);
    acc_node *fields[ACC_MAX_COMPONENTS];
    for (size_t i = 0; i < n; i++) {
        acc_node *t = acc_param(g, e);
        fields[i] = acc_map(g, sl_lambda1(g, t, acc_get(g, t, i)), xs);
    }
    return acc_tuple(g, n, fields);
}

/* the innermost extent: component r-1 of shape xs */
acc_node *acc_length(acc_graph *g, acc_node *xs)
{
    int32_t rank = sl_rank(g, xs, 1);
    return rank < 0 ? NULL : sl_extent(g, xs, rank - 1);
}

/* generate (shape xs) (\ix -> (ix, xs ! ix)) */
acc_node *acc_indexed(acc_graph *g, acc_node *xs)
{
    int32_t rank = sl_rank(g, xs, 0);
    if (rank < 0)
        return NULL;
    acc_node *ix = acc_param(g, acc_type_shape(rank));
    acc_node *pair[2] = {ix, acc_read(g, xs, ix)};
    return acc_generate(g, acc_shape(g, xs),
                        sl_lambda1(g, ix, acc_tuple(g, 2, pair)));
}
