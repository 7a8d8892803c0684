/* value.c — canonical scalar values and their conversions. */
#include "core/ir/value.h"

#include <math.h>
#include <string.h>

ir_value val_wrap(acc_scalar s, uint64_t bits)
{
    ir_value v;
    switch (s) {
    case ACC_BOOL: v.i = bits != 0; break;
    case ACC_I8: v.i = (int8_t)(uint8_t)bits; break;
    case ACC_I16: v.i = (int16_t)(uint16_t)bits; break;
    case ACC_I32: v.i = (int32_t)(uint32_t)bits; break;
    case ACC_U8: v.u = (uint8_t)bits; break;
    case ACC_U16: v.u = (uint16_t)bits; break;
    case ACC_U32: v.u = (uint32_t)bits; break;
    default: v.u = bits; break;
    }
    return v;
}

double val_round_float(acc_scalar s, double x)
{
    return s == ACC_F32 ? (double)(float)x : x;
}

/* Round half to even without depending on the floating-point environment. */
static double round_half_even(double x)
{
    double r = round(x); /* halves away from zero */
    if (fabs(x - trunc(x)) == 0.5)
        r = 2.0 * round(x / 2.0);
    return r;
}

static double apply_rounding(acc_primop op, double x)
{
    switch (op) {
    case ACC_OP_ROUND: return round_half_even(x);
    case ACC_OP_FLOOR: return floor(x);
    case ACC_OP_CEILING: return ceil(x);
    default: return trunc(x);
    }
}

ir_value val_float_to_int(acc_primop op, acc_scalar to, double x)
{
    ir_value v;
    if (to == ACC_BOOL) {
        v.i = x != 0.0;
        return v;
    }
    if (isnan(x)) {
        v.i = 0;
        return v;
    }
    double r = apply_rounding(op, x);
    int bits = ty_bits(to);
    if (ty_is_signed(to)) {
        double limit = ldexp(1.0, bits - 1);
        if (r < -limit) /* the pattern 1 << (bits-1) is the minimum */
            return val_wrap(to, (uint64_t)1 << (bits - 1));
        if (r >= limit)
            return val_wrap(to, ((uint64_t)1 << (bits - 1)) - 1);
        return val_wrap(to, (uint64_t)(int64_t)r);
    }
    if (r <= 0.0)
        return val_wrap(to, 0);
    if (r >= ldexp(1.0, bits))
        return val_wrap(to, bits == 64 ? UINT64_MAX
                                       : ((uint64_t)1 << bits) - 1);
    return val_wrap(to, (uint64_t)r);
}

ir_value val_convert(acc_scalar from, acc_scalar to, ir_value v)
{
    ir_value r;
    if (ty_is_floating(from)) {
        if (ty_is_floating(to)) {
            r.f = val_round_float(to, v.f);
            return r;
        }
        return val_float_to_int(ACC_OP_TRUNCATE, to, v.f);
    }
    /* from an integer or bool: v.i / v.u hold the canonical value */
    if (to == ACC_F64) {
        r.f = ty_is_signed(from) || from == ACC_BOOL ? (double)v.i
                                                     : (double)v.u;
        return r;
    }
    if (to == ACC_F32) {
        r.f = ty_is_signed(from) || from == ACC_BOOL ? (double)(float)v.i
                                                     : (double)(float)v.u;
        return r;
    }
    return val_wrap(to, v.u);
}

ir_value val_load(const void *buf, acc_scalar s, int64_t i)
{
    ir_value v;
    const unsigned char *p = buf;
    switch (s) {
    case ACC_BOOL: v.i = p[i] != 0; break;
    case ACC_I8: v.i = ((const int8_t *)buf)[i]; break;
    case ACC_I16: v.i = ((const int16_t *)buf)[i]; break;
    case ACC_I32: v.i = ((const int32_t *)buf)[i]; break;
    case ACC_I64: v.i = ((const int64_t *)buf)[i]; break;
    case ACC_U8: v.u = ((const uint8_t *)buf)[i]; break;
    case ACC_U16: v.u = ((const uint16_t *)buf)[i]; break;
    case ACC_U32: v.u = ((const uint32_t *)buf)[i]; break;
    case ACC_U64: v.u = ((const uint64_t *)buf)[i]; break;
    case ACC_F32: v.f = ((const float *)buf)[i]; break;
    case ACC_F64: v.f = ((const double *)buf)[i]; break;
    default: v.u = 0; break;
    }
    return v;
}

void val_store(void *buf, acc_scalar s, int64_t i, ir_value v)
{
    switch (s) {
    case ACC_BOOL: ((uint8_t *)buf)[i] = v.i != 0; break;
    case ACC_I8: ((int8_t *)buf)[i] = (int8_t)v.i; break;
    case ACC_I16: ((int16_t *)buf)[i] = (int16_t)v.i; break;
    case ACC_I32: ((int32_t *)buf)[i] = (int32_t)v.i; break;
    case ACC_I64: ((int64_t *)buf)[i] = v.i; break;
    case ACC_U8: ((uint8_t *)buf)[i] = (uint8_t)v.u; break;
    case ACC_U16: ((uint16_t *)buf)[i] = (uint16_t)v.u; break;
    case ACC_U32: ((uint32_t *)buf)[i] = (uint32_t)v.u; break;
    case ACC_U64: ((uint64_t *)buf)[i] = v.u; break;
    case ACC_F32: ((float *)buf)[i] = (float)v.f; break;
    case ACC_F64: ((double *)buf)[i] = v.f; break;
    }
}
