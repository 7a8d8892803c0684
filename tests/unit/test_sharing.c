/*
 * test_sharing.c — sharing recovery: the structure of the recovered tree
 * (which terms are let-bound, where, how many nodes remain) and the values
 * the recovered programs compute.  Structure is asserted by walking the
 * program's IR, not by reading printed text.
 */
#include <criterion/criterion.h>

#include "abi/src/program.h"
#include "core/ir/printer.h"
#include "ir_support.h"
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- walking the recovered IR ---------------------------------------------- */

typedef struct census {
    uint32_t nodes;       /* distinct nodes reachable, lets/vars excluded */
    uint32_t lets, vars;
    uint32_t by_op[IR_OP_COUNT];
    uint32_t by_prim[128];
    uint32_t multi_parent; /* non-leaf, non-lambda nodes with two parents */
} census;

static void count(const ir_node *n, int again, void *arg)
{
    census *c = arg;
    if (again) {
        if (n->n_args > 0 && n->op != IR_LAMBDA)
            c->multi_parent++;
        return;
    }
    if (n->op == IR_LET)
        c->lets++;
    else if (n->op == IR_VAR)
        c->vars++;
    else
        c->nodes++;
    c->by_op[n->op]++;
    if (n->op == IR_PRIM && (unsigned)n->u.prim < 128)
        c->by_prim[n->u.prim]++;
}

static census take_census(const acc_program *p)
{
    census c;
    memset(&c, 0, sizeof c);
    ts_ir_walk(p, count, &c);
    return c;
}

static acc_context *ctx;
static acc_graph *g;

/* These tests look at the IR as sharing recovery leaves it. */
static void setup(void)
{
    ts_fixture_open_unfused(&ctx, &g);
}

static void teardown(void)
{
    ts_fixture_close(&ctx, &g);
}

TestSuite(sharing, .init = setup, .fini = teardown);

/* ---- the paper's example -------------------------------------------------- */

/* let inc = (+) 1 in let nine = let three = inc 2 in (*) three three
 * in (-) (inc nine) nine */
Test(sharing, paper_example_recovers_the_source_bindings)
{
    acc_node *one = ts_i64(g, 1);
    acc_node *three = acc_binop(g, ACC_OP_ADD, one, ts_i64(g, 2));
    acc_node *nine = acc_binop(g, ACC_OP_MUL, three, three);
    acc_node *inc_nine = acc_binop(g, ACC_OP_ADD, one, nine);
    acc_node *e = acc_binop(g, ACC_OP_SUB, inc_nine, nine);
    acc_program *p = ts_compile(ctx, g, acc_unit(g, e));

    /* unit (let v_nine = (let v_three = 1 + 2 in v_three * v_three)
     *       in (1 + v_nine) - v_nine) */
    const ir_node *root = p->c.ir.root;
    cr_assert_eq(root->op, IR_UNIT);
    const ir_node *let_nine = root->args[0];
    cr_assert_eq(let_nine->op, IR_LET);
    const ir_node *nine_def = let_nine->args[0];
    cr_assert_eq(nine_def->op, IR_LET, "three is bound inside nine");
    cr_assert_eq(nine_def->args[0]->op, IR_PRIM);
    cr_assert_eq(nine_def->args[0]->u.prim, ACC_OP_ADD);
    const ir_node *mul = nine_def->args[1];
    cr_assert_eq(mul->u.prim, ACC_OP_MUL);
    cr_assert_eq(mul->args[0]->op, IR_VAR);
    cr_assert_eq(mul->args[0]->u.let.var, nine_def->u.let.var);
    cr_assert_eq(mul->args[1]->u.let.var, nine_def->u.let.var);
    const ir_node *sub = let_nine->args[1];
    cr_assert_eq(sub->u.prim, ACC_OP_SUB);
    cr_assert_eq(sub->args[1]->op, IR_VAR);
    cr_assert_eq(sub->args[1]->u.let.var, let_nine->u.let.var);
    cr_assert_eq(sub->args[0]->args[1]->u.let.var, let_nine->u.let.var);
    census c = take_census(p);
    cr_assert_eq(c.lets, 2, "exactly two bindings, got %u", c.lets);

    int64_t v = 0;
    acc_program_free(p);
    cr_assert_eq(ts_eval_scalar(ctx, g, e, &v, sizeof v), ACC_OK);
    cr_assert_eq(v, 1);
}

/* ---- Black-Scholes ---------------------------------------------------------- */

Test(sharing, blackscholes_computes_each_shared_term_once)
{
    acc_program *p = ts_compile(ctx, g, ts_blackscholes(ctx, g));
    census c = take_census(p);
    /* exp: one per cnd call (two) and one in x_expRT; log and sqrt once */
    cr_assert_eq(c.by_prim[ACC_OP_EXP], 3, "exp nodes: %u", c.by_prim[ACC_OP_EXP]);
    cr_assert_eq(c.by_prim[ACC_OP_LOG], 1);
    cr_assert_eq(c.by_prim[ACC_OP_SQRT], 1);
    cr_assert_eq(c.by_op[IR_COND], 2, "one if per cnd call");
    /* v_sqrtT, d1, d2, both cnd results, x_expRT, and k and c in each cnd */
    cr_assert_geq(c.lets, 10, "lets: %u", c.lets);
    cr_assert_eq(c.multi_parent, 0, "the recovered term is a tree");

    enum { N = 100 };
    float price[N], strike[N], years[N], call[N], put[N];
    for (int i = 0; i < N; i++) {
        price[i] = 5.0f + (float)i * 0.3f;
        strike[i] = 1.0f + (float)(i % 17) * 0.9f;
        years[i] = 0.25f + (float)(i % 9) * 0.5f;
    }
    acc_array out;
    int64_t ext[1] = {N};
    void *leaves[3] = {price, strike, years};
    acc_array in = ts_host_array(acc_node_type(g->inputs[0])->elem, 1, ext,
                                 leaves);
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    memcpy(call, out.data[0], sizeof call);
    memcpy(put, out.data[1], sizeof put);
    acc_array_release(&out);
    for (int i = 0; i < N; i++) {
        double cr, pr;
        ts_blackscholes_ref(price[i], strike[i], years[i], &cr, &pr);
        cr_expect(fabs(call[i] - cr) <= 1e-3 * (1.0 + fabs(cr)),
                  "call %d: %g vs %g", i, call[i], cr);
        cr_expect(fabs(put[i] - pr) <= 1e-3 * (1.0 + fabs(pr)),
                  "put %d: %g vs %g", i, put[i], pr);
    }
    acc_program_free(p);
}

/* ---- array level -------------------------------------------------------------- */

Test(sharing, shared_array_is_bound_once_and_used_through_variables)
{
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    acc_node *a = acc_input(g, i64, 1);
    acc_node *x = acc_param(g, i64);
    acc_node *b = acc_map(g, acc_lambda(g, 1, &x, acc_binop(g, ACC_OP_MUL, x,
                                                            ts_i64(g, 3))), a);
    acc_node *bb[2] = {b, b};
    acc_node *z = acc_zipwith(g, ts_binop_fn(g, ACC_I64, ACC_OP_SUB), 2, bb);
    acc_node *zz[2] = {z, b};
    acc_node *r = acc_zipwith(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), 2, zz);
    acc_program *p = ts_compile(ctx, g, r);
    const ir_node *root = p->c.ir.root;
    cr_assert_eq(root->op, IR_LET);
    cr_assert_eq(root->args[0]->op, IR_MAP, "the map is bound at the top");
    cr_assert_eq(root->args[1]->op, IR_ZIPWITH);
    census c = take_census(p);
    cr_assert_eq(c.by_op[IR_MAP], 1);
    cr_assert_eq(c.lets, 1);
    cr_assert_eq(c.vars, 3);

    int64_t data[5] = {1, 2, 3, 4, 5};
    acc_array out;
    cr_assert_eq(ts_run_vec(p, ACC_I64, data, 5, &out), ACC_OK);
    for (int i = 0; i < 5; i++)
        cr_expect_eq(((int64_t *)out.data[0])[i], 3 * data[i]);
    acc_array_release(&out);
    acc_program_free(p);
}

/* ---- a DAG with 2^60 paths ----------------------------------------------------- */

Test(sharing, sixty_doublings_recover_in_linear_time)
{
    acc_node *in = acc_input(g, acc_type_scalar(ACC_I64), 0);
    acc_node *x = acc_the(g, in);
    for (int i = 0; i < 60; i++)
        x = acc_binop(g, ACC_OP_ADD, x, x);
    acc_program *p = ts_compile(ctx, g, acc_unit(g, x));
    census c = take_census(p);
    cr_assert_eq(c.lets, 60, "x0 .. x59 are bound, got %u", c.lets);
    cr_assert_eq(c.by_prim[ACC_OP_ADD], 60);
    int64_t one = 1;
    acc_array a = ts_host(ACC_I64, 0, NULL, &one), out;
    cr_assert_eq(ts_run_program(p, 1, &a, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(*(int64_t *)out.data[0], (int64_t)1 << 60);
    acc_array_release(&out);
    acc_program_free(p);
}

/* ---- lambdas ---------------------------------------------------------------- */

static const ir_node *find_op(const ir_node *n, ir_op op, uint8_t *seen)
{
    if (seen[n->id]++)
        return NULL;
    if (n->op == op)
        return n;
    for (uint32_t i = 0; i < n->n_args; i++) {
        const ir_node *f = find_op(n->args[i], op, seen);
        if (f)
            return f;
    }
    return NULL;
}

/* generate [4] (\[i] -> while (< 100) (\s -> s + k + k) i) with the closed
 * term k = 3 * 7 used only inside the while body. */
Test(sharing, term_used_only_inside_a_lambda_is_bound_inside_it)
{
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    acc_node *k = acc_binop(g, ACC_OP_MUL, ts_i64(g, 3), ts_i64(g, 7));
    acc_node *s1 = acc_param(g, i64), *s2 = acc_param(g, i64);
    acc_node *cond = acc_lambda(g, 1, &s1, acc_binop(g, ACC_OP_LT, s1,
                                                     ts_i64(g, 100)));
    acc_node *body = acc_lambda(g, 1, &s2,
                                acc_binop(g, ACC_OP_ADD,
                                          acc_binop(g, ACC_OP_ADD, s2, k), k));
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *loop = acc_while(g, cond, body, acc_get(g, ix, 0));
    acc_node *dim = ts_i64(g, 4);
    acc_node *gen = acc_generate(g, acc_index(g, 1, &dim),
                                 acc_lambda(g, 1, &ix, loop));
    acc_program *p = ts_compile(ctx, g, gen);
    uint8_t *seen = calloc(p->c.ir.n_nodes, 1);
    const ir_node *w = find_op(p->c.ir.root, IR_WHILE, seen);
    cr_assert(w);
    const ir_node *body_lam = w->args[1];
    cr_assert_eq(ir_lambda_body(body_lam)->op, IR_LET,
                 "k is bound at the top of the while body");
    cr_assert_eq(ir_lambda_body(body_lam)->args[0]->u.prim, ACC_OP_MUL);
    cr_assert_neq(w->args[2]->op, IR_LET, "nothing is bound outside the loop");
    free(seen);
    census c = take_census(p);
    cr_assert_eq(c.lets, 1);

    acc_array out;
    cr_assert_eq(ts_run_program(p, 0, NULL, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    for (int64_t i = 0; i < 4; i++) {
        int64_t s = i;
        while (s < 100)
            s += 42;
        cr_expect_eq(((int64_t *)out.data[0])[i], s);
    }
    acc_array_release(&out);
    acc_program_free(p);
}

/* A term whose uses are all behind lazy edges is not hoisted above them:
 * (x /= 0 && 10 quot x > 2) used with the same quotient in the branch must
 * not divide by zero when x is 0. */
Test(sharing, no_speculation_past_conditionals)
{
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    acc_node *xs = acc_input(g, i64, 1);
    acc_node *x = acc_param(g, i64);
    acc_node *q = acc_binop(g, ACC_OP_QUOT, ts_i64(g, 10), x);
    acc_node *guard = acc_binop(g, ACC_OP_LAND,
                                acc_binop(g, ACC_OP_NE, x, ts_i64(g, 0)),
                                acc_binop(g, ACC_OP_GT, q, ts_i64(g, 2)));
    acc_node *f = acc_lambda(g, 1, &x, acc_cond(g, guard, q, ts_i64(g, -1)));
    acc_program *p = ts_compile(ctx, g, acc_map(g, f, xs));
    int64_t data[4] = {0, 1, 5, 3};
    acc_array out;
    cr_assert_eq(ts_run_vec(p, ACC_I64, data, 4, &out), ACC_OK, "%s",
                 acc_last_error());
    int64_t want[4] = {-1, 10, -1, 3};
    for (int i = 0; i < 4; i++)
        cr_expect_eq(((int64_t *)out.data[0])[i], want[i]);
    acc_array_release(&out);
    acc_program_free(p);
}

/* A term shared by two scalar arguments of one array operation (the shape
 * and the index function of a backpermute, as in take) is recovered in
 * each of them separately, never across them. */
Test(sharing, term_shared_by_shape_and_function_of_one_operation)
{
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    acc_node *xs = acc_input(g, i64, 1);
    acc_node *len = acc_get(g, acc_shape(g, xs), 0);
    acc_node *h = acc_binop(g, ACC_OP_QUOT, len, ts_i64(g, 2));
    /* half = (h + h) - h: h is shared inside half, so recovering one root
     * rewrites half's arguments */
    acc_node *half = acc_binop(g, ACC_OP_SUB, acc_binop(g, ACC_OP_ADD, h, h),
                               h);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *src = acc_binop(g, ACC_OP_ADD, acc_get(g, ix, 0), half);
    acc_node *p = acc_lambda(g, 1, &ix, acc_index(g, 1, &src));
    acc_node *r = acc_backpermute(g, acc_index(g, 1, &half), p, xs);
    acc_program *prog = ts_compile(ctx, g, r);
    int64_t data[7] = {10, 11, 12, 13, 14, 15, 16};
    acc_array out;
    cr_assert_eq(ts_run_vec(prog, ACC_I64, data, 7, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(out.extents[0], 3);
    for (int i = 0; i < 3; i++)
        cr_expect_eq(((int64_t *)out.data[0])[i], data[i + 3]);
    acc_array_release(&out);
    acc_program_free(prog);
}

/* The printer shows the bindings in the text syntax. */
Test(sharing, printer_shows_lets)
{
    acc_node *three = acc_binop(g, ACC_OP_ADD, ts_i64(g, 1), ts_i64(g, 2));
    acc_program *p =
        ts_compile(ctx, g, acc_unit(g, acc_binop(g, ACC_OP_MUL, three, three)));
    strbuf b = {0};
    ir_print_program(&b, &p->c.ir);
    cr_assert(b.text);
    cr_expect(strstr(b.text, "unit (let v0 = 1 + 2\n"), "%s", b.text);
    cr_expect(strstr(b.text, "in v0 * v0)"), "%s", b.text);
    sb_free(&b);
    acc_program_free(p);
}

/* ---- property: random DAGs -------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* A random scalar DAG over parameter x; arithmetic wraps, so any shape is
 * well defined.  Returns the root and the number of distinct nodes. */
static acc_node *random_dag(acc_node *x, int size)
{
    acc_node *pool[64];
    int n = 0;
    pool[n++] = x;
    pool[n++] = ts_i64(g, 1 + ts_rnd(&rng_state, 9));
    static const acc_primop ops[] = {ACC_OP_ADD, ACC_OP_SUB, ACC_OP_MUL,
                                     ACC_OP_BXOR, ACC_OP_MAX};
    while (n < size) {
        acc_node *a = pool[ts_rnd(&rng_state, (uint32_t)n)],
                 *b = pool[ts_rnd(&rng_state, (uint32_t)n)];
        pool[n++] = acc_binop(g, ops[ts_rnd(&rng_state, 5)], a, b);
    }
    /* combine the last few so most nodes are reachable */
    acc_node *r = pool[n - 1];
    for (int i = n - 2; i > n - 6; i--)
        r = acc_binop(g, ACC_OP_ADD, r, pool[i]);
    return r;
}

static uint32_t distinct_reachable(const acc_node *n, uint8_t *seen)
{
    if (seen[n->id]++)
        return 0;
    uint32_t count = 1;
    for (uint32_t i = 0; i < n->n_args; i++)
        count += distinct_reachable(n->args[i], seen);
    return count;
}

/* Counts the non-leaf nodes below n with more than one parent edge. */
static uint32_t shared_inner_nodes(const acc_node *root, uint32_t n_nodes)
{
    const acc_node **stack = calloc(n_nodes + 1, sizeof *stack);
    const acc_node **all = calloc(n_nodes + 1, sizeof *all);
    uint32_t *parents = calloc(n_nodes, sizeof *parents);
    uint8_t *seen = calloc(n_nodes, 1);
    uint32_t top = 0, count = 0, shared = 0;
    stack[top++] = root;
    seen[root->id] = 1;
    while (top) {
        const acc_node *n = stack[--top];
        all[count++] = n;
        for (uint32_t i = 0; i < n->n_args; i++) {
            parents[n->args[i]->id]++;
            if (!seen[n->args[i]->id]++)
                stack[top++] = n->args[i];
        }
    }
    for (uint32_t i = 0; i < count; i++)
        shared += all[i]->n_args > 0 && parents[all[i]->id] > 1;
    free(stack);
    free(all);
    free(parents);
    free(seen);
    return shared;
}

static int64_t run_map(acc_node *map, int64_t *data, int64_t n, int64_t *result)
{
    acc_program *p = ts_compile(ctx, g, map);
    acc_array out;
    cr_assert_eq(ts_run_vec(p, ACC_I64, data, n, &out), ACC_OK, "%s",
                 acc_last_error());
    memcpy(result, out.data[0], (size_t)n * sizeof *result);
    acc_array_release(&out);
    acc_program_free(p);
    return 0;
}

Test(sharing, random_dags_evaluate_the_same_with_and_without_recovery)
{
    for (int round = 0; round < 40; round++) {
        ts_fresh_graph(ctx, &g);
        acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), 1);
        acc_node *x = acc_param(g, acc_type_scalar(ACC_I64));
        acc_node *body = random_dag(x, 8 + (int)ts_rnd(&rng_state, 20));
        acc_node *map = acc_map(g, acc_lambda(g, 1, &x, body), xs);
        cr_assert(map, "%s", acc_graph_last_error(g));

        int64_t data[6] = {0, 1, -3, 7, 1000, -99}, with[6], without[6];
        run_map(map, data, 6, with);
        setenv("ACC_DISABLE", "sharing,simplify,fusion", 1);
        run_map(map, data, 6, without);
        setenv("ACC_DISABLE", "simplify,fusion", 1);
        for (int i = 0; i < 6; i++)
            cr_expect_eq(with[i], without[i], "round %d, x = %lld", round,
                         (long long)data[i]);

        /* one node per distinct DAG node, plus the bindings: the body's
         * distinct nodes besides the param, and the map, the lambda, the
         * param and the input */
        uint8_t *seen = calloc(g->n_nodes, 1);
        uint32_t distinct = distinct_reachable(body, seen);
        uint32_t with_x = seen[x->id] ? 0 : 1;
        free(seen);
        uint32_t shared = shared_inner_nodes(body, g->n_nodes);
        acc_program *p = ts_compile(ctx, g, map);
        census c = take_census(p);
        cr_expect_eq(c.nodes, distinct + with_x + 3, "round %d: %u nodes, %u "
                     "distinct", round, c.nodes, distinct);
        cr_expect_eq(c.lets, shared, "round %d: %u lets, %u shared nodes",
                     round, c.lets, shared);
        cr_expect_eq(c.multi_parent, 0, "round %d: not a tree", round);
        acc_program_free(p);
    }
}
