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

/* foreign "blas.axpy" over arg = (a : Scalar f64, x, y : Vector f64), with
 * the fallback zipWith (\u v -> the a * u + v) x y (axpy has no standard
 * library entry). */
acc_node *tf_axpy(acc_graph *g, acc_node *arg);

/* A user kernel's descriptor for acc_register_kernel: struct_size and the
 * given fields set, every other field zero. */
acc_user_kernel tf_user_kernel(const char *name, acc_backend backend,
                               const char *source, const char *entry,
                               const char *signature);
/* The CUDA source of the user-kernel tests' kernel, extern "C" uk_scale
 * (signature void(const f64*, f64*, i64)): out[i] = 3 x[i] + 1 for every
 * i < n, one thread per element. */
extern const char tf_scale_cu[];

#endif
