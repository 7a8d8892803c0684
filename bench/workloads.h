/*
 * workloads.h — the set-ups that several benchmark rows share: the data of
 * a LANGUAGE.md §4 workload at the bench's scale, accel's compiled program
 * and its descriptors (into caller buffers touched once), the baseline's
 * output buffers, and the check of accel's result against the baseline's.
 * kernel_bench.c and loop_bench.c time them against different baselines.
 */
#ifndef ACC_BENCH_WORKLOADS_H
#define ACC_BENCH_WORKLOADS_H

#include "bench/bench_common.h"

/* Black-Scholes on 20M options (times b->scale). */
typedef struct wl_blackscholes {
    int threads; /* the bench's, for the baseline */
    int64_t n;
    float *price, *strike, *years; /* the options */
    float *acall, *aput;           /* accel's results (out) */
    float *call, *put;             /* the baseline's */
    acc_program *p;
    acc_array in, out;
    char size[48]; /* the row's size text */
} wl_blackscholes;

void wl_blackscholes_init(const bench *b, wl_blackscholes *w);
/* Every 1000th option's prices within 1e-3 (relative) of the baseline's. */
int wl_blackscholes_agree(const wl_blackscholes *w);
void wl_blackscholes_free(wl_blackscholes *w);

/* Mandelbrot escape counts of a 1920x1080 image (times sqrt(b->scale) per
 * side), limit 255. */
typedef struct wl_mandelbrot {
    int threads; /* the bench's, for the baseline */
    int64_t w, h;
    int32_t limit;
    int32_t *got, *mine; /* accel's result (out), the baseline's */
    acc_program *p;
    acc_array in[3], out;
    char size[48];
} wl_mandelbrot;

void wl_mandelbrot_init(const bench *b, wl_mandelbrot *m);
/* Whether accel's counts equal the baseline's, pixel for pixel. */
int wl_mandelbrot_agree(const wl_mandelbrot *m);
void wl_mandelbrot_free(wl_mandelbrot *m);

#endif
