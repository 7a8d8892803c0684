/*
 * test_scalar_int.c — the integer and bool primitives of LANGUAGE.md §2
 * (arithmetic, quot/rem/div/mod, bitwise operations and shifts,
 * comparisons, logic) through the builder API.
 *
 * Each row of the tables builds one closed scalar expression from
 * constants, evaluates it with ts_eval_scalar (on the interpreter, or the
 * backend ACC_TEST_BACKEND names) and compares the result exactly with a
 * value worked out by hand (never with the formula an implementation
 * would use).
 */
#include <stdint.h>
#include <stdio.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "scalar_support.h"
#include "support.h"

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
        if (sp_is_unary(r->op))
            e = acc_unop(g, r->op, sp_mk_int(g, r->t, r->a));
        else
            e = acc_binop(g, r->op, sp_mk_int(g, r->t, r->a),
                          sp_mk_int(g, bt, r->b));
        if (sp_eval_into(ctx, g, e, rt, buf, row)) {
            int64_t got = sp_load_int(rt, buf);
            cr_expect_eq(got, r->want, "%s: got %lld (0x%llx), want %lld "
                         "(0x%llx)", row, (long long)got,
                         (unsigned long long)got, (long long)r->want,
                         (unsigned long long)r->want);
        }
        acc_graph_free(g);
    }
    acc_context_destroy(ctx);
}

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
    SP_RUN_ROWS(run_int_rows, arith_rows);
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
    SP_RUN_ROWS(run_int_rows, bit_rows);
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
    SP_RUN_ROWS(run_int_rows, cmp_rows);
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
    SP_RUN_ROWS(run_int_rows, bool_rows);
}
