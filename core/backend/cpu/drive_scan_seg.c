/*
 * drive_scan_seg.c — running the segmented scans' kernels (scanlSeg,
 * scanl'Seg, ... : core/skeletons/cpu/scan.c.in with SEGMENTED).  The host
 * reads and checks the segment lengths as the interpreter does, passes
 * their offsets after the kernel's arrays, and splits the (row, segment)
 * pairs into chunks; each segment is scanned sequentially, in the
 * interpreter's order, so integer results are bit for bit its own.
 */
#include "core/backend/cpu/cpu_launch.h"

#include "core/ir/scan_kind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The pairs of every row: k segments, and, for an embedded producer, the
 * elements past the last segment (computed for their runtime checks, as
 * the interpreter computes the whole producer).  Chunks of about 16384
 * elements. */
static void scan_pairs(pool *pl, cpu_launch *l, const ir_node *xs,
                       const int64_t *off, int64_t k, int64_t rows)
{
    int tail = xs->op == IR_GENERATE; /* the kernel's TAIL (kernel_cpu.c) */
    int64_t q = k + tail, inner = l->A.inner;
    if (q == 0 || rows == 0)
        return;
    int64_t per_row = tail ? inner : off[k];
    int64_t avg = per_row / q > 0 ? per_row / q : 1;
    int64_t least = 16384 / avg > 0 ? 16384 / avg : 1;
    pool_for(pl, rows * q, cpu_grain(pl, rows * q, least), cpu_task_run, l);
}

acc_status cpu_drive_scan_seg(pool *pl, const cpu_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay)
{
    const ir_node *scan = kn->k.fold, *xs = kn->k.src;
    host_source src;
    cpu_scan s;
    /* a replay: a refused descriptor, the interpreter names it */
    acc_status r = host_source_eval(st, pl, scan, xs, &src, replay);
    if (r != ACC_OK || *replay)
        return r;
    int64_t k = src.k, *off = src.off;
    int full = ir_scan_form_of(scan->u.scan.kind) == IR_SCAN_FULL;
    /* a result row beyond int64 (S elements and k seeds), or more (row,
     * segment) pairs than int64 counts: the interpreter refuses them */
    if (off[k] > INT64_MAX - (full ? k : 0) ||
        (src.rows > 0 && k >= INT64_MAX / src.rows)) {
        pool_scratch_done(pl, off);
        return host_replay(replay);
    }
    if (cpu_scan_begin(&s, st, kn, n, &src, off[k] + (full ? k : 0), k, 1,
                       replay) == ACC_OK && !*replay) {
        cpu_bind_segments(&s.l, kn->k.n_arrays, off, k);
        scan_pairs(pl, &s.l, xs, off, k, src.rows);
    }
    acc_status status = cpu_scan_finish(&s, st, out, replay);
    pool_scratch_done(pl, off);
    return status;
}
