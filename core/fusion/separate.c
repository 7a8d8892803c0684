/*
 * separate.c — what fusion would join, kept apart when fusion is disabled
 * (ACC_DISABLE=fusion, see fusion.h).
 *
 * Without the fusion pass the program keeps the producers the user wrote,
 * but the backends still embed an argument in its consumer by its form
 * alone (fuse_is_embedded): a `generate` (or `fill`) written in place as
 * the argument of a fold, scan, permute, stencil or expand, `permute' f d
 * (expand size get ys)`, and a map over a consumer or another map.  Here
 * every such argument is bound to a variable of its own, as if the user
 * had written `let e = expand .. in permute' f d e`: it becomes a step
 * that writes an array, which its consumer then reads, so the program
 * runs unfused everywhere and the fusion's benefit can be measured
 * (bench/README.md: the sieve fused and unfused).
 */
#include "core/base/mem.h"
#include "core/fusion/fusion.h"

/* A new variable bound to `bound` into *var; 0 when out of memory. */
static int new_var(ir_program *p, ir_node *bound, uint32_t *var)
{
    ir_node **grown = mem_realloc(p->var_bound,
                                  (p->n_vars + 1) * sizeof *grown);
    if (!grown)
        return 0;
    p->var_bound = grown;
    p->var_bound[p->n_vars] = bound;
    *var = p->n_vars++;
    return 1;
}

static uint32_t deeper(const ir_node *a, const ir_node *b)
{
    return (a->depth > b->depth ? a->depth : b->depth) + 1;
}

/* n with its embedded argument i bound first becomes, in place (n's users
 * see the same value), `let v = n.args[i] in n'`, n' a copy of n reading
 * v instead.  0 when out of memory. */
static int separate_arg(ir_program *p, ir_node *n, uint32_t i)
{
    ir_node *a = n->args[i];
    uint32_t v;
    if (!new_var(p, a, &v))
        return 0;
    ir_node *ref = ir_program_node(p, IR_VAR, a->type, 0, NULL);
    ir_node *c = ref ? ir_program_node(p, n->op, n->type, n->n_args, n->args)
                     : NULL;
    if (!c)
        return 0;
    ref->u.let.var = v;
    c->u = n->u;
    c->fused = n->fused;
    c->in_bounds = n->in_bounds;
    c->args[i] = ref;
    n->op = IR_LET;
    n->n_args = 2;
    n->args[0] = a;
    n->args[1] = c;
    n->u.let.var = v;
    n->fused = 0;
    n->depth = deeper(a, c);
    return 1;
}

/* The first argument of n that its kernel would embed, or n->n_args. */
static uint32_t embedded_arg(const ir_node *n)
{
    uint32_t i = 0;
    while (i < n->n_args && !fuse_is_embedded(n, i))
        i++;
    return i;
}

acc_status fuse_separate(ir_program *p, diag *d)
{
    uint32_t n0 = p->n_nodes; /* the nodes added here are handled below */
    for (uint32_t id = 0; id < n0; id++) {
        ir_node *n = p->nodes[id];
        /* a node turned into a let leaves its copy, which is separated
         * in turn until nothing is embedded in it */
        while (n) {
            uint32_t i = embedded_arg(n);
            if (i == n->n_args)
                break;
            if (!separate_arg(p, n, i))
                return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY,
                                 "fusion: out of host memory");
            n = n->args[1];
        }
    }
    return ACC_OK;
}
