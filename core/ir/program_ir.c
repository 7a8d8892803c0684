/*
 * program_ir.c — copying a graph's reachable nodes into a program.
 *
 * The copy preserves sharing (one copy per graph node), renumbers nodes and
 * parameter slots densely, and lays out one value slot range per scalar
 * node.  Recursion depth is bounded by IR_MAX_DEPTH, checked at build time.
 */
#include "core/ir/program_ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct copier {
    ir_program *p;
    ir_node **map;         /* graph node id -> copy */
    uint32_t *param_map;   /* graph param slot -> program slot (+1; 0 = none) */
    diag *d;
} copier;

static ir_node *copy_node(copier *c, const ir_node *n)
{
    if (c->map[n->id])
        return c->map[n->id];
    ir_node *m = arena_alloc(c->p->arena, sizeof *m);
    ir_node **args = n->n_args ? arena_alloc(c->p->arena,
                                             n->n_args * sizeof *args)
                               : NULL;
    if (!m || (n->n_args && !args)) {
        diag_fail(c->d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host "
                  "memory while copying the program");
        return NULL;
    }
    *m = *n;
    m->graph = NULL;
    m->free.n = 0;
    m->free.slots = NULL;
    m->args = args;
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!(args[i] = copy_node(c, n->args[i])))
            return NULL;
    if (n->op == IR_PARAM) {
        uint32_t *slot = &c->param_map[n->u.param.slot];
        if (!*slot)
            *slot = ++c->p->n_params;
        m->u.param.slot = *slot - 1;
    }
    m->id = c->p->n_nodes++;
    c->map[n->id] = m;
    return m;
}

/* Value slots: one range per node of value type (lambdas use their body's). */
static int layout_slots(ir_program *p, ir_node **all)
{
    p->slot_offset = arena_alloc(p->arena, (p->n_nodes ? p->n_nodes : 1) *
                                               sizeof *p->slot_offset);
    if (!p->slot_offset)
        return 0;
    size_t at = 0;
    for (uint32_t i = 0; i < p->n_nodes; i++) {
        const ir_node *n = all[i];
        p->slot_offset[i] = at;
        if (n->op != IR_LAMBDA && !n->type->array_sort)
            at += n->type->n_leaves;
    }
    p->n_slots = at;
    return 1;
}

static int collect_outputs(ir_program *p, diag *d)
{
    size_t count = 0;
    for (size_t i = 0; i < p->n_results; i++)
        count += p->results[i]->type->n_leaves;
    p->outputs = arena_alloc(p->arena, (count ? count : 1) * sizeof *p->outputs);
    if (!p->outputs) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory");
        return 0;
    }
    for (size_t i = 0; i < p->n_results; i++)
        for (size_t k = 0; k < p->results[i]->type->n_leaves; k++)
            p->outputs[p->n_outputs++] = p->results[i]->type->array_leaves[k];
    return 1;
}

acc_status ir_program_build(acc_graph *g, size_t n_results,
                            acc_node *const *results, ir_program *out,
                            diag *d)
{
    memset(out, 0, sizeof *out);
    copier c = {out, NULL, NULL, d};
    ir_node **all = NULL;
    out->arena = arena_create();
    c.map = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *c.map);
    c.param_map = calloc(g->n_params ? g->n_params : 1, sizeof *c.param_map);
    out->inputs = out->arena ? arena_alloc(out->arena, (g->n_inputs ? g->n_inputs
                                                        : 1) * sizeof(ir_node *))
                             : NULL;
    out->results = out->arena ? arena_alloc(out->arena, n_results *
                                                            sizeof(ir_node *))
                              : NULL;
    if (!c.map || !c.param_map || !out->inputs || !out->results) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory");
        goto out;
    }
    for (size_t i = 0; i < g->n_inputs; i++)
        if (!(out->inputs[out->n_inputs++] = copy_node(&c, g->inputs[i])))
            goto out;
    for (size_t i = 0; i < n_results; i++)
        if (!(out->results[out->n_results++] = copy_node(&c, results[i])))
            goto out;
    all = malloc((out->n_nodes ? out->n_nodes : 1) * sizeof *all);
    if (!all) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory");
        goto out;
    }
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (c.map[i])
            all[c.map[i]->id] = c.map[i];
    if (!layout_slots(out, all)) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory");
        goto out;
    }
    collect_outputs(out, d);
out:
    free(all);
    free(c.map);
    free(c.param_map);
    if (!diag_ok(d))
        ir_program_free(out);
    return d->status;
}

void ir_program_free(ir_program *p)
{
    arena_destroy(p->arena);
    memset(p, 0, sizeof *p);
}
