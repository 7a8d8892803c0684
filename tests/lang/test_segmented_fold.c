/*
 * test_segmented_fold.c — foldSeg, foldSeg' and fold1Seg (LANGUAGE.md
 * §3.2) on the reference interpreter: the example of the language
 * description, vectors, matrices and rank-3 arrays, tuple elements, a
 * non-commutative f (to check element order and where z goes), empty
 * segments and empty segment lists, rows longer than the segments, and
 * every error.  Expected values are computed here with plain C loops.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "accel.h"
#include "support.h"

static acc_context *ctx;
static acc_graph *g;

static void setup(void)
{
    ts_fixture_open(&ctx, &g);
}

static void teardown(void)
{
    ts_fixture_close(&ctx, &g);
}

TestSuite(segmented_fold, .init = setup, .fini = teardown);

/* ---- helpers ------------------------------------------------------------ */

/* An associative, non-commutative f on (i64, i64) pairs (v, p): appending
 * decimal digit strings modulo M.  (a, p) . (b, q) = (a*q + b, p*q) mod M;
 * a digit d is (d, 10), so a run of digits reduces to its decimal value
 * (mod M), and z = (7, 10) in front reads as a leading 7. */
enum { M = 1000003 };

static void cat_c(int64_t *a, int64_t *p, int64_t b, int64_t q)
{
    *a = (*a * q + b) % M;
    *p = (*p * q) % M;
}

static const acc_type *pair_type(acc_scalar a, acc_scalar b)
{
    const acc_type *fields[2] = {ts_sc(a), ts_sc(b)};
    return acc_type_tuple(ctx, 2, fields);
}

static acc_node *pair_const(int64_t a, int64_t b)
{
    acc_node *items[2] = {ts_i64(g, a), ts_i64(g, b)};
    return acc_tuple(g, 2, items);
}

/* Segment sums of one row: out[s] = z + sum of the segment, by lengths. */
static void seg_sums(const int64_t *row, const int64_t *len, int64_t k,
                     int64_t z, int64_t *out)
{
    int64_t at = 0;
    for (int64_t s = 0; s < k; s++) {
        out[s] = z;
        for (int64_t i = 0; i < len[s]; i++)
            out[s] += row[at++];
    }
}

/* Runs foldSeg (+) z over an input of the given rank/extents with the
 * given lengths (or offsets when `offsets`), checks every row against
 * seg_sums. */
static void check_sums(int32_t rank, const int64_t *ext, const int64_t *x,
                       const int64_t *seg, int64_t n_seg, int offsets,
                       int64_t z)
{
    int64_t len[64], k = offsets ? n_seg - 1 : n_seg, out_ext[ACC_MAX_RANK];
    for (int64_t s = 0; s < k; s++)
        len[s] = offsets ? seg[s + 1] - seg[s] : seg[s];
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), rank);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *f = ts_binop_fn(g, ACC_I64, ACC_OP_ADD);
    acc_node *r = offsets ? acc_fold_seg_offsets(g, f, ts_i64(g, z), xs, sn)
                          : acc_fold_seg(g, f, ts_i64(g, z), xs, sn);
    acc_array in[2] = {ts_host(ACC_I64, rank, ext, (int64_t *)x),
                       ts_host(ACC_I64, 1, &n_seg, (int64_t *)seg)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    memcpy(out_ext, ext, (size_t)rank * sizeof *ext);
    out_ext[rank - 1] = k;
    ts_expect_shape(&out, rank, out_ext);
    int64_t rows = 1, want[64];
    for (int32_t d = 0; d < rank - 1; d++)
        rows *= ext[d];
    for (int64_t row = 0; row < rows; row++) {
        seg_sums(x + row * ext[rank - 1], len, k, z, want);
        for (int64_t s = 0; s < k; s++)
            cr_assert_eq(((const int64_t *)out.data[0])[row * k + s], want[s],
                         "row %lld segment %lld", (long long)row,
                         (long long)s);
    }
    acc_array_release(&out);
}

/* ---- foldSeg -------------------------------------------------------------- */

Test(segmented_fold, language_example_row_0)
{
    int64_t m[50], em[2] = {5, 10}, seg[4] = {1, 4, 0, 3}, ns = 4;
    int64_t want[4] = {0, 10, 0, 18}, er[2] = {5, 4};
    ts_iota(m, 50);
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = acc_fold_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                               ts_i64(g, 0), xs, sn);
    acc_array in[2] = {ts_host(ACC_I64, 2, em, m),
                       ts_host(ACC_I64, 1, &ns, seg)},
              out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    ts_expect_shape(&out, 2, er);
    for (int s = 0; s < 4; s++)
        cr_assert_eq(((const int64_t *)out.data[0])[s], want[s]);
    acc_array_release(&out);
}

Test(segmented_fold, matrix_every_row_and_unused_tail)
{
    int64_t m[50], em[2] = {5, 10}, seg[4] = {1, 4, 0, 3};
    ts_iota(m, 50);
    check_sums(2, em, m, seg, 4, 0, 0);
}

Test(segmented_fold, seed_used_once_per_segment)
{
    int64_t m[50], em[2] = {5, 10}, seg[5] = {2, 0, 5, 0, 3};
    ts_iota(m, 50);
    check_sums(2, em, m, seg, 5, 0, 42);
}

Test(segmented_fold, vector)
{
    int64_t x[7] = {3, -1, 4, -1, 5, -9, 2}, n = 7, seg[3] = {3, 3, 1};
    check_sums(1, &n, x, seg, 3, 0, 0);
}

Test(segmented_fold, rank3)
{
    int64_t x[2 * 3 * 9], ex[3] = {2, 3, 9}, seg[4] = {4, 0, 1, 4};
    for (int k = 0; k < 54; k++)
        x[k] = (k * 37) % 11 - 5;
    check_sums(3, ex, x, seg, 4, 0, -1);
}

Test(segmented_fold, long_segments_use_the_tree)
{
    static int64_t x[3 * 200];
    int64_t ex[2] = {3, 200}, seg[3] = {150, 17, 33};
    for (int k = 0; k < 600; k++)
        x[k] = k % 13;
    check_sums(2, ex, x, seg, 3, 0, 5);
}

Test(segmented_fold, no_segments_gives_empty_rows)
{
    int64_t m[6] = {1, 2, 3, 4, 5, 6}, em[2] = {2, 3}, er[2] = {2, 0};
    int64_t none = 0;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = acc_fold_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                               ts_i64(g, 0), xs, sn);
    acc_array in[2] = {ts_host(ACC_I64, 2, em, m),
                       ts_host(ACC_I64, 1, &none, NULL)},
              out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    ts_expect_shape(&out, 2, er);
    acc_array_release(&out);
}

Test(segmented_fold, empty_rows_with_empty_segments_give_z)
{
    int64_t em[2] = {3, 0}, seg[2] = {0, 0}, none[1] = {0};
    check_sums(2, em, none, seg, 2, 0, 9);
}

Test(segmented_fold, order_and_seed_position_with_noncommutative_f)
{
    /* digits 1..9 over a 2x12 matrix, segments [3, 0, 5, 4]; z = "7" */
    int64_t d[24], tens[24], em[2] = {2, 12}, seg[4] = {3, 0, 5, 4}, ns = 4;
    int64_t er[2] = {2, 4};
    for (int k = 0; k < 24; k++) {
        d[k] = 1 + (k * 5) % 9;
        tens[k] = 10;
    }
    const acc_type *pair = pair_type(ACC_I64, ACC_I64);
    acc_node *xs = acc_input(g, pair, 2);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = acc_fold_seg(g, ts_cat_fn(g, pair, M), pair_const(7, 10), xs,
                               sn);
    void *bufs[2] = {d, tens};
    acc_array in[2] = {ts_host_array(pair, 2, em, bufs),
                       ts_host(ACC_I64, 1, &ns, seg)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    ts_expect_shape(&out, 2, er);
    for (int row = 0; row < 2; row++) {
        int at = row * 12;
        for (int s = 0; s < 4; s++) {
            int64_t a = 7, p = 10;
            for (int i = 0; i < seg[s]; i++, at++)
                cat_c(&a, &p, d[at], 10);
            cr_assert_eq(((const int64_t *)out.data[0])[row * 4 + s], a,
                         "row %d segment %d", row, s);
            cr_assert_eq(((const int64_t *)out.data[1])[row * 4 + s], p);
        }
    }
    acc_array_release(&out);
}

Test(segmented_fold, tuple_elements_componentwise)
{
    /* (i32, f32) pairs, f = (+, max), z = (100, -1) */
    int32_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float b[8] = {0.5f, 3.0f, -2.0f, 7.5f, 1.0f, 1.5f, -3.0f, 2.0f};
    int64_t n = 8, seg[3] = {3, 0, 4}, ns = 3;
    const acc_type *pair = pair_type(ACC_I32, ACC_F32);
    acc_node *x = acc_param(g, pair), *y = acc_param(g, pair);
    acc_node *items[2] = {
        acc_binop(g, ACC_OP_ADD, acc_get(g, x, 0), acc_get(g, y, 0)),
        acc_binop(g, ACC_OP_MAX, acc_get(g, x, 1), acc_get(g, y, 1))};
    acc_node *ps[2] = {x, y};
    acc_node *f = acc_lambda(g, 2, ps, acc_tuple(g, 2, items));
    acc_node *zi[2] = {ts_i32(g, 100), ts_f32(g, -1.0f)};
    acc_node *xs = acc_input(g, pair, 1);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = acc_fold_seg(g, f, acc_tuple(g, 2, zi), xs, sn);
    void *bufs[2] = {a, b};
    acc_array in[2] = {ts_host_array(pair, 1, &n, bufs),
                       ts_host(ACC_I64, 1, &ns, seg)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    int at = 0;
    for (int s = 0; s < 3; s++) {
        int32_t sum = 100;
        float mx = -1.0f;
        for (int i = 0; i < seg[s]; i++, at++) {
            sum += a[at];
            mx = b[at] > mx ? b[at] : mx;
        }
        cr_assert_eq(((const int32_t *)out.data[0])[s], sum, "segment %d", s);
        cr_assert_eq(((const float *)out.data[1])[s], mx, "segment %d", s);
    }
    acc_array_release(&out);
}

/* ---- foldSeg' --------------------------------------------------------------- */

Test(segmented_fold, offsets_language_example)
{
    int64_t m[50], em[2] = {5, 10}, off[5] = {0, 1, 5, 5, 8};
    ts_iota(m, 50);
    check_sums(2, em, m, off, 5, 1, 0);
}

Test(segmented_fold, offsets_vector_and_rank3)
{
    int64_t x[24], ex[3] = {2, 2, 6}, n = 6, off[4] = {0, 0, 4, 6};
    for (int k = 0; k < 24; k++)
        x[k] = 3 * k - 20;
    check_sums(1, &n, x, off, 4, 1, 1);
    acc_graph_free(g);
    g = ts_graph(ctx);
    check_sums(3, ex, x, off, 4, 1, 0);
}

Test(segmented_fold, offsets_single_entry_means_no_segments)
{
    int64_t x[3] = {1, 2, 3}, n = 3, off[1] = {0};
    check_sums(1, &n, x, off, 1, 1, 0);
}

/* ---- fold1Seg ---------------------------------------------------------------- */

Test(segmented_fold, fold1seg_matrix_keep_last_and_min)
{
    /* keep last (\a b -> b) picks each segment's last element; min too */
    int64_t m[50], em[2] = {5, 10}, seg[3] = {2, 5, 3}, ns = 3, er[2] = {5, 3};
    for (int k = 0; k < 50; k++)
        m[k] = (k * 7919) % 97;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *a = acc_param(g, ts_sc(ACC_I64)),
             *b = acc_param(g, ts_sc(ACC_I64));
    acc_node *ps[2] = {a, b};
    acc_node *rs[2] = {acc_fold1_seg(g, acc_lambda(g, 2, ps, b), xs, sn),
                       acc_fold1_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_MIN), xs,
                                     sn)};
    acc_array in[2] = {ts_host(ACC_I64, 2, em, m),
                       ts_host(ACC_I64, 1, &ns, seg)},
              out[2];
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 2, in, out));
    ts_expect_shape(&out[0], 2, er);
    for (int row = 0; row < 5; row++) {
        int at = row * 10;
        for (int s = 0; s < 3; s++) {
            int64_t mn = m[at];
            for (int i = 0; i < seg[s]; i++, at++)
                mn = m[at] < mn ? m[at] : mn;
            cr_assert_eq(((const int64_t *)out[0].data[0])[row * 3 + s],
                         m[at - 1], "row %d segment %d", row, s);
            cr_assert_eq(((const int64_t *)out[1].data[0])[row * 3 + s], mn);
        }
    }
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(segmented_fold, fold1seg_order_with_noncommutative_f)
{
    int64_t d[40], tens[40], n = 40, seg[2] = {1, 37}, ns = 2;
    for (int k = 0; k < 40; k++) {
        d[k] = 1 + (k * 4) % 9;
        tens[k] = 10;
    }
    const acc_type *pair = pair_type(ACC_I64, ACC_I64);
    acc_node *xs = acc_input(g, pair, 1);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = acc_fold1_seg(g, ts_cat_fn(g, pair, M), xs, sn);
    void *bufs[2] = {d, tens};
    acc_array in[2] = {ts_host_array(pair, 1, &n, bufs),
                       ts_host(ACC_I64, 1, &ns, seg)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    int at = 0;
    for (int s = 0; s < 2; s++) {
        int64_t a = d[at++], p = 10;
        for (int i = 1; i < seg[s]; i++, at++)
            cat_c(&a, &p, d[at], 10);
        cr_assert_eq(((const int64_t *)out.data[0])[s], a, "segment %d", s);
        cr_assert_eq(((const int64_t *)out.data[1])[s], p, "segment %d", s);
    }
    acc_array_release(&out);
}

Test(segmented_fold, fold1seg_empty_segment_is_a_runtime_error)
{
    int64_t x[5] = {1, 2, 3, 4, 5}, n = 5, seg[3] = {2, 0, 3}, ns = 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = acc_fold1_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), xs, sn);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, x),
                       ts_host(ACC_I64, 1, &ns, seg)},
              out;
    ts_expect_error(ts_run_program(p, 2, in, 1, &out), ACC_ERR_RUNTIME,
                    "fold1Seg");
    cr_assert_null(out.data[0]);
    seg[1] = 1;
    seg[2] = 2;
    ts_expect_ok(g, ts_run_program(p, 2, in, 1, &out));
    cr_assert_eq(((const int64_t *)out.data[0])[0], 3);
    cr_assert_eq(((const int64_t *)out.data[0])[1], 3);
    cr_assert_eq(((const int64_t *)out.data[0])[2], 9);
    acc_array_release(&out);
    acc_program_free(p);
}

/* ---- runtime errors in the descriptors ----------------------------------------- */

/* Compiles foldSeg (or foldSeg') (+) 0 over a vector of 5, runs it with
 * the descriptor `bad` (expecting `want` naming `name`), then with `good`
 * (expecting the segment sums). */
static void check_bad_segments(int offsets, const int64_t *bad, int64_t nb,
                               acc_status want, const char *name,
                               const int64_t *good, int64_t ng)
{
    int64_t x[5] = {1, 2, 4, 8, 16}, n = 5;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *f = ts_binop_fn(g, ACC_I64, ACC_OP_ADD);
    acc_node *r = offsets ? acc_fold_seg_offsets(g, f, ts_i64(g, 0), xs, sn)
                          : acc_fold_seg(g, f, ts_i64(g, 0), xs, sn);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, x),
                       ts_host(ACC_I64, 1, &nb, (int64_t *)bad)};
    acc_array out;
    ts_expect_error(ts_run_program(p, 2, in, 1, &out), want, name);
    cr_assert_null(out.data[0]);
    in[1] = ts_host(ACC_I64, 1, &ng, (int64_t *)good);
    ts_expect_ok(g, ts_run_program(p, 2, in, 1, &out));
    const int64_t *o = out.data[0];
    int64_t at = 0;
    for (int64_t s = 0; s < (offsets ? ng - 1 : ng); s++) {
        int64_t len = offsets ? good[s + 1] - good[s] : good[s], sum = 0;
        for (int64_t i = 0; i < len; i++)
            sum += x[at++];
        cr_assert_eq(o[s], sum, "segment %lld", (long long)s);
    }
    acc_array_release(&out);
    acc_program_free(p);
}

Test(segmented_fold, lengths_beyond_the_row_are_a_shape_error)
{
    int64_t bad[2] = {3, 3}, good[2] = {3, 2};
    check_bad_segments(0, bad, 2, ACC_ERR_SHAPE, "foldSeg", good, 2);
}

Test(segmented_fold, huge_lengths_do_not_overflow)
{
    int64_t bad[3] = {1, INT64_MAX, INT64_MAX}, good[1] = {5};
    check_bad_segments(0, bad, 3, ACC_ERR_SHAPE, "foldSeg", good, 1);
}

Test(segmented_fold, negative_length_is_a_runtime_error)
{
    int64_t bad[3] = {2, -1, 3}, good[3] = {2, 1, 2};
    check_bad_segments(0, bad, 3, ACC_ERR_RUNTIME, "foldSeg", good, 3);
}

Test(segmented_fold, offsets_not_starting_at_zero)
{
    int64_t bad[3] = {1, 2, 5}, good[3] = {0, 2, 5};
    check_bad_segments(1, bad, 3, ACC_ERR_RUNTIME, "foldSeg'", good, 3);
}

Test(segmented_fold, decreasing_offsets)
{
    int64_t bad[4] = {0, 3, 2, 5}, good[4] = {0, 2, 2, 5};
    check_bad_segments(1, bad, 4, ACC_ERR_RUNTIME, "foldSeg'", good, 4);
}

Test(segmented_fold, offsets_beyond_the_row_are_a_shape_error)
{
    int64_t bad[3] = {0, 2, 6}, good[3] = {0, 2, 4};
    check_bad_segments(1, bad, 3, ACC_ERR_SHAPE, "foldSeg'", good, 3);
}

Test(segmented_fold, empty_offsets_vector_is_a_runtime_error)
{
    int64_t good[2] = {0, 5};
    check_bad_segments(1, NULL, 0, ACC_ERR_RUNTIME, "foldSeg'", good, 2);
}

/* ---- builder errors ----------------------------------------------------------------- */

/* Segments of any integer type are accepted (test_segment_types.c);
 * others are refused. */
Test(segmented_fold, segments_must_be_a_vector_of_an_integer_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *sn = acc_input(g, ts_sc(ACC_BOOL), 1);
    ts_expect_refused(ctx, g,
                      acc_fold_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                   ts_i64(g, 0), xs, sn),
                      ACC_ERR_TYPE, "foldSeg");
}

Test(segmented_fold, segments_of_rank_2_are_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 2);
    ts_expect_refused(ctx, g,
                      acc_fold1_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), xs,
                                    sn),
                      ACC_ERR_TYPE, "fold1Seg");
}

Test(segmented_fold, rank0_array_is_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 0);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    ts_expect_refused(ctx, g,
                      acc_fold_seg_offsets(g,
                                           ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                           ts_i64(g, 0), xs, sn),
                      ACC_ERR_SHAPE, "foldSeg'");
}

Test(segmented_fold, seed_of_the_wrong_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    ts_expect_refused(ctx, g,
                      acc_fold_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                   ts_i32(g, 0), xs, sn),
                      ACC_ERR_TYPE, "foldSeg");
}

Test(segmented_fold, missing_seed)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    ts_expect_refused(ctx, g,
                      acc_fold_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), NULL,
                                   xs, sn),
                      ACC_ERR_INVALID_ARGUMENT, "foldSeg");
}

Test(segmented_fold, function_of_the_wrong_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_F64), 1);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    ts_expect_refused(ctx, g,
                      acc_fold1_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), xs,
                                    sn),
                      ACC_ERR_TYPE, "fold1Seg");
}
