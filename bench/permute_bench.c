/*
 * permute_bench.c — issue 22's permute rows of `make bench`: the histogram
 * (`permute (+)`) into 256 and 2^20 bins against C atomics and C
 * per-thread tables, and the sieve (`permute'` over `expand`) fused and
 * unfused against C splitting the target range.  accel and its baselines
 * run interleaved (bench_interleaved).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/permute_bench.h"

#include "bench/baselines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- histogram (permute (+)) ------------------------------------------------ */

/* The histogram's keys and its baselines' tables, for their
 * bench_timed_fn. */
typedef struct hist_run {
    int threads;
    int64_t n, k;
    const int32_t *xs;
    int32_t *atomics, *tables;
} hist_run;

static void hist_atomics(void *c)
{
    hist_run *h = c;
    bl_histogram(h->threads, h->n, h->xs, h->k, h->atomics);
}

static void hist_tables(void *c)
{
    hist_run *h = c;
    bl_histogram_private(h->threads, h->n, h->xs, h->k, h->tables);
}

static void histogram_row(bench *b, int64_t k)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    int32_t *xs = bench_alloc(b, (size_t)n * 4);
    int32_t *got = bench_touched(b, (size_t)k * 4);
    hist_run h = {b->threads, n, k, xs, bench_touched(b, (size_t)k * 4),
                  bench_touched(b, (size_t)k * 4)};
    uint64_t seed = 987654321;
    for (int64_t i = 0; i < n; i++)
        xs[i] = (int32_t)((bench_lcg(&seed) >> 33) % (uint64_t)k);
    acc_array in[2] = {bench_scalar(ACC_I64, &k), bench_vector(ACC_I32, n, xs)};
    acc_array out = bench_vector(ACC_I32, k, got);
    bench_call run = {b, bench_compile(b, "histogram"), 2, in, &out};
    bench_timed_fn fn[3] = {bench_call_run, hist_atomics, hist_tables};
    void *ctx[3] = {&run, &h, &h};
    double med[3];
    bench_interleaved(b, 3, fn, ctx, med);
    char size[48];
    snprintf(size, sizeof size, "%lld i32, %lld bins", (long long)n,
             (long long)k);
    /* the keys read once, the table written once (it stays in the cache
     * when small: the keys are what streams) */
    double bytes = 4.0 * (double)n + 4.0 * (double)k;
    bench_report_mem(b, "histogram", size, med[0], "C atomics (threads)",
                     med[1], memcmp(got, h.atomics, (size_t)k * 4) == 0,
                     bytes);
    bench_report_mem(b, "histogram", size, med[0], "C per-thread tables",
                     med[2], memcmp(got, h.tables, (size_t)k * 4) == 0,
                     bytes);
    acc_program_free(run.p);
    free(xs);
    free(h.atomics);
    free(h.tables);
    free(got);
}

/* ---- sieve (permute' over expand) ------------------------------------------ */

/* The sieve's primes and the baseline's marks, for its bench_timed_fn. */
typedef struct sieve_run {
    int threads;
    const int64_t *ps;
    int64_t n_ps, n;
    int32_t *mine;
} sieve_run;

static void sieve_c(void *c)
{
    sieve_run *s = c;
    bl_sieve_marks(s->threads, s->ps, s->n_ps, s->n, s->mine);
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
void permute_bench_sieve(bench *b)
{
    int64_t n = (int64_t)(1e7 * b->scale), n_ps;
    if (n < 16)
        n = 16;
    int64_t *ps = small_primes(b, n, &n_ps);
    int32_t *got = bench_touched(b, (size_t)n * 4);
    int32_t *got_unfused = bench_touched(b, (size_t)n * 4);
    sieve_run s = {b->threads, ps, n_ps, n, bench_touched(b, (size_t)n * 4)};
    acc_array in[2] = {bench_vector(ACC_I64, n_ps, ps), bench_scalar(ACC_I64, &n)};
    acc_array out = bench_vector(ACC_I32, n, got);
    acc_array out_unfused = bench_vector(ACC_I32, n, got_unfused);
    bench_call fused = {b, bench_compile(b, "sieveMarks"), 2, in, &out};
    const char *was = getenv("ACC_DISABLE");
    char *saved = was ? strdup(was) : NULL;
    setenv("ACC_DISABLE", "fusion", 1);
    acc_context *plain = bench_context(b, NULL);
    bench_call unfused = {b, bench_compile_in(b, plain, "sieveMarks"), 2, in,
                          &out_unfused};
    if (saved)
        setenv("ACC_DISABLE", saved, 1);
    else
        unsetenv("ACC_DISABLE");
    free(saved);
    bench_timed_fn fn[3] = {bench_call_run, sieve_c, bench_call_run};
    void *ctx[3] = {&fused, &s, &unfused};
    double med[3];
    bench_interleaved(b, 3, fn, ctx, med);
    char size[48];
    snprintf(size, sizeof size, "n=%lld, %lld primes", (long long)n,
             (long long)n_ps);
    bench_report(b, "sieve (permute')", size, med[0], "C split target (thr.)",
                 med[1], memcmp(got, s.mine, (size_t)n * 4) == 0);
    bench_report(b, "sieve (permute')", size, med[0], "accel, fusion off",
                 med[2], memcmp(got, got_unfused, (size_t)n * 4) == 0);
    acc_program_free(fused.p);
    acc_program_free(unfused.p);
    acc_context_destroy(plain);
    free(ps);
    free(s.mine);
    free(got);
    free(got_unfused);
}

void permute_bench_histogram(bench *b)
{
    histogram_row(b, 256);
    histogram_row(b, 1 << 20);
}
