/*
 * in_range.c — reads that cannot be out of range, found after fusion.
 *
 * A generate's function is applied only to indices inside its shape.  When
 * its body reads an array at exactly that index (`xs ! ix`, ix the
 * function's parameter) and the generate's shape is, in every dimension,
 * at most the array's extent, the read is in range: the compiled kernel
 * needs no bounds check for it (ir_node.in_bounds, the same mark fusion
 * gives the reads it makes itself).  Shapes are recognised in the forms
 * users and fusion write them: `shape xs`, and index terms whose
 * components are `shape xs` components or minima with one such side (the
 * intersection of zipWith), through lets and variables.
 * The index may also be made of the parameter's components in another
 * order, or some of them more than once (a transpose's `xs ! [j, i]` in
 * `generate [w, h] (\[i, j] -> ..)` with `[h, w] = shape xs`): component
 * d of the read is then bounded by the generate's shape component it
 * comes from.
 *
 * The same holds for permute's index function, applied only to the
 * indices of its source: `permute f d (\i -> [xs ! i]) (map g xs)`, the
 * histogram of LANGUAGE.md §4, reads xs unchecked once the map is a
 * generate of shape `shape xs` embedded in the permute.
 *
 * This is what removes the check of SMVM's `inds ! i` in
 * `backpermute (shape inds) (\i -> [inds ! i]) vec` once the backpermute
 * is fused into the zipWith and the segmented fold.  A read inside a lambda
 * shared by several generates is marked only when every one of them
 * proves it.
 *
 * The same holds for a bounds check fusion put on a read of an inlined
 * producer (IR_BOUNDS of the function's own index against the producer's
 * shape term): `generate (shape ys) (\ix -> .. ys ! ix ..)` with ys
 * inlined checks ix against a copy of the very shape term the generate
 * has, component by component (or a minimum with such a side): equal
 * terms, compared structurally through lets and variables.
 */
#include "core/base/mem.h"
#include "core/fusion/fusion.h"

#include <stdlib.h>

/* The term n stands for: through lets (their bodies) and variables (the
 * terms they are bound to). */
static const ir_node *resolve(const ir_program *p, const ir_node *n)
{
    for (;;) {
        if (n->op == IR_LET)
            n = n->args[1];
        else if (n->op == IR_VAR)
            n = p->var_bound[n->u.let.var];
        else
            return n;
    }
}

static int same_array(const ir_program *p, const ir_node *a, const ir_node *b)
{
    a = resolve(p, a);
    b = resolve(p, b);
    return a == b ||
           (a->op == IR_INPUT && b->op == IR_INPUT && a->u.input == b->u.input);
}

/* Whether shape term s is `shape xs` for array xs. */
static int is_shape_of(const ir_program *p, const ir_node *s, const ir_node *xs)
{
    s = resolve(p, s);
    return s->op == IR_SHAPE && same_array(p, s->args[0], xs);
}

/* Whether scalar c is at most extent d of xs. */
static int component_bounded(const ir_program *p, const ir_node *c,
                             const ir_node *xs, size_t d)
{
    c = resolve(p, c);
    if (c->op == IR_GET)
        return c->u.field == d && is_shape_of(p, c->args[0], xs);
    if (c->op == IR_PRIM && c->u.prim == ACC_OP_MIN && c->n_args == 2)
        return component_bounded(p, c->args[0], xs, d) ||
               component_bounded(p, c->args[1], xs, d);
    return 0;
}

/* The comparisons one bounds check's proof may make: shape terms are
 * small, and a term with much sharing (a DAG) could take exponential time
 * to compare as a tree.  Beyond it the check stays. */
enum { PROOF_STEPS = 4096 };

/* Whether scalar terms a and b compute the same value: the same term, or
 * the same operation on the same arguments (a copy), through lets and
 * variables.  Only pure terms compare equal: no reads, no parameters of
 * different lambdas.  *steps: the comparisons left. */
static int same_term(const ir_program *p, const ir_node *a, const ir_node *b,
                     int *steps)
{
    if (--*steps < 0)
        return 0;
    a = resolve(p, a);
    b = resolve(p, b);
    if (a == b)
        return 1;
    if (a->op != b->op || a->n_args != b->n_args || a->type != b->type)
        return 0;
    switch (a->op) {
    case IR_CONST: return a->u.lit.u == b->u.lit.u;
    case IR_SHAPE: case IR_SIZE: return same_array(p, a->args[0], b->args[0]);
    case IR_GET: case IR_PRIM: case IR_INDEX: case IR_CONVERT: break;
    default: return 0;
    }
    if ((a->op == IR_GET && a->u.field != b->u.field) ||
        (a->op == IR_PRIM && a->u.prim != b->u.prim))
        return 0;
    for (uint32_t i = 0; i < a->n_args; i++)
        if (!same_term(p, a->args[i], b->args[i], steps))
            return 0;
    return 1;
}

/* Whether c is component d of shape term s (its argument d when s is an
 * index term). */
static int is_component(const ir_program *p, const ir_node *c,
                        const ir_node *s, size_t d, int *steps)
{
    const ir_node *r = resolve(p, s);
    if (r->op == IR_INDEX)
        return d < r->n_args && same_term(p, c, r->args[d], steps);
    c = resolve(p, c);
    return c->op == IR_GET && c->u.field == d &&
           same_term(p, c->args[0], s, steps);
}

/* Whether scalar c is at most component d of shape term s. */
static int bounded_by(const ir_program *p, const ir_node *c, const ir_node *s,
                      size_t d, int *steps)
{
    if (--*steps < 0)
        return 0;
    if (is_component(p, c, s, d, steps))
        return 1;
    c = resolve(p, c);
    return c->op == IR_PRIM && c->u.prim == ACC_OP_MIN && c->n_args == 2 &&
           (bounded_by(p, c->args[0], s, d, steps) ||
            bounded_by(p, c->args[1], s, d, steps));
}

/* Whether every index inside shape g (a generate's) is inside shape term
 * s (a bounds check's). */
static int shape_within(const ir_program *p, const ir_node *g,
                        const ir_node *s)
{
    int steps = PROOF_STEPS;
    if (same_term(p, g, s, &steps))
        return 1;
    g = resolve(p, g);
    if (g->op != IR_INDEX)
        return 0;
    for (uint32_t d = 0; d < g->n_args; d++)
        if (!bounded_by(p, g->args[d], s, d, &steps))
            return 0;
    return 1;
}

/* Whether every index inside shape s, rearranged by `from`, is an index
 * of xs: component d of the index read is component from[d] of s's
 * index (n components); from NULL: the index itself. */
static int shape_bounded(const ir_program *p, const ir_node *s,
                         const ir_node *xs, const uint32_t *from, uint32_t n)
{
    int in_order = !from || (int32_t)n == xs->type->rank;
    for (uint32_t d = 0; from && d < n && in_order; d++)
        in_order = from[d] == d;
    s = resolve(p, s);
    if (in_order && is_shape_of(p, s, xs))
        return 1;
    if (s->op != IR_INDEX)
        return 0;
    if (!from)
        n = s->n_args;
    if ((int32_t)n != xs->type->rank)
        return 0;
    for (uint32_t d = 0; d < n; d++) {
        uint32_t c = from ? from[d] : d;
        if (c >= s->n_args || !component_bounded(p, s->args[c], xs, d))
            return 0;
    }
    return 1;
}

/* Whether index term ix is made of param's components: param itself
 * (*from_out NULL), or an index whose component d is component from[d]
 * of param, as a pattern writes it: `\[i, j] -> .. xs ! [i, j]` (from =
 * 0, 1), a transpose's `xs ! [j, i]` (from = 1, 0).  *n gets the number
 * of components. */
static int param_components(const ir_program *p, const ir_node *ix,
                            const ir_node *param, uint32_t *from,
                            uint32_t **from_out, uint32_t *n)
{
    ix = resolve(p, ix);
    *from_out = NULL;
    *n = 0;
    if (ix == param)
        return 1;
    if (ix->op != IR_INDEX || param->type->kind != ACC_TYPE_SHAPE ||
        ix->n_args > ACC_MAX_RANK)
        return 0;
    for (uint32_t d = 0; d < ix->n_args; d++) {
        const ir_node *c = resolve(p, ix->args[d]);
        if (c->op != IR_GET || resolve(p, c->args[0]) != param)
            return 0;
        from[d] = c->u.field;
    }
    *from_out = from;
    *n = ix->n_args;
    return 1;
}

typedef struct prover {
    const ir_program *p;
    uint32_t *seen;   /* per node id: the walk (generate) that visited it */
    uint8_t *proven;  /* per read: some generate proves it in range */
    uint8_t *vetoed;  /* per read: some generate does not */
    const ir_node **stack;
    size_t cap;
} prover;

/* Marks the reads at param in term n, the body of a generate of shape
 * `shape`; walk number `stamp` (iterative: terms may be deep).  0 when out
 * of memory. */
static int walk_body(prover *v, const ir_node *n, const ir_node *shape,
                     const ir_node *param, uint32_t stamp)
{
    size_t top = 0;
    v->stack[top++] = n;
    while (top > 0) {
        const ir_node *m = v->stack[--top];
        if (v->seen[m->id] == stamp)
            continue;
        v->seen[m->id] = stamp;
        uint32_t room[ACC_MAX_RANK], *from = NULL, n_ix = 0;
        if (m->op == IR_READ &&
            param_components(v->p, m->args[1], param, room, &from, &n_ix)) {
            if (shape_bounded(v->p, shape, m->args[0], from, n_ix))
                v->proven[m->id] = 1;
            else
                v->vetoed[m->id] = 1;
        }
        if (m->op == IR_BOUNDS && m->type->kind == ACC_TYPE_SHAPE &&
            resolve(v->p, m->args[0]) == param) {
            if (shape_within(v->p, shape, m->args[1]))
                v->proven[m->id] = 1;
            else
                v->vetoed[m->id] = 1;
        }
        if (top + m->n_args > v->cap) {
            size_t cap = 2 * v->cap + m->n_args;
            const ir_node **s = mem_realloc(v->stack, cap * sizeof *s);
            if (!s)
                return 0;
            v->stack = s;
            v->cap = cap;
        }
        for (uint32_t i = 0; i < m->n_args; i++)
            v->stack[top++] = m->args[i];
    }
    return 1;
}

int fuse_prove_in_range(ir_program *p)
{
    size_t n = p->n_nodes ? p->n_nodes : 1;
    prover v = {p, mem_calloc(n, sizeof *v.seen), mem_calloc(n, 1),
                mem_calloc(n, 1), NULL, 64};
    int ok = v.seen && v.proven && v.vetoed &&
             (v.stack = mem_alloc(v.cap * sizeof *v.stack)) != NULL;
    uint32_t stamp = 0;
    for (uint32_t i = 0; ok && i < p->n_nodes; i++) {
        const ir_node *g = p->nodes[i];
        if (g->op == IR_GENERATE)
            ok = walk_body(&v, ir_lambda_body(g->args[1]), g->args[0],
                           g->args[1]->args[0], ++stamp);
        /* permute's index function is applied to its source's indices:
         * those of the embedded producer's shape */
        else if (g->op == IR_PERMUTE && g->args[3]->op == IR_GENERATE)
            ok = walk_body(&v, ir_lambda_body(g->args[2]),
                           g->args[3]->args[0], g->args[2]->args[0],
                           ++stamp);
    }
    for (uint32_t i = 0; ok && i < p->n_nodes; i++)
        if (v.proven[i] && !v.vetoed[i])
            p->nodes[i]->in_bounds = 1;
    free(v.seen);
    free(v.proven);
    free(v.vetoed);
    free(v.stack);
    return ok;
}
