/*
 * drive_expand.c — running expand's kernel (core/skeletons/cpu/expand.c.in):
 * the sizes pass, their checks and exclusive scan on the host (shared with
 * permute' over an expand, drive_permute.c), then the results in parallel
 * over result positions.
 */
#include "core/backend/cpu/cpu_launch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cpu_expand_offsets(pool *pl, cpu_launch *l, int64_t phase, int64_t n,
                       int64_t *total)
{
    int64_t *off = l->A.part[0], sum = 0;
    off[0] = 0;
    l->row = phase;
    l->A.inner = n;
    if (n > 0)
        pool_for(pl, n, cpu_grain(pl, n, 4096), cpu_task_phase, l);
    if (cpu_failed(l))
        return 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t s = off[i + 1];
        if (s < 0 || s > INT64_MAX - sum)
            return 0; /* the interpreter names the element or the total */
        sum += s;
        off[i + 1] = sum;
    }
    *total = sum;
    return 1;
}

acc_status cpu_drive_expand(pool *pl, const cpu_node *kn, interp *st,
                            const ir_node *n, rt_array **out, int *replay)
{
    int64_t ext[ACC_MAX_RANK] = {0}, total = 0;
    cpu_launch l;
    memset(&l, 0, sizeof l);
    acc_status s = host_source_extents(st, kn->k.src, ext, replay);
    if (s != ACC_OK || *replay)
        return s;
    /* a failed allocation is the interpreter's to report too */
    int64_t *off = host_alloc_offsets(ext[0]);
    void *parts[1] = {off};
    if (!off)
        return host_replay(replay);
    if (cpu_bind_arrays(st, &kn->k, &l, 0, replay) != ACC_OK || *replay) {
        cpu_unbind(&l);
        free(off);
        return st->d->status;
    }
    l.entry = kn->entry;
    l.A.part = parts;
    int counted = cpu_expand_offsets(pl, &l, 0, ext[0], &total);
    rt_array *a = counted ? interp_result(st, n, n->type->elem, 1, &total,
                                        "expand")
                        : NULL;
    if (a && total > 0) {
        l.A.out = a->data;
        l.A.out_ext[0] = total;
        l.A.out_size = total;
        pool_for(pl, total, cpu_grain(pl, total, 4096), cpu_task_run, &l);
    }
    cpu_unbind(&l);
    free(off);
    if ((a && cpu_failed(&l)) || !counted) {
        rt_release(a);
        return host_replay(replay);
    }
    *out = a;
    return a ? ACC_OK : host_recorded(st->d);
}
