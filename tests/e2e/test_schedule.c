/*
 * test_schedule.c — the schedule a program runs (core/schedule): values
 * read only by scalar code are computed eagerly but fail only when read;
 * a loop's invariant arrays are computed once, when the loop first needs
 * them; a step the backend cannot compile is the interpreter's, with the
 * reason in the plan, or an error in a strict context; the plan says
 * which values each step frees.  Every test runs on the interpreter and
 * on the CPU backend (skipped without a C compiler), with the same
 * outcome.
 */
#include <criterion/criterion.h>

#include "cpu_support.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(schedule, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

static const char source[] =
    /* bad fails whenever it is computed: the backpermute reads xs out of
     * bounds; only the branch that is never taken reads it */
    "lazy (xs : Vector i64) : Vector i64 =\n"
    "  let bad = scanl1 (+) (backpermute [4] (\\[i] -> [i + 10]) xs)\n"
    "  in generate [4] (\\[i] -> if i < 0 then bad ! [i] else i)\n"
    "\n"
    "eager (xs : Vector i64) : Vector i64 =\n"
    "  let bad = scanl1 (+) (backpermute [4] (\\[i] -> [i + 10]) xs)\n"
    "  in generate [4] (\\[i] -> if i >= 0 then bad ! [i] else i)\n"
    "\n"
    /* the body's invariant would fail, and the body never runs */
    "noloop (xs : Vector i64) : Vector i64 =\n"
    "  awhile (\\s -> unit (s ! [0] < 0))\n"
    "         (\\s -> zipWith (+) s (scanl1 (+) (backpermute [4] (\\[i] -> [i + 10]) xs)))\n"
    "         xs\n"
    "\n"
    /* three iterations; the body's scan of xs is invariant */
    "loop (xs : Vector i64) : Vector i64 =\n"
    "  awhile (\\s -> unit (s ! [0] < 3))\n"
    "         (\\s -> zipWith (+) s (scanl1 max (map (\\x -> x * 0 + 1) xs)))\n"
    "         xs\n"
    "\n"
    "chain (xs : Vector f32) : Vector f32 =\n"
    "  let a = scanl1 (+) xs; b = scanl1 max (map (* 0.5) a);\n"
    "      c = scanl1 (+) (map (* 0.25) b)\n"
    "  in c\n"
    "\n"
    "both (xs : Vector f32) : (Vector f32, Vector f32) =\n"
    "  let s = scanl1 (+) xs in (s, scanl1 max s)\n";

static acc_context *context_for(acc_backend b)
{
    return b == ACC_BACKEND_CPU ? ts_cpu_context()
                                : ts_context(ACC_BACKEND_INTERP);
}

static acc_program *compile_entry(acc_context *ctx, const char *entry)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, source, (size_t)-1, entry, &p), ACC_OK,
                 "%s: %s", entry, acc_last_error());
    return p;
}

/* Runs `entry` on xs = [0, 1, 2, 3] into out (4 elements) and returns
 * the status. */
static acc_status run_i64(acc_backend b, const char *entry, int64_t *out)
{
    acc_context *ctx = context_for(b);
    acc_program *p = compile_entry(ctx, entry);
    int64_t xs[4] = {0, 1, 2, 3}, n = 4;
    acc_array in = ts_host(ACC_I64, 1, &n, xs), o = ts_host(ACC_I64, 1, &n,
                                                           out);
    acc_status st = acc_run(p, 1, &in, 1, &o);
    acc_program_free(p);
    acc_context_destroy(ctx);
    return st;
}

static void lazy_read_not_taken(acc_backend b)
{
    int64_t out[4] = {9, 9, 9, 9};
    acc_status st = run_i64(b, "lazy", out);
    cr_assert_eq(st, ACC_OK, "%s: %s", acc_backend_name(b), acc_last_error());
    for (int64_t i = 0; i < 4; i++)
        cr_expect_eq(out[i], i);
}

Test(schedule, a_value_read_only_in_a_branch_not_taken_never_fails)
{
    lazy_read_not_taken(ACC_BACKEND_INTERP);
    lazy_read_not_taken(ACC_BACKEND_CPU);
}

static void lazy_read_taken(acc_backend b, char *message, size_t size)
{
    int64_t out[4];
    acc_status st = run_i64(b, "eager", out);
    cr_assert_eq(st, ACC_ERR_RUNTIME, "%s: %s", acc_backend_name(b),
                 acc_status_string(st));
    cr_expect(strstr(acc_last_error(), "backpermute"), "%s",
              acc_last_error());
    snprintf(message, size, "%s", acc_last_error());
}

Test(schedule, a_value_read_by_scalar_code_fails_when_read)
{
    char interp[1024], cpu[1024];
    lazy_read_taken(ACC_BACKEND_INTERP, interp, sizeof interp);
    lazy_read_taken(ACC_BACKEND_CPU, cpu, sizeof cpu);
    cr_expect_str_eq(cpu, interp);
}

static void no_iteration(acc_backend b)
{
    int64_t out[4] = {9, 9, 9, 9};
    acc_status st = run_i64(b, "noloop", out);
    cr_assert_eq(st, ACC_OK, "%s: %s", acc_backend_name(b), acc_last_error());
    for (int64_t i = 0; i < 4; i++)
        cr_expect_eq(out[i], i);
}

Test(schedule, a_loop_invariant_of_a_body_that_never_runs_is_not_computed)
{
    no_iteration(ACC_BACKEND_INTERP);
    no_iteration(ACC_BACKEND_CPU);
}

static void invariant_once(acc_backend b)
{
    acc_context *ctx = context_for(b);
    acc_program *p = compile_entry(ctx, "loop");
    int64_t xs[4] = {0, 1, 2, 3}, out[4], n = 4;
    acc_array in = ts_host(ACC_I64, 1, &n, xs), o = ts_host(ACC_I64, 1, &n,
                                                           out);
    cr_assert_eq(acc_run(p, 1, &in, 1, &o), ACC_OK, "%s", acc_last_error());
    for (int64_t i = 0; i < 4; i++)
        cr_expect_eq(out[i], i + 3, "element %lld", (long long)i);
    acc_run_stats s = {sizeof s, 0, 0, 0, 0};
    cr_assert_eq(acc_program_last_run(p, &s), ACC_OK);
    /* four tests of the condition (a unit each), three iterations of the
     * body (a zipWith each), and its invariant scan once */
    cr_expect_eq(s.kernels_launched, 4 + 3 + 1, "%s: %llu kernels",
                 acc_backend_name(b), (unsigned long long)s.kernels_launched);
    char *text = NULL;
    cr_assert_eq(acc_program_explain(p, 0, &text), ACC_OK);
    cr_expect(strstr(text, "once per loop"), "%s", text);
    acc_free(text);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(schedule, a_loop_invariant_is_computed_once)
{
    invariant_once(ACC_BACKEND_INTERP);
    invariant_once(ACC_BACKEND_CPU);
}

/* The JSON plan of `entry`. */
static char *plan_of(acc_context *ctx, const char *entry)
{
    acc_program *p = compile_entry(ctx, entry);
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    acc_program_free(p);
    return json;
}

Test(schedule, each_intermediate_is_freed_after_its_last_use)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    char *json = plan_of(ctx, "chain");
    /* step 2 reads step 1's array last, step 3 step 2's */
    const char *s2 = strstr(json, "{\"step\":2,");
    const char *s3 = strstr(json, "{\"step\":3,");
    cr_assert(s2 && s3, "%s", json);
    cr_expect(strstr(s2, "\"frees\":[\"1\"]") && strstr(s2, "\"frees\":[\"1\"]")
                  < s3, "%s", json);
    cr_expect(strstr(s3, "\"frees\":[\"2\"]"), "%s", json);
    acc_free(json);
    /* an output is never freed, even when a later step reads it */
    json = plan_of(ctx, "both");
    cr_expect_null(strstr(json, "\"frees\""), "%s", json);
    acc_free(json);
    acc_context_destroy(ctx);
}

/* ACC_DISABLE=fusion leaves a backpermute a step of its own, which the
 * CPU backend has no skeleton for. */
static acc_status compile_unfused(int strict, acc_program **p)
{
    setenv("ACC_DISABLE", "fusion", 1);
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = ts_cpu_cache_dir;
    o.strict = strict;
    acc_context *ctx = NULL;
    acc_status st = acc_context_create(&o, &ctx);
    if (st == ACC_ERR_UNSUPPORTED)
        cr_skip_test("no working C compiler: %s", acc_last_error());
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    static const char src[] =
        "f (xs : Vector i64) : Vector i64 =\n"
        "  backpermute [3] (\\[i] -> [2 - i]) xs\n";
    st = acc_compile_text(ctx, src, (size_t)-1, NULL, p);
    acc_context_destroy(ctx);
    unsetenv("ACC_DISABLE");
    return st;
}

Test(schedule, a_step_without_a_kernel_is_the_interpreters_and_says_why)
{
    acc_program *p = NULL;
    cr_assert_eq(compile_unfused(0, &p), ACC_OK, "%s", acc_last_error());
    char *text = NULL;
    cr_assert_eq(acc_program_explain(p, 0, &text), ACC_OK);
    cr_expect(strstr(text, "interpreted: backpermute has no CPU skeleton"),
              "%s", text);
    cr_expect(strstr(text, "1 steps interpreted"), "%s", text);
    acc_free(text);
    int64_t xs[3] = {5, 6, 7}, out[3], n = 3;
    acc_array in = ts_host(ACC_I64, 1, &n, xs), o = ts_host(ACC_I64, 1, &n,
                                                           out);
    cr_assert_eq(acc_run(p, 1, &in, 1, &o), ACC_OK, "%s", acc_last_error());
    cr_expect(out[0] == 7 && out[1] == 6 && out[2] == 5);
    acc_program_free(p);
}

Test(schedule, a_strict_context_refuses_to_interpret_a_step)
{
    acc_program *p = NULL;
    acc_status st = compile_unfused(1, &p);
    cr_assert_eq(st, ACC_ERR_UNSUPPORTED, "%s", acc_status_string(st));
    cr_expect_null(p);
    cr_expect(strstr(acc_last_error(), "strict") &&
              strstr(acc_last_error(), "backpermute has no CPU skeleton"),
              "%s", acc_last_error());
}

Test(schedule, strict_must_be_0_or_1)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.strict = 2;
    acc_context *ctx = NULL;
    cr_expect_eq(acc_context_create(&o, &ctx), ACC_ERR_INVALID_ARGUMENT);
    cr_expect_null(ctx);
    cr_expect(strstr(acc_last_error(), "options.strict is 2"), "%s",
              acc_last_error());
}
