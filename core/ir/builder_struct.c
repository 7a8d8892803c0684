/*
 * builder_struct.c — the builder functions of the structural operations of
 * LANGUAGE.md §3.1: the All entry, replicate and slice.
 *
 * A specification lists one entry per dimension, outermost first; each is
 * either the All node (a unit-typed scalar term) or an i64 scalar term.
 * The number of entries and of All entries is fixed by the types, so it is
 * checked here; integer entries are checked when the program runs.
 */
#include "core/ir/builder_common.h"

#include <stdio.h>

acc_node *acc_all(acc_graph *g)
{
    if (!gr_begin(g, "All"))
        return NULL;
    const acc_type *unit = gr_tuple_type(g, 0, NULL);
    return unit ? gr_node(g, IR_ALL, unit, 0, NULL, 0) : NULL;
}

/* Checks spec[0..n-1] of `op`; returns the number of All entries, or -1
 * with an error recorded. */
static int count_all(acc_graph *g, const char *op, size_t n,
                     acc_node *const *spec)
{
    char what[48], t[128];
    if (n > ACC_MAX_RANK) {
        gr_fail(g, ACC_ERR_SHAPE, "%s: the specification has %zu entries; "
                "ranks are at most %d", op, n, ACC_MAX_RANK);
        return -1;
    }
    if (n > 0 && !spec) {
        gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: spec is NULL", op);
        return -1;
    }
    int alls = 0;
    for (size_t i = 0; i < n; i++) {
        snprintf(what, sizeof what, "specification entry %zu", i);
        if (!gr_want_value(g, op, what, spec[i]))
            return -1;
        if (spec[i]->op == IR_ALL) {
            alls++;
        } else if (!ty_is_scalar(spec[i]->type, ACC_I64)) {
            gr_fail(g, ACC_ERR_TYPE, "%s: %s has type %s, expected All or an "
                    "i64 scalar", op, what, GR_TYPE(spec[i]->type, t));
            return -1;
        }
    }
    return alls;
}

acc_node *acc_replicate(acc_graph *g, size_t n, acc_node *const *spec,
                        acc_node *xs)
{
    static const char op[] = "replicate";
    if (!gr_begin(g, op))
        return NULL;
    int alls = count_all(g, op, n, spec);
    if (alls < 0 || !gr_want_array(g, op, "the array", xs))
        return NULL;
    if (alls != xs->type->rank)
        return gr_fail(g, ACC_ERR_SHAPE, "replicate: the specification has %d "
                       "All entries but the array has rank %d; there must be "
                       "one All per dimension of the array", alls,
                       (int)xs->type->rank);
    acc_node *args[ACC_MAX_RANK + 1];
    for (size_t i = 0; i < n; i++)
        args[i] = spec[i];
    args[n] = xs;
    return gr_closed_node(g, op, IR_REPLICATE,
                          gr_array_type(g, xs->type->elem, (int32_t)n),
                          (uint32_t)n + 1, args);
}

acc_node *acc_slice(acc_graph *g, acc_node *xs, size_t n,
                    acc_node *const *spec)
{
    static const char op[] = "slice";
    if (!gr_begin(g, op) || !gr_want_array(g, op, "the array", xs))
        return NULL;
    int alls = count_all(g, op, n, spec);
    if (alls < 0)
        return NULL;
    if (n != (size_t)xs->type->rank)
        return gr_fail(g, ACC_ERR_SHAPE, "slice: the specification has %zu "
                       "entries but the array has rank %d; there must be one "
                       "entry per dimension", n, (int)xs->type->rank);
    acc_node *args[ACC_MAX_RANK + 1];
    args[0] = xs;
    for (size_t i = 0; i < n; i++)
        args[i + 1] = spec[i];
    return gr_closed_node(g, op, IR_SLICE,
                          gr_array_type(g, xs->type->elem, (int32_t)alls),
                          (uint32_t)n + 1, args);
}
