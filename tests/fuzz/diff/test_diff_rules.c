/*
 * test_diff_rules.c — the differential fuzzer's own parts, which its
 * results rest on: the comparison rules (compare.c: exact where
 * LANGUAGE.md fixes results, the reassociation bound for float sums and
 * products) and the generator (every program well typed, the same program
 * for the same seed, every operation class reached, the switches that
 * leave out known bugs' patterns honoured).  No kernel is compiled.
 */
#include <criterion/criterion.h>

#include "diff.h"
#include "support.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- comparison rules ------------------------------------------------------------ */

static acc_array vec(acc_scalar s, int64_t n, void *data)
{
    return ts_host(s, 1, &n, data);
}

/* A shadow of one element: (S, #NaN, #+inf, #-inf, k). */
typedef struct shadow1 {
    double v[5];
    acc_array a;
} shadow1;

static void make_shadow(shadow1 *s, double S, double nan, double pinf,
                        double ninf, double k)
{
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    static acc_context *ctx;
    if (!ctx)
        ctx = ts_context(ACC_BACKEND_INTERP);
    const acc_type *f[5] = {f64, f64, f64, f64, f64};
    int64_t one = 1;
    s->v[0] = S;
    s->v[1] = nan;
    s->v[2] = pinf;
    s->v[3] = ninf;
    s->v[4] = k;
    s->a = ts_host_array(acc_type_tuple(ctx, 5, f), 1, &one,
                         (void *[]){&s->v[0], &s->v[1], &s->v[2], &s->v[3],
                                    &s->v[4]});
}

static int cmp1(dz_cmp rule, acc_scalar t, double got, double want,
                const shadow1 *sh, uint64_t *unbounded)
{
    char why[DZ_MSG];
    float gf = (float)got, wf = (float)want;
    acc_array a = vec(t, 1, t == ACC_F32 ? (void *)&gf : (void *)&got);
    acc_array b = vec(t, 1, t == ACC_F32 ? (void *)&wf : (void *)&want);
    return dz_compare_output(&a, &b, rule, 0, sh ? &sh->a : NULL, why, sizeof why,
                             unbounded);
}

Test(diff_rules, exact_comparison_is_bit_for_bit)
{
    int32_t x[4] = {1, 2, 3, 4}, y[4] = {1, 2, 3, 5};
    acc_array a = vec(ACC_I32, 4, x), b = vec(ACC_I32, 4, y);
    char why[DZ_MSG];
    uint64_t ub = 0;
    cr_expect(dz_compare_output(&a, &a, DZ_CMP_EXACT, 0, NULL, why, sizeof why, &ub));
    cr_expect(!dz_compare_output(&a, &b, DZ_CMP_EXACT, 0, NULL, why, sizeof why, &ub));
    cr_expect(strstr(why, "element [3]") && strstr(why, "got 4") &&
                  strstr(why, "has 5"), "%s", why);
    int64_t three = 3;
    acc_array c = ts_host(ACC_I32, 1, &three, x);
    cr_expect(!dz_compare_output(&c, &a, DZ_CMP_EXACT, 0, NULL, why, sizeof why, &ub));
    cr_expect(strstr(why, "extent 0 is 3") != NULL, "%s", why);
}

Test(diff_rules, floats_exact_except_nan_payloads)
{
    uint64_t ub = 0;
    double qnan = NAN, other;
    uint64_t bits = 0x7ff8000000000123ull;
    memcpy(&other, &bits, sizeof other);
    cr_expect(cmp1(DZ_CMP_EXACT, ACC_F64, qnan, other, NULL, &ub));
    cr_expect(!cmp1(DZ_CMP_EXACT, ACC_F64, -0.0, 0.0, NULL, &ub));
    cr_expect(!cmp1(DZ_CMP_EXACT, ACC_F64, 1.0, nextafter(1.0, 2.0), NULL, &ub));
    cr_expect(!cmp1(DZ_CMP_EXACT, ACC_F32, 1.0, NAN, NULL, &ub));
    cr_expect(cmp1(DZ_CMP_EXACT, ACC_F32, INFINITY, INFINITY, NULL, &ub));
}

Test(diff_rules, float_sums_within_the_reassociation_bound)
{
    shadow1 sh;
    uint64_t ub = 0;
    /* 3 terms of magnitude sum 1: 2 * 3 * 2^-53 ~ 6.7e-16 */
    make_shadow(&sh, 1.0, 0, 0, 0, 3);
    cr_expect(cmp1(DZ_CMP_SUM, ACC_F64, 1.0, 1.0 + 4.4e-16, &sh, &ub));
    cr_expect(!cmp1(DZ_CMP_SUM, ACC_F64, 1.0, 1.0 + 1.2e-15, &sh, &ub));
    /* the bound grows with the terms and the magnitudes */
    make_shadow(&sh, 1.0, 0, 0, 0, 10);
    cr_expect(cmp1(DZ_CMP_SUM, ACC_F64, 1.0, 1.0 + 1.2e-15, &sh, &ub));
    make_shadow(&sh, 1000.0, 0, 0, 0, 1000);
    cr_expect(cmp1(DZ_CMP_SUM, ACC_F32, 3.0, 3.0 + 0.1, &sh, &ub));
    cr_expect(!cmp1(DZ_CMP_SUM, ACC_F32, 3.0, 3.0 + 0.2, &sh, &ub));
    /* a dropped term of 1 among 1000 is always seen */
    make_shadow(&sh, 1000.0, 0, 0, 0, 1000);
    cr_expect(!cmp1(DZ_CMP_SUM, ACC_F64, 500.0, 499.0, &sh, &ub));
    cr_expect_eq(ub, 0);
}

Test(diff_rules, float_sum_specials)
{
    shadow1 sh;
    uint64_t ub = 0;
    make_shadow(&sh, 5.0, 1, 0, 0, 4); /* a NaN term: NaN in any order */
    cr_expect(cmp1(DZ_CMP_SUM, ACC_F64, NAN, NAN, &sh, &ub));
    cr_expect(!cmp1(DZ_CMP_SUM, ACC_F64, NAN, 5.0, &sh, &ub));
    make_shadow(&sh, 5.0, 0, 1, 1, 4); /* +inf and -inf: NaN */
    cr_expect(!cmp1(DZ_CMP_SUM, ACC_F64, INFINITY, NAN, &sh, &ub));
    make_shadow(&sh, 5.0, 0, 2, 0, 4); /* +inf terms only */
    cr_expect(cmp1(DZ_CMP_SUM, ACC_F64, INFINITY, INFINITY, &sh, &ub));
    cr_expect(!cmp1(DZ_CMP_SUM, ACC_F64, DBL_MAX, INFINITY, &sh, &ub));
    make_shadow(&sh, 5.0, 0, 0, 0, 4); /* finite terms: finite results */
    cr_expect(!cmp1(DZ_CMP_SUM, ACC_F64, INFINITY, INFINITY, &sh, &ub));
    /* finite terms that may overflow in some order: not bounded, counted */
    make_shadow(&sh, DBL_MAX, 0, 0, 0, 3);
    cr_expect(cmp1(DZ_CMP_SUM, ACC_F64, INFINITY, 1.0, &sh, &ub));
    cr_expect_eq(ub, 1);
    make_shadow(&sh, 3.5e38, 0, 0, 0, 3);
    cr_expect(cmp1(DZ_CMP_SUM, ACC_F32, INFINITY, 1.0, &sh, &ub));
    cr_expect_eq(ub, 2);
}

Test(diff_rules, float_products_relative_bound)
{
    shadow1 sh;
    uint64_t ub = 0;
    make_shadow(&sh, 0, 0, 0, 0, 100); /* 100 factors: 2.02 * 100 * 2^-24 */
    cr_expect(cmp1(DZ_CMP_PRODUCT, ACC_F32, 1.5, 1.5 * (1 + 1e-5), &sh, &ub));
    cr_expect(!cmp1(DZ_CMP_PRODUCT, ACC_F32, 1.5, 1.5 * (1 + 2e-5), &sh, &ub));
    cr_expect(!cmp1(DZ_CMP_PRODUCT, ACC_F32, -1.5, 1.5, &sh, &ub));
}

/* The libm rule: within dz_libm_ulps units in the last place of the
 * larger result, NaN only with NaN, infinities only with the same
 * infinity or the largest finite value, zeros with the same zero. */
static int libm1(acc_scalar t, int ulps, double got, double want)
{
    char why[DZ_MSG];
    uint64_t ub = 0;
    float gf = (float)got, wf = (float)want;
    acc_array a = vec(t, 1, t == ACC_F32 ? (void *)&gf : (void *)&got);
    acc_array b = vec(t, 1, t == ACC_F32 ? (void *)&wf : (void *)&want);
    return dz_compare_output(&a, &b, DZ_CMP_LIBM, ulps, NULL, why, sizeof why,
                             &ub);
}

Test(diff_rules, libm_results_within_the_documented_bound)
{
    /* the bounds: glibc's error plus the other side's (libmvec, or a
     * correctly rounded fold counted as 1) */
    cr_expect_eq(dz_libm_ulps(ACC_OP_EXP, ACC_F64), 2);
    cr_expect_eq(dz_libm_ulps(ACC_OP_LOG, ACC_F32), 4);
    cr_expect_eq(dz_libm_ulps(ACC_OP_SINH, ACC_F32), 3);
    cr_expect_eq(dz_libm_ulps(ACC_OP_LOGBASE, ACC_F32), 9);
    cr_expect_eq(dz_libm_ulps(ACC_OP_LOGBASE, ACC_F64), 5);
    cr_expect_eq(dz_libm_ulps(ACC_OP_SQRT, ACC_F64), -1, "sqrt is exact");
    cr_expect_eq(dz_libm_ulps(ACC_OP_ADD, ACC_F32), -1);
    /* seed 521: gcc folded sinh of an f32 constant (correctly rounded),
     * glibc's sinhf is 1 ulp away */
    cr_expect(libm1(ACC_F32, 3, 0x1.218p-4, 0x1.218002p-4));
    double x = 0.5895912732775167, up2 = nextafter(nextafter(x, 1), 1);
    cr_expect(libm1(ACC_F64, 2, x, up2));
    cr_expect(!libm1(ACC_F64, 2, x, nextafter(up2, 1)), "3 ulps apart");
    cr_expect(!libm1(ACC_F64, 2, x, -x));
    cr_expect(!libm1(ACC_F64, 2, sin(1.0), cos(1.0)), "another function");
    cr_expect(!libm1(ACC_F32, 4, (float)sin(1.0), (float)cos(1.0)));
    cr_expect(libm1(ACC_F64, 2, NAN, -NAN));
    cr_expect(!libm1(ACC_F64, 9, NAN, 1.0));
    cr_expect(!libm1(ACC_F64, 9, 0.0, -0.0));
    cr_expect(libm1(ACC_F64, 2, DBL_TRUE_MIN, 2 * DBL_TRUE_MIN));
    cr_expect(libm1(ACC_F64, 2, DBL_TRUE_MIN, 0.0), "1 ulp apart");
    cr_expect(libm1(ACC_F32, 2, INFINITY, FLT_MAX), "the overflow threshold");
    cr_expect(!libm1(ACC_F32, 2, INFINITY, FLT_MAX / 2));
    cr_expect(!libm1(ACC_F64, 2, INFINITY, -INFINITY));
    cr_expect(libm1(ACC_F64, 1, DBL_MAX, nextafter(DBL_MAX, 0)));
}

/* ---- the generator ----------------------------------------------------------------- */

static int generate_one(acc_context *ctx, uint64_t seed, unsigned avoid,
                        dz_program *p, acc_graph **g)
{
    dz_options o;
    dz_options_default(&o);
    o.avoid = avoid;
    cr_assert_eq(acc_graph_create(ctx, g), ACC_OK);
    return dz_generate(ctx, *g, seed, &o, p);
}

/* Every program of 1000 seeds builds, compiles on the interpreter, and
 * together they use every operation class the switches allow and have
 * every feature (features: DZ_F_*). */
static void coverage(unsigned avoid, uint64_t *all, uint64_t *features)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    *all = 0;
    memset(features, 0, (DZ_N_FEATURES + 63) / 64 * sizeof *features);
    for (uint64_t seed = 1; seed <= 1000; seed++) {
        dz_program p;
        acc_graph *g;
        acc_program *prog = NULL;
        int ok = generate_one(ctx, seed, avoid, &p, &g);
        cr_assert(ok, "seed %llu: %s", (unsigned long long)seed, p.error);
        cr_assert(p.n_out >= 1 && p.n_out <= DZ_MAX_OUTPUTS);
        acc_status st = acc_compile(ctx, g, p.n_out, p.out, &prog);
        cr_assert_eq(st, ACC_OK, "seed %llu: %s", (unsigned long long)seed,
                     acc_last_error());
        *all |= p.classes;
        for (size_t i = 0; i < (DZ_N_FEATURES + 63) / 64; i++)
            features[i] |= p.features[i];
        cr_expect(!(avoid & DZ_AVOID_UNCHECKED) || !p.strict);
        acc_program_free(prog);
        acc_graph_free(g);
    }
    acc_context_destroy(ctx);
}

Test(diff_rules, every_class_and_type_is_generated, .timeout = 120)
{
    uint64_t all, features[(DZ_N_FEATURES + 63) / 64];
    coverage(0, &all, features);
    for (int c = 0; c < DZ_N_CLASSES; c++)
        cr_expect(all & (1ull << c), "no program of class %s",
                  dz_class_name((dz_class)c));
    for (int f = 0; f < DZ_N_FEATURES; f++) {
        char name[64];
        dz_feature_name(f, name, sizeof name);
        cr_expect(features[f / 64] & (1ull << (f % 64)), "no program has %s",
                  name);
    }
}

Test(diff_rules, avoiding_known_bugs_leaves_their_patterns_out, .timeout = 120)
{
    uint64_t all, features[(DZ_N_FEATURES + 63) / 64];
    coverage(DZ_AVOID_ALL, &all, features);
    cr_expect(!(all & (1ull << DZ_C_WIDEN_FOLD)));
    cr_expect(!(all & (1ull << DZ_C_FUSED_READ)));
    cr_expect(all & (1ull << DZ_C_EXTENT), "the other extents stay");
    for (int from = ACC_BOOL; from <= ACC_F64; from++)
        for (int to = ACC_BOOL; to <= ACC_F64; to++) {
            int f = DZ_F_CONVERT + 11 * (from - 1) + to - 1;
            int widen = acc_scalar_size((acc_scalar)from) == 1 &&
                        acc_scalar_size((acc_scalar)to) > 1;
            cr_expect((!(features[f / 64] & (1ull << (f % 64)))) == widen,
                      "convert %s -> %s", acc_scalar_name((acc_scalar)from),
                      acc_scalar_name((acc_scalar)to));
        }
    cr_expect(all & (1ull << DZ_C_SCAN_SEG));
}

/* Seed 1058 crashed the generator: every value input had rank 3, and
 * replicate took a pool term of rank 0 to 2 that was not there (a NULL
 * term).  Its siblings are every operation asking for a rank the pool may
 * lack: so every class is forced first (--only) over inputs of each single
 * rank, with and without the switches, and each program must build and
 * compile on the interpreter. */
Test(diff_rules, every_class_builds_over_inputs_of_one_rank, .timeout = 240)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    static const unsigned avoids[2] = {0, DZ_AVOID_ALL};
    for (int rank = 0; rank <= 3; rank++)
        for (int c = 0; c < DZ_N_CLASSES; c++)
            for (int a = 0; a < 2; a++)
                for (uint64_t seed = 1; seed <= 4; seed++) {
                    dz_options o;
                    dz_options_default(&o);
                    o.avoid = avoids[a];
                    o.only_class = (unsigned)c + 1;
                    o.input_rank = rank + 1;
                    dz_program p;
                    acc_graph *g;
                    acc_program *prog = NULL;
                    cr_assert_eq(acc_graph_create(ctx, &g), ACC_OK);
                    cr_assert(dz_generate(ctx, g, seed, &o, &p),
                              "rank %d, %s, seed %llu: %s", rank,
                              dz_class_name((dz_class)c),
                              (unsigned long long)seed, p.error);
                    cr_assert_eq(p.in[0].rank, rank); /* a value input */
                    cr_assert_eq(acc_compile(ctx, g, p.n_out, p.out, &prog),
                                 ACC_OK, "rank %d, %s, seed %llu: %s", rank,
                                 dz_class_name((dz_class)c),
                                 (unsigned long long)seed, acc_last_error());
                    acc_program_free(prog);
                    acc_graph_free(g);
                }
    acc_context_destroy(ctx);
}

Test(diff_rules, a_seed_gives_the_same_program)
{
    acc_context *a = ts_context(ACC_BACKEND_INTERP);
    acc_context *b = ts_context(ACC_BACKEND_INTERP);
    for (uint64_t seed = 1; seed <= 40; seed++) {
        dz_program p, q;
        acc_graph *g, *h;
        cr_assert(generate_one(a, seed, 0, &p, &g));
        cr_assert(generate_one(b, seed, 0, &q, &h));
        cr_expect_eq(p.classes, q.classes);
        cr_expect_eq(p.n_in, q.n_in);
        cr_expect_eq(p.n_out, q.n_out);
        cr_expect_eq(memcmp(p.in, q.in, sizeof p.in), 0);
        cr_expect_eq(memcmp(p.cmp, q.cmp, sizeof p.cmp), 0);
        for (size_t i = 0; i < p.n_out; i++)
            cr_expect(acc_type_equal(acc_node_type(p.out[i]),
                                     acc_node_type(q.out[i])));
        acc_graph_free(g);
        acc_graph_free(h);
    }
    acc_context_destroy(a);
    acc_context_destroy(b);
}

Test(diff_rules, avoid_switch_parses)
{
    unsigned v;
    cr_expect(dz_parse_avoid("a,c", &v) && v == (DZ_AVOID_WIDEN | DZ_AVOID_HUGE));
    cr_expect(dz_parse_avoid("b,d", &v) && v == (DZ_AVOID_UNCHECKED | DZ_AVOID_LIBM));
    cr_expect_str_eq(dz_avoid_text(DZ_AVOID_UNCHECKED | DZ_AVOID_LIBM), "b,d");
    cr_expect(dz_parse_avoid("none", &v) && v == 0);
    cr_expect(dz_parse_avoid("all", &v) && v == DZ_AVOID_ALL);
    cr_expect(!dz_parse_avoid("a,x", &v));
    cr_expect_str_eq(dz_avoid_text(DZ_AVOID_WIDEN | DZ_AVOID_UNCHECKED), "a,b");
}
