/*
 * simplify.h — the simplifier (DESIGN.md §1's pass between check and
 * fusion): rewrites that make the program smaller or put it into the form
 * fusion expects, none of which changes a result or a runtime error.
 *
 *  - let floating: a let around an array argument that is always
 *    evaluated (of a producer, or of a consumer) moves out to around the
 *    operation, so the producer behind it is visible to fusion;
 *  - sources of producers: an argument of zipWith, backpermute, replicate
 *    or slice that is neither a variable, an input nor a producer (a
 *    consumer, an acond, ...) is bound to a let first, so every producer
 *    reads variables or producers only (map keeps a consumer argument:
 *    fusion applies the map as the consumer writes);
 *  - shape-only uses: `shape a` and `size a` of a producer (let-bound or
 *    written in place) become its shape term (`shape (map f xs)` is
 *    `shape xs`, `shape (generate sh f)` is sh), so a producer read only
 *    through its shape is not a use of its elements;
 *  - constant folding of scalar expressions (fold.c), with the language's
 *    exact semantics, through the interpreter's own primitives
 *    (core/ir/prim_eval.h).
 *
 * The rules of the form fusion expects have one implementation, in
 * form.h, which fusion calls for the terms it builds.  ACC_DUMP=simplify
 * prints the IR after the pass; ACC_DISABLE=simplify skips the pass: no
 * constant folding and no shape-only rewrite, while fusion's calls of
 * form.h still float the lets of what it fuses (and fusion counts
 * shape-only uses as no data use), so the kernels are the same.
 */
#ifndef ACC_CORE_SIMPLIFY_SIMPLIFY_H
#define ACC_CORE_SIMPLIFY_SIMPLIFY_H

#include "core/ir/program_ir.h"

/* Simplifies p in place.  Errors (only out of memory) are recorded on d;
 * the program is then discarded by the caller. */
acc_status simplify_program(ir_program *p, diag *d);

#endif
