/*
 * stop.c — see stop.h.
 */
#include "core/base/stop.h"

#include <time.h>

double stop_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void stop_init(run_stop *s, atomic_int *cancel, double start, double seconds)
{
    s->cancel = cancel;
    s->seconds = seconds > 0 ? seconds : 0;
    s->deadline = s->seconds > 0 ? start + s->seconds : 0;
    atomic_init(&s->latched, ACC_OK);
}

/* Latches `why` unless a reason is latched already; returns the latched
 * one. */
static acc_status latch(run_stop *s, acc_status why)
{
    int expected = ACC_OK;
    if (atomic_compare_exchange_strong(&s->latched, &expected, (int)why))
        return why;
    return (acc_status)expected;
}

acc_status stop_check(run_stop *s)
{
    if (!s)
        return ACC_OK;
    acc_status seen = (acc_status)atomic_load_explicit(&s->latched,
                                                       memory_order_relaxed);
    if (seen != ACC_OK)
        return seen;
    if (s->cancel && atomic_load_explicit(s->cancel, memory_order_relaxed))
        return latch(s, ACC_ERR_CANCELLED);
    if (s->deadline > 0 && stop_now() >= s->deadline)
        return latch(s, ACC_ERR_TIMEOUT);
    return ACC_OK;
}

acc_status stop_fail(run_stop *s, diag *d, const char *where)
{
    acc_status why = stop_check(s);
    if (why == ACC_ERR_CANCELLED)
        return diag_fail(d, why, "run cancelled by acc_exec_cancel (stopped "
                         "at %s)", where);
    if (why == ACC_ERR_TIMEOUT)
        return diag_fail(d, why, "run stopped: its deadline of %g s passed "
                         "(stopped at %s)", s->seconds, where);
    return ACC_OK;
}
