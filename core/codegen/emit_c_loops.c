/*
 * emit_c_loops.c — while loops of scalar code (see emit_c_internal.h):
 * the terms of a loop's condition and body that do not change in it are
 * computed once before it (hoisting), and in lane mode a loop at the top
 * level of the element's code that cannot fail runs in lockstep over the
 * lanes, masked per lane (a loop the C compiler vectorises).  Either way
 * the loop computes what the scalar loop computes, lane by lane.
 */
#include "core/codegen/emit_c_internal.h"

#include <string.h>

/* ---- loops: invariant terms, lockstep lanes -------------------------------------- */

/* What a loop's invariance walk knows: the parameters and variables bound
 * inside the loop (its lambdas' and lets'), and per node id 1 (invariant:
 * computable before the loop) or 2 (not). */
typedef struct inv_walk {
    uint8_t *inner_param, *inner_var, *memo;
    int visits;
} inv_walk;

enum { INV_VISITS = 20000 };

static void mark_inner(cg_emitter *e, inv_walk *w, const ir_node *n)
{
    if (++w->visits > INV_VISITS)
        return;
    if (n->op == IR_LAMBDA)
        for (uint32_t i = 0; i < n->u.lambda.n_params; i++)
            w->inner_param[ir_lambda_param(n, i)->u.param.slot] = 1;
    if (n->op == IR_LET)
        w->inner_var[n->u.let.var] = 1;
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!cge_is_array_arg(n->args[i]))
            mark_inner(e, w, n->args[i]);
}

/* A value bound outside the loop whose every leaf the emitter has. */
static int bound_outside(const char **x, size_t k)
{
    for (size_t i = 0; x && i < k; i++)
        if (!x[i])
            return 0;
    return x != NULL;
}

/* Whether n may be computed once before the loop: it reads nothing bound
 * inside the loop, cannot cge_fail (the loop might not run, or not reach it),
 * and holds no loop or foreign call (which might not end, or cost more
 * than the loop saves). */
static int invariant(cg_emitter *e, inv_walk *w, const ir_node *n)
{
    if (w->memo[n->id])
        return w->memo[n->id] == 1;
    int r = w->visits++ < INV_VISITS && n->op != IR_WHILE &&
            n->op != IR_FOREIGN_EXP && n->op != IR_LAMBDA &&
            !cge_can_fail(e, n);
    if (r && n->op == IR_PARAM)
        r = !w->inner_param[n->u.param.slot] &&
            bound_outside(e->param_x[n->u.param.slot], n->type->n_leaves);
    if (r && n->op == IR_VAR)
        r = !w->inner_var[n->u.let.var] &&
            bound_outside(e->var_x[n->u.let.var], n->type->n_leaves);
    for (uint32_t i = 0; r && i < n->n_args; i++)
        r = cge_is_array_arg(n->args[i]) || invariant(e, w, n->args[i]);
    w->memo[n->id] = (uint8_t)(r ? 1 : 2);
    return r;
}

/* Terms worth computing once: not a constant, a name or an extent. */
static int worth_hoisting(const ir_node *n)
{
    switch (n->op) {
    case IR_CONST: case IR_PARAM: case IR_VAR: case IR_ALL: case IR_IGNORE:
    case IR_SHAPE: case IR_SIZE: case IR_LAMBDA:
        return 0;
    default:
        return n->type->n_leaves == 1 && !n->type->array_sort;
    }
}

/* The largest invariant terms under n computed before the loop into
 * temporaries (e->hoisted); returns 0 when out of memory. */
static int hoist(cg_emitter *e, strbuf *b, inv_walk *w, const ir_node *n,
                 const ir_node *loop, int depth)
{
    if (cge_failed(e) || depth > 200 || cge_is_array_arg(n) ||
        e->hoisted[n->id])
        return !cge_failed(e);
    if (worth_hoisting(n) && invariant(e, w, n)) {
        const char **x = cge_em(e, b, n, e->all), **t = cge_exprs(e, 1);
        if (!x || !t)
            return 0;
        t[0] = cge_tmp(e, b, n->type->scalar, x[0]);
        e->hoisted[n->id] = t;
        e->hoisted_by[n->id] = loop->id + 1;
        return 1;
    }
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!hoist(e, b, w, n->args[i], loop, depth + 1))
            return 0;
    return 1;
}

/* Forgets the terms loop `loop` hoisted (their temporaries go out of
 * scope after it); those an enclosing loop hoisted stay. */
static void unhoist(cg_emitter *e, const ir_node *n, const ir_node *loop,
                    int depth)
{
    if (depth > 200 || cge_is_array_arg(n))
        return;
    if (e->hoisted[n->id]) {
        if (e->hoisted_by[n->id] == loop->id + 1)
            e->hoisted[n->id] = NULL;
        return;
    }
    for (uint32_t i = 0; i < n->n_args; i++)
        unhoist(e, n->args[i], loop, depth + 1);
}

/* The loop-invariant terms of loop n's condition and body computed
 * before it (hoisted: their temporaries are in scope in the loop).  The
 * C compiler hoists what it can prove invariant, but not a division, a
 * conversion or a read it must not move above the loop's exit; and a
 * lockstep loop (below) recomputes whatever is left once per lane per
 * iteration. */
static int hoist_loop(cg_emitter *e, strbuf *b, const ir_node *n)
{
    size_t nn = e->p->n_nodes + 1;
    inv_walk w = {cge_alloc(e, e->p->n_params + 1),
                  cge_alloc(e, e->p->n_vars + 1),
                  cge_alloc(e, nn), 0};
    if (!w.inner_param || !w.inner_var || !w.memo)
        return 0;
    memset(w.inner_param, 0, e->p->n_params + 1);
    memset(w.inner_var, 0, e->p->n_vars + 1);
    memset(w.memo, 0, nn);
    mark_inner(e, &w, n->args[0]);
    mark_inner(e, &w, n->args[1]);
    if (w.visits > INV_VISITS)
        return 1; /* too large to walk: nothing hoisted */
    return hoist(e, b, &w, ir_lambda_body(n->args[0]), n, 0) &&
           hoist(e, b, &w, ir_lambda_body(n->args[1]), n, 0);
}

/* Whether loop n runs in lockstep over the lanes (lane mode, at the top
 * level of the element's code, a condition and body that cannot fail and
 * hold no other loop): every lane computes the condition and body each
 * round, a lane whose condition failed once keeps its state. */
static int has_loop(const ir_node *n, int depth)
{
    if (n->op == IR_WHILE || depth > 200)
        return 1;
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!cge_is_array_arg(n->args[i]) && has_loop(n->args[i], depth + 1))
            return 1;
    return 0;
}

static int lockstep_loop(cg_emitter *e, const ir_node *n)
{
    return e->lanes > 1 && e->lockstep == 0 && e->indent == e->base_indent &&
           !cge_loop_fails(e, n) && !has_loop(ir_lambda_body(n->args[0]), 0) &&
           !has_loop(ir_lambda_body(n->args[1]), 0);
}

/* The condition and body of loop n for the current state s: c the
 * condition, next the new state (needed leaves). */
static const char **loop_round(cg_emitter *e, strbuf *b, const ir_node *n,
                               const char **s, const char **c)
{
    size_t k = n->type->n_leaves;
    const uint8_t *need = e->while_need[n->id];
    const ir_node *cond = n->args[0], *body = n->args[1];
    e->param_x[ir_lambda_param(cond, 0)->u.param.slot] = s;
    *c = cge_em1(e, b, ir_lambda_body(cond));
    e->param_x[ir_lambda_param(body, 0)->u.param.slot] = s;
    const char **x = cge_em(e, b, ir_lambda_body(body), need);
    const char **next = cge_exprs(e, k);
    for (size_t i = 0; x && next && i < k; i++) /* all read, then all set */
        next[i] = need[i] ? cge_tmp(e, b, n->type->leaves[i], x[i]) : NULL;
    return x ? next : NULL;
}

/* Lockstep: the lane loop of the code before closes, every round runs
 * the condition and body for all lanes (a vectorisable loop: no branch
 * leaves it), and the lane loop reopens for the code after.  A lane
 * whose condition failed is inactive from then on: its state is kept,
 * exactly what the scalar loop leaves. */
static void em_lockstep(cg_emitter *e, strbuf *b, const ir_node *n,
                        const char **s, const char *polls)
{
    size_t k = n->type->n_leaves;
    const uint8_t *need = e->while_need[n->id];
    unsigned id = e->tmp++;
    sb_printf(e->lane_decls, "    int32_t acc_act%u[ACC_LANES];\n", id);
    cge_line(e, b, "acc_act%u[acc_l] = 1;", id);
    cge_line(e, b, "ACC_LANE_END");
    cge_line(e, b, "ACC_LOOP_COUNTER(%s);", polls);
    cge_line(e, b, "for (;;) {");
    e->indent++;
    cge_line(e, b, "unsigned acc_any%u = 0;", id);
    cge_line(e, b, "ACC_LANE_BEGIN");
    e->lockstep++;
    const char *c = NULL;
    const char **next = loop_round(e, b, n, s, &c);
    cge_line(e, b, "const int32_t acc_on%u = acc_act%u[acc_l] & (%s != 0);", id,
             id, c ? c : "0");
    for (size_t i = 0; next && i < k; i++)
        if (need[i])
            cge_line(e, b, "%s = acc_on%u ? %s : %s;", s[i], id, next[i], s[i]);
    cge_line(e, b, "acc_act%u[acc_l] = acc_on%u;", id, id);
    cge_line(e, b, "acc_any%u |= acc_on%u;", id, id);
    e->lockstep--;
    cge_line(e, b, "ACC_LANE_END");
    cge_line(e, b, "if (!acc_any%u)", id);
    cge_line(e, b, "    break;");
    cge_line(e, b, "ACC_LOOP_POLL(%s);", polls);
    e->indent--;
    cge_line(e, b, "}");
    cge_line(e, b, "ACC_LANE_BEGIN");
}

/* A loop at the top level of n (not under a branch of an if, the right
 * side of && or ||, or another loop) that lane mode would run in
 * lockstep. */
static int top_loop(cg_emitter *e, const ir_node *n, int depth)
{
    if (depth > 200 || cge_is_array_arg(n) || n->op == IR_LAMBDA)
        return 0;
    if (n->op == IR_WHILE)
        return !cge_loop_fails(e, n) &&
               !has_loop(ir_lambda_body(n->args[0]), 0) &&
               !has_loop(ir_lambda_body(n->args[1]), 0);
    uint32_t args = n->n_args;
    if (n->op == IR_COND ||
        (n->op == IR_PRIM && (n->u.prim == ACC_OP_LAND || n->u.prim == ACC_OP_LOR)))
        args = 1; /* only the condition, or the left side, always runs */
    for (uint32_t i = 0; i < args; i++)
        if (top_loop(e, n->args[i], depth + 1))
            return 1;
    return 0;
}

int cg_lockstep_candidate(cg_emitter *e, const ir_node *lam)
{
    return top_loop(e, ir_lambda_body(lam), 0);
}

const char **cge_em_while(cg_emitter *e, strbuf *b, const ir_node *n)
{
    size_t k = n->type->n_leaves;
    const uint8_t *need = e->while_need[n->id];
    if (!need) {
        cge_fail(e, "a loop the analysis did not reach");
        return NULL;
    }
    const char **s = cge_exprs(e, k), **init = cge_em(e, b, n->args[2], need);
    if (!s || !init)
        return NULL;
    for (size_t i = 0; i < k; i++) {
        s[i] = NULL;
        if (need[i]) {
            s[i] = cge_var_decl(e, b, n->type->leaves[i]);
            cge_line(e, b, "%s = %s;", s[i], init[i]);
        }
    }
    if (!hoist_loop(e, b, n))
        return NULL;
    /* the prelude's ACC_LOOP_POLL lets a cancelled run, or one past its
     * deadline, stop a loop that would not end (core/base/stop.h) */
    const char *polls = cge_str(e, "t%u", e->tmp++);
    if (lockstep_loop(e, n)) {
        em_lockstep(e, b, n, s, polls);
    } else {
        cge_line(e, b, "ACC_LOOP_COUNTER(%s);", polls);
        cge_line(e, b, "for (;;) {");
        e->indent++;
        e->param_x[ir_lambda_param(n->args[0], 0)->u.param.slot] = s;
        const char *c = cge_em1(e, b, ir_lambda_body(n->args[0]));
        cge_line(e, b, "if (!%s)", c);
        cge_line(e, b, "    break;");
        cge_line(e, b, "ACC_LOOP_POLL(%s);", polls);
        e->param_x[ir_lambda_param(n->args[1], 0)->u.param.slot] = s;
        const char **x = cge_em(e, b, ir_lambda_body(n->args[1]), need);
        const char **next = cge_exprs(e, k);
        for (size_t i = 0; x && next && i < k; i++) /* all read, then all set */
            next[i] = need[i] ? cge_tmp(e, b, n->type->leaves[i], x[i]) : NULL;
        for (size_t i = 0; x && next && i < k; i++)
            if (need[i])
                cge_line(e, b, "%s = %s;", s[i], next[i]);
        e->indent--;
        cge_line(e, b, "}");
    }
    unhoist(e, ir_lambda_body(n->args[0]), n, 0);
    unhoist(e, ir_lambda_body(n->args[1]), n, 0);
    return cge_failed(e) ? NULL : s;
}
