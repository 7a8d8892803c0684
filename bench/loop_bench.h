/*
 * loop_bench.h — issue 22's loop benchmarks (make bench; groups
 * `mandelbrot16`, `transpose`, `scan`, `blackscholes512`): Mandelbrot
 * against C with 16 pixels in lockstep, a transposing backpermute against
 * tiled C (and memcpy, the bandwidth it could reach), scanl1 (+) against
 * the two-pass parallel scan in C, Black-Scholes against the C loop with
 * 256- and 512-bit vectors.
 */
#ifndef ACC_BENCH_LOOP_BENCH_H
#define ACC_BENCH_LOOP_BENCH_H

#include "bench/bench_common.h"

void loop_bench_mandelbrot(bench *b);
void loop_bench_transpose(bench *b);
void loop_bench_scan(bench *b);
void loop_bench_blackscholes(bench *b);

#endif
