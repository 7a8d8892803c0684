/*
 * accel_bench.c — `make bench`: each benchmark runs accel and its
 * hand-written baselines in the same process, on the same data, with the
 * same number of threads, and reports the median of repeated runs side by
 * side (a table on stdout, a CSV file).  Results are checked against each
 * other; a mismatch is reported, never hidden.  Nothing here asserts a
 * speed.  This file is the driver (which groups run, in which order) and
 * the library's own costs (compile latency, per-run overhead); the rows
 * are in kernel_bench.c, permute_bench.c, loop_bench.c and vendor_bench.c,
 * the memory-bandwidth line in bandwidth.c (bench/README.md).
 *
 * Usage: accel_bench [CSV-PATH]
 * Environment: ACC_BENCH_RUNS (default 10), ACC_BENCH_SCALE (problem-size
 * factor; default 1, or 0.01 when only the reference interpreter is
 * available), ACC_NUM_THREADS (default: the number of cores),
 * ACC_BENCH_ONLY (the groups to run).
 */
#define _POSIX_C_SOURCE 200809L
#include "accel.h"
#include "bench/bandwidth.h"
#include "bench/bench_common.h"
#include "bench/kernel_bench.h"
#include "bench/loop_bench.h"
#include "bench/permute_bench.h"
#include "bench/vendor_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- compile latency and per-run overhead ----------------------------------- */

static double compile_ms(const bench *b, acc_context *ctx, const char *entry)
{
    double s = bench_now_ms();
    acc_program *p = bench_compile_in(b, ctx, entry);
    double t = bench_now_ms() - s;
    acc_program_free(p);
    return t;
}

static void compile_latency(bench *b, const char *entry)
{
    char dir[] = "/tmp/accel-bench-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("accel_bench: mkdtemp");
        return;
    }
    acc_context *cold = bench_context(b, dir);
    double t_cold = compile_ms(b, cold, entry);
    double t_hot = compile_ms(b, cold, entry);
    acc_context *warm = bench_context(b, dir);
    double t_warm = compile_ms(b, warm, entry);
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

static void overhead(bench *b)
{
    acc_program *p = bench_compile(b, "dotp");
    float x = 2, y = 3, got = 0;
    acc_array in[2] = {bench_vector(ACC_F32, 1, &x), bench_vector(ACC_F32, 1, &y)};
    enum { N = 2000 };
    static double t[N];
    for (int r = 0; r < N; r++) {
        acc_array out = bench_scalar(ACC_F32, &got);
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
    b.ctx = bench_context(&b, NULL);
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
    bench_source(); /* read once, before anything is timed */
    bench_headings(&b);
    bench_bandwidth(&b); /* the first row: what memory-bound rows are
                          * measured against */
    if (bench_selected("dotp"))
        kernel_bench_dotp(&b);
    if (bench_selected("dotp-small"))
        kernel_bench_dotp_small(&b);
    if (bench_selected("blackscholes"))
        kernel_bench_blackscholes(&b);
    if (bench_selected("mandelbrot"))
        kernel_bench_mandelbrot(&b);
    if (bench_selected("smvm"))
        kernel_bench_smvm(&b);
    if (bench_selected("blur"))
        kernel_bench_blur(&b);
    /* issue 22's rows: permutes (bench/permute_bench.c), loops
     * (bench/loop_bench.c), vendor calls (bench/vendor_bench.c) */
    if (bench_selected("histogram"))
        permute_bench_histogram(&b);
    if (bench_selected("sieve"))
        permute_bench_sieve(&b);
    if (bench_selected("mandelbrot16"))
        loop_bench_mandelbrot(&b);
    if (bench_selected("transpose"))
        loop_bench_transpose(&b);
    if (bench_selected("scan"))
        loop_bench_scan(&b);
    if (bench_selected("blackscholes512"))
        loop_bench_blackscholes(&b);
    if (bench_selected("foreign"))
        vendor_bench_foreign(&b);
    if (bench_selected("vendor"))
        vendor_bench_vendor(&b);
    if (bench_selected("compile")) {
        compile_latency(&b, "dotp");
        compile_latency(&b, "blackscholes");
    }
    if (bench_selected("overhead"))
        overhead(&b);
    fclose(b.csv);
    acc_context_destroy(b.ctx);
    printf("results written to %s\n", csv_path);
    if (b.failures)
        fprintf(stderr, "accel_bench: %d result(s) disagree with their "
                        "baseline\n", b.failures);
    return b.failures ? 1 : 0;
}
