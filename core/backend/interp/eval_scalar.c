/*
 * eval_scalar.c — evaluation of scalar terms in the reference interpreter.
 */
#include "core/backend/interp/interp_state.h"

#include "core/ir/prim_eval.h"
#include "core/ir/value.h"

#include <string.h>

static void copy_leaves(ir_value *dst, const ir_value *src, size_t n)
{
    if (dst != src)
        memmove(dst, src, n * sizeof *dst);
}

const ir_value *interp_apply(interp *st, const ir_node *lam,
                             const ir_value *const *args)
{
    /* a check point at a bounded frequency: every element loop and every
     * scalar while applies functions */
    if ((++st->applications & (STOP_EVERY - 1)) == 0 &&
        interp_stopped(st, "a scalar function"))
        return NULL;
    for (uint32_t i = 0; i < lam->u.lambda.n_params; i++) {
        const ir_node *param = ir_lambda_param(lam, i);
        copy_leaves(interp_slot(st, param), args[i], param->type->n_leaves);
    }
    return interp_eval(st, ir_lambda_body(lam));
}

static const ir_value *eval_prim(interp *st, const ir_node *n)
{
    ir_value *out = interp_slot(st, n);
    const ir_node *an = n->args[0];
    const ir_value *a = interp_eval(st, an);
    if (!a)
        return NULL;
    if (n->u.prim == ACC_OP_LAND || n->u.prim == ACC_OP_LOR) {
        /* short-circuit: the right operand decides only when needed */
        if ((n->u.prim == ACC_OP_LAND) != (a->i != 0)) {
            out->i = a->i != 0;
            return out;
        }
        const ir_value *b = interp_eval(st, n->args[1]);
        if (!b)
            return NULL;
        out->i = b->i != 0;
        return out;
    }
    ir_value av = *a, bv = {0};
    acc_scalar bt = an->type->scalar;
    if (n->n_args == 2) {
        const ir_value *b = interp_eval(st, n->args[1]);
        if (!b)
            return NULL;
        bv = *b;
        bt = n->args[1]->type->scalar;
    }
    if (!prim_apply(n->u.prim, an->type->scalar, av, bt, bv, n->type->scalar,
                    out, st->d))
        return NULL;
    return out;
}

static const ir_value *eval_tuple(interp *st, const ir_node *n)
{
    ir_value *out = interp_slot(st, n);
    size_t at = 0;
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ir_value *v = interp_eval(st, n->args[i]);
        if (!v)
            return NULL;
        size_t k = n->args[i]->type->n_leaves;
        copy_leaves(out + at, v, k);
        at += k;
    }
    return out;
}

static const ir_value *eval_get(interp *st, const ir_node *n)
{
    const ir_value *v = interp_eval(st, n->args[0]);
    if (!v)
        return NULL;
    const acc_type *t = n->args[0]->type;
    return t->kind == ACC_TYPE_SHAPE ? v + n->u.field
                                     : v + t->field_offset[n->u.field];
}

static const ir_value *eval_while(interp *st, const ir_node *n)
{
    const ir_node *cond = n->args[0], *body = n->args[1];
    ir_value *state = interp_slot(st, n);
    size_t k = n->type->n_leaves;
    const ir_value *init = interp_eval(st, n->args[2]);
    if (!init)
        return NULL;
    copy_leaves(state, init, k);
    for (;;) {
        const ir_value *args[1] = {state};
        const ir_value *c = interp_apply(st, cond, args);
        if (!c)
            return NULL;
        if (!c->i)
            return state;
        const ir_value *next = interp_apply(st, body, args);
        if (!next)
            return NULL;
        copy_leaves(state, next, k);
    }
}

static const ir_value *eval_read(interp *st, const ir_node *n)
{
    char ix_text[160], sh_text[160];
    rt_array *a = interp_array_of(st, n->args[0]);
    const ir_value *ix = a ? interp_eval(st, n->args[1]) : NULL;
    if (!ix)
        return NULL;
    int64_t index[ACC_MAX_RANK];
    int in_range = 1;
    for (int32_t d = 0; d < a->rank; d++) {
        index[d] = ix[d].i;
        in_range &= index[d] >= 0 && index[d] < a->extents[d];
    }
    if (!in_range) {
        /* a read made by fusion names the user's operation */
        diag_fail(st->d, ACC_ERR_RUNTIME, "%s: index %s is out of bounds "
                  "for an array of shape %s",
                  n->fused ? ir_origin_name(n) : "read (!)",
                  rt_format_shape(a->rank, index, ix_text, sizeof ix_text),
                  rt_format_shape(a->rank, a->extents, sh_text,
                                  sizeof sh_text));
        return NULL;
    }
    ir_value *out = interp_slot(st, n);
    interp_load_element(a, rt_ravel(a->rank, a->extents, index), out);
    return out;
}

/* An index checked against a shape (inserted by fusion). */
static const ir_value *eval_bounds(interp *st, const ir_node *n)
{
    char ix_text[160], sh_text[160];
    int64_t index[ACC_MAX_RANK], extents[ACC_MAX_RANK];
    int32_t rank = n->type->rank;
    const ir_value *ix = interp_eval(st, n->args[0]);
    if (!ix)
        return NULL;
    for (int32_t d = 0; d < rank; d++)
        index[d] = ix[d].i;
    const ir_value *sh = interp_eval(st, n->args[1]);
    if (!sh)
        return NULL;
    int in_range = 1;
    for (int32_t d = 0; d < rank; d++) {
        extents[d] = sh[d].i;
        in_range &= index[d] >= 0 && index[d] < extents[d];
    }
    if (!in_range) {
        diag_fail(st->d, ACC_ERR_RUNTIME, "%s: index %s is out of bounds "
                  "for an array of shape %s", ir_origin_name(n),
                  rt_format_shape(rank, index, ix_text, sizeof ix_text),
                  rt_format_shape(rank, extents, sh_text, sizeof sh_text));
        return NULL;
    }
    ir_value *out = interp_slot(st, n);
    for (int32_t d = 0; d < rank; d++)
        out[d].i = index[d];
    return out;
}

/* Whether position k is inside an array of `size` elements; the linear
 * read's error when not. */
static int position_in_range(interp *st, int64_t k, int64_t size)
{
    if (k >= 0 && k < size)
        return 1;
    diag_fail(st->d, ACC_ERR_RUNTIME, "linear read (!!): position %lld is "
              "out of bounds for an array of %lld elements", (long long)k,
              (long long)size);
    return 0;
}

/* A linear position checked against a size (inserted by fusion where a
 * linear read of an inlined producer was). */
static const ir_value *eval_position_bounds(interp *st, const ir_node *n)
{
    const ir_value *k = interp_eval(st, n->args[0]);
    ir_value kv = k ? *k : (ir_value){0};
    const ir_value *size = k ? interp_eval(st, n->args[1]) : NULL;
    if (!size || !position_in_range(st, kv.i, size->i))
        return NULL;
    ir_value *out = interp_slot(st, n);
    *out = kv;
    return out;
}

static const ir_value *eval_read_linear(interp *st, const ir_node *n)
{
    rt_array *a = interp_array_of(st, n->args[0]);
    const ir_value *k = a ? interp_eval(st, n->args[1]) : NULL;
    if (!k || !position_in_range(st, k->i, a->size))
        return NULL;
    ir_value *out = interp_slot(st, n);
    interp_load_element(a, k->i, out);
    return out;
}

static const ir_value *eval_shape(interp *st, const ir_node *n)
{
    rt_array *a = interp_array_raw(st, n->args[0]); /* no download */
    if (!a)
        return NULL;
    ir_value *out = interp_slot(st, n);
    if (n->op == IR_SIZE) {
        out->i = a->size;
        return out;
    }
    for (int32_t d = 0; d < a->rank; d++)
        out[d].i = a->extents[d];
    return out;
}

const ir_value *interp_eval(interp *st, const ir_node *n)
{
    switch (n->op) {
    case IR_CONST: return &n->u.lit;
    case IR_PARAM: return interp_slot(st, n);
    case IR_PRIM: return eval_prim(st, n);
    case IR_CONVERT: {
        const ir_value *a = interp_eval(st, n->args[0]);
        if (!a)
            return NULL;
        ir_value *out = interp_slot(st, n);
        *out = val_convert(n->args[0]->type->scalar, n->type->scalar, *a);
        return out;
    }
    case IR_COND: {
        const ir_value *c = interp_eval(st, n->args[0]);
        if (!c)
            return NULL;
        return interp_eval(st, n->args[c->i ? 1 : 2]);
    }
    case IR_TUPLE:
    case IR_INDEX: return eval_tuple(st, n);
    case IR_GET: return eval_get(st, n);
    case IR_WHILE: return eval_while(st, n);
    case IR_READ: return eval_read(st, n);
    case IR_READ_LINEAR: return eval_read_linear(st, n);
    case IR_SHAPE:
    case IR_SIZE: return eval_shape(st, n);
    case IR_IGNORE: return interp_eval_ignore(st, n);
    case IR_LET: {
        const ir_value *v = interp_eval(st, n->args[0]);
        if (!v)
            return NULL;
        st->vars[n->u.let.var] = v;
        return interp_eval(st, n->args[1]);
    }
    case IR_VAR: return st->vars[n->u.let.var];
    case IR_ALL: return interp_slot(st, n); /* the unit value: no leaves */
    case IR_BOUNDS:
        return n->type->kind == ACC_TYPE_SHAPE ? eval_bounds(st, n)
                                               : eval_position_bounds(st, n);
    case IR_FOREIGN_EXP: return interp_eval_foreign_exp(st, n);
    default: break;
    }
    diag_fail(st->d, ACC_ERR_INTERNAL, "interpreter: %s is not a scalar term",
              ir_op_name(n->op));
    return NULL;
}
