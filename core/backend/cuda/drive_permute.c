/*
 * drive_permute.c — launching permute and permute' (core/skeletons/cuda/
 * permute.cu.in), and map g over them.  The host evaluates the shapes of
 * the defaults and of the source (host_source_extents: shared host-side
 * evaluation), then launches on the run's stream:
 *
 *  1. accel_permute_defaults over the target's positions (none when it
 *     is empty);
 *  2. the source, when it has elements:
 *     - permute' over an expand (kind CG_KERNEL_PERMUTE_EXPAND): the
 *       expansion's sizes, scan and offsets, one read-back of the total
 *       and the error slot, then its values pass, each result combined
 *       (drive_expand.c);
 *     - a histogram (f a fetch-op, few target cells, many sources:
 *       cg_cuda_permute_private_blocks): accel_permute_private, per-block
 *       copies of the target in shared memory, on at most that many
 *       blocks;
 *     - otherwise accel_permute_source, a grid-stride loop over the
 *       source combining into the result with atomics or locks;
 *  3. after a map, accel_permute_map from the permuted array (then
 *     released) into the step's result, the same argument block pointed at
 *     them (cuda_launch_retarget).
 *
 * The error slot is read once at the end (and after the expansion's scan)
 * when something can have written it: a check in the scalar code, or a
 * target that can be out of range (any target of rank >= 1).  A recorded
 * error hands the step to the interpreter, which reports it.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/host/host_eval.h"
#include "core/codegen/kernel_permute.h"

#include <string.h>

/* kn->fn[], as cuda_program.c lists them: permute has SOURCE and PRIVATE
 * after MAP, permute' over an expand the expansion's five. */
enum { DEFAULTS, MAP, SOURCE, PRIVATE, EXPANSION = 2 };

typedef struct permute_step {
    cuda_run *run;
    const cuda_node *kn;
    const ir_node *pm;   /* the permute node (kn->k.fold) */
    cuda_launch l;
    cuda_expansion x;
    int64_t count;       /* source elements (expanded: the expand's) */
    rt_array *a;         /* the permuted array, then the step's result */
} permute_step;

/* Step n's arguments bound, the permuted array allocated for target
 * extents ext, the expansion's scratch, the block uploaded. */
static acc_status start(permute_step *s, interp *st, const ir_node *n,
                        const int64_t *ext, const int64_t *src_ext)
{
    const acc_type *elem = s->pm->type->elem;
    int expanded = s->kn->k.kind == CG_KERNEL_PERMUTE_EXPAND;
    size_t leaves = elem->n_leaves, outs = n->type->elem->n_leaves;
    size_t slots = expanded ? 2 : 0;
    cu_deviceptr scratch[ACC_MAX_COMPONENTS] = {0};
    if (n != s->pm && slots < leaves)
        slots = leaves; /* the map pass reads the permuted leaves */
    if (cuda_launch_bind(s->run, &s->kn->k, st, outs > leaves ? outs : leaves,
                         slots, &s->l))
        return st->d->status;
    if (!(s->a = cuda_result(s->run, n == s->pm ? n : NULL, elem,
                             s->pm->type->rank, ext, ir_op_name(s->pm->op),
                             st->d)))
        return host_recorded(st->d);
    if ((expanded && s->count > 0 &&
         cuda_expansion_alloc(s->run, s->count, &s->x, scratch, st->d)) ||
        cuda_launch_upload(s->run, &s->l, s->a, NULL, slots ? scratch : NULL,
                           0, st->d))
        return st->d->status;
    s->l.A.inner = s->count;
    memcpy(s->l.A.src_ext, src_ext, sizeof s->l.A.src_ext);
    return ACC_OK;
}

/* The source (not over an expand) combined: privatised per block for a
 * histogram, else straight into the result. */
static acc_status combine_source(permute_step *s, diag *d)
{
    const cuda_fn *fn = &s->kn->fn[PRIVATE];
    int64_t blocks = cg_permute_fetch(s->pm)
        ? cg_cuda_permute_private_blocks(s->a->size, s->count,
                                         acc_scalar_size(s->a->elem->leaves[0]))
        : 0;
    if (blocks == 0)
        return cuda_launch_threads(s->run, &s->l, &s->kn->fn[SOURCE],
                                   s->count, NULL, d);
    unsigned block = cuda_block_for(fn, s->count);
    unsigned grid = cuda_grid_for(s->run, fn, s->count, block);
    if ((int64_t)grid > blocks)
        grid = (unsigned)blocks;
    return cuda_launch_run(s->run, &s->l, fn, grid, 1, block, NULL, d);
}

/* The defaults, then the source combined; a replay when the expansion
 * was refused. */
static acc_status permute(permute_step *s, int *replay, diag *d)
{
    const cuda_fn *fn = s->kn->fn;
    if (s->a->size > 0 &&
        cuda_launch_threads(s->run, &s->l, &fn[DEFAULTS], s->a->size, NULL,
                            d))
        return d->status;
    if (s->count == 0)
        return ACC_OK;
    if (s->kn->k.kind != CG_KERNEL_PERMUTE_EXPAND)
        return combine_source(s, d);
    if (cuda_expansion_scan(s->run, &s->l, &fn[EXPANSION], &s->x, replay, d) ||
        *replay)
        return d->status;
    return cuda_expansion_values(s->run, &s->l, &fn[EXPANSION], &s->x, d);
}

/* map g (step n) over the permuted array, which the mapped one replaces. */
static acc_status map_after(permute_step *s, const ir_node *n, diag *d)
{
    cu_deviceptr leaves[ACC_MAX_COMPONENTS] = {0};
    for (size_t i = 0; i < s->a->elem->n_leaves; i++)
        leaves[i] = s->a->dev[i];
    rt_array *m = cuda_result(s->run, n, n->type->elem, s->a->rank,
                              s->a->extents, ir_op_name(n->op), d);
    acc_status r = m ? cuda_launch_retarget(s->run, &s->l, m, leaves, d)
                     : host_recorded(d);
    if (r == ACC_OK && m->size > 0)
        r = cuda_launch_threads(s->run, &s->l, &s->kn->fn[MAP], m->size, NULL,
                                d);
    rt_release(s->a); /* stream order: the map pass has read it */
    s->a = m;
    return r;
}

/* All the launches, once started; a replay for the interpreter. */
static acc_status run_step(permute_step *s, const ir_node *n, int *replay,
                           diag *d)
{
    acc_status r = permute(s, replay, d);
    if (r == ACC_OK && !*replay && n != s->pm)
        r = map_after(s, n, d);
    if (r != ACC_OK || *replay ||
        (s->kn->k.checks == 0 && s->pm->type->rank == 0))
        return r;
    return cuda_launch_read(s->run, &s->l, NULL, 0, 0, replay, d);
}

acc_status cuda_drive_permute(cuda_run *run, const cuda_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay)
{
    permute_step s;
    const ir_node *pm = kn->k.fold;
    const ir_node *src = kn->k.kind == CG_KERNEL_PERMUTE_EXPAND
                             ? kn->k.src->args[2] : kn->k.src;
    int64_t ext[ACC_MAX_RANK] = {0}, src_ext[ACC_MAX_RANK] = {0};
    memset(&s, 0, sizeof s);
    s.run = run;
    s.kn = kn;
    s.pm = pm;
    acc_status r = host_source_extents(st, pm->args[1], ext, replay);
    if (r == ACC_OK && !*replay && rt_shape_size(pm->type->rank, ext) < 0)
        *replay = 1; /* too many elements: the interpreter names the producer */
    if (r == ACC_OK && !*replay)
        r = host_source_extents(st, src, src_ext, replay);
    if (r == ACC_OK && !*replay &&
        (s.count = rt_shape_size(src->type->rank, src_ext)) < 0)
        *replay = 1;
    if (r == ACC_OK && !*replay &&
        (r = start(&s, st, n, ext, src_ext)) == ACC_OK)
        r = run_step(&s, n, replay, st->d);
    cuda_expansion_free(run, &s.x);
    cuda_launch_free(run, &s.l);
    if (r != ACC_OK || *replay) {
        rt_release(s.a);
        return r;
    }
    *out = s.a;
    return ACC_OK;
}
