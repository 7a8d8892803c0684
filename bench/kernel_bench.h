/*
 * kernel_bench.h — the kernel rows of `make bench` (groups `dotp`,
 * `dotp-small`, `blackscholes`, `mandelbrot`, `smvm`, `blur`): each accel
 * program of LANGUAGE.md §4 against its hand-written C (bench/baselines.c)
 * and, for dotp, OpenBLAS.
 */
#ifndef ACC_BENCH_KERNEL_BENCH_H
#define ACC_BENCH_KERNEL_BENCH_H

#include "bench/bench_common.h"

void kernel_bench_dotp(bench *b);
/* dotp on 10^4 to 10^6 elements against C on one thread and accel in a
 * one-thread context (the small-input threshold). */
void kernel_bench_dotp_small(bench *b);
void kernel_bench_blackscholes(bench *b);
void kernel_bench_mandelbrot(bench *b);
void kernel_bench_smvm(bench *b);
void kernel_bench_blur(bench *b);

#endif
