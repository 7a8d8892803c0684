/*
 * test_extent_overflow.c — extents near 2^63 are checked before anything is
 * computed from them (docs/ARCHITECTURE.md, "Semantic decisions"): a scan's
 * n + 1 outputs per row, a segmented scan's S + k, the product of a
 * generate's, fill's, replicate's, reshape's or backpermute's extents, an
 * expansion's total, and an expansion's offsets on the CPU backend.  Each
 * program runs on the interpreter and the CPU backend (ts_differ: the
 * same status and message); the error comes before any memory for the
 * huge array is asked for (an array of 2^63 - 1 elements, or of a zero
 * extent next to huge ones), so the sanitizer build (build-asan, UBSan)
 * checks that no arithmetic overflowed on the way.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

TestSuite(extent_overflow, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

#define BIG INT64_MAX

typedef struct overflow_case {
    const char *what;
    int32_t rank;
    int64_t ext[3];        /* of the filled source */
    int op;                /* which program, see build */
    int64_t seg[4];        /* segment lengths (segmented scans) */
    size_t n_seg;
} overflow_case;

enum { SCANL, SCANR, SCANL_PRIME, SCANL_SEG, SCANL1_SEG, FOLD, REPLICATE,
       RESHAPE, BACKPERMUTE, EXPAND_TOTAL, EXPAND_SOURCE };

static acc_node *plus(acc_graph *g)
{
    return ts_binop_fn(g, ACC_I64, ACC_OP_ADD);
}

static acc_node *shape(acc_graph *g, int32_t rank, const int64_t *ext)
{
    acc_node *c[3];
    for (int32_t d = 0; d < rank; d++)
        c[d] = ts_i64(g, ext[d]);
    return acc_index(g, (size_t)rank, c);
}

/* expand (\x -> size) (\x k -> x + k) xs */
static acc_node *expand(acc_graph *g, acc_node *size, acc_node *xs)
{
    acc_node *x = acc_param(g, acc_type_scalar(ACC_I64));
    acc_node *y = acc_param(g, acc_type_scalar(ACC_I64));
    acc_node *k = acc_param(g, acc_type_scalar(ACC_I64));
    return acc_expand(g, acc_lambda(g, 1, &x, size),
                      acc_lambda(g, 2, (acc_node *[]){y, k},
                                 acc_binop(g, ACC_OP_ADD, y, k)),
                      xs);
}

/* The case's program over xs = fill ext 1 (and the segments, an input). */
static acc_node *build(acc_graph *g, const void *arg)
{
    const overflow_case *oc = arg;
    acc_node *seg = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *xs = acc_fill(g, shape(g, oc->rank, oc->ext), ts_i64(g, 1));
    switch (oc->op) {
    case SCANL: return acc_scan(g, ACC_SCANL, plus(g), ts_i64(g, 0), xs);
    case SCANR: return acc_scan(g, ACC_SCANR, plus(g), ts_i64(g, 0), xs);
    case SCANL_PRIME:
        return acc_scan(g, ACC_SCANL_PRIME, plus(g), ts_i64(g, 0), xs);
    case SCANL_SEG:
        return acc_scan_seg(g, ACC_SCANL, plus(g), ts_i64(g, 0), xs, seg);
    case SCANL1_SEG:
        return acc_scan_seg(g, ACC_SCANL1, plus(g), NULL, xs, seg);
    case FOLD: return acc_fold(g, plus(g), ts_i64(g, 0), xs);
    case REPLICATE:
        return acc_fold(g, plus(g), ts_i64(g, 0), acc_replicate(g, 3,
                   (acc_node *[]){ts_i64(g, INT64_C(1) << 62), ts_i64(g, 4),
                                  acc_all(g)}, xs));
    case RESHAPE:
        return acc_reshape(g, shape(g, 2, (const int64_t[]){INT64_C(1) << 62,
                                                            4}), xs);
    case BACKPERMUTE: {
        acc_node *ix = acc_param(g, acc_type_shape(2));
        acc_node *p = acc_lambda(g, 1, &ix, acc_index(g, 1,
                                     (acc_node *[]){acc_get(g, ix, 1)}));
        return acc_backpermute(g, shape(g, 2, (const int64_t[]){
                                            INT64_C(1) << 62, 4}), p, xs);
    }
    case EXPAND_TOTAL: return expand(g, ts_i64(g, BIG / 2 + 1), xs);
    default: return expand(g, ts_i64(g, 1), xs); /* EXPAND_SOURCE */
    }
}

/* Both backends agree (status and message); the status is want and the
 * message (the interpreter's) holds `says`. */
static void check(const overflow_case *oc, acc_status want, const char *says)
{
    int64_t seg_n = (int64_t)oc->n_seg;
    acc_array in = ts_host_array(acc_type_scalar(ACC_I64), 1, &seg_n,
                                 (void *[]){(void *)oc->seg});
    cr_expect_eq(ts_differ(build, oc, 1, &in, 0, 0), want, "%s", oc->what);
    /* the message itself, on the interpreter */
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    acc_node *r = build(g, oc);
    acc_array out[2] = {ts_empty_output(), ts_empty_output()};
    acc_status st = ts_run(ctx, g, 1, &r, 1, &in, out);
    cr_expect_eq(st, want, "%s: %s", oc->what, acc_last_error());
    if (st == ACC_OK) {
        acc_array_release(&out[0]);
        if (oc->op == SCANL_PRIME)
            acc_array_release(&out[1]);
    } else if (says) {
        cr_expect_not_null(strstr(acc_last_error(), says), "%s: %s", oc->what,
                           acc_last_error());
    }
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(extent_overflow, scan_results_of_n_plus_1)
{
    overflow_case one_row = {"scanl over 2^63 - 1", 1, {BIG}, SCANL, {0}, 0};
    check(&one_row, ACC_ERR_SHAPE, "scanl: a result row would hold "
          "9223372036854775807 elements and 1 seed");
    overflow_case no_rows = {"scanr over [0, 2^63 - 1]", 2, {0, BIG}, SCANR,
                             {0}, 0};
    check(&no_rows, ACC_ERR_SHAPE, "scanr: a result row would hold");
    /* scanl' has n outputs per row: an empty array of huge rows is fine */
    overflow_case primed = {"scanl' over [0, 2^63 - 1]", 2, {0, BIG},
                            SCANL_PRIME, {0}, 0};
    check(&primed, ACC_OK, NULL);
}

Test(extent_overflow, segmented_scan_results_of_s_plus_k)
{
    overflow_case full = {"scanlSeg, S = 2^63 - 1", 2, {0, BIG}, SCANL_SEG,
                          {BIG - 1, 1}, 2};
    check(&full, ACC_ERR_SHAPE, "scanlSeg: a result row would hold "
          "9223372036854775807 elements and 2 seeds");
    overflow_case pairs = {"scanl1Seg, 2^62 rows of 4 segments", 2,
                           {INT64_C(1) << 62, 0}, SCANL1_SEG, {0, 0, 0, 0}, 4};
    check(&pairs, ACC_ERR_SHAPE, "scanl1Seg: 4611686018427387904 rows of 4 "
          "segments each");
}

Test(extent_overflow, products_of_extents)
{
    overflow_case fold = {"fold over [2^62, 4, 0]", 3,
                          {INT64_C(1) << 62, 4, 0}, FOLD, {0}, 0};
    check(&fold, ACC_ERR_SHAPE, "the shape [4611686018427387904, 4, 0] is "
          "too large: the product of its extents is beyond int64");
    overflow_case rep = {"replicate [2^62, 4, All] over [0]", 1, {0},
                         REPLICATE, {0}, 0};
    /* fused into one producer, named by fusion's origin (a generate) */
    check(&rep, ACC_ERR_SHAPE, "the shape [4611686018427387904, 4, 0] is too "
          "large");
    overflow_case reshape = {"reshape [2^62, 4]", 1, {0}, RESHAPE, {0}, 0};
    check(&reshape, ACC_ERR_SHAPE, "reshape: the shape [4611686018427387904, "
          "4] is too large");
    overflow_case bp = {"backpermute [2^62, 4]", 1, {4}, BACKPERMUTE, {0}, 0};
    check(&bp, ACC_ERR_SHAPE, "the shape [4611686018427387904, 4] is too "
          "large");
}

Test(extent_overflow, expansions)
{
    overflow_case total = {"expand: 2 x 2^62 results", 1, {2}, EXPAND_TOTAL,
                           {0}, 0};
    check(&total, ACC_ERR_SHAPE, "expand: the sizes add up to more than "
          "9223372036854775807 elements");
    /* 2^61 source elements: their 2^61 + 1 offsets cannot be counted in
     * bytes (the CPU backend once allocated 8 of them and wrote past);
     * the interpreter refuses the source's memory before asking for it */
    overflow_case source = {"expand over 2^61 elements", 1,
                            {INT64_C(1) << 61}, EXPAND_SOURCE, {0}, 0};
    check(&source, ACC_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
}
