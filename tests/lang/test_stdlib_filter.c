/*
 * test_stdlib_filter.c — filter and compact of the standard library
 * (LANGUAGE.md §3.1 and §3.2, core/stdlib/) on the reference interpreter:
 * keeping some, none or all elements of a vector, counts per row of a
 * matrix, a mask intersected with the values, tuple elements; every
 * expected value comes from a plain C loop.
 */
#include <criterion/criterion.h>

#include <stdint.h>

#include "accel.h"
#include "stdlib_support.h"
#include "support.h"

TestSuite(stdlib, .init = stdlib_setup, .fini = stdlib_teardown);

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
