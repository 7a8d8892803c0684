/*
 * test_cpu_permute.c — the CPU backend's forward permutation and expansion
 * kernels (core/skeletons/cpu/permute.c.in, expand.c.in) against the
 * reference interpreter.
 *
 * Every program is built on both backends (ts_differ), run on the same
 * inputs and compared: integers bit for bit, float sums within a relative
 * tolerance (the kernel combines in another order).  Every step must be
 * compiled ("interpreted":0).  Runtime errors must agree in status and
 * message (the kernel hands the step back to the interpreter, which
 * reports it).  Where LANGUAGE.md gives a result, or a C loop computes it
 * simply, the CPU result is also checked against that.  Element types
 * with one 32/64-bit leaf take the compare-and-swap path, the others
 * (8/16-bit, bool, tuples) the striped locks; with few target cells and
 * many source elements the host privatises the target per thread
 * instead.  Each is run with many threads on few distinct targets, where
 * a lost update would show.  CPU contexts have 4 threads
 * (ACC_NUM_THREADS), so the paths taken do not depend on the machine.
 * Every test skips when there is no working C compiler.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

static void setup(void)
{
    ts_make_cache_dir();
    cr_assert_eq(setenv("ACC_NUM_THREADS", "4", 1), 0);
}

TestSuite(cpu_permute, .init = setup, .fini = ts_remove_cache_dir);

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

typedef struct cpu_prog {
    acc_context *ctx;
    acc_graph *g;
    acc_program *p;
} cpu_prog;

/* Compiles build on a CPU context of `threads` threads (0: the default)
 * and checks the plan: `kernels` kernels, all compiled by the CPU. */
static cpu_prog compile_cpu(ts_build_fn build, const void *arg, int threads,
                            int kernels)
{
    acc_context_options o;
    cpu_prog c = {NULL, NULL, NULL};
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = ts_cpu_cache_dir;
    o.num_threads = threads;
    acc_status st = acc_context_create(&o, &c.ctx);
    if (st == ACC_ERR_UNSUPPORTED)
        cr_skip_test("no working C compiler: %s", acc_last_error());
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    c.g = ts_graph(c.ctx);
    acc_node *r = build(c.g, arg);
    cr_assert_not_null(r, "%s", acc_graph_last_error(c.g));
    cr_assert_eq(acc_compile(c.ctx, c.g, 1, &r, &c.p), ACC_OK, "%s",
                 acc_last_error());
    char *json = NULL, want[96];
    cr_assert_eq(acc_program_explain(c.p, 1, &json), ACC_OK);
    snprintf(want, sizeof want, "{\"backend\":\"cpu\",\"kernels\":%d,", kernels);
    cr_expect(strncmp(json, want, strlen(want)) == 0, "%s", json);
    snprintf(want, sizeof want, "\"cpu\":{\"kernels\":%d,\"host_steps\":0,"
             "\"interpreted\":0,",
             kernels);
    cr_expect(strstr(json, want) != NULL, "%s", json);
    acc_free(json);
    return c;
}

/* One run of c: its one output (release it). */
static acc_array run_prog(const cpu_prog *c, size_t n_in, const acc_array *in)
{
    acc_array out = ts_empty_output();
    cr_assert_eq(acc_run(c->p, n_in, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    return out;
}

static void free_prog(cpu_prog *c)
{
    acc_program_free(c->p);
    acc_graph_free(c->g);
    acc_context_destroy(c->ctx);
}

/* compile_cpu, one run, free. */
static acc_array run_cpu(ts_build_fn build, const void *arg, size_t n_in,
                         const acc_array *in, int threads, int kernels)
{
    cpu_prog c = compile_cpu(build, arg, threads, kernels);
    acc_array out = run_prog(&c, n_in, in);
    free_prog(&c);
    return out;
}

static acc_node *fill1(acc_graph *g, int64_t n, acc_node *z)
{
    return acc_fill(g, ts_idx1(g, ts_i64(g, n)), z);
}

static int64_t bin_ref(int64_t x, int64_t m)
{
    return (x % m + m) % m;
}

/* ------------------------------------------------------------------------
 * permute
 * ------------------------------------------------------------------------ */

Test(cpu_permute, histogram_of_the_language_reference)
{
    int32_t x[20] = {0, 0, 1, 2, 1, 1, 2, 4, 8, 3,
                     4, 9, 8, 3, 2, 5, 5, 3, 1, 2};
    int64_t n = 20, k = 10;
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    cr_assert_eq(ts_differ(ts_build_histogram, &k, 1, &in, 0, 0), ACC_OK);
    acc_array out = run_cpu(ts_build_histogram, &k, 1, &in, 0, 1);
    const int32_t want[10] = {2, 4, 4, 3, 2, 2, 0, 0, 2, 1}; /* §3.4 */
    cr_assert_eq(out.extents[0], 10);
    cr_assert_eq(memcmp(out.data[0], want, sizeof want), 0);
    acc_array_release(&out);
}

/* A vector into a 4x5 matrix (manifest defaults, manifest source):
 * [i] goes to [i rem 4, 3i rem 5]. */
static acc_node *build_vector_to_matrix(acc_graph *g, const void *arg)
{
    (void)arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *defs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *i = acc_get(g, ix, 0);
    acc_node *t = ts_idx2(g, acc_binop(g, ACC_OP_REM, i, ts_i64(g, 4)),
                          acc_binop(g, ACC_OP_REM, acc_binop(g, ACC_OP_MUL, i,
                                    ts_i64(g, 3)), ts_i64(g, 5)));
    return acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), defs,
                       ts_lam1(g, ix, t), xs);
}

/* A 6x7 matrix (an embedded producer: 2 x - j) into a vector of 5 whose
 * defaults are 100: [i, j] goes to [(i + j) rem 5], column 3 is dropped. */
static acc_node *build_matrix_to_vector(acc_graph *g, const void *arg)
{
    (void)arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *v = acc_binop(g, ACC_OP_SUB, acc_binop(g, ACC_OP_MUL,
                            acc_read(g, xs, ix), ts_i64(g, 2)),
                            acc_get(g, ix, 1));
    acc_node *src = acc_generate(g, acc_shape(g, xs), acc_lambda(g, 1, &ix, v));
    acc_node *jx = acc_param(g, acc_type_shape(2));
    acc_node *i = acc_get(g, jx, 0), *j = acc_get(g, jx, 1);
    acc_node *t = acc_cond(g, acc_binop(g, ACC_OP_EQ, j, ts_i64(g, 3)),
                           acc_ignore(g, 1),
                           ts_bin_of(g, acc_binop(g, ACC_OP_ADD, i, j), 5));
    return acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                       fill1(g, 5, ts_i64(g, 100)), ts_lam1(g, jx, t), src);
}

Test(cpu_permute, sources_and_targets_of_different_ranks)
{
    int64_t x[37], d[20], n = 37, dext[2] = {4, 5};
    for (int i = 0; i < 37; i++)
        x[i] = i * i - 50;
    for (int i = 0; i < 20; i++)
        d[i] = 1000 * i;
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, x),
                       ts_host(ACC_I64, 2, dext, d)};
    cr_assert_eq(ts_differ(build_vector_to_matrix, NULL, 2, in, 0, 0), ACC_OK);
    acc_array out = run_cpu(build_vector_to_matrix, NULL, 2, in, 0, 1);
    int64_t want[20];
    memcpy(want, d, sizeof d);
    for (int i = 0; i < 37; i++)
        want[(i % 4) * 5 + (3 * i) % 5] += x[i];
    cr_assert_eq(out.rank, 2);
    cr_assert_eq(memcmp(out.data[0], want, sizeof want), 0);
    acc_array_release(&out);

    int64_t m[42], mext[2] = {6, 7};
    for (int i = 0; i < 42; i++)
        m[i] = 3 * i + 1;
    acc_array min = ts_host(ACC_I64, 2, mext, m);
    cr_assert_eq(ts_differ(build_matrix_to_vector, NULL, 1, &min, 0, 0), ACC_OK);
    out = run_cpu(build_matrix_to_vector, NULL, 1, &min, 0, 1);
    int64_t v[5] = {100, 100, 100, 100, 100};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 7; j++)
            if (j != 3)
                v[(i + j) % 5] += 2 * m[i * 7 + j] - j;
    cr_assert_eq(memcmp(out.data[0], v, sizeof v), 0);
    acc_array_release(&out);
}

/* permute' (+) (fill [8] 0) of pairs: from a producer (target
 * [i rem 8], ignore when i rem 3 == 0, value xs ! [i]), or from an input
 * of (index, i32) pairs (type `pair`) where INT64_MIN is ignore. */
static acc_node *build_pairs(acc_graph *g, const void *arg)
{
    if (arg) {
        /* the pair type of g's context (types are made per context; the
         * descriptor's, from any context, compares structurally) */
        acc_node *fields[2] = {ts_idx1(g, ts_i64(g, 0)), ts_i32(g, 0)};
        acc_node *xs = acc_input(g, acc_node_type(acc_tuple(g, 2, fields)),
                                 1);
        return acc_permute_pairs(g, ts_binop_fn(g, ACC_I32, ACC_OP_ADD),
                                 fill1(g, 8, ts_i32(g, 0)), xs);
    }
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *i = acc_get(g, ix, 0);
    acc_node *t = acc_cond(g, acc_binop(g, ACC_OP_EQ, acc_binop(g, ACC_OP_REM,
                           i, ts_i64(g, 3)), ts_i64(g, 0)),
                           acc_ignore(g, 1), ts_bin_of(g, i, 8));
    acc_node *pair = acc_tuple(g, 2, (acc_node *[]){t, acc_read(g, xs, ix)});
    acc_node *src = acc_generate(g, acc_shape(g, xs),
                                 acc_lambda(g, 1, &ix, pair));
    return acc_permute_pairs(g, ts_binop_fn(g, ACC_I32, ACC_OP_ADD),
                             fill1(g, 8, ts_i32(g, 0)), src);
}

Test(cpu_permute, pairs_with_ignore)
{
    enum { N = 1000 };
    static int32_t x[N];
    static int64_t t[N];
    int64_t n = N;
    int32_t want[8] = {0}, want_m[8] = {0};
    for (int i = 0; i < N; i++) {
        x[i] = i * 7 - 300;
        t[i] = i % 5 == 0 ? INT64_MIN : (i * 3) % 8;
        if (i % 3 != 0)
            want[i % 8] += x[i];
        if (i % 5 != 0)
            want_m[(i * 3) % 8] += x[i];
    }
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    cr_assert_eq(ts_differ(build_pairs, NULL, 1, &in, 0, 0), ACC_OK);
    acc_array out = run_cpu(build_pairs, NULL, 1, &in, 0, 1);
    cr_assert_eq(memcmp(out.data[0], want, sizeof want), 0);
    acc_array_release(&out);

    /* tuple types compare structurally: any context's will do */
    const acc_type *f[2] = {acc_type_shape(1), ts_sc(ACC_I32)};
    acc_context *c = ts_context(ACC_BACKEND_INTERP);
    const acc_type *pair = acc_type_tuple(c, 2, f);
    void *data[2] = {t, x};
    acc_array pin = ts_host_array(pair, 1, &n, data);
    cr_assert_eq(ts_differ(build_pairs, pair, 1, &pin, 0, 0), ACC_OK);
    out = run_cpu(build_pairs, pair, 1, &pin, 0, 1);
    cr_assert_eq(memcmp(out.data[0], want_m, sizeof want_m), 0);
    acc_array_release(&out);
    acc_context_destroy(c);
}

/* ---- element types: compare-and-swap and locks -------------------------- */

/* Target cells beyond which the host never privatises (drive_permute.c):
 * a target this large takes the shared atomics or locks. */
enum { SHARED_CELLS = 70000 };

typedef struct typed_case {
    acc_scalar s;
    acc_primop op;  /* the combiner: ADD, MAX, LOR, ... */
    int64_t bins;   /* distinct targets */
    int64_t cells;  /* the target's extent (>= bins) */
    int opaque;     /* f = \a b -> (a `op` b) `xor` 0: not a primitive, so
                       no fetch-and-op, a compare-and-swap loop */
} typed_case;

/* permute op (fill [cells] 1) (\[i] -> [xs ! [i] `mod` bins]) (map h xs)
 * over xs : Vector s, h = (* 3) (not on bool), through a map so that the
 * source is an embedded producer. */
static acc_node *build_typed(acc_graph *g, const void *arg)
{
    const typed_case *c = arg;
    acc_node *xs = acc_input(g, ts_sc(c->s), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *t = ts_bin_of(g, acc_read(g, xs, ix), c->bins);
    acc_node *y = acc_param(g, ts_sc(c->s));
    acc_node *three = c->s == ACC_F32 ? ts_f32(g, 3.0f)
                    : c->s == ACC_F64 ? ts_f64(g, 3.0)
                    : c->s == ACC_BOOL ? NULL : ts_int(g, c->s, 3);
    acc_node *body = three ? acc_binop(g, ACC_OP_MUL, y, three)
                           : acc_unop(g, ACC_OP_NOT, y);
    acc_node *src = acc_map(g, ts_lam1(g, y, body), xs);
    acc_node *one = c->s == ACC_F32 ? ts_f32(g, 1.0f)
                  : c->s == ACC_F64 ? ts_f64(g, 1.0) : ts_int(g, c->s, 1);
    acc_node *f = ts_binop_fn(g, c->s, c->op);
    if (c->opaque) {
        acc_node *a = acc_param(g, ts_sc(c->s)), *b = acc_param(g, ts_sc(c->s));
        f = ts_lam2(g, a, b, acc_binop(g, ACC_OP_BXOR, acc_binop(g, c->op, a, b),
                                       ts_int(g, c->s, 0)));
    }
    return acc_permute(g, f, fill1(g, c->cells, one), ts_lam1(g, ix, t), src);
}

/* n elements of type s: values 0 .. 250 spread over the bins. */
static void *typed_data(acc_scalar s, int64_t n)
{
    void *buf = malloc((size_t)n * acc_scalar_size(s));
    cr_assert_not_null(buf);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (i * 7919) % 251;
        switch (s) {
        case ACC_I8: ((int8_t *)buf)[i] = (int8_t)(v - 125); break;
        case ACC_U16: ((uint16_t *)buf)[i] = (uint16_t)(v * 200); break;
        case ACC_BOOL: ((uint8_t *)buf)[i] = (uint8_t)(v % 3 == 0); break;
        case ACC_I32: ((int32_t *)buf)[i] = (int32_t)(v * 100000 - 7); break;
        case ACC_I64: ((int64_t *)buf)[i] = v * 40000000000LL + 3; break;
        case ACC_U64: ((uint64_t *)buf)[i] = (uint64_t)v * 0x9e3779b97f4a7c15ull;
            break;
        case ACC_F32: ((float *)buf)[i] = (float)v * 0.25f - 9.0f; break;
        default: ((double *)buf)[i] = (double)v * 0.125 - 11.0; break;
        }
    }
    return buf;
}

/* Case c with a target of `bins` cells (privatised) and of SHARED_CELLS
 * cells (shared). */
static void differ_typed(const typed_case *c, int64_t n)
{
    void *buf = typed_data(c->s, n);
    acc_array in = ts_host(c->s, 1, &n, buf);
    typed_case shared = *c;
    shared.cells = SHARED_CELLS;
    cr_assert_eq(ts_differ(build_typed, c, 1, &in, 0, 0), ACC_OK,
                 "%s", acc_scalar_name(c->s));
    cr_assert_eq(ts_differ(build_typed, &shared, 1, &in, 0, 0), ACC_OK,
                 "%s", acc_scalar_name(c->s));
    free(buf);
}

Test(cpu_permute, lock_path_types)
{
    static const typed_case cases[] = {
        {ACC_I8, ACC_OP_ADD, 7, 7, 0}, {ACC_I8, ACC_OP_MAX, 7, 7, 0},
        {ACC_U16, ACC_OP_ADD, 5, 5, 0}, {ACC_U16, ACC_OP_MIN, 5, 5, 0},
        {ACC_BOOL, ACC_OP_LOR, 3, 3, 0}, {ACC_BOOL, ACC_OP_LAND, 3, 3, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        differ_typed(&cases[i], 50000);
}

Test(cpu_permute, compare_and_swap_types)
{
    static const typed_case cases[] = {
        {ACC_I32, ACC_OP_ADD, 6, 6, 0}, {ACC_I32, ACC_OP_MAX, 6, 6, 0},
        {ACC_I64, ACC_OP_ADD, 9, 9, 0}, {ACC_I64, ACC_OP_MIN, 9, 9, 0},
        {ACC_F32, ACC_OP_MAX, 4, 4, 0}, {ACC_F64, ACC_OP_MIN, 4, 4, 0},
        {ACC_I32, ACC_OP_ADD, 6, 6, 1}, {ACC_U64, ACC_OP_BXOR, 6, 6, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        differ_typed(&cases[i], 50000);
}

/* Many threads, few targets, many updates each, several runs: every lost
 * update of a broken fetch-and-add, compare-and-swap loop, lock or private
 * copy changes a count (a race needs two threads running at once, which a
 * loaded machine makes rare, hence the repetitions). */
Test(cpu_permute, contended_updates_are_not_lost)
{
    enum { N = 1000000, RUNS = 25 };
    static const typed_case cases[] = {
        {ACC_I32, ACC_OP_ADD, 3, SHARED_CELLS, 0},
        {ACC_I32, ACC_OP_ADD, 3, SHARED_CELLS, 1},
        {ACC_I8, ACC_OP_ADD, 3, SHARED_CELLS, 0},
        {ACC_I32, ACC_OP_ADD, 3, 3, 0}, {ACC_I8, ACC_OP_ADD, 3, 3, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int64_t n = N, want[3] = {1, 1, 1};
        int i32 = cases[c].s == ACC_I32;
        void *buf = typed_data(cases[c].s, n);
        for (int64_t i = 0; i < n; i++) {
            int64_t v = i32 ? ((int32_t *)buf)[i] : ((int8_t *)buf)[i];
            want[bin_ref(v, 3)] += 3 * v;
        }
        acc_array in = ts_host(cases[c].s, 1, &n, buf);
        cpu_prog p = compile_cpu(build_typed, &cases[c], 8, 1);
        for (int r = 0; r < RUNS; r++) {
            acc_array out = run_prog(&p, 1, &in);
            for (int b = 0; b < 3; b++) {
                int64_t got = i32 ? ((int32_t *)out.data[0])[b]
                                  : ((int8_t *)out.data[0])[b];
                int64_t w = i32 ? (int32_t)(uint32_t)want[b]
                                : (int8_t)(uint8_t)want[b];
                cr_expect_eq(got, w, "case %zu (%s), run %d, bin %d", c,
                             acc_scalar_name(cases[c].s), r, b);
            }
            acc_array_release(&out);
        }
        free_prog(&p);
        free(buf);
    }
}

/* (i32, f64) elements combined by (+, max) into 11 bins: tuples take the
 * locks. */
static acc_node *build_tuples(acc_graph *g, const void *arg)
{
    (void)arg;
    return ts_permute_tuples(g, 11);
}

Test(cpu_permute, tuple_elements)
{
    enum { N = 20000 };
    static int32_t x[N];
    int64_t n = N;
    for (int i = 0; i < N; i++)
        x[i] = (i * 37) % 1009;
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    cr_assert_eq(ts_differ(build_tuples, NULL, 1, &in, 0, 0), ACC_OK);
}

/* Arg-max: (index, value) pairs, the larger value wins, the smaller index
 * on a tie (commutative and associative, so the result is exact); the
 * bins are x `rem` 13 of values with many repeats. */
static acc_node *build_argmax(acc_graph *g, const void *arg)
{
    (void)arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *x = acc_read(g, xs, ix);
    acc_node *e = acc_tuple(g, 2, (acc_node *[]){acc_get(g, ix, 0),
                            acc_binop(g, ACC_OP_QUOT, x, ts_i32(g, 13))});
    acc_node *src = acc_generate(g, acc_shape(g, xs), acc_lambda(g, 1, &ix, e));
    const acc_type *et = acc_node_type(e);
    acc_node *a = acc_param(g, et), *b = acc_param(g, et);
    acc_node *va = acc_get(g, a, 1), *vb = acc_get(g, b, 1);
    acc_node *a_wins = acc_binop(g, ACC_OP_LOR,
        acc_binop(g, ACC_OP_GT, va, vb),
        acc_binop(g, ACC_OP_LAND, acc_binop(g, ACC_OP_EQ, va, vb),
                  acc_binop(g, ACC_OP_LT, acc_get(g, a, 0), acc_get(g, b, 0))));
    acc_node *f = ts_lam2(g, a, b, acc_cond(g, a_wins, a, b));
    acc_node *z = acc_tuple(g, 2, (acc_node *[]){ts_i64(g, -1),
                                                 ts_i32(g, INT32_MIN)});
    acc_node *jx = acc_param(g, acc_type_shape(1));
    return acc_permute(g, f, fill1(g, 13, z),
                       ts_lam1(g, jx, ts_bin_of(g, acc_read(g, xs, jx), 13)),
                       src);
}

Test(cpu_permute, arg_max_with_a_commutative_tie_break)
{
    enum { N = 30000 };
    static int32_t x[N];
    int64_t n = N;
    for (int i = 0; i < N; i++)
        x[i] = (i * 7919) % 2000;
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    cr_assert_eq(ts_differ(build_argmax, NULL, 1, &in, 0, 0), ACC_OK);
    acc_array out = run_cpu(build_argmax, NULL, 1, &in, 4, 1);
    for (int b = 0; b < 13; b++) {
        int64_t best = -1;
        for (int i = 0; i < N; i++)
            if (bin_ref(x[i], 13) == b &&
                (best < 0 || x[i] / 13 > x[best] / 13))
                best = i;
        cr_expect_eq(((int64_t *)out.data[0])[b], best, "bin %d", b);
    }
    acc_array_release(&out);
}

/* permute (+) (fill [16] 0) (\[i] -> [i rem 16]) xs over f32: the sums
 * are regrouped, so they agree within a relative tolerance. */
static acc_node *build_float_sum(acc_graph *g, const void *arg)
{
    (void)arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    return acc_permute(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                       fill1(g, 16, ts_f32(g, 0.0f)),
                       ts_lam1(g, ix, ts_bin_of(g, acc_get(g, ix, 0), 16)), xs);
}

Test(cpu_permute, float_sums_within_a_relative_tolerance)
{
    enum { N = 100000 };
    static float x[N];
    int64_t n = N;
    for (int i = 0; i < N; i++)
        x[i] = (float)((i * 7919) % 1000) * 0.001f + 0.5f;
    acc_array in = ts_host(ACC_F32, 1, &n, x);
    cr_assert_eq(ts_differ(build_float_sum, NULL, 1, &in, 0, 1e-4), ACC_OK);
}

/* A Scalar target: every element goes to []. */
static acc_node *build_scalar_target(acc_graph *g, const void *arg)
{
    (void)arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    return acc_permute(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                       acc_fill(g, acc_index(g, 0, NULL), ts_i64(g, 1000)),
                       ts_lam1(g, ix, acc_index(g, 0, NULL)), xs);
}

Test(cpu_permute, scalar_target_and_empty_source)
{
    int64_t x[100], n = 100, empty = 0, want = 1000;
    for (int i = 0; i < 100; i++) {
        x[i] = i * i;
        want += x[i];
    }
    acc_array in = ts_host(ACC_I64, 1, &n, x);
    cr_assert_eq(ts_differ(build_scalar_target, NULL, 1, &in, 0, 0), ACC_OK);
    acc_array out = run_cpu(build_scalar_target, NULL, 1, &in, 0, 1);
    cr_assert_eq(out.rank, 0);
    cr_assert_eq(*(int64_t *)out.data[0], want);
    acc_array_release(&out);
    /* no source elements: the defaults */
    acc_array none = ts_host(ACC_I64, 1, &empty, x);
    cr_assert_eq(ts_differ(build_scalar_target, NULL, 1, &none, 0, 0), ACC_OK);
    out = run_cpu(build_scalar_target, NULL, 1, &none, 0, 1);
    cr_assert_eq(*(int64_t *)out.data[0], 1000);
    acc_array_release(&out);
    int32_t h[1];
    int64_t k = 4;
    acc_array hin = ts_host(ACC_I32, 1, &empty, h);
    cr_assert_eq(ts_differ(ts_build_histogram, &k, 1, &hin, 0, 0), ACC_OK);
}

Test(cpu_permute, out_of_range_target_is_the_interpreters_error)
{
    int32_t x[20] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 2, 1, 0, -1, 4, 3, 2, 1, 0};
    int64_t n = 20, k = 10;
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    /* -1 at [14]: negative; and 5..9 beyond [5] with k = 5 */
    cr_assert_eq(ts_differ(ts_build_histogram, &k, 1, &in, 0, 0),
                 ACC_ERR_RUNTIME);
    cr_expect(ts_contains_ci(acc_last_error(), "source element [14] has "
                             "target index [-1]"), "%s", acc_last_error());
    x[14] = 4;
    k = 5;
    cr_assert_eq(ts_differ(ts_build_histogram, &k, 1, &in, 0, 0),
                 ACC_ERR_RUNTIME);
    cr_expect(ts_contains_ci(acc_last_error(), "source element [5] has target "
                             "index [5], which is out of bounds for the "
                             "target shape [5]"), "%s", acc_last_error());
    /* the same program still runs on good input */
    k = 10;
    cr_assert_eq(ts_differ(ts_build_histogram, &k, 1, &in, 0, 0), ACC_OK);
}

/* map (\c -> c == 0) over permute (+): the map is applied by the same
 * kernel after the permutation. */
static acc_node *build_mapped(acc_graph *g, const void *arg)
{
    acc_node *h = ts_build_histogram(g, arg);
    acc_node *c = acc_param(g, ts_sc(ACC_I32));
    return acc_map(g, ts_lam1(g, c, acc_binop(g, ACC_OP_EQ, c, ts_i32(g, 0))),
                   h);
}

/* map (\b -> if b then 1.5 else 0.25) over that: a chain of maps, still
 * applied by the permute's kernel. */
static acc_node *build_two_maps(acc_graph *g, const void *arg)
{
    acc_node *b = acc_param(g, ts_sc(ACC_BOOL));
    return acc_map(g, ts_lam1(g, b, acc_cond(g, b, ts_f64(g, 1.5),
                                             ts_f64(g, 0.25))),
                   build_mapped(g, arg));
}

Test(cpu_permute, map_after_permute)
{
    int32_t x[20] = {0, 0, 1, 2, 1, 1, 2, 4, 8, 3,
                     4, 9, 8, 3, 2, 5, 5, 3, 1, 2};
    int64_t n = 20, k = 10;
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    cr_assert_eq(ts_differ(build_mapped, &k, 1, &in, 0, 0), ACC_OK);
    acc_array out = run_cpu(build_mapped, &k, 1, &in, 0, 1);
    const uint8_t want[10] = {0, 0, 0, 0, 0, 0, 1, 1, 0, 0};
    cr_assert_eq(memcmp(out.data[0], want, sizeof want), 0);
    acc_array_release(&out);
    /* two maps */
    cr_assert_eq(ts_differ(build_two_maps, &k, 1, &in, 0, 0), ACC_OK);
    out = run_cpu(build_two_maps, &k, 1, &in, 0, 1);
    for (int i = 0; i < 10; i++)
        cr_expect_eq(((const double *)out.data[0])[i], want[i] ? 1.5 : 0.25);
    acc_array_release(&out);
}

/* ------------------------------------------------------------------------
 * permute' after expand: the sieve of LANGUAGE.md §3.6
 * ------------------------------------------------------------------------ */

static acc_node *build_sieve(acc_graph *g, const void *arg)
{
    int mapped = arg && *(const int *)arg;
    acc_node *marks = ts_sieve_program(g);
    if (!mapped)
        return marks;
    acc_node *c = acc_param(g, ts_sc(ACC_I32));
    return acc_map(g, ts_lam1(g, c, acc_binop(g, ACC_OP_EQ, c, ts_i32(g, 0))),
                   marks);
}

Test(cpu_permute, sieve_is_one_compiled_kernel)
{
    enum { N = 200000 };
    int64_t ps[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47,
                    53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107,
                    109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167,
                    173, 179, 181, 191, 193, 197, 199, 211, 223, 227, 229,
                    233, 239, 241, 251, 257, 263, 269, 271, 277, 281, 283,
                    293, 307, 311, 313, 317, 331, 337, 347, 349, 353, 359,
                    367, 373, 379, 383, 389, 397, 401, 409, 419, 421, 431,
                    433, 439, 443, 449};
    int64_t np = sizeof ps / sizeof *ps, n = N;
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)};
    cr_assert_eq(ts_differ(build_sieve, NULL, 2, in, 0, 0), ACC_OK);
    acc_array out = run_cpu(build_sieve, NULL, 2, in, 0, 1);
    const int32_t *marks = out.data[0];
    for (int64_t x = 0; x < N; x++) {
        int32_t want = 0;
        for (int64_t j = 0; j < np; j++)
            want += x >= 2 * ps[j] && x % ps[j] == 0;
        cr_assert_eq(marks[x], want, "marks of %lld", (long long)x);
    }
    acc_array_release(&out);
    /* primes below N: no marks (a map after the sieve, still one kernel) */
    int mapped = 1;
    cr_assert_eq(ts_differ(build_sieve, &mapped, 2, in, 0, 0), ACC_OK);
    out = run_cpu(build_sieve, &mapped, 2, in, 0, 1);
    int64_t primes = 0;
    for (int64_t x = 2; x < N; x++)
        primes += ((const uint8_t *)out.data[0])[x];
    cr_expect_eq(primes, 17984); /* pi(200000) */
    acc_array_release(&out);
}

Test(cpu_permute, sieve_errors_are_the_interpreters)
{
    int64_t ps[3] = {2, 0, 5}, np = 3, n = 100;
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)};
    /* quot (n - 0) 0 in the size function */
    cr_assert_eq(ts_differ(build_sieve, NULL, 2, in, 0, 0), ACC_ERR_RUNTIME);
    cr_expect(ts_contains_ci(acc_last_error(), "division by zero"), "%s",
              acc_last_error());
    /* p = -3: size (100 + 3) / -3 < 0 */
    ps[1] = -3;
    cr_assert_eq(ts_differ(build_sieve, NULL, 2, in, 0, 0), ACC_ERR_RUNTIME);
    cr_expect(ts_contains_ci(acc_last_error(), "expand: the size function "
                             "gives -34 for element 1"), "%s", acc_last_error());
    /* no primes at all: only the defaults */
    np = 0;
    in[0] = ts_host(ACC_I64, 1, &np, ps);
    cr_assert_eq(ts_differ(build_sieve, NULL, 2, in, 0, 0), ACC_OK);
}

/* permute' f (fill [50] z) (expand (\p -> p `rem` 4)
 *   (\p k -> ([(7p + k) `rem` 50] or ignore when k == 2, value)) (map (* 3) xs)):
 * the expand's own source is an embedded producer; the value is p + k
 * (i64, fetch-and-add) or the pair (p + k, i16 k) (locks). */
static acc_node *build_pairs_over_expand(acc_graph *g, const void *arg)
{
    int tuple = *(const int *)arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *y = acc_param(g, ts_sc(ACC_I64));
    acc_node *ys = acc_map(g, ts_lam1(g, y, acc_binop(g, ACC_OP_MUL, y,
                                                      ts_i64(g, 3))), xs);
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *size = ts_lam1(g, x, acc_binop(g, ACC_OP_REM, x, ts_i64(g, 4)));
    acc_node *p = acc_param(g, ts_sc(ACC_I64)), *k = acc_param(g, ts_sc(ACC_I64));
    acc_node *t = acc_cond(g, acc_binop(g, ACC_OP_EQ, k, ts_i64(g, 2)),
                           acc_ignore(g, 1),
                           ts_bin_of(g, acc_binop(g, ACC_OP_ADD, acc_binop(g,
                                  ACC_OP_MUL, p, ts_i64(g, 7)), k), 50));
    acc_node *v = acc_binop(g, ACC_OP_ADD, p, k), *z = ts_i64(g, 0);
    acc_node *f = ts_binop_fn(g, ACC_I64, ACC_OP_ADD);
    if (tuple) {
        v = acc_tuple(g, 2, (acc_node *[]){v, acc_convert(g, k, ACC_I16)});
        z = acc_tuple(g, 2, (acc_node *[]){z, ts_int(g, ACC_I16, 0)});
        const acc_type *et = acc_node_type(v);
        acc_node *a = acc_param(g, et), *b = acc_param(g, et);
        f = ts_lam2(g, a, b, acc_tuple(g, 2, (acc_node *[]){
            acc_binop(g, ACC_OP_ADD, acc_get(g, a, 0), acc_get(g, b, 0)),
            acc_binop(g, ACC_OP_MAX, acc_get(g, a, 1), acc_get(g, b, 1))}));
    }
    acc_node *e = acc_expand(g, size, ts_lam2(g, p, k, acc_tuple(g, 2,
                             (acc_node *[]){t, v})), ys);
    return acc_permute_pairs(g, f, fill1(g, 50, z), e);
}

Test(cpu_permute, pairs_over_an_expand_over_a_producer)
{
    enum { N = 3000 };
    static int64_t x[N];
    int64_t n = N, want[50] = {0};
    for (int i = 0; i < N; i++) {
        x[i] = (i * 13) % 101;
        for (int64_t k = 0; k < (3 * x[i]) % 4; k++)
            if (k != 2)
                want[(7 * 3 * x[i] + k) % 50] += 3 * x[i] + k;
    }
    acc_array in = ts_host(ACC_I64, 1, &n, x);
    for (int tuple = 0; tuple <= 1; tuple++) {
        cr_assert_eq(ts_differ(build_pairs_over_expand, &tuple, 1, &in, 0, 0),
                     ACC_OK);
        acc_array out = run_cpu(build_pairs_over_expand, &tuple, 1, &in, 0, 1);
        cr_assert_eq(memcmp(out.data[0], want, sizeof want), 0);
        acc_array_release(&out);
    }
}

/* ------------------------------------------------------------------------
 * expand
 * ------------------------------------------------------------------------ */

typedef struct expand_case {
    int producer; /* the source through a map (an embedded producer) */
    int tuple;    /* results (x, k * x, f64 k) */
    int mapped;   /* map (\r -> r + 1) after the expand (scalar results) */
} expand_case;

/* expand (\x -> x `rem` 7 - 1... sizes x `rem` 5) (\x k -> ...) xs */
static acc_node *build_expand(acc_graph *g, const void *arg)
{
    const expand_case *c = arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *src = xs;
    if (c->producer) {
        acc_node *y = acc_param(g, ts_sc(ACC_I64));
        src = acc_map(g, ts_lam1(g, y, acc_binop(g, ACC_OP_ADD, y,
                                                 ts_i64(g, 1))), xs);
    }
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *size = ts_lam1(g, x, acc_binop(g, ACC_OP_REM, x, ts_i64(g, 5)));
    acc_node *q = acc_param(g, ts_sc(ACC_I64)), *k = acc_param(g, ts_sc(ACC_I64));
    acc_node *v = acc_binop(g, ACC_OP_ADD, acc_binop(g, ACC_OP_MUL, q,
                            ts_i64(g, 100)), k);
    if (c->tuple)
        v = acc_tuple(g, 3, (acc_node *[]){q, v, acc_convert(g, k, ACC_F64)});
    acc_node *e = acc_expand(g, size, ts_lam2(g, q, k, v), src);
    if (!c->mapped)
        return e;
    acc_node *r = acc_param(g, ts_sc(ACC_I64));
    return acc_map(g, ts_lam1(g, r, acc_binop(g, ACC_OP_ADD, r, ts_i64(g, 1))),
                   e);
}

Test(cpu_permute, expand_with_zero_sizes_and_tuples)
{
    enum { N = 5000 };
    static int64_t x[N];
    int64_t n = N, empty = 0;
    for (int i = 0; i < N; i++)
        x[i] = (i * 31) % 17; /* sizes 0..4, many zero */
    acc_array in = ts_host(ACC_I64, 1, &n, x);
    for (int c = 0; c < 8; c++) {
        expand_case ec = {c & 1, (c >> 1) & 1, (c >> 2) & 1};
        if (ec.tuple && ec.mapped)
            continue;
        cr_assert_eq(ts_differ(build_expand, &ec, 1, &in, 0, 0), ACC_OK,
                     "case %d", c);
    }
    expand_case plain = {0, 0, 0};
    acc_array out = run_cpu(build_expand, &plain, 1, &in, 0, 1);
    int64_t at = 0;
    for (int i = 0; i < N; i++)
        for (int64_t k = 0; k < x[i] % 5; k++, at++)
            cr_assert_eq(((int64_t *)out.data[0])[at], x[i] * 100 + k);
    cr_assert_eq(out.extents[0], at);
    acc_array_release(&out);
    /* an empty source, and sizes that are all zero */
    acc_array none = ts_host(ACC_I64, 1, &empty, x);
    cr_assert_eq(ts_differ(build_expand, &plain, 1, &none, 0, 0), ACC_OK);
    int64_t zeros[4] = {0, 5, 10, 15}, four = 4;
    acc_array zin = ts_host(ACC_I64, 1, &four, zeros);
    out = run_cpu(build_expand, &plain, 1, &zin, 0, 1);
    cr_expect_eq(out.extents[0], 0);
    acc_array_release(&out);
}

Test(cpu_permute, expand_negative_size_is_the_interpreters_error)
{
    int64_t x[4] = {3, 2, -3, 1}, n = 4;
    expand_case c = {0, 0, 0};
    acc_array in = ts_host(ACC_I64, 1, &n, x);
    cr_assert_eq(ts_differ(build_expand, &c, 1, &in, 0, 0), ACC_ERR_RUNTIME);
    cr_expect(ts_contains_ci(acc_last_error(), "expand: the size function "
                             "gives -3 for element 2"), "%s", acc_last_error());
}

/* ------------------------------------------------------------------------
 * Randomised differential test
 * ------------------------------------------------------------------------ */

typedef struct random_case {
    acc_primop op;  /* integer combiner */
    int rank2;      /* a 2-D target */
    int pairs;      /* permute' of (target, value) pairs */
    int64_t bins;   /* target extent per dimension */
} random_case;

/* permute op (fill sh 0) (\[i] -> target from ts ! [i]) vs, or permute'
 * of the same pairs; ts holds linear targets, -1 for ignore. */
static acc_node *build_random(acc_graph *g, const void *arg)
{
    const random_case *c = arg;
    acc_node *vs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ts = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *t = acc_read(g, ts, ix);
    int rank = c->rank2 ? 2 : 1;
    acc_node *b = ts_i64(g, c->bins);
    acc_node *real = c->rank2
        ? ts_idx2(g, acc_binop(g, ACC_OP_QUOT, t, b),
                  acc_binop(g, ACC_OP_REM, t, b))
        : ts_idx1(g, t);
    acc_node *target = acc_cond(g, acc_binop(g, ACC_OP_LT, t, ts_i64(g, 0)),
                                acc_ignore(g, rank), real);
    acc_node *sh = c->rank2 ? ts_idx2(g, b, b) : ts_idx1(g, b);
    acc_node *defs = acc_fill(g, sh, ts_i64(g, 0));
    acc_node *f = ts_binop_fn(g, ACC_I64, c->op);
    if (!c->pairs)
        return acc_permute(g, f, defs, ts_lam1(g, ix, target), vs);
    acc_node *pair = acc_tuple(g, 2, (acc_node *[]){target,
                                                    acc_read(g, vs, ix)});
    return acc_permute_pairs(g, f, defs, acc_generate(g, acc_shape(g, vs),
                             acc_lambda(g, 1, &ix, pair)));
}

Test(cpu_permute, randomised_against_the_interpreter)
{
    static const acc_primop ops[] = {ACC_OP_ADD, ACC_OP_MAX, ACC_OP_MIN,
                                     ACC_OP_BXOR};
    static int64_t vs[5000], ts[5000];
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 16; round++) {
        random_case c = {ops[round % 4], (round / 4) % 2, round / 8, 6};
        int64_t n = ts_rnd(&seed, 5000);
        int64_t cells = c.rank2 ? c.bins * c.bins : c.bins;
        for (int64_t i = 0; i < n; i++) {
            vs[i] = (int64_t)ts_rnd(&seed, 1u << 30) - (1 << 29);
            ts[i] = ts_rnd(&seed, 10) == 0 ? -1
                                           : (int64_t)ts_rnd(&seed, (uint32_t)cells);
        }
        acc_array in[2] = {ts_host(ACC_I64, 1, &n, vs),
                           ts_host(ACC_I64, 1, &n, ts)};
        cr_assert_eq(ts_differ(build_random, &c, 2, in, 0, 0), ACC_OK,
                     "round %d", round);
    }
}
