/*
 * eval_foreign.c — scalar foreign nodes in the reference interpreter
 * (LANGUAGE.md §3.9): the C function chosen at compile time
 * (foreign/resolve.h) when there is one, else the fallback applied to
 * the argument.  Array foreign nodes are steps of the schedule, run by
 * the executor (core/exec/run.c) through the backend's call_foreign.
 */
#include "core/backend/interp/interp_state.h"

#include "core/backend/foreign_call.h"

const ir_value *interp_eval_foreign_exp(interp *st, const ir_node *n)
{
    const ir_value *a = interp_eval(st, n->args[1]);
    if (!a)
        return NULL;
    if (reg_scalar_callable(n)) {
        ir_value *out = interp_slot(st, n);
        reg_call_scalar(n, a, out);
        return out;
    }
    const ir_value *args[1] = {a};
    return interp_apply(st, n->args[0], args);
}
