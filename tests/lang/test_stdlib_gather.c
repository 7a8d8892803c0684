/*
 * test_stdlib_gather.c — gather and scatter of the standard library
 * (LANGUAGE.md §3.1 and §3.2, core/stdlib/) on the reference interpreter:
 * vector, matrix and index-element indices and targets, intersected
 * extents, and an index out of range; every expected value comes from a
 * plain C loop.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "accel.h"
#include "stdlib_support.h"
#include "support.h"

TestSuite(stdlib, .init = stdlib_setup, .fini = stdlib_teardown);

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
