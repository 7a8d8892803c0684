/*
 * resolve.h — foreign resolution (DESIGN.md §1, pass 5).  Calling the
 * chosen implementations at run time is core/backend/foreign_call.h.
 *
 * reg_resolve_program runs after fusion.  For each foreign node the
 * program can reach it picks, from the context's registry, the
 * implementation of that name for the program's backend with the highest
 * priority whose capability predicate accepts the argument and result
 * types (ties: the first registered), creates its per-program state, and
 * records the choice in the node (u.foreign.impl, .state) with a sentence
 * for the plan (u.foreign.reason).  Otherwise the node keeps impl NULL and
 * the reason says why the fallback is used; foreign nodes inside a
 * fallback are resolved the same way (a cascade), those inside a fallback
 * that is not used are left alone.  foreignExp nodes can only be
 * implemented by C functions with a matching scalar signature.
 */
#ifndef ACC_FOREIGN_RESOLVE_H
#define ACC_FOREIGN_RESOLVE_H

#include "core/ir/program_ir.h"
#include "foreign/autoload.h"
#include "foreign/registry.h"

/* Resolves the foreign nodes of p against registry r for a program on
 * `backend`, loading first the plugins `autoload` names (the context's
 * own, foreign/autoload.h; NULL: none).  Errors (out of memory) are
 * recorded on d. */
acc_status reg_resolve_program(ir_program *p, reg_registry *r,
                               reg_autoload *autoload, acc_backend backend,
                               diag *d);
/* Destroys the per-program states created by reg_resolve_program. */
void reg_release_program(ir_program *p);

#endif
