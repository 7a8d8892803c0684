/*
 * test_stdlib_producers.c — the producers of the standard library
 * (LANGUAGE.md §3.1 and §3.2, core/stdlib/) on the reference interpreter:
 * enumFromN and enumFromStepN, zip, zipN and unzip, length and indexed,
 * on several ranks, with empty arrays, intersected extents and tuple
 * elements; every expected value comes from a plain C loop.
 */
#include <criterion/criterion.h>

#include <stdint.h>

#include "accel.h"
#include "stdlib_support.h"
#include "support.h"

TestSuite(stdlib, .init = stdlib_setup, .fini = stdlib_teardown);

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
