/*
 * eval_foreign.c — foreign nodes in the reference interpreter
 * (LANGUAGE.md §3.8, §3.9): the implementation chosen at compile time
 * (foreign/resolve.h) is called when there is one; otherwise, or when it
 * refuses the extents at run time (ACC_ERR_UNSUPPORTED), the fallback is
 * applied to the argument, as awhile applies its body.
 */
#include "core/backend/interp/interp_state.h"

#include "foreign/resolve.h"

int interp_eval_foreign(interp *st, const ir_node *n, rt_array **out)
{
    const interp_value *arg = interp_eval_array(st, n->args[1]);
    if (!arg)
        return 0;
    if (n->u.foreign.impl) {
        acc_status s = reg_call(n, arg->arrays, out, st->d);
        if (s == ACC_OK)
            return 1;
        if (s != ACC_ERR_UNSUPPORTED)
            return 0;
    }
    rt_array *const *args[1] = {arg->arrays};
    const interp_value *v = interp_apply_array(st, n->args[0], args);
    if (!v)
        return 0;
    for (size_t j = 0; j < v->n; j++)
        rt_retain(out[j] = v->arrays[j]);
    return 1;
}

const ir_value *interp_eval_foreign_exp(interp *st, const ir_node *n)
{
    const ir_value *a = interp_eval(st, n->args[1]);
    if (!a)
        return NULL;
    if (n->u.foreign.impl) {
        ir_value *out = interp_slot(st, n);
        reg_call_scalar(n, a, out);
        return out;
    }
    const ir_value *args[1] = {a};
    return interp_apply(st, n->args[0], args);
}
