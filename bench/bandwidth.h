/*
 * bandwidth.h — the read rates memory-bound rows of `make bench` are
 * measured against: the memory-bandwidth line (a streaming read of a
 * buffer at least twice the last-level cache, split over the bench's
 * threads) and, per row, the same read at the row's own footprint, where
 * part of the data may stay in the cache between runs as the row's does.
 */
#ifndef ACC_BENCH_BANDWIDTH_H
#define ACC_BENCH_BANDWIDTH_H

#include "bench/bench_common.h"

/* Sets b->llc_bytes (the largest cache's size, from sysfs), measures the
 * streaming read beyond it (best of b->runs reads of max(256 MiB, twice
 * the LLC), less at scales below 1, on b->threads threads; the faster of
 * a one-stream and a two-stream loop), prints it as the first row of the
 * table and the CSV, sets b->bandwidth (bytes per ms) and points
 * b->read_limit at bench_read_limit. */
void bench_bandwidth(bench *b);

/* The read rate a row of `bytes` (what it reads and writes once) is
 * measured against, in bytes per ms: the best of b->bandwidth and the
 * same reads of a buffer of `bytes` (measured again unless the last row
 * had the same footprint), so that a row whose data stay in the cache
 * between its runs is compared with a read that stays there too. */
double bench_read_limit(bench *b, double bytes);

#endif
