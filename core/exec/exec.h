/*
 * exec.h — running a compiled program (core/compile/compile.h): checking
 * the caller's descriptors against the signature, executing on the
 * program's backend, and delivering results into the caller's
 * descriptors.
 */
#ifndef ACC_CORE_EXEC_EXEC_H
#define ACC_CORE_EXEC_EXEC_H

#include "core/compile/compile.h"

#include <stdatomic.h>

/* How one run is called: through an execution handle's queue (NULL:
 * acc_run, synchronous, on a stream of the context's own), its cancel
 * flag (NULL: none) and its deadline in seconds (0: none). */
typedef struct exec_call {
    void *queue;        /* the backend's queue of the handle (backend.h) */
    atomic_int *cancel;
    double deadline;
} exec_call;

/* A run's statistics as exec_run measures them: its duration in clock
 * ticks (core/base/clock.h; run.seconds is 0), converted when read. */
typedef struct exec_stats {
    acc_run_stats run;
    uint64_t ticks;
} exec_stats;

/* Runs c once; errors are recorded on d with the input/output named.  On
 * success *stats (when not NULL) receives the run's statistics. */
acc_status exec_run(const compiled *c, const exec_call *call,
                    size_t n_inputs, const acc_array *inputs,
                    size_t n_outputs, acc_array *outputs,
                    exec_stats *stats, diag *d);

#endif
