/*
 * separate.c — what fusion would join, kept apart when fusion is disabled
 * (ACC_DISABLE=fusion, see fusion.h).
 *
 * Without the fusion pass the program keeps the producers the user wrote,
 * but one pairing is fused by its form alone: `permute' f d (expand size
 * get ys)` written in place is one kernel that combines the expansion's
 * pairs as it computes them (fuse_is_embedded).  Here such an expand is
 * bound to a variable of its own, as if the user had written `let e =
 * expand .. in permute' f d e`: it becomes a step that writes its pairs
 * into an array, which the permute' then reads, so the fusion's benefit
 * can be measured (bench/README.md: the sieve fused and unfused).
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

/* permute' n over an expand written in place becomes, in place (n's
 * users see the same value), `let v = expand .. in permute' f d v`. */
static int separate_expand(ir_program *p, ir_node *n)
{
    ir_node *ex = n->args[2];
    uint32_t v;
    if (!new_var(p, ex, &v))
        return 0;
    ir_node *ref = ir_program_node(p, IR_VAR, ex->type, 0, NULL);
    if (!ref)
        return 0;
    ref->u.let.var = v;
    ir_node *args[3] = {n->args[0], n->args[1], ref};
    ir_node *pm = ir_program_node(p, IR_PERMUTE_PAIRS, n->type, 3, args);
    if (!pm)
        return 0;
    pm->u = n->u;
    pm->fused = n->fused;
    n->op = IR_LET;
    n->n_args = 2;
    n->args[0] = ex;
    n->args[1] = pm;
    n->u.let.var = v;
    n->fused = 0;
    n->depth = (ex->depth > pm->depth ? ex->depth : pm->depth) + 1;
    return 1;
}

acc_status fuse_separate(ir_program *p, diag *d)
{
    uint32_t n0 = p->n_nodes; /* the nodes added here need nothing */
    for (uint32_t i = 0; i < n0; i++) {
        ir_node *n = p->nodes[i];
        if (n && n->op == IR_PERMUTE_PAIRS && n->args[2]->op == IR_EXPAND &&
            !separate_expand(p, n))
            return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY,
                             "fusion: out of host memory");
    }
    return ACC_OK;
}
