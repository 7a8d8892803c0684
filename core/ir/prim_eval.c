/*
 * prim_eval.c — scalar primitives.  Integer arithmetic is done on uint64_t and
 * wrapped to the operand width, so overflow wraps as LANGUAGE.md requires
 * and never invokes C's undefined behaviour.  f32 results are rounded to
 * float after each operation; f32 library functions are the float ones.
 */
#include "core/ir/prim_eval.h"

#include "core/ir/value.h"

#include <math.h>

static int compare(acc_scalar t, ir_value a, ir_value b)
{
    if (ty_is_floating(t))
        return (a.f > b.f) - (a.f < b.f);
    if (ty_is_signed(t) || t == ACC_BOOL)
        return (a.i > b.i) - (a.i < b.i);
    return (a.u > b.u) - (a.u < b.u);
}

static int float_less(ir_value a, ir_value b) { return a.f < b.f; }
static int float_less_equal(ir_value a, ir_value b) { return a.f <= b.f; }

/* Comparisons; floats use IEEE semantics (NaN compares false but /=). */
static int prim_compare(acc_primop op, acc_scalar t, ir_value a, ir_value b)
{
    if (ty_is_floating(t)) {
        switch (op) {
        case ACC_OP_EQ: return a.f == b.f;
        case ACC_OP_NE: return a.f != b.f;
        case ACC_OP_LT: return float_less(a, b);
        case ACC_OP_LE: return float_less_equal(a, b);
        case ACC_OP_GT: return float_less(b, a);
        default: return float_less_equal(b, a);
        }
    }
    int c = compare(t, a, b);
    switch (op) {
    case ACC_OP_EQ: return c == 0;
    case ACC_OP_NE: return c != 0;
    case ACC_OP_LT: return c < 0;
    case ACC_OP_LE: return c <= 0;
    case ACC_OP_GT: return c > 0;
    default: return c >= 0;
    }
}

static double float_unary(acc_primop op, acc_scalar t, double x)
{
    if (t == ACC_F32) {
        float f = (float)x;
        switch (op) {
        case ACC_OP_SQRT: return sqrtf(f);
        case ACC_OP_EXP: return expf(f);
        case ACC_OP_LOG: return logf(f);
        case ACC_OP_SIN: return sinf(f);
        case ACC_OP_COS: return cosf(f);
        case ACC_OP_TAN: return tanf(f);
        case ACC_OP_ASIN: return asinf(f);
        case ACC_OP_ACOS: return acosf(f);
        case ACC_OP_ATAN: return atanf(f);
        case ACC_OP_SINH: return sinhf(f);
        case ACC_OP_COSH: return coshf(f);
        default: return tanhf(f);
        }
    }
    switch (op) {
    case ACC_OP_SQRT: return sqrt(x);
    case ACC_OP_EXP: return exp(x);
    case ACC_OP_LOG: return log(x);
    case ACC_OP_SIN: return sin(x);
    case ACC_OP_COS: return cos(x);
    case ACC_OP_TAN: return tan(x);
    case ACC_OP_ASIN: return asin(x);
    case ACC_OP_ACOS: return acos(x);
    case ACC_OP_ATAN: return atan(x);
    case ACC_OP_SINH: return sinh(x);
    case ACC_OP_COSH: return cosh(x);
    default: return tanh(x);
    }
}

static double float_binary(acc_primop op, acc_scalar t, double x, double y)
{
    if (t == ACC_F32) {
        float a = (float)x, b = (float)y;
        switch (op) {
        case ACC_OP_ATAN2: return atan2f(a, b);
        case ACC_OP_POW: return powf(a, b);
        default: return (float)(logf(b) / logf(a)); /* logBase a b */
        }
    }
    switch (op) {
    case ACC_OP_ATAN2: return atan2(x, y);
    case ACC_OP_POW: return pow(x, y);
    default: return log(y) / log(x);
    }
}

/* Arithmetic shared by integers and floats. */
static ir_value numeric(acc_primop op, acc_scalar t, ir_value a, ir_value b)
{
    ir_value r;
    if (ty_is_floating(t)) {
        switch (op) {
        case ACC_OP_ADD: r.f = a.f + b.f; break;
        case ACC_OP_SUB: r.f = a.f - b.f; break;
        case ACC_OP_MUL: r.f = a.f * b.f; break;
        case ACC_OP_FDIV: r.f = a.f / b.f; break;
        case ACC_OP_NEG: r.f = -a.f; break;
        case ACC_OP_ABS: r.f = fabs(a.f); break;
        default: /* signum; NaN stays NaN */
            r.f = a.f > 0 ? 1.0 : a.f < 0 ? -1.0 : a.f;
            break;
        }
        r.f = val_round_float(t, r.f);
        return r;
    }
    uint64_t x = a.u, y = b.u;
    switch (op) {
    case ACC_OP_ADD: return val_wrap(t, x + y);
    case ACC_OP_SUB: return val_wrap(t, x - y);
    case ACC_OP_MUL: return val_wrap(t, x * y);
    case ACC_OP_NEG: return val_wrap(t, 0 - x);
    case ACC_OP_ABS:
        return ty_is_signed(t) && a.i < 0 ? val_wrap(t, 0 - x) : a;
    default: /* signum */
        if (ty_is_signed(t))
            return val_wrap(t, (uint64_t)(int64_t)((a.i > 0) - (a.i < 0)));
        return val_wrap(t, a.u != 0);
    }
}

static int division(acc_primop op, acc_scalar t, ir_value a, ir_value b,
                    ir_value *out, diag *d)
{
    if (b.u == 0) {
        diag_fail(d, ACC_ERR_RUNTIME, "%s: division by zero",
                  acc_primop_name(op));
        return 0;
    }
    if (!ty_is_signed(t)) { /* floor and truncation agree on unsigned */
        uint64_t q = a.u / b.u, r = a.u % b.u;
        *out = val_wrap(t, op == ACC_OP_QUOT || op == ACC_OP_DIV ? q : r);
        return 1;
    }
    int64_t q, r;
    if (b.i == -1) { /* avoids INT64_MIN / -1; the quotient wraps */
        q = (int64_t)(0 - a.u);
        r = 0;
    } else {
        q = a.i / b.i;
        r = a.i % b.i;
    }
    if ((op == ACC_OP_DIV || op == ACC_OP_MOD) && r != 0 &&
        ((r < 0) != (b.i < 0))) {
        q -= 1;
        r += b.i;
    }
    *out = val_wrap(t, (uint64_t)(op == ACC_OP_QUOT || op == ACC_OP_DIV ? q : r));
    return 1;
}

static int shift(acc_primop op, acc_scalar t, ir_value a, acc_scalar bt,
                 ir_value b, ir_value *out, diag *d)
{
    if (ty_is_signed(bt) && b.i < 0) {
        diag_fail(d, ACC_ERR_RUNTIME, "%s: negative shift amount %lld",
                  acc_primop_name(op), (long long)b.i);
        return 0;
    }
    int bits = ty_bits(t);
    uint64_t n = b.u;
    if (op == ACC_OP_SHIFTL) {
        *out = val_wrap(t, n >= (uint64_t)bits ? 0 : a.u << n);
    } else if (ty_is_signed(t)) {
        int64_t v = n >= (uint64_t)bits ? (a.i < 0 ? -1 : 0)
                  : a.i < 0 ? ~(~a.i >> n) : a.i >> n;
        *out = val_wrap(t, (uint64_t)v);
    } else {
        *out = val_wrap(t, n >= (uint64_t)bits ? 0 : a.u >> n);
    }
    return 1;
}

static ir_value bits_unary(acc_primop op, acc_scalar t, ir_value a)
{
    int bits = ty_bits(t);
    uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    uint64_t x = a.u & mask;
    ir_value r;
    if (op == ACC_OP_COMPLEMENT)
        return val_wrap(t, ~a.u);
    if (op == ACC_OP_POPCOUNT)
        r.i = __builtin_popcountll(x);
    else
        r.i = x == 0 ? bits : __builtin_clzll(x) - (64 - bits);
    return r;
}

int prim_apply(acc_primop op, acc_scalar t, ir_value a, acc_scalar bt,
               ir_value b, acc_scalar to, ir_value *out, diag *d)
{
    switch (op) {
    case ACC_OP_ADD: case ACC_OP_SUB: case ACC_OP_MUL: case ACC_OP_FDIV:
    case ACC_OP_NEG: case ACC_OP_ABS: case ACC_OP_SIGNUM:
        *out = numeric(op, t, a, b);
        return 1;
    case ACC_OP_MIN:
        *out = prim_compare(ACC_OP_LE, t, a, b) ? a : b;
        return 1;
    case ACC_OP_MAX:
        *out = prim_compare(ACC_OP_LE, t, a, b) ? b : a;
        return 1;
    case ACC_OP_QUOT: case ACC_OP_REM: case ACC_OP_DIV: case ACC_OP_MOD:
        return division(op, t, a, b, out, d);
    case ACC_OP_BAND: *out = val_wrap(t, a.u & b.u); return 1;
    case ACC_OP_BOR: *out = val_wrap(t, a.u | b.u); return 1;
    case ACC_OP_BXOR: *out = val_wrap(t, a.u ^ b.u); return 1;
    case ACC_OP_COMPLEMENT: case ACC_OP_POPCOUNT: case ACC_OP_CLZ:
        *out = bits_unary(op, t, a);
        return 1;
    case ACC_OP_SHIFTL: case ACC_OP_SHIFTR:
        return shift(op, t, a, bt, b, out, d);
    case ACC_OP_EQ: case ACC_OP_NE: case ACC_OP_LT: case ACC_OP_LE:
    case ACC_OP_GT: case ACC_OP_GE:
        out->i = prim_compare(op, t, a, b);
        return 1;
    case ACC_OP_LAND: out->i = a.i && b.i; return 1;
    case ACC_OP_LOR: out->i = a.i || b.i; return 1;
    case ACC_OP_NOT: out->i = !a.i; return 1;
    case ACC_OP_SQRT: case ACC_OP_EXP: case ACC_OP_LOG: case ACC_OP_SIN:
    case ACC_OP_COS: case ACC_OP_TAN: case ACC_OP_ASIN: case ACC_OP_ACOS:
    case ACC_OP_ATAN: case ACC_OP_SINH: case ACC_OP_COSH: case ACC_OP_TANH:
        out->f = val_round_float(t, float_unary(op, t, a.f));
        return 1;
    case ACC_OP_ATAN2: case ACC_OP_POW: case ACC_OP_LOGBASE:
        out->f = val_round_float(t, float_binary(op, t, a.f, b.f));
        return 1;
    case ACC_OP_ISNAN: out->i = isnan(a.f) != 0; return 1;
    case ACC_OP_ISINF: out->i = isinf(a.f) != 0; return 1;
    case ACC_OP_TRUNCATE: case ACC_OP_ROUND: case ACC_OP_FLOOR:
    case ACC_OP_CEILING:
        *out = val_float_to_int(op, to, a.f);
        return 1;
    }
    diag_fail(d, ACC_ERR_INTERNAL, "unknown primitive %d", (int)op);
    return 0;
}
