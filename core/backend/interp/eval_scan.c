/*
 * eval_scan.c — the scans of LANGUAGE.md §3.3, plain and segmented, in the
 * reference interpreter.
 *
 * Every scan is computed sequentially, exactly as defined: left scans from
 * the first element to the last with f acc x, right scans from the last to
 * the first with f x acc.  A right scan is the mirror of its left
 * counterpart: it reads its segment backwards, applies f with swapped
 * arguments and writes its output window backwards, so one routine serves
 * both directions.  A plain scan is a segmented scan with one segment
 * spanning the row.
 */
#include "core/backend/interp/interp_state.h"

#include "core/ir/scan_kind.h"

#include <stdlib.h>
#include <string.h>

typedef struct scan_job {
    interp *st;
    const ir_node *f;
    const char *op;
    const rt_array *xs;
    rt_array *out, *totals;
    int left, seeded, segmented;
    ir_scan_form form;
    size_t k; /* leaves of the element type */
    ir_value z[ACC_MAX_COMPONENTS];
} scan_job;

/* One segment: elements [in_lo, in_lo + m) of xs, output window
 * [out_lo, out_lo + width) of out, `done` outputs written so far. */
typedef struct scan_seg {
    int64_t in_lo, m, out_lo, width, done;
} scan_seg;

/* f in the scan's direction into out: f a b for left scans, f b a for
 * right ones (a is the accumulator or the seed). */
static int combine(scan_job *j, const ir_value *a, const ir_value *b,
                   ir_value *out)
{
    const ir_value *args[2] = {j->left ? a : b, j->left ? b : a};
    const ir_value *v = interp_apply(j->st, j->f, args);
    if (v)
        memcpy(out, v, j->k * sizeof *out);
    return v != NULL;
}

/* The i-th element of the segment in scan order. */
static void load(const scan_job *j, const scan_seg *s, int64_t i,
                 ir_value *x)
{
    interp_load_element(j->xs, s->in_lo + (j->left ? i : s->m - 1 - i), x);
}

/* Writes the next output of the segment in scan order. */
static void emit(const scan_job *j, scan_seg *s, const ir_value *v)
{
    int64_t p = s->done++;
    interp_store_element(j->out, s->out_lo + (j->left ? p : s->width - 1 - p),
                         v);
}

/* scan, scan' and prescan: the seed, then each running value before the
 * next element; scan adds the last running value, scan' stores it as the
 * segment's total at total_at. */
static int scan_seeded(scan_job *j, scan_seg *s, int64_t total_at)
{
    ir_value acc[ACC_MAX_COMPONENTS], x[ACC_MAX_COMPONENTS];
    memcpy(acc, j->z, j->k * sizeof *acc);
    for (int64_t i = 0; i < s->m; i++) {
        emit(j, s, acc);
        load(j, s, i, x);
        if (!combine(j, acc, x, acc))
            return 0;
    }
    if (j->form == IR_SCAN_FULL)
        emit(j, s, acc);
    if (j->form == IR_SCAN_PRIMED)
        interp_store_element(j->totals, total_at, acc);
    return 1;
}

/* scan1 (inclusive) and postscan (f z applied to each inclusive value,
 * z on the side the seed of the matching scan is on). */
static int scan_unseeded(scan_job *j, scan_seg *s)
{
    ir_value acc[ACC_MAX_COMPONENTS], x[ACC_MAX_COMPONENTS],
        y[ACC_MAX_COMPONENTS];
    for (int64_t i = 0; i < s->m; i++) {
        load(j, s, i, x);
        if (i == 0)
            memcpy(acc, x, j->k * sizeof *acc);
        else if (!combine(j, acc, x, acc))
            return 0;
        if (j->form == IR_SCAN_POST && !combine(j, j->z, acc, y))
            return 0;
        emit(j, s, j->form == IR_SCAN_POST ? y : acc);
    }
    return 1;
}

/* Scans every segment of every row; off[0..k] are the segment offsets,
 * out_len the length of an output row. */
static int scan_rows(scan_job *j, const int64_t *off, int64_t k,
                     int64_t out_len, int64_t rows)
{
    int64_t inner = j->xs->extents[j->xs->rank - 1];
    int full = j->form == IR_SCAN_FULL;
    for (int64_t row = 0; row < rows; row++) {
        for (int64_t s = 0; s < k; s++) {
            int64_t m = off[s + 1] - off[s];
            scan_seg seg = {row * inner + off[s], m,
                            row * out_len + off[s] + (full ? s : 0),
                            m + full, 0};
            int ok = j->form == IR_SCAN_INCLUSIVE || j->form == IR_SCAN_POST
                         ? scan_unseeded(j, &seg)
                         : scan_seeded(j, &seg, row * k + s);
            if (!ok)
                return 0;
        }
    }
    return 1;
}

/* A plain scan1 of an empty row has no value to start from. */
static int check_nonempty(scan_job *j, int64_t inner, int64_t rows)
{
    if (inner > 0 || rows == 0 || j->form != IR_SCAN_INCLUSIVE)
        return 1;
    diag_fail(j->st->d, ACC_ERR_RUNTIME, "%s: the innermost dimension of the "
              "array is empty; %s needs at least one element per row", j->op,
              j->op);
    return 0;
}

/* Allocates out[0] (and the totals out[1]) for rows of out_len elements and
 * k segments. */
static int alloc_results(scan_job *j, const ir_node *n, int64_t out_len,
                         int64_t k, rt_array **out)
{
    const acc_type *t = n->type;
    int primed = j->form == IR_SCAN_PRIMED;
    int64_t ext[ACC_MAX_RANK];
    int32_t outer = j->xs->rank - 1;
    memcpy(ext, j->xs->extents, (size_t)outer * sizeof *ext);
    ext[outer] = out_len;
    const acc_type *t0 = primed ? t->array_leaves[0] : t;
    out[0] = j->out = rt_alloc(t0->elem, t0->rank, ext, j->op, j->st->d);
    if (!out[0] || !primed)
        return out[0] != NULL;
    ext[outer] = k; /* used only by the segmented form (rank r totals) */
    const acc_type *t1 = t->array_leaves[1];
    out[1] = j->totals = rt_alloc(t1->elem, t1->rank, ext, j->op, j->st->d);
    return out[1] != NULL;
}

/* The extents of the scanned array: an embedded producer's (generate)
 * from its shape alone, so that a result too large is refused before the
 * producer is computed; any other array's once it is evaluated. */
static int source_extents(interp *st, const ir_node *xs, const char *op,
                          int64_t *ext)
{
    if (xs->op == IR_GENERATE)
        return interp_eval_extents(st, xs->args[0], op, ext);
    rt_array *a = interp_array_raw(st, xs);
    if (a)
        memcpy(ext, a->extents, sizeof a->extents);
    return a != NULL;
}

/* The length of a result row: the elements of its k segments, plus one
 * seed per segment for scanl/scanr; -1 after ACC_ERR_SHAPE when that, or
 * (segmented) the number of (row, segment) pairs, is beyond int64. */
static int64_t result_length(scan_job *j, const int64_t *off, int64_t k,
                             int64_t rows)
{
    int64_t seeds = j->form == IR_SCAN_FULL ? k : 0;
    if (off[k] > INT64_MAX - seeds) {
        diag_fail(j->st->d, ACC_ERR_SHAPE, "%s: a result row would hold "
                  "%lld elements and %lld seed%s: more than %lld", j->op,
                  (long long)off[k], (long long)seeds, seeds == 1 ? "" : "s",
                  (long long)INT64_MAX);
        return -1;
    }
    if (j->segmented && rows > 0 && k >= INT64_MAX / rows) {
        diag_fail(j->st->d, ACC_ERR_SHAPE, "%s: %lld rows of %lld segments "
                  "each: more segments than int64 counts", j->op,
                  (long long)rows, (long long)k);
        return -1;
    }
    return off[k] + seeds;
}

/* Sizes first (the source's extents, the segments, the result's length:
 * checked before anything is computed from them), then the source, the
 * seed, the results. */
static int run_scan(scan_job *j, const ir_node *n, const ir_node *xs_node,
                    const ir_node *seg_node, rt_array **out)
{
    int64_t ext[ACC_MAX_RANK], k = 1;
    int32_t outer = xs_node->type->rank - 1;
    if (!source_extents(j->st, xs_node, j->op, ext))
        return 0;
    int64_t inner = ext[outer], plain[2] = {0, inner};
    int64_t rows = rt_shape_size(outer, ext);
    rt_array *seg = seg_node ? interp_array_of(j->st, seg_node) : NULL;
    if (seg_node && !seg)
        return 0;
    int64_t *off = seg ? interp_read_segments(j->st, j->op, seg, 0, inner, &k)
                       : plain;
    if (!off)
        return 0;
    int64_t out_len = result_length(j, off, k, rows);
    int ok = out_len >= 0 && (j->xs = interp_array_of(j->st, xs_node)) &&
             (seg || check_nonempty(j, inner, rows));
    if (ok && j->seeded) {
        const ir_value *z = interp_eval(j->st, n->args[1]);
        if ((ok = z != NULL))
            memcpy(j->z, z, j->k * sizeof *j->z);
    }
    ok = ok && alloc_results(j, n, out_len, k, out) &&
         scan_rows(j, off, k, out_len, rows);
    if (seg)
        free(off);
    return ok;
}

int interp_eval_scan(interp *st, const ir_node *n, rt_array **out)
{
    acc_scan_kind kind = n->u.scan.kind;
    int segmented = n->op == IR_SCAN_SEG;
    uint32_t at = ir_scan_seeded(kind) ? 2 : 1;
    scan_job j = {.st = st, .f = n->args[0],
                  .op = ir_scan_name(kind, segmented),
                  .left = ir_scan_left(kind), .form = ir_scan_form_of(kind),
                  .seeded = at == 2, .segmented = segmented,
                  .k = n->args[at]->type->elem->n_leaves};
    return run_scan(&j, n, n->args[at], segmented ? n->args[at + 1] : NULL,
                    out);
}
