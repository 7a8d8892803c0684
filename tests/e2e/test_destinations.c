/*
 * test_destinations.c — results computed straight into the caller's output
 * buffers (core/backend/destinations.h) on the CPU backend: a compiled step
 * producing an output writes the caller's buffer (the run allocates no
 * array memory for it), and never when that buffer overlaps an input or
 * another output, or has another shape; results are right either way.
 * The CUDA side (device output buffers) is in
 * tests/cuda/test_cuda_fake_pool.c.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

#include <string.h>

TestSuite(destinations, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

static const char source[] =
    "scaled (xs : Vector f32) : Vector f32 =\n"
    "  map (\\x -> x * 2.0) xs\n"
    "\n"
    "rev (xs : Vector f32) : Vector f32 =\n"
    "  reverse (map (\\x -> x + 1.0) xs)\n"
    "\n"
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n"
    "\n"
    "pair (xs : Vector f32) : (Vector f32, Vector f32) =\n"
    "  let s = map (\\x -> x * 3.0) xs in (s, map (\\x -> x + 1.0) s)\n"
    "\n"
    "same (xs : Vector f32) : Vector f32 =\n"
    "  xs\n"
    "\n"
    "totals (xs : Vector f32) : (Vector f32, Scalar f32) =\n"
    "  scanl' (+) 0 xs\n"
    "\n"
    "viaFallback (xs : Vector f32) : Vector f32 =\n"
    "  foreign \"test.absent\" (\\ys -> map (\\x -> x * 2.0) ys) xs\n"
    "\n"
    "cascade (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  foreign \"test.outer\"\n"
    "    (\\(a, b) -> foreign \"test.inner\"\n"
    "                   (\\(c, d) -> fold (+) 0 (zipWith (*) c d)) (a, b))\n"
    "    (xs, ys)\n";

enum { N = 1000 };

static acc_program *compile(acc_context *ctx, const char *entry)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, source, (size_t)-1, entry, &p), ACC_OK,
                 "%s: %s", entry, acc_last_error());
    return p;
}

static acc_array vec(float *data, int64_t n)
{
    return ts_host(ACC_F32, 1, &n, data);
}

static uint64_t allocated(const acc_program *p)
{
    acc_run_stats s = {sizeof s, 0, 0, 0, 0};
    cr_assert_eq(acc_program_last_run(p, &s), ACC_OK);
    return s.bytes_allocated;
}

static void iota(float *xs, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        xs[i] = (float)i;
}

Test(destinations, a_kernel_writes_the_callers_buffer)
{
    static float xs[N], out[N];
    iota(xs, N);
    acc_context *ctx = ts_cpu_context();
    acc_program *p = compile(ctx, "scaled");
    acc_array in = vec(xs, N), o = vec(out, N);
    cr_assert_eq(acc_run(p, 1, &in, 1, &o), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(o.data[0], (void *)out, "the descriptor is left as given");
    cr_expect_eq(o.ownership, ACC_OWNERSHIP_BORROWED);
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], 2.0f * (float)i, "element %d", i);
    cr_expect_eq(allocated(p), 0, "the result went straight into the "
                 "caller's buffer");
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(destinations, a_fold_writes_the_callers_scalar)
{
    static float xs[N], ys[N];
    float out = -1;
    for (int i = 0; i < N; i++)
        xs[i] = 1.0f, ys[i] = (float)(i % 4);
    acc_context *ctx = ts_cpu_context();
    acc_program *p = compile(ctx, "dotp");
    acc_array in[2] = {vec(xs, N), vec(ys, N)};
    acc_array o = ts_host(ACC_F32, 0, NULL, &out);
    cr_assert_eq(acc_run(p, 2, in, 1, &o), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(out, 1500.0f);
    cr_expect_eq(allocated(p), 0);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* The output is the input: computed elsewhere, then copied, so the
 * reversal never reads what it already wrote. */
Test(destinations, an_output_that_is_an_input_is_not_written_early)
{
    static float xs[N];
    iota(xs, N);
    acc_context *ctx = ts_cpu_context();
    acc_program *p = compile(ctx, "rev");
    acc_array in = vec(xs, N), o = vec(xs, N);
    cr_assert_eq(acc_run(p, 1, &in, 1, &o), ACC_OK, "%s", acc_last_error());
    for (int i = 0; i < N; i++)
        cr_assert_eq(xs[i], (float)(N - 1 - i) + 1.0f, "element %d", i);
    cr_expect_eq(allocated(p), N * sizeof(float), "a result of its own");
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* A buffer that only partly overlaps the input (shifted by one). */
Test(destinations, a_partly_overlapping_output_is_not_written_early)
{
    static float buf[N + 1], want[N];
    iota(buf, N);
    for (int i = 0; i < N; i++)
        want[i] = (float)(N - 1 - i) + 1.0f;
    acc_context *ctx = ts_cpu_context();
    acc_program *p = compile(ctx, "rev");
    acc_array in = vec(buf, N), o = vec(buf + 1, N);
    cr_assert_eq(acc_run(p, 1, &in, 1, &o), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(memcmp(buf + 1, want, sizeof want), 0);
    cr_expect_eq(allocated(p), N * sizeof(float));
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* Two outputs, the second computed from the first: both written directly,
 * the second kernel reading the first output's buffer. */
Test(destinations, shared_result_feeds_a_second_output)
{
    static float xs[N], a[N], b[N];
    iota(xs, N);
    acc_context *ctx = ts_cpu_context();
    acc_program *p = compile(ctx, "pair");
    acc_array in = vec(xs, N), o[2] = {vec(a, N), vec(b, N)};
    cr_assert_eq(acc_run(p, 1, &in, 2, o), ACC_OK, "%s", acc_last_error());
    for (int i = 0; i < N; i++) {
        cr_assert_eq(a[i], 3.0f * (float)i);
        cr_assert_eq(b[i], 3.0f * (float)i + 1.0f);
    }
    cr_expect_eq(allocated(p), 0);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* Outputs given the same buffer overlap each other: neither is written
 * directly (each result has memory of its own, then both are copied). */
Test(destinations, outputs_sharing_a_buffer_are_not_written_directly)
{
    static float xs[N], ab[N];
    iota(xs, N);
    acc_context *ctx = ts_cpu_context();
    acc_program *p = compile(ctx, "pair");
    acc_array in = vec(xs, N), o[2] = {vec(ab, N), vec(ab, N)};
    cr_assert_eq(acc_run(p, 1, &in, 2, o), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(allocated(p), 2 * N * sizeof(float));
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* A buffer of the wrong shape is refused at delivery and left untouched. */
Test(destinations, a_buffer_of_another_shape_is_left_untouched)
{
    static float xs[N], out[N];
    iota(xs, N);
    for (int i = 0; i < N; i++)
        out[i] = -7.0f;
    acc_context *ctx = ts_cpu_context();
    acc_program *p = compile(ctx, "scaled");
    acc_array in = vec(xs, N), o = vec(out, N - 1);
    cr_expect_eq(acc_run(p, 1, &in, 1, &o), ACC_ERR_SHAPE);
    cr_expect(strstr(acc_last_error(), "output 0 was given shape [999], the "
                     "result has shape [1000]"), "%s", acc_last_error());
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], -7.0f, "element %d was written", i);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* Outputs that no step computes (an input returned as it is), and the
 * components of one step's tuple of arrays, are copied as before. */
Test(destinations, inputs_and_tuple_components_are_copied)
{
    static float xs[N], same[N], sums[N];
    float total = 0;
    iota(xs, N);
    acc_context *ctx = ts_cpu_context();
    acc_program *id = compile(ctx, "same"), *scan = compile(ctx, "totals");
    acc_array in = vec(xs, N), o = vec(same, N);
    cr_assert_eq(acc_run(id, 1, &in, 1, &o), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(memcmp(same, xs, sizeof xs), 0);
    acc_array t[2] = {vec(sums, N), ts_host(ACC_F32, 0, NULL, &total)};
    cr_assert_eq(acc_run(scan, 1, &in, 2, t), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(sums[0], 0.0f);
    cr_expect_eq(sums[3], 3.0f);
    cr_expect_eq(total, (float)(N * (N - 1) / 2));
    acc_program_free(scan);
    acc_program_free(id);
    acc_context_destroy(ctx);
}

/* A foreign node with no implementation runs its fallback, whose result is
 * the output: the plan counts no intermediate array, and the fallback's
 * last step writes the caller's buffer (also through a cascade). */
Test(destinations, a_foreign_fallback_writes_the_callers_buffer)
{
    static float xs[N], out[N];
    float dot = -1;
    iota(xs, N);
    acc_context *ctx = ts_cpu_context();
    acc_program *p = compile(ctx, "viaFallback"), *q = compile(ctx, "cascade");
    acc_plan_summary plan = {sizeof plan, 0, 0, 0, 0, 0};
    char *text = NULL;
    cr_assert_eq(acc_program_plan(p, &plan), ACC_OK);
    cr_assert_eq(acc_program_explain(p, 0, &text), ACC_OK);
    cr_expect_eq(plan.intermediates, 0, "%s", text);
    cr_expect(strstr(text, "-> Array 1 f32 (output); contains: generate, "
                           "map"), "%s",
              text);
    acc_free(text);
    acc_array in = vec(xs, N), o = vec(out, N);
    cr_assert_eq(acc_run(p, 1, &in, 1, &o), ACC_OK, "%s", acc_last_error());
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], 2.0f * (float)i, "element %d", i);
    cr_expect_eq(allocated(p), 0, "the fallback wrote the caller's buffer");

    acc_array two[2] = {vec(xs, N), vec(xs, N)};
    o = ts_host(ACC_F32, 0, NULL, &dot);
    cr_assert_eq(acc_program_plan(q, &plan), ACC_OK);
    cr_expect_eq(plan.intermediates, 0);
    cr_assert_eq(acc_run(q, 2, two, 1, &o), ACC_OK, "%s", acc_last_error());
    double want = 0;
    for (int i = 0; i < N; i++)
        want += (double)i * i;
    cr_expect_float_eq(dot, (float)want, 1e-6 * want);
    cr_expect_eq(allocated(q), 0);

    /* a library-allocated output gets the fallback's result */
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    cr_assert_eq(acc_run(p, 1, &in, 1, &o), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(((float *)o.data[0])[N - 1], 2.0f * (N - 1));
    acc_array_release(&o);
    acc_program_free(q);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* ---- a foreign implementation writes the caller's buffer ---------------- */

/* doubles its one f32 vector, remembering the result buffer it got */
static acc_status twice_shape(acc_foreign_call *c)
{
    c->results[0].extents[0] = c->args[0].extents[0];
    return ACC_OK;
}

static acc_status twice_execute(acc_foreign_call *c)
{
    const float *x = c->args[0].data[0];
    float *y = c->results[0].data[0];
    *(void **)c->user = y;
    for (int64_t i = 0; i < c->args[0].extents[0]; i++)
        y[i] = 2.0f * x[i];
    return ACC_OK;
}

/* An implementation of "test.twice" (the fallback doubles too) for the
 * backend of ctx's kind; *seen receives the result buffer it writes. */
static void register_twice(acc_context *ctx, acc_backend backend, void **seen)
{
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = "test.twice";
    impl.impl_name = "test.twice.host";
    impl.backend = backend;
    impl.priority = 1;
    impl.result_shape = twice_shape;
    impl.execute = twice_execute;
    impl.user = seen;
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK, "%s",
                 acc_last_error());
}

Test(destinations, a_foreign_implementation_writes_the_callers_buffer)
{
    static const char twice[] =
        "twice (xs : Vector f32) : Vector f32 =\n"
        "  foreign \"test.twice\" (\\ys -> map (\\x -> x * 2.0) ys) xs\n";
    static float xs[N], out[N];
    iota(xs, N);
    acc_context *ctxs[2] = {ts_cpu_context(), ts_context(ACC_BACKEND_INTERP)};
    acc_backend kinds[2] = {ACC_BACKEND_CPU, ACC_BACKEND_INTERP};
    for (int k = 0; k < 2; k++) {
        void *seen = NULL;
        acc_program *p = NULL;
        register_twice(ctxs[k], kinds[k], &seen);
        cr_assert_eq(acc_compile_text(ctxs[k], twice, (size_t)-1, "twice", &p),
                     ACC_OK, "%s", acc_last_error());
        memset(out, 0, sizeof out);
        acc_array in = vec(xs, N), o = vec(out, N);
        cr_assert_eq(acc_run(p, 1, &in, 1, &o), ACC_OK, "%s",
                     acc_last_error());
        cr_expect_eq(seen, (void *)out, "backend %d: the implementation was "
                     "given the caller's buffer", k);
        cr_expect_eq(allocated(p), 0, "backend %d: no new result memory", k);
        for (int i = 0; i < N; i++)
            cr_assert_eq(out[i], 2.0f * (float)i, "element %d", i);
        /* an output buffer that is the input: new memory, then the copy */
        seen = NULL;
        o = vec(xs, N);
        cr_assert_eq(acc_run(p, 1, &in, 1, &o), ACC_OK, "%s",
                     acc_last_error());
        cr_expect(seen != NULL && seen != (void *)xs, "backend %d", k);
        for (int i = 0; i < N; i++)
            cr_assert_eq(xs[i], 2.0f * (float)i, "element %d", i);
        iota(xs, N);
        acc_program_free(p);
        acc_context_destroy(ctxs[k]);
    }
}
