/*
 * emit_c_analyse.c — the first pass of the scalar emitter (see
 * emit_c_internal.h): which terms can fail (have a runtime check), and the
 * demand analysis: which leaves of every let-bound value, lambda parameter
 * and loop state the emitted code uses (to a fixed point for loops).  A
 * term with no demanded leaf that can fail is analysed in check mode
 * (dm_checks): only the values its checks need are demanded; em_checks in
 * emit_c.c emits exactly these.
 */
#include "core/codegen/emit_c_internal.h"

#include "core/ir/types.h"

#include <string.h>

/* ---- demand sets ------------------------------------------------------------ */

static int or_into(uint8_t *dst, const uint8_t *src, size_t n)
{
    int changed = 0;
    for (size_t i = 0; src && dst && i < n; i++)
        if (src[i] && !dst[i])
            changed = dst[i] = 1;
    return changed;
}

/* The demand table entry i of `table`, created (all zero) on first use. */
static uint8_t *slot(cg_emitter *e, uint8_t **table, size_t i, size_t n)
{
    if (!table[i])
        table[i] = cge_alloc(e, n);
    return table[i];
}

/* ---- runtime checks ------------------------------------------------------------- */

int cge_is_array_arg(const ir_node *a)
{
    return a->op != IR_LAMBDA && a->type->array_sort;
}

/* An integer division (by zero) or a shift by a signed amount (negative):
 * a primitive with a runtime check of its second operand. */
int cge_prim_checks(const ir_node *n)
{
    if (n->op != IR_PRIM || n->n_args != 2 ||
        ty_is_floating(n->args[0]->type->scalar))
        return 0;
    switch (n->u.prim) {
    case ACC_OP_QUOT: case ACC_OP_REM: case ACC_OP_DIV: case ACC_OP_MOD:
        return 1;
    case ACC_OP_SHIFTL: case ACC_OP_SHIFTR:
        return ty_is_signed(n->args[1]->type->scalar);
    default:
        return 0;
    }
}

/* A bounds check of IR_BOUNDS: an index of rank > 0 against a shape, or
 * a linear position against a size (an index of rank 0 is always in),
 * unless fusion proved it in range. */
static int bounds_checks(const ir_node *n)
{
    return !n->in_bounds &&
           (n->type->kind != ACC_TYPE_SHAPE || n->type->rank > 0);
}

/* Whether node n itself has a runtime check. */
int cge_checks_itself(const ir_node *n)
{
    switch (n->op) {
    case IR_PRIM: return cge_prim_checks(n);
    case IR_READ: return n->args[0]->type->rank > 0 && !n->in_bounds;
    case IR_READ_LINEAR: return 1;
    case IR_BOUNDS: return bounds_checks(n);
    default: return 0;
    }
}

/* Whether evaluating n can fail: a check in n or in the scalar code under
 * it (branches and loops included; a variable's bound term is its let's
 * concern). */
int cge_can_fail(cg_emitter *e, const ir_node *n)
{
    if (e->fails[n->id])
        return e->fails[n->id] == 2;
    int r = cge_checks_itself(n);
    for (uint32_t i = 0; !r && i < n->n_args; i++)
        r = !cge_is_array_arg(n->args[i]) && cge_can_fail(e, n->args[i]);
    e->fails[n->id] = (uint8_t)(r ? 2 : 1);
    return r;
}

/* ---- demand analysis ---------------------------------------------------------- */


static void dm_args_all(cg_emitter *e, const ir_node *n, uint32_t from)
{
    for (uint32_t i = from; i < n->n_args; i++)
        if (!cge_is_array_arg(n->args[i]))
            cge_dm(e, n->args[i], e->all);
}

size_t cge_get_offset(const ir_node *n)
{
    const acc_type *t = n->args[0]->type;
    return t->kind == ACC_TYPE_SHAPE ? n->u.field : t->field_offset[n->u.field];
}

static void dm_get(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    size_t k = n->args[0]->type->n_leaves, off = cge_get_offset(n);
    uint8_t *d = cge_alloc(e, k);
    if (!d)
        return;
    memcpy(d + off, dem, n->type->n_leaves);
    cge_dm(e, n->args[0], d);
}

static void dm_fields(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    size_t at = 0;
    for (uint32_t i = 0; i < n->n_args; i++) {
        cge_dm(e, n->args[i], dem + at);
        at += n->args[i]->type->n_leaves;
    }
}

/* A loop's state leaves: what is demanded of the result, plus what the
 * condition and the body read of the state, to a fixed point. */
static void dm_while(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    const ir_node *cond = n->args[0], *body = n->args[1];
    uint8_t *need = slot(e, e->while_need, n->id, k);
    if (!need)
        return;
    or_into(need, dem, k);
    int changed = 1;
    while (changed && !cge_failed(e)) {
        cge_dm(e, ir_lambda_body(body), need);
        cge_dm(e, ir_lambda_body(cond), e->all);
        changed = or_into(need, e->param_dem[ir_lambda_param(body, 0)
                                                  ->u.param.slot], k);
        changed |= or_into(need, e->param_dem[ir_lambda_param(cond, 0)
                                                   ->u.param.slot], k);
    }
    cge_dm(e, n->args[2], need);
}

/* Whether the condition of n (if, && or ||) decides whether a part of it
 * that can fail runs: its value is then needed in check mode. */
int cge_decides(cg_emitter *e, const ir_node *n)
{
    int logic = n->op == IR_PRIM && (n->u.prim == ACC_OP_LAND ||
                                     n->u.prim == ACC_OP_LOR);
    if (n->op == IR_COND)
        return cge_can_fail(e, n->args[1]) || cge_can_fail(e, n->args[2]);
    return logic && cge_can_fail(e, n->args[1]);
}

/* Whether a loop's condition or body can fail: the loop then runs for
 * its checks. */
int cge_loop_fails(cg_emitter *e, const ir_node *n)
{
    return cge_can_fail(e, n->args[0]) || cge_can_fail(e, n->args[1]);
}

/* Check mode (n has no demanded leaf but can fail): the values n's checks
 * need.  em_checks emits exactly these. */
static void dm_checks(cg_emitter *e, const ir_node *n)
{
    uint32_t from = 0;
    if (cge_prim_checks(n)) { /* the divisor or the shift amount */
        cge_dm(e, n->args[0], e->none);
        cge_dm(e, n->args[1], e->all);
        return;
    }
    if (cge_checks_itself(n)) { /* a read's index, a bounds check's operands */
        dm_args_all(e, n, 0);
        return;
    }
    if (n->op == IR_WHILE && cge_loop_fails(e, n)) {
        dm_while(e, n, e->none);
        return;
    }
    if (cge_decides(e, n)) {
        cge_dm(e, n->args[0], e->all);
        from = 1;
    }
    for (uint32_t i = n->op == IR_WHILE ? 2 : from; i < n->n_args; i++)
        if (!cge_is_array_arg(n->args[i]))
            cge_dm(e, n->args[i], e->none);
}

void cge_dm(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    if (cge_failed(e))
        return;
    if (n->op != IR_LET && n->op != IR_FOREIGN_EXP && !cge_any(dem, k)) {
        if (cge_can_fail(e, n))
            dm_checks(e, n);
        return;
    }
    switch (n->op) {
    case IR_CONST: case IR_ALL: case IR_IGNORE: case IR_SHAPE: case IR_SIZE:
        return;
    case IR_PARAM:
        or_into(slot(e, e->param_dem, n->u.param.slot, k), dem, k);
        return;
    case IR_VAR:
        or_into(slot(e, e->var_dem, n->u.let.var, k), dem, k);
        return;
    case IR_BOUNDS:
        if (n->in_bounds) { /* the index, as it is */
            cge_dm(e, n->args[0], dem);
            cge_dm(e, n->args[1], e->none);
            return;
        }
        dm_args_all(e, n, 0);
        return;
    case IR_PRIM: case IR_CONVERT: case IR_READ: case IR_READ_LINEAR:
        dm_args_all(e, n, 0);
        return;
    case IR_COND:
        cge_dm(e, n->args[0], e->all);
        cge_dm(e, n->args[1], dem);
        cge_dm(e, n->args[2], dem);
        return;
    case IR_TUPLE: case IR_INDEX: dm_fields(e, n, dem); return;
    case IR_GET: dm_get(e, n, dem); return;
    case IR_LET: { /* an unused bound term still runs its checks */
        cge_dm(e, n->args[1], dem);
        const uint8_t *d = e->var_dem[n->u.let.var];
        cge_dm(e, n->args[0], d ? d : e->none);
        return;
    }
    case IR_WHILE: dm_while(e, n, dem); return;
    case IR_FOREIGN_EXP: cge_dm_foreign(e, n, dem); return;
    default:
        cge_fail(e, "%s in scalar code", ir_op_name(n->op));
        return;
    }
}

int cg_analyse(cg_emitter *e, const ir_node *lam, const uint8_t *demand)
{
    if (lam->op != IR_LAMBDA)
        return cge_fail(e, "expected a function, found %s",
                        ir_op_name(lam->op));
    cge_dm(e, ir_lambda_body(lam), demand ? demand : e->all);
    return !cge_failed(e);
}

const uint8_t *cg_param_demand(const cg_emitter *e, const ir_node *param)
{
    return e->param_dem[param->u.param.slot];
}

int cg_can_fail(cg_emitter *e, const ir_node *lam)
{
    return cge_can_fail(e, ir_lambda_body(lam));
}
