/*
 * builder_common.h — node construction shared by the builder files of the
 * collective operations beyond the foundation (builder_struct.c,
 * builder_scan.c): an operation node whose result type is an array or a
 * tuple of arrays, checked to be closed.
 */
#ifndef ACC_CORE_IR_BUILDER_COMMON_H
#define ACC_CORE_IR_BUILDER_COMMON_H

#include "core/ir/graph.h"

/* A new node of array-sort type `type` (NULL after an earlier failure is
 * passed through).  Rejects, naming `op`, a node that depends on a scalar
 * lambda parameter: array operations are closed. */
acc_node *gr_closed_node(acc_graph *g, const char *op, ir_op kind,
                         const acc_type *type, uint32_t n_args,
                         acc_node *const *args);

#endif
