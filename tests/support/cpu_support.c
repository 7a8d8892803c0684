/*
 * cpu_support.c — differential runs shared by the CPU-backend tests: a
 * private kernel-cache folder per test, a CPU context (the test skips when
 * no C compiler works), and ts_differ, which builds a program on the CPU
 * and the interpreter backends, runs both and compares every output.
 */
#include <criterion/criterion.h>

#include "cpu_support.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Contexts, a private cache folder per test
 * ------------------------------------------------------------------------ */

char ts_cpu_cache_dir[256];

/* The CPU probe's outcome (the canaries' verdict on the compiler and the
 * flags it chose, core/backend/cpu/probe.h) is remembered per process and
 * in a stamp file in the context's cache folder.  Every test runs in a
 * process of its own with a folder of its own: probing once from a folder
 * all the tests share spares each one compiling the canaries again. */
static void warm_cpu_probe(void)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = ACC_TEST_SHARED_CACHE;
    if (acc_context_create(&o, &ctx) == ACC_OK) /* else: ts_cpu_context skips */
        acc_context_destroy(ctx);
}

void ts_make_cache_dir(void)
{
    warm_cpu_probe();
    snprintf(ts_cpu_cache_dir, sizeof ts_cpu_cache_dir, "%s/accel-test-cache-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(ts_cpu_cache_dir));
}

void ts_remove_cache_dir(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ts_cpu_cache_dir);
    cr_expect_eq(system(cmd), 0);
}

acc_context *ts_cpu_context(void)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = ts_cpu_cache_dir;
    acc_status st = acc_context_create(&o, &ctx);
    if (st == ACC_ERR_UNSUPPORTED)
        cr_skip_test("no working C compiler: %s", acc_last_error());
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    return ctx;
}


/* ------------------------------------------------------------------------
 * Differential runs
 * ------------------------------------------------------------------------ */


void ts_outcome_run(ts_outcome *o, acc_status compiled, acc_program *p,
                    size_t n_in, const acc_array *in)
{
    memset(o, 0, sizeof *o);
    o->st = compiled;
    if (o->st == ACC_OK) {
        o->n = acc_program_num_outputs(p);
        cr_assert(o->n <= TS_MAX_OUT);
        o->st = ts_run_program(p, n_in, in, o->n, o->out);
    }
    if (o->st != ACC_OK)
        snprintf(o->message, sizeof o->message, "%s", acc_last_error());
}

void ts_outcome_release(ts_outcome *o)
{
    for (size_t i = 0; o->st == ACC_OK && i < o->n; i++)
        acc_array_release(&o->out[i]);
}

/* Every step of the programs tested here has a CPU kernel: none may be
 * left to the interpreter. */
static void expect_all_compiled(const acc_program *p)
{
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    const char *cpu = strstr(json, "\"cpu\":{\"kernels\":");
    cr_assert_not_null(cpu, "%s", json);
    cr_expect(atoi(cpu + strlen("\"cpu\":{\"kernels\":")) >= 1, "%s", json);
    cr_expect(strstr(json, "\"interpreted\":0,") != NULL, "%s", json);
    acc_free(json);
}

static void run_on(acc_context *ctx, ts_build_fn build, const void *arg,
                   size_t n_in, const acc_array *in, ts_outcome *o)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *r = build(g, arg);
    acc_program *p = NULL;
    acc_status st = acc_compile(ctx, g, 1, &r, &p);
    if (st == ACC_OK && acc_program_backend(p) == ACC_BACKEND_CPU)
        expect_all_compiled(p);
    ts_outcome_run(o, st, p, n_in, in);
    acc_program_free(p);
    acc_graph_free(g);
}

static uint64_t ordered(double x)
{
    int64_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? (uint64_t)(-(i & INT64_MAX)) + (1ull << 63) - 1 + 1
                 : (uint64_t)i + (1ull << 63);
}

static uint32_t ordered32(float x)
{
    int32_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? (uint32_t)(-(i & INT32_MAX)) + (1u << 31) - 1 + 1
                 : (uint32_t)i + (1u << 31);
}

/* Whether a and b agree: NaN matches NaN; within `ulps` units in the last
 * place, or, when rel > 0, within relative error rel. */
static int float_close(double a, double b, int f32, int ulps, double rel)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (rel > 0)
        return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
    if (a == b)
        return 1;
    uint64_t x = f32 ? ordered32((float)a) : ordered(a);
    uint64_t y = f32 ? ordered32((float)b) : ordered(b);
    return (x > y ? x - y : y - x) <= (uint64_t)ulps;
}

static void compare_leaf(const acc_array *c, const acc_array *r, size_t leaf,
                         int ulps, double rel)
{
    acc_scalar s = acc_type_leaf(r->type, leaf);
    int64_t n = acc_array_size(r);
    size_t w = acc_scalar_size(s);
    for (int64_t i = 0; i < n; i++) {
        const char *x = (const char *)c->data[leaf] + i * (int64_t)w;
        const char *y = (const char *)r->data[leaf] + i * (int64_t)w;
        if (s == ACC_F32 || s == ACC_F64) {
            double a = s == ACC_F32 ? *(const float *)x : *(const double *)x;
            double b = s == ACC_F32 ? *(const float *)y : *(const double *)y;
            cr_assert(float_close(a, b, s == ACC_F32, ulps, rel),
                      "leaf %zu element %lld: %.17g, interp %.17g", leaf,
                      (long long)i, a, b);
        } else {
            cr_assert(memcmp(x, y, w) == 0, "leaf %zu (%s) element %lld "
                      "differs", leaf, acc_scalar_name(s), (long long)i);
        }
    }
}

void ts_expect_same_outputs(const acc_array *got, const acc_array *want,
                            size_t n, int ulps, double rel)
{
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(got[i].rank, want[i].rank, "output %zu: rank", i);
        for (int32_t d = 0; d < want[i].rank; d++)
            cr_assert_eq(got[i].extents[d], want[i].extents[d], "output %zu: "
                         "extent %d", i, (int)d);
        for (size_t l = 0; l < acc_type_leaf_count(want[i].type); l++)
            compare_leaf(&got[i], &want[i], l, ulps, rel);
    }
}

/* Runs build on both backends and compares; returns the cpu outcome's
 * status (both must agree on it). */
acc_status ts_differ(ts_build_fn build, const void *arg, size_t n_in,
                         const acc_array *in, int ulps, double rel)
{
    acc_context *cpu = ts_cpu_context();
    acc_context *ref = ts_context(ACC_BACKEND_INTERP);
    ts_outcome c, r;
    run_on(cpu, build, arg, n_in, in, &c);
    run_on(ref, build, arg, n_in, in, &r);
    cr_assert_eq(c.st, r.st, "cpu: %s (%s); interp: %s (%s)",
                 acc_status_string(c.st), c.message,
                 acc_status_string(r.st), r.message);
    if (c.st != ACC_OK)
        cr_assert_str_eq(c.message, r.message);
    else
        ts_expect_same_outputs(c.out, r.out, r.n, ulps, rel);
    acc_status st = c.st;
    if (st != ACC_OK)
        cr_log_info("both backends: %s (%s)", acc_status_string(st), c.message);
    ts_outcome_release(&c);
    ts_outcome_release(&r);
    acc_context_destroy(cpu);
    acc_context_destroy(ref);
    return st;
}

acc_status ts_differ_segmented(ts_build_fn build, const void *arg, int rank,
                               const int64_t *ext, const int64_t *seg,
                               int64_t n_seg, double rel)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= ext[d];
    int64_t *xs = malloc((size_t)(n ? n : 1) * sizeof *xs);
    cr_assert_not_null(xs);
    for (int64_t i = 0; i < n; i++)
        xs[i] = (i * 7919) % 1000 - 300;
    acc_array in[2] = {
        ts_host_array(acc_type_scalar(ACC_I64), rank, ext, (void *[]){xs}),
        ts_host_array(acc_type_scalar(ACC_I64), 1, &n_seg,
                      (void *[]){(void *)seg})};
    acc_status st = ts_differ(build, arg, 2, in, 0, rel);
    free(xs);
    return st;
}

/* ------------------------------------------------------------------------
 * Reductions' elements
 * ------------------------------------------------------------------------ */

/* (a0, a1) `f` (b0, b1) = (a0 + b0, max a1 b1) on (i64, f64) */
static acc_node *tuple_combiner(acc_graph *g, const acc_type *elem)
{
    acc_node *a = acc_param(g, elem), *b = acc_param(g, elem);
    acc_node *r = acc_tuple(g, 2, (acc_node *[]){
        acc_binop(g, ACC_OP_ADD, acc_get(g, a, 0), acc_get(g, b, 0)),
        acc_binop(g, ACC_OP_MAX, acc_get(g, a, 1), acc_get(g, b, 1))});
    return acc_lambda(g, 2, (acc_node *[]){a, b}, r);
}

/* 2x2 integer matrix product on (i64, i64, i64, i64). */
static acc_node *matrix_combiner(acc_graph *g, const acc_type *elem)
{
    acc_node *a = acc_param(g, elem), *b = acc_param(g, elem);
    acc_node *m[4];
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
            m[2 * r + c] = acc_binop(g, ACC_OP_ADD,
                acc_binop(g, ACC_OP_MUL, acc_get(g, a, (size_t)(2 * r)),
                          acc_get(g, b, (size_t)c)),
                acc_binop(g, ACC_OP_MUL, acc_get(g, a, (size_t)(2 * r + 1)),
                          acc_get(g, b, (size_t)(2 + c))));
    return acc_lambda(g, 2, (acc_node *[]){a, b}, acc_tuple(g, 4, m));
}

acc_node *ts_red_combiner(acc_graph *g, ts_red_elem k, const acc_type *elem)
{
    switch (k) {
    case TS_RED_MATRIX: return matrix_combiner(g, elem);
    case TS_RED_TUPLE: return tuple_combiner(g, elem);
    case TS_RED_F64: return ts_binop_fn(g, ACC_F64, ACC_OP_ADD);
    default: return ts_binop_fn(g, ACC_I64, ACC_OP_ADD);
    }
}

acc_node *ts_red_start(acc_graph *g, ts_red_elem k)
{
    switch (k) {
    case TS_RED_MATRIX:
        return acc_tuple(g, 4, (acc_node *[]){ts_i64(g, 1), ts_i64(g, 2),
                                              ts_i64(g, 3), ts_i64(g, 4)});
    case TS_RED_TUPLE:
        return acc_tuple(g, 2, (acc_node *[]){ts_i64(g, 42), ts_f64(g, -1.0)});
    case TS_RED_F64: return ts_f64(g, 0.5);
    default: return ts_i64(g, 42);
    }
}

/* ------------------------------------------------------------------------
 * Permute strategies
 * ------------------------------------------------------------------------ */

acc_node *ts_build_histogram(acc_graph *g, const void *arg)
{
    int64_t k = *(const int64_t *)arg;
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *i = acc_param(g, acc_type_shape(1));
    acc_node *p = ts_lam1(g, i, ts_idx1(g, acc_convert(g, acc_read(g, xs, i),
                                                      ACC_I64)));
    acc_node *u = acc_param(g, ts_sc(ACC_I32));
    acc_node *ones = acc_map(g, ts_lam1(g, u, ts_i32(g, 1)), xs);
    return acc_permute(g, ts_binop_fn(g, ACC_I32, ACC_OP_ADD),
                       acc_fill(g, ts_idx1(g, ts_i64(g, k)), ts_i32(g, 0)), p,
                       ones);
}

acc_node *ts_bin_of(acc_graph *g, acc_node *x, int64_t m)
{
    return ts_idx1(g, acc_binop(g, ACC_OP_MOD, acc_convert(g, x, ACC_I64),
                                ts_i64(g, m)));
}

acc_node *ts_permute_tuples(acc_graph *g, int64_t bins)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *x = acc_read(g, xs, ix);
    acc_node *e = acc_tuple(g, 2, (acc_node *[]){x, acc_binop(g, ACC_OP_MUL,
                            acc_convert(g, x, ACC_F64), ts_f64(g, 0.5))});
    acc_node *src = acc_generate(g, acc_shape(g, xs), acc_lambda(g, 1, &ix, e));
    const acc_type *et = acc_node_type(e);
    acc_node *a = acc_param(g, et), *b = acc_param(g, et);
    acc_node *f = ts_lam2(g, a, b, acc_tuple(g, 2, (acc_node *[]){
        acc_binop(g, ACC_OP_ADD, acc_get(g, a, 0), acc_get(g, b, 0)),
        acc_binop(g, ACC_OP_MAX, acc_get(g, a, 1), acc_get(g, b, 1))}));
    acc_node *z = acc_tuple(g, 2, (acc_node *[]){ts_i32(g, 0), ts_f64(g, -1e9)});
    acc_node *jx = acc_param(g, acc_type_shape(1));
    return acc_permute(g, f, acc_fill(g, ts_idx1(g, ts_i64(g, bins)), z),
                       ts_lam1(g, jx, ts_bin_of(g, acc_read(g, xs, jx), bins)),
                       src);
}

const char *const ts_permute_strategies[] = {"shared", "direct", "private",
                                             "partition", "range", NULL};

void ts_differ_permute_strategies(ts_build_fn build, const void *arg,
                                  size_t n_in, const acc_array *in,
                                  acc_status want)
{
    static const char *const threads[] = {"1", "2", "3"};
    for (size_t s = 0; s == 0 || ts_permute_strategies[s - 1]; s++)
        for (size_t t = 0; t < 3; t++) {
            const char *how = ts_permute_strategies[s];
            if (how)
                cr_assert_eq(setenv("ACC_CPU_PERMUTE", how, 1), 0);
            else
                cr_assert_eq(unsetenv("ACC_CPU_PERMUTE"), 0);
            cr_assert_eq(setenv("ACC_NUM_THREADS", threads[t], 1), 0);
            acc_status st = ts_differ(build, arg, n_in, in, 0, 0);
            cr_assert_eq(st, want, "strategy %s, %s threads: %s",
                         how ? how : "(host's)", threads[t],
                         acc_status_string(st));
        }
    unsetenv("ACC_CPU_PERMUTE");
}
