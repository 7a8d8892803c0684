/*
 * eval_permute.c — forward permutation in the reference interpreter: the
 * ignore index, permute and permute' (LANGUAGE.md §3.4).
 *
 * The ignore target index is an index whose every component is INT64_MIN
 * (INTERP_IGNORE); no real index of a non-empty array can look like that.
 * Source elements are combined into a copy of the defaults in row-major
 * order of the source, as f new old.
 */
#include "core/backend/interp/interp_state.h"

#include <string.h>

const ir_value *interp_eval_ignore(interp *st, const ir_node *n)
{
    ir_value *out = interp_slot(st, n);
    for (int32_t d = 0; d < n->type->rank; d++)
        out[d].i = INTERP_IGNORE;
    return out;
}

static int is_ignore(int32_t rank, const int64_t *ix)
{
    int all = rank > 0;
    for (int32_t d = 0; d < rank; d++)
        all &= ix[d] == INTERP_IGNORE;
    return all;
}

/* A fresh array holding a copy of the defaults. */
static rt_array *copy_defaults(interp *st, const ir_node *n,
                               const rt_array *defaults)
{
    rt_array *r = rt_alloc(n->type->elem, defaults->rank, defaults->extents,
                           ir_op_name(n->op), st->d);
    for (size_t i = 0; r && i < r->elem->n_leaves; i++)
        memcpy(r->data[i], defaults->data[i],
               (size_t)r->size * acc_scalar_size(r->elem->leaves[i]));
    return r;
}

static void out_of_range(interp *st, const ir_node *n, const rt_array *xs,
                         int64_t k, const rt_array *r, const int64_t *target)
{
    char src[160], tgt[160], sh[160];
    int64_t ix[ACC_MAX_RANK];
    rt_unravel(xs->rank, xs->extents, k, ix);
    diag_fail(st->d, ACC_ERR_RUNTIME, "%s: source element %s has target index "
              "%s, which is out of bounds for the target shape %s (and is not "
              "ignore)", ir_op_name(n->op),
              rt_format_shape(xs->rank, ix, src, sizeof src),
              rt_format_shape(r->rank, target, tgt, sizeof tgt),
              rt_format_shape(r->rank, r->extents, sh, sizeof sh));
}

/* The target of source element k (loaded into elem): from the index
 * function for permute, from the pair for permute'.  Returns the position
 * of the value's leaves in elem, or -1 after an error. */
static int target_of(interp *st, const ir_node *n, const rt_array *xs,
                     int64_t k, const ir_value *elem, int64_t *target)
{
    int32_t rank = n->type->rank;
    if (n->op == IR_PERMUTE_PAIRS) {
        for (int32_t d = 0; d < rank; d++)
            target[d] = elem[d].i;
        return (int)rank;
    }
    int64_t ix[ACC_MAX_RANK];
    ir_value ixv[ACC_MAX_RANK];
    rt_unravel(xs->rank, xs->extents, k, ix);
    for (int32_t d = 0; d < xs->rank; d++)
        ixv[d].i = ix[d];
    const ir_value *args[1] = {ixv};
    const ir_value *t = interp_apply(st, n->args[2], args);
    if (!t)
        return -1;
    for (int32_t d = 0; d < rank; d++)
        target[d] = t[d].i;
    return 0;
}

/* Combines source element k into r; 0 after an error. */
static int combine_one(interp *st, const ir_node *n, const rt_array *xs,
                       int64_t k, rt_array *r)
{
    ir_value elem[ACC_MAX_COMPONENTS], old[ACC_MAX_COMPONENTS];
    int64_t target[ACC_MAX_RANK];
    interp_load_element(xs, k, elem);
    int at = target_of(st, n, xs, k, elem, target);
    if (at < 0)
        return 0;
    if (is_ignore(r->rank, target))
        return 1;
    for (int32_t d = 0; d < r->rank; d++)
        if (target[d] < 0 || target[d] >= r->extents[d]) {
            out_of_range(st, n, xs, k, r, target);
            return 0;
        }
    int64_t pos = rt_ravel(r->rank, r->extents, target);
    interp_load_element(r, pos, old);
    const ir_value *args[2] = {elem + at, old};
    const ir_value *v = interp_apply(st, n->args[0], args);
    if (!v)
        return 0;
    interp_store_element(r, pos, v);
    return 1;
}

rt_array *interp_eval_permute(interp *st, const ir_node *n)
{
    int pairs = n->op == IR_PERMUTE_PAIRS;
    rt_array *defaults = interp_array_of(st, n->args[1]);
    rt_array *xs = defaults ? interp_array_of(st, n->args[pairs ? 2 : 3])
                            : NULL;
    if (!xs)
        return NULL;
    rt_array *r = copy_defaults(st, n, defaults);
    for (int64_t k = 0; r && k < xs->size; k++)
        if (!combine_one(st, n, xs, k, r)) {
            rt_release(r);
            return NULL;
        }
    return r;
}
