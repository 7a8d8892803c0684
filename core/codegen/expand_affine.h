/*
 * expand_affine.h — the compile-time fact behind the ranged permute' pass
 * (docs/CPU_BACKEND.md): that an expansion's targets grow with the
 * position inside each source element, so a thread that owns a range of
 * target cells can find, per source element, the few positions whose
 * targets fall into it instead of visiting them all.
 */
#ifndef ACC_CORE_CODEGEN_EXPAND_AFFINE_H
#define ACC_CORE_CODEGEN_EXPAND_AFFINE_H

#include "core/ir/program_ir.h"

/* Whether `expand size get xs` (ex) of program p has a rank-1 target
 * that, wherever it is not ignore, is affine in get's position k
 * (wrap-around i64 arithmetic): target(x, k) = a(x) + k * s(x), where
 * neither a nor s depends on k.  The target may be chosen by conditions
 * between such a term and ignore (`if m < n then [m] else ignore`), and
 * is otherwise built from k, terms that do not mention k, let-bound
 * values, +, - (binary and unary) and * with a factor that does not
 * mention k.  The kernel then evaluates the candidate target (ignore's
 * alternatives taken, cg_set_ignore_collapse) at k = 0 and 1 to get a
 * and s per element; where s >= 0 and a + (size - 1) * s does not
 * overflow, the targets grow with k.  Anything else (a division, a
 * conversion, a loop, a tuple read, a condition between two targets, an
 * ignore-choosing condition inside a term that does not mention k) is
 * refused: 0. */
int cg_expand_affine(const ir_program *p, const ir_node *ex);

#endif
