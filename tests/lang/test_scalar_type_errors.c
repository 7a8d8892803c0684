/*
 * test_scalar_type_errors.c — ill-typed scalar expressions through the
 * builder API: NULL from the builder, the error status on the graph
 * (sticky: later calls fail too), the same status from acc_compile with a
 * message naming the operation; and the primitives' names as the text
 * syntax spells them.
 */
#include <stdint.h>
#include <stdio.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "scalar_support.h"
#include "support.h"

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
    return sp_is_float(t) ? sp_mk_float(g, t, 1.5) : sp_mk_int(g, t, 1);
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
