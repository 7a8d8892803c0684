/*
 * test_fusion.c — fusion as users observe it: the plan (kernels,
 * intermediate arrays, fused operations, duplicated producers), the run
 * statistics, and values equal to the unfused program's.
 */
#include <criterion/criterion.h>

#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

TestSuite(fusion, .init = setup, .fini = teardown);

/* \x -> x * k + 1 over scalar type s */
static acc_node *affine(acc_scalar s, double k)
{
    acc_node *x = acc_param(g, ts_sc(s));
    acc_node *kk = acc_const_f64(g, s, k), *one = acc_const_f64(g, s, 1);
    return ts_lam1(g, x,
                   acc_binop(g, ACC_OP_ADD, acc_binop(g, ACC_OP_MUL, x, kk),
                             one));
}

static acc_plan_summary plan_of(const acc_program *p)
{
    acc_plan_summary s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    cr_assert_eq(acc_program_plan(p, &s), ACC_OK);
    return s;
}

static void expect_plan(const acc_program *p, size_t kernels,
                        size_t intermediates)
{
    acc_plan_summary s = plan_of(p);
    char *text = NULL;
    acc_program_explain(p, 0, &text);
    cr_expect_eq(s.kernels, kernels, "kernels %zu, expected %zu\n%s",
                 s.kernels, kernels, text ? text : "");
    cr_expect_eq(s.intermediates, intermediates,
                 "intermediates %zu, expected %zu\n%s", s.intermediates,
                 intermediates, text ? text : "");
    acc_free(text);
}

static int explain_contains(const acc_program *p, int json, const char *what)
{
    char *text = NULL;
    cr_assert_eq(acc_program_explain(p, json, &text), ACC_OK);
    int found = strstr(text, what) != NULL;
    acc_free(text);
    return found;
}

/* Runs a program of one f32 vector input and output, library outputs. */
static void run_vec(acc_program *p, size_t n_in, float *const *in, int64_t n,
                    acc_array *out)
{
    acc_array ins[4];
    for (size_t i = 0; i < n_in; i++)
        ins[i] = ts_host(ACC_F32, 1, &n, in[i]);
    cr_assert_eq(ts_run_program(p, n_in, ins, 1, out), ACC_OK, "%s",
                 acc_last_error());
}

/* ---- the structural cases of the issue ------------------------------------ */

Test(fusion, dot_product_is_one_kernel_without_intermediates)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1),
             *ys = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *both[2] = {xs, ys};
    acc_node *prod = acc_zipwith(g, ts_binop_fn(g, ACC_F32, ACC_OP_MUL), 2,
                                 both);
    acc_node *r = acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD), ts_f32(g, 0),
                           prod);
    acc_program *p = ts_compile(ctx, g, r);
    expect_plan(p, 1, 0);
    cr_expect(explain_contains(p, 0, "contains: zipWith, fold") ||
              explain_contains(p, 0, "contains: fold, zipWith"));
    cr_expect(explain_contains(p, 1, "\"kernels\":1"));
    cr_expect(explain_contains(p, 1, "\"intermediates\":0"));

    float a[1000], b[1000];
    double want = 0;
    for (int i = 0; i < 1000; i++) {
        a[i] = (float)(i % 13) * 0.5f;
        b[i] = (float)(i % 7) - 3.0f;
        want += (double)a[i] * b[i];
    }
    float *in[2] = {a, b};
    acc_array out;
    run_vec(p, 2, in, 1000, &out);
    cr_expect_float_eq(*(float *)out.data[0], (float)want, 1e-3);
    acc_array_release(&out);
    acc_run_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    cr_assert_eq(acc_program_last_run(p, &st), ACC_OK);
    cr_expect_eq(st.kernels_launched, 1);
    cr_expect_eq(st.intermediate_bytes, 0);
    cr_expect_eq(st.bytes_allocated, sizeof(float), "only the result");
    acc_program_free(p);
}

Test(fusion, blackscholes_is_one_kernel)
{
    acc_node *r = ts_blackscholes(ctx, g);
    acc_program *p = ts_compile(ctx, g, r);
    expect_plan(p, 1, 0);
    acc_program_free(p);
}

/* map f (reverse xs), reverse as a backpermute */
Test(fusion, map_after_backpermute_is_one_kernel)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *len = acc_get(g, acc_shape(g, xs), 0);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *src = acc_binop(g, ACC_OP_SUB,
                              acc_binop(g, ACC_OP_SUB, len, ts_i64(g, 1)),
                              acc_get(g, ix, 0));
    acc_node *rev = acc_backpermute(g, acc_shape(g, xs),
                                    ts_lam1(g, ix, acc_index(g, 1, &src)), xs);
    acc_node *r = acc_map(g, affine(ACC_F32, 2.0), rev);
    acc_program *p = ts_compile(ctx, g, r);
    expect_plan(p, 1, 0);
    cr_expect(explain_contains(p, 0, "backpermute"));
    float a[5] = {1, 2, 3, 4, 5};
    float *in[1] = {a};
    acc_array out;
    run_vec(p, 1, in, 5, &out);
    for (int i = 0; i < 5; i++)
        cr_expect_float_eq(((float *)out.data[0])[i], a[4 - i] * 2 + 1, 1e-6);
    acc_array_release(&out);
    acc_program_free(p);
}

/* smvm: foldSeg (+) 0 (zipWith (*) (backpermute (shape inds) (\i -> [inds ! i]) vec) vals) segd */
Test(fusion, smvm_is_one_segmented_reduction)
{
    acc_node *segd = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *inds = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *vals = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *vec = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *i = acc_param(g, acc_type_shape(1));
    acc_node *col = acc_read(g, inds, i);
    acc_node *vv = acc_backpermute(g, acc_shape(g, inds),
                                   ts_lam1(g, i, acc_index(g, 1, &col)), vec);
    acc_node *pair[2] = {vv, vals};
    acc_node *prods = acc_zipwith(g, ts_binop_fn(g, ACC_F32, ACC_OP_MUL), 2,
                                  pair);
    acc_node *r = acc_fold_seg(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                               ts_f32(g, 0), prods, segd);
    acc_program *p = ts_compile(ctx, g, r);
    expect_plan(p, 1, 0);
    cr_expect(explain_contains(p, 0, "backpermute"));
    cr_expect(explain_contains(p, 0, "zipWith"));

    /* [[1 0 2] [0 0 0] [0 3 4]] * [1 2 3] = [7 0 18] */
    int64_t seg[3] = {2, 0, 2}, ind[4] = {0, 2, 1, 2}, e3[1] = {3}, e4[1] = {4};
    float val[4] = {1, 2, 3, 4}, v[3] = {1, 2, 3};
    acc_array in[4] = {ts_host(ACC_I64, 1, e3, seg),
                       ts_host(ACC_I64, 1, e4, ind),
                       ts_host(ACC_F32, 1, e4, val),
                       ts_host(ACC_F32, 1, e3, v)};
    acc_array out;
    cr_assert_eq(ts_run_program(p, 4, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    float want[3] = {7, 0, 18};
    for (int k = 0; k < 3; k++)
        cr_expect_float_eq(((float *)out.data[0])[k], want[k], 1e-6);
    acc_array_release(&out);
    acc_program_free(p);
}

Test(fusion, map_after_fold_is_fused_into_its_output)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 2);
    acc_node *sums = acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                              ts_f32(g, 0), xs);
    acc_node *r = acc_map(g, affine(ACC_F32, 0.5), sums);
    acc_program *p = ts_compile(ctx, g, r);
    expect_plan(p, 1, 0);
    cr_expect(explain_contains(p, 0, "contains: map, fold") ||
              explain_contains(p, 0, "contains: fold, map"));
    acc_program_free(p);
}

/* The sieve of LANGUAGE.md §3.6: permute' after expand is one kernel. */
Test(fusion, permute_pairs_after_expand_is_one_kernel)
{
    acc_node *ps = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *nn = acc_input(g, ts_sc(ACC_I64), 0);
    acc_node *r = ts_sieve_marks(g, ps, nn);
    cr_assert(r, "%s", acc_graph_last_error(g));
    acc_program *p = ts_compile(ctx, g, r);
    expect_plan(p, 1, 0);
    cr_expect(explain_contains(p, 0, "expand"));

    int64_t primes[4] = {2, 3, 5, 7}, limit = 50, e[1] = {4};
    acc_array in[2] = {ts_host(ACC_I64, 1, e, primes),
                       ts_host(ACC_I64, 0, NULL, &limit)};
    acc_array out;
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    for (int64_t x = 0; x < limit; x++) {
        int32_t want = 0;
        for (int j = 0; j < 4; j++)
            want += x >= 2 * primes[j] && x % primes[j] == 0;
        cr_expect_eq(((int32_t *)out.data[0])[x], want, "marks of %lld",
                     (long long)x);
    }
    acc_array_release(&out);
    acc_program_free(p);
}

/* r compiled with fusion on, then off (ACC_DISABLE=fusion): the plans
 * have `fused` and `unfused` kernels (each unfused kernel but the last
 * writes an intermediate array), and both give the same values on the
 * f32 vector `in`. */
static void expect_separated(acc_node *r, size_t fused, size_t unfused,
                             float *in, int64_t n)
{
    acc_program *p = ts_compile(ctx, g, r);
    cr_assert_eq(setenv("ACC_DISABLE", "fusion", 1), 0);
    acc_program *q = ts_compile(ctx, g, r);
    unsetenv("ACC_DISABLE");
    expect_plan(p, fused, 0);
    expect_plan(q, unfused, unfused - 1);
    acc_array a, b;
    run_vec(p, in ? 1 : 0, &in, n, &a);
    run_vec(q, in ? 1 : 0, &in, n, &b);
    int64_t len = a.rank ? a.extents[0] : 1;
    cr_assert_eq(a.rank, b.rank);
    cr_assert_eq(len, b.rank ? b.extents[0] : 1);
    for (int64_t i = 0; i < len; i++)
        cr_expect_eq(((float *)a.data[0])[i], ((float *)b.data[0])[i],
                     "element %lld", (long long)i);
    acc_array_release(&a);
    acc_array_release(&b);
    acc_program_free(p);
    acc_program_free(q);
}

/* With fusion off nothing is embedded by its form either (fusion/
 * separate.c): a generate written in place under a fold, a map over a
 * map, a map over a fold each take a kernel of their own. */
Test(fusion, disabled_fusion_separates_embedded_producers)
{
    float xs[64];
    for (int i = 0; i < 64; i++)
        xs[i] = (float)(i % 9) - 4.0f;
    acc_node *i = acc_param(g, acc_type_shape(1));
    acc_node *x = acc_convert(g, acc_get(g, i, 0), ACC_F32);
    acc_node *sq = acc_generate(g, ts_idx1(g, ts_i64(g, 64)),
        ts_lam1(g, i, acc_binop(g, ACC_OP_ADD, acc_binop(g, ACC_OP_MUL, x, x),
                                ts_f32(g, 1))));
    expect_separated(acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                              ts_f32(g, 0), sq), 1, 2, NULL, 1);
    ts_fresh_graph(ctx, &g);
    acc_node *v = acc_input(g, ts_sc(ACC_F32), 1);
    expect_separated(acc_map(g, affine(ACC_F32, 2), acc_map(g, affine(ACC_F32,
                             0.5), v)), 1, 2, xs, 64);
    ts_fresh_graph(ctx, &g);
    v = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *sum = acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                             ts_f32(g, 0), v);
    expect_separated(acc_map(g, affine(ACC_F32, 0.5), sum), 1, 2, xs, 64);
}

/* The same in the text syntax, the generate bound by a let first. */
Test(fusion, disabled_fusion_separates_a_let_bound_generate)
{
    static const char text[] =
        "sumsq (n : i64) : Scalar f32 =\n"
        "  let g = generate [n] (\\[i] -> let x = f32 i in x * x + 1.0)\n"
        "  in fold (+) 0.0 g\n";
    size_t kernels[2];
    for (int off = 0; off < 2; off++) {
        if (off)
            cr_assert_eq(setenv("ACC_DISABLE", "fusion", 1), 0);
        acc_program *p = NULL;
        cr_assert_eq(acc_compile_text(ctx, text, (size_t)-1, "sumsq", &p),
                     ACC_OK, "%s", acc_last_error());
        unsetenv("ACC_DISABLE");
        kernels[off] = plan_of(p).kernels;
        acc_program_free(p);
    }
    cr_expect_eq(kernels[0], 1);
    cr_expect_eq(kernels[1], 2);
}

/* let v = map f xs in (sum v, maximum v): v is computed once, stored, and
 * read by both reductions. */
static acc_node *shared_producer(acc_node **second)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *v = acc_map(g, affine(ACC_F32, 3.0), xs);
    *second = acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_MAX),
                       ts_f32(g, -1e30f), v);
    return acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD), ts_f32(g, 0), v);
}

static void check_shared_values(acc_program *p)
{
    float a[6] = {1, -2, 3, 0.5f, 4, -1};
    int64_t e[1] = {6};
    acc_array in = ts_host(ACC_F32, 1, e, a), out[2];
    cr_assert_eq(ts_run_program(p, 1, &in, 2, out), ACC_OK, "%s",
                 acc_last_error());
    float sum = 0, max = -1e30f;
    for (int i = 0; i < 6; i++) {
        float y = a[i] * 3 + 1;
        sum += y;
        max = y > max ? y : max;
    }
    cr_expect_float_eq(*(float *)out[0].data[0], sum, 1e-4);
    cr_expect_float_eq(*(float *)out[1].data[0], max, 1e-6);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(fusion, producer_shared_by_two_consumers_is_computed_once)
{
    acc_node *rs[2];
    rs[0] = shared_producer(&rs[1]);
    acc_program *p = ts_compile_n(ctx, g, 2, rs);
    expect_plan(p, 3, 1);
    cr_expect_eq(plan_of(p).duplicated, 0);
    check_shared_values(p);
    acc_run_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    acc_program_last_run(p, &st);
    cr_expect_eq(st.kernels_launched, 3);
    cr_expect_eq(st.intermediate_bytes, 6 * sizeof(float));
    acc_program_free(p);
}

Test(fusion, cheap_producer_is_duplicated_when_the_context_allows)
{
    ts_fixture_close(&ctx, &g);
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.fusion_duplicate_max_ops = 4;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK);
    g = ts_graph(ctx);
    acc_node *rs[2];
    rs[0] = shared_producer(&rs[1]);
    acc_program *p = ts_compile_n(ctx, g, 2, rs);
    expect_plan(p, 2, 0);
    cr_expect_eq(plan_of(p).duplicated, 1);
    cr_expect(explain_contains(p, 1, "\"duplicated\":1"));
    check_shared_values(p);
    acc_program_free(p);
}

/* Shape-only uses do not count: v is read once and its shape once, so it
 * is fused into the zipWith. */
Test(fusion, shape_only_uses_do_not_prevent_fusion)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *v = acc_map(g, affine(ACC_F32, 2.0), xs);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *ramp = acc_generate(g, acc_shape(g, v),
                                  ts_lam1(g, ix,
                                          acc_convert(g, acc_get(g, ix, 0),
                                                      ACC_F32)));
    acc_node *pair[2] = {v, ramp};
    acc_node *r = acc_zipwith(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD), 2, pair);
    acc_program *p = ts_compile(ctx, g, r);
    expect_plan(p, 1, 0);
    float a[4] = {1, 2, 3, 4};
    float *in[1] = {a};
    acc_array out;
    run_vec(p, 1, in, 4, &out);
    for (int i = 0; i < 4; i++)
        cr_expect_float_eq(((float *)out.data[0])[i], a[i] * 2 + 1 + (float)i,
                           1e-6);
    acc_array_release(&out);
    acc_program_free(p);
}

/* map g (let xs = fold .. in zipWith f xs xs): the let of manifest data
 * floats out of the producer chain, which fuses into one kernel. */
Test(fusion, let_of_manifest_data_does_not_block_a_producer_chain)
{
    acc_node *m = acc_input(g, ts_sc(ACC_F32), 2);
    acc_node *xs = acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                            ts_f32(g, 0), m);
    acc_node *pair[2] = {xs, xs};
    acc_node *z = acc_zipwith(g, ts_binop_fn(g, ACC_F32, ACC_OP_MUL), 2, pair);
    acc_node *r = acc_map(g, affine(ACC_F32, 1.0), z);
    acc_program *p = ts_compile(ctx, g, r);
    expect_plan(p, 2, 1); /* the fold, then one generate */
    acc_program_free(p);
}

/* ---- replicate and slice are producers too ---------------------------------- */

static acc_node *all_spec(void) { return acc_all(g); }

Test(fusion, replicate_and_slice_fuse_with_a_map)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *spec[2] = {ts_i64(g, 3), all_spec()};
    acc_node *rows = acc_replicate(g, 2, spec, acc_map(g, affine(ACC_F32, 2), xs));
    acc_node *fix[2] = {ts_i64(g, 1), all_spec()};
    acc_node *row = acc_slice(g, rows, 2, fix);
    acc_node *r = acc_map(g, affine(ACC_F32, 1), row);
    acc_program *p = ts_compile(ctx, g, r);
    expect_plan(p, 1, 0);
    cr_expect(explain_contains(p, 0, "replicate"));
    cr_expect(explain_contains(p, 0, "slice"));
    float a[4] = {1, 2, 3, 4};
    float *in[1] = {a};
    acc_array out;
    run_vec(p, 1, in, 4, &out);
    cr_assert_eq(out.extents[0], 4);
    for (int i = 0; i < 4; i++)
        cr_expect_float_eq(((float *)out.data[0])[i], (a[i] * 2 + 1) * 1 + 1,
                           1e-6);
    acc_array_release(&out);
    acc_program_free(p);
}

/* Reading a delayed producer at an index outside it is an error, as it is
 * without fusion, and names the user's operation. */
static void expect_runtime_error(acc_node *r, const char *op)
{
    acc_program *p = ts_compile(ctx, g, r);
    acc_array out;
    acc_status st = ts_run_program(p, 0, NULL, 1, &out);
    cr_expect_eq(st, ACC_ERR_RUNTIME, "status %s", acc_status_string(st));
    cr_expect(ts_contains_ci(acc_last_error(), op), "message: %s",
              acc_last_error());
    acc_program_free(p);
}

static acc_node *ramp(int64_t n)
{
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *len = ts_i64(g, n);
    return acc_generate(g, acc_index(g, 1, &len),
                        ts_lam1(g, ix, acc_get(g, ix, 0)));
}

Test(fusion, backpermute_of_a_delayed_array_checks_its_bounds)
{
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *five = ts_i64(g, 5);
    acc_node *src = acc_binop(g, ACC_OP_ADD, acc_get(g, ix, 0), ts_i64(g, 2));
    acc_node *r = acc_backpermute(g, acc_index(g, 1, &five),
                                  ts_lam1(g, ix, acc_index(g, 1, &src)),
                                  ramp(4));
    expect_runtime_error(r, "backpermute");
}

Test(fusion, slice_of_a_delayed_array_checks_its_bounds)
{
    acc_node *spec[2] = {ts_i64(g, 2), all_spec()};
    acc_node *rows = acc_replicate(g, 2, spec, ramp(3));
    acc_node *fix[2] = {ts_i64(g, 7), all_spec()};
    expect_runtime_error(acc_slice(g, rows, 2, fix), "slice");
}

/* ---- randomised differential test ------------------------------------------ */

static uint64_t rng = 0x2545f4914f6cdd1dull;

/* A random chain of producers and consumers over i64 vectors, sharing some
 * intermediate results. */
static acc_node *random_program(acc_node *a, acc_node *b)
{
    acc_node *pool[16] = {a, b};
    int n = 2;
    while (n < 9) {
        acc_node *x = pool[ts_rnd(&rng, (uint32_t)n)],
                 *y = pool[ts_rnd(&rng, (uint32_t)n)];
        acc_node *r = NULL;
        switch (ts_rnd(&rng, 5)) {
        case 0:
            r = acc_map(g, affine(ACC_I64, (double)(1 + ts_rnd(&rng, 3))), x);
            break;
        case 1: {
            acc_node *xy[2] = {x, y};
            r = acc_zipwith(g,
                            ts_binop_fn(g, ACC_I64,
                                        ts_rnd(&rng, 2) ? ACC_OP_ADD
                                                        : ACC_OP_MAX),
                            2, xy);
            break;
        }
        case 2: { /* reverse */
            acc_node *ix = acc_param(g, acc_type_shape(1));
            acc_node *len = acc_get(g, acc_shape(g, x), 0);
            acc_node *src = acc_binop(g, ACC_OP_SUB,
                                      acc_binop(g, ACC_OP_SUB, len, ts_i64(g, 1)),
                                      acc_get(g, ix, 0));
            r = acc_backpermute(g, acc_shape(g, x),
                                ts_lam1(g, ix, acc_index(g, 1, &src)), x);
            break;
        }
        case 3: { /* prefix sums, then keep the length */
            r = acc_scan(g, ACC_PRESCANL, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                         ts_i64(g, 0), x);
            break;
        }
        default: { /* each element plus the total */
            acc_node *total = acc_fold(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                       ts_i64(g, 0), x);
            acc_node *e = acc_param(g, ts_sc(ACC_I64));
            r = acc_map(g,
                        ts_lam1(g, e,
                                acc_binop(g, ACC_OP_ADD, e, acc_the(g, total))),
                        y);
            break;
        }
        }
        pool[n++] = r;
    }
    acc_node *pair[2] = {pool[n - 1], pool[n - 2]};
    return acc_zipwith(g, ts_binop_fn(g, ACC_I64, ACC_OP_SUB), 2, pair);
}

static void run_i64(acc_node *r, int64_t *a, int64_t *b, int64_t n,
                    int64_t *result, int64_t *len)
{
    acc_program *p = ts_compile(ctx, g, r);
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, a), ts_host(ACC_I64, 1, &n, b)};
    acc_array out;
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    *len = out.extents[0];
    memcpy(result, out.data[0], (size_t)*len * sizeof *result);
    acc_array_release(&out);
    acc_program_free(p);
}

Test(fusion, random_programs_give_the_values_of_the_unfused_program)
{
    for (int round = 0; round < 60; round++) {
        acc_node *a = acc_input(g, ts_sc(ACC_I64), 1);
        acc_node *b = acc_input(g, ts_sc(ACC_I64), 1);
        acc_node *r = random_program(a, b);
        cr_assert(r, "%s", acc_graph_last_error(g));
        int64_t xa[7], xb[7], fused[7], plain[7], n1, n2;
        for (int i = 0; i < 7; i++) {
            xa[i] = (int64_t)ts_rnd(&rng, 100) - 50;
            xb[i] = (int64_t)ts_rnd(&rng, 100) - 50;
        }
        run_i64(r, xa, xb, 7, fused, &n1);
        setenv("ACC_DISABLE", "fusion", 1);
        run_i64(r, xa, xb, 7, plain, &n2);
        unsetenv("ACC_DISABLE");
        cr_assert_eq(n1, n2, "round %d", round);
        for (int64_t i = 0; i < n1; i++)
            cr_expect_eq(fused[i], plain[i], "round %d, element %lld", round,
                         (long long)i);
        /* a fresh graph per round keeps the inputs at two */
        ts_fresh_graph(ctx, &g);
    }
}
