/*
 * test_stdlib_structural.c — the structural functions of the standard
 * library (LANGUAGE.md §3.1 and §3.2, core/stdlib/) on the reference
 * interpreter: reverse, take, drop, slit, init, tail, transpose, flatten
 * and ++, on vectors and matrices, with clamped counts, empty rows and
 * intersected extents; every expected value comes from a plain C loop.
 */
#include <criterion/criterion.h>

#include <stdint.h>

#include "accel.h"
#include "stdlib_support.h"
#include "support.h"

TestSuite(stdlib, .init = stdlib_setup, .fini = stdlib_teardown);

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
