/*
 * loop_baselines.h — the hand-written C of issue 22's loop benchmarks
 * (bench/loop_bench.c), compiled with the baseline flags plus
 * -mprefer-vector-width=512 (cmake/AccelBench.cmake).
 */
#ifndef ACC_BENCH_LOOP_BASELINES_H
#define ACC_BENCH_LOOP_BASELINES_H

#include <stdint.h>

/* bl_mandelbrot with 16 pixels in lockstep under AVX-512 masks (a lane
 * stops counting when it leaves; the block runs until every lane has).
 * Returns 0, computing nothing, where the compiler targets no AVX-512. */
int bl_mandelbrot_lockstep(int threads, int64_t width, int64_t height,
                           int32_t limit, int32_t *out);
/* out (cols x rows) = the transpose of in (rows x cols), f32, in 32x32
 * tiles, output rows split over the threads. */
void bl_transpose(int threads, int64_t rows, int64_t cols, const float *in,
                  float *out);
/* out = the inclusive + scan of x: each thread's part summed, the part
 * totals scanned, each part scanned from the value before it. */
void bl_scan(int threads, int64_t n, const float *x, float *out);
/* bl_blackscholes compiled with 512-bit vectors. */
void bl_blackscholes_wide(int threads, int64_t n, const float *price,
                          const float *strike, const float *years,
                          float *call, float *put);

#endif
