/*
 * spin.c — the waiting half of spin.h's lock.
 */
#include "core/base/spin.h"

#include <sched.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SPIN_PAUSE() _mm_pause()
#else
#define SPIN_PAUSE() ((void)0)
#endif

void spin_wait(spin_lock *l)
{
    /* a holder's critical section is a few stores: a short spin usually
     * sees it end; past that, the holder may be off its core */
    for (int i = 0; atomic_load_explicit(&l->held, memory_order_relaxed);
         i++) {
        if (i < 128)
            SPIN_PAUSE();
        else
            sched_yield();
    }
}
