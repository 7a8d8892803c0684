/*
 * permute_bench.h — issue 22's permute rows of `make bench` (groups
 * `histogram`, `sieve`): `permute (+)` into 256 and 2^20 bins, and the
 * sieve's `permute'` over `expand`, fused and with fusion off.
 */
#ifndef ACC_BENCH_PERMUTE_BENCH_H
#define ACC_BENCH_PERMUTE_BENCH_H

#include "bench/bench_common.h"

void permute_bench_histogram(bench *b);
void permute_bench_sieve(bench *b);

#endif
