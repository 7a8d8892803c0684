/*
 * bandwidth.c — the streaming read of `make bench` (see bandwidth.h),
 * compiled with the baselines' flags (cmake/AccelBench.cmake): each thread
 * sums its contiguous part of the buffer into 8 independent 64-bit lanes,
 * which gcc vectorises, so the loop is limited by memory, not by adds.
 */
#include "bench/bandwidth.h"

#include "bench/baselines.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LANES = 8, MAX_PARTS = 64 };

typedef struct read_job {
    const uint64_t *x;
    uint64_t sums[MAX_PARTS]; /* one per part: the read cannot be dropped */
} read_job;

static void read_part(void *c, int part, int64_t lo, int64_t hi)
{
    read_job *j = c;
    const uint64_t *x = j->x;
    uint64_t acc[LANES] = {0};
    int64_t i = lo;
    for (; i + LANES <= hi; i += LANES)
        for (int l = 0; l < LANES; l++)
            acc[l] += x[i + l];
    for (; i < hi; i++)
        acc[0] += x[i];
    uint64_t s = 0;
    for (int l = 0; l < LANES; l++)
        s += acc[l];
    j->sums[part] = s;
}

void bench_bandwidth(bench *b)
{
    /* 256 MiB (a smaller scale, for smoke runs: down to 32 MiB, still
     * larger than this machine's caches) */
    double mib = b->scale < 1 ? 256 * b->scale : 256;
    size_t bytes = (size_t)(mib < 32 ? 32 : mib) << 20;
    int64_t n = (int64_t)(bytes / sizeof(uint64_t));
    int threads = b->threads > MAX_PARTS ? MAX_PARTS : b->threads;
    read_job *j = bench_alloc(b, sizeof *j);
    uint64_t *x = bench_alloc(b, bytes);
    for (int64_t i = 0; i < n; i++) /* touched: no page faults timed */
        x[i] = (uint64_t)i;
    j->x = x;
    double t[64];
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        bl_parallel_for(threads, n, j, read_part);
        t[r] = bench_now_ms() - s;
    }
    uint64_t total = 0, want = (uint64_t)n * (uint64_t)(n - 1) / 2;
    for (int p = 0; p < threads; p++)
        total += j->sums[p];
    double ms = bench_median(t, b->runs);
    b->bandwidth = total == want && ms > 0 ? (double)bytes / ms : 0;
    printf("memory bandwidth: streaming read of %zu MiB on %d thread%s: "
           "%.2f GB/s (median of %d)%s\n", bytes >> 20, threads,
           threads == 1 ? "" : "s", (double)bytes / ms / 1e6, b->runs,
           total == want ? "" : " WRONG SUM: not used");
    fprintf(b->csv, "memory bandwidth,%zu MiB read (%d threads),%.6f,GB/s,"
                    "%.6f,,,\n", bytes >> 20, threads, ms,
            (double)bytes / ms / 1e6);
    free(x);
    free(j);
}
