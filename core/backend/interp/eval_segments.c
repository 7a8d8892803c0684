/*
 * eval_segments.c — segment descriptors and the segmented reductions
 * (LANGUAGE.md §3.2: foldSeg, foldSeg', fold1Seg) in the reference
 * interpreter.
 *
 * A descriptor (lengths, or offsets for foldSeg') of any integer type is
 * widened to i64 and turned into offsets off[0..k] into a row, checked
 * once per run; every row of the array uses the same segments.  Each segment is reduced with fold's balanced tree
 * (interp_reduce_range); the seed is combined once, first: f z (reduction).
 */
#include "core/backend/interp/interp_state.h"

#include "core/base/mem.h"
#include "core/ir/scan_kind.h"

#include <stdlib.h>
#include <string.h>

/* Segment s ends beyond rows of `inner` elements. */
static int too_long(interp *st, const char *op, int64_t s, int64_t inner)
{
    diag_fail(st->d, ACC_ERR_SHAPE, "%s: segment %lld ends beyond the %lld "
              "elements of the innermost dimension of the array", op,
              (long long)s, (long long)inner);
    return 0;
}

/* Entry s of the descriptor (of lengths, or of offsets) widened to i64;
 * a u64 entry beyond 2^63-1 is refused: no extent is that large. */
static int seg_entry(interp *st, const char *op, const rt_array *seg,
                     int64_t s, int offsets, int64_t *v)
{
    acc_scalar t = seg->elem->scalar;
    ir_value x = val_load(seg->data[0], t, s);
    if (t == ACC_U64 && x.u > (uint64_t)INT64_MAX) {
        diag_fail(st->d, ACC_ERR_RUNTIME, offsets ? "%s: offset %lld is %llu, "
                  "beyond 2^63-1 (the largest extent)" : "%s: segment %lld "
                  "has length %llu, beyond 2^63-1 (the largest extent)", op,
                  (long long)s, (unsigned long long)x.u);
        return 0;
    }
    *v = x.i;
    return 1;
}

static int lengths_to_offsets(interp *st, const char *op, const rt_array *seg,
                              int64_t inner, int64_t *off)
{
    off[0] = 0;
    for (int64_t s = 0; s < seg->size; s++) {
        int64_t len;
        if (!seg_entry(st, op, seg, s, 0, &len))
            return 0;
        if (len < 0) {
            diag_fail(st->d, ACC_ERR_RUNTIME, "%s: segment %lld has length "
                      "%lld; lengths must not be negative", op, (long long)s,
                      (long long)len);
            return 0;
        }
        if (len > inner - off[s])
            return too_long(st, op, s, inner);
        off[s + 1] = off[s] + len;
    }
    return 1;
}

static int check_offsets(interp *st, const char *op, const rt_array *seg,
                         int64_t inner, int64_t *off)
{
    if (seg->size == 0) {
        diag_fail(st->d, ACC_ERR_RUNTIME, "%s: the offsets vector is empty; it "
                  "needs one more entry than there are segments, starting "
                  "with 0", op);
        return 0;
    }
    for (int64_t s = 0; s < seg->size; s++) {
        if (!seg_entry(st, op, seg, s, 1, &off[s]))
            return 0;
        int64_t before = s ? off[s - 1] : 0;
        if (off[s] < before || (s == 0 && off[s] != 0)) {
            diag_fail(st->d, ACC_ERR_RUNTIME, "%s: offset %lld is %lld after "
                      "%lld; offsets start with 0 and never decrease", op,
                      (long long)s, (long long)off[s], (long long)before);
            return 0;
        }
        if (off[s] > inner)
            return too_long(st, op, s - 1, inner);
    }
    return 1;
}

int64_t *interp_read_segments(interp *st, const char *op, const rt_array *seg,
                              int offsets, int64_t inner, int64_t *k)
{
    *k = offsets ? seg->size - 1 : seg->size;
    int64_t *off = mem_alloc((size_t)(seg->size + 1) * sizeof *off);
    if (!off) {
        diag_oom(st->d, op);
        return NULL;
    }
    int ok = offsets ? check_offsets(st, op, seg, inner, off)
                     : lengths_to_offsets(st, op, seg, inner, off);
    if (!ok) {
        free(off);
        return NULL;
    }
    return off;
}

/* One result element: the reduction of xs[lo, hi) (hi > lo), combined as
 * f z r when there is a seed z. */
static const ir_value *fold_segment(interp *st, const ir_node *f,
                                    const rt_array *xs, const ir_value *z,
                                    int64_t lo, int64_t hi, ir_value *acc)
{
    if (!interp_reduce_range(st, f, xs, lo, hi, acc))
        return NULL;
    const ir_value *args[2] = {z, acc};
    return z ? interp_apply(st, f, args) : acc;
}

/* The element at linear position `at` of the result (segment at % k of
 * row at / k): z for an empty segment; fold1Seg refuses one. */
static const ir_value *segment_value(interp *st, const ir_node *n,
                                     const rt_array *xs, const ir_value *z,
                                     const int64_t *off, int64_t k,
                                     int64_t at, ir_value *acc)
{
    int64_t row = at / k, s = at % k;
    int64_t base = row * xs->extents[xs->rank - 1];
    if (off[s] < off[s + 1])
        return fold_segment(st, n->args[0], xs, z, base + off[s],
                            base + off[s + 1], acc);
    if (!z)
        diag_fail(st->d, ACC_ERR_RUNTIME, "fold1Seg: segment %lld (of row "
                  "%lld) is empty; fold1Seg needs non-empty segments",
                  (long long)s, (long long)row);
    return z;
}

rt_array *interp_eval_fold_seg(interp *st, const ir_node *n)
{
    int seeded = n->u.seg.seeded;
    const char *op = ir_fold_seg_name(n);
    ir_value seed[ACC_MAX_COMPONENTS], acc[ACC_MAX_COMPONENTS];
    rt_array *xs = interp_array_of(st, n->args[seeded ? 2 : 1]);
    rt_array *seg = xs ? interp_array_of(st, n->args[seeded ? 3 : 2]) : NULL;
    const ir_value *z = seg && seeded ? interp_eval(st, n->args[1]) : NULL;
    if (!seg || (seeded && !z))
        return NULL;
    if (seeded)
        memcpy(seed, z, xs->elem->n_leaves * sizeof *seed);
    int32_t outer = xs->rank - 1;
    int64_t ext[ACC_MAX_RANK], k, inner = xs->extents[outer];
    int64_t *off = interp_read_segments(st, op, seg, n->u.seg.offsets, inner,
                                        &k);
    memcpy(ext, xs->extents, (size_t)outer * sizeof *ext);
    ext[outer] = k;
    rt_array *r = off ? rt_alloc(n->type->elem, xs->rank, ext, op, st->d)
                      : NULL;
    for (int64_t at = 0; r && at < r->size; at++) {
        const ir_value *v = segment_value(st, n, xs, seeded ? seed : NULL,
                                          off, k, at, acc);
        if (!v) {
            rt_release(r);
            r = NULL;
            break;
        }
        interp_store_element(r, at, v);
    }
    free(off);
    return r;
}
