/* primops.c — the primitive typing table. */
#include "core/ir/primops.h"

#include "core/ir/types.h"

prim_info prim_lookup(acc_primop op)
{
    switch (op) {
    case ACC_OP_ADD: return (prim_info){"+", 2, PO_NUMERIC, PR_SAME};
    case ACC_OP_SUB: return (prim_info){"-", 2, PO_NUMERIC, PR_SAME};
    case ACC_OP_MUL: return (prim_info){"*", 2, PO_NUMERIC, PR_SAME};
    case ACC_OP_NEG: return (prim_info){"negate", 1, PO_NUMERIC, PR_SAME};
    case ACC_OP_ABS: return (prim_info){"abs", 1, PO_NUMERIC, PR_SAME};
    case ACC_OP_SIGNUM: return (prim_info){"signum", 1, PO_NUMERIC, PR_SAME};
    case ACC_OP_MIN: return (prim_info){"min", 2, PO_ORDERED, PR_SAME};
    case ACC_OP_MAX: return (prim_info){"max", 2, PO_ORDERED, PR_SAME};
    case ACC_OP_FDIV: return (prim_info){"/", 2, PO_FLOATING, PR_SAME};
    case ACC_OP_QUOT: return (prim_info){"quot", 2, PO_INTEGRAL, PR_SAME};
    case ACC_OP_REM: return (prim_info){"rem", 2, PO_INTEGRAL, PR_SAME};
    case ACC_OP_DIV: return (prim_info){"div", 2, PO_INTEGRAL, PR_SAME};
    case ACC_OP_MOD: return (prim_info){"mod", 2, PO_INTEGRAL, PR_SAME};
    case ACC_OP_BAND: return (prim_info){".&.", 2, PO_INTEGRAL, PR_SAME};
    case ACC_OP_BOR: return (prim_info){".|.", 2, PO_INTEGRAL, PR_SAME};
    case ACC_OP_BXOR: return (prim_info){"xor", 2, PO_INTEGRAL, PR_SAME};
    case ACC_OP_COMPLEMENT:
        return (prim_info){"complement", 1, PO_INTEGRAL, PR_SAME};
    case ACC_OP_SHIFTL: return (prim_info){"shiftL", 2, PO_INTEGRAL, PR_SAME};
    case ACC_OP_SHIFTR: return (prim_info){"shiftR", 2, PO_INTEGRAL, PR_SAME};
    case ACC_OP_POPCOUNT:
        return (prim_info){"popCount", 1, PO_INTEGRAL, PR_I64};
    case ACC_OP_CLZ:
        return (prim_info){"countLeadingZeros", 1, PO_INTEGRAL, PR_I64};
    case ACC_OP_EQ: return (prim_info){"==", 2, PO_ORDERED, PR_BOOL};
    case ACC_OP_NE: return (prim_info){"/=", 2, PO_ORDERED, PR_BOOL};
    case ACC_OP_LT: return (prim_info){"<", 2, PO_ORDERED, PR_BOOL};
    case ACC_OP_LE: return (prim_info){"<=", 2, PO_ORDERED, PR_BOOL};
    case ACC_OP_GT: return (prim_info){">", 2, PO_ORDERED, PR_BOOL};
    case ACC_OP_GE: return (prim_info){">=", 2, PO_ORDERED, PR_BOOL};
    case ACC_OP_LAND: return (prim_info){"&&", 2, PO_BOOL, PR_BOOL};
    case ACC_OP_LOR: return (prim_info){"||", 2, PO_BOOL, PR_BOOL};
    case ACC_OP_NOT: return (prim_info){"not", 1, PO_BOOL, PR_BOOL};
    case ACC_OP_SQRT: return (prim_info){"sqrt", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_EXP: return (prim_info){"exp", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_LOG: return (prim_info){"log", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_SIN: return (prim_info){"sin", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_COS: return (prim_info){"cos", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_TAN: return (prim_info){"tan", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_ASIN: return (prim_info){"asin", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_ACOS: return (prim_info){"acos", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_ATAN: return (prim_info){"atan", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_SINH: return (prim_info){"sinh", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_COSH: return (prim_info){"cosh", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_TANH: return (prim_info){"tanh", 1, PO_FLOATING, PR_SAME};
    case ACC_OP_ATAN2: return (prim_info){"atan2", 2, PO_FLOATING, PR_SAME};
    case ACC_OP_POW: return (prim_info){"**", 2, PO_FLOATING, PR_SAME};
    case ACC_OP_LOGBASE:
        return (prim_info){"logBase", 2, PO_FLOATING, PR_SAME};
    case ACC_OP_ISNAN: return (prim_info){"isNaN", 1, PO_FLOATING, PR_BOOL};
    case ACC_OP_ISINF:
        return (prim_info){"isInfinite", 1, PO_FLOATING, PR_BOOL};
    case ACC_OP_TRUNCATE:
        return (prim_info){"truncate", 1, PO_FLOATING, PR_NAMED};
    case ACC_OP_ROUND: return (prim_info){"round", 1, PO_FLOATING, PR_NAMED};
    case ACC_OP_FLOOR: return (prim_info){"floor", 1, PO_FLOATING, PR_NAMED};
    case ACC_OP_CEILING:
        return (prim_info){"ceiling", 1, PO_FLOATING, PR_NAMED};
    }
    return (prim_info){"unknown primitive", 0, PO_NUMERIC, PR_SAME};
}

int prim_accepts(prim_operands operands, acc_scalar s)
{
    switch (operands) {
    case PO_NUMERIC: return ty_is_numeric(s);
    case PO_INTEGRAL: return ty_is_integral(s);
    case PO_FLOATING: return ty_is_floating(s);
    case PO_ORDERED: return ty_valid_scalar((int)s);
    case PO_BOOL: return s == ACC_BOOL;
    }
    return 0;
}

const char *prim_operands_text(prim_operands operands)
{
    switch (operands) {
    case PO_NUMERIC: return "a number (integer or float)";
    case PO_INTEGRAL: return "an integer";
    case PO_FLOATING: return "a float (f32 or f64)";
    case PO_ORDERED: return "a scalar";
    case PO_BOOL: return "a bool";
    }
    return "?";
}

const char *acc_primop_name(acc_primop op)
{
    return prim_lookup(op).name;
}
