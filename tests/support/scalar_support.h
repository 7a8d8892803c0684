/*
 * scalar_support.h — helpers of the scalar-primitive tests
 * (tests/lang/test_scalar_*.c): constants of any scalar type, reading a
 * result leaf back, and evaluating one closed scalar expression on the
 * context's backend with the failures reported per table row.
 */
#ifndef ACCEL_TESTS_SCALAR_SUPPORT_H
#define ACCEL_TESTS_SCALAR_SUPPORT_H

#include <stdint.h>

#include "accel.h"

/* Whether `op` takes one operand (acc_unop) rather than two. */
int sp_is_unary(acc_primop op);
/* Whether `t` is f32 or f64. */
int sp_is_float(acc_scalar t);

/* An integer or bool constant: unsigned types are built from the bit
 * pattern (so -1 as u64 is UINT64_MAX) without relying on wrapping. */
acc_node *sp_mk_int(acc_graph *g, acc_scalar t, int64_t v);
/* A float constant of type `t` (f32 or f64). */
acc_node *sp_mk_float(acc_graph *g, acc_scalar t, double v);
/* Reads an integer/bool leaf: signed types sign-extend, unsigned types
 * zero-extend (u64 keeps its bit pattern), bool is the raw byte. */
int64_t sp_load_int(acc_scalar t, const unsigned char *buf);
/* Reads an f32 or f64 leaf as a double. */
double sp_load_float(acc_scalar t, const unsigned char *buf);

/* Evaluates `e` (which must have scalar type rt) into buf with
 * ts_eval_scalar; reports a NULL node, a wrong type or a failed run with
 * `row` in the message (cr_expect) and returns whether buf holds the
 * value. */
int sp_eval_into(acc_context *ctx, acc_graph *g, acc_node *e, acc_scalar rt,
                 unsigned char *buf, const char *row);
/* Evaluates a closed scalar expression of type rt and returns the status
 * only. */
acc_status sp_eval_status(acc_context *ctx, acc_graph *g, acc_node *e,
                          acc_scalar rt);

/* Runs a row checker over a whole static table. */
#define SP_RUN_ROWS(fn, rows) fn(rows, sizeof(rows) / sizeof(rows[0]))

/* Short names of the limits the tables use. */
#define I8MIN INT8_MIN
#define I8MAX INT8_MAX
#define I16MIN INT16_MIN
#define I32MIN INT32_MIN
#define I32MAX INT32_MAX
#define I64MIN INT64_MIN
#define I64MAX INT64_MAX
#define U64MAX ((int64_t)-1) /* the bit pattern of UINT64_MAX */
#define U64TOP INT64_MIN     /* the bit pattern of 1 << 63 as u64 */

#endif
