/*
 * drive_scan.c — running the scans' kernels (core/skeletons/cpu/scan.c.in):
 * rows in parallel, or, for few long rows of a regroupable combiner, each
 * row in three phases over blocks.
 */
#include "core/backend/cpu/cpu_launch.h"

#include "core/ir/scan_kind.h"

#include <stdlib.h>
#include <string.h>

/* Few long rows, f regroupable: per row, each block reduced (in
 * parallel), the block totals scanned in order, each block scanned from
 * its running value (in parallel). */
static int scan_by_blocks(pool *pl, cpu_launch *l, const acc_type *elem,
                          int64_t rows)
{
    int64_t n = cpu_split_row(pl, l);
    void *parts[ACC_MAX_COMPONENTS] = {0};
    int ok = cpu_alloc_parts(l, elem, n, parts);
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
    return ok;
}

int cpu_drive_scan(pool *pl, const cpu_node *kn, interp *st,
                   const ir_node *n, rt_array **out)
{
    const ir_node *xs = kn->k.src;
    acc_scan_kind kind = n->u.scan.kind;
    ir_scan_form form = ir_scan_form_of(kind);
    const char *op = ir_scan_name(kind, 0);
    const acc_type *elem = xs->type->elem;
    int32_t r = xs->type->rank;
    int64_t ext[ACC_MAX_RANK] = {0}, oext[ACC_MAX_RANK];
    ir_value seed[ACC_MAX_COMPONENTS];
    cpu_launch l;
    memset(&l, 0, sizeof l);
    int ok = cpu_source_extents(st, xs, ext);
    if (ok <= 0)
        return ok;
    int64_t inner = ext[r - 1], rows = rt_shape_size(r - 1, ext);
    if (form == IR_SCAN_INCLUSIVE && inner == 0 && rows > 0)
        return -1; /* an empty row: the interpreter names it */
    if (ir_scan_seeded(kind) && !cpu_eval_seed(st, n->args[1], elem, seed))
        return 0;
    if (!cpu_bind_arrays(st, &kn->k, &l, 0)) {
        free(l.in);
        return 0;
    }
    memcpy(oext, ext, sizeof ext);
    oext[r - 1] = inner + (form == IR_SCAN_FULL);
    rt_array *a = rt_alloc(elem, r, oext, op, st->d), *t = NULL;
    if (a && form == IR_SCAN_PRIMED && !(t = rt_alloc(elem, r - 1, ext, op,
                                                      st->d))) {
        rt_release(a);
        a = NULL;
    }
    void *outs[2 * ACC_MAX_COMPONENTS] = {0};
    int oom = 0;
    if (a && rows > 0) {
        size_t k = elem->n_leaves;
        for (size_t i = 0; i < k; i++) {
            outs[i] = a->data[i];
            outs[k + i] = t ? t->data[i] : NULL;
        }
        l.entry = kn->entry;
        l.A.out = outs;
        memcpy(l.A.out_ext, a->extents, sizeof a->extents);
        l.A.out_size = a->size;
        memcpy(l.A.src_ext, ext, sizeof ext);
        l.A.inner = inner;
        l.A.seed = seed;
        int64_t threads = pool_threads(pl);
        if (kn->k.reassociable && rows < 2 * threads && inner >= 32768 &&
            l.entry->part && l.entry->finish && l.entry->block) {
            oom = !scan_by_blocks(pl, &l, elem, rows);
        } else {
            int64_t least = 65536 / (inner > 0 ? inner : 1);
            pool_for(pl, rows, cpu_grain(pl, rows, least > 0 ? least : 1),
                     cpu_task_run, &l);
        }
    }
    free(l.in);
    if (a && (oom || cpu_failed(&l))) {
        rt_release(a);
        rt_release(t);
        if (oom)
            diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                      "memory", op);
        return oom ? 0 : -1;
    }
    if (!a)
        return 0;
    out[0] = a;
    if (t)
        out[1] = t;
    return 1;
}
