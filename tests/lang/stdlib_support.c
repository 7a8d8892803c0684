/*
 * stdlib_support.c — the fixture and the small builders and checks shared
 * by the tests of the standard library (stdlib_support.h).  Linked into
 * every tests/lang/test_stdlib*.c (cmake/AccelTests.cmake); it is no test
 * of its own.
 */
#include "stdlib_support.h"

#include <criterion/criterion.h>

#include <string.h>

#include "support.h"

acc_context *ctx;
acc_graph *g;

void stdlib_setup(void)
{
    ts_fixture_open(&ctx, &g);
}

void stdlib_teardown(void)
{
    ts_fixture_close(&ctx, &g);
}

/* ---- small builders and checks ------------------------------------------ */

acc_node *in(acc_scalar s, int32_t rank)
{
    return acc_input(g, ts_sc(s), rank);
}

/* \x -> even x on scalar type s */
acc_node *even_fn(acc_scalar s)
{
    acc_node *x = acc_param(g, ts_sc(s));
    return acc_lambda(g, 1, &x, acc_even(g, x));
}

/* Output a has the given shape, and leaf `leaf` holds want[] (elements of
 * `size` bytes). */
void expect_leaf(const acc_array *a, size_t leaf, int32_t rank,
                 const int64_t *ext, const void *want, size_t size)
{
    ts_expect_shape(a, rank, ext);
    int64_t n = acc_array_size(a);
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(memcmp((const char *)a->data[leaf] + i * (int64_t)size,
                            (const char *)want + i * (int64_t)size, size), 0,
                     "leaf %zu, element %lld differs", leaf, (long long)i);
}

void run_ok(size_t n_res, acc_node *const *res, size_t n_in,
            const acc_array *ins, acc_array *outs)
{
    ts_expect_ok(g, ts_run(ctx, g, n_res, res, n_in, ins, outs));
}

void release(acc_array *outs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc_array_release(&outs[i]);
}

/* Runs the single result r (up to 2 output arrays) and returns the status;
 * outputs are released. */
acc_status run_status(acc_node *r, size_t n_in, const acc_array *ins)
{
    acc_array out[2];
    acc_status st = ts_run(ctx, g, 1, &r, n_in, ins, out);
    if (st == ACC_OK)
        release(out, acc_type_get_kind(acc_node_type(r)) == ACC_TYPE_TUPLE
                         ? 2 : 1);
    return st;
}

/* A deterministic value in [-7, 7] for position i. */
int64_t mix(int64_t i)
{
    return (i * 7 + 3) % 15 - 7;
}
