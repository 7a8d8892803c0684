/*
 * test_exec.c — execution handles (acc_exec) on the host backends: runs
 * complete before acc_run_exec returns, acc_exec_wait returns the first
 * failure since the previous wait (then ACC_OK again), handles of another
 * context are refused, bad options and freed handles are reported.  The
 * CUDA side (streams, asynchronous runs) is in tests/cuda/
 * test_cuda_fake_streams.c and tests/gpu/test_cuda_device.c.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "support.h"

#include <string.h>

static const char source[] =
    "scaled (xs : Vector f32) : Vector f32 =\n"
    "  map (\\x -> x * 2.0) xs\n";

static acc_program *compile(acc_context *ctx)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, source, (size_t)-1, "scaled", &p),
                 ACC_OK, "%s", acc_last_error());
    return p;
}

Test(exec, host_runs_complete_and_wait_reports_the_first_failure)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_program *p = compile(ctx);
    acc_exec_options o;
    acc_exec *x = NULL;
    acc_exec_options_init(&o);
    o.async = 1; /* host backends complete the run anyway */
    cr_assert_eq(acc_exec_create(ctx, &o, &x), ACC_OK, "%s",
                 acc_last_error());
    float xs[3] = {1, 2, 3};
    int64_t n = 3;
    acc_array in = ts_host(ACC_F32, 1, &n, xs), out = ts_empty_output();
    cr_assert_eq(acc_run_exec(x, p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(((float *)out.data[0])[2], 6.0f, "complete on return");
    acc_array_release(&out);
    cr_expect_eq(acc_exec_wait(x), ACC_OK);

    out = ts_empty_output();
    cr_expect_eq(acc_run_exec(x, p, 0, NULL, 1, &out),
                 ACC_ERR_INVALID_ARGUMENT);
    in.rank = 2; /* a second, different failure: the first is kept */
    cr_expect_eq(acc_run_exec(x, p, 1, &in, 1, &out), ACC_ERR_SHAPE);
    cr_expect_eq(acc_exec_wait(x), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_exec_last_error(x), "0 inputs given, the program "
                     "expects 1"), "%s", acc_exec_last_error(x));
    cr_expect_eq(acc_exec_wait(x), ACC_OK, "reported once");
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(exec, program_of_another_context_is_refused)
{
    acc_context *a = ts_context(ACC_BACKEND_INTERP);
    acc_context *b = ts_context(ACC_BACKEND_INTERP);
    acc_program *p = compile(b);
    acc_exec *x = NULL;
    cr_assert_eq(acc_exec_create(a, NULL, &x), ACC_OK);
    acc_array out = ts_empty_output();
    cr_expect_eq(acc_run_exec(x, p, 0, NULL, 1, &out),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "belongs to another context"), "%s",
              acc_last_error());
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(a);
    acc_context_destroy(b);
}

Test(exec, bad_options_and_handles)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_exec_options o;
    acc_exec *x = (acc_exec *)&o;
    acc_exec_options_init(&o);
    o.async = 2;
    cr_expect_eq(acc_exec_create(ctx, &o, &x), ACC_ERR_INVALID_ARGUMENT);
    cr_expect_null(x);
    cr_expect(strstr(acc_last_error(), "options.async is 2"), "%s",
              acc_last_error());
    o.async = 0;
    o.struct_size = 4;
    cr_expect_eq(acc_exec_create(ctx, &o, &x), ACC_ERR_INVALID_ARGUMENT);
    cr_expect_eq(acc_exec_create(ctx, NULL, NULL), ACC_ERR_INVALID_ARGUMENT);
    cr_expect_eq(acc_exec_create(NULL, NULL, &x), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_exec_create(ctx, NULL, &x), ACC_OK);
    acc_exec_destroy(x);
    cr_expect_eq(acc_exec_wait(x), ACC_ERR_INVALID_HANDLE, "freed");
    cr_expect_str_eq(acc_exec_last_error(x), "not a live execution handle");
    acc_exec_destroy(NULL);
    /* the handle kept its context alive: destroying it after is fine */
    cr_assert_eq(acc_exec_create(ctx, NULL, &x), ACC_OK);
    acc_context_destroy(ctx);
    cr_expect_eq(acc_exec_wait(x), ACC_OK);
    acc_exec_destroy(x);
}
