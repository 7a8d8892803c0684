/*
 * host_eval.c — host-side evaluation for compiled steps (see
 * host_eval.h).
 */
#include "core/backend/host/host_eval.h"

#include "core/base/mem.h"
#include "core/ir/scan_kind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The run diag's status after a failed evaluation: ACC_ERR_INTERNAL
 * recorded when nothing was, so no failure can pass as a success. */
static acc_status failure(interp *st)
{
    if (diag_ok(st->d))
        diag_fail(st->d, ACC_ERR_INTERNAL, "a compiled step failed without "
                  "recording an error");
    return st->d->status;
}

/* The interpreter is to evaluate the step and name why (an outcome, not
 * an error). */
static acc_status refuse(int *replay)
{
    *replay = 1;
    return ACC_OK;
}

acc_status host_shape_extents(interp *st, const ir_node *shape, int64_t *ext,
                              int *replay)
{
    const ir_value *v = interp_eval(st, shape);
    if (!v)
        return failure(st);
    for (int32_t d = 0; d < shape->type->rank; d++)
        if ((ext[d] = v[d].i) < 0)
            return refuse(replay);
    /* extents whose product is beyond int64: nothing may be computed from
     * them (the interpreter reports the shape) */
    return rt_shape_size(shape->type->rank, ext) < 0 ? refuse(replay)
                                                     : ACC_OK;
}

int64_t *host_alloc_offsets(int64_t n)
{
    if (n < 0 || (uint64_t)n >= SIZE_MAX / sizeof(int64_t) - 1)
        return NULL;
    return mem_alloc((size_t)(n + 1) * sizeof(int64_t));
}

acc_status host_source_extents(interp *st, const ir_node *xs, int64_t *ext,
                               int *replay)
{
    if (xs->op == IR_GENERATE)
        return host_shape_extents(st, xs->args[0], ext, replay);
    rt_array *a = interp_array_raw(st, xs); /* extents only: no download */
    if (!a)
        return failure(st);
    memcpy(ext, a->extents, sizeof a->extents);
    return ACC_OK;
}

acc_status host_eval_seed(interp *st, const ir_node *z, const acc_type *elem,
                          ir_value *seed)
{
    const ir_value *v = interp_eval(st, z);
    if (!v)
        return failure(st);
    memcpy(seed, v, elem->n_leaves * sizeof *seed);
    return ACC_OK;
}

acc_status host_stencil_side(interp *st, const ir_node *n, int i,
                             uint32_t *barg_at, int64_t *ext,
                             ir_value *constant, int *replay)
{
    const ir_node *xs = n->args[1 + i];
    acc_boundary b = n->u.stencil.boundary[i];
    acc_status s = host_source_extents(st, xs, ext, replay);
    if (s != ACC_OK || *replay ||
        (b != ACC_BOUNDARY_FUNCTION && b != ACC_BOUNDARY_CONSTANT))
        return s;
    const ir_node *barg = n->args[(*barg_at)++];
    return b == ACC_BOUNDARY_FUNCTION
               ? ACC_OK
               : host_eval_seed(st, barg, xs->type->elem, constant);
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
    offsets_job j = {v, off, mem_calloc((size_t)parts, sizeof(int64_t)), n,
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
 * refused (see host_segments). */
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

acc_status host_segments(interp *st, pool *pl, const ir_node *seg,
                         int offsets, int64_t inner, const char *op,
                         int64_t **off, int64_t *k, int *replay)
{
    rt_array *a = interp_array_of(st, seg);
    if (!a)
        return failure(st);
    int ok = segment_offsets(pl, a, offsets, inner, off, k);
    if (ok == 0)
        return diag_oom(st->d, op);
    return ok < 0 ? refuse(replay) : ACC_OK;
}

/* A segmented fold's offsets, and its other refusal: an empty fold1Seg
 * segment in a non-empty array. */
static acc_status fold_segments(interp *st, pool *pl, const ir_node *fold,
                                host_source *src, int *replay)
{
    int seeded = fold->u.seg.seeded;
    acc_status s = host_segments(st, pl, fold->args[seeded ? 3 : 2],
                                 fold->u.seg.offsets, src->inner,
                                 ir_fold_seg_name(fold), &src->off, &src->k,
                                 replay);
    if (s != ACC_OK || *replay || seeded || src->rows == 0)
        return s;
    for (int64_t i = 0; i < src->k; i++)
        if (src->off[i] == src->off[i + 1])
            return refuse(replay); /* the caller frees the offsets */
    return ACC_OK;
}

acc_status host_source_eval(interp *st, pool *pl, const ir_node *c,
                            const ir_node *xs, host_source *src, int *replay)
{
    int32_t r = xs->type->rank;
    memset(src, 0, sizeof *src);
    acc_status s = host_source_extents(st, xs, src->ext, replay);
    if (s != ACC_OK || *replay)
        return s;
    src->inner = src->ext[r - 1];
    src->rows = rt_shape_size(r - 1, src->ext);
    int empty_rows = src->inner == 0 && src->rows != 0;
    int scan = c->op == IR_SCAN || c->op == IR_SCAN_SEG;
    src->seeded = scan ? ir_scan_seeded(c->u.scan.kind)
                : c->op == IR_FOLD_SEG ? c->u.seg.seeded : c->op == IR_FOLD;
    if (c->op == IR_FOLD_SEG)
        s = fold_segments(st, pl, c, src, replay);
    else if (c->op == IR_SCAN_SEG)
        s = host_segments(st, pl, c->args[src->seeded ? 3 : 2], 0,
                          src->inner, ir_scan_name(c->u.scan.kind, 1),
                          &src->off, &src->k, replay);
    else if (empty_rows && (c->op == IR_FOLD1 ||
                            (c->op == IR_SCAN && !src->seeded)))
        s = refuse(replay); /* fold1, scanl1, scanr1: no row start */
    if (s == ACC_OK && !*replay && src->seeded)
        s = host_eval_seed(st, c->args[1], xs->type->elem, src->seed);
    if (s != ACC_OK || *replay) {
        pool_scratch_done(pl, src->off);
        src->off = NULL;
    }
    return s;
}

acc_status host_replay(int *replay)
{
    *replay = 1;
    return ACC_OK;
}

acc_status host_recorded(diag *d)
{
    if (diag_ok(d))
        diag_fail(d, ACC_ERR_INTERNAL, "a compiled step failed without "
                  "recording an error");
    return d->status;
}
