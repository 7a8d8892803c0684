/*
 * sharing.c — sharing recovery: occurrence counting (prune), floating of
 * shared terms to their binding points, and let introduction.  See
 * sharing.h for the rules and docs/SHARING.md for the walk-through.
 *
 * The pass runs once over the array level of the program and then once
 * per scalar argument of each array operation (a "scalar root").  Each run
 * analyses a region: the nodes of one sort reachable from a root without
 * leaving the sort.  Per-node facts live in a side table indexed by node
 * id; fields that belong to one analysis are reset lazily by a stamp.
 */
#include "core/sharing/sharing.h"
#include "core/base/mem.h"

#include <stdlib.h>
#include <string.h>

typedef struct pend {
    ir_node *node;
    uint32_t count;  /* occurrences below the current node            */
    uint32_t strict; /* of those, reached through strict edges only    */
} pend;

typedef struct info {
    /* per analysis (valid when stamp is the analysis' stamp) */
    uint32_t stamp;
    uint32_t count;       /* in-edges from the region                  */
    uint8_t visited, processed, forced, duplicated, rebuilt;
    uint32_t acc_index;   /* 1 + position in the accumulator, or 0    */
    ir_node *rebuilt_as;
    pend *pending;
    uint32_t n_pending;
    ir_node **binds;
    uint32_t n_binds, cap_binds;
    ir_node **embedded;   /* array phase: arrays read by its scalar code */
    uint32_t n_embedded, cap_embedded;
    uint32_t var_plus1;   /* 1 + let variable when bound               */
    /* persistent */
    uint32_t avar_plus1;  /* array variable bound by the array phase   */
    uint32_t owner;       /* scalar root that claimed the node          */
    uint32_t copy_stamp, dep_stamp, embed_stamp, scalar_done;
    uint32_t branch_stamp; /* branch_mask belongs to this aux stamp   */
    uint8_t branch_mask;   /* bit b: certain in branch b of a cond     */
    int8_t dep;
    ir_node *copy;
} info;

typedef struct acc_list { /* the accumulator of one float step */
    pend *items;
    uint32_t n, cap;
} acc_list;

typedef struct share {
    ir_program *p;
    diag *d;
    info *info;
    uint32_t cap_info;
    uint32_t stamp;     /* current analysis */
    int array_phase;
    uint32_t roots;     /* scalar roots claimed so far */
    uint32_t aux_stamp; /* for copies, dependence and embedding walks */
    info spare; /* what slot_of gives when the table cannot grow */
} share;

/* The pass's only error state is its diag (share_recover enters with a
 * clean one): a failure is recorded there once, and the walks stop at
 * their next check of failed() instead of checking every node they get. */
static int failed(const share *s)
{
    return !diag_ok(s->d);
}

/* Out of memory, reported through diag_oom like everywhere else. */
static void out_of_memory(share *s)
{
    diag_oom(s->d, "sharing recovery");
}

/* ---- the side table -------------------------------------------------------- */

static info *slot_of(share *s, const ir_node *n)
{
    if (n->id >= s->cap_info) {
        uint32_t cap = s->cap_info ? s->cap_info : 64;
        while (cap <= n->id)
            cap *= 2;
        info *grown = mem_realloc(s->info, cap * sizeof *grown);
        if (!grown) {
            /* out of memory: the pass stops at its next check of failed();
             * until then its callers write into a spare slot instead of
             * checking every access */
            out_of_memory(s);
            free(s->spare.pending);
            free(s->spare.binds);
            free(s->spare.embedded);
            memset(&s->spare, 0, sizeof s->spare);
            return &s->spare;
        }
        memset(grown + s->cap_info, 0, (cap - s->cap_info) * sizeof *grown);
        s->info = grown;
        s->cap_info = cap;
    }
    return &s->info[n->id];
}

/* The node's facts for the current analysis (reset on first access). */
static info *fresh(share *s, const ir_node *n)
{
    info *i = slot_of(s, n);
    if (i && i->stamp != s->stamp) {
        free(i->pending);
        free(i->binds);
        free(i->embedded);
        uint32_t avar = i->avar_plus1, owner = i->owner;
        uint32_t cs = i->copy_stamp, ds = i->dep_stamp, es = i->embed_stamp;
        uint32_t sd = i->scalar_done, bs = i->branch_stamp;
        uint8_t bm = i->branch_mask;
        int8_t dep = i->dep;
        ir_node *copy = i->copy;
        memset(i, 0, sizeof *i);
        i->stamp = s->stamp;
        i->avar_plus1 = avar;
        i->owner = owner;
        i->copy_stamp = cs;
        i->dep_stamp = ds;
        i->embed_stamp = es;
        i->scalar_done = sd;
        i->branch_stamp = bs;
        i->branch_mask = bm;
        i->dep = dep;
        i->copy = copy;
    }
    return i;
}

/* ---- regions ---------------------------------------------------------------- */

static int array_level(const ir_node *n)
{
    if (n->op == IR_LAMBDA)
        return ir_lambda_body(n)->type->array_sort;
    return n->type->array_sort;
}

static int in_region(const share *s, const ir_node *n)
{
    return array_level(n) == s->array_phase;
}

/* Leaves and functions are never let-bound. */
static int bindable(const ir_node *n)
{
    return n->n_args > 0 && n->op != IR_LAMBDA && n->op != IR_LET &&
           n->op != IR_VAR;
}

/* Whether argument i of n is evaluated only under a condition. */
static int lazy_edge(const ir_node *n, uint32_t i)
{
    switch (n->op) {
    case IR_COND:
    case IR_ACOND: return i > 0;
    case IR_PRIM:
        return i == 1 && (n->u.prim == ACC_OP_LAND || n->u.prim == ACC_OP_LOR);
    case IR_WHILE:
    case IR_AWHILE: return i == 1;
    case IR_FOREIGN: return i == 0; /* the fallback runs only when chosen */
    default: return 0;
    }
}

static int shared(share *s, const ir_node *n)
{
    info *i = fresh(s, n);
    return i && bindable(n) && (i->count > 1 || i->forced);
}

/* ---- splitting a lambda that is used twice ---------------------------------- */

static int depends(share *s, ir_node *n, const ir_node *lam, uint32_t st)
{
    info *i = slot_of(s, n);
    if (!i)
        return 0;
    if (i->dep_stamp == st)
        return i->dep;
    int dep = 0;
    for (uint32_t k = 0; k < lam->u.lambda.n_params; k++)
        dep |= lam->args[k] == n;
    for (uint32_t k = 0; !dep && k < n->n_args; k++)
        dep = depends(s, n->args[k], lam, st);
    i = slot_of(s, n);
    i->dep_stamp = st;
    i->dep = (int8_t)dep;
    return dep;
}

/* Copies the part of the term that depends on lam's parameters. */
static ir_node *clone_dependent(share *s, ir_node *n, const ir_node *lam,
                                uint32_t st)
{
    if (!depends(s, n, lam, st))
        return n;
    info *i = slot_of(s, n);
    if (i->copy_stamp == st)
        return i->copy;
    ir_node *m = ir_program_node(s->p, n->op, n->type, n->n_args, n->args);
    if (!m) {
        out_of_memory(s);
        return n;
    }
    m->u = n->u;
    m->free.n = n->free.n;
    m->afree.n = n->afree.n;
    if (n->op == IR_PARAM)
        m->u.param.slot = s->p->n_params++;
    i = slot_of(s, n);
    i->copy_stamp = st;
    i->copy = m;
    for (uint32_t k = 0; k < m->n_args; k++)
        m->args[k] = clone_dependent(s, m->args[k], lam, st);
    return m;
}

static ir_node *split_lambda(share *s, ir_node *lam)
{
    uint32_t st = ++s->aux_stamp;
    return clone_dependent(s, lam, lam, st);
}

/* ---- phase 1: occurrence counts (prune) ------------------------------------ */

static void count_visit(share *s, ir_node *n);

static void count_edge(share *s, ir_node *child, int forced)
{
    info *i = fresh(s, child);
    if (!i)
        return;
    i->count++;
    i->forced |= (uint8_t)forced;
    if (!i->visited)
        count_visit(s, child);
}

static int push_node(share *s, ir_node ***items, uint32_t *n, uint32_t *cap,
                     ir_node *x)
{
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 4;
        ir_node **grown = mem_realloc(*items, c * sizeof *grown);
        if (!grown) {
            out_of_memory(s);
            return 0;
        }
        *items = grown;
        *cap = c;
    }
    (*items)[(*n)++] = x;
    return 1;
}

/* Collects, once each, the array terms read by scalar term n into the
 * embedded list of `owner`. */
static void embedded_walk(share *s, ir_node *n, uint32_t st, ir_node *owner)
{
    info *i = slot_of(s, n);
    if (!i || i->embed_stamp == st)
        return;
    i->embed_stamp = st;
    for (uint32_t k = 0; k < n->n_args && !failed(s); k++) {
        ir_node *a = n->args[k];
        if (!array_level(a)) {
            embedded_walk(s, a, st, owner);
            continue;
        }
        info *ai = slot_of(s, a);
        if (!ai || ai->embed_stamp == st)
            continue;
        ai->embed_stamp = st;
        info *oi = fresh(s, owner);
        push_node(s, &oi->embedded, &oi->n_embedded, &oi->cap_embedded, a);
    }
}

static void count_visit(share *s, ir_node *n)
{
    fresh(s, n)->visited = 1;
    for (uint32_t k = 0; k < n->n_args && !failed(s); k++) {
        ir_node *a = n->args[k];
        if (!in_region(s, a))
            continue;
        info *ai = fresh(s, a);
        if (ai && a->op == IR_LAMBDA && ai->visited)
            n->args[k] = a = split_lambda(s, a);
        count_edge(s, a, 0);
    }
    if (!s->array_phase || failed(s))
        return;
    uint32_t st = ++s->aux_stamp;
    for (uint32_t k = 0; k < n->n_args && !failed(s); k++)
        if (!array_level(n->args[k]))
            embedded_walk(s, n->args[k], st, n);
    info *i = fresh(s, n);
    for (uint32_t k = 0; i && k < i->n_embedded && !failed(s); k++) {
        count_edge(s, i->embedded[k], 1);
        i = fresh(s, n); /* the table may have moved */
    }
}

/* ---- phase 2: floating ------------------------------------------------------- */

static void acc_add(share *s, acc_list *l, ir_node *node, uint32_t count,
                    uint32_t strict)
{
    info *i = fresh(s, node);
    if (!i)
        return;
    if (i->acc_index) {
        l->items[i->acc_index - 1].count += count;
        l->items[i->acc_index - 1].strict += strict;
        return;
    }
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 8;
        pend *grown = mem_realloc(l->items, cap * sizeof *grown);
        if (!grown) {
            out_of_memory(s);
            return;
        }
        l->items = grown;
        l->cap = cap;
    }
    l->items[l->n++] = (pend){node, count, strict};
    i->acc_index = l->n;
}

static void acc_merge(share *s, acc_list *l, ir_node *from, int strict)
{
    info *f = fresh(s, from);
    uint32_t n = f ? f->n_pending : 0;
    for (uint32_t k = 0; k < n; k++) {
        pend e = fresh(s, from)->pending[k];
        acc_add(s, l, e.node, e.count, strict ? e.strict : 0);
    }
}

static void bind_at(share *s, ir_node *n, ir_node *term)
{
    info *i = fresh(s, n);
    if (!push_node(s, &i->binds, &i->n_binds, &i->cap_binds, term))
        return;
    fresh(s, term)->var_plus1 = ++s->p->n_vars;
    if (s->array_phase)
        fresh(s, term)->avar_plus1 = s->p->n_vars;
}

/* Binds every accumulated term whose occurrences all lie below n; a term
 * reached only through lazy edges is not hoisted (it is shared without a
 * let).  A bound term's own pending terms continue from here. */
static void complete(share *s, ir_node *n, acc_list *l)
{
    for (int found = 1; found && !failed(s);) {
        found = 0;
        for (uint32_t k = 0; k < l->n && !failed(s); k++) {
            pend e = l->items[k];
            if (!e.node || e.count != fresh(s, e.node)->count)
                continue;
            l->items[k].node = NULL;
            fresh(s, e.node)->acc_index = 0;
            if (e.strict > 0)
                bind_at(s, n, e.node);
            else
                fresh(s, e.node)->duplicated = 1;
            acc_merge(s, l, e.node, e.strict > 0);
            found = 1;
        }
    }
}

static void keep_pending(share *s, ir_node *n, acc_list *l)
{
    uint32_t live = 0;
    for (uint32_t k = 0; k < l->n; k++)
        if (l->items[k].node) {
            fresh(s, l->items[k].node)->acc_index = 0;
            l->items[live++] = l->items[k];
        }
    info *i = fresh(s, n);
    if (!i || !live)
        return;
    i->pending = mem_alloc(live * sizeof *i->pending);
    if (!i->pending) {
        out_of_memory(s);
        return;
    }
    memcpy(i->pending, l->items, live * sizeof *i->pending);
    i->n_pending = live;
}

/* Adds one edge's contribution: a shared child counts as one occurrence;
 * an unshared child passes on what is pending inside it. */
static void add_edge(share *s, acc_list *l, ir_node *child, int lazy)
{
    if (shared(s, child))
        acc_add(s, l, child, 1, lazy ? 0 : 1);
    else
        acc_merge(s, l, child, !lazy);
}

/* Marks (bit `bit`) the terms certainly evaluated by branch `child`. */
static void mark_branch(share *s, ir_node *child, uint32_t st, uint8_t bit)
{
    if (shared(s, child)) {
        info *i = slot_of(s, child);
        i->branch_mask = i->branch_stamp == st ? i->branch_mask | bit : bit;
        i->branch_stamp = st;
        return;
    }
    info *c = fresh(s, child);
    for (uint32_t k = 0; c && k < c->n_pending; k++) {
        if (!c->pending[k].strict)
            continue;
        info *i = slot_of(s, c->pending[k].node);
        i->branch_mask = i->branch_stamp == st ? i->branch_mask | bit : bit;
        i->branch_stamp = st;
        c = fresh(s, child);
    }
}

static int certain_in_both(share *s, ir_node *term, uint32_t st)
{
    info *i = slot_of(s, term);
    return i && i->branch_stamp == st && i->branch_mask == 3;
}

/* The two branches of if/acond: a term certainly evaluated by both is
 * certainly evaluated by the conditional; anything else is lazy. */
static void add_branches(share *s, acc_list *l, ir_node *then_, ir_node *else_)
{
    uint32_t st = ++s->aux_stamp;
    mark_branch(s, then_, st, 1);
    mark_branch(s, else_, st, 2);
    ir_node *branches[2] = {then_, else_};
    for (int b = 0; b < 2; b++) {
        ir_node *child = branches[b];
        if (shared(s, child)) {
            acc_add(s, l, child, 1, certain_in_both(s, child, st));
            continue;
        }
        for (uint32_t k = 0; k < fresh(s, child)->n_pending; k++) {
            pend e = fresh(s, child)->pending[k];
            acc_add(s, l, e.node, e.count,
                    e.strict && certain_in_both(s, e.node, st) ? e.strict : 0);
        }
    }
}

static void float_visit(share *s, ir_node *n)
{
    fresh(s, n)->processed = 1;
    for (uint32_t k = 0; k < n->n_args && !failed(s); k++) {
        ir_node *a = n->args[k];
        if (in_region(s, a) && !fresh(s, a)->processed)
            float_visit(s, a);
    }
    for (uint32_t k = 0; k < fresh(s, n)->n_embedded && !failed(s); k++) {
        ir_node *e = fresh(s, n)->embedded[k];
        if (!fresh(s, e)->processed)
            float_visit(s, e);
    }
    acc_list l = {0};
    int two_way = n->op == IR_COND || n->op == IR_ACOND;
    for (uint32_t k = 0; k < n->n_args && !failed(s); k++)
        if (in_region(s, n->args[k]) && !(two_way && k > 0))
            add_edge(s, &l, n->args[k], lazy_edge(n, k));
    if (two_way && in_region(s, n->args[1]))
        add_branches(s, &l, n->args[1], n->args[2]);
    for (uint32_t k = 0; k < fresh(s, n)->n_embedded && !failed(s); k++)
        add_edge(s, &l, fresh(s, n)->embedded[k], 0);
    complete(s, n, &l);
    keep_pending(s, n, &l);
    free(l.items);
}

/* ---- phase 3: binder introduction ------------------------------------------ */

static ir_node *make_var(share *s, ir_node *bound, uint32_t var_plus1)
{
    ir_node *v = ir_program_node(s->p, IR_VAR, bound->type, 0, NULL);
    if (!v) {
        out_of_memory(s);
        return bound;
    }
    v->u.let.var = var_plus1 - 1;
    return v;
}

static int by_depth(const void *a, const void *b)
{
    const ir_node *x = *(ir_node *const *)a, *y = *(ir_node *const *)b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int grow_vars(share *s)
{
    ir_program *p = s->p;
    ir_node **grown = mem_realloc(p->var_bound, (p->n_vars ? p->n_vars : 1) *
                                                sizeof *grown);
    if (!grown)
        return 0;
    p->var_bound = grown;
    return 1;
}

static ir_node *rebuild(share *s, ir_node *n);

/* Wraps body in the lets bound at n, outermost the shallowest term. */
static ir_node *wrap_lets(share *s, ir_node *n, ir_node *body)
{
    info *i = fresh(s, n);
    uint32_t count = i->n_binds;
    if (!count)
        return body;
    ir_node **binds = mem_alloc(count * sizeof *binds);
    if (!binds) {
        out_of_memory(s);
        return body;
    }
    memcpy(binds, i->binds, count * sizeof *binds);
    qsort(binds, count, sizeof *binds, by_depth);
    for (uint32_t k = count; k-- > 0 && !failed(s);) {
        uint32_t var = fresh(s, binds[k])->var_plus1 - 1;
        ir_node *bound = rebuild(s, binds[k]);
        ir_node *args[2] = {bound, body};
        ir_node *let = ir_program_node(s->p, IR_LET, body->type, 2, args);
        if (!let) {
            out_of_memory(s);
            break;
        }
        let->u.let.var = var;
        s->p->var_bound[var] = bound;
        body = let;
    }
    free(binds);
    return body;
}

/* An array argument of scalar code: its variable when the array phase
 * bound it. */
static ir_node *array_ref(share *s, ir_node *a)
{
    info *i = slot_of(s, a);
    return i && i->avar_plus1 ? make_var(s, a, i->avar_plus1) : a;
}

static ir_node *rebuild(share *s, ir_node *n)
{
    info *i = fresh(s, n);
    if (!i)
        return n;
    if (i->rebuilt)
        return i->rebuilt_as;
    i->rebuilt = 1;
    i->rebuilt_as = n;
    for (uint32_t k = 0; k < n->n_args && !failed(s); k++) {
        ir_node *a = n->args[k];
        if (!in_region(s, a)) {
            if (!s->array_phase && array_level(a))
                n->args[k] = array_ref(s, a);
            continue;
        }
        int is_shared = shared(s, a);
        info *ai = fresh(s, a);
        if (is_shared && !ai->duplicated)
            n->args[k] = make_var(s, a, ai->var_plus1);
        else
            n->args[k] = rebuild(s, a);
    }
    ir_node *result = n;
    if (n->op == IR_LAMBDA) {
        uint32_t b = n->u.lambda.n_params;
        n->args[b] = wrap_lets(s, n, n->args[b]);
    } else {
        result = wrap_lets(s, n, n);
    }
    fresh(s, n)->rebuilt_as = result;
    return result;
}

/* ---- running the phases ------------------------------------------------------ */

static ir_node *recover_region(share *s, ir_node *root, int array_phase)
{
    s->stamp++;
    s->array_phase = array_phase;
    count_visit(s, root);
    if (!failed(s))
        float_visit(s, root);
    info *r = failed(s) ? NULL : fresh(s, root);
    if (r && r->n_pending > 0) /* the root dominates every use */
        diag_fail(s->d, ACC_ERR_INTERNAL, "sharing recovery: a shared term "
                  "was not dominated by the program root");
    if (failed(s))
        return root;
    if (!grow_vars(s)) {
        out_of_memory(s);
        return root;
    }
    return rebuild(s, root);
}

/* Makes the scalar subterm a private to scalar root `root`: nodes already
 * claimed by another root are copied (with fresh parameters). */
static ir_node *claim(share *s, ir_node *a, uint32_t root)
{
    if (array_level(a))
        return a;
    info *i = slot_of(s, a);
    if (!i)
        return a;
    if (i->owner == root)
        return a;
    if (i->owner == 0) {
        i->owner = root;
        for (uint32_t k = 0; k < a->n_args && !failed(s); k++)
            a->args[k] = claim(s, a->args[k], root);
        return a;
    }
    if (i->copy_stamp == root + 0x80000000u)
        return i->copy;
    ir_node *m = ir_program_node(s->p, a->op, a->type, a->n_args, a->args);
    if (!m) {
        out_of_memory(s);
        return a;
    }
    m->u = a->u;
    m->free.n = a->free.n;
    m->afree.n = a->afree.n;
    if (a->op == IR_PARAM)
        m->u.param.slot = s->p->n_params++;
    i = slot_of(s, a);
    i->copy_stamp = root + 0x80000000u;
    i->copy = m;
    slot_of(s, m)->owner = root;
    for (uint32_t k = 0; k < m->n_args && !failed(s); k++)
        m->args[k] = claim(s, m->args[k], root);
    return m;
}

/* The scalar roots of every array operation of the array tree: first each
 * is claimed (made private, pass 1), then each is recovered (pass 2).
 * Claiming everything first matters: recovery rewrites nodes in place, so
 * a root must never copy nodes another root has already rewritten. */
static void scalar_pass(share *s, ir_node *n, uint32_t pass)
{
    info *i = slot_of(s, n);
    if (!i || i->scalar_done >= pass)
        return;
    i->scalar_done = pass;
    for (uint32_t k = 0; k < n->n_args && !failed(s); k++) {
        ir_node *a = n->args[k];
        if (array_level(a))
            scalar_pass(s, a, pass);
        else if (pass == 1)
            n->args[k] = claim(s, a, ++s->roots);
        else
            n->args[k] = recover_region(s, a, 0);
    }
}

static void release_table(share *s)
{
    for (uint32_t k = 0; k < s->cap_info; k++) {
        free(s->info[k].pending);
        free(s->info[k].binds);
        free(s->info[k].embedded);
    }
    free(s->info);
    free(s->spare.pending);
    free(s->spare.binds);
    free(s->spare.embedded);
}

acc_status share_recover(ir_program *p, diag *d)
{
    if (!diag_ok(d)) /* an earlier error wins; failed() reads d */
        return d->status;
    share s = {0};
    s.p = p;
    s.d = d;
    p->root = recover_region(&s, p->root, 1);
    if (!failed(&s))
        scalar_pass(&s, p->root, 1);
    if (!failed(&s))
        scalar_pass(&s, p->root, 2);
    release_table(&s);
    return d->status;
}
