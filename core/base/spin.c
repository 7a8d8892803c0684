/*
 * spin.c — the waiting half of spin.h's lock.
 */
#include "core/base/spin.h"

#include <sched.h>

void spin_wait(spin_lock *l)
{
    /* a holder's critical section is a few stores: a short spin usually
     * sees it end; past that, the holder may be off its core */
    for (int i = 0; atomic_load_explicit(&l->held, memory_order_relaxed);
         i++) {
        if (i < 128)
            spin_pause();
        else
            sched_yield();
    }
}
