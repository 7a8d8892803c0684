/*
 * ir_support.h — walking a compiled program's IR, for the tests that
 * assert its structure (tests/unit/test_sharing.c, test_simplify.c).
 * Like emit_support.h this reads internal structures (the program's IR,
 * abi/src/program.h): only tests that link accel_internal (tests/unit/)
 * may call it.
 */
#ifndef ACCEL_TESTS_IR_SUPPORT_H
#define ACCEL_TESTS_IR_SUPPORT_H

#include "abi/src/program.h"

/* Called for every edge into a node reachable from the root (and once for
 * the root): `again` is 0 the first time a node is reached, and nonzero
 * on every later edge into it. */
typedef void (*ts_ir_visit_fn)(const ir_node *n, int again, void *arg);

/* Walks p's IR depth first from its root, arguments in order, calling
 * visit as above; a node's arguments are walked once, after its first
 * visit. */
void ts_ir_walk(const acc_program *p, ts_ir_visit_fn visit, void *arg);

#endif
