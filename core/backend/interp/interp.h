/*
 * interp.h — the reference interpreter: the executable specification of
 * the language.  It evaluates a program's IR directly, element by element,
 * and reports runtime errors (out-of-bounds reads, fold1 of an empty row,
 * division by zero) as status codes.
 */
#ifndef ACC_CORE_BACKEND_INTERP_INTERP_H
#define ACC_CORE_BACKEND_INTERP_INTERP_H

#include "core/base/stop.h"
#include "core/backend/destinations.h"
#include "core/backend/rt_array.h"
#include "core/ir/program_ir.h"

/* What one run did, for the program's run statistics. */
typedef struct interp_stats {
    uint64_t kernels; /* kernel operations evaluated */
    uint64_t bytes;   /* bytes of arrays they allocated */
} interp_stats;

/* Runs p on the given inputs (p->n_inputs of them) and stores
 * p->n_outputs new references in outputs.  On failure records on d, and
 * leaves no output allocated.  stats may be NULL. */
acc_status interp_run(const ir_program *p, rt_array *const *inputs,
                      rt_array **outputs, interp_stats *stats, diag *d);

/* A compiling backend's hook: the interpreter stays the host-side
 * scheduler and asks eval_array first for every array node it computes
 * with an operation of its own.  eval_array returns 1 with the node's
 * array in *out (a primed scan: its two arrays in out[0] and out[1]), 0
 * after recording an error on the run's diag, or -1 to
 * let the interpreter evaluate the node itself. */
struct interp;
typedef struct interp_hook {
    int (*eval_array)(void *state, struct interp *st, const ir_node *n,
                      rt_array **out);
    void *state;
    /* Optional: calls the implementation chosen for foreign node n on its
     * argument arrays, with the backend's memory (device pointers and its
     * stream on CUDA); returns as reg_call (core/backend/foreign_call.h) does.
     * NULL: reg_call on host copies of the arguments. */
    acc_status (*call_foreign)(void *state, struct interp *st,
                               const ir_node *n, rt_array *const *args,
                               rt_array **results);
} interp_hook;

/* interp_run with a hook (NULL: none), the run's destinations (NULL:
 * none; core/backend/destinations.h), which a hook's kernels may compute
 * results into (interp_result), and the run's stop request (NULL: none;
 * core/base/stop.h), which the interpreter checks before every step,
 * every awhile iteration and every STOP_EVERY scalar function
 * applications, failing the run with its status. */
acc_status interp_run_hooked(const ir_program *p, const interp_hook *hook,
                             rt_array *const *inputs, exec_dests *dests,
                             run_stop *stop, rt_array **outputs,
                             interp_stats *stats, diag *d);

#endif
