/*
 * bench_common.h — what the benchmark programs share: the text programs
 * (read from tests/programs/, the single copy of LANGUAGE.md's programs,
 * and bench/programs.acc), array descriptors, timing, medians, rounds run
 * interleaved, and the table/CSV row of accel against a baseline.
 */
#ifndef ACC_BENCH_COMMON_H
#define ACC_BENCH_COMMON_H

#include "accel.h"

#include <stdint.h>
#include <stdio.h>

typedef struct bench {
    acc_context *ctx;
    const char *tool;   /* for messages: "accel_bench", "gpu_bench" */
    int threads, runs;
    double scale;
    FILE *csv;
    int failures;
    /* bytes per ms of the streaming read beyond the last-level cache
     * (bench/bandwidth.c); 0 when not measured: rows then show no
     * fraction of it */
    double bandwidth;
    /* the largest cache's size in bytes (0: unknown), and the read rate a
     * memory-bound row of `bytes` is measured against (NULL: b->bandwidth) */
    double llc_bytes;
    double (*read_limit)(struct bench *b, double bytes);
    /* the last read rate measured at a row's footprint (bench_read_limit:
     * the rows of one workload against several baselines share it) */
    double footprint_bytes, footprint_rate;
} bench;

/* The text programs, read once: tests/programs/language4.acc (LANGUAGE.md
 * §4: dotp, smvm, blackscholes, histogram, blur, mandelbrot, ...),
 * tests/programs/sieve.acc (sieveMarks) and bench/programs.acc (nbody,
 * fft2, fft1, highpass, matmul, transpose, scan), each without its title
 * line.  The folder is the source tree's (ACC_BENCH_SOURCE_DIR, set by
 * cmake/AccelBench.cmake; the environment variable of that name overrides
 * it).  Exits with a message when a file cannot be read. */
const char *bench_source(void);
/* The whole of the file at `path`, NUL-terminated, in a new buffer (NULL
 * when it cannot be read). */
char *bench_read_text(const char *path);

double bench_now_ms(void);
/* Sorts samples[0..n) and returns their median. */
double bench_median(double *samples, int n);
/* A row of the table and the CSV: accel against one baseline. */
void bench_report(bench *b, const char *name, const char *size,
                  double accel_ms, const char *baseline, double base_ms,
                  int agree);
/* The same for a memory-bound row: `bytes` is what the computation must
 * read and write once; the row also shows accel's bytes / time as a
 * fraction of the read rate b->read_limit gives for that footprint, that
 * rate, and whether the bytes fit in the last-level cache (the CSV's last
 * three columns). */
void bench_report_mem(bench *b, const char *name, const char *size,
                      double accel_ms, const char *baseline, double base_ms,
                      int agree, double bytes);
/* The CSV header and the table's heading. */
void bench_headings(bench *b);
/* A context of b->threads threads on the default backend, accel's own code
 * only (plugins "none"), caching kernels in cache_dir (NULL: the
 * default); exits with a message when it cannot be made. */
acc_context *bench_context(const bench *b, const char *cache_dir);
/* Compiles entry `entry` of bench_source() in ctx (bench_compile: in
 * b->ctx); exits with a message when it fails. */
acc_program *bench_compile_in(const bench *b, acc_context *ctx,
                              const char *entry);
acc_program *bench_compile(const bench *b, const char *entry);
/* acc_run, exiting with a message when it fails. */
void bench_run(const bench *b, acc_program *p, size_t n_in, const acc_array *in,
               size_t n_out, acc_array *out);
void *bench_alloc(const bench *b, size_t bytes);
/* A buffer allocated and touched once (zeroed), for results: the baselines
 * write into memory allocated before the timed runs, so accel does too (a
 * fresh result per run would time the page faults of new memory). */
void *bench_touched(const bench *b, size_t bytes);
/* A descriptor of `data` with a scalar element type (rank 0: ext unused). */
acc_array bench_array(acc_scalar s, int rank, const int64_t *ext, void *data);
acc_array bench_vector(acc_scalar s, int64_t n, void *data);
acc_array bench_scalar(acc_scalar s, void *data);

/* One timed call (or batch of calls) of a baseline or of accel. */
typedef void (*bench_timed_fn)(void *ctx);
/* The median of b->runs timed calls of fn(ctx) in a row. */
double bench_time(const bench *b, bench_timed_fn fn, void *ctx);

/* A run of a compiled program on fixed arguments (bench_call_run, a
 * bench_timed_fn, runs it with bench_run). */
typedef struct bench_call {
    const bench *b;
    acc_program *p;
    size_t n_in;
    const acc_array *in;
    acc_array *out; /* one output */
} bench_call;
void bench_call_run(void *call);

/* The next number of the benchmarks' pseudo-random sequence (a 64-bit
 * linear congruential generator, Knuth's MMIX constants) from *state:
 * its high bits are the random keys and columns of the C rows, which
 * bench/python/peer_workloads.py draws from the same range. */
uint64_t bench_lcg(uint64_t *state);
/* Medians of b->runs rounds of fn[0..n) (n <= 8), each round timing every
 * fn once in turn (the order rotating per round), so that the machine's
 * load drifts fall on all of them alike. */
void bench_interleaved(const bench *b, size_t n, bench_timed_fn *fn,
                       void **ctx, double *median);

/* The function `name` of the first of libs[0..n) (shared libraries
 * dlopen'ed when installed) that has it; NULL when none has. */
void *bench_find_symbol(const char *const *libs, size_t n, const char *name);

/* ACC_BENCH_ONLY=name,name,...: whether group `group` runs (all when
 * unset). */
int bench_selected(const char *group);
/* A positive integer from the environment, else fallback. */
int bench_env_int(const char *name, int fallback);

#endif
