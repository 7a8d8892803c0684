/*
 * program_ir.h — the IR a compiled program owns: a copy of the nodes that
 * its results need, numbered densely, with per-node value slots for the
 * interpreter, and its signature.
 */
#ifndef ACC_CORE_IR_PROGRAM_IR_H
#define ACC_CORE_IR_PROGRAM_IR_H

#include "core/ir/graph.h"

typedef struct ir_program {
    arena *arena;
    uint32_t n_nodes;   /* ids 0 .. n_nodes-1 */
    ir_node **nodes;    /* by id (malloc'd, grows with ir_program_node) */
    uint32_t cap_nodes;
    uint32_t n_params;  /* param slots 0 .. n_params-1 */
    ir_node **inputs;   /* every acc_input of the graph, in order */
    size_t n_inputs;
    const char **input_names; /* per input: its name (text programs) or
                                 NULL */
    ir_node **results;  /* the compiled results (array sort), as copied */
    size_t n_results;
    ir_node *root;      /* the program as one term: results[0], or a tuple
                           of the results; passes rewrite it */
    uint32_t n_vars;    /* let-bound variables 0 .. n_vars-1 */
    ir_node **var_bound; /* per variable: the term its let binds */
    const acc_type **outputs; /* array types of the flattened outputs */
    size_t n_outputs;
    size_t *slot_offset; /* per node id: first value slot (value nodes) */
    size_t n_slots;      /* value slots one evaluation needs */
    size_t duplicated;   /* producers fusion computes in several consumers */
} ir_program;

/* Copies what `results` need out of graph g into a fresh ir_program (the
 * nodes, renumbered densely, the inputs, the outputs and the root).  The
 * graph must have no builder error.  On failure records on d and leaves
 * *out empty.  The passes are run by core/compile. */
acc_status ir_program_copy(acc_graph *g, size_t n_results,
                           acc_node *const *results, ir_program *out,
                           diag *d);
void ir_program_free(ir_program *p);

/* A new node owned by the program (id = the next free id).  NULL when out
 * of memory.  args are copied. */
ir_node *ir_program_node(ir_program *p, ir_op op, const acc_type *type,
                         uint32_t n_args, ir_node *const *args);
/* Recomputes slot_offset/n_slots for the current node set; call after a
 * pass adds nodes.  Returns 0 when out of memory. */
int ir_program_layout(ir_program *p);

/* The term whose value is the value of n itself: through lets and
 * variables, and into the fallback body of a foreign node that runs its
 * fallback (no implementation chosen), whose result is the node's. */
const ir_node *ir_value_term(const ir_program *p, const ir_node *n);

/* The node whose value is output `leaf` of the program (the root's leaves
 * flattened, through ir_value_term and tuples), or NULL when that output
 * is not the whole value of one array node (a component of a node with a
 * tuple of arrays as its value). */
const ir_node *ir_program_output_node(const ir_program *p, size_t leaf);

#endif
