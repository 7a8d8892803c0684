/*
 * stdlib_util.h — small builders shared by the standard library files of
 * core/stdlib/.  Like the rest of the standard library they use accel.h
 * only.  The argument checks here never record an error of their own: when
 * an argument does not fit they pass it to the primitive that refuses it
 * (so the graph fails with that primitive's message) and return a
 * "nothing" value; every later builder call then returns NULL.
 */
#ifndef ACC_CORE_STDLIB_STDLIB_UTIL_H
#define ACC_CORE_STDLIB_STDLIB_UTIL_H

#include "accel.h"

/* The element type of the array term xs, or NULL after making g fail
 * (through acc_shape) when xs is not an array term. */
const acc_type *sl_elem(acc_graph *g, acc_node *xs);
/* The rank of the array term xs when it is at least min_rank; otherwise -1
 * after making g fail (acc_shape for a non-array, acc_get of component
 * min_rank-1 of its shape for a rank that is too small). */
int32_t sl_rank(acc_graph *g, acc_node *xs, int32_t min_rank);
/* The scalar type of the scalar term x, or 0 after making g fail (through
 * acc_convert) when x is not a scalar term. */
acc_scalar sl_scalar(acc_graph *g, acc_node *x);

/* The constant v of scalar type t; NULL when t is not a scalar type (the
 * caller's lambda over t has then already made g fail). */
acc_node *sl_const(acc_graph *g, const acc_type *t, int64_t v);
/* \a b -> a `op` b over values of type t. */
acc_node *sl_binop_fn(acc_graph *g, acc_primop op, const acc_type *t);
/* \new old -> new over values of type t: the combination of a permute
 * whose targets are written once. */
acc_node *sl_first_fn(acc_graph *g, const acc_type *t);
/* \p -> body and \a b -> body. */
acc_node *sl_lambda1(acc_graph *g, acc_node *p, acc_node *body);
acc_node *sl_lambda2(acc_graph *g, acc_node *a, acc_node *b, acc_node *body);

/* Extent d (0 = outermost) of the array term xs, an i64 scalar term. */
acc_node *sl_extent(acc_graph *g, acc_node *xs, int32_t d);
/* comps[0..rank-1] = the components of the index term ix. */
void sl_components(acc_graph *g, acc_node *ix, int32_t rank,
                   acc_node **comps);
/* The index [i] of rank 1. */
acc_node *sl_index1(acc_graph *g, acc_node *i);
/* The index of rank `rank` made of the first rank-1 components of ix and
 * `last` (ix has rank `rank`). */
acc_node *sl_with_last(acc_graph *g, acc_node *ix, int32_t rank,
                       acc_node *last);
/* The first rank-1 components of the index ix of rank `rank`, as an index
 * of rank rank-1 (its row). */
acc_node *sl_outer(acc_graph *g, acc_node *ix, int32_t rank);
/* min (max v lo) hi on i64 scalar terms. */
acc_node *sl_clamp(acc_graph *g, acc_node *v, acc_node *lo, acc_node *hi);

#endif
