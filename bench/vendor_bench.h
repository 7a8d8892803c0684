/*
 * vendor_bench.h — the plugin rows of `make bench`: group `foreign` (fftw's
 * fft2 and highpass, cblas's matmul against their pure fallbacks) and
 * group `vendor` (the plugins against cblas_sgemm and FFTW called
 * directly: matmul 1024² f32, fft2 512² c64, fft1 2^20 c128 with FFTW's
 * threads).
 */
#ifndef ACC_BENCH_VENDOR_BENCH_H
#define ACC_BENCH_VENDOR_BENCH_H

#include "bench/bench_common.h"

void vendor_bench_foreign(bench *b);
void vendor_bench_vendor(bench *b);

#endif
