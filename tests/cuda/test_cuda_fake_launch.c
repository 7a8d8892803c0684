/*
 * test_cuda_fake_launch.c — launches of the CUDA runtime on the FAKE
 * driver (tests/cuda/fake_driver.c, loaded through ACC_CUDA_DRIVER): a
 * runtime error in the kernel's error slot hands the step to the
 * interpreter, kernels without checks are not waited for, an empty fold1
 * row goes to the interpreter before any launch, and the launch shapes of
 * generate and fold.  The fixture and the helpers the files share are in
 * fake_support.c.  Nothing in this file ran on a GPU.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "core/backend/cuda/cuda_abi.h"
#include "support.h"

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

static acc_program *compile(acc_context *ctx, const char *entry)
{
    return compile_from(ctx, runtime_programs, entry);
}

/* ---- the error slot, and launch shapes -------------------------------------------- */

/* The kernel reports a division by zero (the fake writes the slot as the
 * kernel would); the interpreter then evaluates the step on host copies
 * and reports the error with its own message. */
Test(cuda_runtime_fake, runtime_error_hands_the_step_to_the_interpreter)
{
    int32_t xs[4] = {8, 6, 4, 2}, ys[4] = {2, 3, 0, 1};
    int64_t n = 4;
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "quotients");
    acc_array in[2] = {ts_host(ACC_I32, 1, &n, xs), ts_host(ACC_I32, 1, &n, ys)};
    acc_array out;
    fake_configure(fail_next_launch);
    fake.clear_events();
    cr_expect_eq(ts_run_program(p, 2, in, 1, &out), ACC_ERR_RUNTIME);
    cr_expect_str_eq(acc_last_error(), "quot: division by zero");
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot was read");
    cr_expect_null(out.data[0]);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

Test(cuda_runtime_fake, kernels_without_checks_are_not_waited_for)
{
    float xs[100] = {0}, ys[100] = {0};
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp");
    acc_array in[2] = {vec_f32(xs, 100), vec_f32(ys, 100)}, out = device_output();
    fake.clear_events();
    cr_assert_eq(acc_run(p, 2, in, 1, &out), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(fake_count(FAKE_DTOH, 0), 0, "no error slot to read back");
    cr_expect_eq(fake_count(FAKE_SYNC, 0), 1, "one wait, at the end of the run");
    acc_array_release(&out);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

Test(cuda_runtime_fake, empty_fold1_row_goes_to_the_interpreter)
{
    float none[1] = {0};
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "rowProducts");
    acc_array in = mat_f32(none, 3, 0), out;
    fake.clear_events();
    cr_expect_eq(ts_run_program(p, 1, &in, 1, &out), ACC_ERR_RUNTIME);
    cr_expect(strstr(acc_last_error(), "fold1"), "%s", acc_last_error());
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 0);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* The shapes drive_generate.c and drive_fold.c document, on the fake
 * device (132 multiprocessors, occupancy block 256, minimum grid 264). */
Test(cuda_runtime_fake, launch_shapes)
{
    static float big[2 * (1 << 20)];
    acc_context *ctx = cuda_context();
    acc_program *scale = compile(ctx, "scaled"), *rows = compile(ctx, "rowSums");
    acc_array out;

    acc_array v = vec_f32(big, 1000); /* 4 blocks of 256 */
    fake.clear_events();
    cr_assert_eq(ts_run_program(scale, 1, &v, 1, &out), ACC_OK);
    acc_array_release(&out);
    expect_launch("accel_generate", 4, 1, 256);

    v = vec_f32(big, 1 << 20); /* capped at 4 x the minimum grid */
    fake.clear_events();
    cr_assert_eq(ts_run_program(scale, 1, &v, 1, &out), ACC_OK);
    acc_array_release(&out);
    expect_launch("accel_generate", 4 * 264, 1, 256);

    acc_array m = mat_f32(big, 1000, 8); /* short rows: one warp per row */
    fake.clear_events();
    cr_assert_eq(ts_run_program(rows, 1, &m, 1, &out), ACC_OK);
    acc_array_release(&out);
    expect_launch("accel_fold_rows", 1000, 1, 32);

    m = mat_f32(big, 2, 1 << 20); /* two long rows: 64 parts of 16384 */
    fake.clear_events();
    cr_assert_eq(ts_run_program(rows, 1, &m, 1, &out), ACC_OK);
    acc_array_release(&out);
    expect_launch("accel_fold_part", 64, 2, 256);
    expect_launch("accel_fold_finish", 2, 1, 64);
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 2);

    acc_program_free(rows);
    acc_program_free(scale);
    acc_context_destroy(ctx);
    expect_all_released();
}

#endif /* ACC_FAKE_DRIVER */
