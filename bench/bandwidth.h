/*
 * bandwidth.h — the memory-bandwidth line of `make bench`: a streaming
 * read of a buffer much larger than the caches, split over the bench's
 * threads, the limit memory-bound rows are measured against.
 */
#ifndef ACC_BENCH_BANDWIDTH_H
#define ACC_BENCH_BANDWIDTH_H

#include "bench/bench_common.h"

/* Measures the read bandwidth (median of b->runs reads of 256 MiB, less
 * at scales below 1, on b->threads threads), prints it as the first row of
 * the table and the CSV, and sets b->bandwidth (bytes per ms). */
void bench_bandwidth(bench *b);

#endif
