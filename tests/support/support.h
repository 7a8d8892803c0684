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
/* Whether a context of the cuda backend can be created, asked in a child
 * process (the runner must never initialise the CUDA driver: the tests it
 * forks could not use it); the refusal goes into why. */
int ts_cuda_usable(char *why, size_t size);

acc_context *ts_context(acc_backend b);
/* The same, but the context loads no plugin by itself (plugins "none"),
 * so foreign nodes use their fallbacks unless a plugin is loaded. */
acc_context *ts_context_without_plugins(acc_backend b);

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

/* ---- fixture (fixtures.c) ---- */

/* Opens an interpreter context into *ctx and, unless g is NULL, a graph. */
void ts_fixture_open(acc_context **ctx, acc_graph **g);
/* ts_fixture_open with ACC_DISABLE=simplify,fusion set (IR as sharing
 * leaves it). */
void ts_fixture_open_unfused(acc_context **ctx, acc_graph **g);
/* Frees *g (unless g is NULL), destroys *ctx, and resets both to NULL. */
void ts_fixture_close(acc_context **ctx, acc_graph **g);
/* Frees *g and replaces it by a new graph of `ctx`. */
void ts_fresh_graph(acc_context *ctx, acc_graph **g);
/* The context of a suite whose tests share one fixture, a context and
 * nothing else: TestSuite(name, .init = ts_ctx_open, .fini = ts_ctx_close)
 * sets ts_ctx to ts_context(ACC_BACKEND_INTERP) (ACC_TEST_BACKEND's
 * backend in the .cpu and .cuda runs) before each test and destroys it
 * after. */
extern acc_context *ts_ctx;
void ts_ctx_open(void);
void ts_ctx_close(void);

/* ---- compiling and running (fixtures.c) ---- */

/* Compiles `results` of `g`; fails the test unless acc_compile is ACC_OK. */
acc_program *ts_compile_n(acc_context *ctx, acc_graph *g, size_t n_results,
                          acc_node *const *results);
/* ts_compile_n of the one result `result`. */
acc_program *ts_compile(acc_context *ctx, acc_graph *g, acc_node *result);
/* Entry `entry` (NULL: the only one) of the text program `src`; fails the
 * test, naming the entry, the status and the message, unless
 * acc_compile_text is ACC_OK. */
acc_program *ts_compile_text(acc_context *ctx, const char *src,
                             const char *entry);
/* A zeroed output descriptor with struct_size set, for the library to fill. */
acc_array ts_empty_output(void);
/* acc_run into `n_out` library-allocated outputs (release them on ACC_OK). */
acc_status ts_run_program(acc_program *p, size_t n_in, const acc_array *in,
                          size_t n_out, acc_array *out);
/* ts_run_program on one vector of `n` scalars `s` at `data`, one output. */
acc_status ts_run_vec(acc_program *p, acc_scalar s, void *data, int64_t n,
                      acc_array *out);
/* ts_host_array of scalar element type `s` over the one buffer `buf`. */
acc_array ts_host(acc_scalar s, int32_t rank, const int64_t *extents,
                  void *buf);

/* ---- expectations (expect.c); each fails the test on a mismatch ---- */

/* `st` is ACC_OK; the message shows acc_last_error and g's last error. */
void ts_expect_ok(acc_graph *g, acc_status st);
/* `a` has rank `rank` and extents ext[0 .. rank-1]. */
void ts_expect_shape(const acc_array *a, int32_t rank, const int64_t *ext);
/* `a` has `n` elements and its first leaf (i64) equals want[0 .. n-1]. */
void ts_expect_i64(const acc_array *a, const int64_t *want, int64_t n);
/* `got` is `want` and acc_last_error mentions `name` (any case). */
void ts_expect_error(acc_status got, acc_status want, const char *name);
/* *g has builder error `want` naming `op`; a fresh *g then still runs. */
void ts_expect_builder_error(acc_context *ctx, acc_graph **g, acc_status want,
                             const char *op);
/* `n` is NULL and g has the builder error `want` mentioning `name`. */
void ts_expect_null_node(acc_graph *g, acc_node *n, acc_status want,
                         const char *name);
/* ts_expect_null_node, and acc_compile of `n` fails leaving no program. */
void ts_expect_refused(acc_context *ctx, acc_graph *g, acc_node *n,
                       acc_status want, const char *name);

/* ---- builders (support.c) ---- */

/* The scalar type `s` (shorthand for acc_type_scalar). */
const acc_type *ts_sc(acc_scalar s);
/* \p -> body */
acc_node *ts_lam1(acc_graph *g, acc_node *p, acc_node *body);
/* \a b -> body */
acc_node *ts_lam2(acc_graph *g, acc_node *a, acc_node *b, acc_node *body);
/* \a b -> a `op` b on scalar type `s`. */
acc_node *ts_binop_fn(acc_graph *g, acc_scalar s, acc_primop op);
/* The index [i]. */
acc_node *ts_idx1(acc_graph *g, acc_node *i);
/* The index [i, j]. */
acc_node *ts_idx2(acc_graph *g, acc_node *i, acc_node *j);
/* The shape ext[0 .. rank-1] (rank <= ACC_MAX_RANK) of i64 constants. */
acc_node *ts_shape(acc_graph *g, size_t rank, const int64_t *ext);
/* The shape [a] of an i64 constant. */
acc_node *ts_shape1(acc_graph *g, int64_t a);
/* The shape [a, b] of i64 constants. */
acc_node *ts_shape2(acc_graph *g, int64_t a, int64_t b);
/* 1000 + sum over d of (d + 1) * 100 * ix[d] (i64), for the index ix of
 * rank `rank`: distinct for the indices of the stencil tests' shapes (their
 * boundary function). */
acc_node *ts_index_weight(acc_graph *g, acc_node *ix, int32_t rank);
/* Digit strings (v, 10^len) appended mod m: associative, not commutative. */
acc_node *ts_cat_fn(acc_graph *g, const acc_type *pair, int64_t m);
/* The next xorshift64 step of *state, reduced to 0 .. n-1. */
uint32_t ts_rnd(uint64_t *state, uint32_t n);
/* Fills buf[0 .. n-1] with 0, 1, 2, ... */
void ts_iota(int64_t *buf, int64_t n);

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
/* sieveMarks ps n of LANGUAGE.md §3.6: per x < n, its marks (i32). */
acc_node *ts_sieve_marks(acc_graph *g, acc_node *ps, acc_node *n_scalar);
/* The sieve program: inputs ps (Vector i64) and n (Scalar i64), then
 * ts_sieve_marks. */
acc_node *ts_sieve_program(acc_graph *g);
/* ts_sieve_program as a build function (ts_build_fn; arg unused). */
acc_node *ts_sieve_build(acc_graph *g, const void *arg);
/* The primes p with p * p < n into ps (at most `room`); their number. */
int64_t ts_primes_below_root(int64_t n, int64_t *ps, int64_t room);

#endif /* ACCEL_TESTS_SUPPORT_H */
