/*
 * spin.h — a lock for critical sections of a few loads and stores that
 * every run enters (the handle registry's lookup, a program's last-run
 * statistics).
 *
 * Taking and releasing a pthread mutex costs about 100 instructions and
 * two locked operations; a small run of the CPU backend takes two of them
 * in a few hundred nanoseconds (bench/README.md, "Direct runs").  This
 * lock is one exchange to take and a plain store to release.  A waiter
 * spins a little, then yields its core, so a holder that is descheduled
 * (or rebuilding the registry's table) is not starved by its waiters.
 * Not reentrant; no fairness is promised.
 */
#ifndef ACC_CORE_BASE_SPIN_H
#define ACC_CORE_BASE_SPIN_H

#include <stdatomic.h>

typedef struct spin_lock {
    atomic_bool held;
} spin_lock;

#define SPIN_LOCK_INIT {0}

/* One step of a busy wait: the PAUSE hint on x86 (it frees the core's
 * resources for its sibling hyperthread and saves power), nothing
 * elsewhere. */
static inline void spin_pause(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
    __builtin_ia32_pause();
#endif
}

/* Out of line: waits until the lock looks free (spin_acquire retries). */
void spin_wait(spin_lock *l);

static inline void spin_init(spin_lock *l)
{
    atomic_init(&l->held, 0);
}

static inline void spin_acquire(spin_lock *l)
{
    while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire))
        spin_wait(l);
}

static inline void spin_release(spin_lock *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}

#endif
