/*
 * test_control.c — array-level control (LANGUAGE.md §3.7) on the reference
 * interpreter: acond (only the chosen branch runs, tuples of arrays) and
 * awhile with array functions (cond tested before the first iteration,
 * tuples of arrays as state, shapes that change between iterations,
 * loop-invariant arrays, values shared inside the body, nested loops,
 * errors inside the body), and the builder errors of both.  Expected
 * values are computed here with plain C loops.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "accel.h"
#include "support.h"

static acc_context *ctx;
static acc_graph *g;

static void setup(void)
{
    ts_fixture_open(&ctx, &g);
}

static void teardown(void)
{
    ts_fixture_close(&ctx, &g);
}

TestSuite(control, .init = setup, .fini = teardown);

/* ---- small builders --------------------------------------------------- */

static const acc_type *arr(acc_scalar s, int32_t rank)
{
    return acc_type_array(ctx, ts_sc(s), rank);
}

/* map (\x -> x `op` k) xs over i64 */
static acc_node *map_const(acc_primop op, int64_t k, acc_node *xs)
{
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    return acc_map(g, ts_lam1(g, x, acc_binop(g, op, x, ts_i64(g, k))), xs);
}

/* sum of an i64 vector, as a Scalar */
static acc_node *sum(acc_node *xs)
{
    return acc_fold(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), ts_i64(g, 0), xs);
}

/* unit (the s `op` k): a Scalar bool from a Scalar i64 */
static acc_node *scalar_test(acc_primop op, acc_node *s, int64_t k)
{
    return acc_unit(g, acc_binop(g, op, acc_the(g, s), ts_i64(g, k)));
}

/* Runs prog on one i64 vector and a bool Scalar; returns the status. */
static acc_status run_vec_flag(acc_program *prog, int64_t *x, int64_t n,
                               uint8_t flag, acc_array *out)
{
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, x),
                       ts_host(ACC_BOOL, 0, NULL, &flag)};
    return ts_run_program(prog, 2, in, acc_program_num_outputs(prog), out);
}

/* ---- acond -------------------------------------------------------------- */

Test(control, acond_chooses_by_the_condition)
{
    int64_t x[4] = {1, -2, 3, 10}, want[4];
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *c = acc_input(g, ts_sc(ACC_BOOL), 0);
    acc_node *r = acc_acond(g, acc_the(g, c), map_const(ACC_OP_MUL, 2, xs),
                            map_const(ACC_OP_ADD, 1, xs));
    acc_program *prog = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &prog));
    acc_array out;
    ts_expect_ok(g, run_vec_flag(prog, x, 4, 1, &out));
    for (int i = 0; i < 4; i++)
        want[i] = x[i] * 2;
    ts_expect_i64(&out, want, 4);
    acc_array_release(&out);
    ts_expect_ok(g, run_vec_flag(prog, x, 4, 0, &out));
    for (int i = 0; i < 4; i++)
        want[i] = x[i] + 1;
    ts_expect_i64(&out, want, 4);
    acc_array_release(&out);
    acc_program_free(prog);
}

/* The branch not taken is never computed: here it would read out of
 * bounds; taking it shows that it does fail. */
Test(control, acond_evaluates_only_the_chosen_branch)
{
    int64_t x[3] = {4, 5, 6};
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *c = acc_input(g, ts_sc(ACC_BOOL), 0);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *bad = acc_backpermute(g, ts_idx1(g, ts_i64(g, 3)),
                                    ts_lam1(g, ix,
                                            ts_idx1(g,
                                                    acc_binop(g, ACC_OP_ADD,
                                                              acc_get(g, ix, 0),
                                                              ts_i64(g, 10)))),
                                    xs);
    acc_node *r = acc_acond(g, acc_the(g, c), xs, bad);
    acc_program *prog = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &prog));
    acc_array out;
    ts_expect_ok(g, run_vec_flag(prog, x, 3, 1, &out));
    ts_expect_i64(&out, x, 3);
    acc_array_release(&out);
    acc_status st = run_vec_flag(prog, x, 3, 0, &out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "status %s", acc_status_string(st));
    cr_assert(ts_contains_ci(acc_program_last_error(prog), "backpermute"),
              "message: %s", acc_program_last_error(prog));
    acc_program_free(prog);
}

/* Both branches are tuples of arrays (of different ranks). */
Test(control, acond_on_tuples_of_arrays)
{
    int64_t x[3] = {7, 8, 9}, want[3];
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *c = acc_input(g, ts_sc(ACC_BOOL), 0);
    acc_node *a[2] = {map_const(ACC_OP_SUB, 7, xs), sum(xs)};
    acc_node *b[2] = {xs, acc_unit(g, ts_i64(g, -1))};
    acc_node *r = acc_acond(g, acc_the(g, c), acc_tuple(g, 2, a),
                            acc_tuple(g, 2, b));
    acc_program *prog = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &prog));
    cr_assert_eq(acc_program_num_outputs(prog), 2);
    acc_array out[2];
    ts_expect_ok(g, run_vec_flag(prog, x, 3, 1, out));
    for (int i = 0; i < 3; i++)
        want[i] = x[i] - 7;
    ts_expect_i64(&out[0], want, 3);
    cr_assert_eq(out[1].rank, 0);
    cr_assert_eq(*(const int64_t *)out[1].data[0], 24);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
    ts_expect_ok(g, run_vec_flag(prog, x, 3, 0, out));
    ts_expect_i64(&out[0], x, 3);
    cr_assert_eq(*(const int64_t *)out[1].data[0], -1);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
    acc_program_free(prog);
}

Test(control, acond_condition_must_be_bool)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    cr_assert_null(acc_acond(g, ts_i64(g, 1), xs, xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "acond");
}

Test(control, acond_branches_must_have_one_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ys = acc_input(g, ts_sc(ACC_I64), 2);
    cr_assert_null(acc_acond(g, ts_bool(g, 1), xs, ys));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "acond");
}

Test(control, acond_branch_must_be_an_array)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    cr_assert_null(acc_acond(g, ts_bool(g, 1), xs, ts_i64(g, 3)));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "acond");
}

/* ---- awhile ------------------------------------------------------------- */

/* Doubles a vector while its sum is below 1000. */
Test(control, awhile_doubles_until_the_sum_is_large)
{
    int64_t x[3] = {1, 2, 4}, n = 3, want[3];
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *p = acc_param(g, arr(ACC_I64, 1));
    acc_node *cond = ts_lam1(g, p, scalar_test(ACC_OP_LT, sum(p), 1000));
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    acc_node *body = ts_lam1(g, q, map_const(ACC_OP_MUL, 2, q));
    acc_node *r = acc_awhile(g, cond, body, xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    memcpy(want, x, sizeof want);
    while (want[0] + want[1] + want[2] < 1000)
        for (int i = 0; i < 3; i++)
            want[i] *= 2;
    ts_expect_i64(&out, want, 3);
    acc_array_release(&out);
}

/* cond is tested before the first iteration: a false cond gives init,
 * and the body (which would fail) never runs. */
Test(control, awhile_false_at_the_start_returns_init)
{
    int64_t x[2] = {5, 6}, n = 2;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *p = acc_param(g, arr(ACC_I64, 1));
    acc_node *cond = ts_lam1(g, p, acc_unit(g, ts_bool(g, 0)));
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *bad = acc_backpermute(g, acc_shape(g, q),
                                    ts_lam1(g, ix, ts_idx1(g, ts_i64(g, 99))),
                                    q);
    acc_node *r = acc_awhile(g, cond, ts_lam1(g, q, bad), xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_i64(&out, x, 2);
    acc_array_release(&out);
}

/* The state is a tuple (counter Scalar, matrix); the body adds the
 * counter to every element; cond reads the counter. */
Test(control, awhile_over_a_tuple_of_arrays)
{
    int64_t m[6] = {0, 1, 2, 3, 4, 5}, ext[2] = {2, 3};
    acc_node *ms = acc_input(g, ts_sc(ACC_I64), 2);
    const acc_type *fs[2] = {arr(ACC_I64, 0), arr(ACC_I64, 2)};
    const acc_type *t = acc_type_tuple(ctx, 2, fs);
    acc_node *p = acc_param(g, t);
    acc_node *cond = ts_lam1(g, p, scalar_test(ACC_OP_LT, acc_get(g, p, 0), 5));
    acc_node *q = acc_param(g, t);
    acc_node *k = acc_the(g, acc_get(g, q, 0));
    acc_node *e = acc_param(g, ts_sc(ACC_I64));
    acc_node *next[2] = {acc_unit(g, acc_binop(g, ACC_OP_ADD, k, ts_i64(g, 1))),
                         acc_map(g,
                                 ts_lam1(g, e, acc_binop(g, ACC_OP_ADD, e, k)),
                                 acc_get(g, q, 1))};
    acc_node *init[2] = {acc_unit(g, ts_i64(g, 0)), ms};
    acc_node *r = acc_awhile(g, cond, ts_lam1(g, q, acc_tuple(g, 2, next)),
                             acc_tuple(g, 2, init));
    acc_array in = ts_host(ACC_I64, 2, ext, m), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, out));
    int64_t want[6];
    memcpy(want, m, sizeof want);
    for (int64_t c = 0; c < 5; c++)
        for (int i = 0; i < 6; i++)
            want[i] += c;
    cr_assert_eq(*(const int64_t *)out[0].data[0], 5);
    cr_assert_eq(out[1].rank, 2);
    ts_expect_i64(&out[1], want, 6);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

/* The shape of the state changes every iteration: append the sum. */
Test(control, awhile_with_a_growing_state)
{
    acc_node *p = acc_param(g, arr(ACC_I64, 1));
    acc_node *cond = ts_lam1(g, p,
                             acc_unit(g, acc_binop(g, ACC_OP_LT, acc_size(g, p),
                                                   ts_i64(g, 8))));
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    acc_node *s = acc_the(g, sum(q));
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *i = acc_get(g, ix, 0);
    acc_node *last = acc_binop(g, ACC_OP_EQ, i, acc_size(g, q));
    acc_node *elem = acc_cond(g, last, s,
                              acc_read(g, q,
                                       ts_idx1(g, acc_cond(g, last,
                                                           ts_i64(g, 0), i))));
    acc_node *grown = acc_generate(g,
                                   ts_idx1(g, acc_binop(g, ACC_OP_ADD,
                                                        acc_size(g, q),
                                                        ts_i64(g, 1))),
                                   ts_lam1(g, ix, elem));
    acc_node *init = acc_fill(g, ts_idx1(g, ts_i64(g, 2)), ts_i64(g, 1));
    acc_node *r = acc_awhile(g, cond, ts_lam1(g, q, grown), init);
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 0, NULL, &out));
    int64_t want[8] = {1, 1};
    for (int k = 2; k < 8; k++) {
        want[k] = 0;
        for (int j = 0; j < k; j++)
            want[k] += want[j];
    }
    ts_expect_i64(&out, want, 8);
    acc_array_release(&out);
}

/* The body uses an array computed outside the loop (loop invariant: kept
 * across iterations) and a value of its own used twice (recomputed every
 * iteration: it depends on the parameter). */
Test(control, awhile_with_invariant_and_shared_values)
{
    int64_t x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40}, n = 4;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ys = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *inv = map_const(ACC_OP_MUL, 3, ys);
    acc_node *p = acc_param(g, arr(ACC_I64, 1));
    acc_node *cond = ts_lam1(g, p, scalar_test(ACC_OP_LT, sum(p), 100000));
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    acc_node *twice = map_const(ACC_OP_MUL, 2, q);
    acc_node *zs[2] = {twice, inv};
    acc_node *t = acc_zipwith(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), 2, zs);
    acc_node *zs2[2] = {t, twice};
    acc_node *next = acc_zipwith(g, ts_binop_fn(g, ACC_I64, ACC_OP_SUB), 2,
                                 zs2);
    acc_node *body_out[2] = {next, twice};
    acc_node *nx = acc_zipwith(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), 2,
                               body_out);
    acc_node *r = acc_awhile(g, cond, ts_lam1(g, q, nx), xs);
    acc_node *rs[2] = {r, inv};
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, x), ts_host(ACC_I64, 1, &n, y)};
    acc_array out[2];
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 2, in, out));
    int64_t want[4], s;
    memcpy(want, x, sizeof want);
    for (s = 10; s < 100000;) {
        s = 0;
        for (int i = 0; i < 4; i++) {
            want[i] = 2 * want[i] + 3 * y[i] - 2 * want[i] + 2 * want[i];
            s += want[i];
        }
    }
    ts_expect_i64(&out[0], want, 4);
    for (int i = 0; i < 4; i++)
        want[i] = 3 * y[i];
    ts_expect_i64(&out[1], want, 4);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

/* An awhile inside the body of another: the inner loop's initial value
 * and bound depend on the outer state.  State: (Scalar round, vector).
 * Each outer round adds 1 to every element until the first element is a
 * multiple of 5 greater than its value at the start of the round, then
 * multiplies the vector by the round number plus one. */
Test(control, nested_awhile)
{
    int64_t x[3] = {1, 2, 3}, n = 3;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    const acc_type *fs[2] = {arr(ACC_I64, 0), arr(ACC_I64, 1)};
    const acc_type *t = acc_type_tuple(ctx, 2, fs);
    /* outer cond: round < 3 */
    acc_node *p = acc_param(g, t);
    acc_node *ocond = ts_lam1(g, p,
                              scalar_test(ACC_OP_LT, acc_get(g, p, 0), 3));
    /* outer body */
    acc_node *q = acc_param(g, t);
    acc_node *round = acc_the(g, acc_get(g, q, 0));
    acc_node *v = acc_get(g, q, 1);
    acc_node *ip = acc_param(g, arr(ACC_I64, 1));
    acc_node *head = acc_read(g, ip, ts_idx1(g, ts_i64(g, 0)));
    acc_node *first = acc_read(g, v, ts_idx1(g, ts_i64(g, 0)));
    acc_node *done =
        acc_binop(g, ACC_OP_LAND, acc_binop(g, ACC_OP_GT, head, first),
                  acc_binop(g, ACC_OP_EQ,
                            acc_binop(g, ACC_OP_REM, head, ts_i64(g, 5)),
                            ts_i64(g, 0)));
    acc_node *icond = ts_lam1(g, ip,
                              acc_unit(g, acc_unop(g, ACC_OP_NOT, done)));
    acc_node *iq = acc_param(g, arr(ACC_I64, 1));
    acc_node *ibody = ts_lam1(g, iq, map_const(ACC_OP_ADD, 1, iq));
    acc_node *inner = acc_awhile(g, icond, ibody, v);
    acc_node *e = acc_param(g, ts_sc(ACC_I64));
    acc_node *scaled = acc_map(g,
                               ts_lam1(g, e,
                                       acc_binop(g, ACC_OP_MUL, e,
                                                 acc_binop(g, ACC_OP_ADD, round,
                                                           ts_i64(g, 1)))),
                               inner);
    acc_node *next[2] = {acc_unit(g, acc_binop(g, ACC_OP_ADD, round,
                                               ts_i64(g, 1))),
                         scaled};
    acc_node *init[2] = {acc_unit(g, ts_i64(g, 0)), xs};
    acc_node *r = acc_awhile(g, ocond, ts_lam1(g, q, acc_tuple(g, 2, next)),
                             acc_tuple(g, 2, init));
    acc_array in = ts_host(ACC_I64, 1, &n, x), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, out));
    int64_t want[3];
    memcpy(want, x, sizeof want);
    for (int64_t rd = 0; rd < 3; rd++) {
        int64_t s0 = want[0];
        while (!(want[0] > s0 && want[0] % 5 == 0))
            for (int i = 0; i < 3; i++)
                want[i] += 1;
        for (int i = 0; i < 3; i++)
            want[i] *= rd + 1;
    }
    cr_assert_eq(*(const int64_t *)out[0].data[0], 3);
    ts_expect_i64(&out[1], want, 3);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

/* A runtime error in the third iteration stops the loop; nothing leaks
 * and the program runs again. */
Test(control, awhile_error_inside_the_body)
{
    int64_t x[2], n = 2;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *p = acc_param(g, arr(ACC_I64, 1));
    acc_node *cond =
        ts_lam1(g, p,
                acc_unit(g, acc_binop(g, ACC_OP_LT,
                                      acc_read(g, p, ts_idx1(g, ts_i64(g, 0))),
                                      ts_i64(g, 10))));
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    acc_node *e = acc_param(g, ts_sc(ACC_I64));
    /* e + 1 quot (2 - e): from 1 to 2, then a division by zero */
    acc_node *step =
        acc_map(g,
                ts_lam1(g, e,
                        acc_binop(g, ACC_OP_ADD, e,
                                  acc_binop(g, ACC_OP_QUOT, ts_i64(g, 1),
                                            acc_binop(g, ACC_OP_SUB,
                                                      ts_i64(g, 2), e)))),
                q);
    acc_node *r = acc_awhile(g, cond, ts_lam1(g, q, step), xs);
    acc_program *prog = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &prog));
    acc_array in = ts_host(ACC_I64, 1, &n, x), out = ts_empty_output();
    x[0] = x[1] = 1;
    acc_status st = acc_run(prog, 1, &in, 1, &out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "status %s", acc_status_string(st));
    cr_assert(ts_contains_ci(acc_program_last_error(prog), "division by zero"),
              "message: %s", acc_program_last_error(prog));
    cr_assert_null(out.data[0]);
    x[0] = x[1] = 20;
    ts_expect_ok(g, acc_run(prog, 1, &in, 1, &out));
    ts_expect_i64(&out, x, 2);
    acc_array_release(&out);
    acc_program_free(prog);
}

/* The same program run twice gives the same result (the per-run tables
 * start afresh). */
Test(control, awhile_program_runs_twice)
{
    int64_t x[1] = {3}, n = 1;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *p = acc_param(g, arr(ACC_I64, 1));
    acc_node *cond = ts_lam1(g, p, scalar_test(ACC_OP_LT, sum(p), 50));
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    acc_node *r = acc_awhile(g, cond,
                             ts_lam1(g, q, map_const(ACC_OP_ADD, 7, q)), xs);
    acc_program *prog = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &prog));
    for (int k = 0; k < 2; k++) {
        acc_array in = ts_host(ACC_I64, 1, &n, x), out = ts_empty_output();
        ts_expect_ok(g, acc_run(prog, 1, &in, 1, &out));
        const int64_t want = 52;
        ts_expect_i64(&out, &want, 1);
        acc_array_release(&out);
    }
    acc_program_free(prog);
}

Test(control, awhile_cond_must_return_a_scalar_bool)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *p = acc_param(g, arr(ACC_I64, 1));
    acc_node *e = acc_param(g, ts_sc(ACC_I64));
    acc_node *cond =
        ts_lam1(g, p,
                acc_map(g,
                        ts_lam1(g, e, acc_binop(g, ACC_OP_LT, e, ts_i64(g, 3))),
                        p));
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    cr_assert_null(acc_awhile(g, cond, ts_lam1(g, q, q), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "awhile");
}

Test(control, awhile_body_must_keep_the_state_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *p = acc_param(g, arr(ACC_I64, 1));
    acc_node *cond = ts_lam1(g, p, acc_unit(g, ts_bool(g, 0)));
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    cr_assert_null(acc_awhile(g, cond, ts_lam1(g, q, sum(q)), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "awhile");
}

Test(control, awhile_needs_array_functions)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *b = acc_param(g, ts_sc(ACC_BOOL));
    acc_node *cond = ts_lam1(g, b, b);
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    cr_assert_null(acc_awhile(g, cond, ts_lam1(g, q, q), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "awhile");
}

Test(control, awhile_init_must_be_an_array)
{
    acc_node *p = acc_param(g, arr(ACC_I64, 1));
    acc_node *cond = ts_lam1(g, p, acc_unit(g, ts_bool(g, 0)));
    cr_assert_null(acc_awhile(g, cond, cond, ts_i64(g, 1)));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "awhile");
}

/* An array function may not capture a scalar parameter. */
Test(control, array_function_capturing_a_scalar_parameter_is_refused)
{
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *q = acc_param(g, arr(ACC_I64, 1));
    acc_node *e = acc_param(g, ts_sc(ACC_I64));
    acc_node *m = acc_map(g, ts_lam1(g, e, acc_binop(g, ACC_OP_ADD, e, x)), q);
    cr_assert_null(m ? acc_lambda(g, 1, &q, m) : NULL);
    cr_assert_neq(acc_graph_status(g), ACC_OK);
    ts_fresh_graph(ctx, &g);
}
