/*
 * eval_struct.c — replicate and slice (LANGUAGE.md §3.1) in the reference
 * interpreter.  Both copy elements of their source: an element of the
 * result reads the source at an index made of some components of the
 * result's index (the All dimensions) and, for slice, fixed components.
 * A specification entry is All when its type is the unit type, whatever
 * node (All itself, or a let around it) stands there.
 */
#include "core/backend/interp/interp_state.h"

static int is_all(const ir_node *entry)
{
    return entry->type->kind == ACC_TYPE_TUPLE && entry->type->arity == 0;
}

/* Reads the integer entries of spec[0..n-1] into values (All entries are
 * left untouched). */
static int read_spec(interp *st, acc_node *const *spec, uint32_t n,
                     int64_t *values)
{
    for (uint32_t i = 0; i < n; i++) {
        if (is_all(spec[i]))
            continue;
        const ir_value *v = interp_eval(st, spec[i]);
        if (!v)
            return 0;
        values[i] = v->i;
    }
    return 1;
}

/* A new array of extents ext (the node's rank) whose element at ix is xs
 * at src, where src[d] = ix[from[d]] when from[d] >= 0, else fixed[d]. */
static rt_array *copy_indexed(interp *st, const ir_node *n, const rt_array *xs,
                              const int64_t *ext, const int *from,
                              const int64_t *fixed)
{
    int64_t ix[ACC_MAX_RANK], src[ACC_MAX_RANK];
    ir_value elem[ACC_MAX_COMPONENTS];
    int32_t rank = n->type->rank;
    rt_array *r = rt_alloc(n->type->elem, rank, ext, ir_op_name(n->op), st->d);
    for (int64_t k = 0; r && k < r->size; k++) {
        rt_unravel(rank, ext, k, ix);
        for (int32_t d = 0; d < xs->rank; d++)
            src[d] = from[d] >= 0 ? ix[from[d]] : fixed[d];
        interp_load_element(xs, rt_ravel(xs->rank, xs->extents, src), elem);
        interp_store_element(r, k, elem);
    }
    return r;
}

rt_array *interp_eval_replicate(interp *st, const ir_node *n)
{
    uint32_t m = n->n_args - 1;
    int64_t ext[ACC_MAX_RANK];
    int from[ACC_MAX_RANK];
    rt_array *xs = interp_array_of(st, n->args[m]);
    if (!xs || !read_spec(st, n->args, m, ext))
        return NULL;
    int32_t d = 0;
    for (uint32_t i = 0; i < m; i++) {
        if (is_all(n->args[i])) {
            from[d] = (int)i;
            ext[i] = xs->extents[d++];
        } else if (ext[i] < 0) {
            diag_fail(st->d, ACC_ERR_SHAPE, "replicate: specification entry "
                      "%u is %lld; a new dimension's extent must not be "
                      "negative", (unsigned)i, (long long)ext[i]);
            return NULL;
        }
    }
    if (!interp_check_size(st, "replicate", n->type->rank, ext))
        return NULL;
    return copy_indexed(st, n, xs, ext, from, NULL);
}

rt_array *interp_eval_slice(interp *st, const ir_node *n)
{
    char sh[160];
    uint32_t m = n->n_args - 1;
    int64_t fixed[ACC_MAX_RANK], ext[ACC_MAX_RANK];
    int from[ACC_MAX_RANK];
    rt_array *xs = interp_array_of(st, n->args[0]);
    if (!xs || !read_spec(st, n->args + 1, m, fixed))
        return NULL;
    int r = 0;
    for (uint32_t d = 0; d < m; d++) {
        from[d] = is_all(n->args[d + 1]) ? r : -1;
        if (from[d] >= 0) {
            ext[r++] = xs->extents[d];
        } else if (fixed[d] < 0 || fixed[d] >= xs->extents[d]) {
            diag_fail(st->d, ACC_ERR_RUNTIME, "slice: index %lld in dimension "
                      "%u is out of range for an array of shape %s",
                      (long long)fixed[d], (unsigned)d,
                      rt_format_shape(xs->rank, xs->extents, sh, sizeof sh));
            return NULL;
        }
    }
    return copy_indexed(st, n, xs, ext, from, fixed);
}
