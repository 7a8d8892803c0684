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


enum { MAX_OUT = 4 };

typedef struct outcome {
    acc_status st;
    char message[1024];
    size_t n;
    acc_array out[MAX_OUT];
} outcome;

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
                   size_t n_in, const acc_array *in, outcome *o)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *r = build(g, arg);
    acc_program *p = NULL;
    memset(o, 0, sizeof *o);
    o->st = acc_compile(ctx, g, 1, &r, &p);
    if (o->st == ACC_OK && acc_program_backend(p) == ACC_BACKEND_CPU)
        expect_all_compiled(p);
    if (o->st == ACC_OK) {
        o->n = acc_program_num_outputs(p);
        cr_assert(o->n <= MAX_OUT);
        for (size_t i = 0; i < o->n; i++)
            o->out[i].struct_size = sizeof o->out[i];
        o->st = acc_run(p, n_in, in, o->n, o->out);
    }
    if (o->st != ACC_OK)
        snprintf(o->message, sizeof o->message, "%s", acc_last_error());
    acc_program_free(p);
    acc_graph_free(g);
}

static void release(outcome *o)
{
    for (size_t i = 0; o->st == ACC_OK && i < o->n; i++)
        acc_array_release(&o->out[i]);
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
    outcome c, r;
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
    release(&c);
    release(&r);
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
 * Permute strategies
 * ------------------------------------------------------------------------ */

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
