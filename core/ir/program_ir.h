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
    uint32_t n_params;  /* param slots 0 .. n_params-1 */
    ir_node **inputs;   /* every acc_input of the graph, in order */
    size_t n_inputs;
    ir_node **results;  /* the compiled results (array sort) */
    size_t n_results;
    const acc_type **outputs; /* array types of the flattened outputs */
    size_t n_outputs;
    size_t *slot_offset; /* per node id: first value slot (value nodes) */
    size_t n_slots;      /* value slots one evaluation needs */
} ir_program;

/* Copies what `results` need out of graph g into a fresh ir_program.  The
 * graph must have no builder error.  On failure records on d and leaves
 * *out empty. */
acc_status ir_program_build(acc_graph *g, size_t n_results,
                            acc_node *const *results, ir_program *out,
                            diag *d);
void ir_program_free(ir_program *p);

#endif
