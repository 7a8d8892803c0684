/*
 * sharing.h — sharing recovery (DESIGN.md §4).
 *
 * A program arrives as a DAG: a node used twice is one value used twice.
 * share_recover turns it into a tree in which every shared term is bound
 * once by a let at the lowest node that dominates all its uses, and each
 * use is a variable.  It follows the three phases of the published
 * algorithm (McDonell et al., "Optimising purely functional GPU programs",
 * ICFP 2013): prune (occurrence counts; each node's subterms are visited
 * once), float (shared terms float up to where their count is complete;
 * deeper ones bind first), and binder introduction.  It runs in time
 * linear in the size of the DAG (times the number of shared terms pending
 * at a node), so a DAG with 2^60 paths is no harder than its node count.
 *
 * Rules beyond the paper, all documented in docs/SHARING.md:
 *  - Array terms and scalar terms are recovered separately.  An array term
 *    read from scalar code (xs ! i, shape xs) is always let-bound at the
 *    array level, so scalar code only refers to array variables and inputs.
 *  - Scalar terms are recovered per scalar argument of an array operation;
 *    one used by two array operations is computed in each.
 *  - Lambdas are never bound; a lambda used twice is split in two.
 *  - No speculation: a term all of whose uses sit behind a lazy edge (a
 *    branch of if or acond, the right operand of && and ||, a while body)
 *    is not bound where it would be evaluated unconditionally; its uses
 *    then share one node without a let.
 *  - Leaves (constants, parameters, inputs) are never bound.
 */
#ifndef ACC_CORE_SHARING_SHARING_H
#define ACC_CORE_SHARING_SHARING_H

#include "core/ir/program_ir.h"

/* Rewrites p->root in place; records errors (only out of memory) on d. */
acc_status share_recover(ir_program *p, diag *d);

#endif
