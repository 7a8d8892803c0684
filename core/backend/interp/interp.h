/*
 * interp.h — the reference interpreter: the executable specification of
 * the language, and a backend (backend.h) whose every step it evaluates
 * directly, element by element, reporting runtime errors (out-of-bounds
 * reads, fold1 of an empty row, division by zero) as status codes.
 *
 * It is also the host evaluator of every run, whatever the backend: the
 * executor begins its run first (env->host), and the other backends'
 * steps evaluate shapes, seeds and conditions with it
 * (core/backend/host/host_eval.h), and hand it a step to replay when
 * their kernel finds an error it cannot name (run_step's replay).
 */
#ifndef ACC_CORE_BACKEND_INTERP_INTERP_H
#define ACC_CORE_BACKEND_INTERP_INTERP_H

#include "core/backend/backend.h"

/* The interpreter as a backend (one instance, shared by every context
 * that runs on it). */
extern const backend_ops interp_ops;

/* The interpreter's state for a run (interp_state.h). */
struct interp;

/* The value of a term of array sort (through lets, variables, tuples and
 * components) as new references in out[] (one per array leaf of its
 * type), as the run's values hold them.  Returns the run diag's status
 * (an error recorded: nothing stored in out). */
acc_status interp_value_of(struct interp *st, const ir_node *term,
                           rt_array **out);
/* The leaves of a closed scalar term evaluated on the host (valid until
 * the term is evaluated again); NULL after recording an error. */
const ir_value *interp_scalar(struct interp *st, const ir_node *term);

#endif
