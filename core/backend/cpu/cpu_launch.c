/*
 * cpu_launch.c — the pieces every CPU driver uses (see cpu_launch.h).
 */
#include "core/backend/cpu/cpu_launch.h"

#include "core/base/mem.h"
#include "core/ir/scan_kind.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cpu_stop_requested(const void *state)
{
    return stop_check((run_stop *)state) != ACC_OK;
}

/* The check point before each chunk of a kernel's parallel loop: once the
 * run is to stop, the remaining chunks are skipped and the launch fails
 * (the interpreter then reports why, core/backend/interp/eval_array.c). */
static int stopping(cpu_launch *l)
{
    if (!l->err.stop || !l->err.stop(l->err.stop_state))
        return 0;
    atomic_store(&l->err.code, CPU_KERR_STOP);
    return 1;
}

void cpu_task_run(void *arg, int64_t lo, int64_t hi)
{
    cpu_launch *l = arg;
    if (stopping(l))
        return;
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
    if (stopping(l))
        return;
    parts_of_row(l, &l->entry->part, lo, hi);
}

void cpu_task_block(void *arg, int64_t lo, int64_t hi)
{
    cpu_launch *l = arg;
    if (stopping(l))
        return;
    parts_of_row(l, &l->entry->block, lo, hi);
}

void cpu_task_phase(void *arg, int64_t lo, int64_t hi)
{
    cpu_launch *l = arg;
    if (stopping(l))
        return;
    cpu_part_fn part;
    memcpy(&part, &l->entry->part, sizeof part);
    part(&l->A, l->row, lo, hi, 0);
}

acc_status cpu_bind_arrays(interp *st, const cg_kernel *k, cpu_launch *l,
                           size_t extra, int *replay)
{
    size_t n = k->n_arrays + extra;
    *replay = 0;
    /* a small run's arguments live in the launch: no allocation */
    l->in = n <= CPU_FEW_ARRAYS ? l->few : mem_calloc(n, sizeof *l->in);
    if (!l->in)
        return diag_oom(st->d, "run");
    for (size_t i = 0; i < k->n_arrays; i++) {
        rt_array *a = interp_array_of(st, k->arrays[i]);
        if (!a) {
            /* scalar code reads arrays lazily in the interpreter: it may
             * never need this one (a read in a branch not taken, or in a
             * function applied to no element), so the interpreter runs the
             * step and reports the error only if it reaches the read */
            diag_clear(st->d);
            *replay = 1;
            return ACC_OK;
        }
        memcpy(l->in[i].data, a->data, sizeof l->in[i].data);
        memcpy(l->in[i].ext, a->extents, sizeof l->in[i].ext);
        l->in[i].size = a->size;
    }
    cpu_arm(l, st->stop);
    return ACC_OK;
}

void cpu_unbind(cpu_launch *l)
{
    if (l->in != l->few)
        free(l->in);
    l->in = NULL;
}

int64_t cpu_grain(const pool *pl, int64_t n, int64_t least)
{
    int64_t g = n / (8 * (int64_t)pool_threads(pl));
    return g < least ? least : g;
}

acc_status cpu_alloc_parts(cpu_launch *l, const acc_type *elem, int64_t n,
                           void **parts, diag *d, const char *op)
{
    for (size_t i = 0; i < elem->n_leaves; i++)
        if (!(parts[i] = mem_alloc((size_t)n *
                                   acc_scalar_size(elem->leaves[i]))))
            return diag_oom(d, op);
    l->A.part = parts;
    return ACC_OK;
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

void cpu_bind_segments(cpu_launch *l, size_t at, int64_t *off, int64_t k)
{
    l->in[at].data[0] = off;
    l->in[at].ext[0] = k + 1;
    l->in[at].size = k;
}
