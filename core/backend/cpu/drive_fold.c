/*
 * drive_fold.c — running the reductions' kernels: fold and fold1
 * (core/skeletons/cpu/fold.c.in), and the segmented folds foldSeg,
 * foldSeg' and fold1Seg (fold_seg.c.in).  The host evaluates the shape
 * and the seed, checks what the interpreter checks before computing (an
 * empty fold1 row, a segment descriptor), and splits the work.
 */
#include "core/backend/cpu/cpu_launch.h"

#include "core/backend/cpu/cpu_direct.h"

#include "core/ir/scan_kind.h"

#include <stdlib.h>
#include <string.h>

/* ---- fold ---------------------------------------------------------------------------- */

/* Few long rows: each row split over the threads, partials combined in
 * order by accel_kernel_finish. */
static acc_status fold_by_parts(pool *pl, cpu_launch *l, const acc_type *elem,
                                int64_t rows, diag *d, const char *op)
{
    int64_t n = cpu_split_row(pl, l);
    void *parts[ACC_MAX_COMPONENTS] = {0};
    acc_status s = cpu_alloc_parts(l, elem, n, parts, d, op);
    cpu_finish_fn finish;
    memcpy(&finish, &l->entry->finish, sizeof finish);
    for (int64_t row = 0; s == ACC_OK && row < rows && !cpu_failed(l);
         row++) {
        l->row = row;
        pool_for(pl, n, 1, cpu_task_part, l);
        if (!cpu_failed(l))
            finish(&l->A, row, n);
    }
    cpu_free_parts(elem, parts);
    return s;
}

/* ACC_OK, or out of memory recorded on d (a kernel's runtime error is
 * cpu_failed(l)'s to say). */
static acc_status fold_launch(pool *pl, cpu_launch *l, const acc_type *elem,
                              int64_t rows, diag *d, const char *op)
{
    int64_t threads = pool_threads(pl);
    if (cpu_serial(pl, rows * (l->A.inner > 0 ? l->A.inner : 1))) {
        if (l->err.stop) { /* one chunk here, a check point first */
            pool_for(pl, rows, rows, cpu_task_run, l);
            return ACC_OK;
        }
        cpu_run_fn run; /* nothing to check: the kernel, no task */
        memcpy(&run, &l->entry->run, sizeof run);
        run(&l->A, 0, rows);
        return ACC_OK;
    }
    if (rows < 2 * threads && l->A.inner >= 32768 && l->entry->part &&
        l->entry->finish)
        return fold_by_parts(pl, l, elem, rows, d, op);
    int64_t inner = l->A.inner > 0 ? l->A.inner : 1;
    int64_t least = 65536 / inner > 0 ? 65536 / inner : 1;
    pool_for(pl, rows, cpu_grain(pl, rows, least), cpu_task_run, l);
    return ACC_OK;
}

acc_status cpu_drive_fold(pool *pl, const cpu_node *kn, interp *st,
                          const ir_node *n, rt_array **out, int *replay)
{
    const ir_node *fold = kn->k.fold, *xs = kn->k.src;
    int32_t r = xs->type->rank;
    host_source src;
    cpu_launch l;
    memset(&l, 0, sizeof l);
    /* a replay: an empty fold1 row, the interpreter names it */
    acc_status got = host_source_eval(st, pl, fold, xs, &src, replay);
    if (got != ACC_OK || *replay)
        return got;
    if (kn->direct) /* the program's later runs with these extents */
        cpu_direct_remember(kn->direct, st->env->inputs, st->env->n_inputs,
                            &src);
    const int64_t *ext = src.ext;
    if (cpu_bind_arrays(st, &kn->k, &l, 0, replay) != ACC_OK || *replay) {
        cpu_unbind(&l);
        return st->d->status;
    }
    rt_array *a = interp_result(st, n, n->type->elem, r - 1, ext,
                                ir_op_name(n->op));
    acc_status launched = ACC_OK;
    if (a && a->size > 0) {
        l.entry = kn->entry;
        l.A.out = a->data;
        memcpy(l.A.out_ext, a->extents, sizeof a->extents);
        l.A.out_size = a->size;
        memcpy(l.A.src_ext, ext, sizeof l.A.src_ext);
        l.A.inner = ext[r - 1];
        l.A.seed = src.seed;
        launched = fold_launch(pl, &l, xs->type->elem, a->size, st->d,
                               ir_op_name(n->op));
    }
    cpu_unbind(&l);
    if (a && (launched != ACC_OK || cpu_failed(&l))) {
        rt_release(a);
        /* a kernel's runtime error: the interpreter runs the step */
        return launched != ACC_OK ? launched : host_replay(replay);
    }
    *out = a;
    return a ? ACC_OK : host_recorded(st->d);
}

void cpu_fold_args(const cpu_node *kn, const int64_t *ext, int64_t rows,
                   const ir_value *seed, cpu_kargs *args)
{
    int32_t r = kn->k.src->type->rank;
    memset(args, 0, sizeof *args);
    memcpy(args->out_ext, ext, (size_t)(r - 1) * sizeof *ext);
    args->out_size = rows;
    memcpy(args->src_ext, ext, sizeof args->src_ext);
    args->inner = ext[r - 1];
    args->seed = seed;
}

int cpu_fold_direct(pool *pl, const cpu_node *kn, const ir_node *n,
                    cpu_launch *l)
{
    diag d;
    diag_clear(&d);
    return fold_launch(pl, l, kn->k.src->type->elem, l->A.out_size, &d,
                       ir_op_name(n->op)) == ACC_OK &&
           !cpu_failed(l);
}

/* ---- segmented folds ------------------------------------------------------------ */

typedef struct tail_task {
    cpu_launch *l;
    int64_t lo;
} tail_task;

static void task_tail(void *arg, int64_t lo, int64_t hi)
{
    tail_task *t = arg;
    cpu_part_fn part;
    memcpy(&part, &t->l->entry->part, sizeof part);
    for (int64_t row = lo; row < hi && !cpu_failed(t->l); row++)
        part(&t->l->A, row, t->lo, t->l->A.inner, 0);
}

acc_status cpu_drive_fold_seg(pool *pl, const cpu_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay)
{
    const ir_node *fold = kn->k.fold, *xs = kn->k.src;
    int32_t r = xs->type->rank;
    host_source src;
    cpu_launch l;
    memset(&l, 0, sizeof l);
    /* a replay: a refused descriptor, the interpreter names it */
    acc_status got = host_source_eval(st, pl, fold, xs, &src, replay);
    if (got != ACC_OK || *replay)
        return got;
    int64_t *ext = src.ext, inner = src.inner, rows = src.rows, k = src.k;
    int64_t *off = src.off;
    if (cpu_bind_arrays(st, &kn->k, &l, 1, replay) != ACC_OK || *replay) {
        cpu_unbind(&l);
        pool_scratch_done(pl, off);
        return st->d->status;
    }
    cpu_bind_segments(&l, kn->k.n_arrays, off, k);
    ext[r - 1] = k;
    rt_array *a = interp_result(st, n, n->type->elem, r, ext, n == fold
                                ? ir_fold_seg_name(fold) : ir_op_name(n->op));
    ext[r - 1] = inner;
    l.entry = kn->entry;
    memcpy(l.A.src_ext, ext, sizeof l.A.src_ext);
    l.A.inner = inner;
    l.A.seed = src.seed;
    if (a && a->size > 0) {
        l.A.out = a->data;
        memcpy(l.A.out_ext, a->extents, sizeof a->extents);
        l.A.out_size = a->size;
        int64_t avg = k > 0 && off[k] / k > 0 ? off[k] / k : 1;
        int64_t least = 16384 / avg > 0 ? 16384 / avg : 1;
        pool_for(pl, a->size, cpu_grain(pl, a->size, least), cpu_task_run, &l);
    }
    /* an embedded producer's elements past the last segment: the
     * interpreter computes them, and reports their errors */
    if (a && !cpu_failed(&l) && xs->op == IR_GENERATE && off[k] < inner &&
        rows > 0 && l.entry->part) {
        tail_task t = {&l, off[k]};
        int64_t per_row = inner - off[k];
        int64_t least = 16384 / per_row > 0 ? 16384 / per_row : 1;
        pool_for(pl, rows, cpu_grain(pl, rows, least), task_tail, &t);
    }
    cpu_unbind(&l);
    pool_scratch_done(pl, off);
    if (a && cpu_failed(&l)) {
        rt_release(a);
        return host_replay(replay);
    }
    *out = a;
    return a ? ACC_OK : host_recorded(st->d);
}
