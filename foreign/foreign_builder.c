/*
 * foreign_builder.c — the builder functions of foreign nodes
 * (LANGUAGE.md §3.8, §3.9): acc_foreign over arrays and acc_foreign_exp
 * over scalars.  The name is copied into the graph's arena; the fallback
 * must be closed (no free parameters), which the checker verifies again
 * after every pass.
 */
#include "core/ir/builder_common.h"

#include <string.h>

/* The name, copied into the graph's arena; NULL after recording an error. */
static const char *copy_name(acc_graph *g, const char *op, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 127) {
        gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: the name must be 1 to 127 "
                "characters (it is %s)", op, name ? "too long or empty"
                                                  : "NULL");
        return NULL;
    }
    char *copy = arena_alloc(g->arena, n + 1);
    if (!copy) {
        gr_fail(g, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory", op);
        return NULL;
    }
    memcpy(copy, name, n + 1);
    return copy;
}

/* The fallback is a unary function of arg's type with no free parameters;
 * returns its result type. */
static const acc_type *check_fallback(acc_graph *g, const char *op,
                                      acc_node *fallback, const acc_node *arg)
{
    const acc_type *t = gr_check_fun(g, op, "the fallback", fallback, 1,
                                     &arg->type);
    if (t && (fallback->free.n > 0 || fallback->afree.n > 0)) {
        gr_fail(g, ACC_ERR_TYPE, "%s: the fallback refers to a parameter of "
                "an enclosing function; a fallback must be closed", op);
        return NULL;
    }
    return t;
}

static acc_node *foreign_node(acc_graph *g, const char *op, ir_op kind,
                              const char *name, acc_node *fallback,
                              acc_node *arg, const acc_type *t)
{
    const char *copy = copy_name(g, op, name);
    if (!copy)
        return NULL;
    acc_node *args[2] = {fallback, arg};
    acc_node *n = kind == IR_FOREIGN
                      ? gr_closed_node(g, op, kind, t, 2, args)
                      : gr_node(g, kind, t, 2, args, 0);
    if (n)
        n->u.foreign.name = copy;
    return n;
}

acc_node *acc_foreign(acc_graph *g, const char *name, acc_node *fallback,
                      acc_node *arg)
{
    char t[128];
    static const char op[] = "foreign";
    if (!gr_begin(g, op) || !gr_arg(g, op, "the argument", arg))
        return NULL;
    if (arg->op == IR_LAMBDA || !arg->type->array_sort)
        return gr_fail(g, ACC_ERR_TYPE, "foreign: the argument has type %s, "
                       "expected an array or a tuple of arrays",
                       arg->op == IR_LAMBDA ? "function"
                                            : GR_TYPE(arg->type, t));
    const acc_type *rt = check_fallback(g, op, fallback, arg);
    if (!rt)
        return NULL;
    if (!rt->array_sort)
        return gr_fail(g, ACC_ERR_TYPE, "foreign: the fallback returns %s, "
                       "expected an array or a tuple of arrays",
                       GR_TYPE(rt, t));
    return foreign_node(g, op, IR_FOREIGN, name, fallback, arg, rt);
}

acc_node *acc_foreign_exp(acc_graph *g, const char *name, acc_node *fallback,
                          acc_node *arg)
{
    static const char op[] = "foreignExp";
    if (!gr_begin(g, op) || !gr_want_value(g, op, "the argument", arg))
        return NULL;
    const acc_type *rt = check_fallback(g, op, fallback, arg);
    if (!rt)
        return NULL;
    return foreign_node(g, op, IR_FOREIGN_EXP, name, fallback, arg, rt);
}
