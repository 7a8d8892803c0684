/*
 * eval_foreign.c — foreign nodes in the reference interpreter
 * (LANGUAGE.md §3.8, §3.9): the implementation chosen at compile time
 * (foreign/resolve.h) is called when there is one; otherwise, or when it
 * refuses the extents at run time (ACC_ERR_UNSUPPORTED), the fallback is
 * applied to the argument, as awhile applies its body.
 */
#include "core/backend/interp/interp_state.h"

#include "foreign/resolve.h"

/* The chosen implementation: through the backend's hook when it has one,
 * else on host copies of the arguments. */
static acc_status call_impl(interp *st, const ir_node *n,
                            rt_array *const *args, rt_array **out)
{
    if (st->hook && st->hook->call_foreign)
        return st->hook->call_foreign(st->hook->state, st, n, args, out);
    for (size_t i = 0; i < n->args[1]->type->n_leaves; i++)
        if (!rt_host(args[i], st->d))
            return st->d->status;
    return reg_call(n, args, out, st->d);
}

int interp_eval_foreign(interp *st, const ir_node *n, rt_array **out)
{
    const interp_value *arg = interp_eval_array(st, n->args[1]);
    if (!arg)
        return 0;
    if (n->u.foreign.impl) {
        acc_status s = call_impl(st, n, arg->arrays, out);
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
    if (reg_scalar_callable(n)) {
        ir_value *out = interp_slot(st, n);
        reg_call_scalar(n, a, out);
        return out;
    }
    const ir_value *args[1] = {a};
    return interp_apply(st, n->args[0], args);
}
