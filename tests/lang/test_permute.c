/*
 * test_permute.c — forward permutation (LANGUAGE.md §3.4) on the reference
 * interpreter: ignore, permute and permute'.  The histogram of the
 * language reference, sources and targets of different ranks, dropped
 * elements, tuple elements, the order of the combining function's
 * arguments, a Scalar target, pairs whose element type holds a shape, and
 * the errors (builder and run time) with the handle still usable after.
 * Expected values are computed here with plain C loops.
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

TestSuite(permute, .init = setup, .fini = teardown);

/* ---- small builders --------------------------------------------------- */

/* fill [n] z / fill [a, b] z */
static acc_node *fill1(int64_t n, acc_node *z)
{
    return acc_fill(g, ts_idx1(g, ts_i64(g, n)), z);
}

static acc_node *fill2(int64_t a, int64_t b, acc_node *z)
{
    return acc_fill(g, ts_idx2(g, ts_i64(g, a), ts_i64(g, b)), z);
}

/* ---- permute ------------------------------------------------------------ */

/* LANGUAGE.md §3.4 and the histogram program of §4. */
Test(permute, histogram_from_the_language_reference)
{
    int32_t x[20] = {0, 0, 1, 2, 1, 1, 2, 4, 8, 3,
                     4, 9, 8, 3, 2, 5, 5, 3, 1, 2};
    int64_t n = 20;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *i = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, i,
                          ts_idx1(g,
                                  acc_convert(g, acc_read(g, xs, i), ACC_I64)));
    acc_node *u = acc_param(g, ts_sc(ACC_I32));
    acc_node *ones = acc_map(g, ts_lam1(g, u, ts_i32(g, 1)), xs);
    acc_node *h = acc_permute(g, ts_binop_fn(g, ACC_I32, ACC_OP_ADD),
                              fill1(10, ts_i32(g, 0)), p, ones);
    acc_array in = ts_host(ACC_I32, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &h, 1, &in, &out));
    const int32_t want[10] = {2, 4, 4, 3, 2, 2, 0, 0, 2, 1};
    cr_assert_eq(out.rank, 1);
    cr_assert_eq(out.extents[0], 10);
    cr_assert_eq(memcmp(out.data[0], want, sizeof want), 0);
    acc_array_release(&out);
}

/* A 3x4 matrix into a vector of 4 (column sums): rank 2 source, rank 1
 * target; the defaults are kept and combined with. */
Test(permute, matrix_source_vector_target)
{
    int64_t x[12], ext[2] = {3, 4}, d[4] = {100, 200, 300, 400}, four = 4;
    for (int k = 0; k < 12; k++)
        x[k] = k * k - 5;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *defs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *p = ts_lam1(g, ix, ts_idx1(g, acc_get(g, ix, 1)));
    acc_node *r = acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), defs, p,
                              xs);
    acc_array in[2] = {ts_host(ACC_I64, 2, ext, x),
                       ts_host(ACC_I64, 1, &four, d)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    int64_t want[4];
    memcpy(want, d, sizeof want);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
            want[b] += x[a * 4 + b];
    ts_expect_i64(&out, want, 4);
    acc_array_release(&out);
}

/* A vector of 12 into a 4x3 matrix: rank 1 source, rank 2 target, with
 * every third element dropped through ignore. */
Test(permute, vector_source_matrix_target_with_ignore)
{
    int64_t x[12], n = 12;
    for (int k = 0; k < 12; k++)
        x[k] = 3 * k + 1;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *i = acc_get(g, ix, 0);
    acc_node *keep = acc_binop(g, ACC_OP_NE,
                               acc_binop(g, ACC_OP_REM, i, ts_i64(g, 3)),
                               ts_i64(g, 2));
    acc_node *to = ts_idx2(g, acc_binop(g, ACC_OP_QUOT, i, ts_i64(g, 3)),
                           acc_binop(g, ACC_OP_REM, i, ts_i64(g, 3)));
    acc_node *p = ts_lam1(g, ix, acc_cond(g, keep, to, acc_ignore(g, 2)));
    acc_node *r = acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                              fill2(4, 3, ts_i64(g, -1)), p, xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    int64_t want[12];
    for (int k = 0; k < 12; k++)
        want[k] = k % 3 == 2 ? -1 : x[k] - 1;
    cr_assert_eq(out.rank, 2);
    cr_assert_eq(out.extents[0], 4);
    cr_assert_eq(out.extents[1], 3);
    ts_expect_i64(&out, want, 12);
    acc_array_release(&out);
}

/* With an injective p the result at a target is f new old exactly once,
 * which shows the order of the arguments (new first). */
Test(permute, combining_function_gets_new_then_old)
{
    int64_t x[5] = {1, 2, 3, 4, 5}, n = 5;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, ix,
                          ts_idx1(g, acc_binop(g, ACC_OP_SUB, ts_i64(g, 4),
                                               acc_get(g, ix, 0))));
    acc_node *j = acc_param(g, acc_type_shape(1));
    acc_node *defs = acc_generate(g, ts_idx1(g, ts_i64(g, 6)),
                                  ts_lam1(g, j,
                                          acc_binop(g, ACC_OP_MUL,
                                                    acc_get(g, j, 0),
                                                    ts_i64(g, 100))));
    acc_node *r = acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_SUB), defs, p,
                              xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    int64_t want[6];
    for (int t = 0; t < 6; t++)
        want[t] = 100 * t;
    for (int k = 0; k < 5; k++)
        want[4 - k] = x[k] - want[4 - k];
    ts_expect_i64(&out, want, 6);
    acc_array_release(&out);
}

/* Elements that are tuples (i32, f64), combined component-wise. */
Test(permute, tuple_elements)
{
    int32_t a[6] = {1, 2, 3, 4, 5, 6};
    double b[6] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    int64_t n = 6;
    const acc_type *fs[2] = {ts_sc(ACC_I32), ts_sc(ACC_F64)};
    const acc_type *e = acc_type_tuple(ctx, 2, fs);
    acc_node *xs = acc_input(g, e, 1);
    acc_node *x = acc_param(g, e), *y = acc_param(g, e);
    acc_node *sum[2] = {acc_binop(g, ACC_OP_ADD, acc_get(g, x, 0),
                                  acc_get(g, y, 0)),
                        acc_binop(g, ACC_OP_ADD, acc_get(g, x, 1),
                                  acc_get(g, y, 1))};
    acc_node *f = ts_lam2(g, x, y, acc_tuple(g, 2, sum));
    acc_node *z[2] = {ts_i32(g, 10), ts_f64(g, 0.25)};
    acc_node *defs = fill1(2, acc_tuple(g, 2, z));
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, ix,
                          ts_idx1(g, acc_binop(g, ACC_OP_REM, acc_get(g, ix, 0),
                                               ts_i64(g, 2))));
    acc_node *r = acc_permute(g, f, defs, p, xs);
    void *bufs[2] = {a, b};
    acc_array in = ts_host_array(e, 1, &n, bufs), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, out));
    int32_t wa[2] = {10, 10};
    double wb[2] = {0.25, 0.25};
    for (int k = 0; k < 6; k++) {
        wa[k % 2] += a[k];
        wb[k % 2] += b[k];
    }
    const int32_t *oa = out[0].data[0];
    const double *ob = out[0].data[1];
    for (int t = 0; t < 2; t++) {
        cr_assert_eq(oa[t], wa[t]);
        cr_assert_float_eq(ob[t], wb[t], 1e-12);
    }
    acc_array_release(&out[0]);
}

/* Everything into a Scalar (rank-0 target, whose only index is []). */
Test(permute, scalar_target)
{
    int64_t x[7] = {3, 1, 4, 1, 5, 9, 2}, n = 7, total = 1000;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, ix, acc_index(g, 0, NULL));
    acc_node *defs = acc_unit(g, ts_i64(g, 1000));
    acc_node *r = acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), defs, p,
                              xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    for (int k = 0; k < 7; k++)
        total += x[k];
    cr_assert_eq(out.rank, 0);
    ts_expect_i64(&out, &total, 1);
    acc_array_release(&out);
}

/* An empty source leaves the defaults. */
Test(permute, empty_source_gives_the_defaults)
{
    int64_t n = 0;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, ix, ix);
    acc_node *r = acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                              fill1(3, ts_i64(g, 9)), p, xs);
    acc_array in = ts_host(ACC_I64, 1, &n, NULL), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    const int64_t want[3] = {9, 9, 9};
    ts_expect_i64(&out, want, 3);
    acc_array_release(&out);
}

Test(permute, target_out_of_range_is_a_runtime_error)
{
    int64_t x[4] = {1, 2, 3, 4}, n = 4;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, ix,
                          ts_idx1(g, acc_binop(g, ACC_OP_MUL, acc_get(g, ix, 0),
                                               ts_i64(g, 4))));
    acc_node *r = acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                              fill1(10, ts_i64(g, 0)), p, xs);
    acc_program *prog = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &prog));
    acc_array in = ts_host(ACC_I64, 1, &n, x), out = ts_empty_output();
    acc_status st = acc_run(prog, 1, &in, 1, &out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "status %s", acc_status_string(st));
    const char *msg = acc_program_last_error(prog);
    cr_assert(ts_contains_ci(msg, "permute"), "message: %s", msg);
    cr_assert(ts_contains_ci(msg, "[12]"), "message: %s", msg);
    cr_assert(ts_contains_ci(msg, "[10]"), "message: %s", msg);
    cr_assert_null(out.data[0]);
    /* the program stays usable: a shorter input stays in range */
    n = 3;
    in = ts_host(ACC_I64, 1, &n, x);
    ts_expect_ok(g, acc_run(prog, 1, &in, 1, &out));
    const int64_t want[10] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0};
    ts_expect_i64(&out, want, 10);
    acc_array_release(&out);
    acc_program_free(prog);
}

/* A negative target that is not ignore is out of range too. */
Test(permute, negative_target_is_a_runtime_error)
{
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, ix, ts_idx1(g, ts_i64(g, -1)));
    acc_node *r = acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                              fill1(2, ts_i64(g, 0)), p,
                              fill1(1, ts_i64(g, 5)));
    acc_array out;
    acc_status st = ts_run(ctx, g, 1, &r, 0, NULL, &out);
    cr_assert_eq(st, ACC_ERR_RUNTIME);
    cr_assert(ts_contains_ci(acc_last_error(), "[-1]"), "message: %s",
              acc_last_error());
}

/* ---- builder errors ------------------------------------------------------ */

Test(permute, ignore_of_rank_0_is_refused)
{
    cr_assert_null(acc_ignore(g, 0));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "ignore");
}

Test(permute, ignore_of_rank_9_is_refused)
{
    cr_assert_null(acc_ignore(g, 9));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "ignore");
}

Test(permute, index_function_of_the_wrong_rank_is_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, ix, ix); /* rank 1, the target has rank 2 */
    cr_assert_null(acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                               fill2(2, 2, ts_i64(g, 0)), p, xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "permute");
}

Test(permute, element_types_must_agree)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    cr_assert_null(acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                               fill1(2, ts_i64(g, 0)), ts_lam1(g, ix, ix), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "permute");
}

Test(permute, combining_function_must_fit)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    cr_assert_null(acc_permute(g, ts_binop_fn(g, ACC_F64, ACC_OP_ADD),
                               fill1(2, ts_i64(g, 0)), ts_lam1(g, ix, ix), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "permute");
}

Test(permute, null_argument_is_refused)
{
    cr_assert_null(acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                               fill1(2, ts_i64(g, 0)), NULL,
                               fill1(2, ts_i64(g, 0))));
    ts_expect_builder_error(ctx, &g, ACC_ERR_INVALID_ARGUMENT, "permute");
}

/* ---- permute' ------------------------------------------------------------ */

/* map produces (target, value) pairs: x goes to [x mod 5] unless x is a
 * multiple of 7 (ignore). */
Test(permute, pairs_from_map)
{
    int64_t x[16], n = 16;
    for (int k = 0; k < 16; k++)
        x[k] = k * 3 + 2;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *v = acc_param(g, ts_sc(ACC_I64));
    acc_node *drop = acc_binop(g, ACC_OP_EQ,
                               acc_binop(g, ACC_OP_REM, v, ts_i64(g, 7)),
                               ts_i64(g, 0));
    acc_node *to = acc_cond(g, drop, acc_ignore(g, 1),
                            ts_idx1(g,
                                    acc_binop(g, ACC_OP_REM, v, ts_i64(g, 5))));
    acc_node *pair[2] = {to, v};
    acc_node *pairs = acc_map(g, ts_lam1(g, v, acc_tuple(g, 2, pair)), xs);
    acc_node *r = acc_permute_pairs(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                    fill1(5, ts_i64(g, 0)), pairs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    int64_t want[5] = {0};
    for (int k = 0; k < 16; k++)
        if (x[k] % 7 != 0)
            want[x[k] % 5] += x[k];
    ts_expect_i64(&out, want, 5);
    acc_array_release(&out);
}

/* A program input whose element type holds a shape: (Shape 2, i64) pairs
 * into a 2x3 matrix (the shape is stored as two i64 leaves). */
Test(permute, pairs_input_with_a_shape_in_the_element_type)
{
    int64_t r0[5] = {0, 1, 1, INT64_MIN, 0};
    int64_t r1[5] = {2, 0, 0, INT64_MIN, 2};
    int64_t val[5] = {5, 7, 11, 1000, 13}, n = 5;
    const acc_type *fs[2] = {acc_type_shape(2), ts_sc(ACC_I64)};
    const acc_type *e = acc_type_tuple(ctx, 2, fs);
    acc_node *xs = acc_input(g, e, 1);
    acc_node *r = acc_permute_pairs(g, ts_binop_fn(g, ACC_I64, ACC_OP_MAX),
                                    fill2(2, 3, ts_i64(g, 6)), xs);
    void *bufs[3] = {r0, r1, val};
    acc_array in = ts_host_array(e, 1, &n, bufs), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    int64_t want[6] = {6, 6, 6, 6, 6, 6};
    for (int k = 0; k < 5; k++)
        if (r0[k] != INT64_MIN && val[k] > want[r0[k] * 3 + r1[k]])
            want[r0[k] * 3 + r1[k]] = val[k];
    cr_assert_eq(out.rank, 2);
    ts_expect_i64(&out, want, 6);
    acc_array_release(&out);
}

/* A 2-D source of pairs into a vector of tuples. */
Test(permute, pairs_from_a_matrix_with_tuple_values)
{
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *i = acc_get(g, ix, 0), *j = acc_get(g, ix, 1);
    acc_node *val[2] = {acc_convert(g, j, ACC_I32), ts_f64(g, 1.0)};
    acc_node *pair[2] = {ts_idx1(g, i), acc_tuple(g, 2, val)};
    acc_node *src = acc_generate(g, ts_idx2(g, ts_i64(g, 3), ts_i64(g, 4)),
                                 ts_lam1(g, ix, acc_tuple(g, 2, pair)));
    const acc_type *fs[2] = {ts_sc(ACC_I32), ts_sc(ACC_F64)};
    const acc_type *e = acc_type_tuple(ctx, 2, fs);
    acc_node *x = acc_param(g, e), *y = acc_param(g, e);
    acc_node *sum[2] = {acc_binop(g, ACC_OP_ADD, acc_get(g, x, 0),
                                  acc_get(g, y, 0)),
                        acc_binop(g, ACC_OP_ADD, acc_get(g, x, 1),
                                  acc_get(g, y, 1))};
    acc_node *z[2] = {ts_i32(g, 0), ts_f64(g, 0.0)};
    acc_node *r = acc_permute_pairs(g, ts_lam2(g, x, y, acc_tuple(g, 2, sum)),
                                    fill1(3, acc_tuple(g, 2, z)), src);
    acc_array out[2];
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 0, NULL, out));
    const int32_t *oa = out[0].data[0];
    const double *ob = out[0].data[1];
    for (int t = 0; t < 3; t++) {
        cr_assert_eq(oa[t], 0 + 1 + 2 + 3);
        cr_assert_float_eq(ob[t], 4.0, 1e-12);
    }
    acc_array_release(&out[0]);
}

Test(permute, pairs_target_out_of_range_is_a_runtime_error)
{
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *i = acc_get(g, ix, 0);
    acc_node *pair[2] = {ts_idx1(g, acc_binop(g, ACC_OP_ADD, i, i)), i};
    acc_node *src = acc_generate(g, ts_idx1(g, ts_i64(g, 4)),
                                 ts_lam1(g, ix, acc_tuple(g, 2, pair)));
    acc_node *r = acc_permute_pairs(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                    fill1(5, ts_i64(g, 0)), src);
    acc_array out;
    acc_status st = ts_run(ctx, g, 1, &r, 0, NULL, &out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "status %s", acc_status_string(st));
    cr_assert(ts_contains_ci(acc_last_error(), "permute'"), "message: %s",
              acc_last_error());
    cr_assert(ts_contains_ci(acc_last_error(), "[6]"), "message: %s",
              acc_last_error());
    /* the context stays usable */
    ts_fresh_graph(ctx, &g);
    int64_t v = 0;
    ts_expect_ok(g, ts_eval_scalar(ctx, g, ts_i64(g, 3), &v, sizeof v));
    cr_assert_eq(v, 3);
}

Test(permute, pairs_of_the_wrong_element_type_are_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    cr_assert_null(acc_permute_pairs(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                     fill1(5, ts_i64(g, 0)), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "permute'");
}

Test(permute, pairs_with_a_target_of_the_wrong_rank_are_refused)
{
    const acc_type *fs[2] = {acc_type_shape(1), ts_sc(ACC_I64)};
    acc_node *xs = acc_input(g, acc_type_tuple(ctx, 2, fs), 1);
    cr_assert_null(acc_permute_pairs(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                     fill2(2, 2, ts_i64(g, 0)), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "permute'");
}
