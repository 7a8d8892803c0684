/*
 * test_scalar_prims.c — every scalar primitive of LANGUAGE.md §2 through the
 * builder API on the reference interpreter.
 *
 * Each row of the tables below builds one closed scalar expression from
 * constants, evaluates it with ts_eval_scalar and compares the result with a
 * value worked out by hand (never with the formula an implementation would
 * use).  Integers compare exactly; floats within 1e-6 (f64) or 1e-5 relative
 * (f32), or bit for bit where the sign of zero or NaN matters.  The rest of
 * the file covers the non-primitive scalar forms (if, tuples, indices,
 * sharing, while, lambdas), short-circuiting, runtime errors and type errors.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "support.h"

/* ------------------------------------------------------------------------
 * Shared helpers
 * ------------------------------------------------------------------------ */

static int is_unary(acc_primop op)
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

static int is_float(acc_scalar t)
{
    return t == ACC_F32 || t == ACC_F64;
}

static int is_unsigned(acc_scalar t)
{
    return t == ACC_U8 || t == ACC_U16 || t == ACC_U32 || t == ACC_U64;
}

/* An integer or bool constant: unsigned types are built from the bit
 * pattern (so -1 as u64 is UINT64_MAX) without relying on wrapping. */
static acc_node *mk_int(acc_graph *g, acc_scalar t, int64_t v)
{
    if (t == ACC_BOOL)
        return ts_bool(g, v != 0);
    if (is_unsigned(t))
        return ts_u64(g, t, (uint64_t)v);
    return ts_int(g, t, v);
}

static acc_node *mk_float(acc_graph *g, acc_scalar t, double v)
{
    return acc_const_f64(g, t, v);
}

/* Reads an integer/bool leaf: signed types sign-extend, unsigned types
 * zero-extend (u64 keeps its bit pattern), bool is the raw byte. */
static int64_t load_int(acc_scalar t, const unsigned char *buf)
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

static double load_float(acc_scalar t, const unsigned char *buf)
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

static double absd(double x)
{
    return x < 0 ? -x : x;
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

/* Evaluates `e` (of scalar type rt) into buf; reports failures. */
static int eval_into(acc_context *ctx, acc_graph *g, acc_node *e,
                     acc_scalar rt, unsigned char *buf, const char *row)
{
    acc_status st;

    if (!expect_type(g, e, rt, row))
        return 0;
    st = ts_eval_scalar(ctx, g, e, buf, acc_scalar_size(rt));
    cr_expect_eq(st, ACC_OK, "%s: status %s: %s", row, acc_status_string(st),
                 acc_last_error());
    return st == ACC_OK;
}

/* Evaluates a closed scalar expression and returns the status only. */
static acc_status eval_status(acc_context *ctx, acc_graph *g, acc_node *e,
                              acc_scalar rt)
{
    unsigned char buf[16];
    return ts_eval_scalar(ctx, g, e, buf, acc_scalar_size(rt));
}

#define I8MIN INT8_MIN
#define I8MAX INT8_MAX
#define I16MIN INT16_MIN
#define I32MIN INT32_MIN
#define I32MAX INT32_MAX
#define I64MIN INT64_MIN
#define I64MAX INT64_MAX
#define U64MAX ((int64_t)-1) /* the bit pattern of UINT64_MAX */
#define U64TOP INT64_MIN     /* the bit pattern of 1 << 63 as u64 */

/* ------------------------------------------------------------------------
 * Integer and bool rows: op on operand type t (shift amount of type bt),
 * result type rt (0: same as t).
 * ------------------------------------------------------------------------ */
struct int_row {
    acc_primop op;
    acc_scalar t;
    int64_t a, b;
    int64_t want;
    acc_scalar rt; /* 0: t */
    acc_scalar bt; /* 0: t */
};

#define R2(op, t, a, b, w) {ACC_OP_##op, ACC_##t, a, b, w, (acc_scalar)0, (acc_scalar)0}
#define R1(op, t, a, w) {ACC_OP_##op, ACC_##t, a, 0, w, (acc_scalar)0, (acc_scalar)0}
#define RC(op, t, a, b, w) {ACC_OP_##op, ACC_##t, a, b, w, ACC_BOOL, (acc_scalar)0}
#define RI(op, t, a, w) {ACC_OP_##op, ACC_##t, a, 0, w, ACC_I64, (acc_scalar)0}
#define RS(op, t, a, bt, b, w) {ACC_OP_##op, ACC_##t, a, b, w, (acc_scalar)0, ACC_##bt}

static void run_int_rows(const struct int_row *rows, size_t n)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);

    for (size_t i = 0; i < n; i++) {
        const struct int_row *r = &rows[i];
        acc_scalar rt = r->rt ? r->rt : r->t;
        acc_scalar bt = r->bt ? r->bt : r->t;
        acc_graph *g = ts_graph(ctx);
        unsigned char buf[16] = {0};
        char row[160];
        acc_node *e;

        snprintf(row, sizeof row, "row %zu: %s %s(%lld, %s %lld)", i,
                 acc_primop_name(r->op), acc_scalar_name(r->t),
                 (long long)r->a, acc_scalar_name(bt), (long long)r->b);
        if (is_unary(r->op))
            e = acc_unop(g, r->op, mk_int(g, r->t, r->a));
        else
            e = acc_binop(g, r->op, mk_int(g, r->t, r->a),
                          mk_int(g, bt, r->b));
        if (eval_into(ctx, g, e, rt, buf, row)) {
            int64_t got = load_int(rt, buf);
            cr_expect_eq(got, r->want, "%s: got %lld (0x%llx), want %lld "
                         "(0x%llx)", row, (long long)got,
                         (unsigned long long)got, (long long)r->want,
                         (unsigned long long)r->want);
        }
        acc_graph_free(g);
    }
    acc_context_destroy(ctx);
}

#define RUN_ROWS(fn, rows) fn(rows, sizeof(rows) / sizeof(rows[0]))

static const struct int_row arith_rows[] = {
    /* + : wraps at the width */
    R2(ADD, I8, 100, 27, 127), R2(ADD, I8, 127, 1, -128),
    R2(ADD, I8, -100, -100, 56),
    R2(ADD, I16, 1000, 2000, 3000), R2(ADD, I16, 32767, 1, -32768),
    R2(ADD, I32, -5, 3, -2), R2(ADD, I32, I32MAX, 1, I32MIN),
    R2(ADD, I64, I64MAX, 1, I64MIN), R2(ADD, I64, -7, 7, 0),
    R2(ADD, U8, 200, 100, 44), R2(ADD, U8, 1, 2, 3),
    R2(ADD, U16, 65535, 1, 0), R2(ADD, U16, 40000, 30000, 4464),
    R2(ADD, U32, 4294967295, 2, 1),
    R2(ADD, U32, 3000000000, 1000000000, 4000000000),
    R2(ADD, U64, U64MAX, 1, 0), R2(ADD, U64, 10, 20, 30),
    /* - */
    R2(SUB, I8, -128, 1, 127), R2(SUB, I8, 5, 7, -2),
    R2(SUB, I16, -32768, 1, 32767), R2(SUB, I32, 10, 20, -10),
    R2(SUB, I64, I64MIN, 1, I64MAX), R2(SUB, U8, 0, 1, 255),
    R2(SUB, U16, 3, 5, 65534), R2(SUB, U32, 0, 1, 4294967295),
    R2(SUB, U64, 0, 1, U64MAX), R2(SUB, U64, 100, 1, 99),
    /* * */
    R2(MUL, I8, 16, 8, -128), R2(MUL, I8, -3, 5, -15),
    R2(MUL, I16, 300, 300, 24464), R2(MUL, I32, I32MIN, -1, I32MIN),
    R2(MUL, I32, -6, 7, -42), R2(MUL, I32, 65536, 65536, 0),
    R2(MUL, I64, 3, -4, -12), R2(MUL, I64, I64MAX, 2, -2),
    R2(MUL, U8, 16, 16, 0), R2(MUL, U8, 15, 17, 255),
    R2(MUL, U16, 256, 256, 0), R2(MUL, U32, 65536, 65536, 0),
    R2(MUL, U32, 70000, 70000, 605032704),
    R2(MUL, U64, U64MAX, U64MAX, 1),
    R2(MUL, U64, 4294967296, 4294967296, 0),
    /* negate */
    R1(NEG, I8, 5, -5), R1(NEG, I8, -128, -128), R1(NEG, I16, -32768, -32768),
    R1(NEG, I32, 7, -7), R1(NEG, I64, I64MIN, I64MIN), R1(NEG, I64, 0, 0),
    R1(NEG, U8, 1, 255), R1(NEG, U16, 2, 65534), R1(NEG, U32, 1, 4294967295),
    R1(NEG, U64, 1, U64MAX),
    /* abs */
    R1(ABS, I8, -5, 5), R1(ABS, I8, I8MIN, I8MIN), R1(ABS, I8, I8MAX, I8MAX),
    R1(ABS, I16, -300, 300), R1(ABS, I32, -7, 7), R1(ABS, I32, 7, 7),
    R1(ABS, I32, I32MIN, I32MIN), R1(ABS, I64, -9000000000, 9000000000),
    R1(ABS, U8, 200, 200), R1(ABS, U16, 65535, 65535),
    R1(ABS, U32, 4000000000, 4000000000), R1(ABS, U64, U64MAX, U64MAX),
    /* signum */
    R1(SIGNUM, I8, -5, -1), R1(SIGNUM, I8, 0, 0), R1(SIGNUM, I8, 100, 1),
    R1(SIGNUM, I16, -1, -1), R1(SIGNUM, I16, 32767, 1),
    R1(SIGNUM, I32, -123, -1), R1(SIGNUM, I32, 0, 0), R1(SIGNUM, I32, 456, 1),
    R1(SIGNUM, I64, I64MIN, -1), R1(SIGNUM, I64, I64MAX, 1),
    R1(SIGNUM, I64, 0, 0),
    R1(SIGNUM, U8, 200, 1), R1(SIGNUM, U8, 0, 0), R1(SIGNUM, U16, 0, 0),
    R1(SIGNUM, U32, 4000000000, 1), R1(SIGNUM, U64, U64MAX, 1),
    /* min a b = if a <= b then a else b (unsigned types compare unsigned) */
    R2(MIN, I8, -3, 4, -3), R2(MIN, I8, 4, -3, -3), R2(MIN, I8, 5, 5, 5),
    R2(MIN, I16, -32768, 32767, -32768), R2(MIN, I32, I32MIN, I32MAX, I32MIN),
    R2(MIN, I32, I32MAX, I32MIN, I32MIN), R2(MIN, I64, -1, -2, -2),
    R2(MIN, U8, 200, 100, 100), R2(MIN, U16, 65535, 1, 1),
    R2(MIN, U32, 4000000000, 1, 1), R2(MIN, U64, U64MAX, 0, 0),
    R2(MIN, U64, 7, 7, 7),
    /* max a b = if a <= b then b else a */
    R2(MAX, I8, -3, 4, 4), R2(MAX, I8, 4, -3, 4), R2(MAX, I8, 5, 5, 5),
    R2(MAX, I16, -32768, 32767, 32767), R2(MAX, I32, -1, -2, -1),
    R2(MAX, I64, I64MIN, I64MAX, I64MAX), R2(MAX, I64, 7, 7, 7),
    R2(MAX, U8, 200, 100, 200), R2(MAX, U16, 1, 65535, 65535),
    R2(MAX, U32, 1, 4000000000, 4000000000), R2(MAX, U64, U64MAX, 5, U64MAX),
};

Test(scalar_prims, integer_arithmetic)
{
    RUN_ROWS(run_int_rows, arith_rows);
}

/* (quot, rem, div, mod) rows generated from one line each. */
struct div_row {
    acc_scalar t;
    int64_t a, b, q, r, d, m;
};

#define DR(t, a, b, q, r, d, m) {ACC_##t, a, b, q, r, d, m}

static const struct div_row div_rows[] = {
    /* the exact tables of LANGUAGE.md §2 */
    DR(I8, 7, 2, 3, 1, 3, 1), DR(I8, -7, 2, -3, -1, -4, 1),
    DR(I8, 7, -2, -3, 1, -4, -1), DR(I8, -7, -2, 3, -1, 3, -1),
    DR(I16, 7, 2, 3, 1, 3, 1), DR(I16, -7, 2, -3, -1, -4, 1),
    DR(I16, 7, -2, -3, 1, -4, -1), DR(I16, -7, -2, 3, -1, 3, -1),
    DR(I32, 7, 2, 3, 1, 3, 1), DR(I32, -7, 2, -3, -1, -4, 1),
    DR(I32, 7, -2, -3, 1, -4, -1), DR(I32, -7, -2, 3, -1, 3, -1),
    DR(I64, 7, 2, 3, 1, 3, 1), DR(I64, -7, 2, -3, -1, -4, 1),
    DR(I64, 7, -2, -3, 1, -4, -1), DR(I64, -7, -2, 3, -1, 3, -1),
    /* exact multiples, small dividends, extremes */
    DR(I32, 6, 3, 2, 0, 2, 0), DR(I32, -6, 3, -2, 0, -2, 0),
    DR(I32, 6, -3, -2, 0, -2, 0),
    DR(I64, 1, 5, 0, 1, 0, 1), DR(I64, -1, 5, 0, -1, -1, 4),
    DR(I64, 1, -5, 0, 1, -1, -4),
    DR(I8, -128, 3, -42, -2, -43, 1), DR(I8, 127, -10, -12, 7, -13, -3),
    DR(I64, -9000000000, 7, -1285714285, -5, -1285714286, 2),
    /* unsigned: values above the signed range stay positive */
    DR(U8, 200, 7, 28, 4, 28, 4), DR(U16, 65535, 256, 255, 255, 255, 255),
    DR(U32, 4000000000, 3, 1333333333, 1, 1333333333, 1),
    DR(U64, U64MAX, 10, 1844674407370955161, 5, 1844674407370955161, 5),
};

Test(scalar_prims, integer_division_tables)
{
    static const acc_primop ops[4] = {ACC_OP_QUOT, ACC_OP_REM, ACC_OP_DIV,
                                      ACC_OP_MOD};
    struct int_row rows[4 * sizeof div_rows / sizeof div_rows[0]];
    size_t n = 0;

    for (size_t i = 0; i < sizeof div_rows / sizeof div_rows[0]; i++) {
        const struct div_row *d = &div_rows[i];
        const int64_t want[4] = {d->q, d->r, d->d, d->m};
        for (size_t k = 0; k < 4; k++) {
            struct int_row r = {ops[k], d->t, d->a, d->b, want[k],
                                (acc_scalar)0, (acc_scalar)0};
            rows[n++] = r;
        }
    }
    run_int_rows(rows, n);
}

static const struct int_row bit_rows[] = {
    /* .&. */
    R2(BAND, I8, 0x0F, 0x3C, 0x0C), R2(BAND, I8, -1, 0x55, 0x55),
    R2(BAND, I16, -1, 0x1234, 0x1234), R2(BAND, I32, 0xF0F0, 0x0FF0, 0x00F0),
    R2(BAND, I64, -1, 0x123456789, 0x123456789),
    R2(BAND, U8, 0xF0, 0x3C, 0x30), R2(BAND, U16, 0xFF00, 0x0FF0, 0x0F00),
    R2(BAND, U32, 0xFFFF0000, 0x12345678, 0x12340000),
    R2(BAND, U64, U64MAX, U64TOP, U64TOP),
    /* .|. */
    R2(BOR, I8, 0x0F, 0x30, 0x3F), R2(BOR, I16, -32768, 1, -32767),
    R2(BOR, I32, 0x100, 0x001, 0x101), R2(BOR, I64, I64MIN, 1, I64MIN + 1),
    R2(BOR, U8, 0x80, 0x01, 0x81), R2(BOR, U16, 0xFF00, 0x00FF, 0xFFFF),
    R2(BOR, U32, 0x80000000, 1, 2147483649), R2(BOR, U64, 1, 2, 3),
    /* xor */
    R2(BXOR, I8, 0x55, -1, -86), R2(BXOR, I16, 0x1234, 0x1111, 805),
    R2(BXOR, I32, 12, 10, 6), R2(BXOR, I64, -1, 0, -1),
    R2(BXOR, U8, 0xFF, 0x0F, 0xF0), R2(BXOR, U16, 0xAAAA, 0x5555, 0xFFFF),
    R2(BXOR, U32, 0xFFFFFFFF, 1, 4294967294), R2(BXOR, U64, 5, 5, 0),
    /* complement */
    R1(COMPLEMENT, I8, 0, -1), R1(COMPLEMENT, I8, 0x0F, -16),
    R1(COMPLEMENT, U8, 0, 255), R1(COMPLEMENT, U8, 0x0F, 0xF0),
    R1(COMPLEMENT, I16, 0, -1), R1(COMPLEMENT, U16, 0x00FF, 0xFF00),
    R1(COMPLEMENT, I32, 5, -6), R1(COMPLEMENT, U32, 0, 4294967295),
    R1(COMPLEMENT, I64, -1, 0), R1(COMPLEMENT, U64, 0, U64MAX),
    /* shiftL */
    R2(SHIFTL, I32, 1, 4, 16), R2(SHIFTL, U8, 0x81, 1, 2),
    R2(SHIFTL, I8, 1, 7, -128), R2(SHIFTL, I16, 3, 14, -16384),
    R2(SHIFTL, I64, 1, 62, 4611686018427387904), R2(SHIFTL, U64, 1, 63, U64TOP),
    R2(SHIFTL, U16, 0xFFFF, 4, 0xFFF0), R2(SHIFTL, U32, 1, 31, 2147483648),
    R2(SHIFTL, I32, -1, 4, -16),
    /* shiftL by at least the width gives 0 */
    R2(SHIFTL, I32, 1, 32, 0), R2(SHIFTL, I32, 1, 40, 0),
    R2(SHIFTL, U8, 255, 8, 0), R2(SHIFTL, U8, 1, 200, 0),
    R2(SHIFTL, I8, 1, 8, 0), R2(SHIFTL, I64, -1, 64, 0),
    R2(SHIFTL, U64, 1, 64, 0), R2(SHIFTL, U16, 1, 16, 0),
    /* shiftR: arithmetic for signed types, logical for unsigned */
    R2(SHIFTR, I32, -16, 2, -4), R2(SHIFTR, I32, 16, 2, 4),
    R2(SHIFTR, I32, -1, 1, -1), R2(SHIFTR, I32, -7, 1, -4),
    R2(SHIFTR, U32, 0x80000000, 31, 1), R2(SHIFTR, I8, -128, 7, -1),
    R2(SHIFTR, U8, 0x80, 7, 1), R2(SHIFTR, U8, 0xF0, 4, 0x0F),
    R2(SHIFTR, I16, -32768, 15, -1), R2(SHIFTR, U16, 0x8000, 15, 1),
    R2(SHIFTR, I64, I64MIN, 63, -1), R2(SHIFTR, U64, U64TOP, 63, 1),
    R2(SHIFTR, U64, U64MAX, 60, 15),
    /* shiftR by at least the width: 0, or -1 for a negative signed value */
    R2(SHIFTR, I32, -16, 32, -1), R2(SHIFTR, I32, 16, 32, 0),
    R2(SHIFTR, I32, -16, 100, -1), R2(SHIFTR, U64, U64MAX, 64, 0),
    R2(SHIFTR, I64, -1, 100, -1), R2(SHIFTR, I64, 5, 64, 0),
    R2(SHIFTR, U8, 255, 8, 0), R2(SHIFTR, I8, -1, 8, -1),
    R2(SHIFTR, I8, 100, 8, 0), R2(SHIFTR, U32, 0xFFFFFFFF, 32, 0),
    /* the amount may have another integer type */
    RS(SHIFTL, I8, 3, I64, 2, 12), RS(SHIFTL, U64, 1, U8, 10, 1024),
    RS(SHIFTR, I32, -64, U16, 3, -8),
    RS(SHIFTL, I64, 1, I32, 40, 1099511627776),
    RS(SHIFTR, U16, 0x8000, I8, 15, 1),
    /* popCount (result i64) */
    RI(POPCOUNT, I8, -1, 8), RI(POPCOUNT, I8, 0, 0), RI(POPCOUNT, I8, 0x55, 4),
    RI(POPCOUNT, U8, 0xFF, 8), RI(POPCOUNT, U8, 0x81, 2),
    RI(POPCOUNT, I16, 0x7FFF, 15), RI(POPCOUNT, I16, -1, 16),
    RI(POPCOUNT, U16, 0xF0F0, 8), RI(POPCOUNT, I32, -1, 32),
    RI(POPCOUNT, I32, 0, 0), RI(POPCOUNT, I32, 0x01010101, 4),
    RI(POPCOUNT, U32, 0xFFFFFFFF, 32), RI(POPCOUNT, I64, -1, 64),
    RI(POPCOUNT, I64, I64MIN, 1), RI(POPCOUNT, U64, U64TOP + 1, 2),
    RI(POPCOUNT, U64, U64MAX, 64),
    /* countLeadingZeros (result i64; of 0 it is the width) */
    RI(CLZ, I8, 1, 7), RI(CLZ, I8, 0, 8), RI(CLZ, I8, -1, 0),
    RI(CLZ, I8, 0x40, 1), RI(CLZ, U8, 0x10, 3), RI(CLZ, U8, 0, 8),
    RI(CLZ, I16, 0, 16), RI(CLZ, I16, 1, 15), RI(CLZ, U16, 1, 15),
    RI(CLZ, U16, 0x8000, 0), RI(CLZ, I32, 1, 31), RI(CLZ, I32, 0, 32),
    RI(CLZ, I32, -1, 0), RI(CLZ, U32, 0x00010000, 15), RI(CLZ, I64, 1, 63),
    RI(CLZ, I64, 0, 64), RI(CLZ, I64, I64MIN, 0), RI(CLZ, U64, U64MAX, 0),
    RI(CLZ, U64, 0xFFFFFFFF, 32), RI(CLZ, U64, 0, 64),
};

Test(scalar_prims, integer_bitwise)
{
    RUN_ROWS(run_int_rows, bit_rows);
}

static const struct int_row cmp_rows[] = {
    RC(EQ, I32, 3, 3, 1), RC(EQ, I32, 3, 4, 0), RC(EQ, U8, 255, 255, 1),
    RC(EQ, I64, I64MIN, I64MAX, 0), RC(EQ, U64, U64MAX, U64MAX, 1),
    RC(EQ, I8, -1, -1, 1), RC(EQ, U16, 1, 2, 0),
    RC(NE, I32, 3, 4, 1), RC(NE, I32, 3, 3, 0), RC(NE, U16, 1, 1, 0),
    RC(NE, I64, -1, 1, 1), RC(NE, U32, 4000000000, 4000000000, 0),
    RC(LT, I8, -1, 1, 1), RC(LT, I8, 1, -1, 0), RC(LT, I8, 1, 1, 0),
    RC(LT, U8, 255, 1, 0), RC(LT, U8, 1, 255, 1),
    RC(LT, I16, -32768, 32767, 1), RC(LT, U16, 65535, 0, 0),
    RC(LT, I32, I32MIN, I32MAX, 1), RC(LT, U32, 0x80000000, 1, 0),
    RC(LT, I64, I64MIN, I64MAX, 1), RC(LT, U64, U64MAX, 0, 0),
    RC(LT, U64, 0, U64MAX, 1),
    RC(LE, I32, 2, 2, 1), RC(LE, I32, 3, 2, 0), RC(LE, U8, 200, 100, 0),
    RC(LE, I64, -5, -4, 1), RC(LE, U64, 5, 5, 1), RC(LE, I8, 0, -1, 0),
    RC(GT, U8, 255, 1, 1), RC(GT, I8, -1, 1, 0), RC(GT, I32, 5, 5, 0),
    RC(GT, U32, 4000000000, 1, 1), RC(GT, I64, 0, -1, 1),
    RC(GT, U64, U64MAX, 0, 1), RC(GT, I16, -1, 0, 0),
    RC(GE, I32, 5, 5, 1), RC(GE, I32, 4, 5, 0), RC(GE, U16, 65535, 1, 1),
    RC(GE, I8, -128, 127, 0), RC(GE, U64, 0, 1, 0), RC(GE, I64, 1, 1, 1),
};

Test(scalar_prims, integer_comparisons)
{
    RUN_ROWS(run_int_rows, cmp_rows);
}

static const struct int_row bool_rows[] = {
    R2(LAND, BOOL, 1, 1, 1), R2(LAND, BOOL, 1, 0, 0),
    R2(LAND, BOOL, 0, 1, 0), R2(LAND, BOOL, 0, 0, 0),
    R2(LOR, BOOL, 1, 1, 1), R2(LOR, BOOL, 1, 0, 1),
    R2(LOR, BOOL, 0, 1, 1), R2(LOR, BOOL, 0, 0, 0),
    R1(NOT, BOOL, 1, 0), R1(NOT, BOOL, 0, 1),
    R2(EQ, BOOL, 1, 1, 1), R2(EQ, BOOL, 1, 0, 0), R2(EQ, BOOL, 0, 0, 1),
    R2(NE, BOOL, 1, 0, 1), R2(NE, BOOL, 0, 0, 0),
    R2(LT, BOOL, 0, 1, 1), R2(LT, BOOL, 1, 0, 0), R2(LT, BOOL, 1, 1, 0),
    R2(LE, BOOL, 1, 1, 1), R2(LE, BOOL, 1, 0, 0),
    R2(GT, BOOL, 1, 0, 1), R2(GT, BOOL, 0, 1, 0),
    R2(GE, BOOL, 0, 1, 0), R2(GE, BOOL, 1, 1, 1),
};

Test(scalar_prims, bool_logic_and_comparisons)
{
    RUN_ROWS(run_int_rows, bool_rows);
}

/* ------------------------------------------------------------------------
 * Floating rows
 * ------------------------------------------------------------------------ */
enum fmode { APPROX = 0, EXACT = 1 /* bit for bit, sign of zero included */ };

struct float_row {
    acc_primop op;
    acc_scalar t;
    double a, b;
    double want;
    enum fmode mode;
    acc_scalar rt; /* 0: t; ACC_BOOL for predicates and comparisons */
};

#define F2(op, t, a, b, w) {ACC_OP_##op, ACC_##t, a, b, w, APPROX, (acc_scalar)0}
#define F1(op, t, a, w) {ACC_OP_##op, ACC_##t, a, 0, w, APPROX, (acc_scalar)0}
#define X2(op, t, a, b, w) {ACC_OP_##op, ACC_##t, a, b, w, EXACT, (acc_scalar)0}
#define X1(op, t, a, w) {ACC_OP_##op, ACC_##t, a, 0, w, EXACT, (acc_scalar)0}
#define B2(op, t, a, b, w) {ACC_OP_##op, ACC_##t, a, b, w, EXACT, ACC_BOOL}
#define B1(op, t, a, w) {ACC_OP_##op, ACC_##t, a, 0, w, EXACT, ACC_BOOL}

#define PI 3.14159265358979323846

/* Whether a float result matches: NaN wants NaN, infinities and EXACT rows
 * compare exactly (EXACT also compares the sign of zero), others within
 * 1e-6 (f64) or 1e-5 (f32), relative to the magnitude when above 1. */
static int float_matches(acc_scalar t, double got, double want,
                         enum fmode mode)
{
    double tol = t == ACC_F32 ? 1e-5 : 1e-6;
    double scale = absd(want) > 1 ? absd(want) : 1;

    if (isnan(want))
        return isnan(got);
    if (isnan(got))
        return 0;
    if (mode == EXACT || isinf(want))
        return got == want && !signbit(got) == !signbit(want);
    return absd(got - want) <= tol * scale;
}

static void run_float_rows(const struct float_row *rows, size_t n)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);

    for (size_t i = 0; i < n; i++) {
        const struct float_row *r = &rows[i];
        acc_scalar rt = r->rt ? r->rt : r->t;
        acc_graph *g = ts_graph(ctx);
        unsigned char buf[16] = {0};
        char row[160];
        acc_node *e;

        snprintf(row, sizeof row, "row %zu: %s %s(%.17g, %.17g)", i,
                 acc_primop_name(r->op), acc_scalar_name(r->t), r->a, r->b);
        if (is_unary(r->op))
            e = acc_unop(g, r->op, mk_float(g, r->t, r->a));
        else
            e = acc_binop(g, r->op, mk_float(g, r->t, r->a),
                          mk_float(g, r->t, r->b));
        if (eval_into(ctx, g, e, rt, buf, row)) {
            if (rt == ACC_BOOL) {
                int64_t got = load_int(rt, buf);
                cr_expect_eq(got, (int64_t)r->want, "%s: got %lld, want %g",
                             row, (long long)got, r->want);
            } else {
                double got = load_float(rt, buf);
                cr_expect(float_matches(rt, got, r->want, r->mode),
                          "%s: got %.17g, want %.17g", row, got, r->want);
            }
        }
        acc_graph_free(g);
    }
    acc_context_destroy(ctx);
}

static const struct float_row farith_rows[] = {
    X2(ADD, F64, 1.5, 2.25, 3.75), X2(ADD, F32, 1.5, 2.25, 3.75),
    F2(ADD, F64, 0.1, 0.2, 0.3), F2(ADD, F32, 0.1, 0.2, 0.3),
    X2(ADD, F64, INFINITY, 1, INFINITY), X2(ADD, F64, INFINITY, -INFINITY, NAN),
    X2(ADD, F64, 1e308, 1e308, INFINITY), X2(ADD, F32, 3e38, 3e38, INFINITY),
    X2(ADD, F32, 16777216.0, 1.0, 16777216.0),
    X2(ADD, F64, 9007199254740992.0, 1.0, 9007199254740992.0),
    X2(SUB, F64, 5.5, 2.25, 3.25), X2(SUB, F32, 5.5, 2.25, 3.25),
    X2(SUB, F64, 1, 1, 0.0), X2(SUB, F64, -0.0, 0.0, -0.0),
    X2(MUL, F64, 1.5, -4, -6), X2(MUL, F32, 1.5, -4, -6),
    F2(MUL, F64, 0.1, 3, 0.3), X2(MUL, F64, -0.0, 5, -0.0),
    X2(MUL, F64, INFINITY, 0, NAN), X2(MUL, F32, 1e20, 1e20, INFINITY),
    X2(FDIV, F64, 7, 2, 3.5), X2(FDIV, F32, 7, 2, 3.5),
    F2(FDIV, F64, 1, 3, 0.33333333333333331), F2(FDIV, F32, 1, 3, 0.33333334),
    X2(FDIV, F64, 1, 0, INFINITY), X2(FDIV, F64, -1, 0, -INFINITY),
    X2(FDIV, F32, 1, 0, INFINITY), X2(FDIV, F64, 0, 0, NAN),
    X2(FDIV, F64, 1, -0.0, -INFINITY),
    X1(NEG, F64, 2.5, -2.5), X1(NEG, F32, 2.5, -2.5), X1(NEG, F64, 0.0, -0.0),
    X1(NEG, F64, -INFINITY, INFINITY),
    X1(ABS, F64, -2.5, 2.5), X1(ABS, F32, -2.5, 2.5), X1(ABS, F64, 3.0, 3.0),
    X1(ABS, F64, -INFINITY, INFINITY),
    X1(SIGNUM, F64, -2.5, -1), X1(SIGNUM, F64, 0.0, 0.0),
    X1(SIGNUM, F64, 3.0, 1), X1(SIGNUM, F64, -INFINITY, -1),
    X1(SIGNUM, F64, INFINITY, 1), X1(SIGNUM, F64, 1e-300, 1),
    X1(SIGNUM, F32, -0.5, -1), X1(SIGNUM, F32, 0.0, 0.0), X1(SIGNUM, F32, 7, 1),
    /* min a b = if a <= b then a else b */
    X2(MIN, F64, 1, 2, 1), X2(MIN, F64, 2, 1, 1), X2(MIN, F32, 2, 1, 1),
    X2(MIN, F64, -0.0, 0.0, -0.0), X2(MIN, F64, 0.0, -0.0, 0.0),
    X2(MIN, F64, NAN, 1, 1), X2(MIN, F64, 1, NAN, NAN),
    X2(MIN, F32, NAN, 1, 1), X2(MIN, F32, 1, NAN, NAN),
    X2(MIN, F64, -INFINITY, 5, -INFINITY),
    /* max a b = if a <= b then b else a */
    X2(MAX, F64, 1, 2, 2), X2(MAX, F64, 2, 1, 2), X2(MAX, F32, 1, 2, 2),
    X2(MAX, F64, -0.0, 0.0, 0.0), X2(MAX, F64, 0.0, -0.0, -0.0),
    X2(MAX, F64, NAN, 1, NAN), X2(MAX, F64, 1, NAN, 1),
    X2(MAX, F32, NAN, 1, NAN), X2(MAX, F32, 1, NAN, 1),
};

Test(scalar_prims, float_arithmetic)
{
    RUN_ROWS(run_float_rows, farith_rows);
}

static const struct float_row fcmp_rows[] = {
    B2(EQ, F64, 1.5, 1.5, 1), B2(EQ, F64, NAN, NAN, 0), B2(EQ, F64, -0.0, 0.0, 1),
    B2(EQ, F32, 16777216.0, 16777217.0, 1), B2(EQ, F64, 1, 2, 0),
    B2(NE, F64, NAN, NAN, 1), B2(NE, F64, 1, 1, 0), B2(NE, F32, NAN, 1, 1),
    B2(NE, F32, 0.5, 0.25, 1),
    B2(LT, F64, NAN, 1, 0), B2(LT, F64, 1, NAN, 0),
    B2(LT, F64, -INFINITY, INFINITY, 1), B2(LT, F64, 1, 2, 1),
    B2(LT, F32, 2, 1, 0), B2(LT, F64, -0.0, 0.0, 0),
    B2(LE, F64, NAN, NAN, 0), B2(LE, F64, 2, 2, 1), B2(LE, F32, 3, 2, 0),
    B2(GT, F64, NAN, 1, 0), B2(GT, F64, 2, 1, 1), B2(GT, F32, 1, 2, 0),
    B2(GE, F64, NAN, 1, 0), B2(GE, F64, 1, 1, 1), B2(GE, F32, -1, 1, 0),
    B2(GE, F32, 1, NAN, 0),
};

Test(scalar_prims, float_comparisons)
{
    RUN_ROWS(run_float_rows, fcmp_rows);
}

static const struct float_row ffun_rows[] = {
    F1(SQRT, F64, 2, 1.4142135623730951), F1(SQRT, F32, 2, 1.4142135623730951),
    X1(SQRT, F64, 16, 4), X1(SQRT, F64, -1, NAN), X1(SQRT, F64, INFINITY, INFINITY),
    F1(EXP, F64, 1, 2.718281828459045), F1(EXP, F32, 1, 2.718281828459045),
    X1(EXP, F64, 0, 1), F1(EXP, F64, -1, 0.36787944117144233),
    F1(EXP, F64, 10, 22026.465794806718), X1(EXP, F64, -INFINITY, 0.0),
    F1(LOG, F64, 10, 2.302585092994046), F1(LOG, F32, 10, 2.302585092994046),
    X1(LOG, F64, 1, 0.0), X1(LOG, F64, 0, -INFINITY), X1(LOG, F64, -1, NAN),
    F1(LOG, F64, 2.718281828459045, 1),
    F1(SIN, F64, PI / 6, 0.5), F1(SIN, F64, 1, 0.8414709848078965),
    F1(SIN, F32, 1, 0.8414709848078965), X1(SIN, F64, 0, 0.0),
    F1(SIN, F64, -PI / 2, -1),
    F1(COS, F64, 0, 1), F1(COS, F64, 1, 0.5403023058681398),
    F1(COS, F32, PI / 3, 0.5), F1(COS, F64, PI, -1),
    F1(TAN, F64, PI / 4, 1), F1(TAN, F64, 1, 1.5574077246549023),
    F1(TAN, F32, 1, 1.5574077246549023), F1(TAN, F64, -PI / 4, -1),
    F1(ASIN, F64, 0.5, 0.5235987755982989), F1(ASIN, F64, 1, 1.5707963267948966),
    F1(ASIN, F32, -1, -1.5707963267948966), X1(ASIN, F64, 2, NAN),
    F1(ACOS, F64, 0.5, 1.0471975511965979), F1(ACOS, F64, -1, PI),
    F1(ACOS, F32, 0, 1.5707963267948966), X1(ACOS, F64, 1, 0.0),
    F1(ATAN, F64, 1, 0.7853981633974483), F1(ATAN, F64, -1, -0.7853981633974483),
    F1(ATAN, F32, 1, 0.7853981633974483), F1(ATAN, F64, INFINITY, PI / 2),
    F1(SINH, F64, 1, 1.1752011936438014), F1(SINH, F32, -1, -1.1752011936438014),
    X1(SINH, F64, 0, 0.0),
    F1(COSH, F64, 1, 1.5430806348152437), F1(COSH, F32, 1, 1.5430806348152437),
    X1(COSH, F64, 0, 1),
    F1(TANH, F64, 0.5, 0.46211715726000974), F1(TANH, F64, 1, 0.7615941559557649),
    F1(TANH, F32, -1, -0.7615941559557649), F1(TANH, F64, 50, 1),
    /* atan2 y x */
    F2(ATAN2, F64, 1, 1, 0.7853981633974483), F2(ATAN2, F64, 1, -1, 2.356194490192345),
    F2(ATAN2, F64, -1, -1, -2.356194490192345), F2(ATAN2, F64, 0, -1, PI),
    F2(ATAN2, F64, 1, 0, PI / 2), X2(ATAN2, F64, 0, 1, 0.0),
    F2(ATAN2, F32, 1, 0, PI / 2), F2(ATAN2, F32, -1, -1, -2.356194490192345),
    /* x ** y */
    F2(POW, F64, 2, 10, 1024), F2(POW, F64, 2, 0.5, 1.4142135623730951),
    F2(POW, F64, 9, 0.5, 3), F2(POW, F64, 10, -1, 0.1),
    F2(POW, F32, 2, 10, 1024), F2(POW, F32, 10, -1, 0.1),
    X2(POW, F64, 5, 0, 1), F2(POW, F64, 0.5, 2, 0.25),
    /* logBase b x = log x / log b */
    F2(LOGBASE, F64, 2, 1024, 10), F2(LOGBASE, F64, 1024, 2, 0.1),
    F2(LOGBASE, F64, 10, 1000, 3), F2(LOGBASE, F32, 2, 8, 3),
    F2(LOGBASE, F32, 10, 0.01, -2), F2(LOGBASE, F64, 3, 81, 4),
    /* predicates */
    B1(ISNAN, F64, NAN, 1), B1(ISNAN, F64, 1, 0), B1(ISNAN, F64, INFINITY, 0),
    B1(ISNAN, F64, -INFINITY, 0), B1(ISNAN, F32, NAN, 1), B1(ISNAN, F32, 0, 0),
    B1(ISINF, F64, INFINITY, 1), B1(ISINF, F64, -INFINITY, 1),
    B1(ISINF, F64, NAN, 0), B1(ISINF, F64, 1e300, 0), B1(ISINF, F64, 0, 0),
    B1(ISINF, F32, INFINITY, 1), B1(ISINF, F32, -INFINITY, 1),
    B1(ISINF, F32, 3e38, 0), B1(ISINF, F32, NAN, 0),
};

Test(scalar_prims, float_functions)
{
    RUN_ROWS(run_float_rows, ffun_rows);
}

/* ------------------------------------------------------------------------
 * truncate / round / floor / ceiling via acc_round_to
 * ------------------------------------------------------------------------ */
struct round_row {
    acc_primop op;
    acc_scalar from;
    double x;
    acc_scalar to;
    int64_t want;
};

static void run_round_rows(const struct round_row *rows, size_t n)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);

    for (size_t i = 0; i < n; i++) {
        const struct round_row *r = &rows[i];
        acc_graph *g = ts_graph(ctx);
        unsigned char buf[16] = {0};
        char row[160];
        acc_node *e;

        snprintf(row, sizeof row, "row %zu: %s %s %.17g -> %s", i,
                 acc_primop_name(r->op), acc_scalar_name(r->from), r->x,
                 acc_scalar_name(r->to));
        e = acc_round_to(g, r->op, mk_float(g, r->from, r->x), r->to);
        if (eval_into(ctx, g, e, r->to, buf, row)) {
            int64_t got = load_int(r->to, buf);
            cr_expect_eq(got, r->want, "%s: got %lld, want %lld", row,
                         (long long)got, (long long)r->want);
        }
        acc_graph_free(g);
    }
    acc_context_destroy(ctx);
}

/* Rows applied to every source in {f32, f64} and target in {i32, i64}. */
struct round_case {
    acc_primop op;
    double x;
    int64_t want;
};

#define RR(op, x, w) {ACC_OP_##op, x, w}

static const struct round_case round_cases[] = {
    /* round: halves to the even neighbour */
    RR(ROUND, -2.5, -2), RR(ROUND, 2.5, 2), RR(ROUND, 1.5, 2),
    RR(ROUND, 0.5, 0), RR(ROUND, -0.5, 0), RR(ROUND, 3.5, 4),
    RR(ROUND, -3.5, -4), RR(ROUND, -1.5, -2), RR(ROUND, 2.7, 3),
    RR(ROUND, -2.7, -3), RR(ROUND, 2.25, 2), RR(ROUND, -2.25, -2),
    RR(ROUND, 0.0, 0), RR(ROUND, 1000.5, 1000), RR(ROUND, 1001.5, 1002),
    /* truncate: toward zero */
    RR(TRUNCATE, 2.5, 2), RR(TRUNCATE, -2.5, -2), RR(TRUNCATE, 2.7, 2),
    RR(TRUNCATE, -2.7, -2), RR(TRUNCATE, -0.9, 0),
    /* floor */
    RR(FLOOR, 2.5, 2), RR(FLOOR, -2.5, -3), RR(FLOOR, 2.7, 2),
    RR(FLOOR, -2.7, -3), RR(FLOOR, -3.0, -3), RR(FLOOR, -0.1, -1),
    /* ceiling */
    RR(CEILING, 2.5, 3), RR(CEILING, -2.5, -2), RR(CEILING, 2.7, 3),
    RR(CEILING, -2.7, -2), RR(CEILING, 3.0, 3), RR(CEILING, 0.1, 1),
};

Test(scalar_prims, round_to_grid)
{
    static const acc_scalar froms[2] = {ACC_F32, ACC_F64};
    static const acc_scalar tos[2] = {ACC_I32, ACC_I64};
    enum { NC = sizeof round_cases / sizeof round_cases[0] };
    struct round_row rows[4 * NC];
    size_t n = 0;

    for (size_t f = 0; f < 2; f++)
        for (size_t t = 0; t < 2; t++)
            for (size_t i = 0; i < NC; i++) {
                struct round_row r = {round_cases[i].op, froms[f],
                                      round_cases[i].x, tos[t],
                                      round_cases[i].want};
                rows[n++] = r;
            }
    run_round_rows(rows, n);
}

#define RT(op, from, x, to, w) {ACC_OP_##op, ACC_##from, x, ACC_##to, w}

static const struct round_row round_edge_rows[] = {
    /* NaN gives 0 */
    RT(ROUND, F64, NAN, I32, 0), RT(TRUNCATE, F64, NAN, I64, 0),
    RT(FLOOR, F32, NAN, I32, 0), RT(CEILING, F32, NAN, I64, 0),
    RT(ROUND, F64, NAN, U8, 0), RT(TRUNCATE, F32, NAN, I8, 0),
    /* out of range saturates */
    RT(TRUNCATE, F64, 1e10, I32, I32MAX), RT(TRUNCATE, F64, -1e10, I32, I32MIN),
    RT(TRUNCATE, F32, 1e10, I32, I32MAX), RT(ROUND, F32, -1e10, I32, I32MIN),
    RT(TRUNCATE, F64, 1e19, I64, I64MAX), RT(TRUNCATE, F64, -1e19, I64, I64MIN),
    RT(FLOOR, F64, 9.3e18, I64, I64MAX), RT(CEILING, F32, -1e30, I64, I64MIN),
    RT(TRUNCATE, F64, INFINITY, I32, I32MAX), RT(ROUND, F64, -INFINITY, I64, I64MIN),
    RT(CEILING, F64, INFINITY, I64, I64MAX),
    RT(ROUND, F64, 127.5, I8, 127), RT(ROUND, F64, -128.5, I8, -128),
    RT(FLOOR, F64, -0.5, U8, 0), RT(CEILING, F64, 255.2, U8, 255),
    RT(ROUND, F64, 300.0, U8, 255), RT(TRUNCATE, F64, -5.0, U16, 0),
    RT(ROUND, F64, 2147483647.5, I32, I32MAX),
    RT(TRUNCATE, F64, 2147483647.9, I32, I32MAX),
    RT(TRUNCATE, F64, -2147483648.9, I32, I32MIN),
    RT(ROUND, F64, 4294967295.4, U32, 4294967295),
    /* in range near the edges, and where the naive floor(x + 0.5) fails */
    RT(TRUNCATE, F64, -128.9, I8, -128), RT(ROUND, F64, 254.5, U8, 254),
    RT(ROUND, F64, 4503599627370497.0, I64, 4503599627370497),
    RT(ROUND, F64, 0x1.fffffffffffffp-2, I64, 0), /* just below 0.5 */
    RT(ROUND, F64, -0x1.fffffffffffffp-2, I32, 0),
    RT(FLOOR, F64, -9007199254740991.0, I64, -9007199254740991),
};

Test(scalar_prims, round_to_nan_and_saturation)
{
    RUN_ROWS(run_round_rows, round_edge_rows);
}

/* ------------------------------------------------------------------------
 * Conversions (acc_convert)
 * ------------------------------------------------------------------------ */
struct conv_row {
    acc_scalar from;
    int64_t ia;  /* the source when `from` is an integer or bool */
    double fa;   /* the source when `from` is a float */
    acc_scalar to;
    int64_t iwant; /* when `to` is an integer or bool */
    double fwant;  /* when `to` is a float (compared exactly) */
};

#define CII(from, a, to, w) {ACC_##from, a, 0, ACC_##to, w, 0}
#define CIF(from, a, to, w) {ACC_##from, a, 0, ACC_##to, 0, w}
#define CFI(from, a, to, w) {ACC_##from, 0, a, ACC_##to, w, 0}
#define CFF(from, a, to, w) {ACC_##from, 0, a, ACC_##to, 0, w}

static const struct conv_row conv_rows[] = {
    /* integer to integer: wraps, sign- or zero-extends */
    CII(I64, -1, U8, 255), CII(I64, 70000, I16, 4464),
    CII(I64, -40000, I16, 25536), CII(U32, 4294967295, I32, -1),
    CII(U32, 3000000000, I32, -1294967296), CII(I8, -1, U64, U64MAX),
    CII(U8, 255, I8, -1), CII(I32, -1, U16, 65535), CII(I8, -100, I64, -100),
    CII(U16, 65535, I32, 65535), CII(I64, 4294967296 + 5, U32, 5),
    CII(U64, U64MAX, I64, -1), CII(I16, -2, U32, 4294967294),
    CII(I64, 300, U8, 44), CII(I32, 100, I32, 100),
    /* bool <-> numbers */
    CII(BOOL, 1, I32, 1), CII(BOOL, 0, I32, 0), CII(BOOL, 1, U64, 1),
    CII(BOOL, 1, I8, 1), CIF(BOOL, 1, F64, 1.0), CIF(BOOL, 0, F32, 0.0),
    CII(I32, 5, BOOL, 1), CII(I32, 0, BOOL, 0), CII(I32, -1, BOOL, 1),
    CII(U8, 0, BOOL, 0), CII(I64, 256, BOOL, 1), CII(U64, U64TOP, BOOL, 1),
    CFI(F64, 0.5, BOOL, 1), CFI(F64, 0.0, BOOL, 0), CFI(F64, -0.0, BOOL, 0),
    CFI(F32, -2.0, BOOL, 1), CFI(F64, NAN, BOOL, 1),
    /* int to float */
    CIF(I32, 7, F32, 7.0), CIF(I64, -3, F64, -3.0), CIF(U8, 200, F64, 200.0),
    CIF(I8, -128, F32, -128.0), CIF(U32, 4294967295, F64, 4294967295.0),
    CIF(U64, U64MAX, F64, 18446744073709551616.0),
    CIF(U64, U64MAX, F32, 18446744073709551616.0),
    CIF(I64, 16777217, F32, 16777216.0), CIF(I64, 16777219, F32, 16777220.0),
    CIF(I64, I64MIN, F64, -9223372036854775808.0),
    /* float to int: truncation toward zero, NaN 0, saturation */
    CFI(F32, -2.7, I32, -2), CFI(F32, 2.7, I32, 2), CFI(F64, 3.99, U8, 3),
    CFI(F64, -3.99, I64, -3), CFI(F64, 1e20, I64, I64MAX),
    CFI(F64, -1e20, I64, I64MIN), CFI(F64, NAN, I32, 0),
    CFI(F32, 300.0, U8, 255), CFI(F64, -1.0, U8, 0), CFI(F64, -0.5, U8, 0),
    CFI(F64, 1e10, I32, I32MAX), CFI(F64, 40000.5, I16, 32767),
    CFI(F64, 4000000000.7, U32, 4000000000), CFI(F64, 1e30, U64, U64MAX),
    /* float to float: f64 -> f32 rounds to nearest, ties to even */
    CFF(F64, 0.1, F32, 0.100000001490116119384765625),
    CFF(F64, 0x1.000001p0, F32, 1.0), /* 1 + 2^-24: tie, to even */
    CFF(F64, 0x1.000003p0, F32, 0x1.000004p0), /* tie, to even */
    CFF(F32, 0.1, F64, 0.100000001490116119384765625),
    CFF(F64, -2.5, F32, -2.5), CFF(F64, INFINITY, F32, INFINITY),
    CFF(F32, -INFINITY, F64, -INFINITY),
};

Test(scalar_prims, conversions)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    const size_t n = sizeof conv_rows / sizeof conv_rows[0];

    for (size_t i = 0; i < n; i++) {
        const struct conv_row *r = &conv_rows[i];
        acc_graph *g = ts_graph(ctx);
        unsigned char buf[16] = {0};
        char row[160];
        acc_node *src = is_float(r->from) ? mk_float(g, r->from, r->fa)
                                          : mk_int(g, r->from, r->ia);
        acc_node *e = acc_convert(g, src, r->to);

        if (is_float(r->from))
            snprintf(row, sizeof row, "row %zu: %s %.17g -> %s", i,
                     acc_scalar_name(r->from), r->fa, acc_scalar_name(r->to));
        else
            snprintf(row, sizeof row, "row %zu: %s %lld -> %s", i,
                     acc_scalar_name(r->from), (long long)r->ia,
                     acc_scalar_name(r->to));
        if (eval_into(ctx, g, e, r->to, buf, row)) {
            if (is_float(r->to)) {
                double got = load_float(r->to, buf);
                cr_expect(float_matches(r->to, got, r->fwant, EXACT),
                          "%s: got %.17g, want %.17g", row, got, r->fwant);
            } else {
                int64_t got = load_int(r->to, buf);
                cr_expect_eq(got, r->iwant, "%s: got %lld, want %lld", row,
                             (long long)got, (long long)r->iwant);
            }
        }
        acc_graph_free(g);
    }
    acc_context_destroy(ctx);
}

/* Constants are converted as by acc_convert. */
Test(scalar_prims, constants_wrap_like_convert)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    unsigned char buf[8] = {0};

    if (eval_into(ctx, g, acc_const_i64(g, ACC_U8, -1), ACC_U8, buf, "u8 -1"))
        cr_expect_eq(load_int(ACC_U8, buf), 255);
    ts_fresh_graph(ctx, &g);
    if (eval_into(ctx, g, acc_const_u64(g, ACC_I8, 200), ACC_I8, buf,
                  "i8 200"))
        cr_expect_eq(load_int(ACC_I8, buf), -56);
    ts_fresh_graph(ctx, &g);
    if (eval_into(ctx, g, acc_const_f64(g, ACC_I32, -2.9), ACC_I32, buf,
                  "i32 -2.9"))
        cr_expect_eq(load_int(ACC_I32, buf), -2);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* ------------------------------------------------------------------------
 * Division by zero, short-circuiting and conditionals
 * ------------------------------------------------------------------------ */

/* (1 `op` 0) of type t: a runtime error when evaluated. */
static acc_node *div_by_zero(acc_graph *g, acc_primop op, acc_scalar t)
{
    return acc_binop(g, op, mk_int(g, t, 1), mk_int(g, t, 0));
}

/* (1 quot 0 == 0) : bool */
static acc_node *bad_bool(acc_graph *g)
{
    return acc_binop(g, ACC_OP_EQ, div_by_zero(g, ACC_OP_QUOT, ACC_I32),
                     ts_i32(g, 0));
}

Test(scalar_prims, division_by_zero_is_runtime_error)
{
    static const acc_primop ops[4] = {ACC_OP_QUOT, ACC_OP_REM, ACC_OP_DIV,
                                      ACC_OP_MOD};
    static const acc_scalar types[5] = {ACC_I8, ACC_I32, ACC_I64, ACC_U8,
                                        ACC_U64};
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);

    for (size_t i = 0; i < 4; i++)
        for (size_t k = 0; k < 5; k++) {
            acc_graph *g = ts_graph(ctx);
            acc_node *e = div_by_zero(g, ops[i], types[k]);
            acc_status st;

            cr_expect_not_null(e, "%s %s: %s", acc_primop_name(ops[i]),
                               acc_scalar_name(types[k]),
                               acc_graph_last_error(g));
            st = eval_status(ctx, g, e, types[k]);
            cr_expect_eq(st, ACC_ERR_RUNTIME, "1 %s 0 (%s): status %s",
                         acc_primop_name(ops[i]), acc_scalar_name(types[k]),
                         acc_status_string(st));
            cr_expect(ts_contains_ci(acc_last_error(), "zero"),
                      "1 %s 0 (%s): message \"%s\" does not mention zero",
                      acc_primop_name(ops[i]), acc_scalar_name(types[k]),
                      acc_last_error());
            acc_graph_free(g);
        }
    acc_context_destroy(ctx);
}

/* Evaluates a bool expression built by `build`; returns the status and
 * stores the value in *out. */
static acc_status eval_bool(acc_context *ctx, acc_node *(*build)(acc_graph *),
                            int64_t *out)
{
    acc_graph *g = ts_graph(ctx);
    unsigned char buf[1] = {0xAA};
    acc_node *e = build(g);
    acc_status st;

    cr_expect_not_null(e, "builder: %s", acc_graph_last_error(g));
    st = ts_eval_scalar(ctx, g, e, buf, 1);
    *out = load_int(ACC_BOOL, buf);
    acc_graph_free(g);
    return st;
}

static acc_node *false_and_bad(acc_graph *g)
{
    return acc_binop(g, ACC_OP_LAND, ts_bool(g, 0), bad_bool(g));
}

static acc_node *true_or_bad(acc_graph *g)
{
    return acc_binop(g, ACC_OP_LOR, ts_bool(g, 1), bad_bool(g));
}

static acc_node *true_and_bad(acc_graph *g)
{
    return acc_binop(g, ACC_OP_LAND, ts_bool(g, 1), bad_bool(g));
}

static acc_node *false_or_bad(acc_graph *g)
{
    return acc_binop(g, ACC_OP_LOR, ts_bool(g, 0), bad_bool(g));
}

Test(scalar_prims, logic_short_circuits)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    int64_t v = -1;
    acc_status st;

    st = eval_bool(ctx, false_and_bad, &v);
    cr_expect_eq(st, ACC_OK, "false && (1 quot 0 == 0): %s: %s",
                 acc_status_string(st), acc_last_error());
    cr_expect_eq(v, 0, "false && ...: got %lld", (long long)v);

    st = eval_bool(ctx, true_or_bad, &v);
    cr_expect_eq(st, ACC_OK, "true || (1 quot 0 == 0): %s: %s",
                 acc_status_string(st), acc_last_error());
    cr_expect_eq(v, 1, "true || ...: got %lld", (long long)v);

    /* when the left operand does not decide, the right one is evaluated */
    st = eval_bool(ctx, true_and_bad, &v);
    cr_expect_eq(st, ACC_ERR_RUNTIME, "true && (1 quot 0 == 0): %s",
                 acc_status_string(st));
    cr_expect(ts_contains_ci(acc_last_error(), "zero"), "message: %s",
              acc_last_error());
    st = eval_bool(ctx, false_or_bad, &v);
    cr_expect_eq(st, ACC_ERR_RUNTIME, "false || (1 quot 0 == 0): %s",
                 acc_status_string(st));
    acc_context_destroy(ctx);
}

Test(scalar_prims, cond_evaluates_only_the_chosen_branch)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    unsigned char buf[8] = {0};
    acc_node *e;

    /* if true then 5 else 1 quot 0 */
    e = acc_cond(g, ts_bool(g, 1), ts_i32(g, 5),
                 div_by_zero(g, ACC_OP_QUOT, ACC_I32));
    if (eval_into(ctx, g, e, ACC_I32, buf, "if true then 5 else 1 quot 0"))
        cr_expect_eq(load_int(ACC_I32, buf), 5);

    /* if false then 1 quot 0 else 7 */
    ts_fresh_graph(ctx, &g);
    e = acc_cond(g, ts_bool(g, 0), div_by_zero(g, ACC_OP_QUOT, ACC_I32),
                 ts_i32(g, 7));
    if (eval_into(ctx, g, e, ACC_I32, buf, "if false then 1 quot 0 else 7"))
        cr_expect_eq(load_int(ACC_I32, buf), 7);

    /* the chosen branch is evaluated: if true then 1 quot 0 else 7 fails */
    ts_fresh_graph(ctx, &g);
    e = acc_cond(g, ts_bool(g, 1), div_by_zero(g, ACC_OP_QUOT, ACC_I32),
                 ts_i32(g, 7));
    cr_expect_eq(eval_status(ctx, g, e, ACC_I32), ACC_ERR_RUNTIME);

    /* a computed condition: if 2 > 3 then 10 else 20 (i64) */
    ts_fresh_graph(ctx, &g);
    e = acc_cond(g, acc_binop(g, ACC_OP_GT, ts_i64(g, 2), ts_i64(g, 3)),
                 ts_i64(g, 10), ts_i64(g, 20));
    if (eval_into(ctx, g, e, ACC_I64, buf, "if 2 > 3 then 10 else 20"))
        cr_expect_eq(load_int(ACC_I64, buf), 20);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* ------------------------------------------------------------------------
 * Tuples, indices and sharing
 * ------------------------------------------------------------------------ */

Test(scalar_prims, tuples_and_components)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    unsigned char buf[16] = {0};
    acc_node *items[3], *t, *inner[2], *nested[2], *n;

    items[0] = ts_i32(g, 1);
    items[1] = ts_f64(g, 2.5);
    items[2] = ts_bool(g, 1);
    t = acc_tuple(g, 3, items);
    cr_assert_not_null(t, "%s", acc_graph_last_error(g));
    cr_expect_eq(acc_type_get_kind(acc_node_type(t)), ACC_TYPE_TUPLE);
    cr_expect_eq(acc_type_get_arity(acc_node_type(t)), 3);
    if (eval_into(ctx, g, acc_get(g, t, 1), ACC_F64, buf, "get 1 (1,2.5,T)"))
        cr_expect(load_float(ACC_F64, buf) == 2.5);

    /* the tuple itself as the result: leaves packed i32, f64, bool */
    ts_fresh_graph(ctx, &g);
    items[0] = ts_i32(g, -9);
    items[1] = ts_f64(g, 0.75);
    items[2] = ts_bool(g, 1);
    t = acc_tuple(g, 3, items);
    {
        acc_status st = ts_eval_scalar(ctx, g, t, buf, 4 + 8 + 1);
        cr_expect_eq(st, ACC_OK, "tuple result: %s", acc_last_error());
        if (st == ACC_OK) {
            cr_expect_eq(load_int(ACC_I32, buf), -9);
            cr_expect(load_float(ACC_F64, buf + 4) == 0.75);
            cr_expect_eq(load_int(ACC_BOOL, buf + 12), 1);
        }
    }

    /* nested: get 1 (get 0 ((10, 20), 30)) == 20 */
    ts_fresh_graph(ctx, &g);
    inner[0] = ts_i64(g, 10);
    inner[1] = ts_i64(g, 20);
    nested[0] = acc_tuple(g, 2, inner);
    nested[1] = ts_i64(g, 30);
    t = acc_tuple(g, 2, nested);
    n = acc_get(g, acc_get(g, t, 0), 1);
    if (eval_into(ctx, g, n, ACC_I64, buf, "get 1 (get 0 ((10,20),30))"))
        cr_expect_eq(load_int(ACC_I64, buf), 20);

    ts_fresh_graph(ctx, &g);
    inner[0] = ts_i64(g, 10);
    inner[1] = ts_i64(g, 20);
    nested[0] = acc_tuple(g, 2, inner);
    nested[1] = ts_i64(g, 30);
    t = acc_tuple(g, 2, nested);
    if (eval_into(ctx, g, acc_get(g, t, 1), ACC_I64, buf, "get 1 (..., 30)"))
        cr_expect_eq(load_int(ACC_I64, buf), 30);

    /* a conditional choosing between tuples */
    ts_fresh_graph(ctx, &g);
    inner[0] = ts_i32(g, 1);
    inner[1] = ts_i32(g, 2);
    nested[0] = ts_i32(g, 3);
    nested[1] = ts_i32(g, 4);
    t = acc_cond(g, ts_bool(g, 0), acc_tuple(g, 2, inner),
                 acc_tuple(g, 2, nested));
    if (eval_into(ctx, g, acc_get(g, t, 1), ACC_I32, buf,
                  "get 1 (if false then (1,2) else (3,4))"))
        cr_expect_eq(load_int(ACC_I32, buf), 4);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(scalar_prims, indices_and_components)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    unsigned char buf[8] = {0};
    acc_node *comps[3], *ix, *sum;

    comps[0] = ts_i64(g, 4);
    comps[1] = ts_i64(g, 5);
    comps[2] = ts_i64(g, 6);
    ix = acc_index(g, 3, comps);
    cr_assert_not_null(ix, "%s", acc_graph_last_error(g));
    cr_expect_eq(acc_type_get_kind(acc_node_type(ix)), ACC_TYPE_SHAPE);
    cr_expect_eq(acc_type_get_rank(acc_node_type(ix)), 3);
    /* component 0 is the outermost: 4 * 100 + 6 */
    sum = acc_binop(g, ACC_OP_ADD,
                    acc_binop(g, ACC_OP_MUL, acc_get(g, ix, 0),
                              ts_i64(g, 100)),
                    acc_get(g, ix, 2));
    if (eval_into(ctx, g, sum, ACC_I64, buf, "ix!0 * 100 + ix!2"))
        cr_expect_eq(load_int(ACC_I64, buf), 406);

    ts_fresh_graph(ctx, &g);
    ix = acc_index(g, 0, NULL);
    cr_expect_not_null(ix, "rank-0 index: %s", acc_graph_last_error(g));
    cr_expect_eq(acc_type_get_kind(acc_node_type(ix)), ACC_TYPE_SHAPE);
    cr_expect_eq(acc_type_get_rank(acc_node_type(ix)), 0);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(scalar_prims, shared_node_used_twice)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    unsigned char buf[16] = {0};
    acc_node *x, *pair[2];

    /* let x = 3 + 4 in x * x */
    x = acc_binop(g, ACC_OP_ADD, ts_i32(g, 3), ts_i32(g, 4));
    if (eval_into(ctx, g, acc_binop(g, ACC_OP_MUL, x, x), ACC_I32, buf,
                  "let x = 3 + 4 in x * x"))
        cr_expect_eq(load_int(ACC_I32, buf), 49);

    /* let x = 2.5 * 2 in (x, x - 1) */
    ts_fresh_graph(ctx, &g);
    x = acc_binop(g, ACC_OP_MUL, ts_f64(g, 2.5), ts_f64(g, 2));
    pair[0] = x;
    pair[1] = acc_binop(g, ACC_OP_SUB, x, ts_f64(g, 1));
    {
        acc_status st = ts_eval_scalar(ctx, g, acc_tuple(g, 2, pair), buf, 16);
        cr_expect_eq(st, ACC_OK, "%s", acc_last_error());
        if (st == ACC_OK) {
            cr_expect(load_float(ACC_F64, buf) == 5.0);
            cr_expect(load_float(ACC_F64, buf + 8) == 4.0);
        }
    }
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* ------------------------------------------------------------------------
 * while and lambdas
 * ------------------------------------------------------------------------ */

/* A unary lambda over a fresh parameter of type `t`: body(g, p, env). */
typedef acc_node *(*body_fn)(acc_graph *g, acc_node *p, acc_node *env);

static acc_node *lam1(acc_graph *g, const acc_type *t, body_fn f,
                      acc_node *env)
{
    acc_node *p = acc_param(g, t);
    return acc_lambda(g, 1, &p, f(g, p, env));
}

static acc_node *tup2(acc_graph *g, acc_node *a, acc_node *b)
{
    acc_node *items[2] = {a, b};
    return acc_tuple(g, 2, items);
}

static acc_node *bin(acc_graph *g, acc_primop op, acc_node *a, acc_node *b)
{
    return acc_binop(g, op, a, b);
}

/* halvings: state (x : f64, n : i64); while x >= 1: (x / 2, n + 1) */
static acc_node *halve_cond(acc_graph *g, acc_node *s, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_GE, acc_get(g, s, 0), ts_f64(g, 1.0));
}

static acc_node *halve_body(acc_graph *g, acc_node *s, acc_node *env)
{
    (void)env;
    return tup2(g, bin(g, ACC_OP_FDIV, acc_get(g, s, 0), ts_f64(g, 2.0)),
                bin(g, ACC_OP_ADD, acc_get(g, s, 1), ts_i64(g, 1)));
}

/* Collatz: state (n : i64, steps : i64); while n /= 1 */
static acc_node *collatz_cond(acc_graph *g, acc_node *s, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_NE, acc_get(g, s, 0), ts_i64(g, 1));
}

static acc_node *collatz_body(acc_graph *g, acc_node *s, acc_node *env)
{
    acc_node *n = acc_get(g, s, 0);
    acc_node *even = bin(g, ACC_OP_EQ, bin(g, ACC_OP_REM, n, ts_i64(g, 2)),
                         ts_i64(g, 0));
    acc_node *next = acc_cond(
        g, even, bin(g, ACC_OP_QUOT, n, ts_i64(g, 2)),
        bin(g, ACC_OP_ADD, bin(g, ACC_OP_MUL, n, ts_i64(g, 3)), ts_i64(g, 1)));
    (void)env;
    return tup2(g, next, bin(g, ACC_OP_ADD, acc_get(g, s, 1), ts_i64(g, 1)));
}

/* Fibonacci: state ((a, b) : (i64, i64), k : i32); while k < 50 */
static acc_node *fib_cond(acc_graph *g, acc_node *s, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_LT, acc_get(g, s, 1), ts_i32(g, 50));
}

static acc_node *fib_body(acc_graph *g, acc_node *s, acc_node *env)
{
    acc_node *ab = acc_get(g, s, 0);
    acc_node *b = acc_get(g, ab, 1);
    (void)env;
    return tup2(g, tup2(g, b, bin(g, ACC_OP_ADD, acc_get(g, ab, 0), b)),
                bin(g, ACC_OP_ADD, acc_get(g, s, 1), ts_i32(g, 1)));
}

/* scalar state: while x < 1000: x * 2 */
static acc_node *dbl_cond(acc_graph *g, acc_node *x, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_LT, x, ts_i32(g, 1000));
}

static acc_node *dbl_body(acc_graph *g, acc_node *x, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_MUL, x, ts_i32(g, 2));
}

/* never true for the init below; the body would divide by zero */
static acc_node *neg_cond(acc_graph *g, acc_node *x, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_LT, x, ts_i32(g, 0));
}

static acc_node *bad_body(acc_graph *g, acc_node *x, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_QUOT, x, ts_i32(g, 0));
}

Test(scalar_prims, while_loops)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    const acc_type *i32 = acc_type_scalar(ACC_I32);
    const acc_type *f_i[2] = {f64, i64}, *i_i[2] = {i64, i64};
    const acc_type *st_half = acc_type_tuple(ctx, 2, f_i);
    const acc_type *st_coll = acc_type_tuple(ctx, 2, i_i);
    const acc_type *ab = st_coll, *fib_f[2] = {ab, i32};
    const acc_type *st_fib = acc_type_tuple(ctx, 2, fib_f);
    unsigned char buf[16] = {0};
    acc_graph *g;
    acc_node *w;

    cr_assert(st_half && st_coll && st_fib, "%s", acc_context_last_error(ctx));

    /* halvings of 1000 until < 1: 10 */
    g = ts_graph(ctx);
    w = acc_while(g, lam1(g, st_half, halve_cond, NULL),
                  lam1(g, st_half, halve_body, NULL),
                  tup2(g, ts_f64(g, 1000.0), ts_i64(g, 0)));
    if (eval_into(ctx, g, acc_get(g, w, 1), ACC_I64, buf, "halvings of 1000"))
        cr_expect_eq(load_int(ACC_I64, buf), 10);

    /* Collatz steps of 27: 111 */
    ts_fresh_graph(ctx, &g);
    w = acc_while(g, lam1(g, st_coll, collatz_cond, NULL),
                  lam1(g, st_coll, collatz_body, NULL),
                  tup2(g, ts_i64(g, 27), ts_i64(g, 0)));
    if (eval_into(ctx, g, acc_get(g, w, 1), ACC_I64, buf, "collatz 27"))
        cr_expect_eq(load_int(ACC_I64, buf), 111);

    /* Fibonacci with nested tuple state: fib 50 = 12586269025 */
    ts_fresh_graph(ctx, &g);
    w = acc_while(g, lam1(g, st_fib, fib_cond, NULL),
                  lam1(g, st_fib, fib_body, NULL),
                  tup2(g, tup2(g, ts_i64(g, 0), ts_i64(g, 1)), ts_i32(g, 0)));
    if (eval_into(ctx, g, acc_get(g, acc_get(g, w, 0), 0), ACC_I64, buf,
                  "fib 50"))
        cr_expect_eq(load_int(ACC_I64, buf), 12586269025);

    /* scalar state: 1 doubled while < 1000 is 1024 */
    ts_fresh_graph(ctx, &g);
    w = acc_while(g, lam1(g, i32, dbl_cond, NULL), lam1(g, i32, dbl_body, NULL),
                  ts_i32(g, 1));
    if (eval_into(ctx, g, w, ACC_I32, buf, "doubling"))
        cr_expect_eq(load_int(ACC_I32, buf), 1024);

    /* the condition is tested first: the body is never applied */
    ts_fresh_graph(ctx, &g);
    w = acc_while(g, lam1(g, i32, neg_cond, NULL), lam1(g, i32, bad_body, NULL),
                  ts_i32(g, 5));
    if (eval_into(ctx, g, w, ACC_I32, buf, "while false"))
        cr_expect_eq(load_int(ACC_I32, buf), 5);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* Nested lambdas: an inner loop refers to the outer loop's parameter.
 * state (i, acc); while i < 5: (i + 1, acc + (while j < i: j + 1) 0) */
static acc_node *outer_cond(acc_graph *g, acc_node *s, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_LT, acc_get(g, s, 0), ts_i64(g, 5));
}

static acc_node *inner_cond(acc_graph *g, acc_node *j, acc_node *outer)
{
    return bin(g, ACC_OP_LT, j, acc_get(g, outer, 0));
}

static acc_node *inner_body(acc_graph *g, acc_node *j, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_ADD, j, ts_i64(g, 1));
}

static acc_node *outer_body(acc_graph *g, acc_node *s, acc_node *env)
{
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    acc_node *inner = acc_while(g, lam1(g, i64, inner_cond, s),
                                lam1(g, i64, inner_body, NULL), ts_i64(g, 0));
    (void)env;
    return tup2(g, bin(g, ACC_OP_ADD, acc_get(g, s, 0), ts_i64(g, 1)),
                bin(g, ACC_OP_ADD, acc_get(g, s, 1), inner));
}

Test(scalar_prims, nested_lambdas_see_enclosing_parameters)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    const acc_type *i_i[2] = {acc_type_scalar(ACC_I64),
                              acc_type_scalar(ACC_I64)};
    const acc_type *st = acc_type_tuple(ctx, 2, i_i);
    acc_graph *g = ts_graph(ctx);
    unsigned char buf[8] = {0};
    acc_node *w;

    w = acc_while(g, lam1(g, st, outer_cond, NULL),
                  lam1(g, st, outer_body, NULL),
                  tup2(g, ts_i64(g, 0), ts_i64(g, 0)));
    if (eval_into(ctx, g, acc_get(g, w, 1), ACC_I64, buf, "0+1+2+3+4"))
        cr_expect_eq(load_int(ACC_I64, buf), 10);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* x * x + 1 */
static acc_node *square_plus_one(acc_graph *g, acc_node *x, acc_node *env)
{
    (void)env;
    return bin(g, ACC_OP_ADD, bin(g, ACC_OP_MUL, x, x), ts_i32(g, 1));
}

Test(scalar_prims, lambda_applied_by_map)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    const acc_type *i32 = acc_type_scalar(ACC_I32);
    acc_graph *g = ts_graph(ctx);
    int32_t xs[4] = {1, 2, 3, -4};
    void *data[1] = {xs};
    int64_t ext[1] = {4};
    acc_array in = ts_host_array(i32, 1, ext, data), out[1];
    acc_node *m = acc_map(g, lam1(g, i32, square_plus_one, NULL),
                          acc_input(g, i32, 1));
    acc_status st;

    cr_assert_not_null(m, "%s", acc_graph_last_error(g));
    st = ts_run(ctx, g, 1, &m, 1, &in, out);
    cr_assert_eq(st, ACC_OK, "%s: %s", acc_status_string(st), acc_last_error());
    cr_expect_eq(out[0].rank, 1);
    cr_expect_eq(out[0].extents[0], 4);
    if (out[0].rank == 1 && out[0].extents[0] == 4) {
        const int32_t *ys = out[0].data[0];
        cr_expect_eq(ys[0], 2);
        cr_expect_eq(ys[1], 5);
        cr_expect_eq(ys[2], 10);
        cr_expect_eq(ys[3], 17);
    }
    acc_array_release(&out[0]);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* ------------------------------------------------------------------------
 * Type errors: NULL from the builder, ACC_ERR_TYPE from acc_compile, a
 * message naming the operation, and a sticky graph.
 * ------------------------------------------------------------------------ */
struct type_err_row {
    acc_primop op;
    acc_scalar ta, tb; /* tb 0: unary */
    const char *names[3]; /* any one of these must appear in the message */
};

#define TE2(op, a, b, n0, n1, n2) {ACC_OP_##op, ACC_##a, ACC_##b, {n0, n1, n2}}
#define TE1(op, a, n0, n1, n2) {ACC_OP_##op, ACC_##a, (acc_scalar)0, {n0, n1, n2}}

static const struct type_err_row type_err_rows[] = {
    TE2(ADD, I32, F32, "add", "+", NULL),
    TE2(ADD, I32, I64, "add", "+", NULL),
    TE2(ADD, BOOL, BOOL, "add", "+", NULL),
    TE2(SUB, F64, F32, "sub", "-", NULL),
    TE2(FDIV, I32, I32, "fdiv", "/", NULL),
    TE2(QUOT, F64, F64, "quot", NULL, NULL),
    TE2(MOD, F32, F32, "mod", NULL, NULL),
    TE1(NOT, I32, "not", NULL, NULL),
    TE1(SQRT, I32, "sqrt", NULL, NULL),
    TE1(COMPLEMENT, F64, "complement", NULL, NULL),
    TE1(POPCOUNT, F32, "popcount", NULL, NULL),
    TE1(ISNAN, I64, "isnan", NULL, NULL),
    TE2(LAND, I32, I32, "&&", "and", NULL),
    TE2(BAND, F64, F64, ".&.", "band", "and"),
    TE2(EQ, I32, U32, "==", "eq", NULL),
    TE2(POW, I32, I32, "**", "pow", NULL),
    TE2(SHIFTL, F64, I32, "shiftl", NULL, NULL),
};

static acc_node *mk_any(acc_graph *g, acc_scalar t)
{
    return is_float(t) ? mk_float(g, t, 1.5) : mk_int(g, t, 1);
}

static int names_op(const char *msg, const char *const names[3])
{
    for (size_t k = 0; k < 3; k++)
        if (names[k] != NULL && ts_contains_ci(msg, names[k]))
            return 1;
    return 0;
}

Test(scalar_prims, type_errors)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    const size_t n = sizeof type_err_rows / sizeof type_err_rows[0];

    for (size_t i = 0; i < n; i++) {
        const struct type_err_row *r = &type_err_rows[i];
        acc_graph *g = ts_graph(ctx);
        acc_node *ok = acc_unit(g, ts_i32(g, 1));
        acc_node *pre = ts_i32(g, 2), *bad, *later;
        acc_program *prog = NULL;
        acc_status st;
        char row[96];

        snprintf(row, sizeof row, "row %zu: %s on %s%s%s", i,
                 acc_primop_name(r->op), acc_scalar_name(r->ta),
                 r->tb ? ", " : "", r->tb ? acc_scalar_name(r->tb) : "");
        cr_assert_not_null(ok, "%s: %s", row, acc_graph_last_error(g));
        if (r->tb)
            bad = acc_binop(g, r->op, mk_any(g, r->ta), mk_any(g, r->tb));
        else
            bad = acc_unop(g, r->op, mk_any(g, r->ta));
        cr_expect_null(bad, "%s: builder accepted it", row);
        cr_expect_eq(acc_graph_status(g), ACC_ERR_TYPE, "%s: graph status %s",
                     row, acc_status_string(acc_graph_status(g)));
        cr_expect(names_op(acc_graph_last_error(g), r->names),
                  "%s: graph message \"%s\" does not name the operation", row,
                  acc_graph_last_error(g));

        /* sticky: later valid calls fail too */
        later = ts_i32(g, 3);
        cr_expect_null(later, "%s: constant after the error", row);
        cr_expect_null(acc_unop(g, ACC_OP_NEG, pre), "%s: negate after", row);

        st = acc_compile(ctx, g, 1, &ok, &prog);
        cr_expect_eq(st, ACC_ERR_TYPE, "%s: compile status %s", row,
                     acc_status_string(st));
        cr_expect_null(prog, "%s: program set on failure", row);
        cr_expect(names_op(acc_last_error(), r->names),
                  "%s: compile message \"%s\" does not name the operation",
                  row, acc_last_error());
        acc_program_free(prog);
        acc_graph_free(g);
    }
    acc_context_destroy(ctx);
}

/* Other ill-typed scalar forms: each returns NULL, and acc_compile then
 * reports the same (non-OK) status the graph holds. */
static acc_node *bad_round_from_int(acc_graph *g)
{
    return acc_round_to(g, ACC_OP_ROUND, ts_i32(g, 1), ACC_I64);
}

static acc_node *bad_round_to_float(acc_graph *g)
{
    return acc_round_to(g, ACC_OP_FLOOR, ts_f64(g, 1.5), ACC_F32);
}

static acc_node *bad_cond_not_bool(acc_graph *g)
{
    return acc_cond(g, ts_i32(g, 1), ts_i32(g, 2), ts_i32(g, 3));
}

static acc_node *bad_cond_branches(acc_graph *g)
{
    return acc_cond(g, ts_bool(g, 1), ts_i32(g, 2), ts_i64(g, 3));
}

static acc_node *bad_get_range(acc_graph *g)
{
    acc_node *items[2] = {ts_i32(g, 1), ts_i32(g, 2)};
    return acc_get(g, acc_tuple(g, 2, items), 2);
}

static acc_node *bad_get_scalar(acc_graph *g)
{
    return acc_get(g, ts_i32(g, 1), 0);
}

static acc_node *bad_index_comp(acc_graph *g)
{
    acc_node *c[2] = {ts_i64(g, 1), ts_f64(g, 2)};
    return acc_index(g, 2, c);
}

static acc_node *bad_binop_unary(acc_graph *g)
{
    return acc_binop(g, ACC_OP_NOT, ts_bool(g, 1), ts_bool(g, 0));
}

static acc_node *bad_null_operand(acc_graph *g)
{
    return acc_binop(g, ACC_OP_ADD, NULL, ts_i32(g, 1));
}

Test(scalar_prims, other_builder_errors)
{
    static acc_node *(*const builds[])(acc_graph *) = {
        bad_round_from_int, bad_round_to_float, bad_cond_not_bool,
        bad_cond_branches,  bad_get_range,      bad_get_scalar,
        bad_index_comp,     bad_binop_unary,    bad_null_operand,
    };
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);

    for (size_t i = 0; i < sizeof builds / sizeof builds[0]; i++) {
        acc_graph *g = ts_graph(ctx);
        acc_node *ok = acc_unit(g, ts_i32(g, 1));
        acc_program *prog = NULL;
        acc_status gst, st;

        cr_expect_null(builds[i](g), "case %zu: builder accepted it", i);
        gst = acc_graph_status(g);
        cr_expect_neq(gst, ACC_OK, "case %zu: graph status OK", i);
        cr_expect_neq(acc_graph_last_error(g)[0], '\0',
                      "case %zu: empty message", i);
        cr_expect_null(ts_bool(g, 1), "case %zu: not sticky", i);
        st = acc_compile(ctx, g, 1, &ok, &prog);
        cr_expect_eq(st, gst, "case %zu: compile %s, graph %s", i,
                     acc_status_string(st), acc_status_string(gst));
        acc_program_free(prog);
        acc_graph_free(g);
    }
    acc_context_destroy(ctx);
}

Test(scalar_prims, primop_names_follow_the_text_syntax)
{
    cr_expect_str_eq(acc_primop_name(ACC_OP_QUOT), "quot");
    cr_expect_str_eq(acc_primop_name(ACC_OP_ADD), "+");
    cr_expect_str_eq(acc_primop_name(ACC_OP_FDIV), "/");
    cr_expect_str_eq(acc_primop_name(ACC_OP_NE), "/=");
    cr_expect_str_eq(acc_primop_name(ACC_OP_POW), "**");
    cr_expect_str_eq(acc_primop_name(ACC_OP_LOGBASE), "logBase");
    cr_expect_str_eq(acc_primop_name(ACC_OP_CLZ), "countLeadingZeros");
    cr_expect_str_eq(acc_primop_name(ACC_OP_POPCOUNT), "popCount");
    cr_expect_str_eq(acc_primop_name(ACC_OP_ISNAN), "isNaN");
    cr_expect_str_eq(acc_primop_name(ACC_OP_LAND), "&&");
}
