/*
 * fixtures.c — the per-test fixture (an interpreter context and a graph),
 * compiling, running with library-allocated outputs, and host descriptors
 * over one buffer, declared in support.h.  Public API only.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

void ts_fixture_open(acc_context **ctx, acc_graph **g)
{
    *ctx = ts_context(ACC_BACKEND_INTERP);
    if (g != NULL)
        *g = ts_graph(*ctx);
}

void ts_fixture_open_unfused(acc_context **ctx, acc_graph **g)
{
    setenv("ACC_DISABLE", "simplify,fusion", 1);
    ts_fixture_open(ctx, g);
}

void ts_fixture_close(acc_context **ctx, acc_graph **g)
{
    if (g != NULL) {
        acc_graph_free(*g);
        *g = NULL;
    }
    acc_context_destroy(*ctx);
    *ctx = NULL;
}

void ts_fresh_graph(acc_context *ctx, acc_graph **g)
{
    acc_graph_free(*g);
    *g = ts_graph(ctx);
}

acc_context *ts_ctx;

void ts_ctx_open(void)
{
    ts_ctx = ts_context(ACC_BACKEND_INTERP);
}

void ts_ctx_close(void)
{
    acc_context_destroy(ts_ctx);
    ts_ctx = NULL;
}

acc_program *ts_compile_n(acc_context *ctx, acc_graph *g, size_t n_results,
                          acc_node *const *results)
{
    acc_program *p = NULL;
    acc_status st = acc_compile(ctx, g, n_results, results, &p);

    cr_assert_eq(st, ACC_OK, "compile: %s: %s", acc_status_string(st),
                 acc_last_error());
    return p;
}

acc_program *ts_compile(acc_context *ctx, acc_graph *g, acc_node *result)
{
    return ts_compile_n(ctx, g, 1, &result);
}

acc_program *ts_compile_text(acc_context *ctx, const char *src,
                             const char *entry)
{
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, entry, &p);

    cr_assert_eq(st, ACC_OK, "compiling %s: %s: %s",
                 entry ? entry : "the program", acc_status_string(st),
                 acc_last_error());
    return p;
}

acc_array ts_empty_output(void)
{
    acc_array out;

    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    return out;
}

acc_status ts_run_program(acc_program *p, size_t n_in, const acc_array *in,
                          size_t n_out, acc_array *out)
{
    for (size_t i = 0; i < n_out; i++)
        out[i] = ts_empty_output();
    return acc_run(p, n_in, in, n_out, out);
}

acc_status ts_run_vec(acc_program *p, acc_scalar s, void *data, int64_t n,
                      acc_array *out)
{
    acc_array in = ts_host(s, 1, &n, data);

    return ts_run_program(p, 1, &in, 1, out);
}

acc_array ts_host(acc_scalar s, int32_t rank, const int64_t *extents,
                  void *buf)
{
    return ts_host_array(acc_type_scalar(s), rank, extents, &buf);
}
