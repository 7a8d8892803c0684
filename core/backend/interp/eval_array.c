/*
 * eval_array.c — evaluation of array terms in the reference interpreter,
 * and the entry point interp_run.  Every operation is a direct, sequential
 * reading of its definition in LANGUAGE.md.
 */
#include "core/backend/interp/interp_state.h"
#include "core/backend/host_memory.h"

#include "core/base/mem.h"
#include "core/ir/value.h"

#include <stdlib.h>
#include <string.h>

int interp_check_size(interp *st, const char *op, int32_t rank,
                      const int64_t *extents)
{
    char sh[160];
    if (rt_shape_size(rank, extents) >= 0)
        return 1;
    diag_fail(st->d, ACC_ERR_SHAPE, "%s: the shape %s is too large: the "
              "product of its extents is beyond int64 (%lld)", op,
              rt_format_shape(rank, extents, sh, sizeof sh),
              (long long)INT64_MAX);
    return 0;
}

int interp_eval_extents(interp *st, const ir_node *shape, const char *op,
                        int64_t *extents)
{
    const ir_value *v = interp_eval(st, shape);
    if (!v)
        return 0;
    for (int32_t d = 0; d < shape->type->rank; d++) {
        extents[d] = v[d].i;
        if (extents[d] < 0) {
            diag_fail(st->d, ACC_ERR_SHAPE, "%s: extent %d of the shape is "
                      "%lld; extents must not be negative", op, (int)d,
                      (long long)extents[d]);
            return 0;
        }
    }
    return interp_check_size(st, op, shape->type->rank, extents);
}

/* An index as a value of shape type, for passing to a function. */
static void index_value(int32_t rank, const int64_t *ix, ir_value *out)
{
    for (int32_t d = 0; d < rank; d++)
        out[d].i = ix[d];
}

static rt_array *new_result(interp *st, const ir_node *n,
                            const int64_t *extents)
{
    return rt_alloc(n->type->elem, n->type->rank, extents, ir_op_name(n->op),
                    st->d);
}

static rt_array *eval_generate(interp *st, const ir_node *n)
{
    int64_t ext[ACC_MAX_RANK], ix[ACC_MAX_RANK];
    ir_value ixv[ACC_MAX_RANK];
    const ir_node *f = n->args[1];
    if (!interp_eval_extents(st, n->args[0], ir_origin_name(n), ext))
        return NULL;
    rt_array *r = new_result(st, n, ext);
    for (int64_t k = 0; r && k < r->size; k++) {
        rt_unravel(r->rank, ext, k, ix);
        index_value(r->rank, ix, ixv);
        const ir_value *args[1] = {ixv};
        const ir_value *v = interp_apply(st, f, args);
        if (!v) {
            rt_release(r);
            return NULL;
        }
        interp_store_element(r, k, v);
    }
    return r;
}

/* map and zipWith: f applied to the elements at each index of the
 * intersection of the arguments' extents. */
static rt_array *eval_zipwith(interp *st, const ir_node *n)
{
    const ir_node *f = n->args[0];
    uint32_t m = n->n_args - 1;
    rt_array *in[64];
    int64_t ext[ACC_MAX_RANK], ix[ACC_MAX_RANK];
    for (uint32_t i = 0; i < m; i++)
        if (!(in[i] = interp_array_of(st, n->args[i + 1])))
            return NULL;
    int32_t rank = in[0]->rank;
    for (int32_t d = 0; d < rank; d++) {
        ext[d] = in[0]->extents[d];
        for (uint32_t i = 1; i < m; i++)
            if (in[i]->extents[d] < ext[d])
                ext[d] = in[i]->extents[d];
    }
    size_t total = 0;
    for (uint32_t i = 0; i < m; i++)
        total += in[i]->elem->n_leaves;
    ir_value *buf = mem_alloc((total ? total : 1) * sizeof *buf);
    rt_array *r = buf ? new_result(st, n, ext) : NULL;
    if (!buf)
        diag_oom(st->d, ir_op_name(n->op));
    const ir_value *args[64];
    for (int64_t k = 0; r && k < r->size; k++) {
        rt_unravel(rank, ext, k, ix);
        size_t at = 0;
        for (uint32_t i = 0; i < m; i++) {
            interp_load_element(in[i], rt_ravel(rank, in[i]->extents, ix), buf + at);
            args[i] = buf + at;
            at += in[i]->elem->n_leaves;
        }
        const ir_value *v = interp_apply(st, f, args);
        if (!v) {
            rt_release(r);
            r = NULL;
            break;
        }
        interp_store_element(r, k, v);
    }
    free(buf);
    return r;
}

static rt_array *eval_backpermute(interp *st, const ir_node *n)
{
    char ix_text[160], sh_text[160];
    int64_t ext[ACC_MAX_RANK], ix[ACC_MAX_RANK], src[ACC_MAX_RANK];
    ir_value ixv[ACC_MAX_RANK], elem[ACC_MAX_COMPONENTS];
    const ir_node *p = n->args[1];
    rt_array *xs = interp_array_of(st, n->args[2]);
    if (!xs || !interp_eval_extents(st, n->args[0], "backpermute", ext))
        return NULL;
    rt_array *r = new_result(st, n, ext);
    for (int64_t k = 0; r && k < r->size; k++) {
        rt_unravel(r->rank, ext, k, ix);
        index_value(r->rank, ix, ixv);
        const ir_value *args[1] = {ixv};
        const ir_value *v = interp_apply(st, p, args);
        int in_range = v != NULL;
        for (int32_t d = 0; v && d < xs->rank; d++) {
            src[d] = v[d].i;
            in_range &= src[d] >= 0 && src[d] < xs->extents[d];
        }
        if (v && !in_range)
            diag_fail(st->d, ACC_ERR_RUNTIME, "backpermute: the index function "
                      "maps %s to %s, which is out of bounds for the source "
                      "shape %s",
                      rt_format_shape(r->rank, ix, sh_text, sizeof sh_text),
                      rt_format_shape(xs->rank, src, ix_text, sizeof ix_text),
                      rt_format_shape(xs->rank, xs->extents, sh_text,
                                      sizeof sh_text));
        if (!in_range) {
            rt_release(r);
            return NULL;
        }
        interp_load_element(xs, rt_ravel(xs->rank, xs->extents, src), elem);
        interp_store_element(r, k, elem);
    }
    return r;
}

static rt_array *eval_reshape(interp *st, const ir_node *n)
{
    char from[160], to[160];
    int64_t ext[ACC_MAX_RANK];
    rt_array *xs = interp_array_of(st, n->args[1]);
    if (!xs || !interp_eval_extents(st, n->args[0], "reshape", ext))
        return NULL;
    int32_t rank = n->type->rank;
    if (rt_shape_size(rank, ext) != xs->size) {
        diag_fail(st->d, ACC_ERR_SHAPE, "reshape: cannot reshape an array of "
                  "shape %s (%lld elements) to shape %s",
                  rt_format_shape(xs->rank, xs->extents, from, sizeof from),
                  (long long)xs->size,
                  rt_format_shape(rank, ext, to, sizeof to));
        return NULL;
    }
    rt_array *r = new_result(st, n, ext);
    for (size_t i = 0; r && r->size > 0 && i < r->elem->n_leaves; i++)
        memcpy(r->data[i], xs->data[i],
               (size_t)r->size * acc_scalar_size(r->elem->leaves[i]));
    return r;
}

/* The contract of fold grants associativity, and the balanced tree keeps
 * rounding error growth logarithmic (a long f32 sum stays accurate). */
int interp_reduce_range(interp *st, const ir_node *f, const rt_array *xs,
                        int64_t lo, int64_t hi, ir_value *acc)
{
    size_t k = xs->elem->n_leaves;
    ir_value right[ACC_MAX_COMPONENTS];
    if (hi - lo <= 16) {
        interp_load_element(xs, lo, acc);
        for (int64_t j = lo + 1; j < hi; j++) {
            interp_load_element(xs, j, right);
            const ir_value *args[2] = {acc, right};
            const ir_value *v = interp_apply(st, f, args);
            if (!v)
                return 0;
            memcpy(acc, v, k * sizeof *acc);
        }
        return 1;
    }
    int64_t mid = lo + (hi - lo) / 2;
    if (!interp_reduce_range(st, f, xs, lo, mid, acc) ||
        !interp_reduce_range(st, f, xs, mid, hi, right))
        return 0;
    const ir_value *args[2] = {acc, right};
    const ir_value *v = interp_apply(st, f, args);
    if (!v)
        return 0;
    memcpy(acc, v, k * sizeof *acc);
    return 1;
}

static void fold1_empty_row(interp *st, const rt_array *r, int64_t row)
{
    char row_text[160];
    int64_t ix[ACC_MAX_RANK];
    rt_unravel(r->rank, r->extents, row, ix);
    diag_fail(st->d, ACC_ERR_RUNTIME, "fold1: row %s of the array is empty; "
              "fold1 needs at least one element per row",
              rt_format_shape(r->rank, ix, row_text, sizeof row_text));
}

/* fold f z: z combined once, first, with the reduction of each row (an
 * empty row gives z); fold1: the reduction of each non-empty row. */
static rt_array *eval_fold(interp *st, const ir_node *n)
{
    int seeded = n->op == IR_FOLD;
    const ir_node *f = n->args[0];
    rt_array *xs = interp_array_of(st, n->args[seeded ? 2 : 1]);
    const ir_value *z = xs && seeded ? interp_eval(st, n->args[1]) : NULL;
    if (!xs || (seeded && !z))
        return NULL;
    size_t k = xs->elem->n_leaves;
    ir_value seed[ACC_MAX_COMPONENTS], acc[ACC_MAX_COMPONENTS];
    if (seeded)
        memcpy(seed, z, k * sizeof *seed);
    int64_t inner = xs->extents[xs->rank - 1];
    rt_array *r = new_result(st, n, xs->extents);
    for (int64_t row = 0; r && row < r->size; row++) {
        const ir_value *v = acc;
        if (inner == 0 && !seeded) {
            fold1_empty_row(st, r, row);
            v = NULL;
        } else if (inner == 0) {
            v = seed;
        } else if (!interp_reduce_range(st, f, xs, row * inner,
                                        (row + 1) * inner, acc)) {
            v = NULL;
        } else if (seeded) {
            const ir_value *args[2] = {seed, acc};
            v = interp_apply(st, f, args);
        }
        if (!v) {
            rt_release(r);
            return NULL;
        }
        interp_store_element(r, row, v);
    }
    return r;
}

static rt_array *eval_unit(interp *st, const ir_node *n)
{
    static const int64_t no_extents[1] = {0};
    const ir_value *v = interp_eval(st, n->args[0]);
    rt_array *r = v ? new_result(st, n, no_extents) : NULL;
    if (r)
        interp_store_element(r, 0, v);
    return r;
}

static rt_array *eval_single(interp *st, const ir_node *n)
{
    switch (n->op) {
    case IR_UNIT: return eval_unit(st, n);
    case IR_GENERATE: return eval_generate(st, n);
    case IR_MAP:
    case IR_ZIPWITH: return eval_zipwith(st, n);
    case IR_BACKPERMUTE: return eval_backpermute(st, n);
    case IR_RESHAPE: return eval_reshape(st, n);
    case IR_FOLD:
    case IR_FOLD1: return eval_fold(st, n);
    case IR_REPLICATE: return interp_eval_replicate(st, n);
    case IR_SLICE: return interp_eval_slice(st, n);
    case IR_FOLD_SEG: return interp_eval_fold_seg(st, n);
    case IR_PERMUTE:
    case IR_PERMUTE_PAIRS: return interp_eval_permute(st, n);
    case IR_STENCIL:
    case IR_STENCIL2: return interp_eval_stencil(st, n);
    case IR_EXPAND: return interp_eval_expand(st, n);
    default: break;
    }
    diag_fail(st->d, ACC_ERR_INTERNAL, "interpreter: %s is not an array "
              "operation", ir_op_name(n->op));
    return NULL;
}

int interp_stopped(interp *st, const char *where)
{
    return st->stop && stop_fail(st->stop, st->d, where) != ACC_OK;
}

/* Tuples of arrays and their components share the component arrays. */
static int eval_structural(interp *st, const ir_node *n, rt_array **out)
{
    size_t at = 0;
    if (n->op == IR_GET) {
        const run_value *t = interp_eval_array(st, n->args[0]);
        if (!t)
            return 0;
        size_t from = n->args[0]->type->field_offset[n->u.field];
        for (size_t i = 0; i < n->type->n_leaves; i++)
            rt_retain(out[i] = t->arrays[from + i]);
        return 1;
    }
    for (uint32_t i = 0; i < n->n_args; i++) {
        const run_value *v = interp_eval_array(st, n->args[i]);
        if (!v)
            return 0;
        for (size_t j = 0; j < v->n; j++)
            rt_retain(out[at++] = v->arrays[j]);
    }
    return 1;
}

rt_array *interp_result(interp *st, const ir_node *n, const acc_type *elem,
                        int32_t rank, const int64_t *extents, const char *op)
{
    return hostmem_alloc(st->dests, n, elem, rank, extents, op, st->d);
}

/* Why a value is missing that this step may not compute: the step that
 * computes it has not run, or its value was released. */
static const run_value *missing(interp *st, const ir_node *n)
{
    diag_fail(st->d, ACC_ERR_INTERNAL, "run: the value of %s (node %u) is "
              "not available to the step computing %s (node %u): the "
              "schedule has not computed it, or released it too early",
              ir_op_name(n->op), n->id,
              st->current ? ir_op_name(st->current->op) : "nothing",
              st->current ? st->current->id : 0u);
    return NULL;
}

/* A poisoned value: the lazy step's error, reported at this read. */
static const run_value *poisoned(interp *st, const run_value *v)
{
    if (diag_ok(st->d))
        *st->d = *v->poison;
    return NULL;
}

static int compute(interp *st, const ir_node *n, rt_array **arrays)
{
    if (n->op == IR_TUPLE || n->op == IR_GET)
        return eval_structural(st, n, arrays);
    if (n->op == IR_SCAN || n->op == IR_SCAN_SEG)
        return interp_eval_scan(st, n, arrays); /* one or two arrays */
    if (n->op == IR_PARAM || n->op == IR_INPUT || n->op == IR_ACOND ||
        n->op == IR_AWHILE || n->op == IR_FOREIGN) {
        missing(st, n); /* bound or computed by the executor */
        return 0;
    }
    return (arrays[0] = eval_single(st, n)) != NULL;
}

const run_value *interp_eval_array(interp *st, const ir_node *n)
{
    /* lets and variables stand for another term: no value of their own */
    if (n->op == IR_LET)
        return interp_eval_array(st, n->args[1]);
    if (n->op == IR_VAR)
        return interp_eval_array(st, st->p->var_bound[n->u.let.var]);
    const run_value *slot = &st->values->v[n->id];
    if (slot->poison)
        return poisoned(st, slot);
    if (slot->n)
        return slot;
    if (st->values->is_step[n->id] && n != st->current)
        return missing(st, n);
    if (interp_stopped(st, ir_op_name(n->op)))
        return NULL;
    size_t count = n->type->n_leaves;
    rt_array **arrays = mem_calloc(count, sizeof *arrays);
    if (!arrays) {
        diag_oom(st->d, ir_op_name(n->op));
        return NULL;
    }
    int ok = compute(st, n, arrays);
    if (!ok)
        for (size_t i = 0; i < count; i++)
            rt_release(arrays[i]);
    ok = ok && values_set(st->values, n->id, arrays, count, st->d) == ACC_OK;
    free(arrays);
    return ok ? slot : NULL;
}

rt_array *interp_array_raw(interp *st, const ir_node *n)
{
    const run_value *v = interp_eval_array(st, n);
    return v ? v->arrays[0] : NULL;
}

rt_array *interp_array_of(interp *st, const ir_node *n)
{
    rt_array *a = interp_array_raw(st, n);
    return a && rt_host(a, st->d) ? a : NULL;
}

acc_status interp_value_of(interp *st, const ir_node *term, rt_array **out)
{
    const run_value *v = interp_eval_array(st, term);
    if (!v && diag_ok(st->d)) /* every failure records its error */
        diag_fail(st->d, ACC_ERR_INTERNAL, "interpreter: the value of %s "
                  "failed without an error", ir_op_name(term->op));
    for (size_t j = 0; v && j < v->n; j++)
        rt_retain(out[j] = v->arrays[j]);
    return st->d->status;
}

const ir_value *interp_scalar(interp *st, const ir_node *term)
{
    return interp_eval(st, term);
}
