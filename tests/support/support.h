/*
 * support.h — small helpers over the public API for the Criterion tests.
 *
 * Every helper goes through accel.h only; none reaches into the library's
 * internals, so the tests exercise exactly what users can call.  Helpers
 * that cannot sensibly continue after a failure (creating a context or a
 * graph) fail the current test with cr_assert; the others return a status
 * for the test to check.
 */
#ifndef ACCEL_TESTS_SUPPORT_H
#define ACCEL_TESTS_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "accel.h"

/* A new context on backend `b`; fails the test (with acc_last_error) when
 * it cannot be created.  Destroy with acc_context_destroy. */
acc_context *ts_context(acc_backend b);

/* A new graph in `ctx`; fails the test when it cannot be created.  Free
 * with acc_graph_free. */
acc_graph *ts_graph(acc_context *ctx);

/* Evaluates the closed scalar term `expr`: wraps it in acc_unit, compiles
 * the graph with that one result, runs it with no inputs and a
 * library-allocated output, and copies the element into `out_leaves`.
 * The leaves of the result are stored one after another, each in
 * acc_scalar_size bytes, without padding (for a scalar type: just the
 * value); `out_size` must equal their total size, or the test fails.
 * Returns the status of acc_compile or acc_run; on failure `out_leaves` is
 * untouched.  The program is freed and the output released before
 * returning.  `expr` may be NULL (after a builder error): the status is
 * then the graph's first error, as acc_compile reports it. */
acc_status ts_eval_scalar(acc_context *ctx, acc_graph *g, acc_node *expr,
                          void *out_leaves, size_t out_size);

/* Compiles `results` of `g`, runs the program on `inputs` and frees it.
 * `outputs` must have room for one descriptor per output array (a tuple of
 * arrays counts one per array); they are reset and left for the library to
 * allocate, so the caller releases each with acc_array_release when the
 * status is ACC_OK (on failure none is left allocated). */
acc_status ts_run(acc_context *ctx, acc_graph *g, size_t n_results,
                  acc_node *const *results, size_t n_in,
                  const acc_array *inputs, acc_array *outputs);

/* A borrowed host descriptor of element type `elem`, rank `rank` and the
 * given extents (NULL allowed for rank 0), whose leaf buffers are
 * data[0 .. acc_type_leaf_count(elem)-1]; `data` may be NULL for no
 * buffers.  Fails the test when acc_array_init refuses the arguments. */
acc_array ts_host_array(const acc_type *elem, int32_t rank,
                        const int64_t *extents, void *const *data);

/* Scalar constants of the named type (shorthand for acc_const_*). */
acc_node *ts_i64(acc_graph *g, int64_t v);
acc_node *ts_i32(acc_graph *g, int32_t v);
acc_node *ts_f32(acc_graph *g, float v);
acc_node *ts_f64(acc_graph *g, double v);
acc_node *ts_bool(acc_graph *g, int v);

/* A constant of any integer (or bool) type `s` holding `v` converted as by
 * acc_convert; for unsigned 64-bit values above INT64_MAX use ts_u64. */
acc_node *ts_int(acc_graph *g, acc_scalar s, int64_t v);
/* A constant of type `s` holding the unsigned value `v` (wrapped to s). */
acc_node *ts_u64(acc_graph *g, acc_scalar s, uint64_t v);

/* Whether `haystack` contains `needle`, ignoring ASCII case; NULL-safe
 * (a NULL haystack contains nothing). */
int ts_contains_ci(const char *haystack, const char *needle);

/* Black-Scholes (LANGUAGE.md §4) over an input Vector (f32, f32, f32) of
 * (price, strike, years), built with its shared scalar terms as in the
 * source: map (\opt -> (call, put)) opts. */
acc_node *ts_blackscholes(acc_context *ctx, acc_graph *g);
/* The same formula in double precision. */
void ts_blackscholes_ref(double price, double strike, double years,
                         double *call, double *put);

#endif /* ACCEL_TESTS_SUPPORT_H */
