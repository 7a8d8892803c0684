/*
 * test_check.c — the checker/verifier that runs after sharing recovery, and
 * the ACC_DUMP / ACC_DISABLE switches.  The builder never produces an
 * ill-typed or ill-scoped program, so these tests compile a good program
 * and then damage its IR the way a faulty pass could.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "core/check/check.h"
#include "abi/src/program.h"
#include "core/ir/dump.h"
#include "support.h"

#include <stdlib.h>
#include <string.h>

static acc_context *ctx;
static acc_graph *g;

/* These tests damage the IR as sharing recovery leaves it. */
static void setup(void)
{
    ts_fixture_open_unfused(&ctx, &g);
}

static void teardown(void)
{
    ts_fixture_close(&ctx, &g);
}

TestSuite(check, .init = setup, .fini = teardown);

/* map (\x -> let v = x * x in if v > 10 then v else 0) xs */
static acc_program *sample(void)
{
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    acc_node *xs = acc_input(g, i64, 1);
    acc_node *x = acc_param(g, i64);
    acc_node *sq = acc_binop(g, ACC_OP_MUL, x, x);
    acc_node *body = acc_cond(g, acc_binop(g, ACC_OP_GT, sq, ts_i64(g, 10)),
                              sq, ts_i64(g, 0));
    acc_node *m = acc_map(g, ts_lam1(g, x, body), xs);
    return ts_compile(ctx, g, m);
}

static ir_node *find(ir_program *ir, ir_op op)
{
    for (uint32_t i = 0; i < ir->n_nodes; i++)
        if (ir->nodes[i]->op == op)
            return ir->nodes[i];
    return NULL;
}

/* The checker refuses p's (damaged) IR with ACC_ERR_TYPE, its message in
 * d. */
static void expect_type_error(acc_program *p, diag *d)
{
    diag_clear(d);
    cr_assert_eq(check_program(&p->c.ir, d), ACC_ERR_TYPE);
}

Test(check, accepts_what_the_compiler_produces)
{
    acc_program *p = sample();
    diag d;
    diag_clear(&d);
    cr_assert_eq(check_program(&p->c.ir, &d), ACC_OK, "%s", d.message);
    acc_program_free(p);
}

Test(check, names_a_primitive_by_its_operator)
{
    acc_program *p = sample();
    ir_node *gt = NULL;
    for (uint32_t i = 0; i < p->c.ir.n_nodes; i++)
        if (p->c.ir.nodes[i]->op == IR_PRIM &&
            p->c.ir.nodes[i]->u.prim == ACC_OP_GT)
            gt = p->c.ir.nodes[i];
    cr_assert(gt);
    gt->type = acc_type_scalar(ACC_I64);
    diag d;
    expect_type_error(p, &d);
    cr_expect(strstr(d.message, "check: >: result: expected bool, found i64"),
              "%s", d.message);
    acc_program_free(p);
}

Test(check, names_the_operation_when_branch_types_differ)
{
    acc_program *p = sample();
    ir_node *cond = find(&p->c.ir, IR_COND);
    cr_assert(cond);
    cond->args[2]->type = acc_type_scalar(ACC_F32); /* the else constant */
    diag d;
    expect_type_error(p, &d);
    cr_expect(strstr(d.message, "if") && strstr(d.message, "else branch"),
              "%s", d.message);
    cr_expect(strstr(d.message, "expected i64") && strstr(d.message,
                                                         "found f32"),
              "%s", d.message);
    acc_program_free(p);
}

Test(check, rejects_a_variable_outside_its_let)
{
    acc_program *p = sample();
    ir_node *let = find(&p->c.ir, IR_LET);
    cr_assert(let, "x * x is shared, so it is let-bound");
    ir_node *var = find(&p->c.ir, IR_VAR);
    cr_assert(var);
    let->args[0] = var; /* the bound term now refers to its own variable */
    diag d;
    expect_type_error(p, &d);
    cr_expect(strstr(d.message, "variable") && strstr(d.message, "outside"),
              "%s", d.message);
    acc_program_free(p);
}

Test(check, rejects_a_parameter_outside_its_lambda)
{
    acc_program *p = sample();
    ir_node *map = find(&p->c.ir, IR_MAP);
    ir_node *lam = map->args[0];
    ir_node *param = lam->args[0];
    /* a second map whose function body is the first lambda's parameter */
    ir_node *fresh_param = ir_program_node(&p->c.ir, IR_PARAM, param->type, 0,
                                           NULL);
    fresh_param->u.param.slot = p->c.ir.n_params++;
    ir_node *lam_args[2] = {fresh_param, param};
    ir_node *bad = ir_program_node(&p->c.ir, IR_LAMBDA, param->type, 2,
                                   lam_args);
    bad->u.lambda.n_params = 1;
    ir_node *map_args[2] = {bad, map->args[1]};
    ir_node *map2 = ir_program_node(&p->c.ir, IR_MAP, map->type, 2, map_args);
    p->c.ir.root = map2;
    diag d;
    expect_type_error(p, &d);
    cr_expect(strstr(d.message, "parameter") && strstr(d.message, "not closed"),
              "%s", d.message);
    acc_program_free(p);
}

Test(check, rejects_a_function_of_the_wrong_parameter_type)
{
    acc_program *p = sample();
    ir_node *map = find(&p->c.ir, IR_MAP);
    /* \(p : u8) -> 0 given to a map over i64 */
    ir_node *param = ir_program_node(&p->c.ir, IR_PARAM, acc_type_scalar(ACC_U8),
                                     0, NULL);
    param->u.param.slot = p->c.ir.n_params++;
    ir_node *zero = find(&p->c.ir, IR_CONST);
    ir_node *lam_args[2] = {param, zero};
    ir_node *lam = ir_program_node(&p->c.ir, IR_LAMBDA, zero->type, 2, lam_args);
    lam->u.lambda.n_params = 1;
    map->args[0] = lam;
    diag d;
    expect_type_error(p, &d);
    cr_expect(strstr(d.message, "map") && strstr(d.message, "expected i64") &&
                  strstr(d.message, "found u8"),
              "%s", d.message);
    acc_program_free(p);
}

/* ---- switches ----------------------------------------------------------- */

Test(dump, names_are_read_from_a_comma_separated_list)
{
    setenv("ACC_DUMP", "fusion, sharing", 1);
    cr_expect(dump_wanted("sharing"));
    cr_expect(dump_wanted("fusion"));
    cr_expect(!dump_wanted("share"));
    cr_expect(!dump_wanted("check"));
    setenv("ACC_DUMP", "all", 1);
    cr_expect(dump_wanted("check"));
    unsetenv("ACC_DUMP");
    cr_expect(!dump_wanted("sharing"));
    setenv("ACC_DISABLE", "sharing", 1);
    cr_expect(pass_disabled("sharing"));
    unsetenv("ACC_DISABLE");
    cr_expect(!pass_disabled("sharing"));
}

static void redirect(void)
{
    cr_redirect_stderr();
}

Test(dump, prints_the_program_after_sharing, .init = redirect)
{
    setenv("ACC_DUMP", "sharing", 1);
    ts_fixture_open(&ctx, &g);
    acc_node *three = acc_binop(g, ACC_OP_ADD, ts_i64(g, 1), ts_i64(g, 2));
    acc_node *r = acc_unit(g, acc_binop(g, ACC_OP_MUL, three, three));
    acc_program *p = NULL;
    cr_assert_eq(acc_compile(ctx, g, 1, &r, &p), ACC_OK);
    fflush(stderr);
    cr_assert_stderr_eq_str("== accel IR after sharing ==\n"
                            "program : Array 0 i64 =\n"
                            "  unit (let v0 = 1 + 2\n"
                            "  in v0 * v0)\n\n");
    acc_program_free(p);
    ts_fixture_close(&ctx, &g);
}
