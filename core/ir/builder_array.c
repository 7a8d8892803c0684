/*
 * builder_array.c — the builder functions for array terms: program inputs
 * and the collective operations.  Array terms are closed: they may not
 * depend on a lambda parameter (an array computed inside a scalar function
 * is not part of the language), which is checked here.
 */
#include "core/base/mem.h"
#include "core/ir/builder_common.h"

#include <stdio.h>
#include <stdlib.h>

static acc_node *array_node(acc_graph *g, ir_op op, const acc_type *elem,
                            int32_t rank, uint32_t n_args,
                            acc_node *const *args)
{
    return gr_closed_node(g, ir_op_name(op), op, gr_array_type(g, elem, rank),
                          n_args, args);
}

static int want_shape(acc_graph *g, const char *op, const acc_node *sh)
{
    char t[128];
    if (!gr_want_value(g, op, "the shape", sh))
        return 0;
    if (sh->type->kind != ACC_TYPE_SHAPE) {
        gr_fail(g, ACC_ERR_TYPE, "%s: the shape has type %s, expected a shape "
                "(build it with acc_index or acc_shape)", op,
                GR_TYPE(sh->type, t));
        return 0;
    }
    return 1;
}

acc_node *acc_input(acc_graph *g, const acc_type *elem, int32_t rank)
{
    char t[128];
    if (!gr_begin(g, "input") || !gr_type(g, "input", "the element type",
                                           elem))
        return NULL;
    if (elem->array_sort)
        return gr_fail(g, ACC_ERR_TYPE, "input: the element type %s is not a "
                       "scalar or a tuple of scalars", GR_TYPE(elem, t));
    if (rank < 0 || rank > ACC_MAX_RANK)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "input: rank %d is out of "
                       "range 0..%d", (int)rank, ACC_MAX_RANK);
    if (g->n_inputs == g->cap_inputs) {
        size_t cap = g->cap_inputs ? g->cap_inputs * 2 : 8;
        ir_node **grown = mem_realloc(g->inputs, cap * sizeof *grown);
        if (!grown)
            return gr_fail(g, ACC_ERR_OUT_OF_HOST_MEMORY, "input: out of host "
                           "memory");
        g->inputs = grown;
        g->cap_inputs = cap;
    }
    ir_node *n = array_node(g, IR_INPUT, elem, rank, 0, NULL);
    if (!n)
        return NULL;
    n->u.input = (uint32_t)g->n_inputs;
    g->inputs[g->n_inputs++] = n;
    return n;
}

acc_node *acc_unit(acc_graph *g, acc_node *x)
{
    if (!gr_begin(g, "unit") || !gr_want_value(g, "unit", "the value", x))
        return NULL;
    return array_node(g, IR_UNIT, x->type, 0, 1, &x);
}

acc_node *acc_generate(acc_graph *g, acc_node *shape, acc_node *f)
{
    static const char op[] = "generate";
    if (!gr_begin(g, op) || !want_shape(g, op, shape))
        return NULL;
    const acc_type *ix = shape->type;
    const acc_type *elem = gr_check_fun(g, op, "the function", f, 1, &ix);
    if (!elem)
        return NULL;
    acc_node *args[2] = {shape, f};
    return array_node(g, IR_GENERATE, elem, shape->type->rank, 2, args);
}

acc_node *acc_fill(acc_graph *g, acc_node *shape, acc_node *x)
{
    static const char op[] = "fill";
    if (!gr_begin(g, op) || !want_shape(g, op, shape) ||
        !gr_want_value(g, op, "the value", x))
        return NULL;
    acc_node *ix = acc_param(g, shape->type);
    acc_node *f = ix ? acc_lambda(g, 1, &ix, x) : NULL;
    return f ? acc_generate(g, shape, f) : NULL;
}

acc_node *acc_map(acc_graph *g, acc_node *f, acc_node *xs)
{
    static const char op[] = "map";
    if (!gr_begin(g, op) || !gr_want_array(g, op, "the array", xs))
        return NULL;
    const acc_type *elem = gr_check_fun(g, op, "the function", f, 1,
                                        &xs->type->elem);
    if (!elem)
        return NULL;
    acc_node *args[2] = {f, xs};
    return array_node(g, IR_MAP, elem, xs->type->rank, 2, args);
}

acc_node *acc_zipwith(acc_graph *g, acc_node *f, size_t n,
                      acc_node *const *arrays)
{
    static const char op[] = "zipWith";
    if (!gr_begin(g, op))
        return NULL;
    if (n < 1 || n > 64 || !arrays)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "zipWith: %s", !arrays
                       ? "arrays is NULL" : "takes 1 to 64 arrays");
    const acc_type *elems[64];
    acc_node *args[65];
    for (size_t i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "array %zu", i);
        if (!gr_want_array(g, op, what, arrays[i]))
            return NULL;
        if (arrays[i]->type->rank != arrays[0]->type->rank)
            return gr_fail(g, ACC_ERR_SHAPE, "zipWith: array %zu has rank %d "
                           "but array 0 has rank %d", i,
                           (int)arrays[i]->type->rank,
                           (int)arrays[0]->type->rank);
        elems[i] = arrays[i]->type->elem;
        args[i + 1] = arrays[i];
    }
    const acc_type *elem = gr_check_fun(g, op, "the function", f, n, elems);
    if (!elem)
        return NULL;
    args[0] = f;
    return array_node(g, IR_ZIPWITH, elem, arrays[0]->type->rank,
                      (uint32_t)n + 1, args);
}

acc_node *acc_backpermute(acc_graph *g, acc_node *shape, acc_node *p,
                          acc_node *xs)
{
    char t[128];
    static const char op[] = "backpermute";
    if (!gr_begin(g, op) || !want_shape(g, op, shape) ||
        !gr_want_array(g, op, "the array", xs))
        return NULL;
    const acc_type *ix = shape->type;
    const acc_type *target = gr_check_fun(g, op, "the index function", p, 1,
                                          &ix);
    if (!target)
        return NULL;
    if (target->kind != ACC_TYPE_SHAPE || target->rank != xs->type->rank)
        return gr_fail(g, ACC_ERR_SHAPE, "backpermute: the index function "
                       "returns %s, expected an index of rank %d (the rank of "
                       "the source array)", GR_TYPE(target, t),
                       (int)xs->type->rank);
    acc_node *args[3] = {shape, p, xs};
    return array_node(g, IR_BACKPERMUTE, xs->type->elem, shape->type->rank,
                      3, args);
}

acc_node *acc_reshape(acc_graph *g, acc_node *shape, acc_node *xs)
{
    static const char op[] = "reshape";
    if (!gr_begin(g, op) || !want_shape(g, op, shape) ||
        !gr_want_array(g, op, "the array", xs))
        return NULL;
    acc_node *args[2] = {shape, xs};
    return array_node(g, IR_RESHAPE, xs->type->elem, shape->type->rank, 2,
                      args);
}

/* fold and fold1: f : (e, e) -> e over an array of rank >= 1. */
static const acc_type *check_reduction(acc_graph *g, const char *op,
                                       acc_node *f, acc_node *xs)
{
    char t[128], u[128];
    if (!gr_want_array(g, op, "the array", xs))
        return NULL;
    if (xs->type->rank < 1) {
        gr_fail(g, ACC_ERR_SHAPE, "%s: the array has rank 0; it reduces the "
                "innermost dimension, so the rank must be at least 1", op);
        return NULL;
    }
    const acc_type *e = xs->type->elem;
    const acc_type *ps[2] = {e, e};
    const acc_type *r = gr_check_fun(g, op, "the function", f, 2, ps);
    if (r && !ty_equal(r, e)) {
        gr_fail(g, ACC_ERR_TYPE, "%s: the function returns %s, expected the "
                "element type %s", op, GR_TYPE(r, t), GR_TYPE(e, u));
        return NULL;
    }
    return r;
}

acc_node *acc_fold(acc_graph *g, acc_node *f, acc_node *z, acc_node *xs)
{
    char t[128], u[128];
    static const char op[] = "fold";
    if (!gr_begin(g, op) || !gr_want_value(g, op, "the initial value", z))
        return NULL;
    const acc_type *e = check_reduction(g, op, f, xs);
    if (!e)
        return NULL;
    if (!ty_equal(z->type, e))
        return gr_fail(g, ACC_ERR_TYPE, "fold: the initial value has type %s, "
                       "expected the element type %s", GR_TYPE(z->type, t),
                       GR_TYPE(e, u));
    acc_node *args[3] = {f, z, xs};
    return array_node(g, IR_FOLD, e, xs->type->rank - 1, 3, args);
}

acc_node *acc_fold1(acc_graph *g, acc_node *f, acc_node *xs)
{
    static const char op[] = "fold1";
    if (!gr_begin(g, op))
        return NULL;
    const acc_type *e = check_reduction(g, op, f, xs);
    if (!e)
        return NULL;
    acc_node *args[2] = {f, xs};
    return array_node(g, IR_FOLD1, e, xs->type->rank - 1, 2, args);
}
