/*
 * filtering.c — gather, scatter, compact and filter of the standard library
 * (LANGUAGE.md §3.1).  gather is a map reading its source; scatter is a
 * permute' writing each element where its index says; compact computes
 * every kept element's output position with two scans (positions within
 * the row, then the offsets of the rows) and writes it there with permute.
 */
#include "core/stdlib/stdlib_util.h"

/* The index an element t of an indices array denotes: t itself when it is
 * an index, [t] when it is an i64. */
static acc_node *as_index(acc_graph *g, acc_node *t)
{
    if (acc_type_get_kind(acc_node_type(t)) == ACC_TYPE_SHAPE)
        return t;
    return sl_index1(g, t);
}

/* map (\t -> xs ! t) indices */
acc_node *acc_gather(acc_graph *g, acc_node *indices, acc_node *xs)
{
    acc_node *t = acc_param(g, sl_elem(g, indices));
    return acc_map(g, sl_lambda1(g, t, acc_read(g, xs, as_index(g, t))),
                   indices);
}

/* permute' (\new old -> new) defaults (zipWith (\t x -> (t, x)) to xs) */
acc_node *acc_scatter(acc_graph *g, acc_node *to, acc_node *defaults,
                      acc_node *xs)
{
    const acc_type *tt = sl_elem(g, to), *e = sl_elem(g, xs);
    acc_node *t = acc_param(g, tt), *x = acc_param(g, e);
    acc_node *pair[2] = {as_index(g, t), x}, *arrays[2] = {to, xs};
    acc_node *f = sl_lambda2(g, t, x, acc_tuple(g, 2, pair));
    acc_node *pairs = acc_zipwith(g, f, 2, arrays);
    return acc_permute_pairs(g, sl_first_fn(g, e), defaults, pairs);
}

/* zipWith (\k x -> k) keep xs, or (\k x -> x) when `second`: one of the
 * two arrays cut to the intersection of their extents. */
static acc_node *intersect(acc_graph *g, acc_node *keep, acc_node *xs,
                           int second)
{
    acc_node *k = acc_param(g, sl_elem(g, keep));
    acc_node *x = acc_param(g, sl_elem(g, xs));
    acc_node *arrays[2] = {keep, xs};
    return acc_zipwith(g, sl_lambda2(g, k, x, second ? x : k), 2, arrays);
}

/* scanl' (+) 0 xs on i64 arrays: (exclusive prefix sums, row totals). */
static acc_node *prefix_sums(acc_graph *g, acc_node *xs)
{
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    return acc_scan(g, ACC_SCANL_PRIME, sl_binop_fn(g, ACC_OP_ADD, i64),
                    acc_const_i64(g, ACC_I64, 0), xs);
}

/* generate [n] (\[k] -> xs !! k): n <= size xs elements of xs's type, to be
 * overwritten (a permute needs defaults; reading xs gives them a value of
 * any element type, and in range since only n are read). */
static acc_node *first_n_of(acc_graph *g, acc_node *n, acc_node *xs)
{
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *x = acc_read_linear(g, xs, acc_get(g, ix, 0));
    return acc_generate(g, sl_index1(g, n), sl_lambda1(g, ix, x));
}

/* \ix -> if keep ! ix then [starts ! row ix + pos ! ix] else ignore */
static acc_node *target_fn(acc_graph *g, acc_node *keep, acc_node *starts,
                           acc_node *pos, int32_t rank)
{
    acc_node *ix = acc_param(g, acc_type_shape(rank));
    acc_node *at = acc_binop(g, ACC_OP_ADD,
                             acc_read(g, starts, sl_outer(g, ix, rank)),
                             acc_read(g, pos, ix));
    acc_node *body = acc_cond(g, acc_read(g, keep, ix), sl_index1(g, at),
                              acc_ignore(g, 1));
    return sl_lambda1(g, ix, body);
}

acc_node *acc_compact(acc_graph *g, acc_node *keep, acc_node *xs)
{
    int32_t rank = sl_rank(g, keep, 1);
    const acc_type *e = sl_elem(g, xs);
    if (rank < 1 || !e)
        return NULL;
    acc_node *k = intersect(g, keep, xs, 0), *vs = intersect(g, keep, xs, 1);
    acc_node *b = acc_param(g, acc_type_scalar(ACC_BOOL));
    acc_node *ones = acc_map(g, sl_lambda1(g, b, acc_convert(g, b, ACC_I64)),
                             k);
    acc_node *in_row = prefix_sums(g, ones);
    acc_node *counts = acc_get(g, in_row, 1);
    acc_node *rows = prefix_sums(g, acc_flatten(g, counts));
    acc_node *starts = acc_reshape(g, acc_shape(g, counts),
                                   acc_get(g, rows, 0));
    acc_node *p = target_fn(g, k, starts, acc_get(g, in_row, 0), rank);
    acc_node *dflt = first_n_of(g, acc_the(g, acc_get(g, rows, 1)), vs);
    acc_node *out[2] = {acc_permute(g, sl_first_fn(g, e), dflt, p, vs),
                        counts};
    return acc_tuple(g, 2, out);
}

acc_node *acc_filter(acc_graph *g, acc_node *p, acc_node *xs)
{
    return acc_compact(g, acc_map(g, p, xs), xs);
}
