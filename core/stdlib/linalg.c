/*
 * linalg.c — dot, gemv and gemm (LANGUAGE.md §3.8.1): foreign nodes named
 * "blas.dot", "blas.gemv" and "blas.gemm" over the pair of their
 * arguments, whose fallbacks are the usual array code (a zipWith of
 * products summed over the innermost dimension, after replicating the
 * operands so that their elements meet).
 */
#include "core/stdlib/stdlib_util.h"

typedef acc_node *(*pair_body)(acc_graph *g, acc_node *a, acc_node *b);

/* foreign name (\p -> body (fst p) (snd p)) (a, b). */
static acc_node *pair_foreign(acc_graph *g, const char *name, acc_node *a,
                              acc_node *b, pair_body body)
{
    acc_node *items[2] = {a, b};
    acc_node *arg = acc_tuple(g, 2, items);
    acc_node *p = acc_param(g, acc_node_type(arg));
    acc_node *fallback = sl_lambda1(
        g, p, body(g, acc_get(g, p, 0), acc_get(g, p, 1)));
    return acc_foreign(g, name, fallback, arg);
}

/* sum (zipWith (*) a b) */
static acc_node *sum_of_products(acc_graph *g, acc_node *a, acc_node *b)
{
    acc_node *items[2] = {a, b};
    acc_node *times = sl_binop_fn(g, ACC_OP_MUL, sl_elem(g, a));
    return acc_sum(g, acc_zipwith(g, times, 2, items));
}

acc_node *acc_dot(acc_graph *g, acc_node *xs, acc_node *ys)
{
    return pair_foreign(g, "blas.dot", xs, ys, sum_of_products);
}

/* y[i] = sum_j a[i, j] * x[j]: x replicated into every row of a. */
static acc_node *gemv_body(acc_graph *g, acc_node *a, acc_node *x)
{
    acc_node *spec[2] = {sl_extent(g, a, 0), acc_all(g)};
    return sum_of_products(g, a, acc_replicate(g, 2, spec, x));
}

acc_node *acc_gemv(acc_graph *g, acc_node *a, acc_node *x)
{
    return pair_foreign(g, "blas.gemv", a, x, gemv_body);
}

/* c[i, j] = sum_l a[i, l] * b[l, j], over the cube [m, n, k]. */
static acc_node *gemm_body(acc_graph *g, acc_node *a, acc_node *b)
{
    acc_node *bt = acc_transpose(g, b);
    acc_node *spec_a[3] = {acc_all(g), sl_extent(g, bt, 0), acc_all(g)};
    acc_node *spec_b[3] = {sl_extent(g, a, 0), acc_all(g), acc_all(g)};
    return sum_of_products(g, acc_replicate(g, 3, spec_a, a),
                           acc_replicate(g, 3, spec_b, bt));
}

acc_node *acc_gemm(acc_graph *g, acc_node *a, acc_node *b)
{
    return pair_foreign(g, "blas.gemm", a, b, gemm_body);
}
