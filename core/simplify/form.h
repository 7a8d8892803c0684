/*
 * form.h — the rules of the form fusion expects, shared by the simplifier
 * and by fusion (one implementation: simplify applies them to the
 * program, fusion to the terms it builds itself).
 *
 * simplify_program (simplify.h) puts the whole program into this form
 * before fusion runs.  Fusion rewrites producers into new terms (generate
 * nodes, lets of the variables it introduces), and those must be in the
 * same form for its next step, so it applies the same rules, through this
 * header, to what it creates.  With ACC_DISABLE=simplify the program
 * reaches fusion unsimplified and fusion's own application of these rules
 * is what floats the lets around the arguments it fuses: the kernels are
 * the same either way (only constant folding and the shape-only rewrite
 * of the simplifier are then skipped; fusion counts shape-only uses as
 * non-data uses by itself).
 */
#ifndef ACC_CORE_SIMPLIFY_FORM_H
#define ACC_CORE_SIMPLIFY_FORM_H

#include "core/ir/program_ir.h"

enum { FORM_LETS_MAX = 64 };

/* The lets that move out to around an operation, outermost first.  At
 * most FORM_LETS_MAX per operation: a let beyond stays where it is, which
 * is correct, only less fused. */
typedef struct form_lets {
    uint32_t vars[FORM_LETS_MAX];
    ir_node *bound[FORM_LETS_MAX];
    uint32_t n;
} form_lets;

/* Whether n names an array without computing it (an input, a variable, a
 * parameter). */
int form_is_ref(const ir_node *n);

/* Whether op is a consumer: an operation that reads its array arguments
 * as a whole (fold, scans, permutes, stencils, expand), into which fusion
 * embeds producers. */
int form_is_consumer(ir_op op);

/* Let floating: the lets around a (an argument that is always evaluated)
 * are appended to lets and the term inside them is returned.  Variables
 * are unique, so no other argument can see the move; the caller wraps the
 * operation in the collected lets. */
ir_node *form_float_lets(ir_node *a, form_lets *lets);

#endif
