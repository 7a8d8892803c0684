/*
 * builder_scan.c — the builder functions of the segmented reductions
 * (LANGUAGE.md §3.2: foldSeg, foldSeg', fold1Seg) and of the scans
 * (§3.3: the ten acc_scan_kind values, plain and segmented).
 *
 * All of them combine elements of the innermost dimension of an array of
 * rank >= 1 with f : (e, e) -> e; segment descriptors are vectors of any
 * integer type (i8 .. i64, u8 .. u64: numpy's and CSR's int32 indptr as
 * well as i64), which the backends widen to i64 where they read them.
 * The segment values themselves are checked when the program runs.
 */
#include "core/ir/builder_common.h"
#include "core/ir/scan_kind.h"

/* xs has rank >= 1 and f : (e, e) -> e; returns e or NULL. */
static const acc_type *check_combine(acc_graph *g, const char *op,
                                     acc_node *f, acc_node *xs)
{
    char t[128], u[128];
    if (!gr_want_array(g, op, "the array", xs))
        return NULL;
    if (xs->type->rank < 1) {
        gr_fail(g, ACC_ERR_SHAPE, "%s: the array has rank 0; the operation "
                "works on the innermost dimension, so the rank must be at "
                "least 1", op);
        return NULL;
    }
    const acc_type *e = xs->type->elem;
    const acc_type *ps[2] = {e, e};
    const acc_type *r = gr_check_fun(g, op, "the function", f, 2, ps);
    if (r && !ty_equal(r, e)) {
        gr_fail(g, ACC_ERR_TYPE, "%s: the function returns %s, expected the "
                "element type %s", op, GR_TYPE(r, t), GR_TYPE(e, u));
        return NULL;
    }
    return r;
}

/* z is a scalar term of the element type e. */
static int check_seed(acc_graph *g, const char *op, const acc_node *z,
                      const acc_type *e)
{
    char t[128], u[128];
    if (!gr_want_value(g, op, "the initial value", z))
        return 0;
    if (!ty_equal(z->type, e)) {
        gr_fail(g, ACC_ERR_TYPE, "%s: the initial value has type %s, expected "
                "the element type %s", op, GR_TYPE(z->type, t), GR_TYPE(e, u));
        return 0;
    }
    return 1;
}

/* A segment descriptor (lengths or offsets) is a vector of an integer
 * type. */
static int check_segments(acc_graph *g, const char *op, const char *what,
                          const acc_node *seg)
{
    char t[128];
    if (!gr_want_array(g, op, what, seg))
        return 0;
    const acc_type *e = seg->type->elem;
    if (seg->type->rank != 1 || e->kind != ACC_TYPE_SCALAR ||
        !ty_is_integral(e->scalar)) {
        gr_fail(g, ACC_ERR_TYPE, "%s: %s has type %s, expected a vector of "
                "an integer type (Vector i32, Vector i64, Vector u32, ...)",
                op, what, GR_TYPE(seg->type, t));
        return 0;
    }
    return 1;
}

/* ---- segmented reductions ------------------------------------------------- */

/* foldSeg (seeded), foldSeg' (seeded, offsets), fold1Seg (neither). */
static acc_node *fold_seg(acc_graph *g, const char *op, acc_node *f,
                          acc_node *z, acc_node *xs, acc_node *seg,
                          int seeded, int offsets)
{
    if (!gr_begin(g, op))
        return NULL;
    const acc_type *e = check_combine(g, op, f, xs);
    if (!e || (seeded && !check_seed(g, op, z, e)) ||
        !check_segments(g, op, offsets ? "the offsets" : "the segments", seg))
        return NULL;
    acc_node *args[4];
    uint32_t n = 0;
    args[n++] = f;
    if (seeded)
        args[n++] = z;
    args[n++] = xs;
    args[n++] = seg;
    ir_node *node = gr_closed_node(g, op, IR_FOLD_SEG,
                                   gr_array_type(g, e, xs->type->rank), n,
                                   args);
    if (node) {
        node->u.seg.seeded = seeded;
        node->u.seg.offsets = offsets;
    }
    return node;
}

acc_node *acc_fold_seg(acc_graph *g, acc_node *f, acc_node *z, acc_node *xs,
                       acc_node *seg)
{
    return fold_seg(g, "foldSeg", f, z, xs, seg, 1, 0);
}

acc_node *acc_fold_seg_offsets(acc_graph *g, acc_node *f, acc_node *z,
                               acc_node *xs, acc_node *offsets)
{
    return fold_seg(g, "foldSeg'", f, z, xs, offsets, 1, 1);
}

acc_node *acc_fold1_seg(acc_graph *g, acc_node *f, acc_node *xs,
                        acc_node *seg)
{
    return fold_seg(g, "fold1Seg", f, NULL, xs, seg, 0, 0);
}

/* ---- scans ------------------------------------------------------------------ */

/* The result type: Array r e, or for the primed kinds a tuple of it and
 * the totals, Array r e when segmented (k per row), else Array (r-1) e. */
static const acc_type *scan_type(acc_graph *g, acc_scan_kind kind,
                                 const acc_type *e, int32_t rank,
                                 int segmented)
{
    const acc_type *fields[2];
    fields[0] = gr_array_type(g, e, rank);
    if (!fields[0] || ir_scan_form_of(kind) != IR_SCAN_PRIMED)
        return fields[0];
    fields[1] = gr_array_type(g, e, segmented ? rank : rank - 1);
    return fields[1] ? gr_tuple_type(g, 2, fields) : NULL;
}

static acc_node *scan(acc_graph *g, acc_scan_kind kind, acc_node *f,
                      acc_node *z, acc_node *xs, acc_node *seg)
{
    if (!gr_begin(g, "scan"))
        return NULL;
    if (!ir_scan_valid((int)kind))
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: %d is not an "
                       "acc_scan_kind value", seg ? "segmented scan" : "scan",
                       (int)kind);
    const char *op = ir_scan_name(kind, seg != NULL);
    const acc_type *e = check_combine(g, op, f, xs);
    if (!e)
        return NULL;
    if (ir_scan_seeded(kind) && !check_seed(g, op, z, e))
        return NULL;
    if (!ir_scan_seeded(kind) && z)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: takes no initial "
                       "value; pass NULL for z", op);
    if (seg && !check_segments(g, op, "the segments", seg))
        return NULL;
    acc_node *args[4];
    uint32_t n = 0;
    args[n++] = f;
    if (z)
        args[n++] = z;
    args[n++] = xs;
    if (seg)
        args[n++] = seg;
    ir_node *node = gr_closed_node(g, op, seg ? IR_SCAN_SEG : IR_SCAN,
                                   scan_type(g, kind, e, xs->type->rank,
                                             seg != NULL),
                                   n, args);
    if (node)
        node->u.scan.kind = kind;
    return node;
}

acc_node *acc_scan(acc_graph *g, acc_scan_kind kind, acc_node *f,
                   acc_node *z, acc_node *xs)
{
    return scan(g, kind, f, z, xs, NULL);
}

acc_node *acc_scan_seg(acc_graph *g, acc_scan_kind kind, acc_node *f,
                       acc_node *z, acc_node *xs, acc_node *seg)
{
    if (!gr_begin(g, "segmented scan") ||
        !gr_arg(g, ir_scan_name(kind, 1), "the segments", seg))
        return NULL;
    return scan(g, kind, f, z, xs, seg);
}
