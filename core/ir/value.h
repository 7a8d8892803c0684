/*
 * value.h — canonical scalar values: conversions between scalar types,
 * and loads/stores of array elements.  These functions are the single
 * definition of LANGUAGE.md's conversion rules on the host.
 */
#ifndef ACC_CORE_IR_VALUE_H
#define ACC_CORE_IR_VALUE_H

#include "core/ir/ir.h"

/* Wraps a 64-bit pattern to integer type s (sign- or zero-extends the low
 * bits); bool becomes 0/1 (non-zero is true). */
ir_value val_wrap(acc_scalar s, uint64_t bits);
/* Rounds a double to f32 precision when s is F32. */
double val_round_float(acc_scalar s, double x);
/* A float converted to integer type `to` after rounding by `op`
 * (ACC_OP_TRUNCATE/ROUND/FLOOR/CEILING): NaN gives 0, out-of-range values
 * saturate. */
ir_value val_float_to_int(acc_primop op, acc_scalar to, double x);
/* Conversion between any two scalar types (LANGUAGE.md §1, §2). */
ir_value val_convert(acc_scalar from, acc_scalar to, ir_value v);

ir_value val_load(const void *buf, acc_scalar s, int64_t i);
void val_store(void *buf, acc_scalar s, int64_t i, ir_value v);

#endif
