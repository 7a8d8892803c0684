/*
 * build.c — building a program's schedule from its final IR (see
 * schedule.h), in passes over the nodes the root reaches:
 *
 *  1. order: the nodes in an order that puts every node after all the
 *     nodes that use it (a reverse post-order of the DAG; a variable
 *     leads to the term its let binds, a let only to its body: a bound
 *     term nobody refers to is not computed);
 *  2. scopes: each node's home, the innermost scope containing all its
 *     uses (the lowest common ancestor of the scopes of its uses; a
 *     control node opens a scope per body), whether some use reads it
 *     outside scalar functions (eager), and which nodes are steps (array
 *     operations not embedded in a consumer, control and foreign nodes);
 *  3. steps: a post-order walk appends each step to its home scope, so
 *     every step comes after the steps it reads;
 *  4. reads and releases: what each step reads, and after which step
 *     each value of a scope is read for the last time.
 */
#include "core/schedule/schedule.h"

#include "core/base/mem.h"
#include "core/fusion/fusion.h"

#include <stdlib.h>
#include <string.h>

int sched_is_array_op(ir_op op)
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

static int is_control(ir_op op)
{
    return op == IR_ACOND || op == IR_AWHILE || op == IR_FOREIGN;
}

/* A growable list of uint32_t. */
typedef struct ids {
    uint32_t *v;
    uint32_t n, cap;
} ids;

/* One scope while building: its parent, depth, the control node and
 * body index that open it, and the ids of its steps in order. */
typedef struct scope_info {
    int32_t parent;
    uint32_t depth;
    const ir_node *control; /* NULL for the root */
    uint32_t body;
    int counted;
    int filled;
    ids steps;
    schedule *out;
} scope_info;

typedef struct builder {
    const ir_program *ir;
    sched_program *sp;
    uint32_t n;            /* nodes */
    ids order;             /* post-order of the reachable nodes */
    uint8_t *state;        /* per node: 0 unseen, 1 in progress, 2 done */
    int32_t *home;         /* per node: its scope, -1 unreached */
    uint8_t *eager;        /* per node: read outside a scalar function */
    uint8_t *embedded;     /* per node: a producer embedded in its user */
    uint8_t *output;       /* per node: (part of) a program output */
    int32_t (*body_scope)[2]; /* per control node: its bodies' scopes */
    scope_info *scopes;
    uint32_t n_scopes, cap_scopes;
    ids all;               /* every step, in emission order */
    uint32_t *mark;        /* per node: a stamp, for sets without repeats */
    uint32_t stamp;
    diag *d;               /* out of memory is recorded here (the first
                              error wins); every walk stops once it is */
} builder;

static void push(builder *b, ids *l, uint32_t v)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 8;
        uint32_t *grown = mem_realloc(l->v, cap * sizeof *grown);
        if (!grown) {
            diag_oom(b->d, "compile: scheduling the program");
            return;
        }
        l->v = grown;
        l->cap = cap;
    }
    l->v[l->n++] = v;
}

/* ---- edges ------------------------------------------------------------------- */

/* The nodes n leads to, in the order they are evaluated.  An array let
 * leads to its body, its bound term being reached through its variables
 * (a bound term nobody refers to is not computed; the interpreter
 * evaluates array lets so); a scalar let, evaluated eagerly, to both, and
 * its variables to nothing (their let is what computes them; after
 * fusion only the let's own argument is up to date).  An awhile leads to
 * its initial state before its functions, a foreign node to its argument
 * before its fallback.  n_edges counts them; edge gives edge k and the
 * argument of n it is (0 for a variable). */
static int array_let(const ir_node *n)
{
    return n->op == IR_LET && n->type->array_sort;
}

static uint32_t n_edges(const builder *b, const ir_node *n)
{
    if (n->op == IR_VAR)
        return b->ir->var_bound[n->u.let.var]->type->array_sort ||
               b->ir->var_bound[n->u.let.var]->op == IR_LAMBDA;
    return array_let(n) ? 1 : n->n_args;
}

static const ir_node *edge(const builder *b, const ir_node *n, uint32_t k,
                           uint32_t *arg)
{
    if (n->op == IR_VAR) {
        *arg = 0;
        return b->ir->var_bound[n->u.let.var];
    }
    if (array_let(n))
        k = 1;
    else if (n->op == IR_AWHILE || n->op == IR_FOREIGN)
        k = k == 0 ? n->n_args - 1 : k - 1;
    *arg = k;
    return n->args[k];
}

/* Which body of control node n argument i is (0 or 1), or -1. */
static int body_of(const ir_node *n, uint32_t i)
{
    switch (n->op) {
    case IR_ACOND: return i >= 1 ? (int)i - 1 : -1;
    case IR_AWHILE: return i <= 1 ? (int)i : -1;
    case IR_FOREIGN: return i == 0 ? 0 : -1;
    default: return -1;
    }
}

/* Argument i of n is a scalar function: what it reads, it reads only when
 * it is applied. */
static int scalar_function(const ir_node *n, uint32_t i)
{
    const ir_node *a = n->args[i];
    return n->op != IR_VAR && a->op == IR_LAMBDA &&
           !ir_lambda_body(a)->type->array_sort;
}

/* ---- 1. order -------------------------------------------------------------- */

static void order_from(builder *b, const ir_node *n)
{
    if (b->state[n->id] || !diag_ok(b->d))
        return;
    b->state[n->id] = 1;
    uint32_t arg;
    for (uint32_t k = 0; k < n_edges(b, n); k++)
        order_from(b, edge(b, n, k, &arg));
    b->state[n->id] = 2;
    push(b, &b->order, n->id);
}

/* ---- 2. scopes ------------------------------------------------------------- */

static int32_t new_scope(builder *b, int32_t parent, const ir_node *control,
                         uint32_t body)
{
    if (b->n_scopes == b->cap_scopes) {
        uint32_t cap = b->cap_scopes ? 2 * b->cap_scopes : 8;
        scope_info *grown = mem_realloc(b->scopes, cap * sizeof *grown);
        if (!grown) {
            diag_oom(b->d, "compile: scheduling the program");
            return 0;
        }
        b->scopes = grown;
        b->cap_scopes = cap;
    }
    scope_info *s = &b->scopes[b->n_scopes];
    memset(s, 0, sizeof *s);
    s->parent = parent;
    s->depth = parent < 0 ? 0 : b->scopes[parent].depth + 1;
    s->control = control;
    s->body = body;
    /* a fallback that runs only when an implementation refuses at run
     * time is not part of the plan's figures */
    s->counted = parent < 0 ||
                 (b->scopes[parent].counted &&
                  !(control->op == IR_FOREIGN && control->u.foreign.impl));
    return (int32_t)b->n_scopes++;
}

static int32_t common_scope(const builder *b, int32_t x, int32_t y)
{
    if (x < 0)
        return y;
    while (x != y) {
        if (b->scopes[x].depth >= b->scopes[y].depth)
            x = b->scopes[x].parent;
        else
            y = b->scopes[y].parent;
    }
    return x;
}

static int is_step_node(const builder *b, const ir_node *n)
{
    return n->op != IR_LAMBDA && n->type->array_sort &&
           (sched_is_array_op(n->op) || is_control(n->op)) &&
           !b->embedded[n->id];
}

/* Propagates n's scope and eagerness along its edges (n's own are final:
 * every node that leads to n came before it). */
static void spread(builder *b, const ir_node *n)
{
    if (is_control(n->op) && n->type->array_sort)
        for (int k = 0; k < 2; k++)
            if (b->body_scope[n->id][k] < 0 &&
                (k == 0 || n->op != IR_FOREIGN))
                b->body_scope[n->id][k] = new_scope(b, b->home[n->id], n,
                                                    (uint32_t)k);
    int step = is_step_node(b, n);
    uint32_t arg;
    for (uint32_t k = 0; k < n_edges(b, n) && diag_ok(b->d); k++) {
        const ir_node *c = edge(b, n, k, &arg);
        int body = step && n->op != IR_VAR ? body_of(n, arg) : -1;
        int32_t where = body >= 0 ? b->body_scope[n->id][body]
                                  : b->home[n->id];
        b->home[c->id] = common_scope(b, b->home[c->id], where);
        int lazy = n->op != IR_VAR && scalar_function(n, arg);
        if ((step || b->eager[n->id]) && !lazy)
            b->eager[c->id] = 1;
        /* control is never embedded: a map over an acond or an awhile
         * reads its value (the control node is a step of its own) */
        if (n->op != IR_VAR && fuse_is_embedded(n, arg) &&
            !is_control(c->op))
            b->embedded[c->id] = 1;
    }
}

/* ---- outputs ----------------------------------------------------------------- */

/* Marks the terms the root evaluates to: a foreign node that runs its
 * fallback is an output, and so is the fallback's result, computed
 * straight into the output (destinations.h). */
static void mark_outputs(builder *b, const ir_node *n)
{
    b->output[n->id] = 1;
    const ir_node *v = ir_value_term(b->ir, n);
    b->output[v->id] = 1;
    if (v->op == IR_TUPLE)
        for (uint32_t i = 0; i < v->n_args; i++)
            mark_outputs(b, v->args[i]);
}

/* ---- 3. steps ---------------------------------------------------------------- */

static void emit_from(builder *b, const ir_node *n)
{
    if (b->state[n->id] == 3 || !diag_ok(b->d))
        return;
    b->state[n->id] = 3;
    uint32_t arg;
    for (uint32_t k = 0; k < n_edges(b, n); k++)
        emit_from(b, edge(b, n, k, &arg));
    if (b->sp->is_step[n->id]) {
        push(b, &b->scopes[b->home[n->id]].steps, n->id);
        push(b, &b->all, n->id);
    }
}

/* ---- dependence on a loop's parameters --------------------------------------- */

static int is_param_of(const ir_node *lam, const ir_node *n)
{
    for (uint32_t i = 0; i < lam->u.lambda.n_params; i++)
        if (ir_lambda_param(lam, i) == n)
            return 1;
    return 0;
}

/* Whether n depends on lam's parameters (through every argument, the
 * bound terms of lets included, and variables); dep holds per node 0
 * unknown, 1 no, 2 yes. */
static int depends(builder *b, const ir_node *lam, const ir_node *n,
                   uint8_t *dep)
{
    if (dep[n->id])
        return dep[n->id] == 2;
    dep[n->id] = 1;
    int d = is_param_of(lam, n);
    for (uint32_t i = 0; i < n->n_args; i++)
        d |= depends(b, lam, n->args[i], dep);
    if (n->op == IR_VAR)
        d |= depends(b, lam, b->ir->var_bound[n->u.let.var], dep);
    dep[n->id] = (uint8_t)(d ? 2 : 1);
    return d;
}

/* ---- 4. reads ---------------------------------------------------------------- */

/* The values term n reads, stopping at steps (they are values), into l;
 * `top` is the step itself (its own arguments are read, it is not). */
static void reads_of(builder *b, const ir_node *n, const ir_node *top,
                     ids *l)
{
    if (b->mark[n->id] == b->stamp || !diag_ok(b->d))
        return;
    b->mark[n->id] = b->stamp;
    if (n != top && b->sp->is_step[n->id]) {
        push(b, l, n->id);
        return;
    }
    uint32_t arg;
    for (uint32_t k = 0; k < n_edges(b, n); k++) {
        const ir_node *c = edge(b, n, k, &arg);
        if (!(n == top && is_control(n->op) && body_of(n, arg) >= 0))
            reads_of(b, c, top, l);
    }
}

/* Whether scope s is scope `in` or inside it. */
static int scope_within(const builder *b, int32_t s, int32_t in)
{
    while (s >= 0 && s != in && b->scopes[s].depth > b->scopes[in].depth)
        s = b->scopes[s].parent;
    return s == in;
}

static int copy_ids(builder *b, const ids *l, uint32_t **out, uint32_t *n)
{
    *n = l->n;
    *out = NULL;
    if (!l->n)
        return 1;
    *out = arena_alloc(b->sp->arena, l->n * sizeof **out);
    if (!*out)
        return 0;
    memcpy(*out, l->v, l->n * sizeof **out);
    return 1;
}

static int fill_scope(builder *b, uint32_t si);

/* The reads of step n: its own arguments', and for a control step what
 * its bodies read from outside them. */
static void step_reads(builder *b, const ir_node *n, ids *l)
{
    b->stamp++;
    reads_of(b, n, n, l);
    if (!is_control(n->op))
        return;
    for (int k = 0; k < 2; k++) {
        int32_t bs = b->body_scope[n->id][k];
        if (bs < 0)
            continue;
        schedule *s = b->scopes[bs].out;
        ids inner = {0};
        b->stamp++;
        reads_of(b, s->result, NULL, &inner);
        for (size_t i = 0; i < s->n_steps; i++)
            for (uint32_t j = 0; j < s->steps[i].n_reads; j++)
                push(b, &inner, s->steps[i].reads[j]);
        for (uint32_t j = 0; j < inner.n; j++) {
            uint32_t v = inner.v[j];
            int dup = 0;
            for (uint32_t q = 0; q < l->n && !dup; q++)
                dup = l->v[q] == v;
            if (!dup && !scope_within(b, b->home[v], bs))
                push(b, l, v);
        }
        free(inner.v);
    }
}

/* The result term of body k of control node n, and its lambda. */
static const ir_node *body_term(const ir_node *n, int k,
                                const ir_node **lambda)
{
    *lambda = NULL;
    if (n->op == IR_ACOND)
        return n->args[1 + k];
    *lambda = n->args[k];
    return ir_lambda_body(n->args[k]);
}

static int fill_step(builder *b, uint32_t si, sched_step *st, uint32_t id)
{
    const ir_node *n = b->ir->nodes[id];
    scope_info *sc = &b->scopes[si];
    memset(st, 0, sizeof *st);
    st->node = n;
    st->kind = n->op == IR_ACOND    ? SCHED_COND
             : n->op == IR_AWHILE   ? SCHED_WHILE
             : n->op == IR_FOREIGN  ? SCHED_FOREIGN
                                    : SCHED_ARRAY;
    st->output = b->output[id];
    st->lazy = !b->eager[id];
    st->counted = (uint8_t)sc->counted;
    for (int k = 0; is_control(n->op) && k < 2; k++) {
        int32_t bs = b->body_scope[id][k];
        if (bs < 0)
            continue;
        if (!fill_scope(b, (uint32_t)bs))
            return 0;
        st->body[k] = b->scopes[bs].out;
    }
    ids l = {0};
    step_reads(b, n, &l);
    int ok = diag_ok(b->d) && copy_ids(b, &l, &st->reads, &st->n_reads);
    free(l.v);
    return ok;
}

/* Where each value of scope s (ids in `values`, its steps' that are not
 * once) is released: after the last step of s that reads it, or at the
 * end of s when its result names it (it is taken first) or nothing in s
 * reads it. */
static int last_uses(builder *b, schedule *s, const ids *values)
{
    ids keep = {0}, end = {0};
    ids *after = mem_calloc(s->n_steps ? s->n_steps : 1, sizeof *after);
    int ok = after != NULL;
    b->stamp++;
    reads_of(b, s->result, NULL, &keep);
    uint32_t kept = b->stamp;
    for (uint32_t j = 0; ok && j < values->n; j++) {
        uint32_t v = values->v[j];
        size_t last = s->n_steps;
        for (size_t i = 0; b->mark[v] != kept && i < s->n_steps; i++)
            for (uint32_t r = 0; r < s->steps[i].n_reads; r++)
                if (s->steps[i].reads[r] == v)
                    last = i;
        push(b, last < s->n_steps ? &after[last] : &end, v);
    }
    for (size_t i = 0; ok && i < s->n_steps; i++)
        ok = copy_ids(b, &after[i], &s->steps[i].release,
                      &s->steps[i].n_release);
    ok = ok && diag_ok(b->d) && copy_ids(b, &end, &s->release_end,
                                   &s->n_release_end);
    for (size_t i = 0; after && i < s->n_steps; i++)
        free(after[i].v);
    free(after);
    free(keep.v);
    free(end.v);
    return ok;
}

/* Scope si's schedule: its steps, the once flags of a loop's steps, and
 * what is released after each step and at its end.  A control step fills its bodies first
 * (its reads include theirs), so a scope may be filled already. */
static int fill_scope(builder *b, uint32_t si)
{
    scope_info *sc = &b->scopes[si];
    schedule *s = sc->out;
    if (sc->filled)
        return 1;
    sc->filled = 1;
    s->result = sc->control ? body_term(sc->control, (int)sc->body,
                                        &s->lambda)
                            : b->ir->root;
    s->n_steps = sc->steps.n;
    if (s->n_steps &&
        !(s->steps = arena_alloc(b->sp->arena, s->n_steps * sizeof *s->steps)))
        return 0;
    uint8_t *dep = NULL;
    int loop = sc->control && sc->control->op == IR_AWHILE;
    if (loop && !(dep = mem_calloc(b->n ? b->n : 1, 1)))
        return 0;
    ids once = {0}, end = {0};
    int ok = 1;
    for (uint32_t i = 0; ok && i < sc->steps.n; i++) {
        uint32_t id = sc->steps.v[i];
        ok = fill_step(b, si, &s->steps[i], id);
        if (ok && loop && !depends(b, s->lambda, b->ir->nodes[id], dep)) {
            s->steps[i].once = 1;
            push(b, &once, id);
        } else if (ok) {
            push(b, &end, id);
        }
    }
    free(dep);
    ok = ok && diag_ok(b->d) && copy_ids(b, &once, &s->once_values, &s->n_once) &&
         last_uses(b, s, &end);
    free(once.v);
    free(end.v);
    return ok;
}

/* ---- the whole ----------------------------------------------------------------- */

static int alloc_tables(builder *b)
{
    uint32_t n = b->n ? b->n : 1;
    b->state = mem_calloc(n, 1);
    b->home = mem_alloc(n * sizeof *b->home);
    b->eager = mem_calloc(n, 1);
    b->embedded = mem_calloc(n, 1);
    b->output = mem_calloc(n, 1);
    b->mark = mem_calloc(n, sizeof *b->mark);
    b->body_scope = mem_alloc(n * sizeof *b->body_scope);
    b->sp->is_step = arena_alloc(b->sp->arena, n);
    if (!b->state || !b->home || !b->eager || !b->embedded || !b->output ||
        !b->mark || !b->body_scope || !b->sp->is_step)
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        b->home[i] = -1;
        b->body_scope[i][0] = b->body_scope[i][1] = -1;
    }
    return 1;
}

static void free_builder(builder *b)
{
    for (uint32_t i = 0; i < b->n_scopes; i++)
        free(b->scopes[i].steps.v);
    free(b->scopes);
    free(b->order.v);
    free(b->all.v);
    free(b->state);
    free(b->home);
    free(b->eager);
    free(b->embedded);
    free(b->output);
    free(b->mark);
    free(b->body_scope);
}

/* The figures of the plan, and the list of every step. */
static int finish(builder *b)
{
    sched_program *sp = b->sp;
    sched_step **by_id = mem_calloc(b->n ? b->n : 1, sizeof *by_id);
    sp->all = arena_alloc(sp->arena, (b->all.n ? b->all.n : 1) *
                                         sizeof *sp->all);
    if (!by_id || !sp->all) {
        free(by_id);
        return 0;
    }
    for (uint32_t si = 0; si < b->n_scopes; si++) {
        schedule *s = b->scopes[si].out;
        for (size_t i = 0; i < s->n_steps; i++)
            by_id[s->steps[i].node->id] = &s->steps[i];
    }
    for (uint32_t i = 0; i < b->all.n; i++) {
        sched_step *st = by_id[b->all.v[i]];
        sp->all[sp->n_all++] = st;
        if (!st->counted)
            continue;
        int array = st->kind == SCHED_ARRAY;
        sp->kernels += (size_t)array;
        sp->intermediates += (size_t)(array && !st->output);
        sp->foreign_calls += (size_t)(st->kind == SCHED_FOREIGN &&
                                      st->node->u.foreign.impl);
    }
    free(by_id);
    return 1;
}

acc_status sched_build(const ir_program *ir, sched_program *out, diag *d)
{
    builder b;
    memset(&b, 0, sizeof b);
    memset(out, 0, sizeof *out);
    b.ir = ir;
    b.sp = out;
    b.d = d;
    b.n = ir->n_nodes;
    out->n_nodes = ir->n_nodes;
    out->duplicated = ir->duplicated;
    int ok = (out->arena = arena_create()) != NULL && alloc_tables(&b);
    if (ok) {
        order_from(&b, ir->root);
        new_scope(&b, -1, NULL, 0);
        b.home[ir->root->id] = 0;
        b.eager[ir->root->id] = 1;
        mark_outputs(&b, ir->root);
        /* parents before children: the reverse of the post-order */
        for (uint32_t i = b.order.n; i-- > 0 && diag_ok(b.d);)
            spread(&b, ir->nodes[b.order.v[i]]);
        for (uint32_t i = 0; i < b.order.n; i++)
            out->is_step[b.order.v[i]] =
                (uint8_t)is_step_node(&b, ir->nodes[b.order.v[i]]);
        ok = diag_ok(b.d);
    }
    for (uint32_t si = 0; ok && si < b.n_scopes; si++)
        ok = (b.scopes[si].out = arena_alloc(out->arena,
                                             sizeof(schedule))) != NULL;
    if (ok) {
        emit_from(&b, ir->root);
        ok = diag_ok(b.d);
    }
    for (uint32_t si = 0; ok && si < b.n_scopes; si++)
        ok = fill_scope(&b, si);
    if (ok) {
        out->root = *b.scopes[0].out;
        b.scopes[0].out = &out->root;
        ok = finish(&b);
    }
    free_builder(&b);
    if (!ok) {
        sched_free(out);
        diag_oom(d, "compile: scheduling the program");
    }
    return d->status;
}

void sched_free(sched_program *s)
{
    arena_destroy(s->arena);
    memset(s, 0, sizeof *s);
}
