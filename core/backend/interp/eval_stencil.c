/*
 * eval_stencil.c — stencil and stencil2 in the reference interpreter
 * (LANGUAGE.md §3.5).
 *
 * Every element is computed the same way, with bounds checks: the
 * neighbourhood is gathered position by position (row-major over the
 * window, which is the leaf order of the nested tuple), and a position
 * outside the array is resolved by the boundary.  Clamp, mirror and wrap
 * map each out-of-range coordinate independently; mirror and wrap are
 * periodic, so a window wider than the extent reads what applying the
 * rule repeatedly would (mirror on an extent of 1 always reads 0).
 * Function and constant replace the whole element.  The interior/border
 * split is an optimisation left to the compiling backends.
 */
#include "core/backend/interp/interp_state.h"

#include <string.h>

/* One array of a stencil with its boundary and the neighbourhood buffer
 * (at most TY_MAX_LEAVES values: the builder bounds the tuple). */
typedef struct stencil_src {
    rt_array *xs; /* borrowed from the memo of the argument */
    int64_t widths[3];
    int64_t window; /* product of the widths */
    acc_boundary boundary;
    const ir_node *barg; /* FUNCTION: the lambda */
    ir_value constant[ACC_MAX_COMPONENTS];
    ir_value nb[TY_MAX_LEAVES];
} stencil_src;

static int64_t mirror_coord(int64_t i, int64_t n)
{
    if (n == 1)
        return 0;
    /* one reflection (2n - 2 - i written so that it cannot overflow: n may
     * be near 2^63 in stencil2); the period only serves windows that reach
     * further than that, past extents below 5 */
    if (i < 0 && i > -n)
        return -i;
    if (i >= n && i - n < n - 1)
        return n - 2 - (i - n);
    int64_t period = 2 * n - 2, m = i % period;
    if (m < 0)
        m += period;
    return m < n ? m : period - m;
}

/* The in-range coordinate that an out-of-range i reads (clamp, mirror,
 * wrap) in a dimension of extent n >= 1. */
static int64_t fix_coord(acc_boundary b, int64_t i, int64_t n)
{
    if (i >= 0 && i < n)
        return i;
    if (b == ACC_BOUNDARY_CLAMP)
        return i < 0 ? 0 : n - 1;
    if (b == ACC_BOUNDARY_WRAP) {
        int64_t m = i % n;
        return m < 0 ? m + n : m;
    }
    return mirror_coord(i, n);
}

/* Element at index ix of the source, resolving the boundary; 0 after an
 * error. */
static int read_element(interp *st, const stencil_src *s, const int64_t *ix,
                        ir_value *out)
{
    const rt_array *xs = s->xs;
    size_t k = xs->elem->n_leaves;
    int inside = 1;
    for (int32_t d = 0; d < xs->rank; d++)
        inside &= ix[d] >= 0 && ix[d] < xs->extents[d];
    if (!inside && s->boundary == ACC_BOUNDARY_CONSTANT) {
        memcpy(out, s->constant, k * sizeof *out);
        return 1;
    }
    if (!inside && s->boundary == ACC_BOUNDARY_FUNCTION) {
        ir_value ixv[3];
        for (int32_t d = 0; d < xs->rank; d++)
            ixv[d].i = ix[d];
        const ir_value *args[1] = {ixv};
        const ir_value *v = interp_apply(st, s->barg, args);
        if (v)
            memcpy(out, v, k * sizeof *out);
        return v != NULL;
    }
    int64_t at[3];
    for (int32_t d = 0; d < xs->rank; d++)
        at[d] = fix_coord(s->boundary, ix[d], xs->extents[d]);
    interp_load_element(xs, rt_ravel(xs->rank, xs->extents, at), out);
    return 1;
}

/* Gathers the neighbourhood of the element at ix into s->nb. */
static int gather(interp *st, stencil_src *s, const int64_t *ix)
{
    int32_t rank = s->xs->rank;
    size_t k = s->xs->elem->n_leaves;
    int64_t off[3], src[3];
    for (int64_t w = 0; w < s->window; w++) {
        rt_unravel(rank, s->widths, w, off);
        for (int32_t d = 0; d < rank; d++)
            src[d] = ix[d] + off[d] - s->widths[d] / 2;
        if (!read_element(st, s, src, s->nb + (size_t)w * k))
            return 0;
    }
    return 1;
}

static int has_barg(acc_boundary b)
{
    return b == ACC_BOUNDARY_FUNCTION || b == ACC_BOUNDARY_CONSTANT;
}

/* Prepares side i of n; *barg_at is the next boundary argument. */
static int setup_side(interp *st, const ir_node *n, int i, uint32_t *barg_at,
                      stencil_src *s)
{
    if (!(s->xs = interp_array_of(st, n->args[1 + i])))
        return 0;
    s->boundary = n->u.stencil.boundary[i];
    s->window = 1;
    for (int32_t d = 0; d < s->xs->rank; d++) {
        s->widths[d] = n->u.stencil.widths[i][d];
        s->window *= s->widths[d];
    }
    s->barg = has_barg(s->boundary) ? n->args[(*barg_at)++] : NULL;
    if (s->boundary != ACC_BOUNDARY_CONSTANT)
        return 1;
    const ir_value *c = interp_eval(st, s->barg);
    if (c)
        memcpy(s->constant, c, s->xs->elem->n_leaves * sizeof *c);
    return c != NULL;
}

static rt_array *run_stencil(interp *st, const ir_node *n, stencil_src *s,
                             int m)
{
    int64_t ext[3], ix[3];
    int32_t rank = n->type->rank;
    for (int32_t d = 0; d < rank; d++) {
        ext[d] = s[0].xs->extents[d];
        if (m == 2 && s[1].xs->extents[d] < ext[d])
            ext[d] = s[1].xs->extents[d];
    }
    rt_array *r = rt_alloc(n->type->elem, rank, ext, ir_op_name(n->op), st->d);
    for (int64_t k = 0; r && k < r->size; k++) {
        rt_unravel(rank, ext, k, ix);
        const ir_value *v = NULL;
        if (gather(st, &s[0], ix) && (m == 1 || gather(st, &s[1], ix))) {
            const ir_value *args[2] = {s[0].nb, s[1].nb};
            v = interp_apply(st, n->args[0], args);
        }
        if (!v) {
            rt_release(r);
            return NULL;
        }
        interp_store_element(r, k, v);
    }
    return r;
}

rt_array *interp_eval_stencil(interp *st, const ir_node *n)
{
    int m = n->op == IR_STENCIL2 ? 2 : 1;
    uint32_t barg_at = 1 + (uint32_t)m;
    stencil_src s[2];
    for (int i = 0; i < m; i++)
        if (!setup_side(st, n, i, &barg_at, &s[i]))
            return NULL;
    return run_stencil(st, n, s, m);
}
