/*
 * drive_scan.c — launching the scans' kernels (core/skeletons/cuda/
 * scan.cu.in): what plain and segmented scans share (the seed, the
 * arguments, the results and the step's outcome), and the plain scans'
 * launch.  The host evaluates the shape and the seed and refuses a
 * scanl1/scanr1 of empty rows to the interpreter (which names it).  A
 * scan's f need not be associative (scanl (-) is defined element after
 * element), so unless it is a commutative primitive (cg_kernel.
 * reassociable, the CPU's rule for its blocked scan) each row is scanned
 * in order by one thread: accel_scan_thread.  Otherwise either
 *
 *  - rows: accel_scan_rows, one warp per row (warps grid-stride over
 *    rows), when there are rows enough to fill the device with warps or
 *    they are too short to split; or
 *  - parts, for fewer long rows: P parts per row of at least
 *    CUDA_SCAN_PART_TILES tiles (a tile: a block's threads x ACC_ITEMS
 *    elements) and about four blocks per multiprocessor in all:
 *    accel_scan_part over a (P, rows) grid reduces each part into a
 *    partial, accel_scan_finish (a thread per row) turns each row's P
 *    partials, in order, into the running value before each part, and
 *    accel_scan_block over the (P, rows) grid scans each part from it.
 *    The partials are run memory, freed when the step ends.
 *
 * A launch happens only when a result has elements (scanl of empty rows
 * still writes each row's seed).  The error slot is read back once, after
 * the last kernel.  Segmented scans are launched by drive_scan_seg.c.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/host/host_eval.h"
#include "core/ir/scan_kind.h"

#include <string.h>

/* Parts of a long row are at least this many tiles. */
enum { CUDA_SCAN_PART_TILES = 4 };

/* ---- what plain and segmented scans share ------------------------------------- */

/* The name of step n in messages: the scan's, or the map's over it. */
static const char *scan_op(const ir_node *scan, const ir_node *n)
{
    return n == scan ? ir_scan_name(scan->u.scan.kind,
                                    scan->op == IR_SCAN_SEG)
                     : ir_op_name(n->op);
}

/* The results of step n, shaped as the interpreter's alloc_results
 * shapes them: s->a with rows of out_len elements and, for a primed scan,
 * the totals s->t (k per row), whose leaves follow a's in A.out. */
static acc_status scan_results(cuda_scan *s, interp *st, const ir_node *n,
                               const int64_t *ext, int64_t out_len,
                               int64_t k)
{
    int primed = ir_scan_form_of(s->scan->u.scan.kind) == IR_SCAN_PRIMED;
    const acc_type *t0 = primed ? n->type->array_leaves[0] : n->type;
    int32_t r = s->kn->k.src->type->rank;
    int64_t oext[ACC_MAX_RANK];
    memcpy(oext, ext, sizeof oext);
    oext[r - 1] = out_len;
    s->a = cuda_result(s->run, n, t0->elem, r, oext, scan_op(s->scan, n),
                       st->d);
    if (!s->a || !primed)
        return s->a ? ACC_OK : host_recorded(st->d);
    const acc_type *t1 = n->type->array_leaves[1];
    oext[r - 1] = k;
    s->t = cuda_result(s->run, n, t1->elem, t1->rank, oext,
                       scan_op(s->scan, n), st->d);
    for (size_t i = 0; s->t && i < t1->elem->n_leaves; i++)
        cuda_launch_set_out(&s->l, t0->elem->n_leaves + i, s->t->dev[i]);
    return s->t ? ACC_OK : host_recorded(st->d);
}

acc_status cuda_scan_begin(cuda_scan *s, cuda_run *run, const cuda_node *kn,
                           interp *st, const ir_node *n,
                           const host_source *src, int64_t out_len, int64_t k)
{
    memset(s, 0, sizeof *s);
    s->run = run;
    s->kn = kn;
    s->scan = kn->k.fold;
    s->src = src;
    const acc_type *elem = kn->k.src->type->elem;
    int primed = ir_scan_form_of(s->scan->u.scan.kind) == IR_SCAN_PRIMED;
    size_t outs = primed ? 2 * elem->n_leaves : n->type->elem->n_leaves;
    acc_status r = src->off
                       ? cuda_launch_bind_segments(run, &kn->k, st, outs,
                                                   elem->n_leaves, src->off,
                                                   k, &s->l)
                       : cuda_launch_bind(run, &kn->k, st, outs,
                                          elem->n_leaves, &s->l);
    if (r != ACC_OK ||
        (r = scan_results(s, st, n, src->ext, out_len, k)) != ACC_OK)
        return r;
    memcpy(s->l.A.src_ext, src->ext, sizeof s->l.A.src_ext);
    s->l.A.inner = src->inner;
    return ACC_OK;
}

int cuda_scan_has_results(const cuda_scan *s)
{
    return s->a->size > 0 || (s->t && s->t->size > 0);
}

acc_status cuda_scan_upload(cuda_scan *s, const cuda_parts *parts, diag *d)
{
    const ir_value *seed = s->src->seeded ? s->src->seed : NULL;
    return cuda_launch_upload(s->run, &s->l, s->a, seed,
                              parts ? parts->leaf : NULL,
                              parts ? parts->has : 0, d);
}

acc_status cuda_scan_finish(cuda_scan *s, acc_status status, int replay,
                            rt_array **out)
{
    cuda_launch_free(s->run, &s->l);
    if (status != ACC_OK || replay) {
        rt_release(s->a);
        rt_release(s->t);
        return status;
    }
    out[0] = s->a;
    if (s->t)
        out[1] = s->t;
    return ACC_OK;
}

/* ---- plain scans -------------------------------------------------------------- */

/* Parts per row: 1 for the rows launch. */
static int64_t parts_of(const cuda_scan *s, int64_t rows, int64_t inner)
{
    const cuda_fn *by_rows = cuda_fn_of(s->kn, CG_CUDA_SCAN_ROWS);
    const cuda_fn *part = cuda_fn_of(s->kn, CG_CUDA_SCAN_PART);
    int64_t warps = (int64_t)by_rows->min_grid * by_rows->block / 32;
    int64_t tile = part->block * cg_cuda_scan_items(s->kn->k.src->type->elem);
    int64_t p = inner / (CUDA_SCAN_PART_TILES * tile);
    int64_t sms = s->run->be->dev.sms > 0 ? s->run->be->dev.sms : 1;
    if (rows >= warps || p < 2)
        return 1;
    int64_t want = (4 * sms + rows - 1) / rows;
    return p < want ? p : want < 2 ? 1 : want;
}

/* The three passes over P parts per row. */
static acc_status by_parts(cuda_scan *s, int64_t rows, int64_t p, diag *d)
{
    cuda_run *run = s->run;
    const acc_type *acc = s->kn->k.src->type->elem;
    cuda_parts parts;
    int64_t count = p;
    if (cuda_parts_alloc(run, acc, (size_t)(rows * p), "scan: partial "
                         "results", &parts, d) == ACC_OK &&
        cuda_scan_upload(s, &parts, d) == ACC_OK &&
        cuda_launch_parts(run, &s->l, cuda_fn_of(s->kn, CG_CUDA_SCAN_PART), p,
                          rows, d) == ACC_OK &&
        cuda_launch_threads(run, &s->l,
                            cuda_fn_of(s->kn, CG_CUDA_SCAN_FINISH), rows,
                            &count, d) == ACC_OK)
        cuda_launch_parts(run, &s->l, cuda_fn_of(s->kn, CG_CUDA_SCAN_BLOCK),
                          p, rows, d);
    cuda_parts_free(run, acc, &parts);
    return d->status;
}

/* One launch over the rows: a warp each, or, when f may not be
 * regrouped, a thread each. */
static acc_status by_rows(cuda_scan *s, int64_t rows, diag *d)
{
    int regroup = s->kn->k.reassociable;
    const cuda_fn *fn = cuda_fn_of(s->kn, regroup ? CG_CUDA_SCAN_ROWS
                                                  : CG_CUDA_SCAN_THREAD);
    if (cuda_scan_upload(s, NULL, d))
        return d->status;
    return cuda_launch_threads(s->run, &s->l, fn, regroup ? rows * 32 : rows,
                               NULL, d);
}

/* The launches (rows > 0); a replay when a kernel reported a runtime
 * error. */
static acc_status launch(cuda_scan *s, int64_t rows, int *replay, diag *d)
{
    int64_t p = s->kn->k.reassociable ? parts_of(s, rows, s->l.A.inner) : 1;
    if ((p > 1 ? by_parts(s, rows, p, d) : by_rows(s, rows, d)) != ACC_OK)
        return d->status;
    return cuda_launch_failed(s->run, s->kn, &s->l, replay, d);
}

acc_status cuda_drive_scan(cuda_run *run, const cuda_node *kn, interp *st,
                           const ir_node *n, rt_array **out, int *replay)
{
    ir_scan_form form = ir_scan_form_of(kn->k.fold->u.scan.kind);
    host_source src;
    cuda_scan s;
    memset(&s, 0, sizeof s);
    /* a replay: an empty scanl1 row, the interpreter names it */
    acc_status r = host_source_eval(st, NULL, kn->k.fold, kn->k.src, &src,
                                    replay);
    if (r != ACC_OK || *replay)
        return r;
    r = cuda_scan_begin(&s, run, kn, st, n, &src,
                        src.inner + (form == IR_SCAN_FULL), 1);
    if (r == ACC_OK && cuda_scan_has_results(&s))
        r = launch(&s, src.rows, replay, st->d);
    return cuda_scan_finish(&s, r, *replay, out);
}
