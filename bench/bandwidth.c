/*
 * bandwidth.c — the read rates of `make bench` (see bandwidth.h), compiled
 * with the baselines' flags (cmake/AccelBench.cmake).
 *
 * Why two loops and two sizes (bench/README.md, "The bandwidth line"):
 * on this project's VM a core's read rate is limited by how many cache
 * lines it has in flight, not by the memory bus (two threads read nearly
 * twice what one does), so a loop reading two streams at once (dotp's x
 * and y) is faster than one reading a single stream, and the first
 * bandwidth line (one stream of u64 sums, 256 MiB) was slower than accel's
 * dotp.  And 256 MiB is below this VM's 300 MiB last-level cache: how much
 * of a buffer stays there between runs depends on its size (and on the
 * other tenants), so a row is compared with a read of its own footprint
 * as well as with one well beyond the cache.
 */
#include "bench/bandwidth.h"

#include "bench/baselines.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 32 f32 lanes (two 512-bit vectors), so the adds never limit the loop;
 * sizes are rounded to whole blocks of both streams. */
enum { LANES = 32, MAX_PARTS = 64 };

typedef struct read_job {
    const float *x, *y; /* y: the second stream (NULL: one stream) */
    int64_t reps;       /* each part read this often per call */
    double sums[MAX_PARTS]; /* one per part: the reads cannot be dropped */
} read_job;

/* Sums x[lo, hi) (and y's, with two streams) into LANES lanes, j->reps
 * times: small footprints are read repeatedly by one thread creation. */
static void read_part(void *c, int part, int64_t lo, int64_t hi)
{
    read_job *j = c;
    const float *x = j->x, *y = j->y;
    float acc[LANES] = {0};
    for (int64_t r = 0; r < j->reps; r++) {
        if (y)
            for (int64_t i = lo; i < hi; i += LANES)
                for (int l = 0; l < LANES; l++)
                    acc[l] += x[i + l] + y[i + l];
        else
            for (int64_t i = lo; i < hi; i += LANES)
                for (int l = 0; l < LANES; l++)
                    acc[l] += x[i + l];
    }
    double s = 0;
    for (int l = 0; l < LANES; l++)
        s += acc[l];
    j->sums[part] = s;
}

/* The block rounding: parts split [0, n) into multiples of LANES. */
static void read_block(void *c, int part, int64_t lo, int64_t hi)
{
    read_part(c, part, lo * LANES, hi * LANES);
}

typedef struct read_rate {
    double rate[2]; /* bytes per ms: one stream, two streams */
    int ok;         /* every sum was what the ones add up to */
} read_rate;

/* The best rates of b->runs reads (after one untimed read) of a buffer
 * of `bytes` of f32 ones, as one stream and as two halves read together,
 * each part `reps` times per call: a limit, so the fastest read, where a
 * row's time is a median. */
static read_rate measure(const bench *b, size_t bytes, int64_t reps)
{
    int threads = b->threads > MAX_PARTS ? MAX_PARTS : b->threads;
    int64_t blocks = (int64_t)(bytes / sizeof(float) / (2 * LANES));
    blocks = blocks < 1 ? 1 : blocks;
    int64_t n = blocks * 2 * LANES; /* f32 elements */
    float *x = bench_alloc(b, (size_t)n * sizeof *x);
    read_job *j = bench_alloc(b, sizeof *j);
    read_rate out = {{0, 0}, 1};
    for (int64_t i = 0; i < n; i++) /* touched: no page faults timed */
        x[i] = 1.0f;
    for (int streams = 1; streams <= 2; streams++) {
        j->x = x;
        j->y = streams == 2 ? x + n / 2 : NULL;
        j->reps = reps;
        int64_t parts_of = streams == 2 ? blocks : 2 * blocks;
        double t[64];
        for (int r = -1; r < b->runs; r++) {
            double s = bench_now_ms();
            bl_parallel_for(threads, parts_of, j, read_block);
            if (r >= 0)
                t[r] = bench_now_ms() - s;
        }
        double total = 0;
        for (int p = 0; p < threads; p++)
            total += j->sums[p];
        /* each lane's sum is exact while it stays below 2^24 */
        out.ok &= total == (double)n * (double)reps;
        bench_median(t, b->runs); /* sorts t: t[0] is the fastest read,
                                   * the one least disturbed by the load */
        double ms = t[0];
        out.rate[streams - 1] = ms > 0 ? (double)n * sizeof *x * reps / ms
                                       : 0;
    }
    free(j);
    free(x);
    return out;
}

static double best(read_rate r)
{
    return r.ok ? (r.rate[0] > r.rate[1] ? r.rate[0] : r.rate[1]) : 0;
}

/* The size of the highest-level data or unified cache cpu0 reports
 * (sysfs, e.g. "307200K"); 0 when unknown. */
static double llc_bytes(void)
{
    double biggest = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], text[32] = "";
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(text, sizeof text, f)) {
            char *end = NULL;
            double v = strtod(text, &end);
            double unit = *end == 'K' ? 1024.0 : *end == 'M' ? 1048576.0
                                               : *end == 'G' ? 1073741824.0
                                                             : 1.0;
            biggest = v * unit > biggest ? v * unit : biggest;
        }
        fclose(f);
    }
    return biggest;
}

void bench_bandwidth(bench *b)
{
    b->llc_bytes = llc_bytes();
    /* twice the LLC (256 MiB at least, 2 GiB at most, so that each
     * lane's sum stays exact); at scales below 1, for smoke runs, the
     * same scaled down to 32 MiB at least */
    double mib = 2 * b->llc_bytes / 1048576.0;
    mib = mib < 256 ? 256 : mib > 2048 ? 2048 : mib;
    if (b->scale < 1)
        mib = mib * b->scale < 32 ? 32 : mib * b->scale;
    size_t bytes = (size_t)mib << 20;
    read_rate r = measure(b, bytes, 1);
    b->bandwidth = best(r);
    b->read_limit = bench_read_limit;
    int beyond = b->llc_bytes > 0 && (double)bytes >= 2 * b->llc_bytes;
    char llc[64] = "LLC size unknown";
    if (b->llc_bytes > 0)
        snprintf(llc, sizeof llc, "%s the %.0f MiB LLC",
                 beyond ? "2x" : "NOT beyond", b->llc_bytes / 1048576.0);
    printf("memory bandwidth: streaming read of %zu MiB (%s) on %d "
           "thread%s: %.2f GB/s (1 stream %.2f, 2 streams %.2f; best of "
           "%d)%s\n", bytes >> 20, llc, b->threads, b->threads == 1 ? "" : "s",
           b->bandwidth / 1e6, r.rate[0] / 1e6, r.rate[1] / 1e6, b->runs,
           r.ok ? "" : " WRONG SUM: not used");
    fprintf(b->csv, "memory bandwidth,%zu MiB read (%d threads),%.6f,GB/s,"
                    "%.6f,,,,,%s\n", bytes >> 20, b->threads,
            b->bandwidth > 0 ? (double)bytes / b->bandwidth : 0,
            b->bandwidth / 1e6, beyond ? "no" : "yes");
}

double bench_read_limit(bench *b, double bytes)
{
    /* measured again for each workload, right after its runs, so that
     * both see the machine's load of the moment */
    if (b->footprint_bytes != bytes && bytes >= 1) {
        /* at least 32 MiB read per call: a small footprint is read again
         * and again, as a row's runs read its data again */
        double reps = (double)(32 << 20) / bytes;
        b->footprint_rate = best(measure(b, (size_t)bytes,
                                         reps < 1 ? 1 : (int64_t)reps));
        b->footprint_bytes = bytes;
    }
    double rate = b->footprint_rate;
    return rate > b->bandwidth ? rate : b->bandwidth;
}
