/*
 * test_stdlib_foreign.c — the pure fallbacks of dot, gemv, gemm, fft and
 * ifft (LANGUAGE.md §3.8.1) against direct C computations, with no plugin
 * loaded: f64 within 1e-9 relative, f32 within 1e-4.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "foreign_support.h"

static double xa[64], xb[64];

static void fill(void)
{
    for (int i = 0; i < 64; i++) {
        xa[i] = sin(0.37 * i) + 0.1 * i;
        xb[i] = cos(0.91 * i) - 0.2;
    }
}

/* Runs op on one or two f64 inputs; returns the output descriptor. */
static acc_array run2(acc_context *ctx, acc_node *(*op)(acc_graph *,
                                                        acc_node *,
                                                        acc_node *),
                      int32_t ra, const int64_t *ea, int32_t rb,
                      const int64_t *eb)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *a = acc_input(g, acc_type_scalar(ACC_F64), ra);
    acc_node *b = acc_input(g, acc_type_scalar(ACC_F64), rb);
    acc_program *p = tf_compile(ctx, g, op(g, a, b));
    acc_array in[2] = {tf_f64(ra, ea, xa), tf_f64(rb, eb, xb)}, o;
    tf_run(p, 2, in, 1, &o);
    acc_program_free(p);
    acc_graph_free(g);
    return o;
}

Test(stdlib_foreign, dot_gemv_gemm_fallbacks, .init = fill)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    int64_t e7 = 7, e5 = 5, m[2] = {3, 5}, b[2] = {5, 4};
    acc_array o = run2(ctx, acc_dot, 1, &e7, 1, &e5);
    double want = 0;
    for (int i = 0; i < 5; i++)
        want += xa[i] * xb[i];
    cr_assert_float_eq(*(double *)o.data[0], want, 1e-12);
    acc_array_release(&o);
    o = run2(ctx, acc_gemv, 2, m, 1, &e5);
    cr_assert_eq(o.extents[0], 3);
    for (int i = 0; i < 3; i++) {
        double s = 0;
        for (int j = 0; j < 5; j++)
            s += xa[i * 5 + j] * xb[j];
        cr_assert_float_eq(((double *)o.data[0])[i], s, 1e-12);
    }
    acc_array_release(&o);
    o = run2(ctx, acc_gemm, 2, m, 2, b);
    cr_assert(o.extents[0] == 3 && o.extents[1] == 4);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 5; k++)
                s += xa[i * 5 + k] * xb[k * 4 + j];
            cr_assert_float_eq(((double *)o.data[0])[i * 4 + j], s, 1e-12);
        }
    acc_array_release(&o);
    acc_context_destroy(ctx);
}

/* The direct DFT of rows x cols complex values, along both dimensions
 * (cols only when rows is 0: a vector). */
static void dft(const double *re, const double *im, int rows, int cols,
                int sign, double *ore, double *oim)
{
    int r = rows ? rows : 1;
    for (int u = 0; u < r; u++)
        for (int v = 0; v < cols; v++) {
            double sr = 0, si = 0;
            for (int i = 0; i < r; i++)
                for (int j = 0; j < cols; j++) {
                    double a = sign * 2 * M_PI *
                               ((double)u * i / r + (double)v * j / cols);
                    double xr = re[i * cols + j], xi = im[i * cols + j];
                    sr += xr * cos(a) - xi * sin(a);
                    si += xr * sin(a) + xi * cos(a);
                }
            ore[u * cols + v] = sr;
            oim[u * cols + v] = si;
        }
}

static void check_fft(acc_context *ctx, acc_scalar e, int rows, int cols,
                      int inverse)
{
    const acc_type *s = acc_type_scalar(e);
    const acc_type *pair[2] = {s, s};
    const acc_type *elem = acc_type_tuple(ctx, 2, pair);
    int32_t rank = rows ? 2 : 1;
    int64_t ext[2] = {rows ? rows : cols, cols};
    int n = (rows ? rows : 1) * cols;
    acc_graph *g = ts_graph(ctx);
    acc_node *in = acc_input(g, elem, rank);
    acc_program *p = tf_compile(ctx, g, inverse ? acc_ifft(g, in)
                                                : acc_fft(g, in));
    float fr[64], fi[64];
    for (int i = 0; i < n; i++) {
        fr[i] = (float)xa[i];
        fi[i] = (float)xb[i];
    }
    void *bufs[2] = {e == ACC_F32 ? (void *)fr : xa,
                     e == ACC_F32 ? (void *)fi : xb};
    acc_array a = ts_host_array(elem, rank, ext, bufs), o;
    tf_run(p, 1, &a, 1, &o);
    double wr[64], wi[64];
    dft(xa, xb, rows, cols, inverse ? 1 : -1, wr, wi);
    double tol = e == ACC_F32 ? 1e-4 : 1e-9, scale = 1;
    for (int i = 0; i < n; i++)
        scale = fmax(scale, fmax(fabs(wr[i]), fabs(wi[i])));
    for (int i = 0; i < n; i++) {
        double div = inverse ? n : 1;
        double gr = e == ACC_F32 ? ((float *)o.data[0])[i]
                                 : ((double *)o.data[0])[i];
        double gi = e == ACC_F32 ? ((float *)o.data[1])[i]
                                 : ((double *)o.data[1])[i];
        cr_assert_leq(fabs(gr - wr[i] / div) / scale, tol, "%dx%d re[%d]",
                      rows, cols, i);
        cr_assert_leq(fabs(gi - wi[i] / div) / scale, tol, "%dx%d im[%d]",
                      rows, cols, i);
    }
    acc_array_release(&o);
    acc_program_free(p);
    acc_graph_free(g);
}

Test(stdlib_foreign, fft_fallback_matches_the_dft_for_any_length, .init = fill)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    static const int sizes[][2] = {{0, 1}, {0, 2}, {0, 8}, {0, 16}, {0, 6},
                                   {0, 7}, {4, 4}, {2, 8}, {3, 5}, {4, 6}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int inverse = 0; inverse < 2; inverse++) {
            check_fft(ctx, ACC_F64, sizes[k][0], sizes[k][1], inverse);
            check_fft(ctx, ACC_F32, sizes[k][0], sizes[k][1], inverse);
        }
    acc_context_destroy(ctx);
}

Test(stdlib_foreign, fft_refuses_what_is_not_a_complex_array)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    cr_assert_null(acc_fft(g, ts_f64(g, 1.0)));
    cr_assert_neq(acc_graph_status(g), ACC_OK);
    acc_graph_free(g);
    g = ts_graph(ctx);
    cr_assert_null(acc_fft(g, acc_input(g, acc_type_scalar(ACC_F64), 1)));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_TYPE, "%s",
                 acc_graph_last_error(g));
    acc_graph_free(g);
    acc_context_destroy(ctx);
}
