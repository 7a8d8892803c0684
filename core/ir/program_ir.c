/*
 * program_ir.c — a program's IR: copying a graph's reachable nodes into
 * it (the passes that follow are driven by core/compile), nodes added by
 * passes, value slots, and the outputs.
 *
 * The copy preserves sharing (one copy per graph node) and renumbers nodes
 * and parameter slots densely.  Recursion depth is bounded by
 * IR_MAX_DEPTH, checked at build time.
 */
#include "core/ir/program_ir.h"
#include "core/base/mem.h"

#include <stdlib.h>
#include <string.h>

typedef struct copier {
    ir_program *p;
    ir_node **map;         /* graph node id -> copy */
    uint32_t *param_map;   /* graph param slot -> program slot (+1; 0 = none) */
    diag *d;
} copier;

static int register_node(ir_program *p, ir_node *n)
{
    if (p->n_nodes == p->cap_nodes) {
        uint32_t cap = p->cap_nodes ? p->cap_nodes * 2 : 64;
        ir_node **grown = mem_realloc(p->nodes, cap * sizeof *grown);
        if (!grown)
            return 0;
        p->nodes = grown;
        p->cap_nodes = cap;
    }
    n->id = p->n_nodes++;
    p->nodes[n->id] = n;
    return 1;
}

ir_node *ir_program_node(ir_program *p, ir_op op, const acc_type *type,
                         uint32_t n_args, ir_node *const *args)
{
    ir_node *n = arena_alloc(p->arena, sizeof *n);
    ir_node **argv = n_args ? arena_alloc(p->arena, n_args * sizeof *argv)
                            : NULL;
    if (!n || (n_args && !argv) || !register_node(p, n))
        return NULL;
    n->magic = IR_NODE_MAGIC;
    n->op = op;
    n->type = type;
    n->n_args = n_args;
    n->args = argv;
    uint32_t depth = 0;
    for (uint32_t i = 0; i < n_args; i++) {
        argv[i] = args[i];
        if (args[i]->depth > depth)
            depth = args[i]->depth;
    }
    n->depth = depth + 1;
    return n;
}

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
    m->free.slots = NULL; /* the counts stay meaningful, the slots do not */
    m->afree.slots = NULL;
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
    if (!register_node(c->p, m)) {
        diag_fail(c->d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host "
                  "memory while copying the program");
        return NULL;
    }
    c->map[n->id] = m;
    return m;
}

int ir_program_layout(ir_program *p)
{
    size_t *offsets = arena_alloc(p->arena, (p->n_nodes ? p->n_nodes : 1) *
                                                sizeof *offsets);
    if (!offsets)
        return 0;
    size_t at = 0;
    for (uint32_t i = 0; i < p->n_nodes; i++) {
        const ir_node *n = p->nodes[i];
        offsets[i] = at;
        if (n->op != IR_LAMBDA && !n->type->array_sort)
            at += n->type->n_leaves;
    }
    p->slot_offset = offsets;
    p->n_slots = at;
    return 1;
}

static int collect_outputs(ir_program *p)
{
    size_t count = 0;
    for (size_t i = 0; i < p->n_results; i++)
        count += p->results[i]->type->n_leaves;
    p->outputs = arena_alloc(p->arena, (count ? count : 1) * sizeof *p->outputs);
    if (!p->outputs)
        return 0;
    for (size_t i = 0; i < p->n_results; i++)
        for (size_t k = 0; k < p->results[i]->type->n_leaves; k++)
            p->outputs[p->n_outputs++] = p->results[i]->type->array_leaves[k];
    return 1;
}

/* The program as one term: the single result, or a tuple of them. */
static int make_root(ir_program *p, type_store *types, diag *d)
{
    if (p->n_results == 1) {
        p->root = p->results[0];
        return 1;
    }
    const acc_type *fields[64];
    if (p->n_results > 64) {
        diag_fail(d, ACC_ERR_UNSUPPORTED, "acc_compile: %zu results, at most "
                  "64 are supported", p->n_results);
        return 0;
    }
    for (size_t i = 0; i < p->n_results; i++)
        fields[i] = p->results[i]->type;
    const acc_type *t = ty_tuple(types, p->n_results, fields, d);
    p->root = t ? ir_program_node(p, IR_TUPLE, t, (uint32_t)p->n_results,
                                  p->results)
                : NULL;
    return p->root != NULL;
}

/* A copy of an input's name in the program's arena (NULL stays NULL). */
static const char *copy_name(ir_program *p, const char *name, diag *d)
{
    size_t n = name ? strlen(name) : 0;
    char *copy = name ? arena_alloc(p->arena, n + 1) : NULL;
    if (name && !copy)
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory");
    else if (copy)
        memcpy(copy, name, n + 1);
    return copy;
}

static acc_status copy_graph(acc_graph *g, size_t n_results,
                             acc_node *const *results, ir_program *out,
                             diag *d)
{
    copier c = {out, NULL, NULL, d};
    c.map = mem_calloc(g->n_nodes ? g->n_nodes : 1, sizeof *c.map);
    c.param_map = mem_calloc(g->n_params ? g->n_params : 1,
                             sizeof *c.param_map);
    out->inputs = arena_alloc(out->arena, (g->n_inputs ? g->n_inputs : 1) *
                                              sizeof(ir_node *));
    out->input_names = arena_alloc(out->arena, (g->n_inputs ? g->n_inputs
                                                            : 1) *
                                                   sizeof(const char *));
    out->results = arena_alloc(out->arena, n_results * sizeof(ir_node *));
    if (!c.map || !c.param_map || !out->inputs || !out->input_names ||
        !out->results)
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory");
    for (size_t i = 0; diag_ok(d) && i < g->n_inputs; i++) {
        out->input_names[i] = copy_name(out, gr_input_name(g, i), d);
        out->inputs[out->n_inputs++] = copy_node(&c, g->inputs[i]);
    }
    for (size_t i = 0; diag_ok(d) && i < n_results; i++)
        out->results[out->n_results++] = copy_node(&c, results[i]);
    free(c.map);
    free(c.param_map);
    return d->status;
}

acc_status ir_program_copy(acc_graph *g, size_t n_results,
                           acc_node *const *results, ir_program *out,
                           diag *d)
{
    memset(out, 0, sizeof *out);
    if (!(out->arena = arena_create())) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory");
        return d->status;
    }
    if (copy_graph(g, n_results, results, out, d) == ACC_OK &&
        (!collect_outputs(out) || !make_root(out, g->types, d)))
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory");
    if (!diag_ok(d))
        ir_program_free(out);
    return d->status;
}

void ir_program_free(ir_program *p)
{
    arena_destroy(p->arena);
    free(p->nodes);
    free(p->var_bound);
    memset(p, 0, sizeof *p);
}

const ir_node *ir_value_term(const ir_program *p, const ir_node *n)
{
    for (;;) {
        if (n->op == IR_LET)
            n = n->args[1];
        else if (n->op == IR_VAR)
            n = p->var_bound[n->u.let.var];
        else if (n->op == IR_FOREIGN && !n->u.foreign.impl)
            n = ir_lambda_body(n->args[0]);
        else
            return n;
    }
}

const ir_node *ir_program_output_node(const ir_program *p, size_t leaf)
{
    const ir_node *n = p->root;
    for (;;) {
        n = ir_value_term(p, n);
        if (n->op != IR_TUPLE)
            return n->type->n_leaves == 1 && leaf == 0 ? n : NULL;
        uint32_t i = 0;
        while (i < n->n_args && leaf >= n->args[i]->type->n_leaves)
            leaf -= n->args[i++]->type->n_leaves;
        if (i == n->n_args)
            return NULL;
        n = n->args[i];
    }
}
