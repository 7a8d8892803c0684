/*
 * drive_permute.c — running forward permutation's kernel
 * (core/skeletons/cpu/permute.c.in): the defaults pass, then the source
 * pass (for permute' over an embedded expand: the sizes pass, their scan
 * on the host, then the expansion), then the map pass when a map follows.
 * The defaults come first, as in the interpreter; a kernel error or a
 * refused expansion discards the result and returns the step to the
 * interpreter, which reports it.
 *
 * The source pass combines into the shared result with atomics or locks,
 * or, with few target cells and many source elements (a histogram), each
 * thread's part of the source into a private copy of the target, merged
 * afterwards: the threads then never contend for a cache line.
 */
#include "core/backend/cpu/cpu_launch.h"
#include "core/base/mem.h"
#include "core/codegen/kernel_permute.h"

#include <stdlib.h>
#include <string.h>

/* Phase `phase` of the kernel's _part over [0, n). */
static void run_phase(pool *pl, cpu_launch *l, int64_t phase, int64_t n)
{
    l->row = phase;
    if (n > 0 && !cpu_failed(l))
        pool_for(pl, n, cpu_grain(pl, n, 4096), cpu_task_phase, l);
}

/* accel_kernel_run over [0, n). */
static void run_all(pool *pl, cpu_launch *l, int64_t n)
{
    if (n > 0 && !cpu_failed(l))
        pool_for(pl, n, cpu_grain(pl, n, 4096), cpu_task_run, l);
}

/* Private copies of the target: one per thread when the target has at
 * most 65536 cells and the source at least 8 elements per cell and copy
 * (so the copies stay in cache and the merge costs little); else 0. */
static int64_t private_copies(const pool *pl, int64_t cells, int64_t n)
{
    int64_t threads = pool_threads(pl);
    if (threads < 2 || cells > 65536 || n < 32768 || cells * threads * 8 > n)
        return 0;
    return threads;
}

typedef struct private_pass {
    cpu_launch *l;
    int64_t n, len, copies;
} private_pass;

/* Copies [lo, hi): copy p combines source positions [p len, (p+1) len). */
static void task_private(void *arg, int64_t lo, int64_t hi)
{
    private_pass *t = arg;
    cpu_part_fn block;
    memcpy(&block, &t->l->entry->block, sizeof block);
    for (int64_t p = lo; p < hi; p++) {
        int64_t a = p * t->len, b = a + t->len < t->n ? a + t->len : t->n;
        if (a < b)
            block(&t->l->A, p, a, b, p);
    }
}

static void task_merge(void *arg, int64_t lo, int64_t hi)
{
    private_pass *t = arg;
    cpu_part_fn part;
    memcpy(&part, &t->l->entry->part, sizeof part);
    part(&t->l->A, CPU_PERMUTE_MERGE, lo, hi, t->copies);
}

/* Source positions [0, n) combined through `copies` private copies of
 * the target.  0 when they cannot be allocated (nothing was done). */
static int combine_private(pool *pl, cpu_launch *l, const acc_type *elem,
                           int64_t n, int64_t copies)
{
    void *bufs[ACC_MAX_COMPONENTS + 2] = {l->A.part ? l->A.part[0] : NULL};
    size_t cells = (size_t)(copies * l->A.out_size), L = elem->n_leaves;
    int ok = (bufs[1 + L] = mem_calloc(cells, 1)) != NULL;
    for (size_t i = 0; ok && i < L; i++)
        ok = (bufs[1 + i] = mem_alloc(cells * acc_scalar_size(elem->leaves[i])))
             != NULL;
    if (ok) {
        void *const *shared = l->A.part;
        private_pass t = {l, n, (n + copies - 1) / copies, copies};
        l->A.part = bufs;
        pool_for(pl, copies, 1, task_private, &t);
        if (!cpu_failed(l))
            pool_for(pl, l->A.out_size, cpu_grain(pl, l->A.out_size, 1024),
                     task_merge, &t);
        l->A.part = shared;
    }
    for (size_t i = 1; i <= L + 1; i++)
        free(bufs[i]);
    return ok;
}

/* Source positions [0, n) combined into the result. */
static void combine_range(pool *pl, cpu_launch *l, const acc_type *elem,
                          int64_t n)
{
    int64_t copies = private_copies(pl, l->A.out_size, n);
    if (!copies || !combine_private(pl, l, elem, n, copies))
        run_all(pl, l, n); /* shared, also when the copies do not fit */
}

/* The source elements combined into the result: 1, 0 after an error of a
 * host-side term, -1 to return the step to the interpreter. */
static int combine_source(pool *pl, cpu_launch *l, interp *st,
                          const cg_kernel *k, int expanded)
{
    const ir_node *src = expanded ? k->src->args[2] : k->src;
    int64_t ext[ACC_MAX_RANK] = {0}, total = 0;
    int r = host_source_extents(st, src, ext);
    int64_t n = r > 0 ? rt_shape_size(src->type->rank, ext) : 0;
    if (r <= 0 || n < 0)
        return n < 0 ? -1 : r;
    memcpy(l->A.src_ext, ext, sizeof ext);
    if (!expanded) {
        combine_range(pl, l, k->fold->type->elem, n);
        return 1;
    }
    /* a failed allocation is the interpreter's to report too */
    int64_t *off = host_alloc_offsets(n);
    void *parts[1] = {off};
    if (!off)
        return -1;
    l->A.part = parts;
    r = cpu_expand_offsets(pl, l, CPU_PERMUTE_SIZES, n, &total);
    if (r > 0 && !cpu_failed(l))
        combine_range(pl, l, k->fold->type->elem, total);
    l->A.part = NULL;
    free(off);
    return r;
}

/* map g over the permuted array *a, which the mapped array replaces. */
static int map_after(pool *pl, cpu_launch *l, interp *st, const ir_node *n,
                     rt_array **a)
{
    rt_array *m = interp_result(st, n, n->type->elem, (*a)->rank,
                                (*a)->extents, ir_op_name(n->op));
    if (!m)
        return 0;
    l->A.part = (*a)->data;
    l->A.out = m->data;
    run_phase(pl, l, CPU_PERMUTE_MAP, m->size);
    l->A.part = NULL;
    rt_release(*a);
    *a = m;
    return 1;
}

int cpu_drive_permute(pool *pl, const cpu_node *kn, interp *st,
                      const ir_node *n, rt_array **out)
{
    const ir_node *pm = kn->k.fold;
    int expanded = cg_permute_expanded(pm);
    int64_t ext[ACC_MAX_RANK] = {0};
    cpu_launch l;
    memset(&l, 0, sizeof l);
    int r = host_source_extents(st, pm->args[1], ext);
    if (r <= 0)
        return r;
    if (rt_shape_size(pm->type->rank, ext) < 0)
        return -1; /* too many elements: the interpreter names the producer */
    int bound = cpu_bind_arrays(st, &kn->k, &l, 0);
    if (bound <= 0) {
        free(l.in);
        return bound;
    }
    /* without a map after it, the permutation is the step's result */
    rt_array *a = pm == n ? interp_result(st, n, pm->type->elem,
                                          pm->type->rank, ext,
                                          ir_op_name(pm->op))
                          : rt_alloc(pm->type->elem, pm->type->rank, ext,
                                     ir_op_name(pm->op), st->d);
    r = a != NULL;
    if (a) {
        l.entry = kn->entry;
        l.A.out = a->data;
        memcpy(l.A.out_ext, ext, sizeof ext);
        l.A.out_size = a->size;
        run_phase(pl, &l, CPU_PERMUTE_DEFAULTS, a->size);
        r = cpu_failed(&l) ? -1 : combine_source(pl, &l, st, &kn->k, expanded);
        if (r > 0 && !cpu_failed(&l) && n != pm)
            r = map_after(pl, &l, st, n, &a);
    }
    free(l.in);
    if (r > 0 && cpu_failed(&l))
        r = -1;
    if (r <= 0) {
        rt_release(a);
        return r;
    }
    *out = a;
    return 1;
}
