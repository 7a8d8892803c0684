/*
 * test_cuda_fake_stencil.c — stencils, and maps over host arrays, on
 * the CUDA runtime, checked against a FAKE driver
 * (tests/cuda/fake_driver.c, loaded through ACC_CUDA_DRIVER): the
 * interior, border and check passes a stencil launches and their shapes,
 * what is uploaded and read back, a failure handed to the interpreter,
 * and maps over arrays the host makes (a reshape, a stencil).
 *
 * The fake driver keeps device memory in host memory and records every
 * call, but it cannot execute a kernel: nothing here shows that a result
 * computed by a kernel is right, and no test looks at one.  Kernels are
 * really compiled (NVRTC) and the images really checked (an ELF cubin for
 * the CUDA machine, or PTX), so these tests skip where NVRTC is missing.
 * The fixture and the helpers the files share are in fake_support.c.
 * Nothing in this file ran on a GPU.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "core/backend/cuda/cuda_abi.h"
#include "support.h"
#include "text_sources.h"

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

/* ---- stencils, and maps over host arrays ------------------------------------------ */

/* Program `entry` of the CUDA tests' stencil programs, or LANGUAGE.md's
 * blur. */
static acc_program *compile_stencil(acc_context *ctx, const char *entry)
{
    acc_program *p = NULL;
    const char *src = strcmp(entry, "blur") == 0 ? ts_language4_source()
                                                 : ts_stencil_source();
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, entry, &p);
    cr_assert_eq(st, ACC_OK, "%s: %s: %s", entry, acc_status_string(st),
                 acc_last_error());
    return p;
}

/* The blur of an r x c image (nothing in it: the fake computes nothing);
 * the output's extents are the image's. */
static void run_blur(acc_program *p, int64_t r, int64_t c)
{
    static float img[1000 * 1000];
    acc_array in = mat_f32(img, r, c), out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect(out.extents[0] == r && out.extents[1] == c);
    acc_array_release(&out);
}

/* Interior (the box of positions whose 3x3 window stays inside: (r - 2)
 * x (c - 2)) then border (the others), one thread each; no check, so the
 * error slot is not read. */
Test(cuda_runtime_fake, stencil_interior_then_border)
{
    acc_context *ctx = cuda_context();
    acc_program *p = compile_stencil(ctx, "blur");
    run_blur(p, 67, 45);
    expect_sequence_text("accel_stencil_interior accel_stencil_border");
    expect_launch("accel_stencil_interior", 11, 1, 256); /* 65 x 43 = 2795 */
    expect_launch("accel_stencil_border", 1, 1, 224);    /* 3015 - 2795 */
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof(cuda_kerr)), 0, "no checks");
    run_blur(p, 1000, 1000); /* 998 x 998 inside: capped at 4 x 264 */
    expect_launch("accel_stencil_interior", 4 * 264, 1, 256);
    expect_launch("accel_stencil_border", 16, 1, 256); /* 3996 */
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* stencil2 over 30 x 40 and 20 x 50: the result is 20 x 40; the box
 * keeps every neighbour inside both arrays: rows [1, 19), columns [1, 39). */
Test(cuda_runtime_fake, stencil2_result_is_the_intersection)
{
    static float xs[30 * 40];
    static int32_t ys[20 * 50];
    int64_t ex[2] = {30, 40}, ey[2] = {20, 50};
    acc_context *ctx = cuda_context();
    acc_program *p = compile_stencil(ctx, "twoBoundaries");
    acc_array in[2] = {ts_host(ACC_F32, 2, ex, xs),
                       ts_host(ACC_I32, 2, ey, ys)}, out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect(out.extents[0] == 20 && out.extents[1] == 40);
    expect_sequence_text("accel_stencil_interior accel_stencil_border");
    expect_launch("accel_stencil_interior", 3, 1, 256); /* 18 x 38 = 684 */
    expect_launch("accel_stencil_border", 1, 1, 128);   /* 800 - 684 */
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof xs), 1, "xs uploaded");
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof ys), 1, "ys uploaded");
    acc_array_release(&out);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* Arrays narrower than the window are all border; an empty one launches
 * nothing and copies nothing; f reading only the focus has no border. */
Test(cuda_runtime_fake, stencil_all_border_empty_and_no_border)
{
    static const int64_t small[3][2] = {{1, 1}, {2, 3}, {2, 200}};
    acc_context *ctx = cuda_context();
    acc_program *p = compile_stencil(ctx, "blur");
    for (int k = 0; k < 3; k++) {
        run_blur(p, small[k][0], small[k][1]);
        expect_sequence_text("accel_stencil_border");
        expect_launch("accel_stencil_border", 1 + (k == 2), 1,
                      k == 2 ? 256 : 32);
    }
    run_blur(p, 0, 5);
    expect_sequence_text("");
    cr_expect_eq(fake_count(FAKE_HTOD, 0), 0, "nothing uploaded");
    cr_expect_eq(fake_count(FAKE_DTOH, 0), 0, "nothing downloaded");
    acc_program_free(p);
    p = compile_stencil(ctx, "focusOnly");
    float xs[100] = {0};
    acc_array in = vec_f32(xs, 100), out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    expect_sequence_text("accel_stencil_interior");
    expect_launch("accel_stencil_interior", 1, 1, 128);
    acc_array_release(&out);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* An embedded producer with checks whose elements the stencil does not
 * all compute (f skips the focus) gets the check pass over all of them,
 * after the stencil; the error slot is read once, at the end.  When f
 * reads the focus of an array as large as the result, no check pass. */
Test(cuda_runtime_fake, stencil_producer_check_pass)
{
    int32_t ys[100];
    int64_t n = 100;
    for (int i = 0; i < 100; i++)
        ys[i] = 1 + i % 7;
    acc_context *ctx = cuda_context();
    acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &n),
                       ts_host(ACC_I32, 1, &n, ys)}, out;
    static const char *const entries[2] = {"producerChecks", "producerFocus"};
    static const char *const want[2] = {
        "accel_stencil_interior accel_stencil_border accel_stencil_checks",
        "accel_stencil_interior accel_stencil_border"};
    for (int i = 0; i < 2; i++) {
        acc_program *p = compile_stencil(ctx, entries[i]);
        fake.clear_events();
        cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK, "%s",
                     acc_last_error());
        expect_sequence_text(want[i]);
        expect_launch("accel_stencil_interior", 1, 1, 128); /* 98 */
        expect_launch("accel_stencil_border", 1, 1, 32);    /* 2 */
        if (i == 0)
            expect_launch("accel_stencil_checks", 1, 1, 128); /* 100 */
        cr_expect_eq(fake_count(FAKE_DTOH, sizeof(cuda_kerr)), 1,
                     "the slot read once, after the last launch");
        cr_expect_eq(fake_count(FAKE_HTOD, sizeof ys), 1, "ys, read by the producer");
        acc_array_release(&out);
        acc_program_free(p);
    }
    acc_context_destroy(ctx);
    expect_all_released();
}

/* A failure recorded by a stencil kernel hands the step to the
 * interpreter, whose message is reported; nothing is left allocated. */
Test(cuda_runtime_fake, stencil_runtime_error_has_the_interpreters_message)
{
    int32_t xs[50];
    int64_t n = 50;
    for (int i = 0; i < 50; i++)
        xs[i] = i == 20 ? 0 : 3 + i;
    acc_context *ctx = cuda_context();
    acc_program *p = compile_stencil(ctx, "quotLeft");
    acc_array in = ts_host(ACC_I32, 1, &n, xs), out;
    fake_configure(fail_next_launch);
    fake.clear_events();
    cr_expect_eq(ts_run_program(p, 1, &in, 1, &out), ACC_ERR_RUNTIME);
    cr_expect_str_eq(acc_last_error(), "quot: division by zero");
    expect_sequence_text("accel_stencil_interior accel_stencil_border");
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot was read");
    cr_expect_null(out.data[0]);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* map g over a reshape: the array (the input, reshaped on the host) is
 * uploaded once as the kernel's argument and the result has its shape;
 * map g over a stencil: the host evaluates the stencil (no stencil
 * launch), the map is the one kernel. */
Test(cuda_runtime_fake, maps_over_host_arrays_launch_one_generate)
{
    float xs[300] = {0};
    int64_t len = 300, rows = 150;
    acc_context *ctx = cuda_context();
    acc_program *p = compile_stencil(ctx, "mapOverReshape");
    acc_array in[2] = {vec_f32(xs, len), ts_host(ACC_I64, 0, NULL, &rows)};
    acc_array out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect(out.rank == 2 && out.extents[0] == 150 && out.extents[1] == 2);
    expect_sequence_text("accel_generate");
    expect_launch("accel_generate", 2, 1, 256);
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof xs), 1, "the array, uploaded once");
    acc_array_release(&out);
    acc_program_free(p);
    p = compile_stencil(ctx, "mapOverStencil");
    acc_array img = mat_f32(xs, 15, 20);
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 1, &img, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect(out.extents[0] == 15 && out.extents[1] == 20);
    expect_sequence_text("accel_generate");
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof xs), 1, "the stencil's result");
    acc_array_release(&out);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

#endif /* ACC_FAKE_DRIVER */
