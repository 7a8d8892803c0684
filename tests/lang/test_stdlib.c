/*
 * test_stdlib.c — the standard library of LANGUAGE.md §3.1 and §3.2 (the
 * functions of core/stdlib/) on the reference interpreter: even/odd, the
 * reductions, foldAll/fold1All, the producers (enumFrom*, zip, unzip,
 * indexed), the structural functions (reverse ... ++), gather, scatter,
 * filter and compact.  Each runs on at least two ranks where that applies,
 * with corner cases (empty arrays, clamped counts, intersected extents,
 * tuple elements); every expected value comes from a plain C loop here.
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

TestSuite(stdlib, .init = setup, .fini = teardown);

/* ---- small builders and checks ------------------------------------------ */

static acc_node *in(acc_scalar s, int32_t rank)
{
    return acc_input(g, ts_sc(s), rank);
}

/* \x -> even x on scalar type s */
static acc_node *even_fn(acc_scalar s)
{
    acc_node *x = acc_param(g, ts_sc(s));
    return acc_lambda(g, 1, &x, acc_even(g, x));
}

/* Output a has the given shape, and leaf `leaf` holds want[] (elements of
 * `size` bytes). */
static void expect_leaf(const acc_array *a, size_t leaf, int32_t rank,
                        const int64_t *ext, const void *want, size_t size)
{
    ts_expect_shape(a, rank, ext);
    int64_t n = acc_array_size(a);
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(memcmp((const char *)a->data[leaf] + i * (int64_t)size,
                            (const char *)want + i * (int64_t)size, size), 0,
                     "leaf %zu, element %lld differs", leaf, (long long)i);
}

#define EXPECT(a, rank, ext, want) \
    expect_leaf((a), 0, (rank), (ext), (want), sizeof *(want))

static void run_ok(size_t n_res, acc_node *const *res, size_t n_in,
                   const acc_array *ins, acc_array *outs)
{
    ts_expect_ok(g, ts_run(ctx, g, n_res, res, n_in, ins, outs));
}

static void release(acc_array *outs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc_array_release(&outs[i]);
}

/* Runs the single result r (up to 2 output arrays) and returns the status;
 * outputs are released. */
static acc_status run_status(acc_node *r, size_t n_in, const acc_array *ins)
{
    acc_array out[2];
    acc_status st = ts_run(ctx, g, 1, &r, n_in, ins, out);
    if (st == ACC_OK)
        release(out, acc_type_get_kind(acc_node_type(r)) == ACC_TYPE_TUPLE
                         ? 2 : 1);
    return st;
}

/* A deterministic value in [-7, 7] for position i. */
static int64_t mix(int64_t i)
{
    return (i * 7 + 3) % 15 - 7;
}

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

/* ---- producers -------------------------------------------------------------- */

Test(stdlib, enum_from_n_on_a_vector_and_a_matrix)
{
    int64_t n = 6, ext[2] = {3, 4};
    acc_node *r[2] = {acc_enum_from_n(g, ts_shape(g, 1, &n), ts_i32(g, -2)),
                      acc_enum_from_n(g, ts_shape(g, 2, ext), ts_f64(g, 0.5))};
    acc_array out[2];
    run_ok(2, r, 0, NULL, out);
    int32_t v[6];
    double m[12];
    for (int i = 0; i < 6; i++)
        v[i] = -2 + i;
    for (int i = 0; i < 12; i++)
        m[i] = 0.5 + i;
    EXPECT(&out[0], 1, &n, v);
    EXPECT(&out[1], 2, ext, m);
    release(out, 2);
}

Test(stdlib, enum_from_step_n_on_ranks_0_to_3_and_empty)
{
    int64_t e3[3] = {2, 2, 3}, e2[2] = {0, 5};
    acc_node *r[3] = {acc_enum_from_step_n(g, ts_shape(g, 3, e3), ts_i64(g, 10),
                                           ts_i64(g, -3)),
                      acc_enum_from_step_n(g, ts_shape(g, 0, NULL),
                                           ts_i64(g, 7), ts_i64(g, 2)),
                      acc_enum_from_step_n(g, ts_shape(g, 2, e2), ts_i64(g, 1),
                                           ts_i64(g, 1))};
    acc_array out[3];
    run_ok(3, r, 0, NULL, out);
    int64_t c[12], seven = 7;
    for (int i = 0; i < 12; i++)
        c[i] = 10 - 3 * i;
    EXPECT(&out[0], 3, e3, c);
    EXPECT(&out[1], 0, NULL, &seven);
    ts_expect_shape(&out[2], 2, e2);
    release(out, 3);
}

Test(stdlib, zip_then_unzip_is_the_identity_on_two_ranks)
{
    int32_t a[6] = {1, 2, 3, 4, 5, 6};
    double b[6] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    uint8_t m1[6] = {1, 0, 1, 1, 0, 0};
    int16_t m2[6] = {-1, -2, -3, -4, -5, -6};
    int64_t n = 6, ext[2] = {2, 3};
    acc_node *xs = in(ACC_I32, 1), *ys = in(ACC_F64, 1);
    acc_node *ps = in(ACC_BOOL, 2), *qs = in(ACC_I16, 2);
    acc_node *z1 = acc_unzip(g, acc_zip(g, xs, ys));
    acc_node *z2 = acc_unzip(g, acc_zip(g, ps, qs));
    acc_node *r[2] = {z1, z2};
    acc_array ins[4] = {ts_host(ACC_I32, 1, &n, a), ts_host(ACC_F64, 1, &n, b),
                        ts_host(ACC_BOOL, 2, ext, m1),
                        ts_host(ACC_I16, 2, ext, m2)};
    acc_array out[4];
    run_ok(2, r, 4, ins, out);
    EXPECT(&out[0], 1, &n, a);
    EXPECT(&out[1], 1, &n, b);
    EXPECT(&out[2], 2, ext, m1);
    EXPECT(&out[3], 2, ext, m2);
    release(out, 4);
}

Test(stdlib, zip_intersects_extents_and_stores_both_leaves)
{
    int64_t a[12], b[6], ea[2] = {3, 4}, eb[2] = {2, 3}, ez[2] = {2, 3};
    for (int i = 0; i < 12; i++)
        a[i] = i;
    for (int i = 0; i < 6; i++)
        b[i] = 100 + i;
    acc_node *xs = in(ACC_I64, 2), *ys = in(ACC_I64, 2);
    acc_node *r = acc_zip(g, xs, ys);
    acc_array ins[2] = {ts_host(ACC_I64, 2, ea, a), ts_host(ACC_I64, 2, eb, b)};
    acc_array out;
    run_ok(1, &r, 2, ins, &out);
    cr_assert_eq(acc_type_get_kind(out.type), ACC_TYPE_TUPLE);
    int64_t wa[6], wb[6];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            wa[i * 3 + j] = a[i * 4 + j];
            wb[i * 3 + j] = b[i * 3 + j];
        }
    expect_leaf(&out, 0, 2, ez, wa, sizeof wa[0]);
    expect_leaf(&out, 1, 2, ez, wb, sizeof wb[0]);
    release(&out, 1);
}

Test(stdlib, unzip_of_a_triple_and_of_indices)
{
    int64_t n = 4, ext[2] = {2, 3};
    int32_t a[4] = {1, 2, 3, 4};
    acc_node *xs = in(ACC_I32, 1);
    acc_node *t = acc_zip(g, acc_zip(g, xs, xs), xs); /* ((a, a), a) */
    acc_node *pair = acc_get(g, acc_unzip(g, t), 0);
    acc_node *ix = acc_get(g, acc_unzip(g, acc_indexed(g, in(ACC_U8, 2))), 0);
    acc_node *r[2] = {acc_unzip(g, pair), acc_unzip(g, ix)};
    uint8_t m[6] = {0};
    acc_array ins[2] = {ts_host(ACC_I32, 1, &n, a), ts_host(ACC_U8, 2, ext, m)};
    acc_array out[4];
    run_ok(2, r, 2, ins, out);
    int64_t rows[6], cols[6];
    for (int i = 0; i < 6; i++) {
        rows[i] = i / 3;
        cols[i] = i % 3;
    }
    EXPECT(&out[0], 1, &n, a);
    EXPECT(&out[1], 1, &n, a);
    EXPECT(&out[2], 2, ext, rows);
    EXPECT(&out[3], 2, ext, cols);
    release(out, 4);
}

/* zip3 .. zip9 are acc_zip_n: a tuple of n leaves, the extent the
 * intersection; unzip takes it apart again. */
Test(stdlib, zip_n_of_three_and_nine_arrays)
{
    int64_t a[5] = {1, 2, 3, 4, 5}, na = 5, nb = 4;
    float b[4] = {0.5f, 1.5f, -2.0f, 8.0f};
    uint8_t c[5] = {1, 0, 1, 1, 0};
    acc_node *xs = in(ACC_I64, 1), *ys = in(ACC_F32, 1), *zs = in(ACC_BOOL, 1);
    acc_node *three[3] = {xs, ys, zs}, *nine[9];
    for (int i = 0; i < 9; i++)
        nine[i] = i % 3 == 0 ? xs : i % 3 == 1 ? ys : zs;
    acc_node *r[2] = {acc_unzip(g, acc_zip_n(g, 3, three)),
                      acc_unzip(g, acc_zip_n(g, 9, nine))};
    const acc_type *t3 = acc_type_get_elem(acc_node_type(acc_zip_n(g, 3, three)));
    cr_assert_eq(acc_type_get_arity(t3), 3);
    acc_array ins[3] = {ts_host(ACC_I64, 1, &na, a), ts_host(ACC_F32, 1, &nb, b),
                        ts_host(ACC_BOOL, 1, &na, c)};
    acc_array out[12];
    run_ok(2, r, 3, ins, out);
    for (int k = 0; k < 12; k++) {
        int f = k < 3 ? k : (k - 3) % 3;
        const void *want = f == 0 ? (const void *)a : f == 1 ? (const void *)b
                                                             : (const void *)c;
        expect_leaf(&out[k], 0, 1, &nb, want, f == 0 ? 8 : f == 1 ? 4 : 1);
    }
    release(out, 12);
}

Test(stdlib, zip_n_of_fewer_than_two_arrays_is_refused)
{
    acc_node *xs = in(ACC_I64, 1);
    cr_assert_null(acc_zip_n(g, 1, &xs));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_INVALID_ARGUMENT);
    ts_fresh_graph(ctx, &g);
    cr_assert_null(acc_zip_n(g, 3, NULL));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_INVALID_ARGUMENT);
    ts_fresh_graph(ctx, &g);
    acc_node *many[17];
    for (int i = 0; i < 17; i++)
        many[i] = in(ACC_I64, 1);
    cr_assert_null(acc_zip_n(g, 17, many), "17 leaves do not fit an element");
    cr_assert_neq(acc_graph_status(g), ACC_OK);
}

/* length: the innermost extent, of a vector and of a matrix */
Test(stdlib, length_is_the_innermost_extent)
{
    int64_t v[7] = {0}, m[6] = {0}, nv = 7, em[2] = {2, 3};
    acc_node *r[2] = {acc_unit(g, acc_length(g, in(ACC_I64, 1))),
                      acc_unit(g, acc_length(g, in(ACC_I64, 2)))};
    acc_array ins[2] = {ts_host(ACC_I64, 1, &nv, v), ts_host(ACC_I64, 2, em, m)};
    acc_array out[2];
    run_ok(2, r, 2, ins, out);
    int64_t seven = 7, three = 3;
    EXPECT(&out[0], 0, NULL, &seven);
    EXPECT(&out[1], 0, NULL, &three);
    release(out, 2);
    ts_fresh_graph(ctx, &g);
    cr_assert_null(acc_length(g, in(ACC_I64, 0)), "a Scalar has no length");
    cr_assert_neq(acc_graph_status(g), ACC_OK);
}

Test(stdlib, unzip_of_a_scalar_array_is_a_type_error)
{
    cr_assert_null(acc_unzip(g, in(ACC_I32, 1)));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_TYPE);
}

Test(stdlib, indexed_pairs_elements_with_their_index_on_two_ranks)
{
    float v[5] = {9, 8, 7, 6, 5};
    int64_t n = 5, ext[2] = {2, 3}, m[6] = {10, 11, 12, 13, 14, 15};
    acc_node *vs = in(ACC_F32, 1), *ms = in(ACC_I64, 2);
    acc_node *r[2] = {acc_indexed(g, vs), acc_indexed(g, ms)};
    acc_array ins[2] = {ts_host(ACC_F32, 1, &n, v),
                        ts_host(ACC_I64, 2, ext, m)};
    acc_array out[2];
    run_ok(2, r, 2, ins, out);
    int64_t iv[5] = {0, 1, 2, 3, 4}, rows[6], cols[6];
    for (int i = 0; i < 6; i++) {
        rows[i] = i / 3;
        cols[i] = i % 3;
    }
    expect_leaf(&out[0], 0, 1, &n, iv, sizeof iv[0]);
    expect_leaf(&out[0], 1, 1, &n, v, sizeof v[0]);
    expect_leaf(&out[1], 0, 2, ext, rows, sizeof rows[0]);
    expect_leaf(&out[1], 1, 2, ext, cols, sizeof cols[0]);
    expect_leaf(&out[1], 2, 2, ext, m, sizeof m[0]);
    release(out, 2);
}

/* ---- structural ------------------------------------------------------------- */

/* Runs f on an i64 vector 0..n-1 and on a 3 x n matrix holding 100*i + j,
 * and checks both against the C reference `ref` of one row (it writes the
 * result row from the source row, returning its length). */
typedef int64_t (*row_ref)(const int64_t *src, int64_t n, int64_t *dst);

static void check_rows(acc_node *(*f)(acc_node *), int64_t n, row_ref ref)
{
    int64_t v[16], m[48], ext[2] = {3, n};
    for (int64_t i = 0; i < 3 * n; i++) {
        m[i] = 100 * (i / n) + i % n;
        v[i % n] = i % n;
    }
    ts_fresh_graph(ctx, &g);
    acc_node *vs = in(ACC_I64, 1), *ms = in(ACC_I64, 2);
    acc_node *r[2] = {f(vs), f(ms)};
    acc_array ins[2] = {ts_host(ACC_I64, 1, &n, v),
                        ts_host(ACC_I64, 2, ext, m)};
    acc_array out[2];
    run_ok(2, r, 2, ins, out);
    int64_t wv[16], wm[48], len = ref(v, n, wv);
    for (int64_t i = 0; i < 3; i++)
        ref(m + i * n, n, wm + i * len);
    int64_t ev = len, em[2] = {3, len};
    EXPECT(&out[0], 1, &ev, wv);
    EXPECT(&out[1], 2, em, wm);
    release(out, 2);
}

/* Reference of slit i k (take and drop too): clamped like the library. */
static int64_t ref_slit(const int64_t *src, int64_t n, int64_t *dst,
                        int64_t i, int64_t k)
{
    int64_t s = i < 0 ? 0 : i > n ? n : i;
    int64_t len = k < 0 ? 0 : k > n - s ? n - s : k;
    for (int64_t j = 0; j < len; j++)
        dst[j] = src[s + j];
    return len;
}

static int64_t ref_reverse(const int64_t *src, int64_t n, int64_t *dst)
{
    for (int64_t j = 0; j < n; j++)
        dst[j] = src[n - 1 - j];
    return n;
}

static acc_node *do_reverse(acc_node *xs)
{
    return acc_reverse(g, xs);
}

Test(stdlib, reverse_on_two_ranks_and_empty_rows)
{
    check_rows(do_reverse, 7, ref_reverse);
    check_rows(do_reverse, 1, ref_reverse);
    check_rows(do_reverse, 0, ref_reverse);
}

/* take/drop/slit with the counts of the current test. */
static int64_t arg_i, arg_k;

static int64_t ref_take(const int64_t *s, int64_t n, int64_t *d)
{
    return ref_slit(s, n, d, 0, arg_k);
}

static int64_t ref_drop(const int64_t *s, int64_t n, int64_t *d)
{
    return ref_slit(s, n, d, arg_k, n);
}

static int64_t ref_slit_args(const int64_t *s, int64_t n, int64_t *d)
{
    return ref_slit(s, n, d, arg_i, arg_k);
}

static int64_t ref_init(const int64_t *s, int64_t n, int64_t *d)
{
    return ref_slit(s, n, d, 0, n - 1);
}

static int64_t ref_tail(const int64_t *s, int64_t n, int64_t *d)
{
    return ref_slit(s, n, d, 1, n);
}

static acc_node *do_take(acc_node *xs)
{
    return acc_take(g, ts_i64(g, arg_k), xs);
}

static acc_node *do_drop(acc_node *xs)
{
    return acc_drop(g, ts_i64(g, arg_k), xs);
}

static acc_node *do_slit(acc_node *xs)
{
    return acc_slit(g, ts_i64(g, arg_i), ts_i64(g, arg_k), xs);
}

static acc_node *do_init(acc_node *xs)
{
    return acc_init(g, xs);
}

static acc_node *do_tail(acc_node *xs)
{
    return acc_tail(g, xs);
}

Test(stdlib, take_within_beyond_and_below_the_length)
{
    static const int64_t ks[] = {3, 0, 8, 20, -2};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        arg_k = ks[i];
        check_rows(do_take, 8, ref_take);
    }
    arg_k = 2;
    check_rows(do_take, 0, ref_take);
}

Test(stdlib, drop_some_everything_and_more)
{
    static const int64_t ks[] = {3, 0, 8, 20, -2};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        arg_k = ks[i];
        check_rows(do_drop, 8, ref_drop);
    }
    arg_k = 1;
    check_rows(do_drop, 0, ref_drop);
}

Test(stdlib, slit_inside_and_across_the_end)
{
    static const int64_t is[] = {2, 0, 5, 9, -1}, ks[] = {3, 9, 9, 1, 2};
    for (size_t i = 0; i < sizeof is / sizeof is[0]; i++) {
        arg_i = is[i];
        arg_k = ks[i];
        check_rows(do_slit, 8, ref_slit_args);
    }
}

Test(stdlib, init_and_tail_including_short_and_empty_rows)
{
    static const int64_t ns[] = {6, 1, 0};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        check_rows(do_init, ns[i], ref_init);
        check_rows(do_tail, ns[i], ref_tail);
    }
}

Test(stdlib, transpose_of_a_matrix_and_a_rank3_array)
{
    int32_t m[12], c[24];
    int64_t em[2] = {3, 4}, ec[3] = {2, 3, 4};
    for (int i = 0; i < 24; i++)
        c[i] = (int32_t)mix(i) * 10 + i;
    for (int i = 0; i < 12; i++)
        m[i] = i;
    acc_node *ms = in(ACC_I32, 2), *cs = in(ACC_I32, 3);
    acc_node *r[2] = {acc_transpose(g, ms), acc_transpose(g, cs)};
    acc_array ins[2] = {ts_host(ACC_I32, 2, em, m), ts_host(ACC_I32, 3, ec, c)};
    acc_array out[2];
    run_ok(2, r, 2, ins, out);
    int32_t wm[12], wc[24];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            wm[j * 3 + i] = m[i * 4 + j];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                wc[k * 12 + j * 3 + i] = c[k * 12 + i * 4 + j];
    int64_t tm[2] = {4, 3}, tc[3] = {2, 4, 3};
    EXPECT(&out[0], 2, tm, wm);
    EXPECT(&out[1], 3, tc, wc);
    release(out, 2);
}

Test(stdlib, transpose_of_a_vector_is_refused)
{
    cr_assert_null(acc_transpose(g, in(ACC_I32, 1)));
    cr_assert_neq(acc_graph_status(g), ACC_OK);
}

Test(stdlib, flatten_of_ranks_0_2_and_3)
{
    int64_t s = 42, m[6] = {1, 2, 3, 4, 5, 6}, e2[2] = {2, 3}, e3[3] = {2, 0, 3};
    acc_node *ss = in(ACC_I64, 0), *ms = in(ACC_I64, 2), *cs = in(ACC_I64, 3);
    acc_node *r[3] = {acc_flatten(g, ss), acc_flatten(g, ms),
                      acc_flatten(g, cs)};
    acc_array ins[3] = {ts_host(ACC_I64, 0, NULL, &s),
                        ts_host(ACC_I64, 2, e2, m),
                        ts_host(ACC_I64, 3, e3, NULL)};
    acc_array out[3];
    run_ok(3, r, 3, ins, out);
    int64_t one = 1, six = 6, zero = 0;
    EXPECT(&out[0], 1, &one, &s);
    EXPECT(&out[1], 1, &six, m);
    ts_expect_shape(&out[2], 1, &zero);
    release(out, 3);
}

/* xs ++ ys on i64 matrices of the given extents holding 100*i + j and
 * -(100*i + j), checked against a C loop. */
static void check_concat(int64_t xr, int64_t xc, int64_t yr, int64_t yc)
{
    int64_t x[64], y[64], ex[2] = {xr, xc}, ey[2] = {yr, yc};
    for (int64_t i = 0; i < xr * xc; i++)
        x[i] = 100 * (i / xc) + i % xc;
    for (int64_t i = 0; i < yr * yc; i++)
        y[i] = -(100 * (i / yc) + i % yc) - 1;
    ts_fresh_graph(ctx, &g);
    acc_node *xs = in(ACC_I64, 2), *ys = in(ACC_I64, 2);
    acc_node *r = acc_concat(g, xs, ys);
    acc_array ins[2] = {ts_host(ACC_I64, 2, ex, x), ts_host(ACC_I64, 2, ey, y)};
    acc_array out;
    run_ok(1, &r, 2, ins, &out);
    int64_t rows = xr < yr ? xr : yr, cols = xc + yc, w[128];
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            w[i * cols + j] = j < xc ? x[i * xc + j] : y[i * yc + j - xc];
    int64_t ew[2] = {rows, cols};
    EXPECT(&out, 2, ew, w);
    release(&out, 1);
}

Test(stdlib, concat_of_matrices_intersects_outer_extents)
{
    check_concat(3, 4, 3, 2);
    check_concat(4, 2, 2, 5);
    check_concat(2, 3, 5, 1);
    check_concat(3, 0, 3, 4);
    check_concat(3, 4, 2, 0);
}

Test(stdlib, concat_of_vectors_with_tuple_elements)
{
    int32_t a[3] = {1, 2, 3}, b[2] = {7, 8};
    int64_t na = 3, nb = 2, n = 5;
    acc_node *xs = in(ACC_I32, 1), *ys = in(ACC_I32, 1);
    acc_node *r = acc_unzip(g, acc_concat(g, acc_zip(g, xs, xs),
                                          acc_zip(g, ys, ys)));
    acc_array ins[2] = {ts_host(ACC_I32, 1, &na, a),
                        ts_host(ACC_I32, 1, &nb, b)};
    acc_array out[2];
    run_ok(1, &r, 2, ins, out);
    int32_t w[5] = {1, 2, 3, 7, 8};
    EXPECT(&out[0], 1, &n, w);
    EXPECT(&out[1], 1, &n, w);
    release(out, 2);
}

/* ---- gather / scatter ------------------------------------------------------- */

Test(stdlib, gather_with_vector_and_matrix_indices)
{
    double src[6] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    int64_t ns = 6, iv[4] = {5, 0, 0, 3}, ni = 4, im[6] = {1, 2, 3, 4, 5, 0};
    int64_t ei[2] = {2, 3};
    acc_node *xs = in(ACC_F64, 1);
    acc_node *iv_in = in(ACC_I64, 1), *im_in = in(ACC_I64, 2);
    acc_node *r[2] = {acc_gather(g, iv_in, xs), acc_gather(g, im_in, xs)};
    acc_array ins[3] = {ts_host(ACC_F64, 1, &ns, src),
                        ts_host(ACC_I64, 1, &ni, iv),
                        ts_host(ACC_I64, 2, ei, im)};
    acc_array out[2];
    run_ok(2, r, 3, ins, out);
    double wv[4], wm[6];
    for (int i = 0; i < 4; i++)
        wv[i] = src[iv[i]];
    for (int i = 0; i < 6; i++)
        wm[i] = src[im[i]];
    EXPECT(&out[0], 1, &ni, wv);
    EXPECT(&out[1], 2, ei, wm);
    release(out, 2);
}

/* The indices of an array of rank 2 with each (i, j) turned into (j, i). */
static acc_node *swapped_indices(acc_node *xs)
{
    acc_node *ix = acc_get(g, acc_unzip(g, acc_indexed(g, xs)), 0);
    acc_node *p = acc_param(g, acc_type_shape(2));
    acc_node *sw[2] = {acc_get(g, p, 1), acc_get(g, p, 0)};
    return acc_map(g, acc_lambda(g, 1, &p, acc_index(g, 2, sw)), ix);
}

Test(stdlib, gather_with_index_elements_from_a_matrix)
{
    /* transpose a 2x3 matrix by gathering (j, i) for every (i, j) of 3x2 */
    int32_t src[6] = {10, 11, 12, 20, 21, 22};
    uint8_t like[6] = {0};
    int64_t es[2] = {2, 3}, et[2] = {3, 2};
    acc_node *xs = in(ACC_I32, 2);
    acc_node *r = acc_gather(g, swapped_indices(in(ACC_U8, 2)), xs);
    acc_array ins[2] = {ts_host(ACC_I32, 2, es, src),
                        ts_host(ACC_U8, 2, et, like)};
    acc_array out;
    run_ok(1, &r, 2, ins, &out);
    int32_t w[6];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            w[i * 2 + j] = src[j * 3 + i];
    EXPECT(&out, 2, et, w);
    release(&out, 1);
}

Test(stdlib, gather_out_of_range_is_a_runtime_error)
{
    double src[2] = {1, 2};
    int64_t n = 2, iv[1] = {2}, ni = 1;
    acc_node *is = in(ACC_I64, 1), *xs = in(ACC_F64, 1);
    acc_node *r = acc_gather(g, is, xs);
    acc_array ins[2] = {ts_host(ACC_I64, 1, &ni, iv),
                        ts_host(ACC_F64, 1, &n, src)};
    cr_assert_eq(run_status(r, 2, ins), ACC_ERR_RUNTIME);
}

Test(stdlib, scatter_into_a_vector_intersecting_to_and_xs)
{
    int64_t nd = 6, dflt[6] = {-1, -1, -1, -1, -1, -1};
    int64_t to[4] = {4, 0, 2, 5}, nt = 4, xs[3] = {40, 0, 20}, nx = 3;
    acc_node *ts = in(ACC_I64, 1), *ds = in(ACC_I64, 1), *vs = in(ACC_I64, 1);
    acc_node *r = acc_scatter(g, ts, ds, vs);
    acc_array ins[3] = {ts_host(ACC_I64, 1, &nt, to),
                        ts_host(ACC_I64, 1, &nd, dflt),
                        ts_host(ACC_I64, 1, &nx, xs)};
    acc_array out;
    run_ok(1, &r, 3, ins, &out);
    int64_t w[6];
    memcpy(w, dflt, sizeof w);
    for (int i = 0; i < 3; i++) /* only min(4, 3) pairs */
        w[to[i]] = xs[i];
    EXPECT(&out, 1, &nd, w);
    release(&out, 1);
}

Test(stdlib, scatter_with_index_targets_into_a_matrix)
{
    /* transpose a 2x3 matrix by scattering every element to (j, i) */
    float src[6] = {1, 2, 3, 4, 5, 6}, dflt[6] = {0};
    int64_t es[2] = {2, 3}, ed[2] = {3, 2};
    acc_node *xs = in(ACC_F32, 2), *ds = in(ACC_F32, 2);
    acc_node *r = acc_scatter(g, swapped_indices(xs), ds, xs);
    acc_array ins[2] = {ts_host(ACC_F32, 2, es, src),
                        ts_host(ACC_F32, 2, ed, dflt)};
    acc_array out;
    run_ok(1, &r, 2, ins, &out);
    float w[6];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            w[j * 2 + i] = src[i * 3 + j];
    EXPECT(&out, 2, ed, w);
    release(&out, 1);
}

/* ---- filter / compact ------------------------------------------------------- */

/* filter even over an i32 array of extents ext (rank 1 or 2) holding
 * vals, checked against a C loop: kept values in row-major order and the
 * count per row. */
static void check_filter_even(int32_t rank, const int64_t *ext,
                              const int32_t *vals)
{
    int64_t rows = rank == 2 ? ext[0] : 1, cols = ext[rank - 1];
    ts_fresh_graph(ctx, &g);
    acc_node *xs = in(ACC_I32, rank);
    acc_node *r = acc_filter(g, even_fn(ACC_I32), xs);
    acc_array a = ts_host(ACC_I32, rank, ext, (void *)vals), out[2];
    run_ok(1, &r, 1, &a, out);
    int32_t kept[64];
    int64_t counts[8], total = 0;
    for (int64_t i = 0; i < rows; i++) {
        counts[i] = 0;
        for (int64_t j = 0; j < cols; j++)
            if (vals[i * cols + j] % 2 == 0) {
                kept[total++] = vals[i * cols + j];
                counts[i]++;
            }
    }
    EXPECT(&out[0], 1, &total, kept);
    EXPECT(&out[1], rank - 1, ext, counts);
    release(out, 2);
}

Test(stdlib, filter_a_vector_keeping_some_none_all_and_of_nothing)
{
    int32_t some[9] = {1, 2, 4, 7, 9, 10, 0, -3, -6}, odd[5] = {1, 3, -5, 7, 9};
    int32_t even[4] = {0, 2, -4, 8};
    int64_t n9 = 9, n5 = 5, n4 = 4, n0 = 0;
    check_filter_even(1, &n9, some);
    check_filter_even(1, &n5, odd);
    check_filter_even(1, &n4, even);
    check_filter_even(1, &n0, NULL);
}

Test(stdlib, filter_a_matrix_counts_per_row)
{
    int32_t m[20];
    int64_t ext[2] = {4, 5}, none[2] = {3, 0}, empty[2] = {0, 4};
    for (int i = 0; i < 20; i++) /* row 1 all odd, row 3 all even */
        m[i] = i / 5 == 1 ? 2 * i + 1 : i / 5 == 3 ? 2 * i : (int32_t)mix(i);
    check_filter_even(2, ext, m);
    check_filter_even(2, none, NULL);
    check_filter_even(2, empty, NULL);
}

Test(stdlib, compact_with_a_mask_intersects_extents)
{
    uint8_t keep[12];
    double xs[10];
    int64_t ek[2] = {3, 4}, ex[2] = {2, 5};
    for (int i = 0; i < 12; i++)
        keep[i] = (uint8_t)(i % 3 != 1);
    for (int i = 0; i < 10; i++)
        xs[i] = i * 1.25;
    acc_node *ks = in(ACC_BOOL, 2), *vs = in(ACC_F64, 2);
    acc_node *r = acc_compact(g, ks, vs);
    acc_array ins[2] = {ts_host(ACC_BOOL, 2, ek, keep),
                        ts_host(ACC_F64, 2, ex, xs)};
    acc_array out[2];
    run_ok(1, &r, 2, ins, out);
    double kept[8];
    int64_t counts[2] = {0, 0}, total = 0;
    for (int i = 0; i < 2; i++) /* the intersection is 2 x 4 */
        for (int j = 0; j < 4; j++)
            if (keep[i * 4 + j]) {
                kept[total++] = xs[i * 5 + j];
                counts[i]++;
            }
    int64_t rows = 2;
    EXPECT(&out[0], 1, &total, kept);
    EXPECT(&out[1], 1, &rows, counts);
    release(out, 2);
}

Test(stdlib, compact_of_tuple_elements_on_a_vector)
{
    uint8_t keep[6] = {0, 1, 1, 0, 0, 1};
    int16_t a[6] = {1, 2, 3, 4, 5, 6};
    int64_t n = 6, three = 3;
    acc_node *xs = in(ACC_I16, 1);
    acc_node *c = acc_compact(g, in(ACC_BOOL, 1), acc_indexed(g, xs));
    acc_node *r[2] = {acc_unzip(g, acc_get(g, c, 0)), acc_get(g, c, 1)};
    acc_array ins[2] = {ts_host(ACC_I16, 1, &n, a),
                        ts_host(ACC_BOOL, 1, &n, keep)};
    acc_array out[3];
    run_ok(2, r, 2, ins, out);
    int64_t wi[3] = {1, 2, 5};
    int16_t wa[3] = {2, 3, 6};
    cr_assert_eq(acc_type_get_kind(out[0].type), ACC_TYPE_SHAPE);
    expect_leaf(&out[0], 0, 1, &three, wi, sizeof wi[0]);
    EXPECT(&out[1], 1, &three, wa);
    EXPECT(&out[2], 0, NULL, &three);
    release(out, 3);
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
