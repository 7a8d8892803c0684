/*
 * test_text_library.c — the text forms of the standard library and of the
 * LANGUAGE.md §3 examples: the FFT fallback against a direct DFT, the BLAS
 * fallbacks against loops, the worked examples of LANGUAGE.md (scans,
 * fold with a seed, foldSeg, slice, replicate) and literal typing.
 * Expected values are computed here.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "support.h"

TestSuite(text_library, .init = ts_ctx_open, .fini = ts_ctx_close);

static acc_status run_text(const char *src, size_t n_in, const acc_array *in,
                           size_t n_out, acc_array *out)
{
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ts_ctx, src, (size_t)-1, NULL, &p);
    cr_assert_eq(st, ACC_OK, "%s\n%s", acc_last_error(), src);
    cr_assert_eq(acc_program_num_outputs(p), n_out);
    for (size_t i = 0; i < n_out; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].struct_size = sizeof out[i];
    }
    st = acc_run(p, n_in, in, n_out, out);
    acc_program_free(p);
    return st;
}

static void run_ok(const char *src, size_t n_in, const acc_array *in,
                   size_t n_out, acc_array *out)
{
    acc_status st = run_text(src, n_in, in, n_out, out);
    cr_assert_eq(st, ACC_OK, "%s: %s", acc_status_string(st),
                 acc_last_error());
}

static void expect_i64(const acc_array *a, const int64_t *want, int64_t n)
{
    cr_assert_eq(acc_array_size(a), n, "%lld elements, expected %lld",
                 (long long)acc_array_size(a), (long long)n);
    const int64_t *got = a->data[0];
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(got[i], want[i], "[%lld] = %lld, expected %lld",
                     (long long)i, (long long)got[i], (long long)want[i]);
}

/* ---- LANGUAGE.md worked examples ----------------------------------------- */

Test(text_library, scans_of_the_language_examples)
{
    acc_array out[3];
    run_ok("ex : (Vector i64, Vector i64, Vector i64) =\n"
           "  let xs = enumFromN [3] 1\n"
           "  in (scanl (+) 10 (enumFromN [10] 0), scanl (-) 100 xs,\n"
           "      scanr (-) 100 xs)\n", 0, NULL, 3, out);
    int64_t a[11] = {10, 10, 11, 13, 16, 20, 25, 31, 38, 46, 55};
    int64_t b[4] = {100, 99, 97, 94}, c[4] = {-98, 99, -97, 100};
    expect_i64(&out[0], a, 11);
    expect_i64(&out[1], b, 4);
    expect_i64(&out[2], c, 4);
    for (int i = 0; i < 3; i++)
        acc_array_release(&out[i]);
}

Test(text_library, folds_slices_and_replicates_of_the_language_examples)
{
    acc_array out[4];
    run_ok("ex : (Vector i64, Vector i64, Vector i64, Matrix i64) =\n"
           "  let m = enumFromN [5, 10] 0;\n"
           "      segs = generate [4] (\\[i] -> if i == 1 then 4 else if i == 2 then 0 else 1 + 2 * i `quot` 3)\n"
           "  in (fold (+) 42 m, slice (foldSeg (+) 0 m segs) [0, All],\n"
           "      slice m [2, All], replicate [All, 4] (enumFromN [3] 7))\n",
           0, NULL, 4, out);
    int64_t folds[5] = {87, 187, 287, 387, 487};
    int64_t seg0[4] = {0, 10, 0, 18};
    int64_t row2[10] = {20, 21, 22, 23, 24, 25, 26, 27, 28, 29};
    int64_t rep[12] = {7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9};
    expect_i64(&out[0], folds, 5);
    expect_i64(&out[1], seg0, 4);
    expect_i64(&out[2], row2, 10);
    cr_assert_eq(out[3].extents[0], 3);
    cr_assert_eq(out[3].extents[1], 4);
    expect_i64(&out[3], rep, 12);
    for (int i = 0; i < 4; i++)
        acc_array_release(&out[i]);
}

/* ---- literal typing ----------------------------------------------------------- */

Test(text_library, literals_take_their_type_from_context)
{
    int32_t ys[3] = {1, 2, 3};
    int64_t n = 3;
    void *b = ys;
    acc_array in = ts_host_array(acc_type_scalar(ACC_I32), 1, &n, &b), out[3];
    run_ok("f (ys : Vector i32) =\n"
           "  (map (\\y -> y * 2 + 1) ys, map (\\y -> round (toFloating y / 2) + y) ys,\n"
           "   map (\\y -> fromIntegral y / 4) ys)\n", 1, &in, 3, out);
    cr_assert(acc_type_equal(out[0].type, acc_type_scalar(ACC_I32)));
    cr_assert(acc_type_equal(out[1].type, acc_type_scalar(ACC_I32)));
    cr_assert(acc_type_equal(out[2].type, acc_type_scalar(ACC_F64)));
    const int32_t *a = out[0].data[0], *r = out[1].data[0];
    const double *d = out[2].data[0];
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(a[i], ys[i] * 2 + 1);
        cr_assert_eq(r[i], (int32_t)nearbyint(ys[i] / 2.0) + ys[i]);
        cr_assert_float_eq(d[i], ys[i] / 4.0, 1e-15);
    }
    for (int i = 0; i < 3; i++)
        acc_array_release(&out[i]);
}

/* ---- BLAS fallbacks ------------------------------------------------------------- */

Test(text_library, dot_gemv_gemm)
{
    enum { M = 3, K = 4, N = 5 };
    double a[M * K], b[K * N], x[K];
    for (int i = 0; i < M * K; i++)
        a[i] = (double)(i % 7) - 2.5;
    for (int i = 0; i < K * N; i++)
        b[i] = 0.5 * (double)(i % 5) + 1.0;
    for (int i = 0; i < K; i++)
        x[i] = (double)i - 1.25;
    int64_t ea[2] = {M, K}, eb[2] = {K, N}, ex = K;
    void *pa = a, *pb = b, *px = x;
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    acc_array in[3] = {ts_host_array(f64, 2, ea, &pa),
                       ts_host_array(f64, 2, eb, &pb),
                       ts_host_array(f64, 1, &ex, &px)};
    acc_array out[3];
    run_ok("f (a : Matrix f64) (b : Matrix f64) (x : Vector f64) =\n"
           "  (dot x x, gemv a x, gemm a b)\n", 3, in, 3, out);
    double dd = 0;
    for (int k = 0; k < K; k++)
        dd += x[k] * x[k];
    cr_assert_float_eq(*(const double *)out[0].data[0], dd, 1e-12);
    const double *gv = out[1].data[0], *gm = out[2].data[0];
    cr_assert_eq(out[2].extents[0], M);
    cr_assert_eq(out[2].extents[1], N);
    for (int i = 0; i < M; i++) {
        double s = 0;
        for (int k = 0; k < K; k++)
            s += a[i * K + k] * x[k];
        cr_assert_float_eq(gv[i], s, 1e-12);
        for (int j = 0; j < N; j++) {
            double t = 0;
            for (int k = 0; k < K; k++)
                t += a[i * K + k] * b[k * N + j];
            cr_assert_float_eq(gm[i * N + j], t, 1e-12, "gemm[%d,%d]", i, j);
        }
    }
    for (int i = 0; i < 3; i++)
        acc_array_release(&out[i]);
}

/* ---- FFT fallback ---------------------------------------------------------------- */

static void dft(const double *re, const double *im, int n, int stride,
                double sign, double *ore, double *oim)
{
    for (int k = 0; k < n; k++) {
        double sr = 0, si = 0;
        for (int j = 0; j < n; j++) {
            double ang = sign * 2.0 * 3.14159265358979323846 * j * k / n;
            sr += re[j * stride] * cos(ang) - im[j * stride] * sin(ang);
            si += re[j * stride] * sin(ang) + im[j * stride] * cos(ang);
        }
        ore[k * stride] = sr;
        oim[k * stride] = si;
    }
}

Test(text_library, fft_of_a_vector_matches_the_dft)
{
    enum { N = 16 };
    double re[N], im[N], wr[N], wi[N];
    for (int i = 0; i < N; i++) {
        re[i] = sin(0.3 * i) + 0.25 * (i % 3);
        im[i] = cos(0.7 * i) - 0.5;
    }
    dft(re, im, N, 1, -1.0, wr, wi);
    const acc_type *f2[2] = {acc_type_scalar(ACC_F64), acc_type_scalar(ACC_F64)};
    int64_t n = N;
    void *bufs[2] = {re, im};
    acc_array in = ts_host_array(acc_type_tuple(ts_ctx, 2, f2), 1, &n, bufs);
    acc_array out[2];
    run_ok("f (v : Vector (f64, f64)) = (fft v, ifft (fft v))\n", 1, &in, 2,
           out);
    const double *fr = out[0].data[0], *fi = out[0].data[1];
    const double *br = out[1].data[0], *bi = out[1].data[1];
    for (int k = 0; k < N; k++) {
        cr_assert_float_eq(fr[k], wr[k], 1e-9, "re[%d]", k);
        cr_assert_float_eq(fi[k], wi[k], 1e-9, "im[%d]", k);
        cr_assert_float_eq(br[k], re[k], 1e-12, "ifft re[%d]", k);
        cr_assert_float_eq(bi[k], im[k], 1e-12, "ifft im[%d]", k);
    }
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(text_library, fft_of_a_matrix_is_rows_then_columns)
{
    enum { R = 4, C = 8 };
    float re[R * C], im[R * C];
    double dre[R * C], dim[R * C], tr[R * C], ti[R * C], wr[R * C], wi[R * C];
    for (int i = 0; i < R * C; i++) {
        re[i] = (float)((i * 5) % 11) * 0.25f - 1.0f;
        im[i] = (float)((i * 3) % 7) * 0.5f;
        dre[i] = re[i];
        dim[i] = im[i];
    }
    for (int r = 0; r < R; r++)
        dft(dre + r * C, dim + r * C, C, 1, -1.0, tr + r * C, ti + r * C);
    for (int c = 0; c < C; c++)
        dft(tr + c, ti + c, R, C, -1.0, wr + c, wi + c);
    const acc_type *f2[2] = {acc_type_scalar(ACC_F32), acc_type_scalar(ACC_F32)};
    int64_t ext[2] = {R, C};
    void *bufs[2] = {re, im};
    acc_array in = ts_host_array(acc_type_tuple(ts_ctx, 2, f2), 2, ext, bufs);
    acc_array out[2];
    run_ok("f (m : Matrix (f32, f32)) = (fft m, ifft (fft m))\n", 1, &in, 2,
           out);
    const float *fr = out[0].data[0], *fi = out[0].data[1];
    const float *br = out[1].data[0], *bi = out[1].data[1];
    for (int k = 0; k < R * C; k++) {
        cr_assert_float_eq(fr[k], wr[k], 1e-3, "re[%d]", k);
        cr_assert_float_eq(fi[k], wi[k], 1e-3, "im[%d]", k);
        cr_assert_float_eq(br[k], re[k], 1e-4, "ifft re[%d]", k);
        cr_assert_float_eq(bi[k], im[k], 1e-4, "ifft im[%d]", k);
    }
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(text_library, fft_needs_powers_of_two)
{
    double re[6] = {0}, im[6] = {0};
    const acc_type *f2[2] = {acc_type_scalar(ACC_F64), acc_type_scalar(ACC_F64)};
    int64_t n = 6;
    void *bufs[2] = {re, im};
    acc_array in = ts_host_array(acc_type_tuple(ts_ctx, 2, f2), 1, &n, bufs);
    acc_array out;
    /* the fallback's rule: the fftw plugin, loaded by default where it is
     * built, takes any length */
    acc_context *with_plugins = ts_ctx;
    ts_ctx = ts_context_without_plugins(ACC_BACKEND_INTERP);
    acc_status st = run_text("f (v : Vector (f64, f64)) = fft v\n", 1, &in, 1,
                             &out);
    acc_context_destroy(ts_ctx);
    ts_ctx = with_plugins;
    cr_assert_eq(st, ACC_ERR_SHAPE, "%s: %s", acc_status_string(st),
                 acc_last_error());
}

/* ---- sections, backquotes and local functions ------------------------------------------------ */

Test(text_library, sections_and_local_functions)
{
    acc_array out[3];
    run_ok("f : (Vector i64, Vector i64, Vector bool) =\n"
           "  let xs = enumFromN [6] 0;\n"
           "      twice g x = g (g x)\n"
           "  in (map (twice (2 *)) xs, map (`quot` 2) xs, map (< 3) xs)\n",
           0, NULL, 3, out);
    int64_t a[6] = {0, 4, 8, 12, 16, 20}, b[6] = {0, 0, 1, 1, 2, 2};
    expect_i64(&out[0], a, 6);
    expect_i64(&out[1], b, 6);
    const uint8_t *c = out[2].data[0];
    for (int i = 0; i < 6; i++)
        cr_assert_eq(c[i], i < 3);
    for (int i = 0; i < 3; i++)
        acc_array_release(&out[i]);
}
