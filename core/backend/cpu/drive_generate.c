/*
 * drive_generate.c — running a manifest generate's kernel
 * (core/skeletons/cpu/generate.c.in) over linear positions; also maps over
 * an array the host evaluates (a reshape, a component of a tuple of
 * arrays...), whose shape is that array's.
 */
#include "core/backend/cpu/cpu_launch.h"

#include <stdlib.h>
#include <string.h>

acc_status cpu_drive_generate(pool *pl, const cpu_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay)
{
    int64_t ext[ACC_MAX_RANK] = {0};
    cpu_launch l;
    memset(&l, 0, sizeof l);
    const ir_node *src = kn->k.src; /* maps over this array, or NULL */
    acc_status s = src ? ACC_OK
                       : host_shape_extents(st, n->args[0], ext, replay);
    if (s != ACC_OK || *replay)
        return s;
    /* the mapped array is an argument: bound first, then its extents */
    s = cpu_bind_arrays(st, &kn->k, &l, 0, replay);
    if (s == ACC_OK && !*replay && src)
        s = host_source_extents(st, src, ext, replay);
    if (s != ACC_OK || *replay) {
        cpu_unbind(&l);
        return s;
    }
    rt_array *a = interp_result(st, n, n->type->elem, n->type->rank, ext,
                                ir_op_name(n->op));
    if (a) {
        l.entry = kn->entry;
        l.A.out = a->data;
        memcpy(l.A.out_ext, ext, sizeof ext);
        l.A.out_size = a->size;
        pool_for(pl, a->size, cpu_grain(pl, a->size, 4096), cpu_task_run, &l);
    }
    cpu_unbind(&l);
    if (a && cpu_failed(&l)) {
        rt_release(a);
        return host_replay(replay);
    }
    *out = a;
    return a ? ACC_OK : host_recorded(st->d);
}
