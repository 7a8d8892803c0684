/*
 * drive_fold.c — launching fold and fold1 kernels, and map g over them
 * (core/skeletons/cuda/fold.cu.in).  The host evaluates the shape and the
 * seed with the interpreter and refuses an empty fold1 row to the
 * interpreter, which names it (host_source_eval: host-side evaluation
 * shared with the CPU drivers), and picks one of two launch shapes:
 *
 *  - rows: accel_fold_rows, one block per row (grid-stride over rows), a
 *    block of about the row's length (whole warps, at most the occupancy
 *    block);
 *  - parts, for few long rows (fewer than two per multiprocessor, at
 *    least 32768 elements): accel_fold_part over a (P, rows) grid, each
 *    block reducing 1/P of a row (at least 16384 elements, about four
 *    blocks per multiprocessor in all) into a partial, then
 *    accel_fold_finish, one block per row, combining the P partials in
 *    order.
 *
 * The error slot is read back once, after the last kernel of the step.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/host/host_eval.h"

#include <string.h>

enum { ROWS, PART, FINISH }; /* kn->fn[], as cuda_program.c lists them */

/* Parts per row: 1 for the rows launch. */
static int64_t parts_of(const cuda_run *run, int64_t rows, int64_t inner)
{
    int64_t sms = run->be->dev.sms > 0 ? run->be->dev.sms : 1;
    if (rows >= 2 * sms || inner < 32768)
        return 1;
    int64_t p = inner / 16384, want = (4 * sms + rows - 1) / rows;
    if (p > want)
        p = want;
    return p < 2 ? 1 : p;
}

typedef struct fold_step {
    cuda_run *run;
    const cuda_node *kn;
    cuda_launch *l;
    const acc_type *acc; /* the element type reduced */
    const rt_array *out;
    const ir_value *seed;
} fold_step;

static acc_status by_rows(fold_step *s, int64_t rows, diag *d)
{
    const cuda_fn *fn = &s->kn->fn[ROWS];
    unsigned block = cuda_block_for(fn, s->l->A.inner);
    if (cuda_launch_upload(s->run, s->l, s->out, s->seed, NULL, 0, d))
        return d->status;
    return cuda_launch_run(s->run, s->l, fn,
                           cuda_grid_for(s->run, fn, rows, 1), 1, block, NULL,
                           d);
}

/* P partials per row, freed when the step ends. */
static acc_status by_parts(fold_step *s, int64_t rows, int64_t p, diag *d)
{
    cuda_run *run = s->run;
    cuda_parts parts;
    int64_t count = p;
    const cuda_fn *fin = &s->kn->fn[FINISH];
    if (cuda_parts_alloc(run, s->acc, (size_t)(rows * p), "fold: partial "
                         "results", &parts, d) == ACC_OK &&
        cuda_launch_upload(run, s->l, s->out, s->seed, parts.leaf, parts.has,
                           d) == ACC_OK &&
        cuda_launch_parts(run, s->l, &s->kn->fn[PART], p, rows, d) == ACC_OK)
        cuda_launch_run(run, s->l, fin, cuda_grid_for(run, fin, rows, 1), 1,
                        cuda_block_for(fin, p), &count, d);
    cuda_parts_free(run, s->acc, &parts);
    return d->status;
}

/* The launches once the arguments are bound; a replay when a kernel
 * reported a runtime error. */
static acc_status launch(fold_step *s, const int64_t *ext, int32_t r,
                         int *replay, diag *d)
{
    cuda_launch *l = s->l;
    memcpy(l->A.src_ext, ext, sizeof l->A.src_ext);
    l->A.inner = ext[r - 1];
    int64_t rows = s->out->size, p = parts_of(s->run, rows, l->A.inner);
    if ((p > 1 ? by_parts(s, rows, p, d) : by_rows(s, rows, d)) != ACC_OK)
        return d->status;
    return cuda_launch_failed(s->run, s->kn, l, replay, d);
}

acc_status cuda_drive_fold(cuda_run *run, const cuda_node *kn, interp *st,
                           const ir_node *n, rt_array **out, int *replay)
{
    const ir_node *fold = kn->k.fold, *xs = kn->k.src;
    int32_t r = xs->type->rank;
    host_source src;
    cuda_launch l;
    memset(&l, 0, sizeof l);
    /* a replay: an empty fold1 row, the interpreter names it */
    acc_status s = host_source_eval(st, NULL, fold, xs, &src, replay);
    if (s != ACC_OK || *replay)
        return s;
    const int64_t *ext = src.ext;
    rt_array *a = NULL;
    s = cuda_launch_bind(run, &kn->k, st, n->type->elem->n_leaves,
                         xs->type->elem->n_leaves, &l);
    if (s == ACC_OK &&
        !(a = cuda_result(run, n, n->type->elem, r - 1, ext,
                          ir_op_name(n->op), st->d)))
        s = host_recorded(st->d);
    fold_step fs = {run, kn, &l, xs->type->elem, a,
                    src.seeded ? src.seed : NULL};
    if (a && a->size > 0)
        s = launch(&fs, ext, r, replay, st->d);
    cuda_launch_free(run, &l);
    if (s != ACC_OK || *replay) {
        rt_release(a);
        return s;
    }
    *out = a;
    return ACC_OK;
}
