/*
 * structural.c — the structural functions of the standard library
 * (LANGUAGE.md §3.1): reverse, transpose, flatten, take, drop, init, tail,
 * slit and ++.  All but ++ are one backpermute (or reshape) of their
 * argument; ++ is a generate choosing, per index, which argument to read.
 * They act on the innermost dimension and keep the outer extents.
 */
#include "core/stdlib/stdlib_util.h"

/* The rank (>= 1) of an array and the length of its rows. */
typedef struct row {
    int32_t rank;
    acc_node *len;
} row;

/* Fills *r for xs; 0 (with g failed) when xs is not an array of rank >= 1. */
static int row_of(acc_graph *g, acc_node *xs, row *r)
{
    r->rank = sl_rank(g, xs, 1);
    r->len = r->rank < 1 ? NULL : sl_extent(g, xs, r->rank - 1);
    return r->rank >= 1;
}

/* backpermute (o..., len) (\(o..., i) -> (o..., base `op` i)) xs */
static acc_node *inner_backpermute(acc_graph *g, acc_node *xs, int32_t rank,
                                   acc_node *len, acc_node *base,
                                   acc_primop op)
{
    acc_node *ix = acc_param(g, acc_type_shape(rank));
    acc_node *last = acc_binop(g, op, base, acc_get(g, ix, (size_t)rank - 1));
    acc_node *p = sl_lambda1(g, ix, sl_with_last(g, ix, rank, last));
    acc_node *sh = sl_with_last(g, acc_shape(g, xs), rank, len);
    return acc_backpermute(g, sh, p, xs);
}

/* count elements of every row starting at start, both clamped to the row. */
static acc_node *window(acc_graph *g, acc_node *xs, const row *r,
                        acc_node *start, acc_node *count)
{
    acc_node *zero = acc_const_i64(g, ACC_I64, 0);
    acc_node *s = sl_clamp(g, start, zero, r->len);
    acc_node *rest = acc_binop(g, ACC_OP_SUB, r->len, s);
    acc_node *n = sl_clamp(g, count, zero, rest);
    return inner_backpermute(g, xs, r->rank, n, s, ACC_OP_ADD);
}

acc_node *acc_reverse(acc_graph *g, acc_node *xs)
{
    row r;
    if (!row_of(g, xs, &r))
        return NULL;
    acc_node *last = acc_binop(g, ACC_OP_SUB, r.len,
                               acc_const_i64(g, ACC_I64, 1));
    return inner_backpermute(g, xs, r.rank, r.len, last, ACC_OP_SUB);
}

acc_node *acc_take(acc_graph *g, acc_node *n, acc_node *xs)
{
    row r;
    if (!row_of(g, xs, &r))
        return NULL;
    return window(g, xs, &r, acc_const_i64(g, ACC_I64, 0), n);
}

acc_node *acc_drop(acc_graph *g, acc_node *n, acc_node *xs)
{
    row r;
    if (!row_of(g, xs, &r))
        return NULL;
    return window(g, xs, &r, n, r.len);
}

acc_node *acc_init(acc_graph *g, acc_node *xs)
{
    row r;
    if (!row_of(g, xs, &r))
        return NULL;
    acc_node *n = acc_binop(g, ACC_OP_SUB, r.len, acc_const_i64(g, ACC_I64, 1));
    return window(g, xs, &r, acc_const_i64(g, ACC_I64, 0), n);
}

acc_node *acc_tail(acc_graph *g, acc_node *xs)
{
    row r;
    if (!row_of(g, xs, &r))
        return NULL;
    return window(g, xs, &r, acc_const_i64(g, ACC_I64, 1), r.len);
}

acc_node *acc_slit(acc_graph *g, acc_node *i, acc_node *n, acc_node *xs)
{
    row r;
    if (!row_of(g, xs, &r))
        return NULL;
    return window(g, xs, &r, i, n);
}

/* The index (or shape) ix of rank `rank` with its two innermost components
 * swapped. */
static acc_node *swap_inner(acc_graph *g, acc_node *ix, int32_t rank)
{
    acc_node *comps[ACC_MAX_RANK], *t;
    sl_components(g, ix, rank, comps);
    t = comps[rank - 1];
    comps[rank - 1] = comps[rank - 2];
    comps[rank - 2] = t;
    return acc_index(g, (size_t)rank, comps);
}

acc_node *acc_transpose(acc_graph *g, acc_node *xs)
{
    int32_t rank = sl_rank(g, xs, 2);
    if (rank < 2)
        return NULL;
    acc_node *ix = acc_param(g, acc_type_shape(rank));
    acc_node *p = sl_lambda1(g, ix, swap_inner(g, ix, rank));
    return acc_backpermute(g, swap_inner(g, acc_shape(g, xs), rank), p, xs);
}

acc_node *acc_flatten(acc_graph *g, acc_node *xs)
{
    return acc_reshape(g, sl_index1(g, acc_size(g, xs)), xs);
}

/* The shape of xs ++ ys: outer extents intersected, inner ones added. */
static acc_node *concat_shape(acc_graph *g, acc_node *xs, acc_node *ys,
                              int32_t rank)
{
    acc_node *sx = acc_shape(g, xs), *sy = acc_shape(g, ys);
    acc_node *comps[ACC_MAX_RANK];
    for (int32_t d = 0; d < rank; d++)
        comps[d] = acc_binop(g, d < rank - 1 ? ACC_OP_MIN : ACC_OP_ADD,
                             acc_get(g, sx, (size_t)d),
                             acc_get(g, sy, (size_t)d));
    return acc_index(g, (size_t)rank, comps);
}

/* generate sh (\(o..., i) -> if i < nx then xs ! (o..., i)
 *                                       else ys ! (o..., i - nx)) */
acc_node *acc_concat(acc_graph *g, acc_node *xs, acc_node *ys)
{
    row r;
    if (!row_of(g, xs, &r) || sl_rank(g, ys, 1) < 0)
        return NULL;
    acc_node *ix = acc_param(g, acc_type_shape(r.rank));
    acc_node *i = acc_get(g, ix, (size_t)r.rank - 1);
    acc_node *j = acc_binop(g, ACC_OP_SUB, i, r.len);
    acc_node *body = acc_cond(g, acc_binop(g, ACC_OP_LT, i, r.len),
                              acc_read(g, xs, ix),
                              acc_read(g, ys, sl_with_last(g, ix, r.rank, j)));
    return acc_generate(g, concat_shape(g, xs, ys, r.rank),
                        sl_lambda1(g, ix, body));
}
