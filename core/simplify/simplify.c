/*
 * simplify.c — the pass's walk (simplify.h): every node once, arguments
 * first, then the rewrite of the node itself: array operations are put
 * into the form fusion expects (lets floated out of their array
 * arguments, the sources of producers bound to variables), shape-only
 * uses become shape terms (shape.c) and constant scalar expressions are
 * folded (fold.c).
 */
#include "core/simplify/simplify_internal.h"
#include "core/simplify/form.h"
#include "core/base/mem.h"

#include <stdlib.h>

/* ---- constructors ------------------------------------------------------- */

ir_node *simp_mk(simplifier *s, ir_op op, const acc_type *type, uint32_t n,
                 ir_node *const *args)
{
    ir_node *node =
        simp_failed(s) ? NULL : ir_program_node(s->p, op, type, n, args);
    if (!node)
        simp_oom(s);
    return node;
}

uint32_t simp_new_var(simplifier *s, ir_node *bound)
{
    ir_program *p = s->p;
    ir_node **grown = simp_failed(s) ? NULL
                             : mem_realloc(p->var_bound,
                                           (p->n_vars + 1) * sizeof *grown);
    if (!grown) {
        simp_oom(s);
        return UINT32_MAX;
    }
    p->var_bound = grown;
    p->var_bound[p->n_vars] = bound;
    return p->n_vars++;
}

ir_node *simp_var(simplifier *s, uint32_t var, const acc_type *type)
{
    ir_node *v = simp_mk(s, IR_VAR, type, 0, NULL);
    if (v)
        v->u.let.var = var;
    return v;
}

ir_node *simp_let(simplifier *s, uint32_t var, ir_node *bound,
                  ir_node *body)
{
    ir_node *args[2] = {bound, body};
    ir_node *let = simp_mk(s, IR_LET, body->type, 2, args);
    if (let)
        let->u.let.var = var;
    return let;
}

ir_node *simp_get(simplifier *s, ir_node *t, size_t field,
                  const acc_type *type)
{
    ir_node *n = simp_mk(s, IR_GET, type, 1, &t);
    if (n)
        n->u.field = field;
    return n;
}

ir_node *simp_const(simplifier *s, const acc_type *type, ir_value v)
{
    ir_node *n = simp_mk(s, IR_CONST, type, 0, NULL);
    if (n)
        n->u.lit = v;
    return n;
}

/* ---- the form fusion expects -------------------------------------------- */

int simp_is_producer(const ir_node *a)
{
    switch (a->op) {
    case IR_GENERATE: case IR_ZIPWITH: case IR_BACKPERMUTE:
    case IR_REPLICATE: case IR_SLICE:
        return 1;
    case IR_MAP: /* over anything else, map is applied as a consumer writes */
        return form_is_ref(a->args[1]) || simp_is_producer(a->args[1]);
    default:
        return 0;
    }
}

/* A source of a producer that is not a variable, an input or a producer
 * (a consumer's result, an acond, ...) is bound to a variable, so the
 * producer's elements read a manifest array. */
static ir_node *bind_source(simplifier *s, ir_node *a, form_lets *f)
{
    if (form_is_ref(a) || simp_is_producer(a) || f->n == FORM_LETS_MAX)
        return a;
    uint32_t var = simp_new_var(s, a);
    ir_node *v = simp_failed(s) ? NULL : simp_var(s, var, a->type);
    if (!v)
        return a;
    f->vars[f->n] = var;
    f->bound[f->n++] = a;
    return v;
}

static void source(simplifier *s, ir_node *n, uint32_t i, int bind,
                   form_lets *f)
{
    n->args[i] = form_float_lets(n->args[i], f);
    if (bind)
        n->args[i] = bind_source(s, n->args[i], f);
}

/* Which array arguments of n are sources, as fusion reads them
 * (fusion.c: fuse_mapping, fuse_backpermute, fuse_replicate, fuse_slice,
 * fuse_args). */
static ir_node *normal_form(simplifier *s, ir_node *n)
{
    form_lets f = {.n = 0};
    switch (n->op) {
    case IR_MAP: source(s, n, 1, 0, &f); break;
    case IR_ZIPWITH:
        for (uint32_t i = 1; i < n->n_args; i++)
            source(s, n, i, 1, &f);
        break;
    case IR_BACKPERMUTE: source(s, n, 2, 1, &f); break;
    case IR_REPLICATE: source(s, n, n->n_args - 1, 1, &f); break;
    case IR_SLICE: source(s, n, 0, 1, &f); break;
    default:
        if (!form_is_consumer(n->op))
            break;
        for (uint32_t i = 0; i < n->n_args; i++)
            if (ir_is_array(n->args[i]))
                source(s, n, i, 0, &f);
        break;
    }
    for (uint32_t i = f.n; i-- > 0 && !simp_failed(s);) {
        ir_node *let = simp_let(s, f.vars[i], f.bound[i], n);
        n = let ? let : n;
    }
    return n;
}

/* ---- the walk ----------------------------------------------------------- */

static ir_node *simplify(simplifier *s, ir_node *n)
{
    if (simp_failed(s))
        return n;
    if (n->id < s->n_done && s->done[n->id])
        return s->done[n->id];
    for (uint32_t i = 0; i < n->n_args && !simp_failed(s); i++) {
        n->args[i] = simplify(s, n->args[i]);
        if (n->op == IR_LET && i == 0)
            s->p->var_bound[n->u.let.var] = n->args[0];
    }
    ir_node *r = n;
    if (simp_failed(s))
        r = n;
    else if (ir_is_array(n))
        r = normal_form(s, n);
    else if (n->op == IR_SHAPE || n->op == IR_SIZE) {
        r = simp_shape_use(s, n);
        if (r != n) /* a new term: simplified in turn (nothing memoised) */
            r = simplify(s, r);
    }
    else if (n->op != IR_LAMBDA)
        r = simp_fold(s, n);
    if (n->id < s->n_done)
        s->done[n->id] = r;
    return r;
}

acc_status simplify_program(ir_program *p, diag *d)
{
    if (!diag_ok(d)) /* an earlier error wins; simp_failed() reads d */
        return d->status;
    simplifier s = {.p = p, .n_done = p->n_nodes, .d = d};
    s.done = mem_calloc(p->n_nodes ? p->n_nodes : 1, sizeof *s.done);
    if (!s.done)
        simp_oom(&s);
    ir_node *root = simp_failed(&s) ? p->root : simplify(&s, p->root);
    if (!simp_failed(&s))
        p->root = root;
    free(s.done);
    return d->status;
}
