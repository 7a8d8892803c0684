/*
 * bench_common.h — what the benchmark programs share: the text programs
 * (LANGUAGE.md §4 as written, and the extra ones the benchmarks use),
 * timing, medians, and the table/CSV row of accel against a baseline.
 */
#ifndef ACC_BENCH_COMMON_H
#define ACC_BENCH_COMMON_H

#include "accel.h"

#include <stdio.h>

/* The text programs: entries dotp, smvm, blackscholes, mandelbrot, nbody,
 * fft2, highpass, matmul. */
extern const char bench_programs[];

typedef struct bench {
    acc_context *ctx;
    const char *tool;   /* for messages: "accel_bench", "gpu_bench" */
    int threads, runs;
    double scale;
    FILE *csv;
    int failures;
} bench;

double bench_now_ms(void);
/* Sorts samples[0..n) and returns their median. */
double bench_median(double *samples, int n);
/* A row of the table and the CSV: accel against one baseline. */
void bench_report(bench *b, const char *name, const char *size,
                  double accel_ms, const char *baseline, double base_ms,
                  int agree);
/* The CSV header and the table's heading. */
void bench_headings(bench *b);
/* Compiles entry `entry` of bench_programs; exits with a message when it
 * fails. */
acc_program *bench_compile(const bench *b, const char *entry);
/* acc_run, exiting with a message when it fails. */
void bench_run(const bench *b, acc_program *p, size_t n_in, const acc_array *in,
               size_t n_out, acc_array *out);
void *bench_alloc(const bench *b, size_t bytes);
/* ACC_BENCH_ONLY=name,name,...: whether group `group` runs (all when
 * unset). */
int bench_selected(const char *group);
/* A positive integer from the environment, else fallback. */
int bench_env_int(const char *name, int fallback);

#endif
