/*
 * cpu_launch.c — the pieces every CPU driver uses (see cpu_launch.h).
 */
#include "core/backend/cpu/cpu_launch.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void cpu_task_run(void *arg, int64_t lo, int64_t hi)
{
    cpu_launch *l = arg;
    cpu_run_fn run;
    memcpy(&run, &l->entry->run, sizeof run);
    run(&l->A, lo, hi);
}

/* Parts [lo, hi) of row l->row through entry point fn (_part or _block). */
static void parts_of_row(cpu_launch *l, void (*const *fn)(void), int64_t lo,
                         int64_t hi)
{
    cpu_part_fn part;
    memcpy(&part, fn, sizeof part);
    for (int64_t p = lo; p < hi; p++) {
        int64_t a = p * l->part_len, b = a + l->part_len;
        part(&l->A, l->row, a, b < l->A.inner ? b : l->A.inner, p);
    }
}

void cpu_task_part(void *arg, int64_t lo, int64_t hi)
{
    cpu_launch *l = arg;
    parts_of_row(l, &l->entry->part, lo, hi);
}

void cpu_task_block(void *arg, int64_t lo, int64_t hi)
{
    cpu_launch *l = arg;
    parts_of_row(l, &l->entry->block, lo, hi);
}

int cpu_failed(const cpu_launch *l)
{
    return atomic_load(&((cpu_launch *)l)->err.code) != 0;
}

int cpu_bind_arrays(interp *st, const cg_kernel *k, cpu_launch *l,
                    size_t extra)
{
    l->in = calloc(k->n_arrays + extra ? k->n_arrays + extra : 1,
                   sizeof *l->in);
    if (!l->in) {
        diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "run: out of host memory");
        return 0;
    }
    for (size_t i = 0; i < k->n_arrays; i++) {
        rt_array *a = interp_array_of(st, k->arrays[i]);
        if (!a)
            return 0;
        memcpy(l->in[i].data, a->data, sizeof l->in[i].data);
        memcpy(l->in[i].ext, a->extents, sizeof l->in[i].ext);
        l->in[i].size = a->size;
    }
    l->A.in = l->in;
    l->A.err = &l->err;
    atomic_init(&l->err.code, 0);
    atomic_init(&l->err.site, 0);
    atomic_init(&l->err.pos, LLONG_MAX);
    return 1;
}

int cpu_shape_extents(interp *st, const ir_node *shape, int64_t *ext)
{
    const ir_value *v = interp_eval(st, shape);
    if (!v)
        return 0;
    for (int32_t d = 0; d < shape->type->rank; d++)
        if ((ext[d] = v[d].i) < 0)
            return -1;
    return 1;
}

int cpu_source_extents(interp *st, const ir_node *xs, int64_t *ext)
{
    if (xs->op == IR_GENERATE)
        return cpu_shape_extents(st, xs->args[0], ext);
    rt_array *a = interp_array_raw(st, xs); /* extents only: no download */
    if (!a)
        return 0;
    memcpy(ext, a->extents, sizeof a->extents);
    return 1;
}

int cpu_eval_seed(interp *st, const ir_node *z, const acc_type *elem,
                  ir_value *seed)
{
    const ir_value *v = interp_eval(st, z);
    if (!v)
        return 0;
    memcpy(seed, v, elem->n_leaves * sizeof *seed);
    return 1;
}

int64_t cpu_grain(const pool *pl, int64_t n, int64_t least)
{
    int64_t g = n / (8 * (int64_t)pool_threads(pl));
    return g < least ? least : g;
}

int cpu_alloc_parts(cpu_launch *l, const acc_type *elem, int64_t n,
                    void **parts)
{
    for (size_t i = 0; i < elem->n_leaves; i++)
        if (!(parts[i] = malloc((size_t)n * acc_scalar_size(elem->leaves[i]))))
            return 0;
    l->A.part = parts;
    return 1;
}

void cpu_free_parts(const acc_type *elem, void **parts)
{
    for (size_t i = 0; i < elem->n_leaves; i++)
        free(parts[i]);
}

int64_t cpu_split_row(const pool *pl, cpu_launch *l)
{
    int64_t threads = pool_threads(pl);
    int64_t n = l->A.inner / 16384;
    if (n > 8 * threads)
        n = 8 * threads;
    if (n < 1)
        n = 1;
    l->part_len = (l->A.inner + n - 1) / n;
    return (l->A.inner + l->part_len - 1) / l->part_len;
}
