/*
 * test_text_programs.c — the programs of LANGUAGE.md §4 (and the §3.6
 * sieve), parsed exactly as written there, compiled with acc_compile_text
 * and run on the reference interpreter.  Every expected value is computed
 * here with a plain C loop (f32 arithmetic in the same order where the
 * result must be exact, double precision with a tolerance elsewhere).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "support.h"
#include "text_sources.h"

TestSuite(text_programs, .init = ts_ctx_open, .fini = ts_ctx_close);

static const acc_type *sc(acc_scalar s)
{
    return acc_type_scalar(s);
}

static acc_program *compile(const char *src, const char *entry)
{
    return ts_compile_text(ts_ctx, src, entry);
}

/* Compiles entry of the §4 source, runs it and frees the program. */
static void run_entry(const char *src, const char *entry, size_t n_in,
                      const acc_array *in, size_t n_out, acc_array *out)
{
    acc_program *p = compile(src, entry);
    for (size_t i = 0; i < n_out; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].struct_size = sizeof out[i];
    }
    acc_status st = acc_run(p, n_in, in, n_out, out);
    cr_assert_eq(st, ACC_OK, "running %s: %s: %s", entry,
                 acc_status_string(st), acc_last_error());
    acc_program_free(p);
}

static acc_array vec(acc_scalar s, int64_t n, void *data)
{
    return ts_host_array(sc(s), 1, &n, &data);
}

static acc_array scalar_in(acc_scalar s, void *data)
{
    return ts_host_array(sc(s), 0, NULL, &data);
}

static void close_to(double got, double want, double tol, const char *what,
                     int i)
{
    cr_assert(fabs(got - want) <= tol * (1.0 + fabs(want)),
              "%s[%d] = %.9g, expected %.9g", what, i, got, want);
}

/* ---- the programs are found ----------------------------------------------- */

Test(text_programs, entries_are_listed_in_order)
{
    char *names = NULL;
    cr_assert_eq(acc_parse_entries(ts_language4_source(), (size_t)-1, &names),
                 ACC_OK, "%s", acc_last_error());
    cr_assert_str_eq(names, "dotp\nsmvm\nblackscholes\nhistogram\nblur\n"
                            "mandelbrot\ndotBlas");
    acc_free(names);
}

/* ---- dot products ---------------------------------------------------------------- */

static void check_dot(const char *entry)
{
    enum { N = 1000 };
    static float xs[N], ys[N];
    double want = 0;
    for (int i = 0; i < N; i++) {
        xs[i] = (float)(i % 17) * 0.25f - 1.5f;
        ys[i] = (float)(i % 5) * 0.5f + 0.125f;
        want += (double)xs[i] * ys[i];
    }
    acc_array in[2] = {vec(ACC_F32, N, xs), vec(ACC_F32, N, ys)}, out;
    run_entry(ts_language4_source(), entry, 2, in, 1, &out);
    cr_assert_eq(out.rank, 0);
    cr_assert(acc_type_equal(out.type, sc(ACC_F32)));
    close_to(*(const float *)out.data[0], want, 1e-5, entry, 0);
    acc_array_release(&out);
}

Test(text_programs, dotp)
{
    check_dot("dotp");
}

Test(text_programs, dotBlas_falls_back_to_pure_code)
{
    check_dot("dotBlas");
}

/* ---- sparse matrix-vector product -------------------------------------------------- */

Test(text_programs, smvm)
{
    /* 4 x 5 CSR matrix: rows of 2, 0, 3 and 1 entries. */
    int64_t segd[4] = {2, 0, 3, 1};
    int64_t inds[6] = {0, 3, 1, 2, 4, 0};
    float vals[6] = {1.5f, -2.0f, 0.5f, 4.0f, -1.0f, 3.0f};
    float v[5] = {2.0f, -1.0f, 0.25f, 8.0f, 0.5f};
    acc_array in[4] = {vec(ACC_I64, 4, segd), vec(ACC_I64, 6, inds),
                       vec(ACC_F32, 6, vals), vec(ACC_F32, 5, v)};
    acc_array out;
    run_entry(ts_language4_source(), "smvm", 4, in, 1, &out);
    cr_assert_eq(out.rank, 1);
    cr_assert_eq(out.extents[0], 4);
    const float *o = out.data[0];
    for (int r = 0, k = 0; r < 4; r++) {
        float want = 0.0f;
        for (int e = 0; e < segd[r]; e++, k++)
            want += vals[k] * v[inds[k]];
        close_to(o[r], want, 1e-6, "smvm", r);
    }
    acc_array_release(&out);
}

/* ---- Black-Scholes ----------------------------------------------------------------- */

Test(text_programs, blackscholes_matches_double_precision)
{
    enum { N = 64 };
    float price[N], strike[N], years[N];
    for (int i = 0; i < N; i++) {
        price[i] = 5.0f + 25.0f * (float)((i * 37) % 64) / 64.0f;
        strike[i] = 1.0f + 99.0f * (float)((i * 11) % 64) / 64.0f;
        years[i] = 0.25f + 9.75f * (float)((i * 23) % 64) / 64.0f;
    }
    const acc_type *f3[3] = {sc(ACC_F32), sc(ACC_F32), sc(ACC_F32)};
    const acc_type *opt = acc_type_tuple(ts_ctx, 3, f3);
    int64_t n = N;
    void *bufs[3] = {price, strike, years};
    acc_array in = ts_host_array(opt, 1, &n, bufs), out;
    run_entry(ts_language4_source(), "blackscholes", 1, &in, 1, &out);
    cr_assert_eq(acc_type_leaf_count(out.type), 2);
    cr_assert_eq(out.extents[0], N);
    const float *call = out.data[0], *put = out.data[1];
    for (int i = 0; i < N; i++) {
        double c, p;
        ts_blackscholes_ref(price[i], strike[i], years[i], &c, &p);
        close_to(call[i], c, 1e-4, "call", i);
        close_to(put[i], p, 1e-4, "put", i);
    }
    acc_array_release(&out);
}

/* ---- histogram -------------------------------------------------------------------------- */

Test(text_programs, histogram_of_the_language_example)
{
    int32_t xs[20] = {0, 0, 1, 2, 1, 1, 2, 4, 8, 3, 4, 9, 8, 3, 2, 5, 5, 3, 1, 2};
    int32_t want[10] = {2, 4, 4, 3, 2, 2, 0, 0, 2, 1};
    int64_t k = 10;
    acc_array in[2] = {scalar_in(ACC_I64, &k), vec(ACC_I32, 20, xs)}, out;
    run_entry(ts_language4_source(), "histogram", 2, in, 1, &out);
    cr_assert(acc_type_equal(out.type, sc(ACC_I32)));
    cr_assert_eq(out.extents[0], 10);
    cr_assert_arr_eq(out.data[0], want, sizeof want);
    acc_array_release(&out);
}

Test(text_programs, histogram_of_many_values)
{
    enum { N = 5000, K = 37 };
    static int32_t xs[N];
    int32_t want[K] = {0};
    for (int i = 0; i < N; i++) {
        xs[i] = (int32_t)((i * 7919u + 13u) % K);
        want[xs[i]]++;
    }
    int64_t k = K;
    acc_array in[2] = {scalar_in(ACC_I64, &k), vec(ACC_I32, N, xs)}, out;
    run_entry(ts_language4_source(), "histogram", 2, in, 1, &out);
    cr_assert_arr_eq(out.data[0], want, sizeof want);
    acc_array_release(&out);
}

/* ---- blur ----------------------------------------------------------------------------------- */

static float clamped(const float *img, int rows, int cols, int r, int c)
{
    r = r < 0 ? 0 : r >= rows ? rows - 1 : r;
    c = c < 0 ? 0 : c >= cols ? cols - 1 : c;
    return img[r * cols + c];
}

Test(text_programs, blur_clamps_the_borders)
{
    enum { R = 5, C = 7 };
    float img[R * C];
    for (int i = 0; i < R * C; i++)
        img[i] = (float)((i * 13) % 29) - 3.5f;
    int64_t ext[2] = {R, C};
    void *buf = img;
    acc_array in = ts_host_array(sc(ACC_F32), 2, ext, &buf), out;
    run_entry(ts_language4_source(), "blur", 1, &in, 1, &out);
    cr_assert_eq(out.extents[0], R);
    cr_assert_eq(out.extents[1], C);
    const float *o = out.data[0];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            float a = clamped(img, R, C, r - 1, c - 1);
            float b = clamped(img, R, C, r - 1, c);
            float cc = clamped(img, R, C, r - 1, c + 1);
            float d = clamped(img, R, C, r, c - 1);
            float e = clamped(img, R, C, r, c);
            float f = clamped(img, R, C, r, c + 1);
            float g = clamped(img, R, C, r + 1, c - 1);
            float h = clamped(img, R, C, r + 1, c);
            float i = clamped(img, R, C, r + 1, c + 1);
            float want = (a + 2 * b + cc + 2 * d + 4 * e + 2 * f + g + 2 * h +
                          i) / 16;
            cr_assert_eq(o[r * C + c], want, "blur[%d,%d] = %.9g, expected "
                         "%.9g", r, c, o[r * C + c], want);
        }
    acc_array_release(&out);
}

/* ---- Mandelbrot ------------------------------------------------------------------------------ */

static int32_t escape(int64_t x, int64_t y, int64_t width, int64_t height,
                      int32_t limit)
{
    float cx = -2.0f + 3.0f * (float)x / (float)width;
    float cy = -1.2f + 2.4f * (float)y / (float)height;
    float zx = 0.0f, zy = 0.0f;
    int32_t n = 0;
    while (n < limit && zx * zx + zy * zy < 4.0f) {
        float nx = zx * zx - zy * zy + cx;
        float ny = 2.0f * zx * zy + cy;
        zx = nx;
        zy = ny;
        n++;
    }
    return n;
}

Test(text_programs, mandelbrot_escape_counts)
{
    int64_t width = 24, height = 16;
    int32_t limit = 60;
    acc_array in[3] = {scalar_in(ACC_I64, &width),
                       scalar_in(ACC_I64, &height),
                       scalar_in(ACC_I32, &limit)};
    acc_array out;
    run_entry(ts_language4_source(), "mandelbrot", 3, in, 1, &out);
    cr_assert(acc_type_equal(out.type, sc(ACC_I32)));
    cr_assert_eq(out.extents[0], height);
    cr_assert_eq(out.extents[1], width);
    const int32_t *o = out.data[0];
    int inside = 0;
    for (int64_t y = 0; y < height; y++)
        for (int64_t x = 0; x < width; x++) {
            int32_t want = escape(x, y, width, height, limit);
            inside += want == limit;
            cr_assert_eq(o[y * width + x], want, "mandelbrot[%lld,%lld] = %d, "
                         "expected %d", (long long)y, (long long)x,
                         o[y * width + x], want);
        }
    cr_assert_gt(inside, 0, "some points must stay inside the set");
    acc_array_release(&out);
}

/* ---- the sieve of LANGUAGE.md §3.6 -------------------------------------------------------- */

Test(text_programs, sieve_marks)
{
    int64_t ps[4] = {2, 3, 5, 7}, n = 50;
    acc_array in[2] = {vec(ACC_I64, 4, ps), scalar_in(ACC_I64, &n)}, out;
    run_entry(ts_sieve_source(), NULL, 2, in, 1, &out);
    cr_assert(acc_type_equal(out.type, sc(ACC_I32)));
    cr_assert_eq(out.extents[0], n);
    const int32_t *o = out.data[0];
    for (int64_t m = 0; m < n; m++) {
        int32_t want = 0;
        for (int i = 0; i < 4; i++)
            want += m >= 2 * ps[i] && m % ps[i] == 0;
        cr_assert_eq(o[m], want, "marks[%lld] = %d, expected %d",
                     (long long)m, o[m], want);
    }
    acc_array_release(&out);
}

/* ---- program signatures come from the annotations ------------------------------------------ */

Test(text_programs, signatures_follow_the_annotations)
{
    acc_program *p = compile(ts_language4_source(), "mandelbrot");
    const acc_type *t = NULL;
    int32_t rank = -1;
    cr_assert_eq(acc_program_num_inputs(p), 3);
    cr_assert_eq(acc_program_input(p, 2, &t, &rank), ACC_OK);
    cr_assert(acc_type_equal(t, sc(ACC_I32)));
    cr_assert_eq(rank, 0);
    cr_assert_eq(acc_program_output(p, 0, &t, &rank), ACC_OK);
    cr_assert(acc_type_equal(t, sc(ACC_I32)));
    cr_assert_eq(rank, 2);
    acc_program_free(p);
}
