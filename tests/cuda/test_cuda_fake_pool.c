/*
 * test_cuda_fake_pool.c — device memory of the CUDA runtime on the FAKE
 * driver (tests/cuda/fake_driver.c, loaded through ACC_CUDA_DRIVER): the
 * memory pool (a second run allocates nothing; memory running out frees
 * its cache and retries), the copies a run makes (host inputs uploaded
 * once, device inputs and caller's device outputs used where they are, an
 * output that is also an input written after the kernel, a host step's
 * download), and running out of device memory at every point of a run.
 * The fixture and the helpers the files share are in fake_support.c.
 * Nothing in this file ran on a GPU.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "support.h"

#include <stddef.h>
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

/* ---- memory: the pool and the copies a run makes --------------------------------- */

Test(cuda_runtime_fake, second_run_allocates_nothing)
{
    float xs[1000], ys[1000];
    for (int i = 0; i < 1000; i++)
        xs[i] = (float)i, ys[i] = 1.0f;
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp");
    acc_array in[2] = {vec_f32(xs, 1000), vec_f32(ys, 1000)}, out;
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    acc_array_release(&out);
    fake_counters first = fake_counts();
    cr_expect_gt(first.allocs, 0);
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK);
    acc_array_release(&out);
    fake_counters second = fake_counts();
    cr_expect_eq(second.allocs, first.allocs, "the pool served every "
                 "request of the second run");
    cr_expect_eq(second.frees, first.frees);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

Test(cuda_runtime_fake, host_inputs_are_uploaded_once_per_run)
{
    float xs[1000] = {0};
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "sumAndMax"); /* two kernels read xs */
    acc_array in = vec_f32(xs, 1000), out[2];
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 1, &in, 2, out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 2);
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof xs), 1, "xs crossed once");
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof(float)), 2, "the two results");
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* Device arrays made by one run are inputs of another: no copy. */
Test(cuda_runtime_fake, device_inputs_are_used_where_they_are)
{
    float xs[1000] = {0};
    acc_context *ctx = cuda_context();
    acc_program *scale = compile(ctx, "scaled"), *dot = compile(ctx, "dotp");
    acc_array in = vec_f32(xs, 1000), dev[2] = {device_output(),
                                                device_output()};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(acc_run(scale, 1, &in, 1, &dev[i]), ACC_OK, "%s",
                     acc_last_error());
        cr_expect_eq(dev[i].memory, ACC_MEMORY_CUDA_DEVICE);
        cr_expect_eq(dev[i].ownership, ACC_OWNERSHIP_LIBRARY);
        cr_expect_eq(dev[i].device, 0);
        cr_expect_eq(dev[i].extents[0], 1000);
        cr_expect_not_null(dev[i].data[0]);
    }
    acc_array out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(dot, 2, dev, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof xs), 0, "no upload of a device "
                 "input");
    cr_expect_eq(fake_count(FAKE_DTOD, 0), 0);
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 1);
    acc_array_release(&out);
    acc_array_release(&dev[0]);
    acc_program_free(dot);
    acc_program_free(scale);
    acc_context_destroy(ctx);
    /* dev[1] outlives its context; the device stays open until then */
    cr_expect_lt(fake_counts().primary_releases, fake_counts().primary_retains);
    acc_array_release(&dev[1]);
    cr_expect_null(dev[1].data[0]);
    expect_all_released();
}

/* A borrowed descriptor of the device buffer of f32 device array a. */
static acc_array device_view(const acc_array *a)
{
    acc_array v;
    acc_array_init(&v, acc_type_scalar(ACC_F32), a->rank, a->extents);
    v.memory = ACC_MEMORY_CUDA_DEVICE;
    v.data[0] = a->data[0];
    return v;
}

Test(cuda_runtime_fake, caller_device_output_is_written_directly)
{
    float xs[1000] = {0};
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "scaled");
    acc_array in = vec_f32(xs, 1000), buf = device_output();
    cr_assert_eq(acc_run(p, 1, &in, 1, &buf), ACC_OK, "%s", acc_last_error());
    acc_array out = device_view(&buf);
    fake.clear_events();
    cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(fake_count(FAKE_DTOD, 0), 0, "the kernel wrote the caller's "
                 "buffer: nothing to copy");
    cr_expect_eq(fake_count(FAKE_DTOH, 0), 0);
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof xs), 1);
    out.extents[0] = 999; /* a shape that does not fit is refused */
    cr_expect_eq(acc_run(p, 1, &in, 1, &out), ACC_ERR_SHAPE);
    cr_expect(strstr(acc_last_error(), "output 0 was given shape [999], the "
                     "result has shape [1000]"), "%s", acc_last_error());
    acc_array_release(&buf);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* An output buffer that is also the input (an in-place run): the kernel
 * writes memory of the run's own, copied into the buffer at the end, so
 * no element is overwritten before it is read (core/backend/destinations.h). */
Test(cuda_runtime_fake, output_buffer_that_is_an_input_is_not_written_early)
{
    float xs[1000] = {0};
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "scaled");
    acc_array in = vec_f32(xs, 1000), buf = device_output();
    cr_assert_eq(acc_run(p, 1, &in, 1, &buf), ACC_OK, "%s", acc_last_error());
    acc_array same = device_view(&buf);
    fake.clear_events();
    cr_assert_eq(acc_run(p, 1, &same, 1, &same), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof xs), 0, "the input is on the "
                 "device");
    cr_expect_eq(fake_count(FAKE_DTOD, sizeof xs), 1, "the result is copied into "
                 "the buffer after the kernel");
    acc_array_release(&buf);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

Test(cuda_runtime_fake, device_input_on_another_device_is_refused)
{
    float xs[4] = {0};
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "scaled");
    acc_array in = vec_f32(xs, 4), out = ts_empty_output();
    in.memory = ACC_MEMORY_CUDA_DEVICE;
    in.device = 1;
    cr_expect_eq(acc_run(p, 1, &in, 1, &out), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "input 0 is on CUDA device 1, the "
                     "context runs on device 0"), "%s", acc_last_error());
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* A step without a CUDA kernel (a reshape) reads a kernel's result: it is
 * downloaded once. */
Test(cuda_runtime_fake, host_step_downloads_a_device_result_once)
{
    static float m[64 * 100];
    char figures[512];
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "reshapedSums");
    cuda_figures(p, figures, sizeof figures);
    if (strstr(figures, "\"interpreted\":0"))
        cr_skip_test("reshape has a CUDA kernel now; this test needs a "
                     "step that runs on the host: %s", figures);
    acc_array in = mat_f32(m, 64, 100), out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(fake_count(FAKE_DTOH, 64 * sizeof(float)), 1, "the row sums");
    cr_expect_eq(fake_count(FAKE_DTOH, 0), 1, "nothing else");
    acc_array_release(&out);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* ---- out of device memory ------------------------------------------------------------ */

static long fail_after;
static void fail_from_now(fake_config *c)
{
    c->alloc_fail_after = fail_after;
    c->alloc_fail_times = 0;
}

Test(cuda_runtime_fake, out_of_device_memory_is_reported_and_leaks_nothing)
{
    float xs[1000] = {0}, ys[1000] = {0};
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp");
    acc_array in[2] = {vec_f32(xs, 1000), vec_f32(ys, 1000)}, out;
    fail_after = 0;
    fake_configure(fail_from_now);
    cr_expect_eq(ts_run_program(p, 2, in, 1, &out), ACC_ERR_OUT_OF_DEVICE_MEMORY);
    cr_expect(strstr(acc_last_error(), "cannot allocate 4000 bytes on CUDA "
                     "device 0 (cuMemAlloc): CUDA_ERROR_OUT_OF_MEMORY (out "
                     "of memory)"), "%s", acc_last_error());
    cr_expect_null(out.data[0]);
    /* memory running out at every point of a run */
    for (fail_after = 1; fail_after < 8; fail_after++) {
        acc_array dev = device_output();
        acc_program *q = compile(ctx, "sumAndMax");
        acc_array two[2];
        fake_configure(fail_from_now);
        acc_status st = ts_run_program(q, 1, in, 2, two);
        cr_expect(st == ACC_OK || st == ACC_ERR_OUT_OF_DEVICE_MEMORY,
                  "after %ld allocations: %s", fail_after, acc_last_error());
        if (st == ACC_OK) {
            acc_array_release(&two[0]);
            acc_array_release(&two[1]);
        } else {
            cr_expect_null(two[0].data[0]);
            cr_expect_null(two[1].data[0]);
        }
        st = acc_run(p, 2, in, 1, &dev);
        if (st == ACC_OK)
            acc_array_release(&dev);
        cr_expect_null(dev.data[0]);
        acc_program_free(q);
    }
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

static void fail_once(fake_config *c)
{
    c->alloc_fail_after = 0;
    c->alloc_fail_times = 1;
}

Test(cuda_runtime_fake, pool_frees_its_cache_and_retries_when_memory_runs_out)
{
    static float m[300 * 7];
    float xs[1000] = {0}, ys[1000] = {0};
    acc_context *ctx = cuda_context();
    acc_program *dot = compile(ctx, "dotp"), *rows = compile(ctx, "rowSums");
    acc_array in[2] = {vec_f32(xs, 1000), vec_f32(ys, 1000)}, out;
    cr_assert_eq(ts_run_program(dot, 2, in, 1, &out), ACC_OK);
    acc_array_release(&out);
    fake_configure(fail_once);
    fake.clear_events();
    acc_array min = mat_f32(m, 300, 7);
    cr_expect_eq(ts_run_program(rows, 1, &min, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    acc_array_release(&out);
    cr_expect_eq(fake_counts().alloc_failures, 1);
    /* the blocks dotp left in the pool were freed before the retry */
    size_t n = fake.events(fake_ev, sizeof fake_ev / sizeof *fake_ev), freed = 0;
    for (size_t i = 0; i < n && fake_ev[i].kind != FAKE_ALLOC; i++)
        freed += fake_ev[i].kind == FAKE_FREE;
    cr_expect_geq(freed, 3, "%zu cached blocks freed before the retry",
                  freed);
    acc_program_free(rows);
    acc_program_free(dot);
    acc_context_destroy(ctx);
    expect_all_released();
}

#endif /* ACC_FAKE_DRIVER */
