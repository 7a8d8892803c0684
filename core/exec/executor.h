/*
 * executor.h — what the two halves of a run share: run.c sets the run up
 * (descriptors checked, inputs bound, the backends' runs begun) and
 * delivers the outputs; steps.c executes the schedule, step by step,
 * through the backend interface, releasing each value after its last
 * use.
 */
#ifndef ACC_CORE_EXEC_EXECUTOR_H
#define ACC_CORE_EXEC_EXECUTOR_H

#include "core/exec/exec.h"

typedef struct executor {
    const compiled *p;
    run_env env;
    run_values values;
    const backend_ops *ops;  /* the program's backend */
    backend_run *run;        /* its run */
    const backend_ops *host_ops; /* the interpreter (host evaluator) */
    backend_run *host;       /* its run (env.host) */
    uint64_t kernels, bytes; /* the run's statistics so far */
} executor;

/* Runs scope s (the root schedule, or a body); `first`: the first
 * iteration of the loop whose body s is (its once steps run).  Returns
 * the run diag's status (its first error). */
acc_status exec_schedule(executor *ex, const schedule *s, int first);
/* Gives a reference back through the backend's memory operations
 * (backend.h: release); before the backend's run begins, directly. */
void exec_release(executor *ex, rt_array *a);
/* a's contents valid on the host, through the backend's copy.  Returns
 * the run diag's status. */
acc_status exec_to_host(executor *ex, rt_array *a);
/* Releases the values scope s still holds once it has ended (its result
 * taken). */
void exec_end_scope(executor *ex, const schedule *s);

#endif
