/*
 * test_alloc_fail.c — allocation-failure injection, as SQLite tests it
 * (core/base/mem.h): compiling and running a handful of programs with the
 * n-th allocation failing, for every n (sampled beyond a limit), on the
 * interpreter and the CPU backend.  Every attempt must succeed or fail
 * with ACC_ERR_OUT_OF_HOST_MEMORY (never crash, never another status),
 * leak nothing (the sanitizer build: LeakSanitizer fails the test), and
 * leave the context and the program usable: the same work, repeated
 * without a failure, succeeds with the right values.
 *
 * The programs: dotp, Black-Scholes, the chain of six scans
 * (docs/ARCHITECTURE.md), and a program with an awhile and a foreign call
 * (an implementation registered by the test, and one left to its
 * fallback).  Needs a build with -DACC_ALLOC_FAIL=ON (make test
 * configures both of its builds so); elsewhere the tests skip.
 */
#include <criterion/criterion.h>

#include "core/base/mem.h"
#include "cpu_support.h"
#include "support.h"
#include "text_sources.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(alloc_fail, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir,
          .timeout = 600);

/* dotp and Black-Scholes as LANGUAGE.md §4 writes them (text_sources.c),
 * then programs of this test's own. */
static const char own_source[] =
    "chain (x : Vector f32) : Vector f32 =\n"
    "  let a = scanl1 (+) x; b = scanl1 max (map (* 0.5) a);\n"
    "      c = scanl1 (+) (map (* 0.25) b); d = scanl1 max (map (* 0.5) c);\n"
    "      e = scanl1 (+) (map (* 0.125) d); f = scanl1 max (map (* 0.5) e)\n"
    "  in f\n"
    "\n"
    "loop (xs : Vector f32) : (Vector f32, Vector f32) =\n"
    "  let ys = foreign \"test.twice\" (\\v -> map (* 2.0) v) xs;\n"
    "      zs = foreign \"test.absent\" (\\v -> map (+ 1.0) v) ys\n"
    "  in awhile (\\(s, t) -> unit (s ! [0] < 100.0))\n"
    "            (\\(s, t) -> (map (* 2.0) s, zipWith (+) t zs))\n"
    "            (ys, zs)\n";

/* The whole source, made once per test process. */
static const char *program_source(void)
{
    static char text[4096];
    if (!text[0]) {
        int n = snprintf(text, sizeof text, "%s\n%s\n%s", ts_dotp_source(),
                         ts_blackscholes_source(), own_source);
        cr_assert(n > 0 && (size_t)n < sizeof text, "the source is too long");
    }
    return text;
}

enum { N = 64, MAX_OUT = 2 };

typedef struct program {
    const char *entry;
    size_t n_in, n_out;
} program;

static const program programs[] = {
    {"dotp", 2, 1}, {"blackscholes", 1, 1}, {"chain", 1, 1}, {"loop", 1, 2},
};

/* The options of Black-Scholes: (price, strike, years) triples. */
static const acc_type *options_type;

/* ---- a host implementation of test.twice -------------------------------------- */

static acc_status twice_shape(acc_foreign_call *c)
{
    c->results[0].extents[0] = c->args[0].extents[0];
    return ACC_OK;
}

static acc_status twice_execute(acc_foreign_call *c)
{
    const float *x = c->args[0].data[0];
    float *y = c->results[0].data[0];
    float *scratch = c->workspace(c, 16);
    if (!scratch)
        return ACC_ERR_OUT_OF_HOST_MEMORY;
    for (int64_t i = 0; i < c->args[0].extents[0]; i++)
        y[i] = 2.0f * x[i];
    return ACC_OK;
}

static acc_context *context_on(acc_backend b)
{
    acc_context *ctx = b == ACC_BACKEND_CPU ? ts_cpu_context()
                                            : ts_context(b);
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = "test.twice";
    impl.impl_name = "twice";
    impl.backend = ACC_BACKEND_INTERP;
    impl.result_shape = twice_shape;
    impl.execute = twice_execute;
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK, "%s",
                 acc_last_error());
    const acc_type *f = acc_type_scalar(ACC_F32), *fs[3] = {f, f, f};
    options_type = acc_type_tuple(ctx, 3, fs);
    cr_assert_not_null(options_type);
    return ctx;
}

/* ---- inputs and checks ------------------------------------------------------------- */

static float in0[N], in1[N], in2[N];

static void fill_inputs(void)
{
    for (int i = 0; i < N; i++) {
        in0[i] = 1.0f + (float)(i % 9);
        in1[i] = 0.5f + (float)(i % 5);
        in2[i] = 0.25f + (float)(i % 3) * 0.5f;
    }
}

static void inputs_of(const program *pr, acc_array *in)
{
    int64_t n = N;
    float *bufs[3] = {in0, in1, in2};
    void *opts[3] = {in0, in1, in2};
    if (strcmp(pr->entry, "blackscholes") == 0) {
        in[0] = ts_host_array(options_type, 1, &n, opts);
        return;
    }
    for (size_t i = 0; i < pr->n_in; i++)
        in[i] = ts_host(ACC_F32, 1, &n, bufs[i]);
}

/* One run into library-allocated outputs, released on success; the
 * first element of output 0 into *first. */
static acc_status run_once(acc_program *p, const program *pr, float *first)
{
    acc_array in[3], out[MAX_OUT];
    inputs_of(pr, in);
    for (size_t i = 0; i < pr->n_out; i++)
        out[i] = ts_empty_output();
    acc_status st = acc_run(p, pr->n_in, in, pr->n_out, out);
    if (st != ACC_OK)
        return st;
    *first = ((const float *)out[0].data[0])[0];
    for (size_t i = 0; i < pr->n_out; i++)
        acc_array_release(&out[i]);
    return ACC_OK;
}

/* Compiles and runs pr once: the status, the first element. */
static acc_status attempt(acc_context *ctx, const program *pr, float *first)
{
    acc_program *p = NULL;
    acc_status st =
        acc_compile_text(ctx, program_source(), (size_t)-1, pr->entry, &p);
    if (st == ACC_OK) {
        cr_assert_not_null(p);
        st = run_once(p, pr, first);
    } else {
        cr_assert_null(p, "a failed compile leaves no program");
    }
    acc_program_free(p);
    return st;
}

static void expect_oom_or_ok(acc_status st, const program *pr, uint64_t n,
                             const char *what)
{
    cr_assert(st == ACC_OK || st == ACC_ERR_OUT_OF_HOST_MEMORY,
              "%s %s, allocation %llu failing: %s (%s)", what, pr->entry,
              (unsigned long long)n, acc_status_string(st), acc_last_error());
    if (st != ACC_OK)
        cr_assert(strstr(acc_last_error(), "memory") ||
                      strstr(acc_last_error(), "MEMORY"),
                  "%s %s, allocation %llu: %s", what, pr->entry,
                  (unsigned long long)n, acc_last_error());
}

/* The n to try, out of `total`: every one up to `all`, then about
 * `samples` more spread over the rest (always the last). */
static uint64_t next_n(uint64_t n, uint64_t total, uint64_t all,
                       uint64_t samples)
{
    if (n < all || total <= all)
        return n + 1;
    uint64_t step = (total - all) / samples;
    n += step ? step : 1;
    return n > total ? (n - step < total ? total : n) : n;
}

typedef struct site_at {
    void *site;
    uint64_t n; /* its first allocation (from 1) */
} site_at;

static int by_site(const void *a, const void *b)
{
    const site_at *x = a, *y = b;
    if (x->site != y->site)
        return (uintptr_t)x->site < (uintptr_t)y->site ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* The plan of a piece of work of `total` allocations whose sites are
 * sites[0..total-1]: the n of next_n, and the first allocation of every
 * site that next_n's n do not reach, so that every allocation site fails
 * once at least (a sample alone would miss the rare ones).  try[n] (n in
 * 1..total) says whether n is tried; returns how many are, and the
 * number of distinct sites in *n_sites. */
static uint64_t plan(void **sites, uint64_t total, uint64_t all,
                     uint64_t samples, uint8_t *try, size_t *n_sites,
                     size_t *added)
{
    uint64_t tried = 0;
    memset(try, 0, total + 1);
    for (uint64_t n = 1; n <= total; n = next_n(n, total, all, samples))
        try[n] = 1;
    site_at *s = malloc((total ? total : 1) * sizeof *s);
    cr_assert_not_null(s);
    for (uint64_t i = 0; i < total; i++)
        s[i] = (site_at){sites[i], i + 1};
    qsort(s, total, sizeof *s, by_site);
    *n_sites = *added = 0;
    for (uint64_t i = 0; i < total;) {
        uint64_t j = i, covered = 0;
        for (; j < total && s[j].site == s[i].site; j++)
            covered |= try[s[j].n];
        if (!covered) {
            try[s[i].n] = 1; /* its first allocation */
            ++*added;
        }
        ++*n_sites;
        i = j;
    }
    free(s);
    for (uint64_t n = 1; n <= total; n++)
        tried += try[n];
    return tried;
}

/* The allocations of one piece of work (run once more, recording), and
 * the plan of those to fail: its `try` table (malloc'd, total + 1
 * entries), the count in *total. */
static uint8_t *plan_of(acc_status (*work)(void *), void *arg,
                        uint64_t total, uint64_t all, uint64_t samples,
                        const char *what)
{
    void **sites = calloc(total + 1, sizeof *sites);
    uint8_t *try = malloc(total + 1);
    cr_assert(sites && try);
    uint64_t before = mem_allocations();
    mem_record_sites(sites, total);
    acc_status st = work(arg);
    mem_record_sites(NULL, 0);
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    cr_assert_eq(mem_allocations() - before, total,
                 "%s: the allocations are not the same from one run to the "
                 "next", what);
    size_t n_sites = 0, added = 0;
    uint64_t tried = plan(sites, total, all, samples, try, &n_sites, &added);
    fprintf(stderr, "alloc_fail: %s: %llu allocations from %zu sites, %llu "
            "failed in turn (%zu for sites the sample missed)\n", what,
            (unsigned long long)total, n_sites, (unsigned long long)tried,
            added);
    free(sites);
    return try;
}

typedef struct work {
    acc_context *ctx;
    acc_program *p;
    const program *pr;
    float got;
} work;

static acc_status compile_and_run(void *arg)
{
    work *w = arg;
    return attempt(w->ctx, w->pr, &w->got);
}

static acc_status run_compiled(void *arg)
{
    work *w = arg;
    return run_once(w->p, w->pr, &w->got);
}

/* Every failing allocation of compiling then running pr, then of running
 * a compiled program.  `all` and `samples` as next_n; the first
 * allocation of every site is tried too (plan). */
static void inject(acc_backend b, const program *pr, uint64_t all,
                   uint64_t samples)
{
    uint64_t counted = mem_allocations();
    free(mem_alloc(1));
    if (mem_allocations() == counted)
        cr_skip_test("allocation-failure injection is not built in "
                     "(configure with -DACC_ALLOC_FAIL=ON)");
    fill_inputs();
    acc_context *ctx = context_on(b);
    float want = 0, got = 0;
    cr_assert_eq(attempt(ctx, pr, &want), ACC_OK, "%s", acc_last_error());
    uint64_t before = mem_allocations();
    cr_assert_eq(attempt(ctx, pr, &want), ACC_OK, "%s", acc_last_error());
    uint64_t total = mem_allocations() - before;
    char what[96];
    snprintf(what, sizeof what, "%s on %s, compile and run", pr->entry,
             acc_backend_name(b));
    work w = {ctx, NULL, pr, 0};
    uint8_t *try = plan_of(compile_and_run, &w, total, all, samples, what);
    for (uint64_t n = 1; n <= total; n++) {
        if (!try[n])
            continue;
        mem_fail_after(n);
        acc_status st = attempt(ctx, pr, &got);
        mem_fail_after(0);
        expect_oom_or_ok(st, pr, n, "compile and run");
        if (st == ACC_OK)
            cr_assert_eq(got, want, "%s, allocation %llu", pr->entry,
                         (unsigned long long)n);
    }
    free(try);
    /* the context is still usable */
    cr_assert_eq(attempt(ctx, pr, &got), ACC_OK, "%s", acc_last_error());
    cr_assert_eq(got, want);

    /* runs of one program */
    acc_program *p = NULL;
    cr_assert_eq(
        acc_compile_text(ctx, program_source(), (size_t)-1, pr->entry, &p),
        ACC_OK, "%s", acc_last_error());
    /* the first run makes what the program keeps for its next runs */
    cr_assert_eq(run_once(p, pr, &got), ACC_OK, "%s", acc_last_error());
    before = mem_allocations();
    cr_assert_eq(run_once(p, pr, &got), ACC_OK, "%s", acc_last_error());
    total = mem_allocations() - before;
    snprintf(what, sizeof what, "%s on %s, run", pr->entry,
             acc_backend_name(b));
    w.p = p;
    try = plan_of(run_compiled, &w, total, all, samples, what);
    for (uint64_t n = 1; n <= total; n++) {
        if (!try[n])
            continue;
        mem_fail_after(n);
        acc_status st = run_once(p, pr, &got);
        mem_fail_after(0);
        expect_oom_or_ok(st, pr, n, "run");
        /* the program is still usable */
        cr_assert_eq(run_once(p, pr, &got), ACC_OK, "%s, allocation %llu: %s",
                     pr->entry, (unsigned long long)n, acc_last_error());
        cr_assert_eq(got, want);
    }
    free(try);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* The host backends' tests run where ACC_TEST_BACKEND is unset; the
 * CUDA test only where it is "cuda" (ctest's unit.test_alloc_fail.emu:
 * the emulated device, cmake/AccelCuda.cmake). */
static int on_cuda(void)
{
    const char *env = getenv("ACC_TEST_BACKEND");
    return env && strcmp(env, "cuda") == 0;
}

static void host_only(void)
{
    if (on_cuda())
        cr_skip_test("the host backends run in unit.test_alloc_fail");
}

/* dotp's compile and run: every allocation, on both backends. */
Test(alloc_fail, dotp_every_allocation)
{
    host_only();
    inject(ACC_BACKEND_INTERP, &programs[0], UINT64_MAX, 1);
    inject(ACC_BACKEND_CPU, &programs[0], UINT64_MAX, 1);
}

Test(alloc_fail, blackscholes)
{
    host_only();
    inject(ACC_BACKEND_INTERP, &programs[1], 400, 200);
    inject(ACC_BACKEND_CPU, &programs[1], 400, 200);
}

Test(alloc_fail, chain_of_scans)
{
    host_only();
    inject(ACC_BACKEND_INTERP, &programs[2], 400, 200);
    inject(ACC_BACKEND_CPU, &programs[2], 400, 200);
}

Test(alloc_fail, awhile_and_foreign_calls)
{
    host_only();
    inject(ACC_BACKEND_INTERP, &programs[3], 400, 200);
    inject(ACC_BACKEND_CPU, &programs[3], 400, 200);
}

/* The CUDA backend on the emulated device (its fake driver executes the
 * kernels): dotp and the awhile with foreign calls (no CUDA
 * implementation registered: the fallbacks run), every allocation up to
 * a limit, then a sample and the first allocation of every site. */
Test(alloc_fail, cuda_emulated)
{
    if (!on_cuda())
        cr_skip_test("runs with ACC_TEST_BACKEND=cuda on the emulated "
                     "device (unit.test_alloc_fail.emu)");
    inject(ACC_BACKEND_CUDA, &programs[0], 400, 200);
    inject(ACC_BACKEND_CUDA, &programs[3], 400, 200);
}

/* ---- what one run allocates ------------------------------------------------------ */

/* A fold over a map of `terms` terms: the schedule is one step (the map
 * is fused into the fold) whatever the number of terms, the IR grows
 * with it. */
static acc_program *fold_of_terms(acc_context *ctx, int terms)
{
    static char text[65536];
    int at = snprintf(text, sizeof text, "f (xs : Vector f32) : Scalar f32 "
                      "=\n  fold (+) 0 (map (\\x -> x");
    for (int i = 1; i <= terms; i++)
        at += snprintf(text + at, sizeof text - (size_t)at, " + x * %d.0", i);
    snprintf(text + at, sizeof text - (size_t)at, ") xs)\n");
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, text, (size_t)-1, "f", &p), ACC_OK,
                 "%s", acc_last_error());
    return p;
}

/* The allocations and bytes of one run of p (after a first one), and its
 * result. */
static void one_run(acc_program *p, uint64_t *count, uint64_t *bytes,
                    float *got)
{
    int64_t n = N;
    acc_array in = ts_host(ACC_F32, 1, &n, in0);
    acc_array out = ts_host(ACC_F32, 0, NULL, got);
    cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
    uint64_t c0 = mem_allocations(), b0 = mem_allocated_bytes();
    cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
    *count = mem_allocations() - c0;
    *bytes = mem_allocated_bytes() - b0;
}

/* acc_run's own state is proportional to the schedule, not to the IR: a
 * program of 400 terms and one of 1 term, with the same one-step
 * schedule, make the same allocations of the same sizes in a run (the
 * value table is the program's, kept between runs; the destinations
 * are one per output). */
static void run_state_of(acc_backend b)
{
    fill_inputs();
    acc_context *ctx = context_on(b);
    acc_program *small = fold_of_terms(ctx, 1), *large = fold_of_terms(ctx, 400);
    uint64_t c1, b1, c2, b2;
    float r1 = 0, r2 = 0;
    one_run(small, &c1, &b1, &r1);
    one_run(large, &c2, &b2, &r2);
    cr_assert_gt(r2, r1, "the larger program computes more (%g, %g)", r2, r1);
    cr_assert_eq(c2, c1, "%s: a run of the larger program makes %llu "
                 "allocations, of the smaller %llu", acc_backend_name(b),
                 (unsigned long long)c2, (unsigned long long)c1);
    cr_assert_eq(b2, b1, "%s: a run of the larger program allocates %llu "
                 "bytes, of the smaller %llu", acc_backend_name(b),
                 (unsigned long long)b2, (unsigned long long)b1);
    acc_program_free(small);
    acc_program_free(large);
    acc_context_destroy(ctx);
}

Test(alloc_fail, run_state_does_not_grow_with_the_program)
{
    host_only();
    uint64_t counted = mem_allocations();
    free(mem_alloc(1));
    if (mem_allocations() == counted)
        cr_skip_test("allocation counting is not built in "
                     "(configure with -DACC_ALLOC_FAIL=ON)");
    run_state_of(ACC_BACKEND_CPU);
    run_state_of(ACC_BACKEND_INTERP);
}
