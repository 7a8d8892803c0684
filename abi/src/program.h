/*
 * program.h — the compiled program handle and the execution handle
 * (accel.h: acc_program, acc_exec).  A program owns what the compiler
 * built (core/compile/compile.h); runs go through core/exec/exec.h.
 */
#ifndef ACC_ABI_PROGRAM_H
#define ACC_ABI_PROGRAM_H

#include "abi/src/context.h"
#include "core/base/spin.h"
#include "core/base/stop.h"
#include "core/exec/exec.h"

struct acc_program {
    acc_context *ctx;
    compiled c;
    error_slot error;
    spin_lock stats_lock;       /* guards last_run and last_ticks */
    acc_run_stats last_run;     /* seconds: from last_ticks when read */
    uint64_t last_ticks;        /* its duration (core/base/clock.h) */
};

/* An execution handle (accel.h: acc_exec).  Used by one thread at a
 * time; `lock` guards `pending` against acc_exec_wait on another;
 * `cancel` is set by acc_exec_cancel from any thread. */
struct acc_exec {
    acc_context *ctx;
    void *stream;
    int async;
    double deadline;  /* the deadline_seconds option (0: the context's) */
    atomic_int cancel; /* nonzero: stop the run in progress, or the next */
    void *queue;       /* the backend's queue (backend.h), or NULL */
    error_slot error;
    pthread_mutex_t lock;
    diag pending; /* the first failure since the last wait */
};

/* Runs p through execution handle x (NULL: acc_run) and stores the run's
 * statistics as the program's last run on success; errors go to d. */
acc_status program_run(acc_program *p, acc_exec *x, size_t n_inputs,
                       const acc_array *inputs, size_t n_outputs,
                       acc_array *outputs, diag *d);

#endif
