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

/* ---- histogram (permute) ----------------------------------------------------- */

static void bench_histogram(bench *b, int64_t k)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    int32_t *xs = bench_alloc(b, (size_t)n * 4);
    int32_t *mine = bench_alloc(b, (size_t)k * 4);
    int32_t *got = output_buffer(b, (size_t)k * 4);
    uint64_t seed = 987654321;
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        xs[i] = (int32_t)((seed >> 33) % (uint64_t)k);
    }
    acc_program *p = bench_compile(b, "histogram");
    acc_array in[2] = {scalar(ACC_I64, &k), vec(ACC_I32, n, xs)};
    double t[64], tb[64];
    acc_array out = vec(ACC_I32, k, got);
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        bench_run(b, p, 2, in, 1, &out);
        t[r] = bench_now_ms() - s;
    }
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        bl_histogram(b->threads, n, xs, k, mine);
        tb[r] = bench_now_ms() - s;
    }
    int agree = memcmp(got, mine, (size_t)k * 4) == 0;
    char size[48];
    snprintf(size, sizeof size, "%lld i32, %lld bins", (long long)n,
             (long long)k);
    bench_report(b, "histogram", size, bench_median(t, b->runs),
                 "C atomics (threads)", bench_median(tb, b->runs), agree);
    acc_program_free(p);
    free(xs);
    free(mine);
    free(got);
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
