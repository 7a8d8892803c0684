/*
 * test_cfunc.c — plain C functions called through libffi
 * (acc_register_c_function): the mapping of arrays to parameters, scalar
 * foreignExp functions, signatures that do not fit, parse errors with
 * positions, missing libraries and symbols.  The functions live in
 * tests/foreign/libtestfns.c (ACC_TEST_FNS_LIB).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "foreign_support.h"

static acc_node *map_times(acc_context *ctx, acc_graph *g, acc_scalar s,
                           double k)
{
    const acc_type *t = acc_type_scalar(s);
    acc_node *p = acc_param(g, acc_type_array(ctx, t, 1));
    acc_node *x = acc_param(g, t);
    acc_node *f = acc_lambda(g, 1, &x, acc_binop(g, ACC_OP_MUL, x,
                                                 acc_const_f64(g, s, k)));
    return acc_lambda(g, 1, &p, acc_map(g, f, p));
}

Test(cfunc, a_void_function_fills_its_result_through_a_pointer)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    cr_assert_eq(acc_register_c_function(ctx, "c.twice", ACC_TEST_FNS_LIB,
                                         "twice_f32",
                                         "void(const f32*, f32*, i64)"),
                 ACC_OK, "%s", acc_last_error());
    acc_graph *g = ts_graph(ctx);
    acc_node *in = acc_input(g, acc_type_scalar(ACC_F32), 1);
    acc_node *r = acc_foreign(g, "c.twice", map_times(ctx, g, ACC_F32, 2), in);
    acc_program *p = tf_compile(ctx, g, r);
    char *plan = tf_plan(p);
    cr_assert(strstr(plan, "uses: c:twice_f32 (C function, priority 0)"),
              "%s", plan);
    acc_free(plan);
    float x[5] = {1, -2, 3.5f, 4, 5};
    int64_t n = 5;
    void *bufs[1] = {x};
    acc_array a = ts_host_array(acc_type_scalar(ACC_F32), 1, &n, bufs), o;
    tf_run(p, 1, &a, 1, &o);
    cr_assert_eq(o.extents[0], 5);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(((float *)o.data[0])[i], 2 * x[i]);
    acc_array_release(&o);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(cfunc, a_returned_value_is_a_scalar_result_and_tuples_give_several_arrays)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    cr_assert_eq(acc_register_c_function(ctx, "c.sum", ACC_TEST_FNS_LIB,
                                         "sum_f64", "f64(f64*, i64)"), ACC_OK);
    cr_assert_eq(acc_register_c_function(ctx, "c.add", ACC_TEST_FNS_LIB,
                                         "add_f64",
                                         "void ( f64 *, f64*,f64*, i64 )"),
                 ACC_OK, "%s", acc_last_error());
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *ys = acc_input(g, acc_type_scalar(ACC_F64), 1);
    /* c.add over (xs, ys), fallback zipWith (+); then c.sum, fallback sum */
    acc_node *pair[2] = {xs, ys};
    acc_node *arg = acc_tuple(g, 2, pair);
    acc_node *pp = acc_param(g, acc_node_type(arg));
    acc_node *a = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *b = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *ab[2] = {a, b};
    acc_node *plus = acc_lambda(g, 2, ab, acc_binop(g, ACC_OP_ADD, a, b));
    acc_node *parts[2] = {acc_get(g, pp, 0), acc_get(g, pp, 1)};
    acc_node *added = acc_foreign(g, "c.add", acc_lambda(
        g, 1, &pp, acc_zipwith(g, plus, 2, parts)), arg);
    acc_node *q = acc_param(g, acc_node_type(added));
    acc_node *total = acc_foreign(g, "c.sum", acc_lambda(g, 1, &q,
                                                         acc_sum(g, q)),
                                  added);
    acc_program *p = tf_compile(ctx, g, total);
    char *plan = tf_plan(p);
    cr_assert(strstr(plan, "foreign calls: 2"), "%s", plan);
    acc_free(plan);
    double x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
    int64_t n = 3;
    acc_array in[2] = {tf_f64(1, &n, x), tf_f64(1, &n, y)}, o;
    tf_run(p, 2, in, 1, &o);
    cr_assert_eq(o.rank, 0);
    cr_assert_eq(*(double *)o.data[0], 66.0);
    acc_array_release(&o);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(cfunc, a_scalar_function_implements_foreign_exp)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    cr_assert_eq(acc_register_c_function(ctx, "libm.hypot", ACC_TEST_FNS_LIB,
                                         "hypot_f64", "f64(f64, f64)"),
                 ACC_OK);
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *a = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *b = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *ab[2] = {a, b};
    acc_node *pair = acc_tuple(g, 2, ab);
    acc_node *v = acc_param(g, acc_node_type(pair));
    /* the fallback deliberately differs (a + b) so the test sees which ran */
    acc_node *fallback = acc_lambda(g, 1, &v, acc_binop(
        g, ACC_OP_ADD, acc_get(g, v, 0), acc_get(g, v, 1)));
    acc_node *h = acc_foreign_exp(g, "libm.hypot", fallback, pair);
    acc_node *arrays[2] = {xs, xs};
    acc_node *r = acc_zipwith(g, acc_lambda(g, 2, ab, h), 2, arrays);
    acc_program *p = tf_compile(ctx, g, r);
    double x[2] = {3, 5};
    int64_t n = 2;
    acc_array in = tf_f64(1, &n, x), o;
    tf_run(p, 1, &in, 1, &o);
    cr_assert_float_eq(((double *)o.data[0])[0], sqrt(18.0), 1e-12);
    cr_assert_float_eq(((double *)o.data[0])[1], sqrt(50.0), 1e-12);
    acc_array_release(&o);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(cfunc, a_signature_that_does_not_fit_falls_back_and_says_why)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    cr_assert_eq(acc_register_c_function(ctx, "c.twice", ACC_TEST_FNS_LIB,
                                         "twice_f32", "void(f64*, f64*, i64)"),
                 ACC_OK);
    acc_graph *g = ts_graph(ctx);
    acc_node *in = acc_input(g, acc_type_scalar(ACC_F32), 1);
    acc_node *r = acc_foreign(g, "c.twice", map_times(ctx, g, ACC_F32, 2), in);
    acc_program *p = tf_compile(ctx, g, r);
    char *plan = tf_plan(p);
    cr_assert(strstr(plan, "fallback: c:twice_f32 refused (C signature: "
                           "parameter 1 has another element type than the "
                           "argument array it receives)"), "%s", plan);
    acc_free(plan);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

static void expect_parse_error(acc_context *ctx, const char *sig,
                               const char *message)
{
    acc_status st = acc_register_c_function(ctx, "c.x", ACC_TEST_FNS_LIB,
                                            "twice_f32", sig);
    cr_assert_eq(st, ACC_ERR_PARSE, "%s", sig);
    cr_assert(strstr(acc_last_error(), message), "%s", acc_last_error());
}

Test(cfunc, bad_signatures_are_parse_errors_with_a_position)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    expect_parse_error(ctx, "void(f32*, f33*, i64)", "position 11: expected a "
                       "parameter: a scalar type or a pointer to one (f32*), "
                       "found 'f33*, i64)'");
    expect_parse_error(ctx, "int(f32)", "position 0: expected the result "
                       "type: void or a scalar type");
    expect_parse_error(ctx, "void f32*", "position 5: expected '('");
    expect_parse_error(ctx, "void(f32*", "position 9: expected ',' or ')', "
                       "found the end");
    expect_parse_error(ctx, "void(const f32)", "expected '*' after a const");
    expect_parse_error(ctx, "void(f32*) x", "position 11: expected the end "
                       "of the signature");
    acc_context_destroy(ctx);
}

Test(cfunc, missing_libraries_and_symbols_are_named)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    cr_assert_eq(acc_register_c_function(ctx, "c.x", "/nonexistent/libno.so",
                                         "f", "void()"), ACC_ERR_NOT_FOUND);
    cr_assert(strstr(acc_last_error(), "cannot load library "
                     "'/nonexistent/libno.so'"), "%s", acc_last_error());
    cr_assert_eq(acc_register_c_function(ctx, "c.x", ACC_TEST_FNS_LIB,
                                         "no_such_function", "void()"),
                 ACC_ERR_NOT_FOUND);
    cr_assert(strstr(acc_last_error(), "symbol 'no_such_function' not found"),
              "%s", acc_last_error());
    cr_assert_eq(acc_register_c_function(ctx, NULL, NULL, "f", "void()"),
                 ACC_ERR_INVALID_ARGUMENT);
    acc_context_destroy(ctx);
}
