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

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the programs, as LANGUAGE.md §4 writes them -------------------------- */

static const char programs[] =
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n"
    "\n"
    "smvm (segd : Vector i64) (inds : Vector i64) (vals : Vector f32) "
    "(vec : Vector f32) : Vector f32 =\n"
    "  let vecVals = backpermute (shape inds) (\\i -> [inds ! i]) vec;\n"
    "      products = zipWith (*) vecVals vals\n"
    "  in foldSeg (+) 0 products segd\n"
    "\n"
    "cnd d =\n"
    "  let k = 1.0 / (1.0 + 0.2316419 * abs d);\n"
    "      poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + "
    "k * (-1.821255978 + k * 1.330274429))));\n"
    "      c = 0.3989422804014327 * exp (-0.5 * d * d) * poly\n"
    "  in if d > 0 then 1.0 - c else c\n"
    "\n"
    "blackscholes (opts : Vector (f32, f32, f32)) : Vector (f32, f32) =\n"
    "  map (\\(price, strike, years) ->\n"
    "         let r = 0.02; v = 0.30;\n"
    "             v_sqrtT = v * sqrt years;\n"
    "             d1 = (log (price / strike) + (r + 0.5 * v * v) * years) / "
    "v_sqrtT;\n"
    "             d2 = d1 - v_sqrtT;\n"
    "             cndD1 = cnd d1; cndD2 = cnd d2;\n"
    "             x_expRT = strike * exp (-r * years)\n"
    "         in (price * cndD1 - x_expRT * cndD2, x_expRT * (1.0 - cndD2) - "
    "price * (1.0 - cndD1)))\n"
    "      opts\n"
    "\n"
    "mandelbrot (width : i64) (height : i64) (limit : i32) : Matrix i32 =\n"
    "  generate [height, width] (\\[y, x] ->\n"
    "    let cx = -2.0 + 3.0 * f32 x / f32 width;\n"
    "        cy = -1.2 + 2.4 * f32 y / f32 height;\n"
    "        (zx, zy, n) = while (\\(zx, zy, n) -> n < limit && zx*zx + zy*zy "
    "< 4.0)\n"
    "                            (\\(zx, zy, n) -> (zx*zx - zy*zy + cx, "
    "2.0*zx*zy + cy, n + 1))\n"
    "                            (0.0, 0.0, 0)\n"
    "    in n)\n"
    "\n"
    "fft2 (xs : Matrix (f32, f32)) : Matrix (f32, f32) = fft xs\n"
    "\n"
    "highpass (cut : i64) (xs : Matrix (f32, f32)) : Matrix (f32, f32) =\n"
    "  let f = fft xs;\n"
    "      g = generate (shape f) (\\[i, j] ->\n"
    "            let [h, w] = shape f;\n"
    "                di = min i (h - i);\n"
    "                dj = min j (w - j)\n"
    "            in if di < cut && dj < cut then (0.0, 0.0) else f ! [i, j])\n"
    "  in ifft g\n"
    "\n"
    "matmul (a : Matrix f32) (b : Matrix f32) : Matrix f32 = gemm a b\n"
    "\n"
    "histogram (k : i64) (xs : Vector i32) : Vector i32 =\n"
    "  permute (+) (fill [k] 0) (\\[i] -> [i64 (xs ! [i])]) "
    "(map (\\_ -> 1) xs)\n";

/* ---- timing and reporting ------------------------------------------------- */

typedef struct bench {
    acc_context *ctx;
    int threads, runs;
    double scale;
    FILE *csv;
    int failures;
} bench;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, by_value);
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

/* A row of the table and the CSV: accel against one baseline. */
static void report(bench *b, const char *name, const char *size,
                   double accel_ms, const char *baseline, double base_ms,
                   int agree)
{
    double ratio = accel_ms > 0 ? base_ms / accel_ms : 0;
    printf("%-22s %-16s %12.3f %-20s %12.3f %8.2fx  %s\n", name, size,
           accel_ms, baseline, base_ms, ratio, agree ? "ok" : "MISMATCH");
    fprintf(b->csv, "%s,%s,%.6f,%s,%.6f,%.4f,%s\n", name, size, accel_ms,
            baseline, base_ms, ratio, agree ? "ok" : "mismatch");
    b->failures += !agree;
}

static acc_program *compile_entry(bench *b, const char *entry)
{
    acc_program *p = NULL;
    if (acc_compile_text(b->ctx, programs, (size_t)-1, entry, &p) != ACC_OK) {
        fprintf(stderr, "accel_bench: cannot compile %s: %s\n", entry,
                acc_last_error());
        exit(1);
    }
    return p;
}

static void run_or_die(acc_program *p, size_t n_in, const acc_array *in,
                       size_t n_out, acc_array *out)
{
    if (acc_run(p, n_in, in, n_out, out) != ACC_OK) {
        fprintf(stderr, "accel_bench: run failed: %s\n", acc_last_error());
        exit(1);
    }
}

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

static void *alloc_or_die(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "accel_bench: out of memory\n");
        exit(1);
    }
    return p;
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
    float *x = alloc_or_die((size_t)n * sizeof *x);
    float *y = alloc_or_die((size_t)n * sizeof *y);
    double magnitude = 0; /* sum |x y|: what rounding error scales with */
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.001f;
        y[i] = (float)(i % 7) - 3.0f;
        magnitude += fabs((double)x[i] * y[i]);
    }
    /* two f32 sums in different orders may differ by a few units of
     * rounding of the magnitude, whatever the result's size */
    float tolerance = (float)(1e-5 * magnitude) + 1e-6f;
    acc_program *p = compile_entry(b, "dotp");
    acc_array in[2] = {vec(ACC_F32, n, x), vec(ACC_F32, n, y)};
    double t[64], tb[64];
    float got = 0, want = 0;
    for (int r = 0; r < b->runs; r++) {
        acc_array out = scalar(ACC_F32, &got);
        double start = now_ms();
        run_or_die(p, 2, in, 1, &out);
        t[r] = now_ms() - start;
    }
    for (int r = 0; r < b->runs; r++) {
        double start = now_ms();
        want = bl_sdot(b->threads, n, x, y);
        tb[r] = now_ms() - start;
    }
    char size[32];
    snprintf(size, sizeof size, "%lld f32", (long long)n);
    double accel = median(t, b->runs);
    int agree = fabsf(got - want) <= tolerance;
    report(b, "dotp", size, accel, "C loop (threads)", median(tb, b->runs),
           agree);
    sdot_fn sdot = n <= 2147483647 ? find_cblas_sdot() : NULL;
    if (sdot) {
        for (int r = 0; r < b->runs; r++) {
            double start = now_ms();
            want = sdot((int)n, x, 1, y, 1);
            tb[r] = now_ms() - start;
        }
        agree = fabsf(got - want) <= tolerance;
        report(b, "dotp", size, accel, "OpenBLAS cblas_sdot",
               median(tb, b->runs), agree);
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
    float *price = alloc_or_die((size_t)n * 4), *strike = alloc_or_die((size_t)n * 4);
    float *years = alloc_or_die((size_t)n * 4), *call = alloc_or_die((size_t)n * 4);
    float *put = alloc_or_die((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) {
        price[i] = 5.0f + (float)(i % 100) * 0.3f;
        strike[i] = 1.0f + (float)(i % 17) * 0.9f;
        years[i] = 0.25f + (float)(i % 9) * 0.5f;
    }
    acc_program *p = compile_entry(b, "blackscholes");
    const acc_type *elem = NULL;
    acc_program_input(p, 0, &elem, NULL);
    acc_array in;
    acc_array_init(&in, elem, 1, &n);
    in.data[0] = price;
    in.data[1] = strike;
    in.data[2] = years;
    double t[64], tb[64];
    acc_array out;
    for (int r = 0; r < b->runs; r++) {
        memset(&out, 0, sizeof out);
        double start = now_ms();
        run_or_die(p, 1, &in, 1, &out);
        t[r] = now_ms() - start;
        if (r + 1 < b->runs)
            acc_array_release(&out);
    }
    for (int r = 0; r < b->runs; r++) {
        double start = now_ms();
        bl_blackscholes(b->threads, n, price, strike, years, call, put);
        tb[r] = now_ms() - start;
    }
    int agree = 1;
    for (int64_t i = 0; i < n; i += 1 + n / 1000) {
        float c = ((float *)out.data[0])[i], q = ((float *)out.data[1])[i];
        agree &= fabsf(c - call[i]) <= 1e-3f * (1 + fabsf(call[i])) &&
                 fabsf(q - put[i]) <= 1e-3f * (1 + fabsf(put[i]));
    }
    acc_array_release(&out);
    char size[32];
    snprintf(size, sizeof size, "%lld options", (long long)n);
    report(b, "blackscholes", size, median(t, b->runs),
           "C + libmvec (threads)", median(tb, b->runs), agree);
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
    int32_t *mine = alloc_or_die((size_t)(w * h) * 4);
    acc_program *p = compile_entry(b, "mandelbrot");
    acc_array in[3] = {scalar(ACC_I64, &w), scalar(ACC_I64, &h),
                       scalar(ACC_I32, &limit)};
    double t[64], tb[64];
    acc_array out;
    for (int r = 0; r < b->runs; r++) {
        memset(&out, 0, sizeof out);
        double start = now_ms();
        run_or_die(p, 3, in, 1, &out);
        t[r] = now_ms() - start;
        if (r + 1 < b->runs)
            acc_array_release(&out);
    }
    for (int r = 0; r < b->runs; r++) {
        double start = now_ms();
        bl_mandelbrot(b->threads, w, h, limit, mine);
        tb[r] = now_ms() - start;
    }
    int64_t differ = 0;
    for (int64_t k = 0; k < w * h; k++)
        differ += ((int32_t *)out.data[0])[k] != mine[k];
    acc_array_release(&out);
    char size[32];
    snprintf(size, sizeof size, "%lldx%lld/255", (long long)w, (long long)h);
    report(b, "mandelbrot", size, median(t, b->runs), "C loop (threads)",
           median(tb, b->runs), differ == 0);
    acc_program_free(p);
    free(mine);
}

/* ---- SMVM -------------------------------------------------------------------- */

static void bench_smvm(bench *b)
{
    int64_t per_row = 8, nnz = (int64_t)(4e6 * b->scale);
    int64_t rows = nnz / per_row, cols = rows;
    nnz = rows * per_row;
    int64_t *segd = alloc_or_die((size_t)rows * 8);
    int64_t *start = alloc_or_die((size_t)(rows + 1) * 8);
    int64_t *inds = alloc_or_die((size_t)nnz * 8);
    float *vals = alloc_or_die((size_t)nnz * 4), *v = alloc_or_die((size_t)cols * 4);
    float *mine = alloc_or_die((size_t)rows * 4);
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
    acc_program *p = compile_entry(b, "smvm");
    acc_array in[4] = {vec(ACC_I64, rows, segd), vec(ACC_I64, nnz, inds),
                       vec(ACC_F32, nnz, vals), vec(ACC_F32, cols, v)};
    double t[64], tb[64];
    acc_array out;
    for (int r = 0; r < b->runs; r++) {
        memset(&out, 0, sizeof out);
        double s = now_ms();
        run_or_die(p, 4, in, 1, &out);
        t[r] = now_ms() - s;
        if (r + 1 < b->runs)
            acc_array_release(&out);
    }
    for (int r = 0; r < b->runs; r++) {
        double s = now_ms();
        bl_smvm(b->threads, rows, start, inds, vals, v, mine);
        tb[r] = now_ms() - s;
    }
    int agree = 1;
    for (int64_t r = 0; r < rows; r++)
        agree &= fabsf(((float *)out.data[0])[r] - mine[r]) <= 1e-4f * (1 + fabsf(mine[r]));
    acc_array_release(&out);
    char size[32];
    snprintf(size, sizeof size, "%lld nnz", (long long)nnz);
    report(b, "smvm", size, median(t, b->runs), "C loop (threads)",
           median(tb, b->runs), agree);
    acc_program_free(p);
    free(segd);
    free(start);
    free(inds);
    free(vals);
    free(v);
    free(mine);
}

/* ---- histogram (permute) ----------------------------------------------------- */

static void bench_histogram(bench *b, int64_t k)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    int32_t *xs = alloc_or_die((size_t)n * 4);
    int32_t *mine = alloc_or_die((size_t)k * 4);
    uint64_t seed = 987654321;
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        xs[i] = (int32_t)((seed >> 33) % (uint64_t)k);
    }
    acc_program *p = compile_entry(b, "histogram");
    acc_array in[2] = {scalar(ACC_I64, &k), vec(ACC_I32, n, xs)};
    double t[64], tb[64];
    acc_array out;
    for (int r = 0; r < b->runs; r++) {
        memset(&out, 0, sizeof out);
        double s = now_ms();
        run_or_die(p, 2, in, 1, &out);
        t[r] = now_ms() - s;
        if (r + 1 < b->runs)
            acc_array_release(&out);
    }
    for (int r = 0; r < b->runs; r++) {
        double s = now_ms();
        bl_histogram(b->threads, n, xs, k, mine);
        tb[r] = now_ms() - s;
    }
    int agree = memcmp(out.data[0], mine, (size_t)k * 4) == 0;
    acc_array_release(&out);
    char size[48];
    snprintf(size, sizeof size, "%lld i32, %lld bins", (long long)n,
             (long long)k);
    report(b, "histogram", size, median(t, b->runs), "C atomics (threads)",
           median(tb, b->runs), agree);
    acc_program_free(p);
    free(xs);
    free(mine);
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
    if (acc_compile_text(ctx, programs, (size_t)-1, entry, &p) != ACC_OK) {
        fprintf(stderr, "accel_bench: cannot compile %s: %s\n", entry,
                acc_last_error());
        exit(1);
    }
    double t[64];
    for (int r = 0; r < b->runs; r++) {
        memset(out, 0, sizeof *out);
        double s = now_ms();
        run_or_die(p, n_in, in, 1, out);
        t[r] = now_ms() - s;
        if (r + 1 < b->runs)
            acc_array_release(out);
    }
    acc_program_free(p);
    return median(t, b->runs);
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
    report(b, label, size, t_plugin, "pure fallback", t_pure,
           close_enough(&pure, &fast, 1e-3f));
    acc_array_release(&fast);
    acc_array_release(&pure);
    acc_context_destroy(with);
}

static void bench_foreign(bench *b)
{
    int64_t side = 512, ext[2] = {side, side};
    size_t n = (size_t)(side * side);
    float *re = alloc_or_die(n * 4), *im = alloc_or_die(n * 4);
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
    float *a = alloc_or_die((size_t)(m * m) * 4), *c = alloc_or_die((size_t)(m * m) * 4);
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
    double s = now_ms();
    if (acc_compile_text(ctx, programs, (size_t)-1, entry, &p) != ACC_OK) {
        fprintf(stderr, "accel_bench: %s\n", acc_last_error());
        exit(1);
    }
    double t = now_ms() - s;
    acc_program_free(p);
    return t;
}

static void bench_compile(bench *b, const char *entry)
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
    acc_program *p = compile_entry(b, "dotp");
    float x = 2, y = 3, got = 0;
    acc_array in[2] = {vec(ACC_F32, 1, &x), vec(ACC_F32, 1, &y)};
    enum { N = 2000 };
    static double t[N];
    for (int r = 0; r < N; r++) {
        acc_array out = scalar(ACC_F32, &got);
        double s = now_ms();
        run_or_die(p, 2, in, 1, &out);
        t[r] = now_ms() - s;
    }
    double us = median(t, N) * 1000;
    printf("%-22s %.2f us per run of a 1-element dot product (median of %d)\n",
           "per-run overhead", us, N);
    fprintf(b->csv, "per-run overhead,1 element,%.6f,us,,,\n", us);
    acc_program_free(p);
}

/* ---- main ---------------------------------------------------------------------- */

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && atoi(v) > 0 ? atoi(v) : fallback;
}

int main(int argc, char **argv)
{
    bench b = {0};
    const char *csv_path = argc > 1 ? argv[1] : "bench-results.csv";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    b.threads = env_int("ACC_NUM_THREADS", cores > 0 ? (int)cores : 1);
    b.runs = env_int("ACC_BENCH_RUNS", 10);
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
    fprintf(b.csv, "benchmark,size,accel_ms,baseline,baseline_ms,"
                   "baseline_over_accel,check\n");
    printf("accel %s, backend %s, %d threads, median of %d runs, scale %g\n",
           acc_version_string(), acc_backend_name(backend), b.threads, b.runs,
           b.scale);
    if (backend == ACC_BACKEND_INTERP)
        printf("note: only the reference interpreter is available; it is the "
               "executable specification, not a fast backend, so sizes are "
               "scaled by %g\n", b.scale);
    printf("%-22s %-16s %12s %-20s %12s %9s\n", "benchmark", "size",
           "accel ms", "baseline", "baseline ms", "accel/base");
    printf("(accel/base = baseline time / accel time: 1.00x is equal speed, "
           "above 1 accel is faster)\n");
    bench_dotp(&b);
    bench_blackscholes(&b);
    bench_mandelbrot(&b);
    bench_smvm(&b);
    bench_histogram(&b, 256);
    bench_histogram(&b, 1 << 20);
    bench_foreign(&b);
    bench_compile(&b, "dotp");
    bench_compile(&b, "blackscholes");
    bench_overhead(&b);
    fclose(b.csv);
    acc_context_destroy(b.ctx);
    printf("results written to %s\n", csv_path);
    if (b.failures)
        fprintf(stderr, "accel_bench: %d result(s) disagree with their "
                        "baseline\n", b.failures);
    return b.failures ? 1 : 0;
}
