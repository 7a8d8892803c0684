/*
 * loop_bench.c — issue 22's loop benchmarks (see loop_bench.h): accel and
 * its baselines run interleaved (accel, then each baseline, per round), so
 * that a change in the machine's load while they run reaches all alike.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/loop_bench.h"

#include "bench/baselines.h"
#include "bench/loop_baselines.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char loop_programs[] =
    "transpose (xs : Matrix f32) : Matrix f32 =\n"
    "  let [h, w] = shape xs in backpermute [w, h] (\\[i, j] -> [j, i]) xs\n"
    "\n"
    "scan (xs : Vector f32) : Vector f32 = scanl1 (+) xs\n";

static acc_program *compile_loop(const bench *b, const char *entry)
{
    acc_program *p = NULL;
    if (acc_compile_text(b->ctx, loop_programs, (size_t)-1, entry, &p) !=
        ACC_OK) {
        fprintf(stderr, "%s: cannot compile %s: %s\n", b->tool, entry,
                acc_last_error());
        exit(1);
    }
    return p;
}

static acc_array array_of(acc_scalar s, int rank, const int64_t *ext,
                          void *data)
{
    acc_array a;
    acc_array_init(&a, acc_type_scalar(s), rank, ext);
    a.data[0] = data;
    return a;
}

static void *touched(const bench *b, size_t bytes)
{
    void *p = bench_alloc(b, bytes);
    memset(p, 0, bytes);
    return p;
}

/* ---- Mandelbrot against 16 pixels in lockstep ------------------------------ */

void loop_bench_mandelbrot(bench *b)
{
    double side = sqrt(b->scale);
    int64_t w = (int64_t)(1920 * side), h = (int64_t)(1080 * side);
    int32_t limit = 255;
    w = w < 1 ? 1 : w;
    h = h < 1 ? 1 : h;
    int32_t *mine = touched(b, (size_t)(w * h) * 4);
    int32_t *got = touched(b, (size_t)(w * h) * 4);
    acc_program *p = bench_compile(b, "mandelbrot");
    acc_array in[3] = {array_of(ACC_I64, 0, NULL, &w),
                       array_of(ACC_I64, 0, NULL, &h),
                       array_of(ACC_I32, 0, NULL, &limit)};
    acc_array out = array_of(ACC_I32, 2, (int64_t[]){h, w}, got);
    double t[64], tb[64];
    int have = 1;
    for (int r = 0; r < b->runs && have; r++) {
        double start = bench_now_ms();
        bench_run(b, p, 3, in, 1, &out);
        t[r] = bench_now_ms() - start;
        start = bench_now_ms();
        have = bl_mandelbrot_lockstep(b->threads, w, h, limit, mine);
        tb[r] = bench_now_ms() - start;
    }
    char size[64];
    snprintf(size, sizeof size, "%lldx%lld/255", (long long)w, (long long)h);
    if (have) {
        int64_t differ = 0;
        for (int64_t k = 0; k < w * h; k++)
            differ += got[k] != mine[k];
        bench_report(b, "mandelbrot", size, bench_median(t, b->runs),
                     "C AVX-512, 16 lanes", bench_median(tb, b->runs),
                     differ == 0);
    } else {
        printf("%-22s %-16s (no AVX-512 baseline: the compiler targets no "
               "AVX-512)\n", "mandelbrot", size);
    }
    acc_program_free(p);
    free(got);
    free(mine);
}

/* ---- transpose (backpermute) against tiled C ------------------------------ */

void loop_bench_transpose(bench *b)
{
    int64_t n = (int64_t)(4096 * sqrt(b->scale));
    n = n < 1 ? 1 : n;
    size_t bytes = (size_t)(n * n) * 4;
    float *x = bench_alloc(b, bytes), *mine = touched(b, bytes);
    float *got = touched(b, bytes);
    for (int64_t i = 0; i < n * n; i++)
        x[i] = (float)(i % 1000003);
    acc_program *p = compile_loop(b, "transpose");
    acc_array in = array_of(ACC_F32, 2, (int64_t[]){n, n}, x);
    acc_array out = array_of(ACC_F32, 2, (int64_t[]){n, n}, got);
    double t[64], tb[64], tm[64];
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bench_run(b, p, 1, &in, 1, &out);
        t[r] = bench_now_ms() - start;
        start = bench_now_ms();
        bl_transpose(b->threads, n, n, x, mine);
        tb[r] = bench_now_ms() - start;
        start = bench_now_ms();
        memcpy(mine, x, bytes);
        tm[r] = bench_now_ms() - start;
    }
    bl_transpose(b->threads, n, n, x, mine);
    char size[64];
    snprintf(size, sizeof size, "%lldx%lld f32", (long long)n, (long long)n);
    double ta = bench_median(t, b->runs);
    bench_report(b, "transpose", size, ta, "C, 32x32 tiles",
                 bench_median(tb, b->runs), memcmp(got, mine, bytes) == 0);
    bench_report(b, "transpose", size, ta, "memcpy (1 thread)",
                 bench_median(tm, b->runs), 1);
    acc_program_free(p);
    free(x);
    free(mine);
    free(got);
}

/* ---- scanl1 (+) f32 against the two-pass parallel scan ------------------------ */

/* Every output within the reassociation bound of docs/TESTING.md
 * ("Tolerance"): 2 k u S, S the sum of the magnitudes of its k terms. */
static int scans_agree(const float *x, const float *a, const float *c,
                       int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
        s += fabs((double)x[i]);
        double bound = 2.0 * (double)(i + 1) * 0x1p-24 * s + 0x1p-149;
        if (!(fabs((double)a[i] - (double)c[i]) <= bound))
            return 0;
    }
    return 1;
}

void loop_bench_scan(bench *b)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    n = n < 1 ? 1 : n;
    float *x = bench_alloc(b, (size_t)n * 4), *mine = touched(b, (size_t)n * 4);
    float *got = touched(b, (size_t)n * 4);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 7919) % 2001 - 1000) / 1000.0f;
    acc_program *p = compile_loop(b, "scan");
    acc_array in = array_of(ACC_F32, 1, &n, x);
    acc_array out = array_of(ACC_F32, 1, &n, got);
    double t[64], tb[64];
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bench_run(b, p, 1, &in, 1, &out);
        t[r] = bench_now_ms() - start;
        start = bench_now_ms();
        bl_scan(b->threads, n, x, mine);
        tb[r] = bench_now_ms() - start;
    }
    char size[64];
    snprintf(size, sizeof size, "%lld f32", (long long)n);
    bench_report(b, "scanl1 (+)", size, bench_median(t, b->runs),
                 "C two-pass (threads)", bench_median(tb, b->runs),
                 scans_agree(x, got, mine, n));
    acc_program_free(p);
    free(x);
    free(mine);
    free(got);
}

/* ---- Black-Scholes against 512-bit C ----------------------------------------- */

void loop_bench_blackscholes(bench *b)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    n = n < 1 ? 1 : n;
    size_t bytes = (size_t)n * 4;
    float *price = bench_alloc(b, bytes), *strike = bench_alloc(b, bytes);
    float *years = bench_alloc(b, bytes);
    float *call = touched(b, bytes), *put = touched(b, bytes);
    float *acall = touched(b, bytes), *aput = touched(b, bytes);
    for (int64_t i = 0; i < n; i++) {
        price[i] = 5.0f + (float)(i % 100) * 0.3f;
        strike[i] = 1.0f + (float)(i % 17) * 0.9f;
        years[i] = 0.25f + (float)(i % 9) * 0.5f;
    }
    acc_program *p = bench_compile(b, "blackscholes");
    const acc_type *elem = NULL, *oelem = NULL;
    acc_program_input(p, 0, &elem, NULL);
    acc_program_output(p, 0, &oelem, NULL);
    acc_array in, out;
    acc_array_init(&in, elem, 1, &n);
    in.data[0] = price;
    in.data[1] = strike;
    in.data[2] = years;
    acc_array_init(&out, oelem, 1, &n);
    out.data[0] = acall;
    out.data[1] = aput;
    double t[64], tb[64], tw[64];
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bench_run(b, p, 1, &in, 1, &out);
        t[r] = bench_now_ms() - start;
        start = bench_now_ms();
        bl_blackscholes(b->threads, n, price, strike, years, call, put);
        tb[r] = bench_now_ms() - start;
        start = bench_now_ms();
        bl_blackscholes_wide(b->threads, n, price, strike, years, call, put);
        tw[r] = bench_now_ms() - start;
    }
    int agree = 1;
    for (int64_t i = 0; i < n; i += 1 + n / 1000)
        agree &= fabsf(acall[i] - call[i]) <= 1e-3f * (1 + fabsf(call[i])) &&
                 fabsf(aput[i] - put[i]) <= 1e-3f * (1 + fabsf(put[i]));
    char size[64];
    snprintf(size, sizeof size, "%lld options", (long long)n);
    double ta = bench_median(t, b->runs);
    bench_report(b, "blackscholes", size, ta, "C + libmvec, 256-bit",
                 bench_median(tb, b->runs), agree);
    bench_report(b, "blackscholes", size, ta, "C + libmvec, 512-bit",
                 bench_median(tw, b->runs), agree);
    acc_program_free(p);
    free(price);
    free(strike);
    free(years);
    free(call);
    free(put);
    free(acall);
    free(aput);
}
