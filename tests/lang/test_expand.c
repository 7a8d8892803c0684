/*
 * test_expand.c — irregular expansion (LANGUAGE.md §3.6) on the reference
 * interpreter: results concatenated in order, empty contributions, tuple
 * elements and results, elements holding a shape, negative sizes, the
 * builder errors, and the sieve of LANGUAGE.md §3.6 (permute' after
 * expand) checked against a sieve of Eratosthenes written in C.
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
    ctx = ts_context(ACC_BACKEND_INTERP);
    g = ts_graph(ctx);
}

static void teardown(void)
{
    acc_graph_free(g);
    acc_context_destroy(ctx);
    g = NULL;
    ctx = NULL;
}

TestSuite(expand, .init = setup, .fini = teardown);

/* ---- small builders --------------------------------------------------- */

static const acc_type *sc(acc_scalar s)
{
    return acc_type_scalar(s);
}

static acc_node *lam1(acc_node *p, acc_node *body)
{
    return acc_lambda(g, 1, &p, body);
}

static acc_node *lam2(acc_node *a, acc_node *b, acc_node *body)
{
    acc_node *ps[2] = {a, b};
    return acc_lambda(g, 2, ps, body);
}

static acc_node *bin(acc_primop op, acc_node *a, acc_node *b)
{
    return acc_binop(g, op, a, b);
}

static acc_node *idx1(acc_node *i)
{
    return acc_index(g, 1, &i);
}

static acc_array host1(acc_scalar s, int32_t rank, const int64_t *ext,
                       void *buf)
{
    return ts_host_array(sc(s), rank, ext, &buf);
}

static void expect_ok(acc_status st)
{
    cr_assert_eq(st, ACC_OK, "status %s: %s (graph: %s)",
                 acc_status_string(st), acc_last_error(),
                 acc_graph_last_error(g));
}

static void expect_i64(const acc_array *a, const int64_t *want, int64_t n)
{
    cr_assert_eq(acc_array_size(a), n, "size %lld, expected %lld",
                 (long long)acc_array_size(a), (long long)n);
    const int64_t *o = a->data[0];
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(o[i], want[i], "element %lld is %lld, expected %lld",
                     (long long)i, (long long)o[i], (long long)want[i]);
}

static void expect_builder_error(acc_status want, const char *op)
{
    cr_assert_eq(acc_graph_status(g), want, "status %s, expected %s (%s)",
                 acc_status_string(acc_graph_status(g)),
                 acc_status_string(want), acc_graph_last_error(g));
    cr_assert(ts_contains_ci(acc_graph_last_error(g), op), "message: %s",
              acc_graph_last_error(g));
    acc_graph_free(g);
    g = ts_graph(ctx);
    int64_t v = 0;
    expect_ok(ts_eval_scalar(ctx, g, ts_i64(g, 7), &v, sizeof v));
    cr_assert_eq(v, 7);
}

/* expand (\x -> x) (\x k -> 10 x + k) xs */
static acc_node *tens(acc_node *xs)
{
    acc_node *x = acc_param(g, sc(ACC_I64));
    acc_node *y = acc_param(g, sc(ACC_I64)), *k = acc_param(g, sc(ACC_I64));
    acc_node *get = lam2(y, k, bin(ACC_OP_ADD,
                                   bin(ACC_OP_MUL, y, ts_i64(g, 10)), k));
    return acc_expand(g, lam1(x, x), get, xs);
}

/* ---- expand ----------------------------------------------------------- */

Test(expand, results_are_concatenated_in_order)
{
    int64_t x[6] = {3, 0, 2, 1, 0, 4}, n = 6, want[32], m = 0;
    acc_node *xs = acc_input(g, sc(ACC_I64), 1);
    acc_node *r = tens(xs);
    acc_array in = host1(ACC_I64, 1, &n, x), out;
    expect_ok(ts_run(ctx, g, 1, &r, 1, &in, &out));
    for (int i = 0; i < 6; i++)
        for (int64_t k = 0; k < x[i]; k++)
            want[m++] = 10 * x[i] + k;
    cr_assert_eq(out.rank, 1);
    expect_i64(&out, want, m);
    acc_array_release(&out);
}

Test(expand, empty_input_and_zero_sizes_give_an_empty_vector)
{
    int64_t zeros[3] = {0, 0, 0}, n = 3, none = 0;
    acc_node *xs = acc_input(g, sc(ACC_I64), 1);
    acc_node *r = tens(xs);
    acc_program *prog = NULL;
    expect_ok(acc_compile(ctx, g, 1, &r, &prog));
    acc_array in = host1(ACC_I64, 1, &n, zeros), out;
    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    expect_ok(acc_run(prog, 1, &in, 1, &out));
    cr_assert_eq(out.extents[0], 0);
    acc_array_release(&out);
    in = host1(ACC_I64, 1, &none, NULL);
    expect_ok(acc_run(prog, 1, &in, 1, &out));
    cr_assert_eq(out.extents[0], 0);
    acc_array_release(&out);
    acc_program_free(prog);
}

/* Tuple elements in, tuple results out: (count, scale) gives
 * (scale * k as f64, k as i32) for k < count. */
Test(expand, tuple_elements_and_results)
{
    int32_t cnt[4] = {2, 0, 3, 1};
    double scale[4] = {0.5, 9.0, -1.0, 4.0};
    int64_t n = 4;
    const acc_type *fs[2] = {sc(ACC_I32), sc(ACC_F64)};
    const acc_type *e = acc_type_tuple(ctx, 2, fs);
    acc_node *xs = acc_input(g, e, 1);
    acc_node *x = acc_param(g, e);
    acc_node *size = lam1(x, acc_convert(g, acc_get(g, x, 0), ACC_I64));
    acc_node *y = acc_param(g, e), *k = acc_param(g, sc(ACC_I64));
    acc_node *res[2] = {
        bin(ACC_OP_MUL, acc_get(g, y, 1), acc_convert(g, k, ACC_F64)),
        acc_convert(g, k, ACC_I32)};
    acc_node *r = acc_expand(g, size, lam2(y, k, acc_tuple(g, 2, res)), xs);
    void *bufs[2] = {cnt, scale};
    acc_array in = ts_host_array(e, 1, &n, bufs), out[2];
    expect_ok(ts_run(ctx, g, 1, &r, 1, &in, out));
    const double *of = out[0].data[0];
    const int32_t *oi = out[0].data[1];
    int64_t m = 0;
    for (int i = 0; i < 4; i++)
        for (int32_t j = 0; j < cnt[i]; j++, m++) {
            cr_assert_float_eq(of[m], scale[i] * j, 1e-12);
            cr_assert_eq(oi[m], j);
        }
    cr_assert_eq(out[0].extents[0], m);
    acc_array_release(&out[0]);
}

/* Results whose element type holds a shape: ([x + k], x), delivered as a
 * program output with i64 leaves for the shape. */
Test(expand, results_holding_a_shape)
{
    int64_t x[2] = {2, 5}, n = 2;
    acc_node *xs = acc_input(g, sc(ACC_I64), 1);
    acc_node *v = acc_param(g, sc(ACC_I64));
    acc_node *y = acc_param(g, sc(ACC_I64)), *k = acc_param(g, sc(ACC_I64));
    acc_node *res[2] = {idx1(bin(ACC_OP_ADD, y, k)), y};
    acc_node *r = acc_expand(g, lam1(v, ts_i64(g, 2)),
                             lam2(y, k, acc_tuple(g, 2, res)), xs);
    acc_array in = host1(ACC_I64, 1, &n, x), out;
    expect_ok(ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(acc_type_leaf_count(out.type), 2);
    const int64_t want_ix[4] = {2, 3, 5, 6}, want_v[4] = {2, 2, 5, 5};
    cr_assert_eq(memcmp(out.data[0], want_ix, sizeof want_ix), 0);
    cr_assert_eq(memcmp(out.data[1], want_v, sizeof want_v), 0);
    acc_array_release(&out);
}

Test(expand, negative_size_is_a_runtime_error)
{
    int64_t x[3] = {1, -2, 3}, n = 3;
    acc_node *xs = acc_input(g, sc(ACC_I64), 1);
    acc_node *r = tens(xs);
    acc_array in = host1(ACC_I64, 1, &n, x), out;
    acc_status st = ts_run(ctx, g, 1, &r, 1, &in, &out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "status %s", acc_status_string(st));
    cr_assert(ts_contains_ci(acc_last_error(), "expand"), "message: %s",
              acc_last_error());
    cr_assert(ts_contains_ci(acc_last_error(), "-2"), "message: %s",
              acc_last_error());
    /* the graph and context stay usable */
    x[1] = 2;
    expect_ok(ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(out.extents[0], 6);
    acc_array_release(&out);
}

Test(expand, needs_a_vector)
{
    acc_node *xs = acc_input(g, sc(ACC_I64), 2);
    cr_assert_null(tens(xs));
    expect_builder_error(ACC_ERR_SHAPE, "expand");
}

Test(expand, size_must_return_i64)
{
    acc_node *xs = acc_input(g, sc(ACC_I64), 1);
    acc_node *x = acc_param(g, sc(ACC_I64));
    acc_node *y = acc_param(g, sc(ACC_I64)), *k = acc_param(g, sc(ACC_I64));
    cr_assert_null(acc_expand(g, lam1(x, acc_convert(g, x, ACC_I32)),
                              lam2(y, k, y), xs));
    expect_builder_error(ACC_ERR_TYPE, "expand");
}

Test(expand, get_must_take_the_element_and_an_i64)
{
    acc_node *xs = acc_input(g, sc(ACC_I64), 1);
    acc_node *x = acc_param(g, sc(ACC_I64));
    acc_node *y = acc_param(g, sc(ACC_I64)), *k = acc_param(g, sc(ACC_I32));
    cr_assert_null(acc_expand(g, lam1(x, x), lam2(y, k, y), xs));
    expect_builder_error(ACC_ERR_TYPE, "expand");
}

/* ---- the sieve of LANGUAGE.md §3.6 ------------------------------------ */

/* sieveMarks ps n =
 *   permute' (+) (fill [n] 0)
 *     (expand (\p -> quot (n - p) p)
 *             (\p k -> let m = (k + 2) * p
 *                      in (if m < n then [m] else ignore, 1)) ps) */
static acc_node *sieve_marks(acc_node *ps, acc_node *n_scalar)
{
    acc_node *n = acc_the(g, n_scalar);
    acc_node *p = acc_param(g, sc(ACC_I64));
    acc_node *size = lam1(p, bin(ACC_OP_QUOT, bin(ACC_OP_SUB, n, p), p));
    acc_node *q = acc_param(g, sc(ACC_I64)), *k = acc_param(g, sc(ACC_I64));
    acc_node *m = bin(ACC_OP_MUL, bin(ACC_OP_ADD, k, ts_i64(g, 2)), q);
    acc_node *target = acc_cond(g, bin(ACC_OP_LT, m, n), idx1(m),
                                acc_ignore(g, 1));
    acc_node *pair[2] = {target, ts_i32(g, 1)};
    acc_node *get = lam2(q, k, acc_tuple(g, 2, pair));
    acc_node *a = acc_param(g, sc(ACC_I32)), *b = acc_param(g, sc(ACC_I32));
    acc_node *plus = lam2(a, b, bin(ACC_OP_ADD, a, b));
    acc_node *zeros = acc_fill(g, idx1(n), ts_i32(g, 0));
    return acc_permute_pairs(g, plus, zeros, acc_expand(g, size, get, ps));
}

Test(expand, sieve_marks_the_composites_below_100)
{
    enum { N = 100 };
    int64_t ps[4] = {2, 3, 5, 7}, np = 4, n = N;
    acc_node *psn = acc_input(g, sc(ACC_I64), 1);
    acc_node *nn = acc_input(g, sc(ACC_I64), 0);
    acc_node *r = sieve_marks(psn, nn);
    acc_array in[2] = {host1(ACC_I64, 1, &np, ps), host1(ACC_I64, 0, NULL, &n)};
    acc_array out;
    expect_ok(ts_run(ctx, g, 1, &r, 2, in, &out));
    cr_assert_eq(out.rank, 1);
    cr_assert_eq(out.extents[0], N);
    const int32_t *marks = out.data[0];
    /* the marks: how many p of ps have m as a multiple, m >= 2p */
    for (int m = 0; m < N; m++) {
        int32_t want = 0;
        for (int j = 0; j < 4; j++)
            want += m >= 2 * ps[j] && m % ps[j] == 0;
        cr_assert_eq(marks[m], want, "marks[%d] is %d, expected %d", m,
                     (int)marks[m], (int)want);
    }
    /* the primes below 100 are exactly the unmarked numbers >= 2 */
    int composite[N] = {0};
    for (int i = 2; i * i < N; i++)
        if (!composite[i])
            for (int j = i * i; j < N; j += i)
                composite[j] = 1;
    for (int m = 2; m < N; m++)
        cr_assert_eq(marks[m] == 0, !composite[m], "%d", m);
    acc_array_release(&out);
}
