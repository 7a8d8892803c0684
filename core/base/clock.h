/*
 * clock.h — timestamps for the runs' statistics (acc_program_last_run),
 * cheap enough to take twice in every run.
 *
 * A small run lasts about a microsecond; reading CLOCK_MONOTONIC costs
 * 26-45 ns on the virtual machines this project runs on, the TSC 11-20.
 * Where the TSC is invariant (CPUID 0x80000007 EDX bit 8) and the
 * kernel's own clock counts with it (its clocksource is "tsc", or
 * "kvm-clock", a guest's TSC scaled: the counters of all cores agree),
 * ticks are TSC counts, converted to seconds
 * only when the statistics are read, with a rate measured against
 * CLOCK_MONOTONIC over at least 10 ms since the first tick (the first
 * conversion in a process waits for the rest of those 10 ms once).
 * Elsewhere ticks are CLOCK_MONOTONIC nanoseconds.  Deadlines keep using
 * stop_now (core/base/stop.h).
 */
#ifndef ACC_CORE_BASE_CLOCK_H
#define ACC_CORE_BASE_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>

/* 1 once ticks are known to be TSC counts (clock.c detects it on the
 * first call); the fast path of clock_ticks, inlined into every run. */
extern atomic_int clock_tsc_ready;

/* Now, in ticks, through clock.c: the first call, and where ticks are
 * not TSC counts. */
uint64_t clock_ticks_detect(void);

/* Now, in ticks; differences of two are durations. */
static inline uint64_t clock_ticks(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (atomic_load_explicit(&clock_tsc_ready, memory_order_relaxed))
        return __builtin_ia32_rdtsc();
#endif
    return clock_ticks_detect();
}
/* Ticks since `start` (an earlier clock_ticks()), 0 if the clock reads
 * behind it: a thread moved to a core whose counter lags can see that,
 * and a statistic is better 0 than 584 years. */
static inline uint64_t clock_ticks_since(uint64_t start)
{
    uint64_t now = clock_ticks();
    return now > start ? now - start : 0;
}

/* A duration in ticks, in seconds. */
double clock_ticks_seconds(uint64_t ticks);

#endif
