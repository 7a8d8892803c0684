/*
 * test_scalar_float.c — the floating primitives of LANGUAGE.md §2
 * (arithmetic, comparisons, elementary functions, predicates), rounding to
 * integers (acc_round_to) and conversions between every kind of scalar
 * (acc_convert, and constants converted alike) through the builder API.
 *
 * Each row builds one closed scalar expression from constants, evaluates
 * it with ts_eval_scalar and compares the result with a value worked out
 * by hand (never with the formula an implementation would use): floats
 * within 1e-6 (f64) or 1e-5 relative (f32), or bit for bit where the sign
 * of zero or NaN matters; integers exactly.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "scalar_support.h"
#include "support.h"

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

static double absd(double x)
{
    return x < 0 ? -x : x;
}

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
        if (sp_is_unary(r->op))
            e = acc_unop(g, r->op, sp_mk_float(g, r->t, r->a));
        else
            e = acc_binop(g, r->op, sp_mk_float(g, r->t, r->a),
                          sp_mk_float(g, r->t, r->b));
        if (sp_eval_into(ctx, g, e, rt, buf, row)) {
            if (rt == ACC_BOOL) {
                int64_t got = sp_load_int(rt, buf);
                cr_expect_eq(got, (int64_t)r->want, "%s: got %lld, want %g",
                             row, (long long)got, r->want);
            } else {
                double got = sp_load_float(rt, buf);
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
    SP_RUN_ROWS(run_float_rows, farith_rows);
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
    SP_RUN_ROWS(run_float_rows, fcmp_rows);
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
    SP_RUN_ROWS(run_float_rows, ffun_rows);
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
        e = acc_round_to(g, r->op, sp_mk_float(g, r->from, r->x), r->to);
        if (sp_eval_into(ctx, g, e, r->to, buf, row)) {
            int64_t got = sp_load_int(r->to, buf);
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
    SP_RUN_ROWS(run_round_rows, round_edge_rows);
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
        acc_node *src = sp_is_float(r->from) ? sp_mk_float(g, r->from, r->fa)
                                          : sp_mk_int(g, r->from, r->ia);
        acc_node *e = acc_convert(g, src, r->to);

        if (sp_is_float(r->from))
            snprintf(row, sizeof row, "row %zu: %s %.17g -> %s", i,
                     acc_scalar_name(r->from), r->fa, acc_scalar_name(r->to));
        else
            snprintf(row, sizeof row, "row %zu: %s %lld -> %s", i,
                     acc_scalar_name(r->from), (long long)r->ia,
                     acc_scalar_name(r->to));
        if (sp_eval_into(ctx, g, e, r->to, buf, row)) {
            if (sp_is_float(r->to)) {
                double got = sp_load_float(r->to, buf);
                cr_expect(float_matches(r->to, got, r->fwant, EXACT),
                          "%s: got %.17g, want %.17g", row, got, r->fwant);
            } else {
                int64_t got = sp_load_int(r->to, buf);
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

    if (sp_eval_into(ctx, g, acc_const_i64(g, ACC_U8, -1), ACC_U8, buf,
                     "u8 -1"))
        cr_expect_eq(sp_load_int(ACC_U8, buf), 255);
    ts_fresh_graph(ctx, &g);
    if (sp_eval_into(ctx, g, acc_const_u64(g, ACC_I8, 200), ACC_I8, buf,
                     "i8 200"))
        cr_expect_eq(sp_load_int(ACC_I8, buf), -56);
    ts_fresh_graph(ctx, &g);
    if (sp_eval_into(ctx, g, acc_const_f64(g, ACC_I32, -2.9), ACC_I32, buf,
                     "i32 -2.9"))
        cr_expect_eq(sp_load_int(ACC_I32, buf), -2);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}
