/*
 * form.c — the rules of the form fusion expects (form.h), used by the
 * simplifier and by fusion for the terms it builds.
 */
#include "core/simplify/form.h"

int form_is_ref(const ir_node *n)
{
    return n->op == IR_INPUT || n->op == IR_VAR || n->op == IR_PARAM;
}

int form_is_consumer(ir_op op)
{
    switch (op) {
    case IR_FOLD: case IR_FOLD1: case IR_FOLD_SEG: case IR_SCAN:
    case IR_SCAN_SEG: case IR_PERMUTE: case IR_PERMUTE_PAIRS:
    case IR_STENCIL: case IR_STENCIL2: case IR_EXPAND:
        return 1;
    default:
        return 0;
    }
}

ir_node *form_float_lets(ir_node *a, form_lets *lets)
{
    while (a->op == IR_LET && lets->n < FORM_LETS_MAX) {
        lets->vars[lets->n] = a->u.let.var;
        lets->bound[lets->n++] = a->args[0];
        a = a->args[1];
    }
    return a;
}
