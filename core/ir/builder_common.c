/*
 * builder_common.c — the closed-node helper of builder_common.h.
 */
#include "core/ir/builder_common.h"

acc_node *gr_closed_node(acc_graph *g, const char *op, ir_op kind,
                         const acc_type *type, uint32_t n_args,
                         acc_node *const *args)
{
    if (!type)
        return NULL;
    ir_node *n = gr_node(g, kind, type, n_args, args, 0);
    if (n && n->free.n > 0)
        return gr_fail(g, ACC_ERR_TYPE, "%s: the operation refers to a lambda "
                       "parameter outside the lambda that binds it; array "
                       "operations cannot depend on scalar parameters", op);
    return n;
}
