/*
 * cpu_launch.c — the pieces every CPU driver uses (see cpu_launch.h).
 */
#include "core/backend/cpu/cpu_launch.h"

#include "core/ir/scan_kind.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The kernels' view of the run's stop request (cpu_kerr.stop). */
static int stop_requested(const void *state)
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
        if (!a) {
            /* scalar code reads arrays lazily in the interpreter: it may
             * never need this one (a read in a branch not taken, or in a
             * function applied to no element), so the interpreter runs the
             * step and reports the error only if it reaches the read */
            diag_clear(st->d);
            return -1;
        }
        memcpy(l->in[i].data, a->data, sizeof l->in[i].data);
        memcpy(l->in[i].ext, a->extents, sizeof l->in[i].ext);
        l->in[i].size = a->size;
    }
    l->A.in = l->in;
    l->A.err = &l->err;
    atomic_init(&l->err.code, 0);
    atomic_init(&l->err.site, 0);
    atomic_init(&l->err.pos, LLONG_MAX);
    l->err.stop = st->stop ? stop_requested : NULL;
    l->err.stop_state = st->stop;
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
    /* extents whose product is beyond int64: nothing may be computed from
     * them (the interpreter reports the shape) */
    return rt_shape_size(shape->type->rank, ext) < 0 ? -1 : 1;
}

int64_t *cpu_alloc_offsets(int64_t n)
{
    if (n < 0 || (uint64_t)n >= SIZE_MAX / sizeof(int64_t) - 1)
        return NULL;
    return malloc((size_t)(n + 1) * sizeof(int64_t));
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

int cpu_stencil_side(interp *st, const ir_node *n, int i, uint32_t *barg_at,
                     int64_t *ext, ir_value *constant)
{
    const ir_node *xs = n->args[1 + i];
    acc_boundary b = n->u.stencil.boundary[i];
    int ok = cpu_source_extents(st, xs, ext);
    if (ok <= 0 || (b != ACC_BOUNDARY_FUNCTION && b != ACC_BOUNDARY_CONSTANT))
        return ok;
    const ir_node *barg = n->args[(*barg_at)++];
    return b == ACC_BOUNDARY_FUNCTION ||
           cpu_eval_seed(st, barg, xs->type->elem, constant);
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

/* Lengths v[0..n) into offsets off[0..n]: 1, or -1 when a length is
 * negative or the segments end beyond the row (inner elements).  One pass,
 * the running sum in a register (SMVM's 500000 rows). */
static int lengths_to_offsets(const int64_t *v, int64_t n, int64_t inner,
                              int64_t *off)
{
    int64_t sum = 0;
    off[0] = 0;
    for (int64_t s = 0; s < n; s++) {
        int64_t len = v[s];
        if (len < 0 || len > inner - sum)
            return -1;
        sum += len;
        off[s + 1] = sum;
    }
    return 1;
}

/* The same over a pool, in parts (a prefix sum in three passes): each
 * part's sum, refusing a negative length or a part beyond the row; the
 * parts' sums in order into each part's first offset, refusing a total
 * beyond the row; each part's offsets.  Exactly the serial refusals:
 * lengths are not negative, so the running sum only grows. */
typedef struct offsets_job {
    const int64_t *v;
    int64_t *off, *base; /* base[p]: part p's sum, then its first offset */
    int64_t n, inner, part;
    atomic_int refused;
} offsets_job;

static void part_sums(void *arg, int64_t lo, int64_t hi)
{
    offsets_job *j = arg;
    for (int64_t p = lo; p < hi; p++) {
        int64_t a = p * j->part, b = a + j->part < j->n ? a + j->part : j->n;
        int64_t sum = 0;
        for (int64_t s = a; s < b; s++) {
            if (j->v[s] < 0 || j->v[s] > j->inner - sum) {
                atomic_store(&j->refused, 1);
                break;
            }
            sum += j->v[s];
        }
        j->base[p] = sum;
    }
}

static void part_offsets(void *arg, int64_t lo, int64_t hi)
{
    offsets_job *j = arg;
    for (int64_t p = lo; p < hi; p++) {
        int64_t a = p * j->part, b = a + j->part < j->n ? a + j->part : j->n;
        int64_t sum = j->base[p];
        for (int64_t s = a; s < b; s++) {
            sum += j->v[s];
            j->off[s + 1] = sum;
        }
    }
}

/* lengths_to_offsets over pool pl: 1, -1 refused, 0 out of memory. */
static int lengths_to_offsets_parallel(pool *pl, const int64_t *v, int64_t n,
                                       int64_t inner, int64_t *off)
{
    int64_t parts = 4 * (int64_t)pool_threads(pl);
    offsets_job j = {v, off, calloc((size_t)parts, sizeof(int64_t)), n,
                     inner, (n + parts - 1) / parts, 0};
    if (!j.base)
        return 0;
    pool_for(pl, parts, 1, part_sums, &j);
    int64_t running = 0;
    for (int64_t p = 0; p < parts && !atomic_load(&j.refused); p++) {
        int64_t sum = j.base[p];
        if (sum > inner - running)
            atomic_store(&j.refused, 1);
        j.base[p] = running;
        running += sum;
    }
    int refused = atomic_load(&j.refused);
    off[0] = 0;
    if (!refused)
        pool_for(pl, parts, 1, part_offsets, &j);
    free(j.base);
    return refused ? -1 : 1;
}

/* Offsets v[0..n) (n >= 1) copied into off: 1, or -1 unless they start
 * at 0, never decrease and end within the row. */
static int checked_offsets(const int64_t *v, int64_t n, int64_t inner,
                           int64_t *off)
{
    if (v[0] != 0)
        return -1;
    for (int64_t s = 0; s < n; s++) {
        if (v[s] < (s ? v[s - 1] : 0) || v[s] > inner)
            return -1;
        off[s] = v[s];
    }
    return 1;
}

/* The entries of descriptor seg as i64 in *v: its own buffer when it is
 * i64 (NULL when empty), else a widened copy, also left in *copy for
 * pool_scratch_done (segments may have any integer type; this is the one
 * place the compiled backends read them).  A u64 entry beyond 2^63-1
 * becomes -1, which the checks refuse, so the interpreter names it.  0
 * when out of memory. */
static int segment_values(pool *pl, const rt_array *seg, const int64_t **v,
                          int64_t **copy)
{
    acc_scalar t = seg->elem->scalar;
    *copy = NULL;
    *v = seg->data[0];
    if (t == ACC_I64)
        return 1;
    int64_t *w = pool_scratch(pl, (size_t)(seg->size + 1) * sizeof *w);
    if (!w)
        return 0;
    for (int64_t s = 0; s < seg->size; s++) {
        ir_value x = val_load(seg->data[0], t, s);
        w[s] = t == ACC_U64 && x.u > (uint64_t)INT64_MAX ? -1 : x.i;
    }
    *v = *copy = w;
    return 1;
}

/* The offsets of descriptor array seg: 1, 0 when out of memory, -1 when
 * refused (see cpu_segments). */
static int segment_offsets(pool *pl, const rt_array *seg, int offsets,
                           int64_t inner, int64_t **off_out, int64_t *k)
{
    *k = offsets ? seg->size - 1 : seg->size;
    if (offsets && seg->size == 0)
        return -1;
    int64_t *copy;
    const int64_t *v;
    int64_t *off = segment_values(pl, seg, &v, &copy)
                       ? pool_scratch(pl, (size_t)(seg->size + 1) * sizeof *off)
                       : NULL;
    if (!off) {
        pool_scratch_done(pl, copy);
        return 0;
    }
    /* many lengths (SMVM's rows) are summed over the pool */
    int r = offsets ? checked_offsets(v, seg->size, inner, off)
          : pl && pool_threads(pl) > 1 && seg->size >= 65536
              ? lengths_to_offsets_parallel(pl, v, seg->size, inner, off)
              : lengths_to_offsets(v, seg->size, inner, off);
    pool_scratch_done(pl, copy);
    if (r <= 0) {
        pool_scratch_done(pl, off);
        return r;
    }
    *off_out = off;
    return 1;
}

int cpu_segments(interp *st, pool *pl, const ir_node *seg, int offsets,
                 int64_t inner, const char *op, int64_t **off, int64_t *k)
{
    rt_array *a = interp_array_of(st, seg);
    if (!a)
        return 0;
    int ok = segment_offsets(pl, a, offsets, inner, off, k);
    if (ok == 0)
        diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory",
                  op);
    return ok;
}

/* A segmented fold's offsets, and its other refusal: an empty fold1Seg
 * segment in a non-empty array. */
static int fold_segments(interp *st, pool *pl, const ir_node *fold,
                         cpu_source *src)
{
    int seeded = fold->u.seg.seeded;
    int ok = cpu_segments(st, pl, fold->args[seeded ? 3 : 2],
                          fold->u.seg.offsets,
                          src->inner, ir_fold_seg_name(fold), &src->off,
                          &src->k);
    for (int64_t s = 0; ok > 0 && !seeded && src->rows != 0 && s < src->k; s++)
        if (src->off[s] == src->off[s + 1]) {
            pool_scratch_done(pl, src->off);
            src->off = NULL;
            ok = -1;
        }
    return ok;
}

int cpu_consumer_source(interp *st, pool *pl, const ir_node *c,
                        const ir_node *xs, cpu_source *src)
{
    int32_t r = xs->type->rank;
    memset(src, 0, sizeof *src);
    int ok = cpu_source_extents(st, xs, src->ext);
    if (ok <= 0)
        return ok;
    src->inner = src->ext[r - 1];
    src->rows = rt_shape_size(r - 1, src->ext);
    int empty_rows = src->inner == 0 && src->rows != 0;
    int scan = c->op == IR_SCAN || c->op == IR_SCAN_SEG;
    src->seeded = scan ? ir_scan_seeded(c->u.scan.kind)
                : c->op == IR_FOLD_SEG ? c->u.seg.seeded : c->op == IR_FOLD;
    if (c->op == IR_FOLD_SEG)
        ok = fold_segments(st, pl, c, src);
    else if (c->op == IR_SCAN_SEG)
        ok = cpu_segments(st, pl, c->args[src->seeded ? 3 : 2], 0, src->inner,
                          ir_scan_name(c->u.scan.kind, 1), &src->off,
                          &src->k);
    else if (empty_rows && (c->op == IR_FOLD1 ||
                            (c->op == IR_SCAN && !src->seeded)))
        ok = -1; /* fold1, scanl1, scanr1: nothing to start a row from */
    if (ok > 0 && src->seeded &&
        !cpu_eval_seed(st, c->args[1], xs->type->elem, src->seed))
        ok = 0;
    if (ok <= 0) {
        pool_scratch_done(pl, src->off);
        src->off = NULL;
    }
    return ok;
}

void cpu_bind_segments(cpu_launch *l, size_t at, int64_t *off, int64_t k)
{
    l->in[at].data[0] = off;
    l->in[at].ext[0] = k + 1;
    l->in[at].size = k;
}
