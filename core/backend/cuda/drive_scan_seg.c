/*
 * drive_scan_seg.c — launching the segmented scans (scanlSeg, scanl'Seg,
 * ...: core/skeletons/cuda/scan.cu.in with ACC_SEGMENTED).  The host reads
 * and checks the segment lengths with the CPU drivers' code
 * (host_source_eval: a refused descriptor goes back to the
 * interpreter, which names it) and puts the k + 1 offsets in the kernel's
 * argument block.  The work items
 * are (row, segment) pairs: per row its k segments and, for an embedded
 * producer, its elements past the last segment (computed for their runtime
 * checks, as the interpreter computes the whole producer; the kernel's
 * ACC_TAIL).  One launch over them: accel_scan_seg_thread, a thread per
 * pair scanning element by element, when f may not be regrouped (it is
 * not a commutative primitive: a scan's f need not be associative) or
 * pairs average fewer than CG_CUDA_SCAN_SEG_WARP_MIN_AVG elements, else
 * accel_scan_seg_warp, a warp per pair (cg_cuda_scan_seg_entry).  Each segment is scanned in
 * order; the error slot is read back after the launch.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/host/host_eval.h"
#include "core/ir/scan_kind.h"

#include <stdlib.h>
#include <string.h>

/* The launch over the pairs; a replay when the kernel reported a runtime
 * error or there are too many pairs to count in int64 (the interpreter
 * then decides). */
static acc_status launch_pairs(cuda_scan *s, const int64_t *off, int64_t k,
                               int64_t rows, int *replay, diag *d)
{
    int tail = s->kn->k.src->op == IR_GENERATE; /* the kernel's ACC_TAIL */
    int64_t inner = s->l.A.inner, q = k + tail, pairs;
    int checks = tail && s->kn->k.checks > 0 && off[k] < inner;
    if (__builtin_mul_overflow(rows, q, &pairs) || pairs > INT64_MAX / 32) {
        *replay = 1;
        return ACC_OK;
    }
    if (pairs == 0 || !(cuda_scan_has_results(s) || checks))
        return ACC_OK;
    cg_cuda_entry_id id = cg_cuda_scan_seg_entry(s->kn->k.reassociable,
                                                 tail ? inner : off[k], q);
    int64_t threads = id == CG_CUDA_SCAN_SEG_WARP ? pairs * 32 : pairs;
    if (cuda_scan_upload(s, NULL, d) ||
        cuda_launch_threads(s->run, &s->l, cuda_fn_of(s->kn, id), threads,
                            NULL, d))
        return d->status;
    return cuda_launch_failed(s->run, s->kn, &s->l, replay, d);
}

acc_status cuda_drive_scan_seg(cuda_run *run, const cuda_node *kn, interp *st,
                               const ir_node *n, rt_array **out, int *replay)
{
    const ir_node *scan = kn->k.fold;
    host_source src;
    cuda_scan s;
    memset(&s, 0, sizeof s);
    /* a replay: a refused descriptor, the interpreter names it */
    acc_status r = host_source_eval(st, NULL, scan, kn->k.src, &src, replay);
    if (r != ACC_OK || *replay)
        return r;
    int64_t k = src.k, *off = src.off;
    int full = ir_scan_form_of(scan->u.scan.kind) == IR_SCAN_FULL;
    r = cuda_scan_begin(&s, run, kn, st, n, &src, off[k] + (full ? k : 0), k);
    if (r == ACC_OK)
        r = launch_pairs(&s, off, k, src.rows, replay, st->d);
    pool_scratch_done(NULL, off);
    return cuda_scan_finish(&s, r, *replay, out);
}
