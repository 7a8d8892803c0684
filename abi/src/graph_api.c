/*
 * graph_api.c — the graph handle's life cycle: acc_graph_create (which
 * retains its context), acc_graph_free, and its error accessors.
 */
#include "abi/src/context.h"
#include "core/base/mem.h"
#include "core/ir/graph.h"

#include <stdlib.h>

acc_status acc_graph_create(acc_context *ctx, acc_graph **out)
{
    static const char fn[] = "acc_graph_create";
    if (out)
        *out = NULL;
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, fn);
    if (!out)
        return api_fail(&ctx->error, ACC_ERR_INVALID_ARGUMENT,
                        "%s: out is NULL", fn);
    acc_graph *g = mem_calloc(1, sizeof *g);
    if (!g || !(g->arena = arena_create()) || !handle_register(g, HANDLE_GRAPH)) {
        if (g)
            arena_destroy(g->arena);
        free(g);
        return api_fail(&ctx->error, ACC_ERR_OUT_OF_HOST_MEMORY,
                        "%s: out of host memory", fn);
    }
    g->ctx = ctx;
    g->types = ctx->types;
    diag_clear(&g->diag);
    ctx_retain(ctx);
    *out = g;
    return ACC_OK;
}

void acc_graph_free(acc_graph *g)
{
    if (!g || !handle_is_live(g, HANDLE_GRAPH))
        return;
    handle_unregister(g);
    acc_context *ctx = g->ctx;
    arena_destroy(g->arena);
    free(g->inputs);
    free(g->input_names);
    free(g);
    ctx_release(ctx);
}

const char *acc_graph_last_error(const acc_graph *g)
{
    if (!handle_is_live(g, HANDLE_GRAPH))
        return "not a live graph";
    return g->diag.message;
}

acc_status acc_graph_status(const acc_graph *g)
{
    if (!handle_is_live(g, HANDLE_GRAPH))
        return api_bad_handle(g, HANDLE_GRAPH, "acc_graph_status");
    return g->diag.status;
}

