/*
 * stdlib_support.h — the fixture and the small builders and checks shared
 * by the tests of the standard library (tests/lang/test_stdlib*.c): a
 * context and a graph per test, inputs and functions built in that graph,
 * running the graph's results, and comparing an output leaf with values
 * computed by a plain C loop.
 *
 * stdlib_support.c is linked into every tests/lang/test_stdlib*.c
 * (cmake/AccelTests.cmake); it is no test of its own.
 */
#ifndef ACCEL_TESTS_LANG_STDLIB_SUPPORT_H
#define ACCEL_TESTS_LANG_STDLIB_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "accel.h"

/* The test's context (on the backend ACC_TEST_BACKEND names) and graph,
 * opened by stdlib_setup and closed by stdlib_teardown.  Each file
 * declares
 *   TestSuite(stdlib, .init = stdlib_setup, .fini = stdlib_teardown); */
extern acc_context *ctx;
extern acc_graph *g;
void stdlib_setup(void);
void stdlib_teardown(void);

/* An input of scalar type s and the given rank. */
acc_node *in(acc_scalar s, int32_t rank);

/* \x -> even x on scalar type s */
acc_node *even_fn(acc_scalar s);

/* Output a has the given shape, and leaf `leaf` holds want[] (elements of
 * `size` bytes). */
void expect_leaf(const acc_array *a, size_t leaf, int32_t rank,
                 const int64_t *ext, const void *want, size_t size);

#define EXPECT(a, rank, ext, want) \
    expect_leaf((a), 0, (rank), (ext), (want), sizeof *(want))

/* Runs the graph's results res (asserted to succeed) into outs. */
void run_ok(size_t n_res, acc_node *const *res, size_t n_in,
            const acc_array *ins, acc_array *outs);

/* Releases outs[0..n). */
void release(acc_array *outs, size_t n);

/* Runs the single result r (up to 2 output arrays) and returns the status;
 * outputs are released. */
acc_status run_status(acc_node *r, size_t n_in, const acc_array *ins);

/* A deterministic value in [-7, 7] for position i. */
int64_t mix(int64_t i);

#endif /* ACCEL_TESTS_LANG_STDLIB_SUPPORT_H */
