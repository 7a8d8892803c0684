/*
 * check.h — the checker and verifier of a program's IR.
 *
 * Runs after sharing recovery (and after every later pass): every term has
 * the type its operation implies, every variable is bound by an enclosing
 * let, every parameter is used inside the lambda that binds it (so array
 * functions and array operations are closed over scalar parameters).  The
 * builder already rejects ill-typed programs; this pass catches programs
 * that passes or elaborators got wrong, and names the operation and what
 * was expected versus found.  It is linear in the size of the program.
 */
#ifndef ACC_CORE_CHECK_CHECK_H
#define ACC_CORE_CHECK_CHECK_H

#include "core/ir/program_ir.h"

acc_status check_program(const ir_program *p, diag *d);

#endif
