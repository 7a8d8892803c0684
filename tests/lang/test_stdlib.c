/*
 * test_stdlib.c — the standard library of LANGUAGE.md §3.1 and §3.2 (the
 * functions of core/stdlib/) on the reference interpreter.  Each function
 * runs on at least two ranks where that applies, with corner cases (empty
 * arrays, clamped counts, intersected extents, tuple elements); every
 * expected value comes from a plain C loop.
 *
 * This file: even/odd, the reductions, foldAll/fold1All, and errors
 * (a NULL argument, an earlier error passing through).  The producers
 * (enumFrom*, zip, unzip, indexed, length), the structural functions
 * (reverse ... ++), gather and scatter, and filter and compact have files
 * of their own (test_stdlib_producers.c, test_stdlib_structural.c,
 * test_stdlib_gather.c, test_stdlib_filter.c); the fixture and helpers
 * they share are in stdlib_support.c.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "accel.h"
#include "stdlib_support.h"
#include "support.h"

TestSuite(stdlib, .init = stdlib_setup, .fini = stdlib_teardown);

/* ---- even / odd ------------------------------------------------------------- */

Test(stdlib, even_and_odd_on_signed_and_unsigned_scalars)
{
    static const int64_t vals[] = {-3, -2, -1, 0, 1, 2, 7, 100};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint8_t e = 9, o = 9, u = 9;
        ts_expect_ok(g, ts_eval_scalar(ctx, g,
                                       acc_even(g, ts_i32(g, (int32_t)vals[i])),
                                       &e, 1));
        ts_expect_ok(g, ts_eval_scalar(ctx, g, acc_odd(g, ts_i64(g, vals[i])),
                                       &o, 1));
        ts_expect_ok(g, ts_eval_scalar(ctx, g,
                                       acc_odd(g, ts_int(g, ACC_U8, vals[i])),
                                       &u, 1));
        cr_assert_eq(e, vals[i] % 2 == 0, "even %lld", (long long)vals[i]);
        cr_assert_eq(o, vals[i] % 2 != 0, "odd %lld", (long long)vals[i]);
        cr_assert_eq(u, (uint8_t)vals[i] % 2 != 0, "odd (u8) %lld",
                     (long long)vals[i]);
    }
}

Test(stdlib, even_of_a_float_is_a_type_error)
{
    acc_node *r = acc_unit(g, acc_even(g, ts_f32(g, 2.0f)));
    cr_assert_null(r);
    cr_assert_eq(acc_graph_status(g), ACC_ERR_TYPE);
}

/* ---- reductions ------------------------------------------------------------- */

Test(stdlib, sum_and_product_of_a_vector_and_a_matrix)
{
    int32_t v[7] = {3, -1, 4, 1, -5, 9, 2};
    double m[12];
    int64_t n = 7, ext[2] = {3, 4};
    for (int i = 0; i < 12; i++)
        m[i] = (double)(i % 5) - 1.5;
    acc_node *xs = in(ACC_I32, 1), *ms = in(ACC_F64, 2);
    acc_node *r[4] = {acc_sum(g, xs), acc_product(g, xs), acc_sum(g, ms),
                      acc_product(g, ms)};
    acc_array ins[2] = {ts_host(ACC_I32, 1, &n, v),
                        ts_host(ACC_F64, 2, ext, m)};
    acc_array out[4];
    run_ok(4, r, 2, ins, out);
    int32_t s = 0, p = 1;
    for (int i = 0; i < 7; i++) {
        s += v[i];
        p *= v[i];
    }
    double rs[3] = {0, 0, 0}, rp[3] = {1, 1, 1};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            rs[i] += m[i * 4 + j];
            rp[i] *= m[i * 4 + j];
        }
    EXPECT(&out[0], 0, NULL, &s);
    EXPECT(&out[1], 0, NULL, &p);
    EXPECT(&out[2], 1, ext, rs);
    EXPECT(&out[3], 1, ext, rp);
    release(out, 4);
}

Test(stdlib, sum_and_product_of_empty_rows_are_0_and_1)
{
    int64_t ext[2] = {2, 0}, zeros[2] = {0, 0}, ones[2] = {1, 1};
    acc_node *ms = in(ACC_I64, 2);
    acc_node *r[2] = {acc_sum(g, ms), acc_product(g, ms)};
    acc_array a = ts_host(ACC_I64, 2, ext, NULL), out[2];
    run_ok(2, r, 1, &a, out);
    EXPECT(&out[0], 1, ext, zeros);
    EXPECT(&out[1], 1, ext, ones);
    release(out, 2);
}

Test(stdlib, maximum_and_minimum_of_a_vector_and_a_matrix)
{
    float v[9];
    int16_t m[20];
    int64_t n = 9, ext[2] = {4, 5};
    for (int i = 0; i < 9; i++)
        v[i] = (float)mix(i) * 0.5f;
    for (int i = 0; i < 20; i++)
        m[i] = (int16_t)(mix(i * 3) * 100);
    acc_node *xs = in(ACC_F32, 1), *ms = in(ACC_I16, 2);
    acc_node *r[4] = {acc_maximum(g, xs), acc_minimum(g, xs),
                      acc_maximum(g, ms), acc_minimum(g, ms)};
    acc_array ins[2] = {ts_host(ACC_F32, 1, &n, v),
                        ts_host(ACC_I16, 2, ext, m)};
    acc_array out[4];
    run_ok(4, r, 2, ins, out);
    float hi = v[0], lo = v[0];
    for (int i = 1; i < 9; i++) {
        hi = v[i] > hi ? v[i] : hi;
        lo = v[i] < lo ? v[i] : lo;
    }
    int16_t rh[4], rl[4];
    for (int i = 0; i < 4; i++) {
        rh[i] = rl[i] = m[i * 5];
        for (int j = 1; j < 5; j++) {
            int16_t x = m[i * 5 + j];
            rh[i] = x > rh[i] ? x : rh[i];
            rl[i] = x < rl[i] ? x : rl[i];
        }
    }
    EXPECT(&out[0], 0, NULL, &hi);
    EXPECT(&out[1], 0, NULL, &lo);
    EXPECT(&out[2], 1, ext, rh);
    EXPECT(&out[3], 1, ext, rl);
    release(out, 4);
}

Test(stdlib, maximum_of_an_empty_row_is_a_runtime_error)
{
    int64_t ext[2] = {3, 0};
    acc_node *r = acc_maximum(g, in(ACC_I32, 2));
    acc_array a = ts_host(ACC_I32, 2, ext, NULL);
    cr_assert_eq(run_status(r, 1, &a), ACC_ERR_RUNTIME);
}

Test(stdlib, and_or_all_any_on_a_vector_and_a_matrix)
{
    uint8_t b[6] = {1, 1, 0, 1, 1, 1};
    int32_t m[12];
    int64_t n = 6, ext[2] = {4, 3};
    for (int i = 0; i < 12; i++) /* rows: all even, mixed, all odd, mixed */
        m[i] = i < 3 ? 2 * i : i < 6 ? i : i < 9 ? 2 * i + 1 : i + 1;
    acc_node *bs = in(ACC_BOOL, 1), *ms = in(ACC_I32, 2);
    acc_node *r[4] = {acc_and(g, bs), acc_or(g, bs),
                      acc_all_of(g, even_fn(ACC_I32), ms),
                      acc_any(g, even_fn(ACC_I32), ms)};
    acc_array ins[2] = {ts_host(ACC_BOOL, 1, &n, b),
                        ts_host(ACC_I32, 2, ext, m)};
    acc_array out[4];
    run_ok(4, r, 2, ins, out);
    uint8_t all_b = 1, any_b = 0, all_r[4], any_r[4];
    for (int i = 0; i < 6; i++) {
        all_b = all_b && b[i];
        any_b = any_b || b[i];
    }
    for (int i = 0; i < 4; i++) {
        all_r[i] = 1;
        any_r[i] = 0;
        for (int j = 0; j < 3; j++) {
            all_r[i] = all_r[i] && m[i * 3 + j] % 2 == 0;
            any_r[i] = any_r[i] || m[i * 3 + j] % 2 == 0;
        }
    }
    EXPECT(&out[0], 0, NULL, &all_b);
    EXPECT(&out[1], 0, NULL, &any_b);
    EXPECT(&out[2], 1, ext, all_r);
    EXPECT(&out[3], 1, ext, any_r);
    release(out, 4);
}

Test(stdlib, and_or_of_empty_rows_are_true_and_false)
{
    int64_t ext[2] = {2, 0};
    uint8_t t[2] = {1, 1}, f[2] = {0, 0};
    acc_node *bs = in(ACC_BOOL, 2);
    acc_node *r[2] = {acc_and(g, bs), acc_or(g, bs)};
    acc_array a = ts_host(ACC_BOOL, 2, ext, NULL), out[2];
    run_ok(2, r, 1, &a, out);
    EXPECT(&out[0], 1, ext, t);
    EXPECT(&out[1], 1, ext, f);
    release(out, 2);
}

Test(stdlib, sum_of_bools_is_a_type_error)
{
    cr_assert_null(acc_sum(g, in(ACC_BOOL, 1)));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_TYPE);
}

Test(stdlib, fold_all_of_a_matrix_and_a_rank3_array)
{
    int64_t m[15], c[24], e2[2] = {3, 5}, e3[3] = {2, 3, 4};
    for (int i = 0; i < 15; i++)
        m[i] = mix(i);
    for (int i = 0; i < 24; i++)
        c[i] = mix(i + 5) * 3;
    acc_node *ms = in(ACC_I64, 2), *cs = in(ACC_I64, 3);
    acc_node *r[3] = {acc_fold_all(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                   ts_i64(g, 100), ms),
                      acc_fold_all(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                   ts_i64(g, 0), cs),
                      acc_fold1_all(g, ts_binop_fn(g, ACC_I64, ACC_OP_MAX),
                                    cs)};
    acc_array ins[2] = {ts_host(ACC_I64, 2, e2, m), ts_host(ACC_I64, 3, e3, c)};
    acc_array out[3];
    run_ok(3, r, 2, ins, out);
    int64_t s2 = 100, s3 = 0, hi = c[0];
    for (int i = 0; i < 15; i++)
        s2 += m[i];
    for (int i = 0; i < 24; i++) {
        s3 += c[i];
        hi = c[i] > hi ? c[i] : hi;
    }
    EXPECT(&out[0], 0, NULL, &s2);
    EXPECT(&out[1], 0, NULL, &s3);
    EXPECT(&out[2], 0, NULL, &hi);
    release(out, 3);
}

Test(stdlib, fold_all_of_an_empty_array_gives_z)
{
    int64_t ext[2] = {4, 0};
    double z = 2.5;
    acc_node *r = acc_fold_all(g, ts_binop_fn(g, ACC_F64, ACC_OP_ADD),
                               ts_f64(g, 2.5), in(ACC_F64, 2));
    acc_array a = ts_host(ACC_F64, 2, ext, NULL), out;
    run_ok(1, &r, 1, &a, &out);
    EXPECT(&out, 0, NULL, &z);
    release(&out, 1);
}

Test(stdlib, fold1_all_of_an_empty_array_is_a_runtime_error)
{
    int64_t ext[3] = {2, 0, 3};
    acc_node *r = acc_fold1_all(g, ts_binop_fn(g, ACC_F64, ACC_OP_ADD),
                                in(ACC_F64, 3));
    acc_array a = ts_host(ACC_F64, 3, ext, NULL);
    cr_assert_eq(run_status(r, 1, &a), ACC_ERR_RUNTIME);
}

/* ---- errors ------------------------------------------------------------------ */

Test(stdlib, a_null_argument_fails_the_graph)
{
    cr_assert_null(acc_reverse(g, NULL));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_INVALID_ARGUMENT);
    cr_assert(ts_contains_ci(acc_graph_last_error(g), "null"));
}

Test(stdlib, an_earlier_error_passes_through_unchanged)
{
    acc_node *bad = acc_input(g, ts_sc(ACC_I32), -1);
    cr_assert_null(bad);
    const char *first = acc_graph_last_error(g);
    char copy[256];
    strncpy(copy, first, sizeof copy - 1);
    copy[sizeof copy - 1] = '\0';
    acc_node *r = acc_filter(g, even_fn(ACC_I32),
                             acc_concat(g, acc_reverse(g, bad), bad));
    cr_assert_null(r);
    cr_assert_null(acc_sum(g, acc_take(g, ts_i64(g, 1), bad)));
    cr_assert_null(acc_even(g, NULL));
    cr_assert_str_eq(acc_graph_last_error(g), copy);
}
