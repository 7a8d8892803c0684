/*
 * builtins_scalar.c — the scalar language (LANGUAGE.md §2) of the text
 * syntax: primitive operators and functions, conversions, tuple fields,
 * array reads, `while`, `foreign`, and the named values (True, pi,
 * ignore, All).  Operands are unified with each other first, then with a
 * variable of the operator's class, so a literal takes the type of the
 * other operand and a lone literal keeps a class that defaults sensibly.
 */
#include "core/text/text_builtins.h"

#include <string.h>

static text_tclass op_class(acc_primop op)
{
    switch (op) {
    case ACC_OP_ADD: case ACC_OP_SUB: case ACC_OP_MUL: case ACC_OP_NEG:
    case ACC_OP_ABS: case ACC_OP_SIGNUM:
        return TC_NUM;
    case ACC_OP_QUOT: case ACC_OP_REM: case ACC_OP_DIV: case ACC_OP_MOD:
    case ACC_OP_BAND: case ACC_OP_BOR: case ACC_OP_BXOR:
    case ACC_OP_COMPLEMENT: case ACC_OP_POPCOUNT: case ACC_OP_CLZ:
    case ACC_OP_SHIFTL: case ACC_OP_SHIFTR:
        return TC_INT;
    case ACC_OP_FDIV: case ACC_OP_POW: case ACC_OP_ATAN2:
    case ACC_OP_LOGBASE: case ACC_OP_SQRT: case ACC_OP_EXP: case ACC_OP_LOG:
    case ACC_OP_SIN: case ACC_OP_COS: case ACC_OP_TAN: case ACC_OP_ASIN:
    case ACC_OP_ACOS: case ACC_OP_ATAN: case ACC_OP_SINH: case ACC_OP_COSH:
    case ACC_OP_TANH: case ACC_OP_ISNAN: case ACC_OP_ISINF:
        return TC_FLOAT;
    default:
        return TC_ANY;
    }
}

static const char *class_words(text_tclass c)
{
    switch (c) {
    case TC_NUM: return "numbers";
    case TC_INT: return "integers";
    case TC_FLOAT: return "floating-point numbers (f32, f64)";
    case TC_BOUNDED: return "integers and bool";
    default: return "scalars";
    }
}

static int is_logic(acc_primop op)
{
    return op == ACC_OP_LAND || op == ACC_OP_LOR || op == ACC_OP_NOT;
}

/* Constrains operand x of op to op's class (or bool for logic). */
static void want_class(text_elab *el, const text_builtin *b, text_core *x,
                       int i, text_pos pos)
{
    acc_primop op = (acc_primop)b->op;
    if (is_logic(op)) {
        text_expect_type(el, x->type, text_bool(el), text_arg_name(el, b, i),
                         pos);
        return;
    }
    text_tclass c = op_class(op);
    if (!text_ty_unify(x->type, text_ty_var(el->st, c)))
        text_type_error(el, pos, "'%s' works on %s, but %s has type %s",
                        b->name, class_words(c), text_arg_name(el, b, i),
                        text_ty_name(el->st, x->type));
}

text_val *text_bi_binop(text_elab *el, const text_builtin *b,
                        text_val **args, text_pos pos)
{
    text_core *x = text_arg(el, b, args, 0, pos);
    text_core *y = text_arg(el, b, args, 1, pos);
    if (!text_ty_unify(y->type, x->type))
        text_type_error(el, pos, "the operands of '%s' have types %s and %s, "
                        "expected equal types", b->name,
                        text_ty_name(el->st, x->type),
                        text_ty_name(el->st, y->type));
    want_class(el, b, x, 0, pos);
    text_core *c = text_mk(el, CK_BINOP, x->type, pos, 2, x, y);
    c->op = b->op;
    return text_ret(el, c);
}

text_val *text_bi_compare(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    text_core *x = text_arg(el, b, args, 0, pos);
    text_core *y = text_arg(el, b, args, 1, pos);
    if (!text_ty_unify(y->type, x->type))
        text_type_error(el, pos, "'%s' compares values of types %s and %s, "
                        "expected equal types", b->name,
                        text_ty_name(el->st, x->type),
                        text_ty_name(el->st, y->type));
    text_core *c = text_mk(el, CK_BINOP, text_bool(el), pos, 2, x, y);
    c->op = b->op;
    return text_ret(el, c);
}

text_val *text_bi_shift(text_elab *el, const text_builtin *b,
                        text_val **args, text_pos pos)
{
    text_core *x = text_arg(el, b, args, 0, pos);
    text_core *y = text_arg(el, b, args, 1, pos);
    want_class(el, b, x, 0, pos);
    want_class(el, b, y, 1, pos);
    text_core *c = text_mk(el, CK_BINOP, x->type, pos, 2, x, y);
    c->op = b->op;
    return text_ret(el, c);
}

text_val *text_bi_unop(text_elab *el, const text_builtin *b,
                       text_val **args, text_pos pos)
{
    acc_primop op = (acc_primop)b->op;
    text_core *x = text_arg(el, b, args, 0, pos);
    want_class(el, b, x, 0, pos);
    text_type *t = x->type;
    if (op == ACC_OP_ISNAN || op == ACC_OP_ISINF)
        t = text_bool(el);
    else if (op == ACC_OP_POPCOUNT || op == ACC_OP_CLZ)
        t = text_i64(el);
    text_core *c = text_mk(el, CK_UNOP, t, pos, 1, x);
    c->op = b->op;
    return text_ret(el, c);
}

/* truncate/round/floor/ceiling: the integer result type comes from the
 * context (i64 when nothing decides). */
text_val *text_bi_round(text_elab *el, const text_builtin *b,
                        text_val **args, text_pos pos)
{
    text_core *x = text_arg(el, b, args, 0, pos);
    want_class(el, b, x, 0, pos);
    text_core *c = text_mk(el, CK_ROUND, text_ty_var(el->st, TC_INT), pos, 1,
                           x);
    c->op = b->op;
    return text_ret(el, c);
}

static text_val *convert(text_elab *el, text_core *x, text_type *to,
                         text_pos pos)
{
    /* A literal simply takes the type when it can (f32 0.3 is a literal). */
    if ((x->kind == CK_INT || x->kind == CK_FLOAT) &&
        text_ty_prune(x->type)->kind == TT_VAR && text_ty_unify(x->type, to))
        return text_ret(el, x);
    return text_ret(el, text_mk(el, CK_CONVERT, to, pos, 1, x));
}

text_val *text_bi_convert(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    text_core *x = text_arg(el, b, args, 0, pos);
    if (!text_ty_unify(x->type, text_ty_var(el->st, TC_ANY)) ||
        (text_ty_prune(x->type)->kind != TT_SCALAR &&
         text_ty_prune(x->type)->kind != TT_VAR))
        text_type_error(el, pos, "'%s' converts scalars, but %s has type %s",
                        b->name, text_arg_name(el, b, 0),
                        text_ty_name(el->st, x->type));
    return convert(el, x, text_ty_scalar(el->st, (acc_scalar)b->op), pos);
}

/* fromIntegral x: an integer or a bool (as 0 or 1, like `i64 b`) to the
 * number type the context asks for. */
text_val *text_bi_from_integral(text_elab *el, const text_builtin *b,
                                text_val **args, text_pos pos)
{
    text_core *x = text_arg(el, b, args, 0, pos);
    if (!text_ty_unify(x->type, text_ty_var(el->st, TC_BOUNDED)))
        text_type_error(el, pos, "'fromIntegral' converts integers and bool, "
                        "but %s has type %s", text_arg_name(el, b, 0),
                        text_ty_name(el->st, x->type));
    return text_ret(el, text_mk(el, CK_CONVERT, text_ty_var(el->st, TC_NUM),
                                pos, 1, x));
}

/* fromBool b: 0 or 1 in the number type the context asks for; boolToInt
 * b (op 1): the same as an i64 (Accelerate's Int). */
text_val *text_bi_from_bool(text_elab *el, const text_builtin *b,
                            text_val **args, text_pos pos)
{
    text_core *x = text_arg_typed(el, b, args, 0, text_bool(el), pos);
    text_type *t = b->op ? text_i64(el) : text_ty_var(el->st, TC_NUM);
    return text_ret(el, text_mk(el, CK_CONVERT, t, pos, 1, x));
}

/* minBound, maxBound (op 1): the least and greatest value of the integer
 * or bool type the context asks for (i64 when nothing does); emit.c makes
 * the constant once the type is known. */
text_val *text_bi_bound(text_elab *el, const text_builtin *b,
                        text_val **args, text_pos pos)
{
    (void)args;
    text_core *c = text_mk(el, CK_BOUND, text_ty_var(el->st, TC_BOUNDED), pos,
                           0);
    c->op = b->op;
    return text_ret(el, c);
}

text_val *text_bi_to_floating(text_elab *el, const text_builtin *b,
                              text_val **args, text_pos pos)
{
    text_core *x = text_arg(el, b, args, 0, pos);
    if (!text_ty_unify(x->type, text_ty_var(el->st, TC_NUM)))
        text_type_error(el, pos, "'toFloating' converts numbers, but %s has "
                        "type %s", text_arg_name(el, b, 0),
                        text_ty_name(el->st, x->type));
    return text_ret(el, text_mk(el, CK_CONVERT, text_ty_var(el->st, TC_FLOAT),
                                pos, 1, x));
}

/* Field i of a tuple or component i of an index. */
static text_val *field(text_elab *el, const text_builtin *b, text_core *x,
                       size_t i, text_pos pos)
{
    text_type *t = text_ty_prune(x->type);
    text_type *ft;
    if (t->kind == TT_TUPLE && i < t->n)
        ft = t->fields[i];
    else if (t->kind == TT_SHAPE && i < (size_t)t->rank)
        ft = text_i64(el);
    else
        text_type_error(el, pos, "'%s' takes field %zu, but its argument has "
                        "type %s", b->name, i, text_ty_name(el->st, t));
    if ((x->kind == CK_TUPLE || x->kind == CK_INDEX) && i < x->n)
        return text_ret(el, x->args[i]);
    text_core *c = text_mk(el, CK_GET, ft, pos, 1, x);
    c->op = (int)i;
    return text_ret(el, c);
}

/* Item i of a meta-level tuple (one holding a function). */
static text_val *meta_field(text_elab *el, const text_builtin *b,
                            const text_val *t, size_t i, text_pos pos)
{
    if (i >= t->n)
        text_type_error(el, pos, "'%s' takes field %zu, but its argument is "
                        "a tuple of %zu", b->name, i, t->n);
    return t->items[i];
}

text_val *text_bi_field(text_elab *el, const text_builtin *b,
                        text_val **args, text_pos pos)
{
    if (args[0]->kind == VK_TUPLE)
        return meta_field(el, b, args[0], b->op == BX_FST ? 0 : 1, pos);
    text_core *x = text_arg(el, b, args, 0, pos);
    if (text_ty_prune(x->type)->kind == TT_VAR) {
        text_type *fs[2] = {text_ty_var(el->st, TC_ANY),
                            text_ty_var(el->st, TC_ANY)};
        text_expect_type(el, x->type, text_ty_tuple(el->st, 2, fs),
                         text_arg_name(el, b, 0), pos);
    }
    return field(el, b, x, b->op == BX_FST ? 0 : 1, pos);
}

text_val *text_bi_prj(text_elab *el, const text_builtin *b,
                      text_val **args, text_pos pos)
{
    text_core *i = text_arg(el, b, args, 0, pos);
    if (i->kind != CK_INT || i->neg)
        text_type_error(el, pos, "the first argument of 'prj' must be a "
                        "non-negative integer literal (the field number)");
    if (args[1]->kind == VK_TUPLE)
        return meta_field(el, b, args[1], (size_t)i->ival, pos);
    return field(el, b, text_arg(el, b, args, 1, pos), (size_t)i->ival, pos);
}

text_val *text_bi_read(text_elab *el, const text_builtin *b,
                       text_val **args, text_pos pos)
{
    text_core *xs = text_arg_array(el, b, args, 0, pos);
    text_core *ix = text_arg(el, b, args, 1, pos);
    text_type *t = text_ty_prune(ix->type);
    int scalar = t->kind == TT_SCALAR ||
                 (t->kind == TT_VAR && (t->cls == TC_NUM || t->cls == TC_INT));
    if (text_rank(xs) == 1 && scalar) { /* xs ! i on a vector means [i] */
        text_expect_type(el, ix->type, text_i64(el), "the index of '!'", pos);
        ix = text_mk(el, CK_INDEX, text_ty_shape(el->st, 1), pos, 1, ix);
    }
    text_expect_type(el, ix->type, text_ty_shape(el->st, text_rank(xs)),
                     "the index of '!'", pos);
    return text_ret(el, text_mk(el, CK_READ, text_elem(xs), pos, 2, xs, ix));
}

text_val *text_bi_read_linear(text_elab *el, const text_builtin *b,
                              text_val **args, text_pos pos)
{
    text_core *xs = text_arg_array(el, b, args, 0, pos);
    text_core *k = text_arg_typed(el, b, args, 1, text_i64(el), pos);
    return text_ret(el, text_mk(el, CK_READ_LINEAR, text_elem(xs), pos, 2, xs,
                                k));
}

text_val *text_bi_while(text_elab *el, const text_builtin *b,
                        text_val **args, text_pos pos)
{
    text_core *init = text_arg(el, b, args, 2, pos);
    text_type *t = init->type;
    text_core *cond = text_arg_fun(el, b, args, 0, 1, &t, text_bool(el), pos);
    text_core *body = text_arg_fun(el, b, args, 1, 1, &t, t, pos);
    return text_ret(el, text_mk(el, CK_WHILE, t, pos, 3, cond, body, init));
}

/* foreign "name" fallback arg (foreignExp for scalars): a foreign node;
 * the implementation registered under the name runs where it exists, the
 * fallback (a function of the argument) everywhere else. */
text_val *text_bi_foreign(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    int scalar = b->op == 1;
    if (args[0]->kind != VK_STRING)
        text_type_error(el, pos, "the first argument of '%s' must be a string "
                        "literal naming the implementation", b->name);
    text_core *arg = text_arg(el, b, args, 2, pos);
    text_type *t = arg->type;
    if (text_ty_is_array_sort(t) == scalar)
        text_type_error(el, pos, "the argument of '%s' has type %s, expected %s",
                        b->name, text_ty_name(el->st, t),
                        scalar ? "a scalar value" : "an array or a tuple of "
                                                    "arrays");
    text_core *fallback = text_arg_fun(el, b, args, 1, 1, &t, NULL, pos);
    text_core *c = text_mk(el, scalar ? CK_FOREIGN_EXP : CK_FOREIGN,
                           fallback->type, pos, 2, fallback, arg);
    c->name = args[0]->text;
    return text_ret(el, c);
}

static text_val *array_query(text_elab *el, const text_builtin *b,
                             text_val **args, text_pos pos)
{
    text_core *xs = text_arg_array(el, b, args, 0, pos);
    switch (b->op) {
    case BM_SHAPE:
        return text_ret(el, text_mk(el, CK_SHAPE,
                                    text_ty_shape(el->st, text_rank(xs)), pos,
                                    1, xs));
    case BM_SIZE:
        return text_ret(el, text_mk(el, CK_SIZE, text_i64(el), pos, 1, xs));
    default:
        if (text_rank(xs) != 0)
            text_type_error(el, pos, "'the' reads a Scalar, but its argument "
                            "has type %s", text_ty_name(el->st, xs->type));
        return text_ret(el, text_mk(el, CK_THE, text_elem(xs), pos, 1, xs));
    }
}

text_val *text_bi_misc(text_elab *el, const text_builtin *b,
                       text_val **args, text_pos pos)
{
    text_core *c;
    switch (b->op) {
    case BM_TRUE:
    case BM_FALSE:
        c = text_mk(el, CK_BOOL, text_bool(el), pos, 0);
        c->ival = b->op == BM_TRUE;
        return text_ret(el, c);
    case BM_PI:
        c = text_mk(el, CK_FLOAT, text_ty_var(el->st, TC_FLOAT), pos, 0);
        c->fval = 3.14159265358979323846;
        return text_ret(el, c);
    case BM_IGNORE:
        return text_ret(el, text_mk(el, CK_IGNORE,
                                    text_ty_var(el->st, TC_SHAPE), pos, 0));
    case BM_ALL: {
        text_val *v = text_alloc(el->st, sizeof *v);
        v->kind = VK_ALL;
        return v;
    }
    case BM_UNIT: {
        text_core *x = text_arg(el, b, args, 0, pos);
        if (text_ty_is_array_sort(x->type))
            text_type_error(el, pos, "'unit' makes a Scalar of a value, but "
                            "its argument has type %s",
                            text_ty_name(el->st, x->type));
        return text_ret(el, text_mk(el, CK_UNIT,
                                    text_ty_array(el->st, x->type, 0), pos, 1,
                                    x));
    }
    case BM_USE:
        text_arg(el, b, args, 0, pos);
        return args[0];
    default:
        return array_query(el, b, args, pos);
    }
}
