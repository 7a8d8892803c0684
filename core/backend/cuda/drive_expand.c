/*
 * drive_expand.c — launching expand's kernel (core/skeletons/cuda/
 * expand.cu.in) and the expansion it shares with permute' over an expand
 * (expansion.cuh.in, see cuda_internal.h): the sizes, their checks and
 * their exclusive scan on the device in three passes, then one read-back
 * of the total, the largest size and the error slot (one wait), then the
 * values pass, chosen by the sizes (cg_cuda_expand_per_thread): one
 * source element per thread for small uniform sizes, blocks over result
 * positions otherwise.  A refused size or total, or a failed check,
 * returns the step to the interpreter, which reports it; an empty source
 * launches nothing.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/host/host_eval.h"

#include <string.h>

/* kn->fn[] of an expand, as cuda_program.c lists them (permute' over an
 * expand lists the same five after its own two). */
enum { SIZES, SCAN, OFFSETS, THREADS, BLOCKS };

acc_status cuda_expansion_alloc(cuda_run *run, int64_t n, cuda_expansion *x,
                                cu_deviceptr scratch[2], diag *d)
{
    memset(x, 0, sizeof *x);
    x->n = n;
    x->parts = cg_cuda_expand_parts(n);
    acc_status s = cuda_run_alloc(run, (size_t)(n + 1) * sizeof(int64_t),
                                  &x->off, "expand: offsets", d);
    if (s == ACC_OK)
        s = cuda_run_alloc(run, (size_t)(2 * x->parts + 2) * sizeof(int64_t),
                           &x->sums, "expand: partial sums", d);
    scratch[0] = x->off;
    scratch[1] = x->sums;
    return s;
}

void cuda_expansion_free(cuda_run *run, cuda_expansion *x)
{
    cuda_run_free(run, x->off, (size_t)(x->n + 1) * sizeof(int64_t));
    cuda_run_free(run, x->sums, (size_t)(2 * x->parts + 2) * sizeof(int64_t));
    x->off = x->sums = 0;
}

acc_status cuda_expansion_scan(cuda_run *run, cuda_launch *l,
                               const cuda_fn *fn, cuda_expansion *x,
                               int *replay, diag *d)
{
    int64_t parts = x->parts, stats[2] = {0, 0};
    int64_t lanes = 32 * parts; /* a warp per part */
    int failed = 0;
    if (cuda_launch_threads(run, l, &fn[SIZES], lanes, &parts, d) ||
        cuda_launch_run(run, l, &fn[SCAN], 1, 1, 32, &parts, d) ||
        cuda_launch_threads(run, l, &fn[OFFSETS], lanes, &parts, d) ||
        cuda_launch_read(run, l, stats, x->sums + 16 * (cu_deviceptr)parts,
                         sizeof stats, &failed, d))
        return d->status;
    x->total = stats[0];
    x->largest = stats[1];
    /* never from a kernel that ran (it flags a refused total instead) */
    if (failed || x->total < 0 || x->largest < 0)
        *replay = 1;
    return ACC_OK;
}

acc_status cuda_expansion_values(cuda_run *run, cuda_launch *l,
                                 const cuda_fn *fn, const cuda_expansion *x,
                                 diag *d)
{
    if (x->total == 0)
        return ACC_OK;
    if (cg_cuda_expand_per_thread(x->n, x->total, x->largest))
        return cuda_launch_threads(run, l, &fn[THREADS], x->n, NULL, d);
    /* ACC_EXPAND_ITEMS positions a thread per chunk */
    return cuda_launch_threads(run, l, &fn[BLOCKS],
                               (x->total - 1) / CG_CUDA_EXPAND_ITEMS + 1,
                               NULL, d);
}

/* The launches once the arguments are uploaded: the result in *out, or a
 * replay for the interpreter. */
static acc_status expand(cuda_run *run, const cuda_node *kn, cuda_launch *l,
                         const ir_node *n, cuda_expansion *x, rt_array **out,
                         int *replay, diag *d)
{
    if (cuda_expansion_scan(run, l, kn->fn, x, replay, d) || *replay)
        return d->status;
    *out = cuda_result(run, n, n->type->elem, 1, &x->total, "expand", d);
    if (!*out)
        return host_recorded(d);
    if (cuda_launch_retarget(run, l, *out, NULL, d) ||
        cuda_expansion_values(run, l, kn->fn, x, d))
        return d->status;
    return cuda_launch_failed(run, kn, l, replay, d);
}

/* The arguments of step n's expansion of ext[0] >= 1 source elements
 * bound and uploaded, with its scratch. */
static acc_status start(cuda_run *run, const cuda_node *kn, interp *st,
                        const ir_node *n, const int64_t *ext, cuda_launch *l,
                        cuda_expansion *x)
{
    cu_deviceptr scratch[2] = {0, 0};
    if (cuda_launch_bind(run, &kn->k, st, n->type->elem->n_leaves, 2, l) ||
        cuda_expansion_alloc(run, ext[0], x, scratch, st->d) ||
        cuda_launch_upload(run, l, NULL, NULL, scratch, 0, st->d))
        return st->d->status;
    l->A.inner = ext[0];
    memcpy(l->A.src_ext, ext, sizeof l->A.src_ext);
    return ACC_OK;
}

acc_status cuda_drive_expand(cuda_run *run, const cuda_node *kn, interp *st,
                             const ir_node *n, rt_array **out, int *replay)
{
    int64_t ext[ACC_MAX_RANK] = {0}, none = 0;
    cuda_expansion x;
    cuda_launch l;
    rt_array *a = NULL;
    memset(&x, 0, sizeof x);
    memset(&l, 0, sizeof l);
    acc_status s = host_source_extents(st, kn->k.src, ext, replay);
    if (s != ACC_OK || *replay)
        return s;
    if (ext[0] == 0) { /* no source elements: nothing to launch */
        if (!(a = cuda_result(run, n, n->type->elem, 1, &none, "expand",
                              st->d)))
            s = host_recorded(st->d);
    } else if ((s = start(run, kn, st, n, ext, &l, &x)) == ACC_OK)
        s = expand(run, kn, &l, n, &x, &a, replay, st->d);
    cuda_expansion_free(run, &x);
    cuda_launch_free(run, &l);
    if (s != ACC_OK || *replay) {
        rt_release(a);
        return s;
    }
    *out = a;
    return ACC_OK;
}
