/*
 * clock.c — timestamps for the runs' statistics (clock.h).
 */
#include "core/base/clock.h"

#include "core/base/stop.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <x86intrin.h>
#define ACC_CLOCK_TSC 1
#else
#define ACC_CLOCK_TSC 0
#endif

static pthread_once_t detected = PTHREAD_ONCE_INIT;
static atomic_int ready;      /* detect has run (pthread_once's fast path,
                                 without its call) */
static int use_tsc;           /* ticks are TSC counts */
static uint64_t tsc_start;    /* the first tick's TSC and monotonic time */
static double mono_start;
static pthread_mutex_t rate_lock = PTHREAD_MUTEX_INITIALIZER;
static double seconds_per_tick; /* 0 until measured (rate_lock) */

#if ACC_CLOCK_TSC
/* Whether the kernel's clock counts with the TSC, so that the counters
 * of all cores agree: its clocksource is "tsc" (the kernel checked the
 * cores' counters and found them stable), or "kvm-clock", the clock of
 * KVM-style guests, which is the guest's TSC scaled (the hypervisor keeps
 * the vCPUs' counters in step; measured on this project's AMD EPYC VM,
 * where the kernel is told tsc=unstable and keeps time with kvm-clock:
 * no vCPU's TSC ever read behind the other's in 200000 hand-offs, and a
 * TSC read costs 11 ns against clock_gettime's 26). */
static int kernel_clock_counts_tsc(void)
{
    char name[32] = {0};
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
                    "current_clocksource", "r");
    if (!f)
        return 0;
    int ok = fgets(name, sizeof name, f) != NULL;
    fclose(f);
    return ok && (strcmp(name, "tsc\n") == 0 ||
                  strcmp(name, "kvm-clock\n") == 0);
}
#endif

atomic_int clock_tsc_ready;

static void detect(void)
{
#if ACC_CLOCK_TSC
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8)) &&
        kernel_clock_counts_tsc()) {
        mono_start = stop_now();
        tsc_start = __rdtsc();
        use_tsc = 1;
    }
#endif
    atomic_store_explicit(&ready, 1, memory_order_release);
    /* relaxed reads of it see use_tsc's 1: a TSC count needs nothing
     * else of this function (the rate is measured under rate_lock) */
    if (use_tsc)
        atomic_store_explicit(&clock_tsc_ready, 1, memory_order_release);
}

static void ensure_detected(void)
{
    if (!atomic_load_explicit(&ready, memory_order_acquire))
        pthread_once(&detected, detect);
}

uint64_t clock_ticks_detect(void)
{
    ensure_detected();
#if ACC_CLOCK_TSC
    if (use_tsc)
        return __rdtsc();
#endif
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

double clock_ticks_seconds(uint64_t ticks)
{
    ensure_detected();
#if ACC_CLOCK_TSC
    if (use_tsc) {
        pthread_mutex_lock(&rate_lock);
        if (seconds_per_tick == 0) {
            /* 10 ms of both clocks: their reads, 50 ns apart at most,
             * make the rate good to 1e-5 */
            double now;
            uint64_t tsc;
            do {
                now = stop_now();
                tsc = __rdtsc();
            } while (now - mono_start < 0.01 || tsc <= tsc_start);
            seconds_per_tick = (now - mono_start) / (double)(tsc - tsc_start);
        }
        double rate = seconds_per_tick;
        pthread_mutex_unlock(&rate_lock);
        return (double)ticks * rate;
    }
#endif
    return (double)ticks * 1e-9;
}
