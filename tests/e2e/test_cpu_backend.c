/*
 * test_cpu_backend.c — the CPU backend against the reference interpreter.
 *
 * Every program here is built twice (once per context: interp and cpu),
 * run on the same inputs, and the outputs compared: integers and bools
 * bit for bit, floats exactly (NaN equal to NaN) for arithmetic and
 * conversions, within 1 ulp for transcendental functions, and within a
 * relative tolerance for float reductions (which the CPU backend
 * reassociates, as fold's contract allows).  Then the kernel cache: disk
 * hits across contexts, a truncated cache file rebuilt, two threads
 * compiling in one context.  Every test skips when there is no working C
 * compiler (the CPU backend is then unavailable).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

TestSuite(cpu, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

/* ------------------------------------------------------------------------
 * Scalar primitives through a generate kernel
 * ------------------------------------------------------------------------ */

enum { N_VALUES = 13 };
static const int64_t int_values[N_VALUES] = {
    0, 1, -1, 2, -2, 7, -7, 100, INT64_MAX, INT64_MIN, 0x7f, -0x80, 0x7fffffff};
static const double float_values[N_VALUES] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 1e10, -3.75, 1e-3, 0.75,
    INFINITY, NAN};

/* One kernel: \ix -> let x = a ! ix; y = b ! ix in (op1 x y, op2 x y ..);
 * ops are binary or unary primops, or conversions (op < 0: to -op). */
typedef struct prim_case {
    acc_scalar t, bt; /* operand types (bt: the second operand) */
    int n_ops;
    int ops[16];
    acc_scalar to[16]; /* for rounding and conversions */
} prim_case;

static int is_unary(int op)
{
    switch (op) {
    case ACC_OP_NEG: case ACC_OP_ABS: case ACC_OP_SIGNUM:
    case ACC_OP_COMPLEMENT: case ACC_OP_POPCOUNT: case ACC_OP_CLZ:
    case ACC_OP_NOT: case ACC_OP_ISNAN: case ACC_OP_ISINF:
        return 1;
    default:
        return op >= ACC_OP_SQRT && op <= ACC_OP_TANH;
    }
}

static acc_node *build_prims(acc_graph *g, const void *arg)
{
    const prim_case *pc = arg;
    acc_node *a = acc_input(g, acc_type_scalar(pc->t), 1);
    acc_node *b = acc_input(g, acc_type_scalar(pc->bt), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *x = acc_read(g, a, ix), *y = acc_read(g, b, ix);
    acc_node *fields[16];
    for (int i = 0; i < pc->n_ops; i++) {
        int op = pc->ops[i];
        if (op < 0)
            fields[i] = acc_convert(g, x, pc->to[i]);
        else if (op >= ACC_OP_TRUNCATE && op <= ACC_OP_CEILING)
            fields[i] = acc_round_to(g, (acc_primop)op, x, pc->to[i]);
        else if (is_unary(op))
            fields[i] = acc_unop(g, (acc_primop)op, x);
        else
            fields[i] = acc_binop(g, (acc_primop)op, x, y);
    }
    acc_node *body = acc_tuple(g, (size_t)pc->n_ops, fields);
    return acc_generate(g, acc_shape(g, a), acc_lambda(g, 1, &ix, body));
}

/* Stores v converted to scalar type s (integers wrap) at buf[i]. */
static void put(void *buf, acc_scalar s, int64_t i, int64_t iv, double fv)
{
    switch (s) {
    case ACC_BOOL: ((uint8_t *)buf)[i] = iv != 0; break;
    case ACC_I8: ((int8_t *)buf)[i] = (int8_t)iv; break;
    case ACC_I16: ((int16_t *)buf)[i] = (int16_t)iv; break;
    case ACC_I32: ((int32_t *)buf)[i] = (int32_t)iv; break;
    case ACC_I64: ((int64_t *)buf)[i] = iv; break;
    case ACC_U8: ((uint8_t *)buf)[i] = (uint8_t)iv; break;
    case ACC_U16: ((uint16_t *)buf)[i] = (uint16_t)iv; break;
    case ACC_U32: ((uint32_t *)buf)[i] = (uint32_t)iv; break;
    case ACC_U64: ((uint64_t *)buf)[i] = (uint64_t)iv; break;
    case ACC_F32: ((float *)buf)[i] = (float)fv; break;
    default: ((double *)buf)[i] = fv; break;
    }
}

/* Inputs: every pair of interesting values; the second operand avoids
 * zero when `nonzero`, and is a shift amount 0..69 when `shift`. */
static void prim_inputs(const prim_case *pc, int nonzero, int shift,
                        void **bufs, acc_array *in)
{
    int64_t n = N_VALUES * N_VALUES;
    bufs[0] = calloc((size_t)n, 8);
    bufs[1] = calloc((size_t)n, 8);
    for (int64_t k = 0; k < n; k++) {
        int64_t i = k / N_VALUES, j = k % N_VALUES;
        put(bufs[0], pc->t, k, int_values[i], float_values[i]);
        int64_t bj = shift ? k % 70 : int_values[j];
        int bits = (int)acc_scalar_size(pc->bt) * 8;
        if (nonzero && (bits == 64 ? bj == 0 : ((uint64_t)bj << (64 - bits)) == 0))
            bj = 3; /* no divisor that wraps to zero */
        put(bufs[1], pc->bt, k, bj, nonzero && float_values[j] == 0 ? 3.0
                                                                    : float_values[j]);
    }
    in[0] = ts_host_array(acc_type_scalar(pc->t), 1, &n, &bufs[0]);
    in[1] = ts_host_array(acc_type_scalar(pc->bt), 1, &n, &bufs[1]);
}

static void check_prims(const prim_case *pc, int nonzero, int shift, int ulps)
{
    void *bufs[2];
    acc_array in[2];
    prim_inputs(pc, nonzero, shift, bufs, in);
    cr_assert_eq(ts_differ(build_prims, pc, 2, in, ulps, 0), ACC_OK);
    free(bufs[0]);
    free(bufs[1]);
}

static const acc_scalar int_types[] = {ACC_I8, ACC_I16, ACC_I32, ACC_I64,
                                       ACC_U8, ACC_U16, ACC_U32, ACC_U64};

Test(cpu, integer_arithmetic_and_comparisons)
{
    for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++) {
        prim_case pc = {int_types[i], int_types[i], 14,
                        {ACC_OP_ADD, ACC_OP_SUB, ACC_OP_MUL, ACC_OP_MIN,
                         ACC_OP_MAX, ACC_OP_BAND, ACC_OP_BOR, ACC_OP_BXOR,
                         ACC_OP_EQ, ACC_OP_NE, ACC_OP_LT, ACC_OP_LE, ACC_OP_GT,
                         ACC_OP_GE}, {0}};
        check_prims(&pc, 0, 0, 0);
    }
}

Test(cpu, integer_unary_and_conversions)
{
    static const acc_scalar all[] = {ACC_BOOL, ACC_I8, ACC_I32, ACC_I64,
                                     ACC_U8, ACC_U16, ACC_U32, ACC_U64,
                                     ACC_F32, ACC_F64};
    for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++) {
        prim_case pc = {int_types[i], int_types[i], 6,
                        {ACC_OP_NEG, ACC_OP_ABS, ACC_OP_SIGNUM,
                         ACC_OP_COMPLEMENT, ACC_OP_POPCOUNT, ACC_OP_CLZ},
                        {0}};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
            pc.ops[pc.n_ops] = -1;
            pc.to[pc.n_ops++] = all[k];
        }
        check_prims(&pc, 0, 0, 0);
    }
}

Test(cpu, integer_division)
{
    for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++) {
        prim_case pc = {int_types[i], int_types[i], 4,
                        {ACC_OP_QUOT, ACC_OP_REM, ACC_OP_DIV, ACC_OP_MOD},
                        {0}};
        check_prims(&pc, 1, 0, 0);
    }
}

Test(cpu, shifts)
{
    for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++) {
        prim_case pc = {int_types[i], i % 2 ? ACC_U8 : ACC_I32, 2,
                        {ACC_OP_SHIFTL, ACC_OP_SHIFTR}, {0}};
        check_prims(&pc, 0, 1, 0);
    }
}

Test(cpu, float_arithmetic_exact)
{
    for (acc_scalar t = ACC_F32; t <= ACC_F64; t++) {
        prim_case pc = {t, t, 16,
                        {ACC_OP_ADD, ACC_OP_SUB, ACC_OP_MUL, ACC_OP_FDIV,
                         ACC_OP_MIN, ACC_OP_MAX, ACC_OP_EQ, ACC_OP_NE,
                         ACC_OP_LT, ACC_OP_LE, ACC_OP_GT, ACC_OP_GE,
                         ACC_OP_NEG, ACC_OP_ABS, ACC_OP_SIGNUM, ACC_OP_SQRT},
                        {0}};
        check_prims(&pc, 0, 0, 0);
    }
}

Test(cpu, float_transcendental_within_one_ulp)
{
    for (acc_scalar t = ACC_F32; t <= ACC_F64; t++) {
        prim_case pc = {t, t, 16,
                        {ACC_OP_EXP, ACC_OP_LOG, ACC_OP_SIN, ACC_OP_COS,
                         ACC_OP_TAN, ACC_OP_ASIN, ACC_OP_ACOS, ACC_OP_ATAN,
                         ACC_OP_SINH, ACC_OP_COSH, ACC_OP_TANH, ACC_OP_ATAN2,
                         ACC_OP_POW, ACC_OP_LOGBASE, ACC_OP_ISNAN,
                         ACC_OP_ISINF}, {0}};
        check_prims(&pc, 0, 0, 1);
    }
}

Test(cpu, float_rounding_and_conversions_exact)
{
    static const acc_scalar to[] = {ACC_I32, ACC_I64, ACC_U8, ACC_U64};
    for (acc_scalar t = ACC_F32; t <= ACC_F64; t++) {
        prim_case pc = {t, t, 0, {0}, {0}};
        for (size_t k = 0; k < 4; k++)
            for (int op = ACC_OP_TRUNCATE; op <= ACC_OP_CEILING; op++) {
                pc.ops[pc.n_ops] = op;
                pc.to[pc.n_ops++] = to[k];
            }
        check_prims(&pc, 0, 0, 0);
        prim_case conv = {t, t, 5, {-1, -1, -1, -1, -1},
                          {ACC_BOOL, ACC_F32, ACC_F64, ACC_I8, ACC_U32}};
        check_prims(&conv, 0, 0, 0);
    }
}

/* ------------------------------------------------------------------------
 * Control flow in kernels: if, short-circuit, while, tuples, lets
 * ------------------------------------------------------------------------ */

/* generate [n] (\[i] -> let (a, b, k) = while (\(a, b, k) -> k < i && a < 1000)
 *                                       (\(a, b, k) -> (b, a + b, k + 1)) (0, 1, 0)
 *                       in if i > 3 || quot 10 (i - 100) > 0 then (a, k) else (b, -k)) */
static acc_node *build_control(acc_graph *g, const void *arg)
{
    (void)arg;
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *i = acc_get(g, ix, 0);
    acc_node *n = acc_input(g, i64, 0);
    acc_node *s1 = acc_param(g, acc_node_type(acc_tuple(g, 3, (acc_node *[]){
                                  ts_i64(g, 0), ts_i64(g, 1), ts_i64(g, 0)})));
    acc_node *cond = acc_binop(g, ACC_OP_LAND,
                               acc_binop(g, ACC_OP_LT, acc_get(g, s1, 2), i),
                               acc_binop(g, ACC_OP_LT, acc_get(g, s1, 0),
                                         ts_i64(g, 1000)));
    acc_node *s2 = acc_param(g, acc_node_type(s1));
    acc_node *next = acc_tuple(g, 3, (acc_node *[]){
        acc_get(g, s2, 1),
        acc_binop(g, ACC_OP_ADD, acc_get(g, s2, 0), acc_get(g, s2, 1)),
        acc_binop(g, ACC_OP_ADD, acc_get(g, s2, 2), ts_i64(g, 1))});
    acc_node *init = acc_tuple(g, 3, (acc_node *[]){ts_i64(g, 0), ts_i64(g, 1),
                                                     ts_i64(g, 0)});
    acc_node *w = acc_while(g, acc_lambda(g, 1, &s1, cond),
                            acc_lambda(g, 1, &s2, next), init);
    acc_node *c = acc_binop(g, ACC_OP_LOR, acc_binop(g, ACC_OP_GT, i, ts_i64(g, 3)),
                            acc_binop(g, ACC_OP_GT,
                                      acc_binop(g, ACC_OP_QUOT, ts_i64(g, 10),
                                                acc_binop(g, ACC_OP_SUB, i,
                                                          ts_i64(g, 100))),
                                      ts_i64(g, 0)));
    acc_node *k = acc_get(g, w, 2);
    acc_node *body = acc_cond(g, c, acc_tuple(g, 2, (acc_node *[]){acc_get(g, w, 0), k}),
                              acc_tuple(g, 2, (acc_node *[]){acc_get(g, w, 1),
                                                             acc_unop(g, ACC_OP_NEG, k)}));
    acc_node *sh = acc_index(g, 1, (acc_node *[]){acc_the(g, n)});
    return acc_generate(g, sh, acc_lambda(g, 1, &ix, body));
}

Test(cpu, control_flow)
{
    int64_t n = 300;
    void *d[1] = {&n};
    acc_array in = ts_host_array(acc_type_scalar(ACC_I64), 0, NULL, d);
    cr_assert_eq(ts_differ(build_control, NULL, 1, &in, 0, 0), ACC_OK);
}

/* ------------------------------------------------------------------------
 * Runtime errors become ACC_ERR_RUNTIME with the interpreter's message
 * ------------------------------------------------------------------------ */

typedef struct err_case { int kind; } err_case;

static acc_node *build_error(acc_graph *g, const void *arg)
{
    const err_case *ec = arg;
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I32), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *x = acc_read(g, xs, ix), *body;
    if (ec->kind == 0) /* 100 / x: x is 0 at position 500 */
        body = acc_binop(g, ACC_OP_QUOT, ts_i32(g, 100), x);
    else if (ec->kind == 1) /* xs ! [i + 1]: out of bounds at the end */
        body = acc_read(g, xs, acc_index(g, 1, (acc_node *[]){
                  acc_binop(g, ACC_OP_ADD, acc_get(g, ix, 0), ts_i64(g, 1))}));
    else /* shiftL 1 (x - 1000) */
        body = acc_binop(g, ACC_OP_SHIFTL, ts_i32(g, 1),
                         acc_binop(g, ACC_OP_SUB, x, ts_i32(g, 1000)));
    return acc_generate(g, acc_shape(g, xs), acc_lambda(g, 1, &ix, body));
}

Test(cpu, runtime_errors)
{
    int64_t n = 20000;
    int32_t *xs = malloc((size_t)n * sizeof *xs);
    for (int64_t i = 0; i < n; i++)
        xs[i] = i == 500 ? 0 : 1000 + (int32_t)(i % 30);
    void *d[1] = {xs};
    acc_array in = ts_host_array(acc_type_scalar(ACC_I32), 1, &n, d);
    for (int kind = 0; kind < 3; kind++) {
        err_case ec = {kind};
        cr_expect_eq(ts_differ(build_error, &ec, 1, &in, 0, 0), ACC_ERR_RUNTIME,
                     "case %d", kind);
    }
    free(xs);
}

/* ------------------------------------------------------------------------
 * Folds
 * ------------------------------------------------------------------------ */

typedef struct fold_case {
    int rank;
    int64_t ext[3];
    int seeded, embedded, mapped, tuple, noncommutative;
} fold_case;

/* The element at ix of the folded array: from the input xs (i64), or
 * computed from ix and xs (embedded). */
static acc_node *fold_elem(acc_graph *g, const fold_case *fc, acc_node *xs,
                           acc_node *ix)
{
    acc_node *x = acc_read(g, xs, ix);
    if (fc->embedded)
        x = acc_binop(g, ACC_OP_SUB, acc_binop(g, ACC_OP_MUL, x, ts_i64(g, 3)),
                      acc_get(g, ix, (size_t)fc->rank - 1));
    if (fc->noncommutative)
        return acc_tuple(g, 4, (acc_node *[]){
            ts_i64(g, 1), acc_binop(g, ACC_OP_REM, x, ts_i64(g, 5)),
            acc_binop(g, ACC_OP_REM, x, ts_i64(g, 3)), ts_i64(g, 1)});
    if (fc->tuple)
        return acc_tuple(g, 2, (acc_node *[]){x, acc_convert(g, x, ACC_F64)});
    return x;
}

static acc_node *build_fold(acc_graph *g, const void *arg)
{
    const fold_case *fc = arg;
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), fc->rank);
    acc_node *ix = acc_param(g, acc_type_shape(fc->rank));
    acc_node *e = fold_elem(g, fc, xs, ix);
    acc_node *arr = fc->embedded || fc->tuple || fc->noncommutative
                        ? acc_generate(g, acc_shape(g, xs),
                                       acc_lambda(g, 1, &ix, e))
                        : xs;
    const acc_type *elem = acc_node_type(e);
    ts_red_elem k = fc->noncommutative ? TS_RED_MATRIX
                  : fc->tuple ? TS_RED_TUPLE : TS_RED_I64;
    acc_node *f = ts_red_combiner(g, k, elem);
    acc_node *z = ts_red_start(g, k);
    acc_node *r = fc->seeded ? acc_fold(g, f, z, arr) : acc_fold1(g, f, arr);
    if (fc->mapped && !fc->tuple && !fc->noncommutative) {
        acc_node *v = acc_param(g, acc_type_scalar(ACC_I64));
        r = acc_map(g, acc_lambda(g, 1, &v, acc_convert(g, acc_binop(g,
                    ACC_OP_MUL, v, ts_i64(g, 2)), ACC_F64)), r);
    }
    return r;
}

static acc_status check_fold(const fold_case *fc)
{
    int64_t n = 1;
    for (int d = 0; d < fc->rank; d++)
        n *= fc->ext[d];
    int64_t *xs = malloc((size_t)(n ? n : 1) * sizeof *xs);
    for (int64_t i = 0; i < n; i++)
        xs[i] = (i * 7919) % 1000 - 300;
    void *d[1] = {xs};
    acc_array in = ts_host_array(acc_type_scalar(ACC_I64), fc->rank, fc->ext, d);
    acc_status st = ts_differ(build_fold, fc, 1, &in, 0, 0);
    free(xs);
    return st;
}

Test(cpu, fold_ranks_1_to_3)
{
    static const int64_t shapes[3][3] = {{1000, 0, 0}, {5, 10, 0}, {3, 4, 70000}};
    for (int rank = 1; rank <= 3; rank++)
        for (int seeded = 0; seeded <= 1; seeded++) {
            fold_case fc = {rank, {shapes[rank - 1][0], shapes[rank - 1][1],
                                   shapes[rank - 1][2]}, seeded, 0, 0, 0, 0};
            cr_expect_eq(check_fold(&fc), ACC_OK, "rank %d", rank);
        }
}

Test(cpu, fold_embedded_mapped_tuples)
{
    fold_case cases[] = {
        {1, {100000, 0, 0}, 1, 1, 0, 0, 0}, /* one long row: partials */
        {2, {7, 33, 0}, 1, 1, 1, 0, 0},     /* map after fold */
        {2, {3, 50000, 0}, 0, 1, 1, 0, 0},
        {2, {20, 15, 0}, 1, 0, 0, 1, 0},    /* tuple elements */
        {1, {100000, 0, 0}, 1, 0, 0, 0, 1}, /* non-commutative, partials */
        {2, {9, 1000, 0}, 0, 0, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(check_fold(&cases[i]), ACC_OK, "case %zu", i);
}

Test(cpu, fold_empty_rows)
{
    fold_case seeded = {2, {4, 0, 0}, 1, 0, 0, 0, 0};
    cr_expect_eq(check_fold(&seeded), ACC_OK);
    fold_case none = {2, {0, 5, 0}, 0, 1, 0, 0, 0};
    cr_expect_eq(check_fold(&none), ACC_OK);
    fold_case fold1 = {2, {4, 0, 0}, 0, 0, 0, 0, 0};
    cr_expect_eq(check_fold(&fold1), ACC_ERR_RUNTIME);
}

/* ------------------------------------------------------------------------
 * The dot product (fold of an embedded zipWith), against a double sum
 * ------------------------------------------------------------------------ */

static acc_node *build_dotp(acc_graph *g, const void *arg)
{
    (void)arg;
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    acc_node *xs = acc_input(g, f32, 1), *ys = acc_input(g, f32, 1);
    acc_node *a = acc_param(g, f32), *b = acc_param(g, f32);
    acc_node *mul = acc_lambda(g, 2, (acc_node *[]){a, b},
                               acc_binop(g, ACC_OP_MUL, a, b));
    return acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD), ts_f32(g, 0),
                    acc_zipwith(g, mul, 2, (acc_node *[]){xs, ys}));
}

Test(cpu, dot_product)
{
    static const int64_t sizes[] = {0, 1, 1000, 1000000};
    for (size_t k = 0; k < 4; k++) {
        int64_t n = sizes[k];
        float *x = malloc((size_t)(n + 1) * sizeof *x);
        float *y = malloc((size_t)(n + 1) * sizeof *y);
        for (int64_t i = 0; i < n; i++) {
            x[i] = (float)((i % 200) - 100) / 100.0f;
            y[i] = (float)(i % 17) / 8.0f;
        }
        void *dx[1] = {x}, *dy[1] = {y};
        acc_array in[2] = {ts_host_array(acc_type_scalar(ACC_F32), 1, &n, dx),
                           ts_host_array(acc_type_scalar(ACC_F32), 1, &n, dy)};
        cr_expect_eq(ts_differ(build_dotp, NULL, 2, in, 0, 1e-5), ACC_OK);
        free(x);
        free(y);
    }
}

/* ------------------------------------------------------------------------
 * The kernel cache
 * ------------------------------------------------------------------------ */

/* Compiles the dot product in ctx, checks one run, and returns the JSON
 * plan (to be freed with acc_free). */
static char *compile_dotp(acc_context *ctx)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *r = build_dotp(g, NULL);
    acc_program *p = NULL;
    cr_assert_eq(acc_compile(ctx, g, 1, &r, &p), ACC_OK, "%s",
                 acc_last_error());
    float x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
    int64_t n = 3;
    void *dx[1] = {x}, *dy[1] = {y};
    acc_array in[2] = {ts_host_array(acc_type_scalar(ACC_F32), 1, &n, dx),
                       ts_host_array(acc_type_scalar(ACC_F32), 1, &n, dy)};
    acc_array out;
    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    cr_assert_eq(acc_run(p, 2, in, 1, &out), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(*(float *)out.data[0], 32.0f);
    acc_array_release(&out);
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    acc_program_free(p);
    acc_graph_free(g);
    return json;
}

static void expect_json(const char *json, const char *what)
{
    cr_expect(strstr(json, what) != NULL, "expected %s in %s", what, json);
}

Test(cpu, cache_disk_hit_in_a_new_context)
{
    acc_context *c1 = ts_cpu_context();
    char *j1 = compile_dotp(c1);
    expect_json(j1, "\"compiled\":1");
    acc_free(j1);
    j1 = compile_dotp(c1); /* same context: from memory */
    expect_json(j1, "\"memory_hits\":1");
    acc_free(j1);
    acc_context_destroy(c1);
    acc_context *c2 = ts_cpu_context();
    char *j2 = compile_dotp(c2);
    expect_json(j2, "\"disk_hits\":1");
    expect_json(j2, "\"compiled\":0");
    acc_free(j2);
    acc_context_destroy(c2);
}

Test(cpu, cache_truncated_file_is_rebuilt)
{
    acc_context *c1 = ts_cpu_context();
    acc_free(compile_dotp(c1));
    acc_context_destroy(c1);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "for f in '%s'/*.so; do truncate -s 200 \"$f\"; "
             "done", ts_cpu_cache_dir);
    cr_assert_eq(system(cmd), 0);
    acc_context *c2 = ts_cpu_context();
    char *j = compile_dotp(c2);
    expect_json(j, "\"compiled\":1");
    expect_json(j, "\"disk_hits\":0");
    acc_free(j);
    acc_context_destroy(c2);
    /* and the rebuilt file is good for the next context */
    acc_context *c3 = ts_cpu_context();
    j = compile_dotp(c3);
    expect_json(j, "\"disk_hits\":1");
    acc_free(j);
    acc_context_destroy(c3);
}

static void *compile_thread(void *ctx)
{
    return compile_dotp(ctx);
}

Test(cpu, compile_from_two_threads)
{
    acc_context *ctx = ts_cpu_context();
    pthread_t t[2];
    void *json[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, compile_thread, ctx), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], &json[i]);
    int compiled = (strstr(json[0], "\"compiled\":1") != NULL) +
                   (strstr(json[1], "\"compiled\":1") != NULL);
    int hits = (strstr(json[0], "\"memory_hits\":1") != NULL) +
               (strstr(json[1], "\"memory_hits\":1") != NULL);
    cr_expect_eq(compiled, 1, "%s / %s", (char *)json[0], (char *)json[1]);
    cr_expect_eq(hits, 1);
    acc_free(json[0]);
    acc_free(json[1]);
    acc_context_destroy(ctx);
}
