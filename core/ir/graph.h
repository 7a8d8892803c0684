/*
 * graph.h — graphs under construction and the helpers every builder
 * function uses: the entry check, sticky errors, node allocation.
 */
#ifndef ACC_CORE_IR_GRAPH_H
#define ACC_CORE_IR_GRAPH_H

#include "core/base/handles.h"
#include "core/ir/ir.h"
#include "core/ir/types.h"

/* The graph handle.  Its context is owned by the ABI layer (abi/src):
 * the builder only needs the context's type store, copied here when the
 * graph is created (abi/src/graph_api.c). */
struct acc_graph {
    acc_context *ctx;    /* opaque here: retained by the graph */
    type_store *types;   /* ctx's type store */
    arena *arena;
    diag diag;           /* the first builder error; sticky */
    uint32_t n_nodes;    /* ids handed out */
    uint32_t n_params;   /* param slots handed out */
    ir_node **inputs;    /* acc_input nodes in creation order (malloc'd) */
    size_t n_inputs, cap_inputs;
    const char **input_names; /* per input, its name or NULL (malloc'd;
                                 the names are in the arena); may be
                                 shorter than inputs */
    size_t n_input_names;
};

/* Entry check of a builder call named `op`: the graph is live and has no
 * error yet.  Returns 0 (and the call returns NULL) otherwise. */
int gr_begin(acc_graph *g, const char *op);
/* Checks node argument `what` of `op`: non-NULL, a node (its magic), and
 * built in `g`.  Every node a builder call takes goes through this check
 * (directly or through gr_want_*, gr_check_fun) before it is read
 * further, so a node of another graph, or a pointer to readable memory
 * that is not a node, is an ACC_ERR_INVALID_ARGUMENT naming the argument.
 * (A node of a freed graph is freed memory: not detectable.) */
int gr_arg(acc_graph *g, const char *op, const char *what,
           const acc_node *n);
/* The same for type argument `what`: non-NULL, a type, and static or
 * made in g's context (types.h: ty_check). */
int gr_type(acc_graph *g, const char *op, const char *what,
            const acc_type *t);
/* Names input `index` (the text front end names them after the entry's
 * parameters; signatures report the names).  0 when out of memory. */
int gr_name_input(acc_graph *g, size_t index, const char *name);
/* The name of input `index`, or NULL. */
const char *gr_input_name(const acc_graph *g, size_t index);
/* Records the graph's first error and returns NULL. */
acc_node *gr_fail(acc_graph *g, acc_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A new node with the given arguments; computes depth and free params.
 * For IR_LAMBDA the first n_params arguments are the bound params (pass
 * n_bound).  NULL with a recorded error on failure. */
ir_node *gr_node(acc_graph *g, ir_op op, const acc_type *type,
                 uint32_t n_args, acc_node *const *args, uint32_t n_bound);
/* Sort checks of an argument: a scalar value (not an array, not a
 * function); a scalar of type s; a single array. */
int gr_want_value(acc_graph *g, const char *op, const char *what,
                  const acc_node *n);
int gr_want_scalar(acc_graph *g, const char *op, const char *what,
                   const acc_node *n, acc_scalar s);
int gr_want_array(acc_graph *g, const char *op, const char *what,
                  const acc_node *n);
/* Checks that f is a lambda of n parameters of the given types; returns its
 * result type, or NULL with an error recorded. */
const acc_type *gr_check_fun(acc_graph *g, const char *op, const char *what,
                             const acc_node *f, size_t n,
                             const acc_type *const *param_types);
/* A tuple/array type in the graph's context, recording errors on g. */
const acc_type *gr_tuple_type(acc_graph *g, size_t n,
                              const acc_type *const *fields);
const acc_type *gr_array_type(acc_graph *g, const acc_type *elem,
                              int32_t rank);
/* Writes a type name into a static-per-call buffer for messages. */
#define GR_TYPE(t, buf) ty_format((t), (buf), sizeof(buf))

#endif
