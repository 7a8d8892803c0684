/*
 * drive_stencil.c — running the kernels of stencil and stencil2
 * (core/skeletons/cpu/stencil.c.in).  The host evaluates each array's
 * extents (a manifest array: the array itself) and boundary constant in
 * the interpreter's order, passes them as the two arguments after those
 * the scalar code reads, and runs the result's positions over the pool in
 * chunks of whole rows.  An embedded producer with runtime checks then has
 * the elements the kernel did not compute computed for their checks: the
 * interpreter computes every element of it, and reports their errors.
 */
#include "core/backend/cpu/cpu_launch.h"
#include "core/codegen/kernel_stencil.h"

#include <stdlib.h>
#include <string.h>

/* Array i's description (extents; data when manifest) and boundary
 * constant: the run diag's status; *replay set for a negative extent (the
 * interpreter reports it). */
static acc_status bind_side(interp *st, const ir_node *n, int i,
                            uint32_t *barg_at, cpu_karray *side,
                            ir_value *constant, int *replay)
{
    const ir_node *xs = n->args[1 + i];
    acc_status s = host_stencil_side(st, n, i, barg_at, side->ext, constant,
                                     replay);
    if (s != ACC_OK || *replay)
        return s;
    side->size = rt_shape_size(xs->type->rank, side->ext);
    if (xs->op != IR_GENERATE) {
        const rt_array *a = interp_array_of(st, xs); /* evaluated above */
        if (!a)
            return host_recorded(st->d);
        memcpy(side->data, a->data, sizeof side->data);
    }
    return ACC_OK;
}

/* About 8 chunks per thread, of whole rows when rows are short. */
static int64_t stencil_grain(const pool *pl, int64_t size, int64_t inner)
{
    int64_t g = cpu_grain(pl, size, 16384);
    return inner < g ? (g + inner - 1) / inner * inner : g;
}

acc_status cpu_drive_stencil(pool *pl, const cpu_node *kn, interp *st,
                             const ir_node *n, rt_array **out, int *replay)
{
    int m = n->op == IR_STENCIL2 ? 2 : 1;
    int32_t r = n->type->rank;
    uint32_t barg_at = 1 + (uint32_t)m;
    cpu_karray side[2];
    ir_value constant[2 * ACC_MAX_COMPONENTS];
    int64_t ext[ACC_MAX_RANK] = {0};
    cpu_launch l;
    memset(&l, 0, sizeof l);
    memset(side, 0, sizeof side);
    memset(constant, 0, sizeof constant);
    for (int i = 0; i < m; i++) {
        acc_status s = bind_side(st, n, i, &barg_at, &side[i],
                                 constant + i * ACC_MAX_COMPONENTS, replay);
        if (s != ACC_OK || *replay)
            return s;
    }
    for (int32_t d = 0; d < r; d++)
        ext[d] = m == 2 && side[1].ext[d] < side[0].ext[d] ? side[1].ext[d]
                                                           : side[0].ext[d];
    if (cpu_bind_arrays(st, &kn->k, &l, 2, replay) != ACC_OK || *replay) {
        cpu_unbind(&l);
        return st->d->status;
    }
    memcpy(l.in + kn->k.n_arrays, side, sizeof side);
    rt_array *a = interp_result(st, n, n->type->elem, r, ext,
                                ir_op_name(n->op));
    l.entry = kn->entry;
    l.A.seed = constant;
    memcpy(l.A.out_ext, ext, sizeof ext);
    if (a && a->size > 0) {
        l.A.out = a->data;
        l.A.out_size = a->size;
        pool_for(pl, a->size, stencil_grain(pl, a->size, ext[r - 1]),
                 cpu_task_run, &l);
    }
    /* the check pass: "row" i is array i, its positions split into parts
     * of l.part_len (A.inner: the kernel does not read it otherwise) */
    for (int i = 0; a && i < m && !cpu_failed(&l) && l.entry->part; i++)
        if (side[i].size > 0 &&
            cg_stencil_needs_checks(&kn->k, i, side[i].ext, ext, r)) {
            l.row = i;
            l.A.inner = side[i].size;
            l.part_len = cpu_grain(pl, side[i].size, 4096);
            pool_for(pl, (side[i].size + l.part_len - 1) / l.part_len, 1,
                     cpu_task_part, &l);
        }
    cpu_unbind(&l);
    if (a && cpu_failed(&l)) {
        rt_release(a);
        return host_replay(replay);
    }
    *out = a;
    return a ? ACC_OK : host_recorded(st->d);
}
