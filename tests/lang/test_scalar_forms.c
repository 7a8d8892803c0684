/*
 * test_scalar_forms.c — the non-primitive scalar forms of LANGUAGE.md §2
 * through the builder API: division by zero as a runtime error,
 * short-circuiting && and ||, if (only the chosen branch is evaluated),
 * tuples and their components, indices, a node shared by two uses, while
 * loops and lambdas (nested ones seeing the enclosing parameter, one
 * applied by map).  Results are compared with values worked out by hand.
 */
#include <stdint.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "scalar_support.h"
#include "support.h"

/* ------------------------------------------------------------------------
 * Division by zero, short-circuiting and conditionals
 * ------------------------------------------------------------------------ */

/* (1 `op` 0) of type t: a runtime error when evaluated. */
static acc_node *div_by_zero(acc_graph *g, acc_primop op, acc_scalar t)
{
    return acc_binop(g, op, sp_mk_int(g, t, 1), sp_mk_int(g, t, 0));
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
            st = sp_eval_status(ctx, g, e, types[k]);
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
    *out = sp_load_int(ACC_BOOL, buf);
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
    if (sp_eval_into(ctx, g, e, ACC_I32, buf, "if true then 5 else 1 quot 0"))
        cr_expect_eq(sp_load_int(ACC_I32, buf), 5);

    /* if false then 1 quot 0 else 7 */
    ts_fresh_graph(ctx, &g);
    e = acc_cond(g, ts_bool(g, 0), div_by_zero(g, ACC_OP_QUOT, ACC_I32),
                 ts_i32(g, 7));
    if (sp_eval_into(ctx, g, e, ACC_I32, buf, "if false then 1 quot 0 else 7"))
        cr_expect_eq(sp_load_int(ACC_I32, buf), 7);

    /* the chosen branch is evaluated: if true then 1 quot 0 else 7 fails */
    ts_fresh_graph(ctx, &g);
    e = acc_cond(g, ts_bool(g, 1), div_by_zero(g, ACC_OP_QUOT, ACC_I32),
                 ts_i32(g, 7));
    cr_expect_eq(sp_eval_status(ctx, g, e, ACC_I32), ACC_ERR_RUNTIME);

    /* a computed condition: if 2 > 3 then 10 else 20 (i64) */
    ts_fresh_graph(ctx, &g);
    e = acc_cond(g, acc_binop(g, ACC_OP_GT, ts_i64(g, 2), ts_i64(g, 3)),
                 ts_i64(g, 10), ts_i64(g, 20));
    if (sp_eval_into(ctx, g, e, ACC_I64, buf, "if 2 > 3 then 10 else 20"))
        cr_expect_eq(sp_load_int(ACC_I64, buf), 20);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* ------------------------------------------------------------------------
 * Tuples, indices and sharing
 * ------------------------------------------------------------------------ */

/* ((10, 20), 30) : ((i64, i64), i64) */
static acc_node *pair_in_pair(acc_graph *g)
{
    acc_node *inner[2] = {ts_i64(g, 10), ts_i64(g, 20)};
    acc_node *outer[2] = {acc_tuple(g, 2, inner), ts_i64(g, 30)};
    return acc_tuple(g, 2, outer);
}

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
    if (sp_eval_into(ctx, g, acc_get(g, t, 1), ACC_F64, buf, "get 1 (1,2.5,T)"))
        cr_expect(sp_load_float(ACC_F64, buf) == 2.5);

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
            cr_expect_eq(sp_load_int(ACC_I32, buf), -9);
            cr_expect(sp_load_float(ACC_F64, buf + 4) == 0.75);
            cr_expect_eq(sp_load_int(ACC_BOOL, buf + 12), 1);
        }
    }

    /* nested: get 1 (get 0 ((10, 20), 30)) == 20 */
    ts_fresh_graph(ctx, &g);
    n = acc_get(g, acc_get(g, pair_in_pair(g), 0), 1);
    if (sp_eval_into(ctx, g, n, ACC_I64, buf, "get 1 (get 0 ((10,20),30))"))
        cr_expect_eq(sp_load_int(ACC_I64, buf), 20);

    ts_fresh_graph(ctx, &g);
    n = acc_get(g, pair_in_pair(g), 1);
    if (sp_eval_into(ctx, g, n, ACC_I64, buf, "get 1 (..., 30)"))
        cr_expect_eq(sp_load_int(ACC_I64, buf), 30);

    /* a conditional choosing between tuples */
    ts_fresh_graph(ctx, &g);
    inner[0] = ts_i32(g, 1);
    inner[1] = ts_i32(g, 2);
    nested[0] = ts_i32(g, 3);
    nested[1] = ts_i32(g, 4);
    t = acc_cond(g, ts_bool(g, 0), acc_tuple(g, 2, inner),
                 acc_tuple(g, 2, nested));
    if (sp_eval_into(ctx, g, acc_get(g, t, 1), ACC_I32, buf,
                     "get 1 (if false then (1,2) else (3,4))"))
        cr_expect_eq(sp_load_int(ACC_I32, buf), 4);
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
    if (sp_eval_into(ctx, g, sum, ACC_I64, buf, "ix!0 * 100 + ix!2"))
        cr_expect_eq(sp_load_int(ACC_I64, buf), 406);

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
    if (sp_eval_into(ctx, g, acc_binop(g, ACC_OP_MUL, x, x), ACC_I32, buf,
                     "let x = 3 + 4 in x * x"))
        cr_expect_eq(sp_load_int(ACC_I32, buf), 49);

    /* let x = 2.5 * 2 in (x, x - 1) */
    ts_fresh_graph(ctx, &g);
    x = acc_binop(g, ACC_OP_MUL, ts_f64(g, 2.5), ts_f64(g, 2));
    pair[0] = x;
    pair[1] = acc_binop(g, ACC_OP_SUB, x, ts_f64(g, 1));
    {
        acc_status st = ts_eval_scalar(ctx, g, acc_tuple(g, 2, pair), buf, 16);
        cr_expect_eq(st, ACC_OK, "%s", acc_last_error());
        if (st == ACC_OK) {
            cr_expect(sp_load_float(ACC_F64, buf) == 5.0);
            cr_expect(sp_load_float(ACC_F64, buf + 8) == 4.0);
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
    if (sp_eval_into(ctx, g, acc_get(g, w, 1), ACC_I64, buf,
                     "halvings of 1000"))
        cr_expect_eq(sp_load_int(ACC_I64, buf), 10);

    /* Collatz steps of 27: 111 */
    ts_fresh_graph(ctx, &g);
    w = acc_while(g, lam1(g, st_coll, collatz_cond, NULL),
                  lam1(g, st_coll, collatz_body, NULL),
                  tup2(g, ts_i64(g, 27), ts_i64(g, 0)));
    if (sp_eval_into(ctx, g, acc_get(g, w, 1), ACC_I64, buf, "collatz 27"))
        cr_expect_eq(sp_load_int(ACC_I64, buf), 111);

    /* Fibonacci with nested tuple state: fib 50 = 12586269025 */
    ts_fresh_graph(ctx, &g);
    w = acc_while(g, lam1(g, st_fib, fib_cond, NULL),
                  lam1(g, st_fib, fib_body, NULL),
                  tup2(g, tup2(g, ts_i64(g, 0), ts_i64(g, 1)), ts_i32(g, 0)));
    if (sp_eval_into(ctx, g, acc_get(g, acc_get(g, w, 0), 0), ACC_I64, buf,
                     "fib 50"))
        cr_expect_eq(sp_load_int(ACC_I64, buf), 12586269025);

    /* scalar state: 1 doubled while < 1000 is 1024 */
    ts_fresh_graph(ctx, &g);
    w = acc_while(g, lam1(g, i32, dbl_cond, NULL), lam1(g, i32, dbl_body, NULL),
                  ts_i32(g, 1));
    if (sp_eval_into(ctx, g, w, ACC_I32, buf, "doubling"))
        cr_expect_eq(sp_load_int(ACC_I32, buf), 1024);

    /* the condition is tested first: the body is never applied */
    ts_fresh_graph(ctx, &g);
    w = acc_while(g, lam1(g, i32, neg_cond, NULL), lam1(g, i32, bad_body, NULL),
                  ts_i32(g, 5));
    if (sp_eval_into(ctx, g, w, ACC_I32, buf, "while false"))
        cr_expect_eq(sp_load_int(ACC_I32, buf), 5);
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
    if (sp_eval_into(ctx, g, acc_get(g, w, 1), ACC_I64, buf, "0+1+2+3+4"))
        cr_expect_eq(sp_load_int(ACC_I64, buf), 10);
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
