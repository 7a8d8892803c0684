/*
 * resolve.c — choosing an implementation for each foreign node of a
 * program (see resolve.h) and releasing the per-program states.
 */
#include "foreign/resolve.h"

#include "core/base/mem.h"
#include "foreign/autoload.h"
#include "foreign/cfunc.h"
#include "foreign/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ARRAYS = 64, REASON_MAX = 512 };

typedef struct resolver {
    ir_program *p;
    reg_registry *reg;
    reg_autoload *autoload;
    acc_backend backend;
    uint8_t *seen;
    diag *d;
} resolver;

typedef struct query_store {
    acc_foreign_query q;
    const acc_type *elems[2][MAX_ARRAYS];
    int32_t ranks[2][MAX_ARRAYS];
    char reason[REASON_MAX];
} query_store;

static char *arena_text(ir_program *p, const char *s)
{
    size_t n = strlen(s);
    char *c = arena_alloc(p->arena, n + 1);
    if (c)
        memcpy(c, s, n + 1);
    return c;
}

/* The arrays of an array-sort type, as (element type, rank) lists. */
static int fill_arrays(const acc_type *t, const acc_type **elems,
                       int32_t *ranks, size_t *n)
{
    if (t->n_leaves > MAX_ARRAYS)
        return 0;
    for (size_t k = 0; k < t->n_leaves; k++) {
        elems[k] = t->array_leaves[k]->elem;
        ranks[k] = t->array_leaves[k]->rank;
    }
    *n = t->n_leaves;
    return 1;
}

static int make_query(const ir_node *n, acc_backend backend, query_store *s)
{
    memset(s, 0, sizeof *s);
    acc_foreign_query *q = &s->q;
    q->struct_size = sizeof *q;
    q->name = n->u.foreign.name;
    q->backend = backend;
    q->arg_elems = s->elems[0];
    q->arg_ranks = s->ranks[0];
    q->result_elems = s->elems[1];
    q->result_ranks = s->ranks[1];
    return fill_arrays(n->args[1]->type, s->elems[0], s->ranks[0],
                       &q->n_args) &&
           fill_arrays(n->type, s->elems[1], s->ranks[1], &q->n_results);
}

/* Appends "; IMPL: why" to the refusals. */
static void note_refusal(char *why, const reg_impl *e, const char *reason)
{
    size_t at = strlen(why);
    if (at + 8 < REASON_MAX)
        snprintf(why + at, REASON_MAX - at, "%s%s refused (%s)",
                 at ? "; " : "", e->api.impl_name,
                 reason[0] ? reason : "no reason given");
}

static int better(const reg_impl *best, const reg_impl *e)
{
    return !best || e->api.priority > best->api.priority;
}

/* The query as asked, for implementation e: what an earlier predicate
 * may have changed in it is restored, and the reason buffer is empty. */
static void arm_query(query_store *s, const acc_foreign_query *asked,
                      const reg_impl *e)
{
    s->q = *asked;
    s->q.user = e->api.user;
    s->reason[0] = '\0';
    s->q.reason = s->reason;
    s->q.reason_size = sizeof s->reason;
}

/* The best accepting implementation of an array foreign node, or NULL
 * with the refusals written to why. */
static const reg_impl *choose_array(reg_registry *r, query_store *s,
                                    char *why)
{
    const reg_impl *best = NULL;
    const acc_foreign_query asked = s->q;
    for (const reg_impl *e = r->impls; e; e = e->next) {
        if (strcmp(e->api.name, asked.name) != 0 ||
            !reg_backend_serves(e->api.backend, asked.backend) || !better(best, e))
            continue;
        arm_query(s, &asked, e);
        int accepted = !e->api.accepts || e->api.accepts(&s->q);
        reg_end_text(s->reason, sizeof s->reason);
        if (accepted)
            best = e;
        else
            note_refusal(why, e, s->reason);
    }
    s->q = asked;
    return best;
}

static const reg_impl *choose_scalar(reg_registry *r, const ir_node *n,
                                     acc_backend backend, char *why)
{
    const reg_impl *best = NULL;
    const acc_type *t = n->args[1]->type;
    for (const reg_impl *e = r->impls; e; e = e->next) {
        if (strcmp(e->api.name, n->u.foreign.name) != 0 ||
            !reg_backend_serves(e->api.backend, backend) || !better(best, e))
            continue;
        int typed = e->cfn || e->sig;
        if (e->cfn ? reg_cfn_fits_scalar(e->cfn, t->n_leaves, t->leaves,
                                         n->type)
                   : e->sig && reg_sig_fits_scalar(e->sig, t->n_leaves,
                                                   t->leaves, n->type))
            best = e;
        else
            note_refusal(why, e, typed ? "its C signature does not match "
                         "the argument and result types"
                         : "only C functions and user scalar functions "
                           "implement foreignExp");
    }
    return best;
}

/* Creates the per-program state; 0 (with why written) when create fails. */
static int create_state(ir_node *n, const reg_impl *e, query_store *s,
                        char *why)
{
    if (!e->api.create)
        return 1;
    const acc_foreign_query asked = s->q;
    arm_query(s, &asked, e);
    void *state = NULL;
    acc_status st = e->api.create(&s->q, &state);
    reg_end_text(s->reason, sizeof s->reason);
    if (st == ACC_OK) {
        n->u.foreign.state = state;
        return 1;
    }
    snprintf(why, REASON_MAX, "%s could not set up (%s%s%s)",
             e->api.impl_name, acc_status_string(st), s->reason[0] ? ": " : "",
             s->reason);
    return 0;
}

/* `note`: why a built-in plugin that would implement the node is not
 * loaded, or "". */
static void describe(char *out, const ir_node *n, const reg_impl *e,
                     acc_backend backend, const char *why, const char *note)
{
    if (e)
        snprintf(out, REASON_MAX, "%s (%s, priority %d)", e->api.impl_name,
                 e->origin, (int)e->api.priority);
    else if (why[0])
        snprintf(out, REASON_MAX, "fallback: %s", why);
    else
        snprintf(out, REASON_MAX, "fallback: no implementation of '%s' is "
                 "registered for backend %s%s%s%s", n->u.foreign.name,
                 acc_backend_name(backend), note[0] ? " (" : "", note,
                 note[0] ? ")" : "");
}

static int resolve_node(resolver *r, ir_node *n)
{
    char why[REASON_MAX] = "", text[REASON_MAX], note[REASON_MAX] = "";
    acc_backend backend = r->backend;
    reg_registry *reg = r->reg;
    const reg_impl *e = NULL;
    query_store s;
    reg_autoload_ensure(r->autoload); /* the default plugins, on first need */
    pthread_mutex_lock(&reg->lock);
    if (n->op == IR_FOREIGN_EXP) {
        e = choose_scalar(reg, n, backend, why);
    } else if (!make_query(n, backend, &s)) {
        snprintf(why, sizeof why, "more than %d arrays", MAX_ARRAYS);
    } else if ((e = choose_array(reg, &s, why)) && !create_state(n, e, &s, why)) {
        e = NULL;
    }
    pthread_mutex_unlock(&reg->lock);
    if (!e && !why[0])
        reg_autoload_note(r->autoload, n->u.foreign.name, backend, note,
                          sizeof note);
    describe(text, n, e, backend, why, note);
    n->u.foreign.impl = e;
    n->u.foreign.source = e && n->op == IR_FOREIGN_EXP ? e->source : NULL;
    n->u.foreign.entry = e && n->op == IR_FOREIGN_EXP ? e->entry : NULL;
    n->u.foreign.name = arena_text(r->p, n->u.foreign.name);
    n->u.foreign.reason = arena_text(r->p, text);
    return n->u.foreign.name && n->u.foreign.reason;
}

static int walk(resolver *r, ir_node *n)
{
    if (r->seen[n->id])
        return 1;
    r->seen[n->id] = 1;
    if (n->op == IR_VAR && n->u.let.var < r->p->n_vars &&
        r->p->var_bound[n->u.let.var])
        return walk(r, r->p->var_bound[n->u.let.var]);
    int foreign = n->op == IR_FOREIGN || n->op == IR_FOREIGN_EXP;
    if (foreign && !resolve_node(r, n))
        return 0;
    for (uint32_t i = 0; i < n->n_args; i++) {
        if (foreign && i == 0 && n->u.foreign.impl)
            continue; /* the fallback is not used */
        if (!walk(r, n->args[i]))
            return 0;
    }
    return 1;
}

acc_status reg_resolve_program(ir_program *p, reg_registry *reg,
                               reg_autoload *autoload, acc_backend backend,
                               diag *d)
{
    resolver r = {p, reg, autoload, backend,
                  mem_calloc(p->n_nodes ? p->n_nodes : 1, 1),
                  d};
    if (!r.seen || !walk(&r, p->root))
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory "
                  "while resolving foreign nodes");
    free(r.seen);
    return d->status;
}

void reg_release_program(ir_program *p)
{
    for (uint32_t i = 0; i < p->n_nodes; i++) {
        ir_node *n = p->nodes[i];
        if (n->op != IR_FOREIGN || !n->u.foreign.state)
            continue;
        const reg_impl *e = n->u.foreign.impl;
        if (e && e->api.destroy)
            e->api.destroy(e->api.user, n->u.foreign.state);
        n->u.foreign.state = NULL;
    }
}
