/*
 * kernel_bench.c — the kernel rows of `make bench` (issue 7, and issue 22's
 * small inputs): dotp (and on 10^4-10^6 elements), Black-Scholes,
 * Mandelbrot, SMVM and the 3x3 blur, each accel program against its C
 * baseline (bench/baselines.c) in the same process, on the same data.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/kernel_bench.h"

#include "bench/baselines.h"
#include "bench/workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- dot product ------------------------------------------------------------- */

typedef float (*sdot_fn)(int n, const float *x, int incx, const float *y,
                         int incy);

static sdot_fn find_cblas_sdot(void)
{
    static const char *const libs[] = {"libopenblas.so.0", "libopenblas.so",
                                       "libcblas.so.3"};
    void *f = bench_find_symbol(libs, 3, "cblas_sdot");
    sdot_fn fn = NULL;
    if (f)
        memcpy(&fn, &f, sizeof fn);
    return fn;
}

void kernel_bench_dotp(bench *b)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    float *x = bench_alloc(b, (size_t)n * sizeof *x);
    float *y = bench_alloc(b, (size_t)n * sizeof *y);
    double magnitude = 0; /* sum |x y|: what rounding error scales with */
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.001f;
        y[i] = (float)(i % 7) - 3.0f;
        magnitude += fabs((double)x[i] * y[i]);
    }
    /* two f32 sums in different orders may differ by a few units of
     * rounding of the magnitude, whatever the result's size */
    float tolerance = (float)(1e-5 * magnitude) + 1e-6f;
    acc_program *p = bench_compile(b, "dotp");
    acc_array in[2] = {bench_vector(ACC_F32, n, x), bench_vector(ACC_F32, n, y)};
    double t[64], tb[64];
    float got = 0, want = 0;
    for (int r = 0; r < b->runs; r++) {
        acc_array out = bench_scalar(ACC_F32, &got);
        double start = bench_now_ms();
        bench_run(b, p, 2, in, 1, &out);
        t[r] = bench_now_ms() - start;
    }
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        want = bl_sdot(b->threads, n, x, y);
        tb[r] = bench_now_ms() - start;
    }
    char size[32];
    snprintf(size, sizeof size, "%lld f32", (long long)n);
    double accel = bench_median(t, b->runs);
    int agree = fabsf(got - want) <= tolerance;
    double bytes = 8.0 * (double)n; /* both vectors read once */
    bench_report_mem(b, "dotp", size, accel, "C loop (threads)",
                     bench_median(tb, b->runs), agree, bytes);
    sdot_fn sdot = n <= 2147483647 ? find_cblas_sdot() : NULL;
    if (sdot) {
        for (int r = 0; r < b->runs; r++) {
            double start = bench_now_ms();
            want = sdot((int)n, x, 1, y, 1);
            tb[r] = bench_now_ms() - start;
        }
        agree = fabsf(got - want) <= tolerance;
        bench_report_mem(b, "dotp", size, accel, "OpenBLAS cblas_sdot",
                         bench_median(tb, b->runs), agree, bytes);
    } else {
        printf("%-22s (OpenBLAS not installed: no cblas_sdot baseline)\n",
               "dotp");
    }
    acc_program_free(p);
    free(x);
    free(y);
}

/* ---- Black-Scholes ----------------------------------------------------------- */

void kernel_bench_blackscholes(bench *b)
{
    wl_blackscholes w;
    wl_blackscholes_init(b, &w);
    double t[64], tb[64];
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bench_run(b, w.p, 1, &w.in, 1, &w.out);
        t[r] = bench_now_ms() - start;
    }
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bl_blackscholes(b->threads, w.n, w.price, w.strike, w.years, w.call,
                        w.put);
        tb[r] = bench_now_ms() - start;
    }
    bench_report(b, "blackscholes", w.size, bench_median(t, b->runs),
                 "C + libmvec (threads)", bench_median(tb, b->runs),
                 wl_blackscholes_agree(&w));
    wl_blackscholes_free(&w);
}

/* ---- Mandelbrot -------------------------------------------------------------- */

void kernel_bench_mandelbrot(bench *b)
{
    wl_mandelbrot m;
    wl_mandelbrot_init(b, &m);
    double t[64], tb[64];
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bench_run(b, m.p, 3, m.in, 1, &m.out);
        t[r] = bench_now_ms() - start;
    }
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bl_mandelbrot(b->threads, m.w, m.h, m.limit, m.mine);
        tb[r] = bench_now_ms() - start;
    }
    bench_report(b, "mandelbrot", m.size, bench_median(t, b->runs),
                 "C loop (threads)", bench_median(tb, b->runs),
                 wl_mandelbrot_agree(&m));
    wl_mandelbrot_free(&m);
}

/* ---- SMVM -------------------------------------------------------------------- */

void kernel_bench_smvm(bench *b)
{
    int64_t per_row = 8, nnz = (int64_t)(4e6 * b->scale);
    int64_t rows = nnz / per_row, cols = rows;
    nnz = rows * per_row;
    int64_t *segd = bench_alloc(b, (size_t)rows * 8);
    int64_t *start = bench_alloc(b, (size_t)(rows + 1) * 8);
    int64_t *inds = bench_alloc(b, (size_t)nnz * 8);
    float *vals = bench_alloc(b, (size_t)nnz * 4), *v = bench_alloc(b, (size_t)cols * 4);
    float *mine = bench_alloc(b, (size_t)rows * 4);
    float *got = bench_touched(b, (size_t)rows * 4);
    float *got_checked = bench_touched(b, (size_t)rows * 4);
    uint64_t seed = 12345;
    for (int64_t r = 0; r <= rows; r++)
        start[r] = r * per_row;
    for (int64_t r = 0; r < rows; r++)
        segd[r] = per_row;
    for (int64_t k = 0; k < nnz; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        inds[k] = (int64_t)((seed >> 33) % (uint64_t)cols);
        vals[k] = (float)((seed >> 20) % 100) * 0.01f;
    }
    for (int64_t c = 0; c < cols; c++)
        v[c] = (float)(c % 10) * 0.1f;
    acc_program *p = bench_compile(b, "smvm");
    acc_array in[4] = {bench_vector(ACC_I64, rows, segd), bench_vector(ACC_I64, nnz, inds),
                       bench_vector(ACC_F32, nnz, vals), bench_vector(ACC_F32, cols, v)};
    double t[64], tb[64];
    acc_array out = bench_vector(ACC_F32, rows, got);
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        bench_run(b, p, 4, in, 1, &out);
        t[r] = bench_now_ms() - s;
    }
    double tc[64];
    int checked_ok = 1;
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        bl_smvm(b->threads, rows, start, inds, vals, v, mine);
        tb[r] = bench_now_ms() - s;
    }
    for (int r = 0; r < b->runs; r++) { /* a loop of its own, like each */
        double s = bench_now_ms();
        checked_ok &= bl_smvm_checked(b->threads, rows, start, inds, vals, v,
                                      cols, got_checked);
        tc[r] = bench_now_ms() - s;
    }
    int agree = 1;
    for (int64_t r = 0; r < rows; r++)
        agree &= fabsf(got[r] - mine[r]) <= 1e-4f * (1 + fabsf(mine[r]));
    char size[32];
    snprintf(size, sizeof size, "%lld nnz", (long long)nnz);
    /* inds, vals and segd read, the result written; the gathers from the
     * vector (cols f32) mostly hit the cache */
    double bytes = 12.0 * (double)nnz + 12.0 * (double)rows;
    bench_report_mem(b, "smvm", size, bench_median(t, b->runs),
                     "C loop (threads)", bench_median(tb, b->runs), agree,
                     bytes);
    bench_report_mem(b, "smvm", size, bench_median(t, b->runs),
                     "C loop, checked reads", bench_median(tc, b->runs),
                     agree && checked_ok &&
                         memcmp(got_checked, mine, (size_t)rows * 4) == 0,
                     bytes);
    acc_program_free(p);
    free(segd);
    free(start);
    free(inds);
    free(vals);
    free(v);
    free(mine);
    free(got);
    free(got_checked);
}

/* ---- 3x3 blur (stencil) --------------------------------------------------- */

void kernel_bench_blur(bench *b)
{
    int64_t side = (int64_t)(4096 * sqrt(b->scale));
    side = side < 3 ? 3 : side;
    int64_t ext[2] = {side, side}, n = side * side;
    float *img = bench_alloc(b, (size_t)n * 4), *mine = bench_alloc(b, (size_t)n * 4);
    float *got = bench_touched(b, (size_t)n * 4);
    for (int64_t k = 0; k < n; k++)
        img[k] = (float)((k * 37) % 251) * 0.37f;
    acc_program *p = bench_compile(b, "blur");
    acc_array in;
    acc_array_init(&in, acc_type_scalar(ACC_F32), 2, ext);
    in.data[0] = img;
    double t[64], tb[64];
    acc_array out = bench_array(ACC_F32, 2, (int64_t[]){side, side}, got);
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        bench_run(b, p, 1, &in, 1, &out);
        t[r] = bench_now_ms() - s;
    }
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        bl_blur(b->threads, side, side, img, mine);
        tb[r] = bench_now_ms() - s;
    }
    /* the same operations in the same order: equal unless the baseline's
     * flags allow contraction into fused multiply-adds */
    int agree = 1;
    for (int64_t k = 0; k < n; k++)
        agree &= fabsf(got[k] - mine[k]) <= 1e-5f * (1 + fabsf(mine[k]));
    char size[48];
    snprintf(size, sizeof size, "%lldx%lld f32", (long long)side,
             (long long)side);
    bench_report_mem(b, "blur 3x3 (stencil)", size, bench_median(t, b->runs),
                     "C loop (threads)", bench_median(tb, b->runs), agree,
                     8.0 * (double)n); /* the image read, the result written */
    acc_program_free(p);
    free(img);
    free(mine);
    free(got);
}

/* ---- dotp on small inputs (the calling thread alone) ----------------------- */

typedef struct small_dotp {
    const bench *b;
    acc_program *p, *one; /* one: compiled in a one-thread context */
    acc_array in[2];
    const float *x, *y;
    int64_t n;
    int calls;
    float got, got_one, want;
} small_dotp;

static void small_accel(void *c)
{
    small_dotp *s = c;
    for (int k = 0; k < s->calls; k++) {
        acc_array out = bench_scalar(ACC_F32, &s->got);
        bench_run(s->b, s->p, 2, s->in, 1, &out);
    }
}

static void small_accel_one(void *c)
{
    small_dotp *s = c;
    for (int k = 0; k < s->calls; k++) {
        acc_array out = bench_scalar(ACC_F32, &s->got_one);
        bench_run(s->b, s->one, 2, s->in, 1, &out);
    }
}

static void small_c(void *c)
{
    small_dotp *s = c;
    for (int k = 0; k < s->calls; k++)
        s->want = bl_sdot(1, s->n, s->x, s->y);
}

/* dotp of n elements, called `calls` times per sample, against C on one
 * thread, and accel in a one-thread context (where the threads stop
 * paying: how CPU_SERIAL_BELOW was chosen). */
static void dotp_small_row(bench *b, int64_t n, acc_context *one_ctx)
{
    float *x = bench_alloc(b, (size_t)n * sizeof *x);
    float *y = bench_alloc(b, (size_t)n * sizeof *y);
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.001f;
        y[i] = (float)(i % 7) - 3.0f;
    }
    small_dotp s = {b, bench_compile(b, "dotp"),
                    bench_compile_in(b, one_ctx, "dotp"),
                    {bench_vector(ACC_F32, n, x), bench_vector(ACC_F32, n, y)},
                    x, y, n, (int)(2e6 / (double)n) + 1, 0, 0, 0};
    bench_timed_fn fn[3] = {small_accel, small_c, small_accel_one};
    void *ctx[3] = {&s, &s, &s};
    double med[3];
    bench_interleaved(b, 3, fn, ctx, med);
    char size[48];
    snprintf(size, sizeof size, "%lld f32 (per call)", (long long)n);
    float tol = 1e-3f * (float)n;
    bench_report(b, "dotp, small", size, med[0] / s.calls, "C loop (1 thread)",
                 med[1] / s.calls, fabsf(s.got - s.want) <= tol);
    bench_report(b, "dotp, small", size, med[0] / s.calls, "accel, 1 thread",
                 med[2] / s.calls, fabsf(s.got - s.got_one) <= tol);
    acc_program_free(s.p);
    acc_program_free(s.one);
    free(x);
    free(y);
}

void kernel_bench_dotp_small(bench *b)
{
    int threads = b->threads;
    b->threads = 1;
    acc_context *one = bench_context(b, NULL);
    b->threads = threads;
    for (int64_t n = 10000; n <= 1000000; n *= 10)
        dotp_small_row(b, n, one);
    dotp_small_row(b, 300000, one);
    acc_context_destroy(one);
}
