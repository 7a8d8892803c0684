/*
 * fold.c — constant folding (simplify.h).  A folded value is computed by
 * the interpreter's own primitives (core/ir/prim_eval.h, core/ir/value.h),
 * so it is the value the program computes at run time, bit for bit, on
 * the interpreter; the compiling backends implement the same semantics
 * (LANGUAGE.md §2) for what is folded here.  What is not folded, and why:
 *
 *  - an operation whose run-time behaviour is an error (quot, rem, div,
 *    mod by zero; a negative shift amount): the error belongs to the run
 *    (ARCHITECTURE.md, "runtime errors of values that are not used");
 *  - the float library functions (exp, log, sin, .., atan2, **, logBase):
 *    libm is not correctly rounded, and the CUDA backend's functions are
 *    not the host's, so a folded value could differ from the computed
 *    one; +, -, *, /, sqrt, conversions and roundings are exact (IEEE
 *    correctly rounded, no contraction in any backend: -ffp-contract=off,
 *    --fmad=false), so they fold;
 *  - a term whose value is not used but whose evaluation could fail is
 *    kept (a let's bound, the other components of a tuple).
 */
#include "core/simplify/simplify_internal.h"
#include "core/ir/prim_eval.h"
#include "core/ir/value.h"

/* Whether evaluating n can neither fail nor cost anything worth keeping:
 * constants, variables, parameters, and tuples, indices and components
 * of them. */
static int pure(const ir_node *n)
{
    switch (n->op) {
    case IR_CONST: case IR_VAR: case IR_PARAM: case IR_ALL: return 1;
    case IR_TUPLE: case IR_INDEX: case IR_GET:
        for (uint32_t i = 0; i < n->n_args; i++)
            if (!pure(n->args[i]))
                return 0;
        return 1;
    default: return 0;
    }
}

/* The constant a scalar variable is bound to, through variables. */
static const ir_node *value_of(const simplifier *s, const ir_node *n)
{
    for (int hops = 0; n->op == IR_VAR && !ir_is_array(n) && hops < 64;
         hops++) {
        const ir_node *b = n->u.let.var < s->p->n_vars
                               ? s->p->var_bound[n->u.let.var] : NULL;
        if (!b)
            break;
        n = b;
    }
    return n;
}

static int is_const(const ir_node *n) { return n->op == IR_CONST; }

static int float_library(acc_primop op)
{
    return (op >= ACC_OP_EXP && op <= ACC_OP_TANH) || op == ACC_OP_ATAN2 ||
           op == ACC_OP_POW || op == ACC_OP_LOGBASE;
}

/* Whether op on these constants fails at run time (then it is kept). */
static int fails(acc_primop op, const ir_node *b)
{
    switch (op) {
    case ACC_OP_QUOT: case ACC_OP_REM: case ACC_OP_DIV: case ACC_OP_MOD:
        return b->u.lit.u == 0;
    case ACC_OP_SHIFTL: case ACC_OP_SHIFTR:
        return ty_is_signed(b->type->scalar) && b->u.lit.i < 0;
    default: return 0;
    }
}

/* x + 0, 0 + x, x - 0, x * 1, 1 * x on integers: x (wrap-around
 * arithmetic leaves x as it is; floats are excluded: -0 + 0 is 0). */
static ir_node *identity(ir_node *n, const ir_node *a, const ir_node *b)
{
    acc_scalar t = n->type->scalar;
    if (n->n_args != 2 || !ty_is_integral(t) || t == ACC_BOOL)
        return n;
    int ca = is_const(a), cb = is_const(b);
    int64_t va = ca ? a->u.lit.i : -1, vb = cb ? b->u.lit.i : -1;
    switch (n->u.prim) {
    case ACC_OP_ADD:
        return cb && vb == 0 ? n->args[0] : ca && va == 0 ? n->args[1] : n;
    case ACC_OP_SUB: return cb && vb == 0 ? n->args[0] : n;
    case ACC_OP_MUL:
        return cb && vb == 1 ? n->args[0] : ca && va == 1 ? n->args[1] : n;
    default: return n;
    }
}

static ir_node *fold_prim(simplifier *s, ir_node *n)
{
    acc_primop op = n->u.prim;
    const ir_node *a = value_of(s, n->args[0]);
    const ir_node *b = n->n_args == 2 ? value_of(s, n->args[1]) : NULL;
    if ((op == ACC_OP_LAND || op == ACC_OP_LOR) && is_const(a)) {
        /* the left operand decides, or the result is the right one */
        if ((op == ACC_OP_LAND) != (a->u.lit.i != 0))
            return simp_const(s, n->type, (ir_value){.i = a->u.lit.i != 0});
        return n->args[1];
    }
    if (!is_const(a) || (b && !is_const(b)))
        return identity(n, a, b ? b : a);
    if (float_library(op) || (b && fails(op, b)))
        return n;
    ir_value out = {0};
    diag none = {0};
    if (!prim_apply(op, a->type->scalar, a->u.lit,
                    b ? b->type->scalar : a->type->scalar,
                    b ? b->u.lit : (ir_value){0}, n->type->scalar, &out,
                    &none))
        return n;
    return simp_const(s, n->type, out);
}

/* A component of a tuple or an index: the component, when the others can
 * be dropped (pure) or it is a constant. */
static ir_node *fold_get(simplifier *s, ir_node *n)
{
    const ir_node *t = value_of(s, n->args[0]);
    if ((t->op != IR_TUPLE && t->op != IR_INDEX) || n->u.field >= t->n_args)
        return n;
    const ir_node *c = value_of(s, t->args[n->u.field]);
    if (is_const(c))
        return simp_const(s, n->type, c->u.lit);
    if (t == n->args[0] && pure(t))
        return t->args[n->u.field];
    return n;
}

ir_node *simp_fold(simplifier *s, ir_node *n)
{
    ir_node *r = n;
    switch (n->op) {
    case IR_VAR: {
        const ir_node *v = value_of(s, n);
        if (v != n && is_const(v))
            r = simp_const(s, n->type, v->u.lit);
        break;
    }
    case IR_PRIM: r = fold_prim(s, n); break;
    case IR_CONVERT: {
        const ir_node *a = value_of(s, n->args[0]);
        if (is_const(a))
            r = simp_const(s, n->type,
                           val_convert(a->type->scalar, n->type->scalar,
                                       a->u.lit));
        break;
    }
    case IR_COND: {
        /* the branch not taken is not evaluated at run time either */
        const ir_node *c = value_of(s, n->args[0]);
        if (is_const(c))
            r = n->args[c->u.lit.i ? 1 : 2];
        break;
    }
    case IR_GET: r = fold_get(s, n); break;
    case IR_LET:
        /* let x = e in c, c a constant: e is dropped when it cannot fail */
        if (is_const(n->args[1]) && pure(n->args[0]))
            r = n->args[1];
        break;
    default: break;
    }
    return r ? r : n;
}
