/*
 * test_cuda_fake_cancel.c — cancellation and deadlines on the CUDA
 * backend, on the fake driver (host-side logic only: the fake computes
 * nothing).  A run stopped before its first kernel (a cancel made between
 * runs, a deadline that has passed at the first check point) launches
 * nothing, delivers nothing and leaves nothing on the device; after a
 * cancel, the next run of the same program on the same handle launches
 * its kernels.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "support.h"

#include <stdint.h>
#include <string.h>

#ifndef ACC_FAKE_DRIVER
Test(cuda_runtime_fake, fake_driver_not_built)
{
    cr_skip_test("the fake CUDA driver is built only where the CUDA "
                 "toolkit's cuda.h is installed (cmake/AccelCuda.cmake)");
}
#else

#include "fake_support.h"

TestSuite(cuda_runtime_fake, .init = fake_setup, .fini = fake_teardown);

static const char doubling[] =
    "twice (xs : Vector f32) : Vector f32 = map (\\x -> x * 2.0) xs\n";

static float xs[64];

static acc_status run_through(acc_exec *x, acc_program *p)
{
    acc_array in = vec_f32(xs, 64), out = ts_empty_output();
    acc_status st = acc_run_exec(x, p, 1, &in, 1, &out);
    if (st == ACC_OK)
        acc_array_release(&out);
    else
        cr_expect_null(out.data[0], "a stopped run delivers nothing");
    return st;
}

/* Runs p through x expecting `want`, with no launch. */
static void stopped(acc_program *p, acc_exec *x, acc_status want)
{
    long before = fake_counts().launches;
    acc_status st = run_through(x, p);
    cr_expect_eq(st, want, "%s: %s", acc_status_string(st),
                 acc_exec_last_error(x));
    cr_expect_eq(fake_counts().launches, before, "nothing was launched");
}

Test(cuda_runtime_fake, a_cancelled_run_launches_nothing_and_releases_all)
{
    acc_context *ctx = cuda_context();
    acc_program *p = compile_from(ctx, doubling, "twice");
    acc_exec *x = NULL;
    cr_assert_eq(acc_exec_create(ctx, NULL, &x), ACC_OK);
    cr_assert_eq(acc_exec_cancel(x), ACC_OK);
    stopped(p, x, ACC_ERR_CANCELLED);
    long before = fake_counts().launches;
    cr_assert_eq(run_through(x, p), ACC_OK, "%s", acc_last_error());
    cr_expect_gt(fake_counts().launches, before, "the next run launches");
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_clean();
    expect_all_released();
}

Test(cuda_runtime_fake, a_run_past_its_deadline_launches_nothing)
{
    acc_context *ctx = cuda_context();
    acc_program *p = compile_from(ctx, doubling, "twice");
    acc_exec_options o;
    acc_exec_options_init(&o);
    o.deadline_seconds = 1e-9; /* passed at the first check point */
    acc_exec *x = NULL;
    cr_assert_eq(acc_exec_create(ctx, &o, &x), ACC_OK);
    stopped(p, x, ACC_ERR_TIMEOUT);
    cr_expect_eq(acc_exec_wait(x), ACC_ERR_TIMEOUT);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_clean();
    expect_all_released();
}

#endif
