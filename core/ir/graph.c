/*
 * graph.c — the builder's helpers: entry checks, sticky errors, node
 * allocation and free parameter sets (the graph handle's life cycle is
 * abi/src/graph_api.c).
 */
#include "core/ir/graph.h"
#include "core/base/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gr_name_input(acc_graph *g, size_t index, const char *name)
{
    if (index >= g->n_input_names) {
        const char **grown = mem_realloc(g->input_names,
                                     (index + 1) * sizeof *grown);
        if (!grown)
            return 0;
        for (size_t i = g->n_input_names; i <= index; i++)
            grown[i] = NULL;
        g->input_names = grown;
        g->n_input_names = index + 1;
    }
    size_t n = strlen(name);
    char *copy = arena_alloc(g->arena, n + 1);
    if (copy)
        memcpy(copy, name, n + 1);
    g->input_names[index] = copy;
    return copy != NULL;
}

const char *gr_input_name(const acc_graph *g, size_t index)
{
    return index < g->n_input_names ? g->input_names[index] : NULL;
}

const acc_type *acc_node_type(const acc_node *n)
{
    return n && n->magic == IR_NODE_MAGIC ? n->type : NULL;
}

/* ---- builder helpers ------------------------------------------------------ */

acc_node *gr_fail(acc_graph *g, acc_status status, const char *fmt, ...)
{
    if (diag_ok(&g->diag)) {
        va_list ap;
        va_start(ap, fmt);
        g->diag.status = status;
        vsnprintf(g->diag.message, sizeof g->diag.message, fmt, ap);
        va_end(ap);
    }
    api_fail_diag(NULL, &g->diag);
    return NULL;
}

int gr_begin(acc_graph *g, const char *op)
{
    if (!handle_is_live(g, HANDLE_GRAPH)) {
        char fn[64];
        snprintf(fn, sizeof fn, "%s", op);
        api_bad_handle(g, HANDLE_GRAPH, fn);
        return 0;
    }
    if (!diag_ok(&g->diag)) {
        api_fail_diag(NULL, &g->diag);
        return 0;
    }
    return 1;
}

int gr_arg(acc_graph *g, const char *op, const char *what, const acc_node *n)
{
    if (!n) {
        gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, what);
        return 0;
    }
    if (n->magic != IR_NODE_MAGIC) {
        gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: %s is not a node (builder "
                "calls make nodes)", op, what);
        return 0;
    }
    if (n->graph != g) {
        gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: %s belongs to another graph "
                "(a node can only be used in the graph that built it)", op,
                what);
        return 0;
    }
    return 1;
}

int gr_type(acc_graph *g, const char *op, const char *what,
            const acc_type *t)
{
    ty_use use = ty_check(t, g->types);
    if (use == TY_USABLE)
        return 1;
    gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: %s %s", op, what,
            ty_use_text(use));
    return 0;
}

const acc_type *gr_tuple_type(acc_graph *g, size_t n,
                              const acc_type *const *fields)
{
    const acc_type *t = ty_tuple(g->types, n, fields, &g->diag);
    if (!t)
        api_fail_diag(NULL, &g->diag);
    return t;
}

const acc_type *gr_array_type(acc_graph *g, const acc_type *elem,
                              int32_t rank)
{
    const acc_type *t = ty_array(g->types, elem, rank, &g->diag);
    if (!t)
        api_fail_diag(NULL, &g->diag);
    return t;
}

/* ---- free parameter sets -------------------------------------------------- */

/* Merges sorted set b into the sorted buffer (dst, *n), skipping `bound`. */
static uint32_t merge_sets(uint32_t *dst, uint32_t n, ir_varset b,
                           acc_node *const *bound, uint32_t n_bound)
{
    uint32_t tmp_n = 0;
    uint32_t i = 0, j = 0;
    uint32_t *out = dst + n; /* scratch after the current set */
    while (i < n || j < b.n) {
        uint32_t v;
        if (j >= b.n || (i < n && dst[i] < b.slots[j]))
            v = dst[i++];
        else if (i >= n || b.slots[j] < dst[i])
            v = b.slots[j++];
        else {
            v = dst[i++];
            j++;
        }
        int skip = 0;
        for (uint32_t k = 0; k < n_bound; k++)
            skip |= bound[k]->u.param.slot == v;
        if (!skip)
            out[tmp_n++] = v;
    }
    memmove(dst, out, tmp_n * sizeof *dst);
    return tmp_n;
}

/* One free set of a node = union of its arguments' minus what it binds.
 * Reuses an argument's set when the union equals it. */
static int compute_set(acc_graph *g, ir_node *n, uint32_t n_bound,
                       size_t which)
{
    size_t total = 0;
    const ir_varset *only = NULL;
    int distinct = 0;
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ir_varset *v = which ? &n->args[i]->afree : &n->args[i]->free;
        total += v->n;
        if (v->n) {
            if (!only || only->slots != v->slots)
                distinct++;
            only = v;
        }
    }
    ir_varset *out = which ? &n->afree : &n->free;
    if (total == 0)
        return 1;
    if (distinct == 1 && n_bound == 0) {
        *out = *only;
        return 1;
    }
    uint32_t *buf = mem_alloc(2 * total * sizeof *buf);
    if (!buf)
        return 0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < n->n_args; i++)
        count = merge_sets(buf, count,
                           which ? n->args[i]->afree : n->args[i]->free,
                           n->args, n_bound);
    uint32_t *slots = arena_alloc(g->arena, (count ? count : 1) * sizeof *slots);
    if (slots)
        memcpy(slots, buf, count * sizeof *slots);
    free(buf);
    if (!slots)
        return 0;
    out->n = count;
    out->slots = slots;
    return 1;
}

static int compute_free(acc_graph *g, ir_node *n, uint32_t n_bound)
{
    return compute_set(g, n, n_bound, 0) && compute_set(g, n, n_bound, 1);
}

ir_node *gr_node(acc_graph *g, ir_op op, const acc_type *type,
                 uint32_t n_args, acc_node *const *args, uint32_t n_bound)
{
    uint32_t depth = 0;
    for (uint32_t i = 0; i < n_args; i++)
        if (args[i]->depth > depth)
            depth = args[i]->depth;
    if (depth + 1 > IR_MAX_DEPTH)
        return gr_fail(g, ACC_ERR_UNSUPPORTED, "%s: the expression is nested "
                       "%u levels deep, at most %d are supported (bind "
                       "intermediate results to arrays)", ir_op_name(op),
                       depth + 1, IR_MAX_DEPTH);
    ir_node *n = arena_alloc(g->arena, sizeof *n);
    ir_node **argv = n_args ? arena_alloc(g->arena, n_args * sizeof *argv)
                            : NULL;
    if (!n || (n_args && !argv))
        return gr_fail(g, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                       "memory", ir_op_name(op));
    n->magic = IR_NODE_MAGIC;
    n->op = op;
    n->type = type;
    n->graph = g;
    n->id = g->n_nodes++;
    n->depth = depth + 1;
    n->n_args = n_args;
    n->args = argv;
    for (uint32_t i = 0; i < n_args; i++)
        argv[i] = args[i];
    if (!compute_free(g, n, n_bound))
        return gr_fail(g, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                       "memory", ir_op_name(op));
    return n;
}

/* ---- argument sort checks ------------------------------------------------ */

/* Checks that n is a scalar term (a value, not an array or a lambda). */
int gr_want_value(acc_graph *g, const char *op, const char *what,
                      const acc_node *n)
{
    char t[128];
    if (!gr_arg(g, op, what, n))
        return 0;
    if (n->op == IR_LAMBDA) {
        gr_fail(g, ACC_ERR_TYPE, "%s: %s is a function, expected a scalar "
                "value", op, what);
        return 0;
    }
    if (n->type->array_sort) {
        gr_fail(g, ACC_ERR_TYPE, "%s: %s is an array (%s), expected a scalar "
                "value", op, what, GR_TYPE(n->type, t));
        return 0;
    }
    return 1;
}

int gr_want_scalar(acc_graph *g, const char *op, const char *what,
                       const acc_node *n, acc_scalar s)
{
    char t[128];
    if (!gr_want_value(g, op, what, n))
        return 0;
    if (!ty_is_scalar(n->type, s)) {
        gr_fail(g, ACC_ERR_TYPE, "%s: %s has type %s, expected %s", op, what,
                GR_TYPE(n->type, t), acc_scalar_name(s));
        return 0;
    }
    return 1;
}

/* Checks that n is a single array (not a tuple of arrays). */
int gr_want_array(acc_graph *g, const char *op, const char *what,
                      const acc_node *n)
{
    char t[128];
    if (!gr_arg(g, op, what, n))
        return 0;
    if (n->op == IR_LAMBDA || n->type->kind != ACC_TYPE_ARRAY) {
        gr_fail(g, ACC_ERR_TYPE, "%s: %s has type %s, expected an array", op,
                what, n->op == IR_LAMBDA ? "function" : GR_TYPE(n->type, t));
        return 0;
    }
    return 1;
}

