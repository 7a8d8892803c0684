/*
 * foreign_support.h — helpers for the foreign-function tests
 * (tests/foreign/): compiling one result, reading the plan, running with
 * host vectors, and the reference values the operations are checked
 * against.  Public API only.
 */
#ifndef ACCEL_TESTS_FOREIGN_SUPPORT_H
#define ACCEL_TESTS_FOREIGN_SUPPORT_H

#include "support.h"

/* Compiles the one result `r` of g; fails the test (with the message)
 * when compiling fails. */
acc_program *tf_compile(acc_context *ctx, acc_graph *g, acc_node *r);
/* The program's plan as text (release with acc_free). */
char *tf_plan(const acc_program *p);
/* Runs p on n inputs; outputs[0..n_out-1] are reset and left for the
 * library to allocate (release them with acc_array_release).  Fails the
 * test when the run fails. */
void tf_run(acc_program *p, size_t n_in, const acc_array *in, size_t n_out,
            acc_array *out);
/* An f64 vector or matrix input descriptor over `data`. */
acc_array tf_f64(int32_t rank, const int64_t *extents, double *data);
/* The largest |a[i] - b[i]| over n values. */
double tf_max_diff(const double *a, const double *b, size_t n);

#endif
