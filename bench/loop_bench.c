/*
 * loop_bench.c — issue 22's loop benchmarks (see loop_bench.h): accel and
 * its baselines run interleaved (accel, then each baseline, per round), so
 * that a change in the machine's load while they run reaches all alike.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/loop_bench.h"

#include "bench/baselines.h"
#include "bench/loop_baselines.h"
#include "bench/workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Mandelbrot against 16 pixels in lockstep ------------------------------ */

void loop_bench_mandelbrot(bench *b)
{
    wl_mandelbrot m;
    wl_mandelbrot_init(b, &m);
    double t[64], tb[64];
    int have = 1;
    for (int r = 0; r < b->runs && have; r++) {
        double start = bench_now_ms();
        bench_run(b, m.p, 3, m.in, 1, &m.out);
        t[r] = bench_now_ms() - start;
        start = bench_now_ms();
        have = bl_mandelbrot_lockstep(b->threads, m.w, m.h, m.limit, m.mine);
        tb[r] = bench_now_ms() - start;
    }
    if (have)
        bench_report(b, "mandelbrot", m.size, bench_median(t, b->runs),
                     "C AVX-512, 16 lanes", bench_median(tb, b->runs),
                     wl_mandelbrot_agree(&m));
    else
        printf("%-22s %-16s (no AVX-512 baseline: the compiler targets no "
               "AVX-512)\n", "mandelbrot", m.size);
    wl_mandelbrot_free(&m);
}

/* ---- transpose (backpermute) against tiled C ------------------------------ */

void loop_bench_transpose(bench *b)
{
    int64_t n = (int64_t)(4096 * sqrt(b->scale));
    n = n < 1 ? 1 : n;
    size_t bytes = (size_t)(n * n) * 4;
    float *x = bench_alloc(b, bytes), *mine = bench_touched(b, bytes);
    float *got = bench_touched(b, bytes);
    for (int64_t i = 0; i < n * n; i++)
        x[i] = (float)(i % 1000003);
    acc_program *p = bench_compile(b, "transpose");
    acc_array in = bench_array(ACC_F32, 2, (int64_t[]){n, n}, x);
    acc_array out = bench_array(ACC_F32, 2, (int64_t[]){n, n}, got);
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
    /* the matrix read once and its transpose written once */
    bench_report_mem(b, "transpose", size, ta, "C, 32x32 tiles",
                     bench_median(tb, b->runs), memcmp(got, mine, bytes) == 0,
                     2.0 * (double)bytes);
    bench_report_mem(b, "transpose", size, ta, "memcpy (1 thread)",
                     bench_median(tm, b->runs), 1, 2.0 * (double)bytes);
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
    float *x = bench_alloc(b, (size_t)n * 4), *mine = bench_touched(b, (size_t)n * 4);
    float *got = bench_touched(b, (size_t)n * 4);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 7919) % 2001 - 1000) / 1000.0f;
    acc_program *p = bench_compile(b, "scan");
    acc_array in = bench_array(ACC_F32, 1, &n, x);
    acc_array out = bench_array(ACC_F32, 1, &n, got);
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
    bench_report_mem(b, "scanl1 (+)", size, bench_median(t, b->runs),
                     "C two-pass (threads)", bench_median(tb, b->runs),
                     scans_agree(x, got, mine, n), 8.0 * (double)n);
    acc_program_free(p);
    free(x);
    free(mine);
    free(got);
}

/* ---- Black-Scholes against 512-bit C ----------------------------------------- */

void loop_bench_blackscholes(bench *b)
{
    wl_blackscholes w;
    wl_blackscholes_init(b, &w);
    double t[64], tb[64], tw[64];
    for (int r = 0; r < b->runs; r++) {
        double start = bench_now_ms();
        bench_run(b, w.p, 1, &w.in, 1, &w.out);
        t[r] = bench_now_ms() - start;
        start = bench_now_ms();
        bl_blackscholes(b->threads, w.n, w.price, w.strike, w.years, w.call,
                        w.put);
        tb[r] = bench_now_ms() - start;
        start = bench_now_ms();
        bl_blackscholes_wide(b->threads, w.n, w.price, w.strike, w.years,
                             w.call, w.put);
        tw[r] = bench_now_ms() - start;
    }
    int agree = wl_blackscholes_agree(&w);
    double ta = bench_median(t, b->runs);
    bench_report(b, "blackscholes", w.size, ta, "C + libmvec, 256-bit",
                 bench_median(tb, b->runs), agree);
    bench_report(b, "blackscholes", w.size, ta, "C + libmvec, 512-bit",
                 bench_median(tw, b->runs), agree);
    wl_blackscholes_free(&w);
}
