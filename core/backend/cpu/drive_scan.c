/*
 * drive_scan.c — running the scans' kernels (core/skeletons/cpu/scan.c.in):
 * what plain and segmented scans share (the seed, the arguments, the
 * results and the step's outcome), and the plain scans' launch: rows in
 * parallel, or, for few long rows of a regroupable combiner, each row in
 * three phases over blocks.  The segmented scans' launch is in
 * drive_scan_seg.c.
 */
#include "core/backend/cpu/cpu_launch.h"

#include "core/ir/scan_kind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The name of step n in messages: the scan's, or the map's over it. */
static const char *scan_op(const cpu_scan *s, const ir_node *n)
{
    return n == s->scan ? ir_scan_name(s->scan->u.scan.kind,
                                       s->scan->op == IR_SCAN_SEG)
                        : ir_op_name(n->op);
}

/* The results of step n for a source of extents ext, rows of out_len
 * outputs: s->a, and for a primed scan the totals s->t (one per row, or k
 * per row when segmented), shaped as the interpreter's alloc_results
 * shapes them. */
static int scan_results(cpu_scan *s, interp *st, const ir_node *n,
                        int32_t r, const int64_t *ext, int64_t out_len,
                        int64_t k)
{
    int primed = ir_scan_form_of(s->scan->u.scan.kind) == IR_SCAN_PRIMED;
    const acc_type *t0 = primed ? n->type->array_leaves[0] : n->type;
    int64_t oext[ACC_MAX_RANK];
    memcpy(oext, ext, sizeof oext);
    oext[r - 1] = out_len;
    /* one result (not primed): it may go to the caller's buffers */
    s->a = primed ? rt_alloc(t0->elem, r, oext, scan_op(s, n), st->d)
                  : interp_result(st, n, t0->elem, r, oext, scan_op(s, n));
    if (!s->a || !primed)
        return s->a != NULL;
    const acc_type *t1 = n->type->array_leaves[1];
    oext[r - 1] = k;
    s->t = rt_alloc(t1->elem, t1->rank, oext, scan_op(s, n), st->d);
    return s->t != NULL;
}

acc_status cpu_scan_begin(cpu_scan *s, interp *st, const cpu_node *kn,
                          const ir_node *n, const host_source *src,
                          int64_t out_len, int64_t k, size_t extra,
                          int *replay)
{
    memset(s, 0, sizeof *s);
    s->scan = kn->k.fold;
    const acc_type *elem = kn->k.src->type->elem;
    const int64_t *ext = src->ext;
    int32_t r = kn->k.src->type->rank;
    if (cpu_bind_arrays(st, &kn->k, &s->l, extra, replay) != ACC_OK ||
        *replay || !scan_results(s, st, n, r, ext, out_len, k))
        return st->d->status;
    size_t na = s->a->elem->n_leaves;
    for (size_t i = 0; i < na; i++)
        s->outs[i] = s->a->data[i];
    for (size_t i = 0; s->t && i < elem->n_leaves; i++)
        s->outs[na + i] = s->t->data[i];
    s->l.entry = kn->entry;
    s->l.A.out = s->outs;
    memcpy(s->l.A.out_ext, s->a->extents, sizeof s->a->extents);
    s->l.A.out_size = s->a->size;
    memcpy(s->l.A.src_ext, ext, sizeof s->l.A.src_ext);
    s->l.A.inner = ext[r - 1];
    s->l.A.seed = src->seed;
    return ACC_OK;
}

acc_status cpu_scan_finish(cpu_scan *s, interp *st, rt_array **out,
                           int *replay)
{
    cpu_unbind(&s->l);
    /* a kernel's runtime error: the interpreter runs the step, names it */
    if (diag_ok(st->d) && cpu_failed(&s->l))
        *replay = 1;
    if (!diag_ok(st->d) || *replay) {
        rt_release(s->a);
        rt_release(s->t);
        return st->d->status;
    }
    out[0] = s->a;
    if (s->t)
        out[1] = s->t;
    return ACC_OK;
}

/* Few long rows, f regroupable: per row, each block reduced (in
 * parallel), the block totals scanned in order, each block scanned from
 * its running value (in parallel). */
static void scan_by_blocks(pool *pl, cpu_launch *l, const acc_type *elem,
                           int64_t rows, diag *d, const char *op)
{
    int64_t n = cpu_split_row(pl, l);
    void *parts[ACC_MAX_COMPONENTS] = {0};
    int ok = cpu_alloc_parts(l, elem, n, parts, d, op) == ACC_OK;
    cpu_finish_fn finish;
    memcpy(&finish, &l->entry->finish, sizeof finish);
    for (int64_t row = 0; ok && row < rows && !cpu_failed(l); row++) {
        l->row = row;
        pool_for(pl, n, 1, cpu_task_part, l);
        if (!cpu_failed(l))
            finish(&l->A, row, n);
        if (!cpu_failed(l))
            pool_for(pl, n, 1, cpu_task_block, l);
    }
    cpu_free_parts(elem, parts);
}

acc_status cpu_drive_scan(pool *pl, const cpu_node *kn, interp *st,
                          const ir_node *n, rt_array **out, int *replay)
{
    const ir_node *xs = kn->k.src;
    ir_scan_form form = ir_scan_form_of(kn->k.fold->u.scan.kind);
    host_source src;
    cpu_scan s;
    /* a replay: an empty scanl1 row, the interpreter names it */
    acc_status r = host_source_eval(st, pl, kn->k.fold, xs, &src, replay);
    if (r != ACC_OK || *replay)
        return r;
    int64_t inner = src.inner, rows = src.rows;
    if (form == IR_SCAN_FULL && inner == INT64_MAX)
        /* n + 1 outputs per row: the interpreter refuses them */
        return host_replay(replay);
    if (cpu_scan_begin(&s, st, kn, n, &src, inner + (form == IR_SCAN_FULL),
                       1, 0, replay) == ACC_OK && !*replay && rows > 0) {
        cpu_launch *l = &s.l;
        if (kn->k.reassociable && rows < 2 * pool_threads(pl) &&
            inner >= 32768 && l->entry->part && l->entry->finish &&
            l->entry->block) {
            /* out of memory is recorded on st->d: cpu_scan_finish sees it */
            scan_by_blocks(pl, l, xs->type->elem, rows, st->d,
                           scan_op(&s, n));
        } else {
            int64_t least = 65536 / (inner > 0 ? inner : 1);
            pool_for(pl, rows, cpu_grain(pl, rows, least > 0 ? least : 1),
                     cpu_task_run, l);
        }
    }
    return cpu_scan_finish(&s, st, out, replay);
}
