/*
 * expect.c — the assertions the tests share, declared in support.h: run
 * statuses, output shapes and values, and the errors of the builder and of
 * acc_run.  Each fails the current test with a message naming what
 * differs.  Public API only.
 */
#include "support.h"

#include <criterion/criterion.h>

void ts_expect_ok(acc_graph *g, acc_status st)
{
    cr_assert_eq(st, ACC_OK, "status %s: %s (graph: %s)",
                 acc_status_string(st), acc_last_error(),
                 acc_graph_last_error(g));
}

void ts_expect_shape(const acc_array *a, int32_t rank, const int64_t *ext)
{
    cr_assert_eq(a->rank, rank, "rank %d, expected %d", (int)a->rank,
                 (int)rank);
    for (int32_t d = 0; d < rank; d++)
        cr_assert_eq(a->extents[d], ext[d], "extent %d is %lld, expected %lld",
                     (int)d, (long long)a->extents[d], (long long)ext[d]);
}

void ts_expect_i64(const acc_array *a, const int64_t *want, int64_t n)
{
    cr_assert_eq(acc_array_size(a), n, "size %lld, expected %lld",
                 (long long)acc_array_size(a), (long long)n);
    const int64_t *o = a->data[0];
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(o[i], want[i], "element %lld is %lld, expected %lld",
                     (long long)i, (long long)o[i], (long long)want[i]);
}

void ts_expect_error(acc_status got, acc_status want, const char *name)
{
    cr_assert_eq(got, want, "got %s, expected %s (%s)",
                 acc_status_string(got), acc_status_string(want),
                 acc_last_error());
    cr_assert(ts_contains_ci(acc_last_error(), name), "message: %s",
              acc_last_error());
}

void ts_expect_builder_error(acc_context *ctx, acc_graph **g, acc_status want,
                             const char *op)
{
    cr_assert_eq(acc_graph_status(*g), want, "status %s, expected %s (%s)",
                 acc_status_string(acc_graph_status(*g)),
                 acc_status_string(want), acc_graph_last_error(*g));
    cr_assert(ts_contains_ci(acc_graph_last_error(*g), op), "message: %s",
              acc_graph_last_error(*g));
    ts_fresh_graph(ctx, g);
    int64_t v = 0;
    ts_expect_ok(*g, ts_eval_scalar(ctx, *g, ts_i64(*g, 7), &v, sizeof v));
    cr_assert_eq(v, 7);
}

void ts_expect_null_node(acc_graph *g, acc_node *n, acc_status want,
                         const char *name)
{
    cr_assert_null(n);
    cr_assert_eq(acc_graph_status(g), want, "graph status %s: %s",
                 acc_status_string(acc_graph_status(g)),
                 acc_graph_last_error(g));
    cr_assert(ts_contains_ci(acc_graph_last_error(g), name), "message: %s",
              acc_graph_last_error(g));
}

void ts_expect_refused(acc_context *ctx, acc_graph *g, acc_node *n,
                       acc_status want, const char *name)
{
    ts_expect_null_node(g, n, want, name);
    acc_program *p = NULL;
    cr_assert_neq(acc_compile(ctx, g, 1, &n, &p), ACC_OK);
    cr_assert_null(p);
}
