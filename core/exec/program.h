/*
 * program.h — the compiled program handle, the execution handle, and the
 * run path shared by every backend: checking the caller's descriptors
 * against the signature, calling the backend, and delivering results into
 * the caller's descriptors.
 */
#ifndef ACC_CORE_EXEC_PROGRAM_H
#define ACC_CORE_EXEC_PROGRAM_H

#include "abi/src/context.h"
#include "core/base/stop.h"
#include "core/exec/plan.h"
#include "core/ir/program_ir.h"

struct acc_program {
    acc_context *ctx;
    acc_backend backend;
    ir_program ir;
    plan plan;
    struct cpu_program *cpu; /* CPU backend: the compiled kernels */
    struct cuda_program *cuda; /* CUDA backend: the loaded kernels */
    error_slot error;
    pthread_mutex_t stats_lock; /* guards last_run */
    acc_run_stats last_run;
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
    struct cuda_queue *cuda; /* the CUDA side, for a CUDA context */
    error_slot error;
    pthread_mutex_t lock;
    diag pending; /* the first failure since the last wait */
};

/* Runs p, through execution handle x (NULL: acc_run, synchronous, on a
 * stream of the context's own); errors are recorded on d with the
 * input/output named.  The run's statistics are stored as the program's
 * last run on success. */
acc_status exec_run(acc_program *p, acc_exec *x, size_t n_inputs,
                    const acc_array *inputs, size_t n_outputs,
                    acc_array *outputs, diag *d);

#endif
