/*
 * accel_bench.c — `make bench`: each benchmark runs accel and its
 * hand-written baselines in the same process, on the same data, with the
 * same number of threads, and reports the median of repeated runs side by
 * side (a table on stdout, a CSV file).  Results are checked against each
 * other; a mismatch is reported, never hidden.  Nothing here asserts a
 * speed.
 *
 * Usage: accel_bench [CSV-PATH]
 * Environment: ACC_BENCH_RUNS (default 10), ACC_BENCH_SCALE (problem-size
 * factor; default 1, or 0.01 when only the reference interpreter is
 * available), ACC_NUM_THREADS (default: the number of cores).
 */
#define _POSIX_C_SOURCE 200809L
#include "accel.h"
#include "bench/baselines.h"
#include "bench/bench_common.h"
#include "bench/loop_bench.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- descriptors ------------------------------------------------------------- */

static acc_array vec(acc_scalar s, int64_t n, void *data)
{
    acc_array a;
    acc_array_init(&a, acc_type_scalar(s), 1, &n);
    a.data[0] = data;
    return a;
}

static acc_array scalar(acc_scalar s, void *data)
{
    acc_array a;
    acc_array_init(&a, acc_type_scalar(s), 0, NULL);
    a.data[0] = data;
    return a;
}

/* A caller's buffer of `bytes` bytes, allocated and touched once, for
 * accel's result: the baseline writes into memory it allocated before the
 * timed runs, so accel does too (core/exec/destinations.c: the kernel
 * computing the output writes it directly).  A fresh result per run would
 * time the page faults of new memory, not the computation. */
static void *output_buffer(const bench *b, size_t bytes)
{
    void *p = bench_alloc(b, bytes);
    memset(p, 0, bytes);
    return p;
}

static acc_array matrix(acc_scalar s, int64_t rows, int64_t cols, void *data)
{
    int64_t ext[2] = {rows, cols};
    acc_array a;
    acc_array_init(&a, acc_type_scalar(s), 2, ext);
    a.data[0] = data;
    return a;
}

/* ---- dot product ------------------------------------------------------------- */

typedef float (*sdot_fn)(int n, const float *x, int incx, const float *y,
                         int incy);

static sdot_fn find_cblas_sdot(void)
{
    const char *names[] = {"libopenblas.so.0", "libopenblas.so",
                           "libcblas.so.3"};
    for (size_t i = 0; i < 3; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        void *f = lib ? dlsym(lib, "cblas_sdot") : NULL;
        if (f) {
            sdot_fn fn;
            memcpy(&fn, &f, sizeof fn);
            return fn;
        }
    }
    return NULL;
}

static void bench_dotp(bench *b)
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
    acc_array in[2] = {vec(ACC_F32, n, x), vec(ACC_F32, n, y)};
    double t[64], tb[64];
    float got = 0, want = 0;
    for (int r = 0; r < b->runs; r++) {
        acc_array out = scalar(ACC_F32, &got);
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
    bench_report(b, "dotp", size, accel, "C loop (threads)", bench_median(tb, b->runs),
           agree);
    sdot_fn sdot = n <= 2147483647 ? find_cblas_sdot() : NULL;
    if (sdot) {
        for (int r = 0; r < b->runs; r++) {
            double start = bench_now_ms();
            want = sdot((int)n, x, 1, y, 1);
            tb[r] = bench_now_ms() - start;
        }
        agree = fabsf(got - want) <= tolerance;
        bench_report(b, "dotp", size, accel, "OpenBLAS cblas_sdot",
               bench_median(tb, b->runs), agree);
    } else {
        printf("%-22s (OpenBLAS not installed: no cblas_sdot baseline)\n",
               "dotp");
    }
    acc_program_free(p);
    free(x);
    free(y);
}

/* ---- Black-Scholes ----------------------------------------------------------- */

static void bench_blackscholes(bench *b)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    float *price = bench_alloc(b, (size_t)n * 4), *strike = bench_alloc(b, (size_t)n * 4);
    float *years = bench_alloc(b, (size_t)n * 4), *call = bench_alloc(b, (size_t)n * 4);
    float *put = bench_alloc(b, (size_t)n * 4);
    for (int64_t i = 0; i < n; i++) {
        price[i] = 5.0f + (float)(i % 100) * 0.3f;
        strike[i] = 1.0f + (float)(i % 17) * 0.9f;
        years[i] = 0.25f + (float)(i % 9) * 0.5f;
    }
    acc_program *p = bench_compile(b, "blackscholes");
    const acc_type *elem = NULL;
    acc_program_input(p, 0, &elem, NULL);
    acc_array in;
    acc_array_init(&in, elem, 1, &n);
    in.data[0] = price;
    in.data[1] = strike;
    in.data[2] = years;
    /* Like the baseline, accel writes into buffers the caller allocated
     * (and touched) once: a fresh 80 MB result per run would time the
     * kernel's page faults, not its arithmetic. */
    float *acall = bench_alloc(b, (size_t)n * 4), *aput = bench_alloc(b, (size_t)n * 4);
    memset(acall, 0, (size_t)n * 4);
    memset(aput, 0, (size_t)n * 4);
    double t[64], tb[64];
    acc_array out;
    const acc_type *oelem = NULL;
    acc_program_output(p, 0, &oelem, NULL);
    acc_array_init(&out, oelem, 1, &n);
    out.data[0] = acall;
    out.data[1] = aput;
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bench_run(b, p, 1, &in, 1, &out);
        t[r] = bench_now_ms() - start;
    }
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bl_blackscholes(b->threads, n, price, strike, years, call, put);
        tb[r] = bench_now_ms() - start;
    }
    int agree = 1;
    for (int64_t i = 0; i < n; i += 1 + n / 1000) {
        float c = acall[i], q = aput[i];
        agree &= fabsf(c - call[i]) <= 1e-3f * (1 + fabsf(call[i])) &&
                 fabsf(q - put[i]) <= 1e-3f * (1 + fabsf(put[i]));
    }
    free(acall);
    free(aput);
    char size[32];
    snprintf(size, sizeof size, "%lld options", (long long)n);
    bench_report(b, "blackscholes", size, bench_median(t, b->runs),
           "C + libmvec (threads)", bench_median(tb, b->runs), agree);
    acc_program_free(p);
    free(price);
    free(strike);
    free(years);
    free(call);
    free(put);
}

/* ---- Mandelbrot -------------------------------------------------------------- */

static void bench_mandelbrot(bench *b)
{
    double side = sqrt(b->scale);
    int64_t w = (int64_t)(1920 * side), h = (int64_t)(1080 * side);
    int32_t limit = 255;
    w = w < 1 ? 1 : w;
    h = h < 1 ? 1 : h;
    int32_t *mine = bench_alloc(b, (size_t)(w * h) * 4);
    int32_t *got = output_buffer(b, (size_t)(w * h) * 4);
    acc_program *p = bench_compile(b, "mandelbrot");
    acc_array in[3] = {scalar(ACC_I64, &w), scalar(ACC_I64, &h),
                       scalar(ACC_I32, &limit)};
    double t[64], tb[64];
    acc_array out = matrix(ACC_I32, h, w, got);
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bench_run(b, p, 3, in, 1, &out);
        t[r] = bench_now_ms() - start;
    }
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bl_mandelbrot(b->threads, w, h, limit, mine);
        tb[r] = bench_now_ms() - start;
    }
    int64_t differ = 0;
    for (int64_t k = 0; k < w * h; k++)
        differ += got[k] != mine[k];
    char size[32];
    snprintf(size, sizeof size, "%lldx%lld/255", (long long)w, (long long)h);
    bench_report(b, "mandelbrot", size, bench_median(t, b->runs), "C loop (threads)",
           bench_median(tb, b->runs), differ == 0);
    acc_program_free(p);
    free(got);
    free(mine);
}

/* ---- SMVM -------------------------------------------------------------------- */

static void bench_smvm(bench *b)
{
    int64_t per_row = 8, nnz = (int64_t)(4e6 * b->scale);
    int64_t rows = nnz / per_row, cols = rows;
    nnz = rows * per_row;
    int64_t *segd = bench_alloc(b, (size_t)rows * 8);
    int64_t *start = bench_alloc(b, (size_t)(rows + 1) * 8);
    int64_t *inds = bench_alloc(b, (size_t)nnz * 8);
    float *vals = bench_alloc(b, (size_t)nnz * 4), *v = bench_alloc(b, (size_t)cols * 4);
    float *mine = bench_alloc(b, (size_t)rows * 4);
    float *got = output_buffer(b, (size_t)rows * 4);
    float *got_checked = output_buffer(b, (size_t)rows * 4);
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
    acc_array in[4] = {vec(ACC_I64, rows, segd), vec(ACC_I64, nnz, inds),
                       vec(ACC_F32, nnz, vals), vec(ACC_F32, cols, v)};
    double t[64], tb[64];
    acc_array out = vec(ACC_F32, rows, got);
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
    bench_report(b, "smvm", size, bench_median(t, b->runs), "C loop (threads)",
           bench_median(tb, b->runs), agree);
    bench_report(b, "smvm", size, bench_median(t, b->runs),
                 "C loop, checked reads", bench_median(tc, b->runs),
                 agree && checked_ok &&
                     memcmp(got_checked, mine, (size_t)rows * 4) == 0);
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

static void bench_blur(bench *b)
{
    int64_t side = (int64_t)(4096 * sqrt(b->scale));
    side = side < 3 ? 3 : side;
    int64_t ext[2] = {side, side}, n = side * side;
    float *img = bench_alloc(b, (size_t)n * 4), *mine = bench_alloc(b, (size_t)n * 4);
    float *got = output_buffer(b, (size_t)n * 4);
    for (int64_t k = 0; k < n; k++)
        img[k] = (float)((k * 37) % 251) * 0.37f;
    acc_program *p = bench_compile(b, "blur");
    acc_array in;
    acc_array_init(&in, acc_type_scalar(ACC_F32), 2, ext);
    in.data[0] = img;
    double t[64], tb[64];
    acc_array out = matrix(ACC_F32, side, side, got);
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
    bench_report(b, "blur 3x3 (stencil)", size, bench_median(t, b->runs),
                 "C loop (threads)", bench_median(tb, b->runs), agree);
    acc_program_free(p);
    free(img);
    free(mine);
    free(got);
}

static acc_context *new_context(const bench *b, const char *cache_dir);

/* ---- runs interleaved --------------------------------------------------------- */

/* One timed call (or batch of calls) of a baseline or of accel. */
typedef void (*timed_fn)(void *ctx);

/* Medians of `runs` rounds, each round timing every fn once in turn (the
 * order rotating per round), so that the machine's load drifts fall on
 * all of them alike. */
static void interleaved(const bench *b, size_t n, timed_fn *fn, void **ctx,
                        double *median)
{
    double t[8][64];
    for (int r = 0; r < b->runs; r++)
        for (size_t j = 0; j < n; j++) {
            size_t k = (j + (size_t)r) % n;
            double s = bench_now_ms();
            fn[k](ctx[k]);
            t[k][r] = bench_now_ms() - s;
        }
    for (size_t k = 0; k < n; k++)
        median[k] = bench_median(t[k], b->runs);
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
        acc_array out = scalar(ACC_F32, &s->got);
        bench_run(s->b, s->p, 2, s->in, 1, &out);
    }
}

static void small_accel_one(void *c)
{
    small_dotp *s = c;
    for (int k = 0; k < s->calls; k++) {
        acc_array out = scalar(ACC_F32, &s->got_one);
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
static void bench_dotp_small(bench *b, int64_t n, acc_context *one_ctx)
{
    float *x = bench_alloc(b, (size_t)n * sizeof *x);
    float *y = bench_alloc(b, (size_t)n * sizeof *y);
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.001f;
        y[i] = (float)(i % 7) - 3.0f;
    }
    small_dotp s = {b, bench_compile(b, "dotp"), NULL,
                    {vec(ACC_F32, n, x), vec(ACC_F32, n, y)}, x, y, n,
                    (int)(2e6 / (double)n) + 1, 0, 0, 0};
    if (acc_compile_text(one_ctx, bench_programs, (size_t)-1, "dotp",
                         &s.one) != ACC_OK) {
        fprintf(stderr, "%s: %s\n", b->tool, acc_last_error());
        exit(1);
    }
    timed_fn fn[3] = {small_accel, small_c, small_accel_one};
    void *ctx[3] = {&s, &s, &s};
    double med[3];
    interleaved(b, 3, fn, ctx, med);
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

/* ---- histogram and sieve (permute) -------------------------------------------- */


typedef struct hist_run {
    const bench *b;
    acc_program *p;
    acc_array in[2], out;
    int64_t n, k;
    const int32_t *xs;
    int32_t *atomics, *tables;
} hist_run;

static void hist_accel(void *c)
{
    hist_run *h = c;
    bench_run(h->b, h->p, 2, h->in, 1, &h->out);
}

static void hist_atomics(void *c)
{
    hist_run *h = c;
    bl_histogram(h->b->threads, h->n, h->xs, h->k, h->atomics);
}

static void hist_tables(void *c)
{
    hist_run *h = c;
    bl_histogram_private(h->b->threads, h->n, h->xs, h->k, h->tables);
}

static void bench_histogram(bench *b, int64_t k)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    int32_t *xs = bench_alloc(b, (size_t)n * 4);
    int32_t *atomics = output_buffer(b, (size_t)k * 4);
    int32_t *tables = output_buffer(b, (size_t)k * 4);
    int32_t *got = output_buffer(b, (size_t)k * 4);
    uint64_t seed = 987654321;
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        xs[i] = (int32_t)((seed >> 33) % (uint64_t)k);
    }
    hist_run h = {b, bench_compile(b, "histogram"),
                  {scalar(ACC_I64, &k), vec(ACC_I32, n, xs)},
                  vec(ACC_I32, k, got), n, k, xs, atomics, tables};
    timed_fn fn[3] = {hist_accel, hist_atomics, hist_tables};
    void *ctx[3] = {&h, &h, &h};
    double med[3];
    interleaved(b, 3, fn, ctx, med);
    char size[48];
    snprintf(size, sizeof size, "%lld i32, %lld bins", (long long)n,
             (long long)k);
    bench_report(b, "histogram", size, med[0], "C atomics (threads)", med[1],
                 memcmp(got, atomics, (size_t)k * 4) == 0);
    bench_report(b, "histogram", size, med[0], "C per-thread tables",
                 med[2], memcmp(got, tables, (size_t)k * 4) == 0);
    acc_program_free(h.p);
    free(xs);
    free(atomics);
    free(tables);
    free(got);
}

typedef struct sieve_run {
    const bench *b;
    acc_program *p, *unfused;
    acc_array in[2], out;
    const int64_t *ps;
    int64_t n_ps, n;
    int32_t *mine;
} sieve_run;

static void sieve_accel(void *c)
{
    sieve_run *s = c;
    bench_run(s->b, s->p, 2, s->in, 1, &s->out);
}

static void sieve_unfused(void *c)
{
    sieve_run *s = c;
    bench_run(s->b, s->unfused, 2, s->in, 1, &s->out);
}

static void sieve_c(void *c)
{
    sieve_run *s = c;
    bl_sieve_marks(s->b->threads, s->ps, s->n_ps, s->n, s->mine);
}

/* The primes below sqrt(n) (at least 2), into a new vector. */
static int64_t *small_primes(const bench *b, int64_t n, int64_t *count)
{
    int64_t r = 2;
    while ((r + 1) * (r + 1) <= n)
        r++;
    char *comp = bench_alloc(b, (size_t)r + 1);
    int64_t *ps = bench_alloc(b, ((size_t)r + 1) * sizeof *ps), k = 0;
    memset(comp, 0, (size_t)r + 1);
    for (int64_t i = 2; i <= r; i++)
        if (!comp[i]) {
            ps[k++] = i;
            for (int64_t j = i * i; j <= r; j += i)
                comp[j] = 1;
        }
    free(comp);
    *count = k;
    return ps;
}

/* sieveMarks (LANGUAGE.md §3.6) over the primes below sqrt(n): fused
 * (permute' over expand, one kernel) and compiled with fusion off
 * (ACC_DISABLE=fusion while compiling: the expansion's pairs go through
 * an intermediate array), against C splitting the target range. */
static void bench_sieve(bench *b)
{
    int64_t n = (int64_t)(1e7 * b->scale), n_ps;
    if (n < 16)
        n = 16;
    int64_t *ps = small_primes(b, n, &n_ps);
    int32_t *mine = output_buffer(b, (size_t)n * 4);
    int32_t *got = output_buffer(b, (size_t)n * 4);
    int32_t *got_unfused = output_buffer(b, (size_t)n * 4);
    sieve_run s = {b, bench_compile(b, "sieveMarks"), NULL,
                   {vec(ACC_I64, n_ps, ps), scalar(ACC_I64, &n)},
                   vec(ACC_I32, n, got), ps, n_ps, n, mine};
    const char *was = getenv("ACC_DISABLE");
    char *saved = was ? strdup(was) : NULL;
    setenv("ACC_DISABLE", "fusion", 1);
    acc_context *plain = new_context(b, NULL);
    if (acc_compile_text(plain, bench_programs, (size_t)-1, "sieveMarks",
                         &s.unfused) != ACC_OK) {
        fprintf(stderr, "%s: cannot compile sieveMarks unfused: %s\n",
                b->tool, acc_last_error());
        exit(1);
    }
    if (saved)
        setenv("ACC_DISABLE", saved, 1);
    else
        unsetenv("ACC_DISABLE");
    free(saved);
    sieve_run su = s;
    su.out = vec(ACC_I32, n, got_unfused);
    timed_fn fn[3] = {sieve_accel, sieve_c, sieve_unfused};
    void *ctx[3] = {&s, &s, &su};
    double med[3];
    interleaved(b, 3, fn, ctx, med);
    char size[48];
    snprintf(size, sizeof size, "n=%lld, %lld primes", (long long)n,
             (long long)n_ps);
    bench_report(b, "sieve (permute')", size, med[0], "C split target (thr.)",
                 med[1], memcmp(got, mine, (size_t)n * 4) == 0);
    bench_report(b, "sieve (permute')", size, med[0], "accel, fusion off",
                 med[2], memcmp(got, got_unfused, (size_t)n * 4) == 0);
    acc_program_free(s.p);
    acc_program_free(s.unfused);
    acc_context_destroy(plain);
    free(ps);
    free(mine);
    free(got);
    free(got_unfused);
}

/* ---- foreign functions: a plugin against the pure fallback ----------------- */

/* A context like the main one with `plugin` loaded (NULL when it cannot be
 * loaded: the row is then reported as skipped). */
static acc_context *plugin_context(const bench *b, const char *plugin)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.num_threads = b->threads;
    acc_context *ctx = NULL;
    if (acc_context_create(&o, &ctx) != ACC_OK)
        return NULL;
    if (acc_plugin_load(ctx, plugin) != ACC_OK) {
        printf("%-22s (plugin %s not loaded: %s)\n", plugin, plugin,
               acc_last_error());
        acc_context_destroy(ctx);
        return NULL;
    }
    return ctx;
}

/* Median time of `entry` on ctx; the last run's outputs stay in out. */
static double time_entry(const bench *b, acc_context *ctx, const char *entry,
                         size_t n_in, const acc_array *in, acc_array *out)
{
    acc_program *p = NULL;
    if (acc_compile_text(ctx, bench_programs, (size_t)-1, entry, &p) != ACC_OK) {
        fprintf(stderr, "accel_bench: cannot compile %s: %s\n", entry,
                acc_last_error());
        exit(1);
    }
    double t[64];
    for (int r = 0; r < b->runs; r++) {
        memset(out, 0, sizeof *out);
        double s = bench_now_ms();
        bench_run(b, p, n_in, in, 1, out);
        t[r] = bench_now_ms() - s;
        if (r + 1 < b->runs)
            acc_array_release(out);
    }
    acc_program_free(p);
    return bench_median(t, b->runs);
}

static int close_enough(const acc_array *x, const acc_array *y, float rel)
{
    int64_t n = acc_array_size(x);
    size_t leaves = acc_type_leaf_count(x->type);
    double scale = 0;
    for (size_t l = 0; l < leaves; l++)
        for (int64_t i = 0; i < n; i++)
            scale = fmax(scale, fabs(((float *)x->data[l])[i]));
    for (size_t l = 0; l < leaves; l++)
        for (int64_t i = 0; i < n; i++)
            if (fabsf(((float *)x->data[l])[i] - ((float *)y->data[l])[i]) >
                rel * (1 + scale))
                return 0;
    return 1;
}

/* One foreign benchmark: the same text program with and without the
 * plugin. */
static void foreign_row(bench *b, const char *plugin, const char *entry,
                        const char *size, size_t n_in, const acc_array *in)
{
    acc_context *with = plugin_context(b, plugin);
    if (!with)
        return;
    acc_array fast, pure;
    double t_plugin = time_entry(b, with, entry, n_in, in, &fast);
    double t_pure = time_entry(b, b->ctx, entry, n_in, in, &pure);
    char label[48];
    snprintf(label, sizeof label, "%s (%s)", entry, plugin);
    bench_report(b, label, size, t_plugin, "pure fallback", t_pure,
           close_enough(&pure, &fast, 1e-3f));
    acc_array_release(&fast);
    acc_array_release(&pure);
    acc_context_destroy(with);
}

static void bench_foreign(bench *b)
{
    int64_t side = 512, ext[2] = {side, side};
    size_t n = (size_t)(side * side);
    float *re = bench_alloc(b, n * 4), *im = bench_alloc(b, n * 4);
    for (size_t i = 0; i < n; i++) {
        re[i] = (float)((i * 7) % 13) - 6.0f;
        im[i] = (float)((i * 3) % 5) - 2.0f;
    }
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    const acc_type *fields[2] = {f32, f32};
    acc_array sig;
    acc_array_init(&sig, acc_type_tuple(b->ctx, 2, fields), 2, ext);
    sig.data[0] = re;
    sig.data[1] = im;
    foreign_row(b, "fftw", "fft2", "512x512 complex", 1, &sig);
    int64_t cut = 32;
    acc_array hp_in[2] = {scalar(ACC_I64, &cut), sig};
    foreign_row(b, "fftw", "highpass", "512x512, cut 32", 2, hp_in);
    int64_t m = (int64_t)(1024 * sqrt(b->scale)), mext[2];
    m = m < 8 ? 8 : m;
    mext[0] = mext[1] = m;
    float *a = bench_alloc(b, (size_t)(m * m) * 4), *c = bench_alloc(b, (size_t)(m * m) * 4);
    for (int64_t i = 0; i < m * m; i++) {
        a[i] = (float)(i % 17) * 0.125f - 1.0f;
        c[i] = (float)(i % 11) * 0.25f - 1.25f;
    }
    acc_array mats[2];
    acc_array_init(&mats[0], f32, 2, mext);
    acc_array_init(&mats[1], f32, 2, mext);
    mats[0].data[0] = a;
    mats[1].data[0] = c;
    char size[64];
    snprintf(size, sizeof size, "%lldx%lld f32", (long long)m, (long long)m);
    foreign_row(b, "cblas", "matmul", size, 2, mats);
    free(re);
    free(im);
    free(a);
    free(c);
}

/* ---- vendor calls: the plugin against the library called directly ---------- */

/* A function of the first of `libs` that has `name` (NULL: none). */
static void *find_symbol(const char *const *libs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        void *lib = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        void *f = lib ? dlsym(lib, name) : NULL;
        if (f)
            return f;
    }
    return NULL;
}

typedef void (*sgemm_fn)(int order, int ta, int tb, int m, int n, int k,
                         float alpha, const float *a, int lda, const float *b,
                         int ldb, float beta, float *c, int ldc);

typedef struct vendor_run {
    const bench *b;
    acc_program *p;
    size_t n_in;
    acc_array in[2], out;
    void (*direct)(struct vendor_run *v);
    sgemm_fn sgemm;
    int m;
    const float *a, *c;
    float *mine;
    void *plan;                                /* fftw: fftwf_plan */
    void (*execute)(void *plan, float *ri, float *ii, float *ro, float *io);
    float *re, *im, *ro, *io;
} vendor_run;

static void vendor_accel(void *c)
{
    vendor_run *v = c;
    bench_run(v->b, v->p, v->n_in, v->in, 1, &v->out);
}

static void vendor_direct(void *c)
{
    vendor_run *v = c;
    v->direct(v);
}

static void sgemm_direct(vendor_run *v)
{
    enum { ROW_MAJOR = 101, NO_TRANS = 111 };
    v->sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, v->m, v->m, v->m, 1.0f, v->a,
             v->m, v->c, v->m, 0.0f, v->mine, v->m);
}

static void fft_direct(vendor_run *v)
{
    v->execute(v->plan, v->re, v->im, v->ro, v->io);
}

/* The program `entry` in context `with` (holding `plugin`), into caller
 * buffers, against v->direct, interleaved. */
static void vendor_row(bench *b, vendor_run *v, acc_context *with,
                       const char *plugin, const char *entry,
                       const char *size, const char *baseline,
                       float *const *got, float *const *want, size_t n_leaves,
                       size_t count)
{
    if (acc_compile_text(with, bench_programs, (size_t)-1, entry, &v->p) !=
        ACC_OK) {
        fprintf(stderr, "accel_bench: cannot compile %s: %s\n", entry,
                acc_last_error());
        exit(1);
    }
    timed_fn fn[2] = {vendor_accel, vendor_direct};
    void *ctx[2] = {v, v};
    double med[2];
    interleaved(b, 2, fn, ctx, med);
    double scale = 0, err = 0;
    for (size_t l = 0; l < n_leaves; l++)
        for (size_t i = 0; i < count; i++) {
            scale = fmax(scale, fabs(want[l][i]));
            err = fmax(err, fabs(got[l][i] - want[l][i]));
        }
    char label[48];
    snprintf(label, sizeof label, "%s (%s)", entry, plugin);
    bench_report(b, label, size, med[0], baseline, med[1],
                 err <= 1e-3 * (1 + scale));
    acc_program_free(v->p);
}

static void bench_vendor_gemm(bench *b)
{
    static const char *const libs[] = {"libopenblas.so.0", "libopenblas.so",
                                       "libcblas.so.3"};
    void *f = find_symbol(libs, 3, "cblas_sgemm");
    int64_t m = (int64_t)(1024 * sqrt(b->scale)), ext[2];
    m = m < 8 ? 8 : m;
    ext[0] = ext[1] = m;
    if (!f) {
        printf("%-22s (no cblas_sgemm found)\n", "matmul (cblas)");
        return;
    }
    size_t n = (size_t)(m * m);
    float *a = bench_alloc(b, n * 4), *c = bench_alloc(b, n * 4);
    float *got = output_buffer(b, n * 4), *mine = output_buffer(b, n * 4);
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i % 17) * 0.125f - 1.0f;
        c[i] = (float)(i % 11) * 0.25f - 1.25f;
    }
    vendor_run v;
    memset(&v, 0, sizeof v);
    v.b = b;
    v.n_in = 2;
    acc_array_init(&v.in[0], acc_type_scalar(ACC_F32), 2, ext);
    acc_array_init(&v.in[1], acc_type_scalar(ACC_F32), 2, ext);
    v.in[0].data[0] = a;
    v.in[1].data[0] = c;
    v.out = matrix(ACC_F32, m, m, got);
    memcpy(&v.sgemm, &f, sizeof f);
    v.direct = sgemm_direct;
    v.m = (int)m;
    v.a = a;
    v.c = c;
    v.mine = mine;
    char size[48];
    snprintf(size, sizeof size, "%lldx%lld f32", (long long)m, (long long)m);
    acc_context *with = plugin_context(b, "cblas");
    if (with)
        vendor_row(b, &v, with, "cblas", "matmul", size,
                   "cblas_sgemm direct", &got, &mine, 1, n);
    acc_context_destroy(with);
    free(a);
    free(c);
    free(got);
    free(mine);
}

typedef struct fftwf_dim {
    int n, is, os;
} fftwf_dim;
typedef void *(*fftwf_plan_split_fn)(int rank, const fftwf_dim *dims,
                                     int howmany, const fftwf_dim *hdims,
                                     float *ri, float *ii, float *ro,
                                     float *io, unsigned flags);
typedef void (*fftwf_exec_split_fn)(void *plan, float *ri, float *ii,
                                    float *ro, float *io);
typedef void (*fftwf_destroy_fn)(void *plan);

/* fft2 of a 512x512 complex f32 signal with the plugin, into caller
 * buffers, against FFTW's split-array transform planned once with
 * FFTW_MEASURE (flag values from fftw3.h: the bench does not include it,
 * libfftw3f is loaded at run time when installed). */
static void bench_vendor_fft(bench *b)
{
    static const char *const libs[] = {"libfftw3f.so.3", "libfftw3f.so"};
    void *fp = find_symbol(libs, 2, "fftwf_plan_guru_split_dft");
    void *fe = find_symbol(libs, 2, "fftwf_execute_split_dft");
    void *fd = find_symbol(libs, 2, "fftwf_destroy_plan");
    if (!fp || !fe || !fd) {
        printf("%-22s (no libfftw3f found)\n", "fft2 (fftw)");
        return;
    }
    fftwf_plan_split_fn plan_fn;
    fftwf_destroy_fn destroy;
    vendor_run v;
    memset(&v, 0, sizeof v);
    memcpy(&plan_fn, &fp, sizeof fp);
    memcpy(&v.execute, &fe, sizeof fe);
    memcpy(&destroy, &fd, sizeof fd);
    int64_t side = 512, ext[2] = {side, side};
    size_t n = (size_t)(side * side);
    float *re = bench_alloc(b, n * 4), *im = bench_alloc(b, n * 4);
    float *got[2] = {output_buffer(b, n * 4), output_buffer(b, n * 4)};
    float *mine[2] = {output_buffer(b, n * 4), output_buffer(b, n * 4)};
    fftwf_dim dims[2] = {{(int)side, (int)side, (int)side}, {(int)side, 1, 1}};
    /* FFTW_MEASURE overwrites the arrays while planning: plan first */
    v.plan = plan_fn(2, dims, 0, NULL, re, im, mine[0], mine[1],
                     0u /* FFTW_MEASURE */ | (1u << 4) /* PRESERVE_INPUT */);
    for (size_t i = 0; i < n; i++) {
        re[i] = (float)((i * 7) % 13) - 6.0f;
        im[i] = (float)((i * 3) % 5) - 2.0f;
    }
    if (!v.plan) {
        printf("%-22s (FFTW could not plan)\n", "fft2 (fftw)");
        return;
    }
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    const acc_type *fields[2] = {f32, f32};
    const acc_type *c64 = acc_type_tuple(b->ctx, 2, fields);
    v.b = b;
    v.n_in = 1;
    acc_array_init(&v.in[0], c64, 2, ext);
    v.in[0].data[0] = re;
    v.in[0].data[1] = im;
    acc_array_init(&v.out, c64, 2, ext);
    v.out.data[0] = got[0];
    v.out.data[1] = got[1];
    v.direct = fft_direct;
    v.re = re;
    v.im = im;
    v.ro = mine[0];
    v.io = mine[1];
    acc_context *with = plugin_context(b, "fftw");
    if (with)
        vendor_row(b, &v, with, "fftw", "fft2", "512x512 complex",
                   "FFTW direct, MEASURE", got, mine, 2, n);
    /* before the plugin goes: its unloading calls fftwf_cleanup, after
     * which no plan of the process may be used or destroyed */
    destroy(v.plan);
    acc_context_destroy(with);
    free(re);
    free(im);
    for (int i = 0; i < 2; i++) {
        free(got[i]);
        free(mine[i]);
    }
}

/* ---- compile latency and per-run overhead ----------------------------------- */

static acc_context *new_context(const bench *b, const char *cache_dir)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.num_threads = b->threads;
    o.cache_dir = cache_dir;
    o.plugins = "none"; /* accel's own code; plugin rows load theirs */
    acc_context *ctx = NULL;
    if (acc_context_create(&o, &ctx) != ACC_OK) {
        fprintf(stderr, "accel_bench: %s\n", acc_last_error());
        exit(1);
    }
    return ctx;
}

static double compile_ms(acc_context *ctx, const char *entry)
{
    acc_program *p = NULL;
    double s = bench_now_ms();
    if (acc_compile_text(ctx, bench_programs, (size_t)-1, entry, &p) != ACC_OK) {
        fprintf(stderr, "accel_bench: %s\n", acc_last_error());
        exit(1);
    }
    double t = bench_now_ms() - s;
    acc_program_free(p);
    return t;
}

static void bench_compile_latency(bench *b, const char *entry)
{
    char dir[] = "/tmp/accel-bench-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("accel_bench: mkdtemp");
        return;
    }
    acc_context *cold = new_context(b, dir);
    double t_cold = compile_ms(cold, entry);
    double t_hot = compile_ms(cold, entry);
    acc_context *warm = new_context(b, dir);
    double t_warm = compile_ms(warm, entry);
    acc_context_destroy(cold);
    acc_context_destroy(warm);
    char cmd[sizeof dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "accel_bench: could not remove %s\n", dir);
    printf("%-22s cold %9.3f ms   warm (disk) %9.3f ms   hot (memory) %9.3f ms\n",
           entry, t_cold, t_warm, t_hot);
    fprintf(b->csv, "compile %s,cold,%.6f,warm,%.6f,hot,%.6f\n", entry,
            t_cold, t_warm, t_hot);
}

static void bench_overhead(bench *b)
{
    acc_program *p = bench_compile(b, "dotp");
    float x = 2, y = 3, got = 0;
    acc_array in[2] = {vec(ACC_F32, 1, &x), vec(ACC_F32, 1, &y)};
    enum { N = 2000 };
    static double t[N];
    for (int r = 0; r < N; r++) {
        acc_array out = scalar(ACC_F32, &got);
        double s = bench_now_ms();
        bench_run(b, p, 2, in, 1, &out);
        t[r] = bench_now_ms() - s;
    }
    double us = bench_median(t, N) * 1000;
    printf("%-22s %.2f us per run of a 1-element dot product (median of %d)\n",
           "per-run overhead", us, N);
    fprintf(b->csv, "per-run overhead,1 element,%.6f,us,,,\n", us);
    acc_program_free(p);
}

/* ---- main ---------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    bench b = {0};
    b.tool = "accel_bench";
    const char *csv_path = argc > 1 ? argv[1] : "bench-results.csv";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    b.threads = bench_env_int("ACC_NUM_THREADS", cores > 0 ? (int)cores : 1);
    b.runs = bench_env_int("ACC_BENCH_RUNS", 10);
    b.runs = b.runs > 64 ? 64 : b.runs;
    b.ctx = new_context(&b, NULL);
    acc_backend backend;
    acc_context_backend(b.ctx, &backend);
    const char *scale = getenv("ACC_BENCH_SCALE");
    b.scale = scale ? atof(scale) : backend == ACC_BACKEND_INTERP ? 0.01 : 1;
    if (!(b.scale > 0))
        b.scale = 1;
    if (!(b.csv = fopen(csv_path, "w"))) {
        perror(csv_path);
        return 1;
    }
    printf("accel %s, backend %s, %d threads, median of %d runs, scale %g\n",
           acc_version_string(), acc_backend_name(backend), b.threads, b.runs,
           b.scale);
    if (backend == ACC_BACKEND_INTERP)
        printf("note: only the reference interpreter is available; it is the "
               "executable specification, not a fast backend, so sizes are "
               "scaled by %g\n", b.scale);
    bench_headings(&b);
    if (bench_selected("dotp"))
        bench_dotp(&b);
    if (bench_selected("dotp-small")) {
        int threads = b.threads;
        b.threads = 1;
        acc_context *one = new_context(&b, NULL);
        b.threads = threads;
        for (int64_t n = 10000; n <= 1000000; n *= 10)
            bench_dotp_small(&b, n, one);
        bench_dotp_small(&b, 300000, one);
        acc_context_destroy(one);
    }
    if (bench_selected("blackscholes"))
        bench_blackscholes(&b);
    if (bench_selected("mandelbrot"))
        bench_mandelbrot(&b);
    if (bench_selected("smvm"))
        bench_smvm(&b);
    if (bench_selected("blur"))
        bench_blur(&b);
    if (bench_selected("histogram")) {
        bench_histogram(&b, 256);
        bench_histogram(&b, 1 << 20);
    }
    if (bench_selected("sieve"))
        bench_sieve(&b);
    /* issue 22's loop rows (bench/loop_bench.c) */
    if (bench_selected("mandelbrot16"))
        loop_bench_mandelbrot(&b);
    if (bench_selected("transpose"))
        loop_bench_transpose(&b);
    if (bench_selected("scan"))
        loop_bench_scan(&b);
    if (bench_selected("blackscholes512"))
        loop_bench_blackscholes(&b);
    if (bench_selected("foreign"))
        bench_foreign(&b);
    if (bench_selected("vendor")) {
        bench_vendor_gemm(&b);
        bench_vendor_fft(&b);
    }
    if (bench_selected("compile")) {
        bench_compile_latency(&b, "dotp");
        bench_compile_latency(&b, "blackscholes");
    }
    if (bench_selected("overhead"))
        bench_overhead(&b);
    fclose(b.csv);
    acc_context_destroy(b.ctx);
    printf("results written to %s\n", csv_path);
    if (b.failures)
        fprintf(stderr, "accel_bench: %d result(s) disagree with their "
                        "baseline\n", b.failures);
    return b.failures ? 1 : 0;
}
