/*
 * test_array_ops.c — the array operations of LANGUAGE.md §3.1 and §3.2 on
 * the reference interpreter: inputs, unit/the, generate, fill, map,
 * zipWith, backpermute, reshape, fold, fold1, tuple elements, tuples of
 * arrays, array reads from scalar code, rank-0 arrays and several element
 * types.  Every expected value is computed here with a plain C loop.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
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

TestSuite(array_ops, .init = setup, .fini = teardown);

/* ---- small builders --------------------------------------------------- */

/* \x -> x `op` k on scalar type s, k an integer constant */
static acc_node *with_const_fn(acc_scalar s, acc_primop op, int64_t k)
{
    acc_node *x = acc_param(g, ts_sc(s));
    return ts_lam1(g, x, acc_binop(g, op, x, ts_int(g, s, k)));
}

/* ---- program inputs ------------------------------------------------- */

Test(array_ops, inputs_are_numbered_in_creation_order)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ys = acc_input(g, ts_sc(ACC_F64), 2);
    acc_node *r = acc_map(g, with_const_fn(ACC_I64, ACC_OP_SUB, 0), xs);
    (void)ys;
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    cr_assert_eq(acc_program_num_inputs(p), 2);
    cr_assert_eq(acc_program_num_outputs(p), 1);
    const acc_type *t = NULL;
    int32_t rank = -1;
    ts_expect_ok(g, acc_program_input(p, 0, &t, &rank));
    cr_assert(acc_type_equal(t, ts_sc(ACC_I64)));
    cr_assert_eq(rank, 1);
    ts_expect_ok(g, acc_program_input(p, 1, &t, &rank));
    cr_assert(acc_type_equal(t, ts_sc(ACC_F64)));
    cr_assert_eq(rank, 2);
    ts_expect_ok(g, acc_program_output(p, 0, &t, &rank));
    cr_assert(acc_type_equal(t, ts_sc(ACC_I64)));
    cr_assert_eq(rank, 1);
    acc_program_free(p);
}

Test(array_ops, input_returned_unchanged)
{
    int64_t x[6] = {5, -4, 3, -2, 1, 0}, ext[2] = {2, 3};
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_array in = ts_host(ACC_I64, 2, ext, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &xs, 1, &in, &out));
    ts_expect_shape(&out, 2, ext);
    cr_assert_eq(memcmp(out.data[0], x, sizeof x), 0);
    acc_array_release(&out);
}

Test(array_ops, second_input_used)
{
    int64_t a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, n = 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ys = acc_input(g, ts_sc(ACC_I64), 1);
    (void)xs;
    acc_node *r = acc_map(g, with_const_fn(ACC_I64, ACC_OP_MUL, 3), ys);
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, a), ts_host(ACC_I64, 1, &n, b)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    const int64_t *o = out.data[0];
    for (int i = 0; i < 3; i++)
        cr_assert_eq(o[i], b[i] * 3);
    acc_array_release(&out);
}

/* ---- unit / the / rank 0 ---------------------------------------------- */

Test(array_ops, unit_of_the_scalar_input)
{
    int64_t v = 21;
    acc_node *s = acc_input(g, ts_sc(ACC_I64), 0);
    acc_node *x = acc_the(g, s);
    acc_node *r = acc_unit(g, acc_binop(g, ACC_OP_ADD, x, x));
    acc_array in = ts_host(ACC_I64, 0, NULL, &v), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(out.rank, 0);
    cr_assert_eq(acc_array_size(&out), 1);
    cr_assert_eq(*(const int64_t *)out.data[0], 42);
    acc_array_release(&out);
}

Test(array_ops, rank0_map_and_fill)
{
    double v = 2.25;
    acc_node *s = acc_input(g, ts_sc(ACC_F64), 0);
    acc_node *x = acc_param(g, ts_sc(ACC_F64));
    acc_node *m = acc_map(g, ts_lam1(g, x, acc_unop(g, ACC_OP_SQRT, x)), s);
    acc_node *f = acc_fill(g, acc_index(g, 0, NULL), ts_i32(g, -7));
    acc_node *rs[2] = {m, f};
    acc_array in = ts_host(ACC_F64, 0, NULL, &v), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 1, &in, out));
    cr_assert_eq(out[0].rank, 0);
    cr_assert_float_eq(*(const double *)out[0].data[0], 1.5, 1e-12);
    cr_assert_eq(out[1].rank, 0);
    cr_assert_eq(*(const int32_t *)out[1].data[0], -7);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

/* ---- generate / fill ---------------------------------------------------- */

Test(array_ops, generate_from_index)
{
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *i = acc_get(g, ix, 0), *j = acc_get(g, ix, 1);
    acc_node *body = acc_binop(g, ACC_OP_ADD,
                               acc_binop(g, ACC_OP_MUL, i, ts_i64(g, 100)), j);
    acc_node *r = acc_generate(g, ts_shape2(g, 3, 4), ts_lam1(g, ix, body));
    acc_array out;
    int64_t ext[2] = {3, 4};
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 0, NULL, &out));
    ts_expect_shape(&out, 2, ext);
    const int64_t *o = out.data[0];
    for (int64_t a = 0; a < 3; a++)
        for (int64_t b = 0; b < 4; b++)
            cr_assert_eq(o[a * 4 + b], a * 100 + b, "at [%lld,%lld]",
                         (long long)a, (long long)b);
    acc_array_release(&out);
}

Test(array_ops, generate_empty_shape)
{
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *r = acc_generate(g, ts_shape2(g, 3, 0),
                               ts_lam1(g, ix, ts_i64(g, 1)));
    acc_array out;
    int64_t ext[2] = {3, 0};
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 0, NULL, &out));
    ts_expect_shape(&out, 2, ext);
    cr_assert_eq(acc_array_size(&out), 0);
    acc_array_release(&out);
}

Test(array_ops, fill_f64)
{
    acc_node *r = acc_fill(g, ts_shape2(g, 2, 3), ts_f64(g, 7.5));
    acc_array out;
    int64_t ext[2] = {2, 3};
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 0, NULL, &out));
    ts_expect_shape(&out, 2, ext);
    cr_assert(acc_type_equal(out.type, ts_sc(ACC_F64)));
    for (int k = 0; k < 6; k++)
        cr_assert_eq(((const double *)out.data[0])[k], 7.5);
    acc_array_release(&out);
}

/* ---- map ----------------------------------------------------------------- */

Test(array_ops, map_square_matrix_f64)
{
    double x[12];
    int64_t ext[2] = {3, 4};
    for (int k = 0; k < 12; k++)
        x[k] = (k - 5) * 0.5;
    acc_node *xs = acc_input(g, ts_sc(ACC_F64), 2);
    acc_node *r = acc_map(g, with_const_fn(ACC_F64, ACC_OP_MUL, 3), xs);
    acc_array in = ts_host(ACC_F64, 2, ext, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 2, ext);
    for (int k = 0; k < 12; k++)
        cr_assert_float_eq(((const double *)out.data[0])[k], x[k] * 3, 1e-12);
    acc_array_release(&out);
}

Test(array_ops, map_u8_wraps)
{
    uint8_t x[5] = {0, 1, 100, 200, 255};
    int64_t n = 5;
    acc_node *xs = acc_input(g, ts_sc(ACC_U8), 1);
    acc_node *r = acc_map(g, with_const_fn(ACC_U8, ACC_OP_ADD, 100), xs);
    acc_array in = ts_host(ACC_U8, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    for (int k = 0; k < 5; k++)
        cr_assert_eq(((const uint8_t *)out.data[0])[k], (uint8_t)(x[k] + 100),
                     "at %d", k);
    acc_array_release(&out);
}

Test(array_ops, map_i32_and_bool)
{
    int32_t x[6] = {-3, -2, -1, 0, 1, 2};
    int64_t n = 6;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *p = acc_param(g, ts_sc(ACC_I32));
    acc_node *neg = acc_map(g, ts_lam1(g, p, acc_unop(g, ACC_OP_NEG, p)), xs);
    acc_node *q = acc_param(g, ts_sc(ACC_I32));
    acc_node *pos =
        acc_map(g, ts_lam1(g, q, acc_binop(g, ACC_OP_GT, q, ts_i32(g, 0))), xs);
    acc_node *b = acc_param(g, ts_sc(ACC_BOOL));
    acc_node *notpos = acc_map(g, ts_lam1(g, b, acc_unop(g, ACC_OP_NOT, b)),
                               pos);
    acc_node *rs[2] = {neg, notpos};
    acc_array in = ts_host(ACC_I32, 1, &n, x), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 1, &in, out));
    cr_assert(acc_type_equal(out[1].type, ts_sc(ACC_BOOL)));
    for (int k = 0; k < 6; k++) {
        cr_assert_eq(((const int32_t *)out[0].data[0])[k], -x[k]);
        cr_assert_eq(((const uint8_t *)out[1].data[0])[k], x[k] > 0 ? 0 : 1,
                     "at %d", k);
    }
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(array_ops, map_bool_input)
{
    uint8_t x[4] = {1, 0, 0, 1};
    int64_t n = 4;
    acc_node *xs = acc_input(g, ts_sc(ACC_BOOL), 1);
    acc_node *b = acc_param(g, ts_sc(ACC_BOOL));
    acc_node *r = acc_map(g, ts_lam1(g, b, acc_convert(g, b, ACC_I32)), xs);
    acc_array in = ts_host(ACC_BOOL, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    for (int k = 0; k < 4; k++)
        cr_assert_eq(((const int32_t *)out.data[0])[k], (int32_t)x[k]);
    acc_array_release(&out);
}

/* ---- zipWith ------------------------------------------------------------- */

Test(array_ops, zipwith_one_array)
{
    int64_t x[4] = {1, 2, 3, 4}, n = 4;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = acc_zipwith(g, with_const_fn(ACC_I64, ACC_OP_MUL, -2), 1,
                              &xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(((const int64_t *)out.data[0])[k], -2 * x[k]);
    acc_array_release(&out);
}

Test(array_ops, zipwith_intersects_3x5_and_5x10)
{
    int64_t a[15], b[50], ea[2] = {3, 5}, eb[2] = {5, 10}, er[2] = {3, 5};
    for (int k = 0; k < 15; k++)
        a[k] = 1000 * k;
    for (int k = 0; k < 50; k++)
        b[k] = k;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *ys = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *arrs[2] = {xs, ys};
    acc_node *r = acc_zipwith(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), 2, arrs);
    acc_array in[2] = {ts_host(ACC_I64, 2, ea, a), ts_host(ACC_I64, 2, eb, b)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    ts_expect_shape(&out, 2, er);
    const int64_t *o = out.data[0];
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 5; j++)
            cr_assert_eq(o[i * 5 + j], a[i * 5 + j] + b[i * 10 + j],
                         "at [%lld,%lld]: %lld", (long long)i, (long long)j,
                         (long long)o[i * 5 + j]);
    acc_array_release(&out);
}

Test(array_ops, zipwith_three_arrays)
{
    double a[4] = {1, 2, 3, 4}, b[6] = {10, 20, 30, 40, 50, 60};
    double c[5] = {0.5, 0.25, 2, 4, 8};
    int64_t na = 4, nb = 6, nc = 5;
    acc_node *xs = acc_input(g, ts_sc(ACC_F64), 1);
    acc_node *ys = acc_input(g, ts_sc(ACC_F64), 1);
    acc_node *zs = acc_input(g, ts_sc(ACC_F64), 1);
    acc_node *p[3] = {acc_param(g, ts_sc(ACC_F64)),
                      acc_param(g, ts_sc(ACC_F64)),
                      acc_param(g, ts_sc(ACC_F64))};
    /* (x - y) * z: argument order matters */
    acc_node *body = acc_binop(g, ACC_OP_MUL,
                               acc_binop(g, ACC_OP_SUB, p[0], p[1]), p[2]);
    acc_node *f = acc_lambda(g, 3, p, body);
    acc_node *arrs[3] = {xs, ys, zs};
    acc_node *r = acc_zipwith(g, f, 3, arrs);
    acc_array in[3] = {ts_host(ACC_F64, 1, &na, a), ts_host(ACC_F64, 1, &nb, b),
                       ts_host(ACC_F64, 1, &nc, c)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 3, in, &out));
    ts_expect_shape(&out, 1, &na);
    for (int k = 0; k < 4; k++)
        cr_assert_float_eq(((const double *)out.data[0])[k],
                           (a[k] - b[k]) * c[k], 1e-12, "at %d", k);
    acc_array_release(&out);
}

/* ---- backpermute ---------------------------------------------------------- */

Test(array_ops, backpermute_reverses_a_vector)
{
    int32_t x[7] = {3, 1, 4, 1, 5, 9, 2};
    int64_t n = 7;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    /* \[i] -> [size xs - 1 - i] */
    acc_node *last = acc_binop(g, ACC_OP_SUB, acc_size(g, xs), ts_i64(g, 1));
    acc_node *src = acc_binop(g, ACC_OP_SUB, last, acc_get(g, ix, 0));
    acc_node *p = ts_lam1(g, ix, acc_index(g, 1, &src));
    acc_node *r = acc_backpermute(g, acc_shape(g, xs), p, xs);
    acc_array in = ts_host(ACC_I32, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    for (int k = 0; k < 7; k++)
        cr_assert_eq(((const int32_t *)out.data[0])[k], x[6 - k]);
    acc_array_release(&out);
}

Test(array_ops, backpermute_transposes_a_matrix)
{
    int64_t x[12], ext[2] = {3, 4}, tex[2] = {4, 3};
    for (int k = 0; k < 12; k++)
        x[k] = k * k;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *sh = acc_shape(g, xs);
    acc_node *tsh_c[2] = {acc_get(g, sh, 1), acc_get(g, sh, 0)};
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *swapped[2] = {acc_get(g, ix, 1), acc_get(g, ix, 0)};
    acc_node *p = ts_lam1(g, ix, acc_index(g, 2, swapped));
    acc_node *r = acc_backpermute(g, acc_index(g, 2, tsh_c), p, xs);
    acc_array in = ts_host(ACC_I64, 2, ext, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 2, tex);
    const int64_t *o = out.data[0];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            cr_assert_eq(o[i * 3 + j], x[j * 4 + i], "at [%d,%d]", i, j);
    acc_array_release(&out);
}

/* ---- reshape -------------------------------------------------------------- */

Test(array_ops, reshape_matrix_to_vector_and_back)
{
    int64_t x[12], ext[2] = {3, 4}, n = 12, ext2[2] = {2, 6};
    for (int k = 0; k < 12; k++)
        x[k] = 7 * k - 20;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *flat = acc_reshape(g, ts_shape1(g, 12), xs);
    acc_node *back = acc_reshape(g, ts_shape2(g, 2, 6), flat);
    acc_node *rs[2] = {flat, back};
    acc_array in = ts_host(ACC_I64, 2, ext, x), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 1, &in, out));
    ts_expect_shape(&out[0], 1, &n);
    ts_expect_shape(&out[1], 2, ext2);
    cr_assert_eq(memcmp(out[0].data[0], x, sizeof x), 0);
    cr_assert_eq(memcmp(out[1].data[0], x, sizeof x), 0);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(array_ops, reshape_size_mismatch_is_a_runtime_shape_error)
{
    int64_t x[12] = {0}, bad[2] = {3, 5}, good[2] = {3, 4};
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *r = acc_reshape(g, ts_shape1(g, 12), xs);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    acc_array in = ts_host(ACC_I64, 2, bad, x), out = ts_empty_output();
    acc_status st = acc_run(p, 1, &in, 1, &out);
    cr_assert_eq(st, ACC_ERR_SHAPE, "got %s", acc_status_string(st));
    cr_assert_null(out.data[0], "a failed run leaves no output allocated");
    cr_assert(ts_contains_ci(acc_last_error(), "reshape"), "message: %s",
              acc_last_error());
    cr_assert(ts_contains_ci(acc_program_last_error(p), "reshape"),
              "program message: %s", acc_program_last_error(p));
    /* the program still works */
    in = ts_host(ACC_I64, 2, good, x);
    out = ts_empty_output();
    ts_expect_ok(g, acc_run(p, 1, &in, 1, &out));
    cr_assert_eq(out.extents[0], 12);
    acc_array_release(&out);
    acc_program_free(p);
}

/* ---- fold ------------------------------------------------------------------- */

Test(array_ops, fold_plus_42_over_5x10)
{
    int64_t x[50], ext[2] = {5, 10}, n = 5;
    for (int k = 0; k < 50; k++)
        x[k] = k;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *r = acc_fold(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                           ts_i64(g, 42), xs);
    acc_array in = ts_host(ACC_I64, 2, ext, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    const int64_t want[5] = {87, 187, 287, 387, 487};
    for (int i = 0; i < 5; i++) {
        int64_t ref = 42;
        for (int j = 0; j < 10; j++)
            ref += x[i * 10 + j];
        cr_assert_eq(ref, want[i]); /* the C loop agrees with LANGUAGE.md */
        cr_assert_eq(((const int64_t *)out.data[0])[i], want[i], "row %d", i);
    }
    acc_array_release(&out);
}

Test(array_ops, fold_rank3_reduces_innermost)
{
    double x[24];
    int64_t ext[3] = {2, 3, 4}, rext[2] = {2, 3};
    for (int k = 0; k < 24; k++)
        x[k] = k * 1.5 - 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_F64), 3);
    acc_node *r = acc_fold(g, ts_binop_fn(g, ACC_F64, ACC_OP_MAX),
                           ts_f64(g, -100.0), xs);
    acc_node *r2 = acc_fold(g, ts_binop_fn(g, ACC_F64, ACC_OP_ADD),
                            ts_f64(g, 0), xs);
    acc_node *rs[2] = {r, r2};
    acc_array in = ts_host(ACC_F64, 3, ext, x), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 1, &in, out));
    ts_expect_shape(&out[0], 2, rext);
    ts_expect_shape(&out[1], 2, rext);
    for (int row = 0; row < 6; row++) {
        double mx = -100.0, sum = 0;
        for (int k = 0; k < 4; k++) {
            mx = x[row * 4 + k] > mx ? x[row * 4 + k] : mx;
            sum += x[row * 4 + k];
        }
        cr_assert_float_eq(((const double *)out[0].data[0])[row], mx, 1e-12);
        cr_assert_float_eq(((const double *)out[1].data[0])[row], sum, 1e-9);
    }
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(array_ops, fold_empty_rows_give_z)
{
    int64_t dummy = 0, ext[2] = {3, 0}, n = 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 2);
    acc_node *r = acc_fold(g, ts_binop_fn(g, ACC_I32, ACC_OP_ADD), ts_i32(g, 9),
                           xs);
    acc_array in = ts_host(ACC_I32, 2, ext, &dummy), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(((const int32_t *)out.data[0])[i], 9);
    acc_array_release(&out);
}

Test(array_ops, fold_empty_vector_gives_scalar_z_and_null_buffer_ok)
{
    int64_t n = 0;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *r = acc_fold(g, ts_binop_fn(g, ACC_I32, ACC_OP_ADD),
                           ts_i32(g, -5), xs);
    acc_array in = ts_host(ACC_I32, 1, &n, NULL), out; /* empty: NULL allowed */
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(out.rank, 0);
    cr_assert_eq(*(const int32_t *)out.data[0], -5);
    acc_array_release(&out);
}

Test(array_ops, fold_no_rows)
{
    int64_t ext[2] = {0, 4}, n = 0;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 2);
    acc_node *r = acc_fold(g, ts_binop_fn(g, ACC_I32, ACC_OP_ADD), ts_i32(g, 1),
                           xs);
    acc_array in = ts_host(ACC_I32, 2, ext, NULL), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    acc_array_release(&out);
}

/* Concatenation of decimal digit strings, as pairs (value, 10^length):
 * (a, pa) . (b, pb) = (a*pb + b, pa*pb).  Associative (also with u64
 * wrap-around, a ring) but not commutative, so any reordering shows. */
static acc_node *concat_fn(const acc_type *pair)
{
    acc_node *l = acc_param(g, pair), *r = acc_param(g, pair);
    acc_node *a = acc_get(g, l, 0), *pa = acc_get(g, l, 1);
    acc_node *b = acc_get(g, r, 0), *pb = acc_get(g, r, 1);
    acc_node *items[2] = {
        acc_binop(g, ACC_OP_ADD, acc_binop(g, ACC_OP_MUL, a, pb), b),
        acc_binop(g, ACC_OP_MUL, pa, pb)};
    return ts_lam2(g, l, r, acc_tuple(g, 2, items));
}

Test(array_ops, fold_keeps_order_of_a_non_commutative_operator)
{
    enum { ROWS = 4, COLS = 23 }; /* 23 digits overflow: wrap-around too */
    uint64_t x[ROWS * COLS];
    int64_t ext[2] = {ROWS, COLS}, n = ROWS;
    for (int k = 0; k < ROWS * COLS; k++)
        x[k] = (uint64_t)((k * 7 + 3) % 10);
    const acc_type *u64 = ts_sc(ACC_U64);
    const acc_type *fields[2] = {u64, u64};
    const acc_type *pair = acc_type_tuple(ctx, 2, fields);
    cr_assert_not_null(pair);
    acc_node *xs = acc_input(g, u64, 2);
    acc_node *d = acc_param(g, u64);
    acc_node *digit[2] = {d, ts_u64(g, ACC_U64, 10)};
    acc_node *pairs = acc_map(g, ts_lam1(g, d, acc_tuple(g, 2, digit)), xs);
    acc_node *zero[2] = {ts_u64(g, ACC_U64, 0), ts_u64(g, ACC_U64, 1)};
    acc_node *r = acc_fold(g, concat_fn(pair), acc_tuple(g, 2, zero), pairs);
    acc_array in = ts_host(ACC_U64, 2, ext, x), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, out));
    cr_assert_eq(acc_type_leaf_count(out[0].type), 2);
    ts_expect_shape(&out[0], 1, &n);
    for (int i = 0; i < ROWS; i++) {
        uint64_t v = 0, p = 1;
        for (int j = 0; j < COLS; j++) {
            v = v * 10 + x[i * COLS + j];
            p *= 10;
        }
        cr_assert_eq(((const uint64_t *)out[0].data[0])[i], v, "row %d", i);
        cr_assert_eq(((const uint64_t *)out[0].data[1])[i], p, "row %d", i);
    }
    acc_array_release(&out[0]);
}

Test(array_ops, fold_short_rows_in_order)
{
    /* rows of length 0..6: small digit strings that can be read off */
    uint64_t x[7 * 6];
    int64_t ext[2] = {7, 6};
    for (int k = 0; k < 42; k++)
        x[k] = (uint64_t)(k % 9 + 1);
    const acc_type *u64 = ts_sc(ACC_U64);
    const acc_type *fields[2] = {u64, u64};
    const acc_type *pair = acc_type_tuple(ctx, 2, fields);
    acc_node *xs = acc_input(g, u64, 2);
    acc_node *d = acc_param(g, u64);
    acc_node *digit[2] = {d, ts_u64(g, ACC_U64, 10)};
    acc_node *pairs = acc_map(g, ts_lam1(g, d, acc_tuple(g, 2, digit)), xs);
    acc_node *zero[2] = {ts_u64(g, ACC_U64, 0), ts_u64(g, ACC_U64, 1)};
    acc_node *r = acc_fold(g, concat_fn(pair), acc_tuple(g, 2, zero), pairs);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    for (int64_t len = 0; len <= 6; len++) {
        int64_t e[2] = {ext[0], len};
        /* repack as a 7 x len matrix */
        uint64_t m[7 * 6];
        for (int i = 0; i < 7; i++)
            for (int j = 0; j < len; j++)
                m[i * len + j] = x[i * 6 + j];
        acc_array in = ts_host(ACC_U64, 2, e, m),
                  out[2] = {ts_empty_output(), ts_empty_output()};
        cr_assert_eq(acc_program_num_outputs(p), 1);
        ts_expect_ok(g, acc_run(p, 1, &in, 1, out));
        for (int i = 0; i < 7; i++) {
            uint64_t v = 0;
            for (int j = 0; j < len; j++)
                v = v * 10 + m[i * len + j];
            cr_assert_eq(((const uint64_t *)out[0].data[0])[i], v,
                         "len %lld row %d: got %llu", (long long)len, i,
                         (unsigned long long)((const uint64_t *)
                                              out[0].data[0])[i]);
        }
        acc_array_release(&out[0]);
    }
    acc_program_free(p);
}

/* ---- fold1 ------------------------------------------------------------------ */

Test(array_ops, fold1_max)
{
    int32_t x[12] = {-5, -9, -1, -7, 3, 8, -2, 8, 0, 0, 0, 0};
    int64_t ext[2] = {3, 4}, n = 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 2);
    acc_node *r = acc_fold1(g, ts_binop_fn(g, ACC_I32, ACC_OP_MAX), xs);
    acc_array in = ts_host(ACC_I32, 2, ext, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    for (int i = 0; i < 3; i++) {
        int32_t m = x[i * 4];
        for (int j = 1; j < 4; j++)
            m = x[i * 4 + j] > m ? x[i * 4 + j] : m;
        cr_assert_eq(((const int32_t *)out.data[0])[i], m, "row %d", i);
    }
    acc_array_release(&out);
}

Test(array_ops, fold1_keep_first_and_keep_last)
{
    int64_t x[15], ext[2] = {3, 5};
    for (int k = 0; k < 15; k++)
        x[k] = 100 + k * 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *a = acc_param(g, ts_sc(ACC_I64)),
             *b = acc_param(g, ts_sc(ACC_I64));
    acc_node *first = acc_fold1(g, ts_lam2(g, a, b, a), xs);
    acc_node *c = acc_param(g, ts_sc(ACC_I64)),
             *d = acc_param(g, ts_sc(ACC_I64));
    acc_node *last = acc_fold1(g, ts_lam2(g, c, d, d), xs);
    acc_node *rs[2] = {first, last};
    acc_array in = ts_host(ACC_I64, 2, ext, x), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 1, &in, out));
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(((const int64_t *)out[0].data[0])[i], x[i * 5], "row %d", i);
        cr_assert_eq(((const int64_t *)out[1].data[0])[i], x[i * 5 + 4],
                     "row %d", i);
    }
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(array_ops, fold1_empty_row_is_a_runtime_error)
{
    int64_t ext[2] = {2, 0}, ok_ext[2] = {2, 1};
    int32_t x[2] = {4, 6};
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 2);
    acc_node *r = acc_fold1(g, ts_binop_fn(g, ACC_I32, ACC_OP_MAX), xs);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    acc_array in = ts_host(ACC_I32, 2, ext, x), out = ts_empty_output();
    acc_status st = acc_run(p, 1, &in, 1, &out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "got %s", acc_status_string(st));
    cr_assert_null(out.data[0]);
    cr_assert(ts_contains_ci(acc_last_error(), "fold1"), "message: %s",
              acc_last_error());
    in = ts_host(ACC_I32, 2, ok_ext, x);
    ts_expect_ok(g, acc_run(p, 1, &in, 1, &out));
    cr_assert_eq(((const int32_t *)out.data[0])[0], 4);
    cr_assert_eq(((const int32_t *)out.data[0])[1], 6);
    acc_array_release(&out);
    acc_program_free(p);
}

/* ---- tuple elements ------------------------------------------------------- */

Test(array_ops, map_to_a_tuple_gives_two_buffers)
{
    int32_t x[5] = {-2, 0, 1, 7, 100};
    int64_t n = 5;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *v = acc_param(g, ts_sc(ACC_I32));
    acc_node *items[2] = {v, acc_binop(g, ACC_OP_MUL, v, ts_i32(g, 2))};
    acc_node *r = acc_map(g, ts_lam1(g, v, acc_tuple(g, 2, items)), xs);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    cr_assert_eq(acc_program_num_outputs(p), 1, "an array of pairs is one "
                 "output with two buffers");
    acc_program_free(p);
    acc_array in = ts_host(ACC_I32, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(acc_type_get_kind(out.type), ACC_TYPE_TUPLE);
    cr_assert_eq(acc_type_leaf_count(out.type), 2);
    cr_assert_not_null(out.data[0]);
    cr_assert_not_null(out.data[1]);
    for (int k = 0; k < 5; k++) {
        cr_assert_eq(((const int32_t *)out.data[0])[k], x[k]);
        cr_assert_eq(((const int32_t *)out.data[1])[k], x[k] * 2);
    }
    acc_array_release(&out);
}

Test(array_ops, tuple_input_of_three_f32_buffers)
{
    /* Black-Scholes-like options (price, strike, years) */
    float price[4] = {10, 20, 30, 40}, strike[4] = {12, 18, 33, 40};
    float years[4] = {0.25f, 1, 2.25f, 4}, roots[4] = {0.5f, 1, 1.5f, 2};
    int64_t n = 4;
    const acc_type *f32 = ts_sc(ACC_F32);
    const acc_type *f3[3] = {f32, f32, f32};
    const acc_type *opt = acc_type_tuple(ctx, 3, f3);
    cr_assert_not_null(opt);
    acc_node *xs = acc_input(g, opt, 1);
    acc_node *o = acc_param(g, opt);
    acc_node *pr = acc_get(g, o, 0), *st = acc_get(g, o, 1),
             *yr = acc_get(g, o, 2);
    /* (price - strike * years / 8, sqrt years): exact in f32 */
    acc_node *items[2] = {
        acc_binop(g, ACC_OP_SUB, pr,
                  acc_binop(g, ACC_OP_FDIV, acc_binop(g, ACC_OP_MUL, st, yr),
                            ts_f32(g, 8.0f))),
        acc_unop(g, ACC_OP_SQRT, yr)};
    acc_node *r = acc_map(g, ts_lam1(g, o, acc_tuple(g, 2, items)), xs);
    void *bufs[3] = {price, strike, years};
    acc_array in = ts_host_array(opt, 1, &n, bufs), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(acc_type_leaf_count(out.type), 2);
    for (int k = 0; k < 4; k++) {
        float want0 = price[k] - strike[k] * years[k] / 8.0f;
        cr_assert_float_eq(((const float *)out.data[0])[k], want0, 1e-5,
                           "at %d", k);
        cr_assert_float_eq(((const float *)out.data[1])[k], roots[k], 1e-6,
                           "at %d", k);
    }
    acc_array_release(&out);
}

Test(array_ops, nested_tuple_elements_keep_leaf_order)
{
    /* map (\x -> (x, (x > 0, x * 3))) : (i32, (bool, i32)) */
    int32_t x[4] = {-1, 0, 2, 5};
    int64_t n = 4;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *v = acc_param(g, ts_sc(ACC_I32));
    acc_node *inner[2] = {acc_binop(g, ACC_OP_GT, v, ts_i32(g, 0)),
                          acc_binop(g, ACC_OP_MUL, v, ts_i32(g, 3))};
    acc_node *outer[2] = {v, acc_tuple(g, 2, inner)};
    acc_node *r = acc_map(g, ts_lam1(g, v, acc_tuple(g, 2, outer)), xs);
    acc_array in = ts_host(ACC_I32, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(acc_type_leaf_count(out.type), 3);
    cr_assert_eq(acc_type_leaf(out.type, 1), ACC_BOOL);
    for (int k = 0; k < 4; k++) {
        cr_assert_eq(((const int32_t *)out.data[0])[k], x[k]);
        cr_assert_eq(((const uint8_t *)out.data[1])[k], x[k] > 0);
        cr_assert_eq(((const int32_t *)out.data[2])[k], x[k] * 3);
    }
    acc_array_release(&out);
}

/* ---- tuples of arrays as results ------------------------------------------ */

Test(array_ops, two_results)
{
    int64_t x[3] = {1, 2, 3}, n = 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *rs[2] = {acc_map(g, with_const_fn(ACC_I64, ACC_OP_ADD, 1), xs),
                       acc_fold(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                ts_i64(g, 0), xs)};
    acc_array in = ts_host(ACC_I64, 1, &n, x), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 1, &in, out));
    ts_expect_shape(&out[0], 1, &n);
    cr_assert_eq(out[1].rank, 0);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(((const int64_t *)out[0].data[0])[k], x[k] + 1);
    cr_assert_eq(*(const int64_t *)out[1].data[0], 6);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(array_ops, tuple_of_arrays_is_one_result_per_array)
{
    int64_t x[4] = {4, 3, 2, 1}, n = 4;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *items[2] = {acc_map(g, with_const_fn(ACC_I64, ACC_OP_MUL, 10),
                                  xs),
                          acc_fill(g, ts_shape2(g, 2, 2), ts_f64(g, 0.5))};
    acc_node *t = acc_tuple(g, 2, items);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &t, &p));
    cr_assert_eq(acc_program_num_outputs(p), 2);
    const acc_type *et = NULL;
    int32_t rank = -1;
    ts_expect_ok(g, acc_program_output(p, 1, &et, &rank));
    cr_assert(acc_type_equal(et, ts_sc(ACC_F64)));
    cr_assert_eq(rank, 2);
    acc_program_free(p);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 1, &t, 1, &in, out));
    for (int k = 0; k < 4; k++)
        cr_assert_eq(((const int64_t *)out[0].data[0])[k], x[k] * 10);
    cr_assert_eq(acc_array_size(&out[1]), 4);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(((const double *)out[1].data[0])[k], 0.5);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

/* ---- reads from scalar code ------------------------------------------------- */

Test(array_ops, generate_reads_another_input)
{
    /* generate (shape m) (\[i,j] -> m ! [i,j] * 2 + v !! (size v - 1 - j)
     *                              + the s) */
    int64_t m[6] = {1, 2, 3, 4, 5, 6}, v[3] = {100, 200, 300}, s = 7;
    int64_t em[2] = {2, 3}, nv = 3;
    acc_node *mi = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *vi = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *si = acc_input(g, ts_sc(ACC_I64), 0);
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *j = acc_get(g, ix, 1);
    acc_node *pos = acc_binop(g, ACC_OP_SUB,
                              acc_binop(g, ACC_OP_SUB, acc_size(g, vi),
                                        ts_i64(g, 1)), j);
    acc_node *body = acc_binop(
        g, ACC_OP_ADD,
        acc_binop(g, ACC_OP_ADD,
                  acc_binop(g, ACC_OP_MUL, acc_read(g, mi, ix), ts_i64(g, 2)),
                  acc_read_linear(g, vi, pos)),
        acc_the(g, si));
    acc_node *r = acc_generate(g, acc_shape(g, mi), ts_lam1(g, ix, body));
    acc_array in[3] = {ts_host(ACC_I64, 2, em, m), ts_host(ACC_I64, 1, &nv, v),
                       ts_host(ACC_I64, 0, NULL, &s)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 3, in, &out));
    ts_expect_shape(&out, 2, em);
    for (int i = 0; i < 2; i++)
        for (int jj = 0; jj < 3; jj++)
            cr_assert_eq(((const int64_t *)out.data[0])[i * 3 + jj],
                         m[i * 3 + jj] * 2 + v[2 - jj] + s, "at [%d,%d]", i,
                         jj);
    acc_array_release(&out);
}

Test(array_ops, map_reads_shape_components)
{
    /* map (\x -> x + rows * 1000 + cols) m, rows/cols from shape m */
    int64_t m[6] = {0, 1, 2, 3, 4, 5}, em[2] = {3, 2};
    acc_node *mi = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *sh = acc_shape(g, mi);
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *body = acc_binop(
        g, ACC_OP_ADD,
        acc_binop(g, ACC_OP_ADD, x,
                  acc_binop(g, ACC_OP_MUL, acc_get(g, sh, 0),
                            ts_i64(g, 1000))),
        acc_get(g, sh, 1));
    acc_node *r = acc_map(g, ts_lam1(g, x, body), mi);
    acc_array in = ts_host(ACC_I64, 2, em, m), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    for (int k = 0; k < 6; k++)
        cr_assert_eq(((const int64_t *)out.data[0])[k], m[k] + 3002);
    acc_array_release(&out);
}

Test(array_ops, out_of_bounds_read_is_a_runtime_error)
{
    int64_t small[3] = {1, 2, 3}, ns = 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *k = ts_i64(g, 12345);
    acc_node *body = acc_binop(g, ACC_OP_ADD, acc_get(g, ix, 0),
                               acc_read(g, xs, acc_index(g, 1, &k)));
    acc_node *r = acc_generate(g, ts_shape1(g, 2), ts_lam1(g, ix, body));
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    acc_array in = ts_host(ACC_I64, 1, &ns, small), out = ts_empty_output();
    acc_status st = acc_run(p, 1, &in, 1, &out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "got %s", acc_status_string(st));
    cr_assert_null(out.data[0]);
    cr_assert(ts_contains_ci(acc_last_error(), "12345"), "message: %s",
              acc_last_error());
    /* the same program on a big enough input works */
    int64_t nb = 12346;
    int64_t *big = calloc((size_t)nb, sizeof *big);
    cr_assert_not_null(big);
    big[12345] = 77;
    in = ts_host(ACC_I64, 1, &nb, big);
    st = acc_run(p, 1, &in, 1, &out);
    free(big);
    ts_expect_ok(g, st);
    cr_assert_eq(((const int64_t *)out.data[0])[0], 77);
    cr_assert_eq(((const int64_t *)out.data[0])[1], 78);
    acc_array_release(&out);
    acc_program_free(p);
}

Test(array_ops, out_of_bounds_linear_read_is_a_runtime_error)
{
    int64_t x[4] = {1, 2, 3, 4}, n = 4;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *v = acc_param(g, ts_sc(ACC_I64));
    /* map (\v -> xs !! (v * 1000)) xs: reads 1000, ... */
    acc_node *r = acc_map(g,
                          ts_lam1(g, v,
                                  acc_read_linear(g, xs,
                                                  acc_binop(g, ACC_OP_MUL, v,
                                                            ts_i64(g, 1000)))),
                          xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out[1];
    acc_status st = ts_run(ctx, g, 1, &r, 1, &in, out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "got %s", acc_status_string(st));
    cr_assert(ts_contains_ci(acc_last_error(), "000"), "message: %s",
              acc_last_error());
}
