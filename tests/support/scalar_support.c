/*
 * scalar_support.c — the helpers of scalar_support.h, shared by the
 * scalar-primitive tests (tests/lang/test_scalar_*.c).  Public API only.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "scalar_support.h"
#include "support.h"

int sp_is_unary(acc_primop op)
{
    switch (op) {
    case ACC_OP_NEG: case ACC_OP_ABS: case ACC_OP_SIGNUM:
    case ACC_OP_COMPLEMENT: case ACC_OP_POPCOUNT: case ACC_OP_CLZ:
    case ACC_OP_NOT:
    case ACC_OP_SQRT: case ACC_OP_EXP: case ACC_OP_LOG: case ACC_OP_SIN:
    case ACC_OP_COS: case ACC_OP_TAN: case ACC_OP_ASIN: case ACC_OP_ACOS:
    case ACC_OP_ATAN: case ACC_OP_SINH: case ACC_OP_COSH: case ACC_OP_TANH:
    case ACC_OP_ISNAN: case ACC_OP_ISINF:
        return 1;
    default:
        return 0;
    }
}

int sp_is_float(acc_scalar t)
{
    return t == ACC_F32 || t == ACC_F64;
}

static int is_unsigned(acc_scalar t)
{
    return t == ACC_U8 || t == ACC_U16 || t == ACC_U32 || t == ACC_U64;
}

acc_node *sp_mk_int(acc_graph *g, acc_scalar t, int64_t v)
{
    if (t == ACC_BOOL)
        return ts_bool(g, v != 0);
    if (is_unsigned(t))
        return ts_u64(g, t, (uint64_t)v);
    return ts_int(g, t, v);
}

acc_node *sp_mk_float(acc_graph *g, acc_scalar t, double v)
{
    return acc_const_f64(g, t, v);
}

int64_t sp_load_int(acc_scalar t, const unsigned char *buf)
{
    switch (t) {
    case ACC_BOOL: { uint8_t v; memcpy(&v, buf, 1); return v; }
    case ACC_I8: { int8_t v; memcpy(&v, buf, 1); return v; }
    case ACC_I16: { int16_t v; memcpy(&v, buf, 2); return v; }
    case ACC_I32: { int32_t v; memcpy(&v, buf, 4); return v; }
    case ACC_I64: { int64_t v; memcpy(&v, buf, 8); return v; }
    case ACC_U8: { uint8_t v; memcpy(&v, buf, 1); return v; }
    case ACC_U16: { uint16_t v; memcpy(&v, buf, 2); return v; }
    case ACC_U32: { uint32_t v; memcpy(&v, buf, 4); return v; }
    case ACC_U64: { uint64_t v; memcpy(&v, buf, 8); return (int64_t)v; }
    default: return 0;
    }
}

double sp_load_float(acc_scalar t, const unsigned char *buf)
{
    if (t == ACC_F32) {
        float v;
        memcpy(&v, buf, sizeof v);
        return v;
    }
    double d;
    memcpy(&d, buf, sizeof d);
    return d;
}

/* Whether the node has scalar type `rt`; reports the row otherwise. */
static int expect_type(acc_graph *g, acc_node *e, acc_scalar rt,
                       const char *row)
{
    const acc_type *t = acc_node_type(e);

    cr_expect(e != NULL, "%s: builder returned NULL: %s", row,
              acc_graph_last_error(g));
    if (e == NULL)
        return 0;
    cr_expect(t != NULL && acc_type_equal(t, acc_type_scalar(rt)),
              "%s: result type is not %s", row, acc_scalar_name(rt));
    return t != NULL && acc_type_equal(t, acc_type_scalar(rt));
}

int sp_eval_into(acc_context *ctx, acc_graph *g, acc_node *e, acc_scalar rt,
                 unsigned char *buf, const char *row)
{
    acc_status st;

    if (!expect_type(g, e, rt, row))
        return 0;
    st = ts_eval_scalar(ctx, g, e, buf, acc_scalar_size(rt));
    cr_expect_eq(st, ACC_OK, "%s: status %s: %s", row, acc_status_string(st),
                 acc_last_error());
    return st == ACC_OK;
}

acc_status sp_eval_status(acc_context *ctx, acc_graph *g, acc_node *e,
                          acc_scalar rt)
{
    unsigned char buf[16];
    return ts_eval_scalar(ctx, g, e, buf, acc_scalar_size(rt));
}
