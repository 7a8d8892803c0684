/*
 * baselines.h — the hand-written C each benchmark compares accel with.
 * Each takes the number of threads to use; all are compiled with the
 * flags of bench/CMakeLists (the CPU backend's kernel flags).
 */
#ifndef ACC_BENCH_BASELINES_H
#define ACC_BENCH_BASELINES_H

#include <stdint.h>

typedef void (*bl_body)(void *ctx, int part, int64_t lo, int64_t hi);

/* Runs body over [0, n) split into `threads` contiguous parts. */
void bl_parallel_for(int threads, int64_t n, void *ctx, bl_body body);

float bl_sdot(int threads, int64_t n, const float *x, const float *y);
void bl_blackscholes(int threads, int64_t n, const float *price,
                     const float *strike, const float *years, float *call,
                     float *put);
void bl_mandelbrot(int threads, int64_t width, int64_t height, int32_t limit,
                   int32_t *out);
void bl_smvm(int threads, int64_t rows, const int64_t *row_start,
             const int64_t *cols, const float *vals, const float *vec,
             float *out);
/* The same, checking every column index against the vector's length as
 * accel must (LANGUAGE.md: an out-of-range read is an error): a row with
 * a bad index stops its thread's part.  Returns 0 when an index was out of
 * range.  For comparison only: the check keeps gcc from vectorising the
 * gather. */
int bl_smvm_checked(int threads, int64_t rows, const int64_t *row_start,
                    const int64_t *cols, const float *vals, const float *vec,
                    int64_t n_vec, float *out);
/* The 3x3 blur of LANGUAGE.md §4 (weights 1 2 1 / 2 4 2 / 1 2 1, divided
 * by 16, clamped borders) of a height x width image. */
void bl_blur(int threads, int64_t height, int64_t width, const float *img,
             float *out);
/* out[b] = how many xs[i] equal b (0 <= xs[i] < k): one relaxed atomic
 * fetch-and-add per element, the threads sharing one table. */
void bl_histogram(int threads, int64_t n, const int32_t *xs, int64_t k,
                  int32_t *out);
/* The same with one private table per thread, summed afterwards (no
 * atomics: how a C programmer writes a histogram of few bins). */
void bl_histogram_private(int threads, int64_t n, const int32_t *xs,
                          int64_t k, int32_t *out);
/* sieveMarks of LANGUAGE.md §3.6: marks[m] = how many p of ps (each
 * p >= 2) have m = (k + 2) p for some k >= 0, for 0 <= m < n.  The target
 * range is split over the threads, each walking every p's multiples in
 * its own part: plain stores, no atomics. */
void bl_sieve_marks(int threads, const int64_t *ps, int64_t n_ps, int64_t n,
                    int32_t *marks);

#endif
