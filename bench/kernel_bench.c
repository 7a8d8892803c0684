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

/* The vectors of the dotp rows (large and small), with the sum of |x y|:
 * what the rounding error of a sum in another order scales with. */
static double dot_inputs(int64_t n, float *x, float *y)
{
    double magnitude = 0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.001f;
        y[i] = (float)(i % 7) - 3.0f;
        magnitude += fabs((double)x[i] * y[i]);
    }
    return magnitude;
}

/* The dot product's baselines, as bench_timed_fn (their result in want). */
typedef struct dot_row {
    int threads;
    int64_t n;
    const float *x, *y;
    sdot_fn sdot; /* OpenBLAS's, when installed */
    float want;
} dot_row;

static void dot_c(void *c)
{
    dot_row *d = c;
    d->want = bl_sdot(d->threads, d->n, d->x, d->y);
}

static void dot_blas(void *c)
{
    dot_row *d = c;
    d->want = d->sdot((int)d->n, d->x, 1, d->y, 1);
}

void kernel_bench_dotp(bench *b)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    float *x = bench_alloc(b, (size_t)n * sizeof *x);
    float *y = bench_alloc(b, (size_t)n * sizeof *y);
    /* two f32 sums in different orders may differ by a few units of
     * rounding of the magnitude, whatever the result's size */
    float tolerance = (float)(1e-5 * dot_inputs(n, x, y)) + 1e-6f;
    float got = 0;
    acc_array in[2] = {bench_vector(ACC_F32, n, x), bench_vector(ACC_F32, n, y)};
    acc_array out = bench_scalar(ACC_F32, &got);
    bench_call run = {b, bench_compile(b, "dotp"), 2, in, &out};
    dot_row d = {b->threads, n, x, y,
                 n <= 2147483647 ? find_cblas_sdot() : NULL, 0};
    double accel = bench_time(b, bench_call_run, &run);
    double base = bench_time(b, dot_c, &d);
    char size[32];
    snprintf(size, sizeof size, "%lld f32", (long long)n);
    double bytes = 8.0 * (double)n; /* both vectors read once */
    bench_report_mem(b, "dotp", size, accel, "C loop (threads)", base,
                     fabsf(got - d.want) <= tolerance, bytes);
    if (d.sdot) {
        base = bench_time(b, dot_blas, &d);
        bench_report_mem(b, "dotp", size, accel, "OpenBLAS cblas_sdot", base,
                         fabsf(got - d.want) <= tolerance, bytes);
    } else {
        printf("%-22s (OpenBLAS not installed: no cblas_sdot baseline)\n",
               "dotp");
    }
    acc_program_free(run.p);
    free(x);
    free(y);
}

/* ---- Black-Scholes ----------------------------------------------------------- */

static void blackscholes_c(void *c)
{
    wl_blackscholes *w = c;
    bl_blackscholes(w->threads, w->n, w->price, w->strike, w->years, w->call,
                    w->put);
}

void kernel_bench_blackscholes(bench *b)
{
    wl_blackscholes w;
    wl_blackscholes_init(b, &w);
    bench_call run = {b, w.p, 1, &w.in, &w.out};
    double accel = bench_time(b, bench_call_run, &run);
    double base = bench_time(b, blackscholes_c, &w);
    bench_report(b, "blackscholes", w.size, accel, "C + libmvec (threads)",
                 base, wl_blackscholes_agree(&w));
    wl_blackscholes_free(&w);
}

/* ---- Mandelbrot -------------------------------------------------------------- */

static void mandelbrot_c(void *c)
{
    wl_mandelbrot *m = c;
    bl_mandelbrot(m->threads, m->w, m->h, m->limit, m->mine);
}

void kernel_bench_mandelbrot(bench *b)
{
    wl_mandelbrot m;
    wl_mandelbrot_init(b, &m);
    bench_call run = {b, m.p, 3, m.in, &m.out};
    double accel = bench_time(b, bench_call_run, &run);
    double base = bench_time(b, mandelbrot_c, &m);
    bench_report(b, "mandelbrot", m.size, accel, "C loop (threads)", base,
                 wl_mandelbrot_agree(&m));
    wl_mandelbrot_free(&m);
}

/* ---- SMVM -------------------------------------------------------------------- */

/* SMVM's CSR matrix, vector and the baselines' results, for its
 * bench_timed_fn baselines. */
typedef struct smvm_row {
    int threads;
    int64_t rows, cols;
    const int64_t *start, *inds;
    const float *vals, *v;
    float *mine, *checked;
    int checked_ok; /* every column index was in range */
} smvm_row;

static void smvm_c(void *c)
{
    smvm_row *m = c;
    bl_smvm(m->threads, m->rows, m->start, m->inds, m->vals, m->v, m->mine);
}

static void smvm_checked(void *c)
{
    smvm_row *m = c;
    m->checked_ok &= bl_smvm_checked(m->threads, m->rows, m->start, m->inds,
                                     m->vals, m->v, m->cols, m->checked);
}

void kernel_bench_smvm(bench *b)
{
    int64_t per_row = 8, nnz = (int64_t)(4e6 * b->scale);
    int64_t rows = nnz / per_row, cols = rows;
    nnz = rows * per_row;
    int64_t *segd = bench_alloc(b, (size_t)rows * 8);
    int64_t *start = bench_alloc(b, (size_t)(rows + 1) * 8);
    int64_t *inds = bench_alloc(b, (size_t)nnz * 8);
    float *vals = bench_alloc(b, (size_t)nnz * 4), *v = bench_alloc(b, (size_t)cols * 4);
    float *got = bench_touched(b, (size_t)rows * 4);
    smvm_row m = {b->threads, rows, cols, start, inds, vals, v,
                  bench_alloc(b, (size_t)rows * 4),
                  bench_touched(b, (size_t)rows * 4), 1};
    uint64_t seed = 12345;
    for (int64_t r = 0; r <= rows; r++)
        start[r] = r * per_row;
    for (int64_t r = 0; r < rows; r++)
        segd[r] = per_row;
    for (int64_t k = 0; k < nnz; k++) {
        uint64_t x = bench_lcg(&seed);
        inds[k] = (int64_t)((x >> 33) % (uint64_t)cols);
        vals[k] = (float)((x >> 20) % 100) * 0.01f;
    }
    for (int64_t c = 0; c < cols; c++)
        v[c] = (float)(c % 10) * 0.1f;
    acc_array in[4] = {bench_vector(ACC_I64, rows, segd), bench_vector(ACC_I64, nnz, inds),
                       bench_vector(ACC_F32, nnz, vals), bench_vector(ACC_F32, cols, v)};
    acc_array out = bench_vector(ACC_F32, rows, got);
    bench_call run = {b, bench_compile(b, "smvm"), 4, in, &out};
    double accel = bench_time(b, bench_call_run, &run);
    double base = bench_time(b, smvm_c, &m);
    double checked = bench_time(b, smvm_checked, &m); /* a loop of its own */
    int agree = 1;
    for (int64_t r = 0; r < rows; r++)
        agree &= fabsf(got[r] - m.mine[r]) <= 1e-4f * (1 + fabsf(m.mine[r]));
    char size[32];
    snprintf(size, sizeof size, "%lld nnz", (long long)nnz);
    /* inds, vals and segd read, the result written; the gathers from the
     * vector (cols f32) mostly hit the cache */
    double bytes = 12.0 * (double)nnz + 12.0 * (double)rows;
    bench_report_mem(b, "smvm", size, accel, "C loop (threads)", base, agree,
                     bytes);
    bench_report_mem(b, "smvm", size, accel, "C loop, checked reads", checked,
                     agree && m.checked_ok &&
                         memcmp(m.checked, m.mine, (size_t)rows * 4) == 0,
                     bytes);
    acc_program_free(run.p);
    free(segd);
    free(start);
    free(inds);
    free(vals);
    free(v);
    free(m.mine);
    free(got);
    free(m.checked);
}

/* ---- 3x3 blur (stencil) --------------------------------------------------- */

typedef struct blur_row {
    int threads;
    int64_t side;
    const float *img;
    float *mine;
} blur_row;

static void blur_c(void *c)
{
    blur_row *r = c;
    bl_blur(r->threads, r->side, r->side, r->img, r->mine);
}

void kernel_bench_blur(bench *b)
{
    int64_t side = (int64_t)(4096 * sqrt(b->scale));
    side = side < 3 ? 3 : side;
    int64_t ext[2] = {side, side}, n = side * side;
    float *img = bench_alloc(b, (size_t)n * 4), *mine = bench_alloc(b, (size_t)n * 4);
    float *got = bench_touched(b, (size_t)n * 4);
    for (int64_t k = 0; k < n; k++)
        img[k] = (float)((k * 37) % 251) * 0.37f;
    acc_array in = bench_array(ACC_F32, 2, ext, img);
    acc_array out = bench_array(ACC_F32, 2, ext, got);
    bench_call run = {b, bench_compile(b, "blur"), 1, &in, &out};
    blur_row base_row = {b->threads, side, img, mine};
    double accel = bench_time(b, bench_call_run, &run);
    double base = bench_time(b, blur_c, &base_row);
    /* the same operations in the same order: equal unless the baseline's
     * flags allow contraction into fused multiply-adds */
    int agree = 1;
    for (int64_t k = 0; k < n; k++)
        agree &= fabsf(got[k] - mine[k]) <= 1e-5f * (1 + fabsf(mine[k]));
    char size[48];
    snprintf(size, sizeof size, "%lldx%lld f32", (long long)side,
             (long long)side);
    bench_report_mem(b, "blur 3x3 (stencil)", size, accel, "C loop (threads)",
                     base, agree, 8.0 * (double)n); /* read, written */
    acc_program_free(run.p);
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
    dot_inputs(n, x, y);
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
