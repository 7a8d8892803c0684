/*
 * drive_fold_seg.c — launching the segmented folds foldSeg, foldSeg' and
 * fold1Seg, and maps over them (core/skeletons/cuda/fold_seg.cu.in).
 * The host evaluates the shape and the seed and reads and checks the
 * segment descriptor with the CPU drivers' code (host_source_eval: a
 * refused descriptor or an empty fold1Seg segment goes back to the
 * interpreter, which names it), and puts the k + 1 offsets in the
 * kernel's argument block (one upload).  Then:
 *
 *  - one launch over the rows x k result positions: accel_fold_seg_thread,
 *    a thread per segment, when segments average fewer than
 *    CG_CUDA_SEG_WARP_MIN_AVG elements, else accel_fold_seg_warp, a warp
 *    per segment (cg_cuda_fold_seg_entry);
 *  - for an embedded producer with runtime checks whose rows go on past
 *    the last segment, accel_fold_seg_tail(args, off[k]) over those
 *    elements (the interpreter computes the whole producer and reports
 *    their errors; without checks they cannot fail and are skipped).
 *
 * The error slot is read back once, after the last launch.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/host/host_eval.h"
#include "core/ir/scan_kind.h"

#include <stdlib.h>
#include <string.h>

typedef struct seg_step {
    cuda_run *run;
    const cuda_node *kn;
    cuda_launch *l;
    const int64_t *off;
    int64_t k, rows;
} seg_step;

/* Whether the producer's elements past the last segment must be computed
 * for their checks. */
static int has_tail(const seg_step *s)
{
    return s->kn->k.src->op == IR_GENERATE && s->kn->k.checks > 0 &&
           s->rows > 0 && s->off[s->k] < s->l->A.inner;
}

/* The launches once the arguments are bound; a replay when a kernel
 * reported a runtime error. */
static acc_status launch(seg_step *s, const rt_array *a, const ir_value *seed,
                         int *replay, diag *d)
{
    cuda_run *run = s->run;
    int64_t lo = s->off[s->k], width = s->l->A.inner - lo;
    int tail = has_tail(s);
    if (a->size == 0 && !tail)
        return ACC_OK;
    if (cuda_launch_upload(run, s->l, a, seed, NULL, 0, d))
        return d->status;
    if (a->size > 0) {
        cg_cuda_entry_id id = cg_cuda_fold_seg_entry(lo, s->k);
        int64_t threads = id == CG_CUDA_SEG_WARP ? a->size * 32 : a->size;
        if (cuda_launch_threads(run, s->l, cuda_fn_of(s->kn, id), threads,
                                NULL, d))
            return d->status;
    }
    if (tail && cuda_launch_threads(run, s->l,
                                    cuda_fn_of(s->kn, CG_CUDA_SEG_TAIL),
                                    s->rows * width, &lo, d))
        return d->status;
    return cuda_launch_failed(run, s->kn, s->l, replay, d);
}

acc_status cuda_drive_fold_seg(cuda_run *run, const cuda_node *kn, interp *st,
                               const ir_node *n, rt_array **out, int *replay)
{
    const ir_node *fold = kn->k.fold, *xs = kn->k.src;
    int32_t r = xs->type->rank;
    host_source src;
    cuda_launch l;
    memset(&l, 0, sizeof l);
    /* a replay: a refused descriptor, the interpreter names it */
    acc_status s = host_source_eval(st, NULL, fold, xs, &src, replay);
    if (s != ACC_OK || *replay)
        return s;
    int64_t *ext = src.ext, inner = src.inner, k = src.k, *off = src.off;
    rt_array *a = NULL;
    s = cuda_launch_bind_segments(run, &kn->k, st, n->type->elem->n_leaves,
                                  xs->type->elem->n_leaves, off, k, &l);
    if (s == ACC_OK) {
        ext[r - 1] = k;
        a = cuda_result(run, n, n->type->elem, r, ext, n == fold
                        ? ir_fold_seg_name(fold) : ir_op_name(n->op), st->d);
        ext[r - 1] = inner;
        if (!a)
            s = host_recorded(st->d);
    }
    memcpy(l.A.src_ext, ext, sizeof l.A.src_ext);
    l.A.inner = inner;
    seg_step ss = {run, kn, &l, off, k, src.rows};
    if (a)
        s = launch(&ss, a, src.seeded ? src.seed : NULL, replay, st->d);
    cuda_launch_free(run, &l);
    pool_scratch_done(NULL, off);
    if (s != ACC_OK || *replay) {
        rt_release(a);
        return s;
    }
    *out = a;
    return ACC_OK;
}
