/*
 * plan.c — deriving and describing the plan.  Steps are listed in an order
 * in which each step's inputs are computed before it (dependencies first);
 * the outputs are the arrays the root term evaluates to.
 */
#include "core/exec/plan.h"

#include "core/fusion/fusion.h"
#include "core/ir/json.h"

#include <stdlib.h>
#include <string.h>

int plan_is_kernel_op(ir_op op)
{
    switch (op) {
    case IR_UNIT: case IR_GENERATE: case IR_MAP: case IR_ZIPWITH:
    case IR_BACKPERMUTE: case IR_RESHAPE: case IR_FOLD: case IR_FOLD1:
    case IR_REPLICATE: case IR_SLICE: case IR_FOLD_SEG: case IR_SCAN:
    case IR_SCAN_SEG: case IR_PERMUTE: case IR_PERMUTE_PAIRS:
    case IR_STENCIL: case IR_STENCIL2: case IR_EXPAND:
        return 1;
    default:
        return 0;
    }
}

static int is_host_step(ir_op op)
{
    return op == IR_ACOND || op == IR_AWHILE || op == IR_FOREIGN;
}

/* A foreign node that calls an implementation does not run its fallback,
 * so the fallback's steps are not part of the plan. */
static int unused_fallback(const ir_node *n, uint32_t i)
{
    return n->op == IR_FOREIGN && i == 0 && n->u.foreign.impl;
}

typedef struct walker {
    const ir_program *p;
    uint8_t *seen;
    uint8_t *output;
    plan *pl;
    size_t cap;
    int oom;
} walker;

/* Marks the array terms the root evaluates to: a foreign node that runs
 * its fallback is an output, and so is the fallback's result, computed
 * straight into the output (destinations.h). */
static void mark_outputs(walker *w, const ir_node *n)
{
    w->output[n->id] = 1;
    const ir_node *v = ir_value_term(w->p, n);
    w->output[v->id] = 1;
    if (v->op == IR_TUPLE)
        for (uint32_t i = 0; i < v->n_args; i++)
            mark_outputs(w, v->args[i]);
}

static void add_step(walker *w, const ir_node *n)
{
    plan *pl = w->pl;
    if (pl->n_steps == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 8;
        plan_step *grown = realloc(pl->steps, cap * sizeof *grown);
        if (!grown) {
            w->oom = 1;
            return;
        }
        pl->steps = grown;
        w->cap = cap;
    }
    int kernel = plan_is_kernel_op(n->op);
    plan_role role = w->output[n->id] ? ROLE_OUTPUT : ROLE_INTERMEDIATE;
    ((ir_node *)n)->step = 1;
    pl->steps[pl->n_steps++] = (plan_step){n, kernel, role};
    pl->kernels += (size_t)kernel;
    pl->intermediates += (size_t)(kernel && role == ROLE_INTERMEDIATE);
    pl->foreign_calls += (size_t)(n->op == IR_FOREIGN && n->u.foreign.impl);
}

static void visit_embedded(walker *w, const ir_node *n);

static void visit(walker *w, const ir_node *n)
{
    if (w->seen[n->id] || w->oom)
        return;
    w->seen[n->id] = 1;
    if (n->op == IR_VAR) {
        const ir_node *bound = w->p->var_bound[n->u.let.var];
        if (bound->type->array_sort || bound->op == IR_LAMBDA)
            visit(w, bound);
        return;
    }
    for (uint32_t i = 0; i < n->n_args; i++) {
        if (unused_fallback(n, i))
            continue;
        if (fuse_is_embedded(n, i))
            visit_embedded(w, n->args[i]);
        else
            visit(w, n->args[i]);
    }
    if (n->op != IR_LAMBDA && n->type->array_sort &&
        (plan_is_kernel_op(n->op) || is_host_step(n->op)))
        add_step(w, n);
}

/* A producer computed inside its consumer's kernel: not a step, but what
 * it reads must be computed before. */
static void visit_embedded(walker *w, const ir_node *n)
{
    if (w->seen[n->id])
        return;
    w->seen[n->id] = 1;
    for (uint32_t i = 0; i < n->n_args; i++) {
        if (fuse_is_embedded(n, i))
            visit_embedded(w, n->args[i]);
        else
            visit(w, n->args[i]);
    }
}

int plan_build(const ir_program *p, plan *out)
{
    memset(out, 0, sizeof *out);
    out->duplicated = p->duplicated;
    walker w = {p, calloc(p->n_nodes ? p->n_nodes : 1, 1),
                calloc(p->n_nodes ? p->n_nodes : 1, 1), out, 0, 0};
    if (w.seen && w.output) {
        mark_outputs(&w, p->root);
        visit(&w, p->root);
    }
    int ok = w.seen && w.output && !w.oom;
    free(w.seen);
    free(w.output);
    if (!ok)
        plan_free(out);
    return ok;
}

void plan_free(plan *pl)
{
    free(pl->steps);
    memset(pl, 0, sizeof *pl);
}

/* The operations fused into a step, in IR order: "zipWith, fold". */
static void fused_list(strbuf *b, const ir_node *n, int json)
{
    uint64_t bits = n->fused | ((uint64_t)1 << n->op);
    int first = 1;
    for (int op = 0; op < IR_OP_COUNT; op++) {
        if (!(bits & ((uint64_t)1 << op)))
            continue;
        sb_printf(b, json ? "%s\"%s\"" : "%s%s", first ? "" : ", ",
                  ir_op_name((ir_op)op));
        first = 0;
    }
}

/* A foreign step: its name and what it uses (an implementation, or
 * "fallback: why"), chosen by foreign resolution. */
static void describe_foreign(strbuf *b, const plan_step *s, size_t i,
                             int json)
{
    const ir_node *n = s->node;
    const char *role = s->role == ROLE_OUTPUT ? "output" : "intermediate";
    char t[128];
    ty_format(n->type, t, sizeof t);
    if (!json) {
        sb_printf(b, "  %zu. foreign %s -> %s (%s); uses: %s\n", i + 1,
                  n->u.foreign.name, t, role, n->u.foreign.reason);
        return;
    }
    sb_printf(b, "%s{\"step\":%zu,\"kind\":\"foreign\",\"op\":\"foreign\","
              "\"name\":", i ? "," : "", i + 1);
    ir_json_string(b, n->u.foreign.name);
    sb_printf(b, ",\"implementation\":");
    if (n->u.foreign.impl)
        ir_json_string(b, n->u.foreign.reason);
    else
        sb_puts(b, "null");
    sb_puts(b, ",\"uses\":");
    ir_json_string(b, n->u.foreign.reason);
    sb_printf(b, ",\"fused\":[],\"type\":\"%s\",\"role\":\"%s\"}", t,
              role);
}

static void describe_step(strbuf *b, const plan_step *s, size_t i, int json)
{
    if (s->node->op == IR_FOREIGN) {
        describe_foreign(b, s, i, json);
        return;
    }
    char t[128];
    const char *what = s->kernel ? "kernel" : "host";
    const char *role = s->role == ROLE_OUTPUT ? "output" : "intermediate";
    ty_format(s->node->type, t, sizeof t);
    if (json) {
        sb_printf(b, "%s{\"step\":%zu,\"kind\":\"%s\",\"op\":\"%s\","
                  "\"fused\":[", i ? "," : "", i + 1, what,
                  ir_op_name(s->node->op));
        fused_list(b, s->node, 1);
        sb_printf(b, "],\"type\":\"%s\",\"role\":\"%s\"}", t, role);
        return;
    }
    sb_printf(b, "  %zu. %-6s %-12s -> %s (%s); contains: ", i + 1, what,
              ir_op_name(s->node->op), t, role);
    fused_list(b, s->node, 0);
    sb_puts(b, "\n");
}

void plan_describe(strbuf *b, const plan *pl, acc_backend backend, int json)
{
    if (json)
        sb_printf(b, "{\"backend\":\"%s\",\"kernels\":%zu,"
                  "\"intermediates\":%zu,\"foreign_calls\":%zu,"
                  "\"duplicated\":%zu,\"steps\":[",
                  acc_backend_name(backend), pl->kernels, pl->intermediates,
                  pl->foreign_calls, pl->duplicated);
    else
        sb_printf(b, "backend: %s\nkernels: %zu, intermediate arrays: %zu, "
                  "foreign calls: %zu, duplicated producers: %zu\nsteps:\n",
                  acc_backend_name(backend), pl->kernels, pl->intermediates,
                  pl->foreign_calls, pl->duplicated);
    for (size_t i = 0; i < pl->n_steps; i++)
        describe_step(b, &pl->steps[i], i, json);
    if (json)
        sb_puts(b, "]}");
}
