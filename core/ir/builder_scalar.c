/*
 * builder_scalar.c — the builder functions for scalar terms: constants,
 * primitives, conversions, conditionals, tuples, indices, lambdas, loops
 * and array access.  Each checks its arguments' sorts and types and names
 * itself in the error it records.
 */
#include "core/ir/graph.h"
#include "core/ir/primops.h"
#include "core/ir/value.h"

#include <stdio.h>

/* ---- constants ------------------------------------------------------------ */

static acc_node *constant(acc_graph *g, const char *op, acc_scalar s,
                          acc_scalar from, ir_value v)
{
    if (!gr_begin(g, op))
        return NULL;
    if (!ty_valid_scalar((int)s))
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: %d is not an "
                       "acc_scalar value", op, (int)s);
    ir_node *n = gr_node(g, IR_CONST, ty_scalar(s), 0, NULL, 0);
    if (n)
        n->u.lit = val_convert(from, s, v);
    return n;
}

acc_node *acc_const_i64(acc_graph *g, acc_scalar s, int64_t v)
{
    return constant(g, "acc_const_i64", s, ACC_I64, (ir_value){.i = v});
}

acc_node *acc_const_u64(acc_graph *g, acc_scalar s, uint64_t v)
{
    return constant(g, "acc_const_u64", s, ACC_U64, (ir_value){.u = v});
}

acc_node *acc_const_f64(acc_graph *g, acc_scalar s, double v)
{
    return constant(g, "acc_const_f64", s, ACC_F64, (ir_value){.f = v});
}

acc_node *acc_const_bool(acc_graph *g, int v)
{
    return constant(g, "acc_const_bool", ACC_BOOL, ACC_I64,
                    (ir_value){.i = v != 0});
}

/* ---- primitives ----------------------------------------------------------- */

static int want_operand(acc_graph *g, const char *op, const char *what,
                        const acc_node *n, prim_operands operands)
{
    char t[128];
    if (!gr_want_value(g, op, what, n))
        return 0;
    if (n->type->kind != ACC_TYPE_SCALAR ||
        !prim_accepts(operands, n->type->scalar)) {
        gr_fail(g, ACC_ERR_TYPE, "%s: %s has type %s, expected %s", op, what,
                GR_TYPE(n->type, t), prim_operands_text(operands));
        return 0;
    }
    return 1;
}

static const acc_type *prim_result_type(const prim_info *info,
                                        const acc_type *operand)
{
    switch (info->result) {
    case PR_BOOL: return ty_scalar(ACC_BOOL);
    case PR_I64: return ty_scalar(ACC_I64);
    default: return operand;
    }
}

static acc_node *prim_node(acc_graph *g, acc_primop op, const acc_type *type,
                           uint32_t n, acc_node *const *args)
{
    ir_node *node = gr_node(g, IR_PRIM, type, n, args, 0);
    if (node)
        node->u.prim = op;
    return node;
}

acc_node *acc_unop(acc_graph *g, acc_primop op, acc_node *a)
{
    if (!gr_begin(g, "acc_unop"))
        return NULL;
    prim_info info = prim_lookup(op);
    if (info.arity != 1)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "acc_unop: %d is not a "
                       "unary primitive%s", (int)op,
                       info.result == PR_NAMED ? " (use acc_round_to)" : "");
    if (info.result == PR_NAMED)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: use acc_round_to, "
                       "which names the integer result type", info.name);
    if (!want_operand(g, info.name, "the operand", a, info.operands))
        return NULL;
    return prim_node(g, op, prim_result_type(&info, a->type), 1, &a);
}

acc_node *acc_binop(acc_graph *g, acc_primop op, acc_node *a, acc_node *b)
{
    char ta[128], tb[128];
    if (!gr_begin(g, "acc_binop"))
        return NULL;
    prim_info info = prim_lookup(op);
    if (info.arity != 2)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "acc_binop: %d is not a "
                       "binary primitive", (int)op);
    if (!want_operand(g, info.name, "the first operand", a, info.operands) ||
        !want_operand(g, info.name, "the second operand", b,
                      op == ACC_OP_SHIFTL || op == ACC_OP_SHIFTR
                          ? PO_INTEGRAL : info.operands))
        return NULL;
    int shift = op == ACC_OP_SHIFTL || op == ACC_OP_SHIFTR;
    if (!shift && !ty_equal(a->type, b->type))
        return gr_fail(g, ACC_ERR_TYPE, "%s: the operands have different "
                       "types, %s and %s", info.name, GR_TYPE(a->type, ta),
                       GR_TYPE(b->type, tb));
    acc_node *args[2] = {a, b};
    return prim_node(g, op, prim_result_type(&info, a->type), 2, args);
}

acc_node *acc_round_to(acc_graph *g, acc_primop op, acc_node *a,
                       acc_scalar to)
{
    if (!gr_begin(g, "acc_round_to"))
        return NULL;
    prim_info info = prim_lookup(op);
    if (info.result != PR_NAMED || info.arity != 1)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "acc_round_to: %d is not "
                       "truncate, round, floor or ceiling", (int)op);
    if (!ty_valid_scalar((int)to) || !ty_is_integral(to))
        return gr_fail(g, ACC_ERR_TYPE, "%s: the result type must be an "
                       "integer type, got %s", info.name, acc_scalar_name(to));
    if (!want_operand(g, info.name, "the operand", a, info.operands))
        return NULL;
    return prim_node(g, op, ty_scalar(to), 1, &a);
}

acc_node *acc_convert(acc_graph *g, acc_node *a, acc_scalar to)
{
    char t[128];
    if (!gr_begin(g, "convert") || !gr_want_value(g, "convert", "the operand", a))
        return NULL;
    if (!ty_valid_scalar((int)to))
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "convert: %d is not an "
                       "acc_scalar value", (int)to);
    if (a->type->kind != ACC_TYPE_SCALAR)
        return gr_fail(g, ACC_ERR_TYPE, "convert: the operand has type %s, "
                       "expected a scalar", GR_TYPE(a->type, t));
    return gr_node(g, IR_CONVERT, ty_scalar(to), 1, &a, 0);
}

/* ---- control, tuples, indices --------------------------------------------- */

acc_node *acc_cond(acc_graph *g, acc_node *c, acc_node *t, acc_node *e)
{
    char a[128], b[128];
    if (!gr_begin(g, "if") || !gr_want_scalar(g, "if", "the condition", c,
                                           ACC_BOOL) ||
        !gr_want_value(g, "if", "the then branch", t) ||
        !gr_want_value(g, "if", "the else branch", e))
        return NULL;
    if (!ty_equal(t->type, e->type))
        return gr_fail(g, ACC_ERR_TYPE, "if: the branches have different "
                       "types, %s and %s", GR_TYPE(t->type, a),
                       GR_TYPE(e->type, b));
    acc_node *args[3] = {c, t, e};
    return gr_node(g, IR_COND, t->type, 3, args, 0);
}

acc_node *acc_tuple(acc_graph *g, size_t n, acc_node *const *items)
{
    static const char op[] = "tuple";
    if (!gr_begin(g, op))
        return NULL;
    if (n > 0 && !items)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "tuple: items is NULL");
    if (n > TY_MAX_LEAVES)
        return gr_fail(g, ACC_ERR_UNSUPPORTED, "tuple: %zu fields, at most "
                       "%d are supported", n, TY_MAX_LEAVES);
    const acc_type *fields[TY_MAX_LEAVES];
    for (size_t i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "field %zu", i);
        if (!gr_arg(g, op, what, items[i]))
            return NULL;
        if (items[i]->op == IR_LAMBDA)
            return gr_fail(g, ACC_ERR_TYPE, "tuple: field %zu is a function",
                           i);
        if (items[i]->type->array_sort != items[0]->type->array_sort)
            return gr_fail(g, ACC_ERR_TYPE, "tuple: field %zu is %s but field "
                           "0 is %s; a tuple holds arrays or scalars, not "
                           "both", i, items[i]->type->array_sort ? "an array"
                           : "a scalar", items[0]->type->array_sort
                           ? "an array" : "a scalar");
        fields[i] = items[i]->type;
    }
    const acc_type *type = gr_tuple_type(g, n, fields);
    if (!type)
        return NULL;
    return gr_node(g, IR_TUPLE, type, (uint32_t)n, items, 0);
}

acc_node *acc_get(acc_graph *g, acc_node *tuple, size_t i)
{
    char t[128];
    if (!gr_begin(g, "get") || !gr_arg(g, "get", "the tuple", tuple))
        return NULL;
    const acc_type *ty = tuple->type;
    const acc_type *field = NULL;
    if (tuple->op != IR_LAMBDA && ty->kind == ACC_TYPE_TUPLE && i < ty->arity)
        field = ty->fields[i];
    else if (tuple->op != IR_LAMBDA && ty->kind == ACC_TYPE_SHAPE &&
             i < (size_t)ty->rank)
        field = ty_scalar(ACC_I64);
    if (!field)
        return gr_fail(g, ACC_ERR_TYPE, "get: cannot take component %zu of a "
                       "value of type %s", i, tuple->op == IR_LAMBDA
                       ? "function" : GR_TYPE(ty, t));
    ir_node *n = gr_node(g, IR_GET, field, 1, &tuple, 0);
    if (n)
        n->u.field = i;
    return n;
}

acc_node *acc_index(acc_graph *g, size_t n, acc_node *const *comps)
{
    if (!gr_begin(g, "index"))
        return NULL;
    if (n > ACC_MAX_RANK)
        return gr_fail(g, ACC_ERR_SHAPE, "index: %zu components, at most %d",
                       n, ACC_MAX_RANK);
    if (n > 0 && !comps)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "index: comps is NULL");
    for (size_t i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "component %zu", i);
        if (!gr_want_scalar(g, "index", what, comps[i], ACC_I64))
            return NULL;
    }
    return gr_node(g, IR_INDEX, ty_shape((int32_t)n), (uint32_t)n, comps, 0);
}

/* ---- lambdas and loops ---------------------------------------------------- */

acc_node *acc_param(acc_graph *g, const acc_type *type)
{
    if (!gr_begin(g, "param") || !gr_type(g, "param", "the type", type))
        return NULL;
    ir_node *n = gr_node(g, IR_PARAM, type, 0, NULL, 0);
    if (!n)
        return NULL;
    n->u.param.slot = g->n_params++;
    uint32_t *slot = arena_alloc(g->arena, sizeof *slot);
    if (!slot)
        return gr_fail(g, ACC_ERR_OUT_OF_HOST_MEMORY, "param: out of memory");
    *slot = n->u.param.slot;
    ir_varset *set = type->array_sort ? &n->afree : &n->free;
    set->n = 1;
    set->slots = slot;
    return n;
}

acc_node *acc_lambda(acc_graph *g, size_t n, acc_node *const *params,
                     acc_node *body)
{
    static const char op[] = "lambda";
    if (!gr_begin(g, op))
        return NULL;
    if (n > 64 || (n > 0 && !params))
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "lambda: %s", n > 64
                       ? "at most 64 parameters" : "params is NULL");
    acc_node *args[65];
    for (size_t i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "parameter %zu", i);
        if (!gr_arg(g, op, what, params[i]))
            return NULL;
        if (params[i]->op != IR_PARAM)
            return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "lambda: parameter "
                           "%zu was not made by acc_param", i);
        if (params[i]->u.param.bound)
            return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "lambda: parameter "
                           "%zu is already bound by another lambda", i);
        for (size_t j = 0; j < i; j++)
            if (params[j] == params[i])
                return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "lambda: "
                               "parameters %zu and %zu are the same", j, i);
        args[i] = params[i];
    }
    if (!gr_arg(g, op, "the body", body))
        return NULL;
    if (body->op == IR_LAMBDA)
        return gr_fail(g, ACC_ERR_TYPE, "lambda: the body is a function; "
                       "functions are first order");
    int array_fun = body->type->array_sort;
    for (size_t i = 0; i < n; i++)
        if (params[i]->type->array_sort != array_fun)
            return gr_fail(g, ACC_ERR_TYPE, "lambda: parameter %zu is %s but "
                           "the body is %s; a function maps scalars to a "
                           "scalar or arrays to arrays", i,
                           array_fun ? "a scalar" : "an array",
                           array_fun ? "an array" : "a scalar");
    args[n] = body;
    ir_node *lam = gr_node(g, IR_LAMBDA, body->type, (uint32_t)n + 1, args,
                           (uint32_t)n);
    if (!lam)
        return NULL;
    lam->u.lambda.n_params = (uint32_t)n;
    if (array_fun && lam->free.n > 0)
        return gr_fail(g, ACC_ERR_TYPE, "lambda: the array function refers "
                       "to a scalar parameter of an enclosing lambda; array "
                       "functions must be closed");
    for (size_t i = 0; i < n; i++)
        params[i]->u.param.bound = 1;
    return lam;
}

const acc_type *gr_check_fun(acc_graph *g, const char *op, const char *what,
                             const acc_node *f, size_t n,
                             const acc_type *const *param_types)
{
    char want[128], got[128];
    if (!gr_arg(g, op, what, f))
        return NULL;
    if (f->op != IR_LAMBDA) {
        gr_fail(g, ACC_ERR_TYPE, "%s: %s is not a function (build it with "
                "acc_lambda)", op, what);
        return NULL;
    }
    if (f->u.lambda.n_params != n) {
        gr_fail(g, ACC_ERR_TYPE, "%s: %s takes %u parameter%s, expected %zu",
                op, what, f->u.lambda.n_params,
                f->u.lambda.n_params == 1 ? "" : "s", n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!ty_equal(f->args[i]->type, param_types[i])) {
            gr_fail(g, ACC_ERR_TYPE, "%s: parameter %zu of %s has type %s, "
                    "expected %s", op, i, what,
                    GR_TYPE(f->args[i]->type, got),
                    GR_TYPE(param_types[i], want));
            return NULL;
        }
    return f->type;
}

acc_node *acc_while(acc_graph *g, acc_node *cond, acc_node *body,
                    acc_node *init)
{
    char a[128], b[128];
    static const char op[] = "while";
    if (!gr_begin(g, op) || !gr_want_value(g, op, "the initial value", init))
        return NULL;
    const acc_type *state = init->type;
    const acc_type *ct = gr_check_fun(g, op, "the condition", cond, 1, &state);
    if (!ct)
        return NULL;
    if (!ty_is_scalar(ct, ACC_BOOL))
        return gr_fail(g, ACC_ERR_TYPE, "while: the condition returns %s, "
                       "expected bool", GR_TYPE(ct, a));
    const acc_type *bt = gr_check_fun(g, op, "the body", body, 1, &state);
    if (!bt)
        return NULL;
    if (!ty_equal(bt, state))
        return gr_fail(g, ACC_ERR_TYPE, "while: the body returns %s, expected "
                       "the state type %s", GR_TYPE(bt, a),
                       GR_TYPE(state, b));
    acc_node *args[3] = {cond, body, init};
    return gr_node(g, IR_WHILE, state, 3, args, 0);
}

/* ---- array access from scalar code ---------------------------------------- */

acc_node *acc_read(acc_graph *g, acc_node *array, acc_node *index)
{
    char t[128];
    static const char op[] = "read (!)";
    if (!gr_begin(g, op) || !gr_want_array(g, op, "the array", array) ||
        !gr_want_value(g, op, "the index", index))
        return NULL;
    if (index->type->kind != ACC_TYPE_SHAPE ||
        index->type->rank != array->type->rank)
        return gr_fail(g, ACC_ERR_SHAPE, "read (!): the index has type %s, "
                       "expected an index of rank %d", GR_TYPE(index->type, t),
                       (int)array->type->rank);
    acc_node *args[2] = {array, index};
    return gr_node(g, IR_READ, array->type->elem, 2, args, 0);
}

acc_node *acc_read_linear(acc_graph *g, acc_node *array, acc_node *position)
{
    static const char op[] = "linear read (!!)";
    if (!gr_begin(g, op) || !gr_want_array(g, op, "the array", array) ||
        !gr_want_scalar(g, op, "the position", position, ACC_I64))
        return NULL;
    acc_node *args[2] = {array, position};
    return gr_node(g, IR_READ_LINEAR, array->type->elem, 2, args, 0);
}

acc_node *acc_shape(acc_graph *g, acc_node *array)
{
    if (!gr_begin(g, "shape") || !gr_want_array(g, "shape", "the array", array))
        return NULL;
    return gr_node(g, IR_SHAPE, ty_shape(array->type->rank), 1, &array, 0);
}

acc_node *acc_size(acc_graph *g, acc_node *array)
{
    if (!gr_begin(g, "size") || !gr_want_array(g, "size", "the array", array))
        return NULL;
    return gr_node(g, IR_SIZE, ty_scalar(ACC_I64), 1, &array, 0);
}

acc_node *acc_the(acc_graph *g, acc_node *scalar_array)
{
    char t[128];
    if (!gr_begin(g, "the") ||
        !gr_want_array(g, "the", "the array", scalar_array))
        return NULL;
    if (scalar_array->type->rank != 0)
        return gr_fail(g, ACC_ERR_SHAPE, "the: the array has type %s, "
                       "expected a Scalar (rank 0)",
                       GR_TYPE(scalar_array->type, t));
    acc_node *ix = gr_node(g, IR_INDEX, ty_shape(0), 0, NULL, 0);
    if (!ix)
        return NULL;
    acc_node *args[2] = {scalar_array, ix};
    return gr_node(g, IR_READ, scalar_array->type->elem, 2, args, 0);
}
