/*
 * reductions.c — the reductions of the standard library (LANGUAGE.md §3.2):
 * sum, product, maximum, minimum, and, or, all, any over the innermost
 * dimension, and foldAll / fold1All over a whole array.  Each is one fold
 * or fold1 with a lambda over the element type of its argument.
 */
#include "core/stdlib/stdlib_util.h"

/* fold (op) z xs, z the constant `seed` of the element type. */
static acc_node *fold_op(acc_graph *g, acc_primop op, int64_t seed,
                         acc_node *xs)
{
    const acc_type *e = sl_elem(g, xs);
    acc_node *f = sl_binop_fn(g, op, e); /* refuses a non-numeric e */
    return acc_fold(g, f, sl_const(g, e, seed), xs);
}

static acc_node *fold1_op(acc_graph *g, acc_primop op, acc_node *xs)
{
    return acc_fold1(g, sl_binop_fn(g, op, sl_elem(g, xs)), xs);
}

acc_node *acc_sum(acc_graph *g, acc_node *xs)
{
    return fold_op(g, ACC_OP_ADD, 0, xs);
}

acc_node *acc_product(acc_graph *g, acc_node *xs)
{
    return fold_op(g, ACC_OP_MUL, 1, xs);
}

acc_node *acc_maximum(acc_graph *g, acc_node *xs)
{
    return fold1_op(g, ACC_OP_MAX, xs);
}

acc_node *acc_minimum(acc_graph *g, acc_node *xs)
{
    return fold1_op(g, ACC_OP_MIN, xs);
}

acc_node *acc_and(acc_graph *g, acc_node *xs)
{
    return fold_op(g, ACC_OP_LAND, 1, xs);
}

acc_node *acc_or(acc_graph *g, acc_node *xs)
{
    return fold_op(g, ACC_OP_LOR, 0, xs);
}

acc_node *acc_all_of(acc_graph *g, acc_node *p, acc_node *xs)
{
    return acc_and(g, acc_map(g, p, xs));
}

acc_node *acc_any(acc_graph *g, acc_node *p, acc_node *xs)
{
    return acc_or(g, acc_map(g, p, xs));
}

acc_node *acc_fold_all(acc_graph *g, acc_node *f, acc_node *z, acc_node *xs)
{
    return acc_fold(g, f, z, acc_flatten(g, xs));
}

acc_node *acc_fold1_all(acc_graph *g, acc_node *f, acc_node *xs)
{
    return acc_fold1(g, f, acc_flatten(g, xs));
}
