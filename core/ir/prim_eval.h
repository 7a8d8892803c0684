/*
 * prim_eval.h — the reference semantics of scalar primitives on canonical
 * values (LANGUAGE.md §2).  Every other backend is tested against these;
 * the interpreter evaluates with them and simplify folds constants with
 * them (in core/ir so that both layers share the one definition).
 */
#ifndef ACC_CORE_IR_PRIM_EVAL_H
#define ACC_CORE_IR_PRIM_EVAL_H

#include "core/ir/ir.h"

/* Applies op to operands of scalar type t (b is ignored for unary ops; for
 * shifts b has type bt).  The result has the op's result type (`to` for
 * truncate/round/floor/ceiling).  Returns 0 and records a runtime error on
 * d for division by zero or a negative shift amount. */
int prim_apply(acc_primop op, acc_scalar t, ir_value a, acc_scalar bt,
               ir_value b, acc_scalar to, ir_value *out, diag *d);

#endif
