/*
 * drive_permute.c — running forward permutation's kernel
 * (core/skeletons/cpu/permute.c.in): the defaults pass, then the source
 * pass (for permute' over an embedded expand: the sizes pass, their scan
 * on the host, then the expansion), then the map pass when a map follows.
 * The defaults come first, as in the interpreter; a kernel error or a
 * refused expansion discards the result and returns the step to the
 * interpreter, which reports it.
 *
 * The source pass combines directly on the calling thread (one thread, or
 * a small source: no atomics), in ranges of target cells (permute' over
 * an expansion whose targets grow with the position: each part of the
 * cells writes its defaults, then visits only the positions that land in
 * it), through private copies of the target
 * (the result serving as the first thread's; merged afterwards, so the
 * threads never contend for a cache line), through partitions of a large
 * target (each thread owning a part of the cells), or into the shared
 * result with atomics or locks: choose_strategy, docs/CPU_BACKEND.md.
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

/* The most memory the private copies of a target may take (all copies
 * together, flags included): the sieve's 10^7 i32 cells on two threads
 * (one copy, 40 MB) fit. */
#define PRIVATE_MAX_BYTES ((int64_t)96 << 20)
/* accel_kernel_block's plain destinations (permute.c.in's ACC_DIRECT,
 * ACC_PART0). */
#define PERMUTE_DIRECT (-2)
#define PERMUTE_PART0 (-3)

/* Bytes of one target cell in a private copy: its leaves, and its flag
 * when f has no identity. */
static int64_t cell_bytes(const acc_type *elem, int ident)
{
    int64_t b = ident ? 0 : 1;
    for (size_t i = 0; i < elem->n_leaves; i++)
        b += (int64_t)acc_scalar_size(elem->leaves[i]);
    return b;
}

/* How many private copies of the target a source pass of n elements
 * uses, the result itself serving as the first thread's: threads - 1
 * when there are several threads, the copies fit PRIVATE_MAX_BYTES and
 * the source has at least as many elements as the copies have cells (the
 * clearing and the merge then cost less than the atomics they save: a
 * locked read-modify-write costs several plain passes over a cell); else
 * 0 (atomics or locks on the shared result). */
static int64_t private_copies(const pool *pl, const acc_type *elem, int ident,
                              int64_t cells, int64_t n)
{
    int64_t copies = pool_threads(pl) - 1;
    if (copies < 1 || copies * cells > n ||
        copies * cells > PRIVATE_MAX_BYTES / cell_bytes(elem, ident))
        return 0;
    return copies;
}

typedef struct private_pass {
    cpu_launch *l;
    int64_t n, len, copies, stride;
} private_pass;

/* Slices of the source per thread in the privatised pass (at least
 * PRIVATE_SLICE_MIN positions each).  The threads take the slices in
 * turn rather than one contiguous half each because the cost of a
 * position varies along the source: in the sieve the first half of the
 * expansion is the multiples of 2, 3, 5 (small strides, cache friendly)
 * and the second half the multiples of the 400-odd larger primes (a cache
 * miss per write), so contiguous halves left one thread with nearly all
 * the misses. */
#define PRIVATE_SLICES 32
#define PRIVATE_SLICE_MIN ((int64_t)4096)

/* Tasks [lo, hi) of the source pass: task p combines the slices p, p +
 * stride, p + 2 stride, ... (slice s being positions [s len, (s+1) len)),
 * task 0 directly into the result, task p > 0 into copy p - 1, so no two
 * tasks share a target. */
static void task_private(void *arg, int64_t lo, int64_t hi)
{
    private_pass *t = arg;
    cpu_part_fn block;
    memcpy(&block, &t->l->entry->block, sizeof block);
    for (int64_t p = lo; p < hi; p++)
        for (int64_t a = p * t->len; a < t->n; a += t->stride * t->len) {
            int64_t b = t->n - a > t->len ? a + t->len : t->n;
            if (!cpu_failed(t->l))
                block(&t->l->A, 0, a, b, p == 0 ? PERMUTE_DIRECT : p - 1);
        }
}

static void task_merge(void *arg, int64_t lo, int64_t hi)
{
    private_pass *t = arg;
    cpu_part_fn part;
    memcpy(&part, &t->l->entry->part, sizeof part);
    part(&t->l->A, CPU_PERMUTE_MERGE, lo, hi, t->copies);
}

/* The private copies' buffers laid out in one block of `mem`: bufs[1 +
 * leaf] (64-byte aligned), then (without an identity) the flags, zeroed,
 * at bufs[1 + leaves]. */
static void private_layout(unsigned char *mem, const acc_type *elem,
                           int ident, int64_t cells, void **bufs)
{
    size_t at = 0, L = elem->n_leaves;
    for (size_t i = 0; i < L; i++) {
        bufs[1 + i] = mem + at;
        at += ((size_t)cells * acc_scalar_size(elem->leaves[i]) + 63) &
              ~(size_t)63;
    }
    if (!ident) {
        bufs[1 + L] = mem + at;
        memset(bufs[1 + L], 0, (size_t)cells);
    }
}

/* Source positions [0, n) combined through `copies` private copies of
 * the target besides the result.  0 when they cannot be allocated
 * (nothing was done). */
static int combine_private(pool *pl, cpu_launch *l, const acc_type *elem,
                           int ident, int64_t n, int64_t copies)
{
    void *bufs[ACC_MAX_COMPONENTS + 2] = {l->A.part ? l->A.part[0] : NULL};
    int64_t cells = copies * l->A.out_size;
    unsigned char *mem = pool_scratch(pl, (size_t)(cells * cell_bytes(elem,
                                                                     ident) +
                                                   64 * ACC_MAX_COMPONENTS));
    if (!mem)
        return 0;
    private_layout(mem, elem, ident, cells, bufs);
    void *const *shared = l->A.part;
    int64_t slices = (copies + 1) * PRIVATE_SLICES;
    int64_t len = (n + slices - 1) / slices;
    private_pass t = {l, n, len > PRIVATE_SLICE_MIN ? len : PRIVATE_SLICE_MIN,
                      copies, copies + 1};
    if (getenv("ACC_CPU_PERMUTE_HALVES")) /* measurement: the old split */
        t.len = (n + copies) / (copies + 1);
    l->A.part = bufs;
    if (ident)
        run_phase(pl, l, CPU_PERMUTE_CLEAR, cells);
    if (!cpu_failed(l))
        pool_for(pl, copies + 1, 1, task_private, &t);
    if (!cpu_failed(l))
        pool_for(pl, l->A.out_size, cpu_grain(pl, l->A.out_size, 1024),
                 task_merge, &t);
    l->A.part = shared;
    pool_scratch_done(pl, mem);
    return 1;
}

/* Partitioned: each of the `parts` tasks runs over all source positions
 * [0, n) and combines those whose target is in its part of the cells. */
static void task_partition(void *arg, int64_t lo, int64_t hi)
{
    private_pass *t = arg;
    cpu_part_fn block;
    memcpy(&block, &t->l->entry->block, sizeof block);
    for (int64_t q = lo; q < hi; q++)
        if (!cpu_failed(t->l))
            block(&t->l->A, t->copies, 0, t->n, PERMUTE_PART0 - q);
}

/* Bytes of the result's cells one part of the ranged pass owns: its
 * defaults and combined cells stay in the core's L2 cache. */
#define RANGED_PART_BYTES ((int64_t)256 << 10)

/* Cells per part of the ranged pass over `cells` cells of `bytes` each,
 * for `total` positions of `inner` source elements: RANGED_PART_BYTES,
 * but few enough parts that their walks over the source elements (each
 * part visits every element once: its candidates, a division) cost at
 * most a quarter of the positions, and at least one part per thread. */
static int64_t ranged_grain(const pool *pl, int64_t cells, int64_t bytes,
                            int64_t total, int64_t inner)
{
    int64_t parts = cells * bytes / RANGED_PART_BYTES + 1;
    int64_t cap = total / (4 * (inner > 0 ? inner : 1));
    if (parts > cap)
        parts = cap;
    if (parts < pool_threads(pl))
        parts = pool_threads(pl);
    return (cells + parts - 1) / parts;
}

/* How a source pass combines (ACC_CPU_PERMUTE names one, for tests and
 * measurements; docs/CPU_BACKEND.md). */
typedef enum pm_strategy {
    PM_SHARED, PM_DIRECT, PM_PRIVATE, PM_PARTITION, PM_RANGED
} pm_strategy;

static pm_strategy forced_strategy(void)
{
    static const char *const names[] = {"shared", "direct", "private",
                                        "partition", "range"};
    const char *e = getenv("ACC_CPU_PERMUTE");
    for (int i = 0; e && i < 5; i++)
        if (strcmp(e, names[i]) == 0)
            return (pm_strategy)i;
    return (pm_strategy)-1;
}

/* The strategy for n source positions into `cells` cells: in ranges of
 * cells when the kernel has the ranged pass (k->ranged), the source is
 * not small and the expansion's `inner` source elements are few against
 * its positions (every part walks them all); directly on the calling
 * thread when it is the only one or the source is small (no atomics, no
 * dispatch); private
 * copies when they pay (private_copies); for a larger target, partitions
 * of the cells when the source is at least as large as the target (every
 * thread then reads the whole source but writes without atomics); else
 * atomics or locks.  A forced range on a kernel without the ranged pass
 * is chosen as if not forced. */
static pm_strategy choose_strategy(const pool *pl, const cg_kernel *k,
                                   int ident, int64_t cells, int64_t n,
                                   int64_t inner)
{
    const acc_type *elem = k->fold->type->elem;
    pm_strategy forced = forced_strategy();
    if ((int)forced >= 0 && (forced != PM_RANGED || k->ranged))
        return forced;
    if (k->ranged && n >= CPU_SERIAL_BELOW &&
        4 * inner * pool_threads(pl) <= n)
        return PM_RANGED; /* also on one thread: its parts stay in cache */
    if (cpu_serial(pl, n))
        return PM_DIRECT;
    if (private_copies(pl, elem, ident, cells, n))
        return PM_PRIVATE;
    return n >= cells ? PM_PARTITION : PM_SHARED;
}

/* The result's defaults, then source positions [0, n) combined into it
 * as choose_strategy says (shared also when the copies cannot be
 * allocated); the ranged pass writes the defaults part by part. */
static void combine_range(pool *pl, cpu_launch *l, const cg_kernel *k,
                          int64_t n)
{
    const ir_node *pm = k->fold;
    const acc_type *elem = pm->type->elem;
    int ident = cg_permute_identity(pm) != NULL;
    int64_t threads = pool_threads(pl), cells = l->A.out_size;
    private_pass t = {l, n, n, threads, 1};
    pm_strategy how = choose_strategy(pl, k, ident, cells, n, l->A.inner);
    if (how == PM_RANGED) {
        l->row = CPU_PERMUTE_RANGED;
        if (cells > 0)
            pool_for(pl, cells,
                     ranged_grain(pl, cells, cell_bytes(elem, 1), n,
                                  l->A.inner),
                     cpu_task_phase, l);
        return;
    }
    run_phase(pl, l, CPU_PERMUTE_DEFAULTS, cells);
    if (cpu_failed(l))
        return;
    switch (how) {
    case PM_DIRECT:
        task_private(&t, 0, 1);
        return;
    case PM_PARTITION:
        pool_for(pl, threads, 1, task_partition, &t);
        return;
    case PM_PRIVATE:
        if (threads > 1 &&
            combine_private(pl, l, elem, ident, n, threads - 1))
            return;
        break;
    case PM_SHARED: case PM_RANGED:
        break;
    }
    run_all(pl, l, n);
}

/* The source elements combined into the result: the run diag's status
 * (an error of a host-side term); *replay set to return the step to the
 * interpreter. */
static acc_status combine_source(pool *pl, cpu_launch *l, interp *st,
                                 const cg_kernel *k, int expanded,
                                 int *replay)
{
    const ir_node *src = expanded ? k->src->args[2] : k->src;
    int64_t ext[ACC_MAX_RANK] = {0}, total = 0;
    acc_status s = host_source_extents(st, src, ext, replay);
    if (s != ACC_OK || *replay)
        return s;
    int64_t n = rt_shape_size(src->type->rank, ext);
    if (n < 0)
        return host_replay(replay);
    memcpy(l->A.src_ext, ext, sizeof ext);
    if (!expanded) {
        combine_range(pl, l, k, n);
        return ACC_OK;
    }
    /* a failed allocation is the interpreter's to report too */
    int64_t *off = host_alloc_offsets(n);
    void *parts[1] = {off};
    if (!off)
        return host_replay(replay);
    l->A.part = parts;
    int counted = cpu_expand_offsets(pl, l, CPU_PERMUTE_SIZES, n, &total);
    if (counted && !cpu_failed(l))
        combine_range(pl, l, k, total);
    l->A.part = NULL;
    free(off);
    return counted ? ACC_OK : host_replay(replay);
}

/* map g over the permuted array *a, which the mapped array replaces:
 * the run diag's status. */
static acc_status map_after(pool *pl, cpu_launch *l, interp *st,
                            const ir_node *n, rt_array **a)
{
    rt_array *m = interp_result(st, n, n->type->elem, (*a)->rank,
                                (*a)->extents, ir_op_name(n->op));
    if (!m)
        return host_recorded(st->d);
    l->A.part = (*a)->data;
    l->A.out = m->data;
    run_phase(pl, l, CPU_PERMUTE_MAP, m->size);
    l->A.part = NULL;
    rt_release(*a);
    *a = m;
    return ACC_OK;
}

acc_status cpu_drive_permute(pool *pl, const cpu_node *kn, interp *st,
                             const ir_node *n, rt_array **out, int *replay)
{
    const ir_node *pm = kn->k.fold;
    int expanded = cg_permute_expanded(pm);
    int64_t ext[ACC_MAX_RANK] = {0};
    cpu_launch l;
    memset(&l, 0, sizeof l);
    acc_status s = host_source_extents(st, pm->args[1], ext, replay);
    if (s != ACC_OK || *replay)
        return s;
    if (rt_shape_size(pm->type->rank, ext) < 0)
        /* too many elements: the interpreter names the producer */
        return host_replay(replay);
    if (cpu_bind_arrays(st, &kn->k, &l, 0, replay) != ACC_OK || *replay) {
        cpu_unbind(&l);
        return st->d->status;
    }
    /* without a map after it, the permutation is the step's result */
    rt_array *a = pm == n ? interp_result(st, n, pm->type->elem,
                                          pm->type->rank, ext,
                                          ir_op_name(pm->op))
                          : rt_alloc(pm->type->elem, pm->type->rank, ext,
                                     ir_op_name(pm->op), st->d);
    s = a ? ACC_OK : host_recorded(st->d);
    if (a) {
        l.entry = kn->entry;
        l.A.out = a->data;
        memcpy(l.A.out_ext, ext, sizeof ext);
        l.A.out_size = a->size;
        s = combine_source(pl, &l, st, &kn->k, expanded, replay);
        if (s == ACC_OK && !*replay && !cpu_failed(&l) && n != pm)
            s = map_after(pl, &l, st, n, &a);
    }
    cpu_unbind(&l);
    if (s == ACC_OK && !*replay && cpu_failed(&l))
        s = host_replay(replay); /* a kernel's runtime error */
    if (s != ACC_OK || *replay) {
        rt_release(a);
        return s;
    }
    *out = a;
    return ACC_OK;
}
