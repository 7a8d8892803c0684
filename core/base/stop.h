/*
 * stop.h — whether a run is to stop early: its execution handle was
 * cancelled (acc_exec_cancel) or its deadline passed (docs/ABI.md,
 * "Cancellation and deadlines").
 *
 * The run's check points (between the steps the interpreter schedules,
 * every awhile iteration, every STOP_EVERY scalar function applications
 * of the interpreter, every chunk of a CPU kernel's parallel loop and
 * every few thousand iterations of a compiled scalar while, every CUDA
 * launch) call stop_check.  It is safe from any thread (the CPU pool's
 * workers call it) and cheap: an atomic load, and a clock read when the
 * run has a deadline.  The first reason a check observes is latched, so
 * every later check of the run gives the same answer and the run's
 * status is that reason wherever it was seen.
 */
#ifndef ACC_CORE_BASE_STOP_H
#define ACC_CORE_BASE_STOP_H

#include "core/base/diag.h"

#include <stdatomic.h>

/* How many scalar function applications the interpreter makes between two
 * checks (a power of two). */
enum { STOP_EVERY = 1024 };

typedef struct run_stop {
    atomic_int *cancel; /* the execution handle's flag (nonzero: cancel),
                           or NULL */
    double deadline;    /* stop_now() seconds; 0: none */
    double seconds;     /* the deadline's length, for the message */
    atomic_int latched; /* ACC_OK, or the reason once observed */
} run_stop;

/* Seconds on the monotonic clock. */
double stop_now(void);
/* A run that started at `start` (stop_now) with a deadline `seconds`
 * later (0: none), cancelled through *cancel (NULL: never). */
void stop_init(run_stop *s, atomic_int *cancel, double start, double seconds);
/* ACC_OK while the run may go on; ACC_ERR_CANCELLED or ACC_ERR_TIMEOUT
 * once it is to stop (latched).  NULL-safe (never stops). */
acc_status stop_check(run_stop *s);
/* stop_check, and when the run is to stop, records why on d ("... at
 * WHERE") and returns the status. */
acc_status stop_fail(run_stop *s, diag *d, const char *where);

#endif
