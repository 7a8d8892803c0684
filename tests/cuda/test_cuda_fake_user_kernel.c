/*
 * test_cuda_fake_user_kernel.c — user CUDA kernels (acc_register_kernel
 * with ACC_BACKEND_CUDA) on the FAKE driver (tests/cuda/fake_driver.c):
 * the source is compiled by NVRTC at registration (its log is the error
 * when it does not compile, a missing extern "C" entry is named) and
 * again for the device of a cuda program; each call is launched on the
 * run's stream with the default launch (one thread per element of result
 * 0, blocks of 256), a fixed grid and block, or a launch function (which
 * may send the call to the fallback); a signature with a value parameter
 * is refused on the device with the reason in the plan; a scalar
 * __device__ function is compiled into the generated kernels that call
 * it.  The fake computes nothing, so no result is checked here: only
 * what accel asked of the driver.  Nothing in this file ran on a GPU.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "foreign_support.h"
#include "support.h"

#include <stdint.h>
#include <stdio.h>
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

static acc_user_kernel cuda_kernel(const char *name, const char *source,
                                   const char *entry, const char *sig)
{
    return tf_user_kernel(name, ACC_BACKEND_CUDA, source, entry, sig);
}

static const char scale_program[] =
    "scaled (xs : Vector f64) : Vector f64 =\n"
    "  foreign \"uk.scale\" (map (\\v -> 3 * v + 1)) xs\n";

/* Runs scale_program in ctx on n values; returns its plan. */
static char *run_scaled(acc_context *ctx, int64_t n)
{
    static double x[5000];
    cr_assert(n <= 5000);
    acc_program *p = compile_from(ctx, scale_program, "scaled");
    char *plan = NULL;
    cr_assert_eq(acc_program_explain(p, 0, &plan), ACC_OK);
    void *px[1] = {x};
    acc_array in = ts_host_array(acc_type_scalar(ACC_F64), 1, &n, px);
    acc_array out = ts_empty_output();
    cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], n);
    acc_array_release(&out);
    acc_program_free(p);
    return plan;
}

Test(cuda_runtime_fake, a_user_kernel_is_launched_on_the_run_stream)
{
    acc_context *ctx = cuda_context();
    acc_user_kernel k = cuda_kernel("uk.scale", tf_scale_cu, "uk_scale",
                                    "void(const f64*, f64*, i64)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    long modules = fake_counts().modules_loaded;
    char *plan = run_scaled(ctx, 1000);
    cr_expect(strstr(plan, "uses: kernel:uk_scale (user kernel, priority "
                           "0)"), "%s", plan);
    acc_free(plan);
    cr_expect_eq(fake_counts().modules_loaded, modules + 1,
                 "the kernel was compiled for the device and loaded");
    expect_launch("uk_scale", 4, 1, 256); /* 1000 threads in blocks of 256 */
    const fake_event *launch = launch_of("uk_scale", 0);
    size_t n = fake.events(fake_ev, sizeof fake_ev / sizeof *fake_ev);
    size_t uploads = 0, same = 0;
    for (size_t i = 0; i < n; i++)
        if (fake_ev[i].kind == FAKE_HTOD || fake_ev[i].kind == FAKE_DTOH) {
            uploads++;
            same += fake_ev[i].stream == launch->stream;
        }
    cr_expect(launch->stream && uploads >= 2 && same == uploads,
              "the copies and the launch use the run's stream (%zu of %zu)",
              same, uploads);
    expect_clean();
    acc_context_destroy(ctx);
    expect_all_released();
}

static acc_status launch_by_rows(void *user, const acc_foreign_call *call,
                                 uint32_t grid[3], uint32_t block[3])
{
    int *calls = user;
    ++*calls;
    int64_t n = call->results[0].extents[0];
    if (n > 4000)
        return ACC_ERR_UNSUPPORTED; /* the fallback runs */
    block[0] = 128;
    grid[0] = (uint32_t)((n + 127) / 128);
    grid[1] = 2;
    return ACC_OK;
}

Test(cuda_runtime_fake, the_launch_is_fixed_or_decided_per_call)
{
    acc_context *ctx = cuda_context();
    acc_user_kernel k = cuda_kernel("uk.scale", tf_scale_cu, "uk_scale",
                                    "void(const f64*, f64*, i64)");
    k.grid[0] = 7, k.grid[1] = 1, k.grid[2] = 1;
    k.block[0] = 64, k.block[1] = 2, k.block[2] = 1;
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    acc_free(run_scaled(ctx, 1000));
    const fake_event *e = launch_of("uk_scale", 0);
    cr_expect(e->grid[0] == 7 && e->grid[1] == 1 && e->block[0] == 64 &&
              e->block[1] == 2, "grid (%u, %u), block (%u, %u)", e->grid[0],
              e->grid[1], e->block[0], e->block[1]);
    acc_context_destroy(ctx);

    ctx = cuda_context();
    int calls = 0;
    k = cuda_kernel("uk.scale", tf_scale_cu, "uk_scale",
                    "void(const f64*, f64*, i64)");
    k.launch = launch_by_rows;
    k.user = &calls;
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    fake.clear_events();
    acc_free(run_scaled(ctx, 1000));
    cr_expect_eq(calls, 1);
    expect_launch("uk_scale", 8, 2, 128);
    /* refused extents: the fallback runs instead, in the interpreter (the
     * fallback of a node that has an implementation is not compiled) */
    fake.clear_events();
    acc_free(run_scaled(ctx, 5000));
    cr_expect_eq(calls, 2);
    const char *names[8];
    size_t got = launches(names, 8);
    cr_expect(got == 0, "no launch (%zu, %s)", got, got ? names[0] : "");
    expect_clean();
    acc_context_destroy(ctx);
    expect_all_released();
}

Test(cuda_runtime_fake, a_value_parameter_is_refused_on_the_device)
{
    acc_context *ctx = cuda_context();
    static const char src[] =
        "extern \"C\" __global__ void uk_axpy(double a, const double *x,\n"
        "                                     double *out, long long n) {}\n";
    acc_user_kernel k = cuda_kernel("uk.axpy", src, "uk_axpy",
                                    "void(f64, const f64*, f64*, i64)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    acc_program *p = compile_from(
        ctx, "axpy (a : Scalar f64) (xs : Vector f64) : Vector f64 =\n"
             "  foreign \"uk.axpy\" (\\(s, u) -> map (\\v -> the s * v) u)"
             " (a, xs)\n", "axpy");
    char *plan = NULL;
    cr_assert_eq(acc_program_explain(p, 0, &plan), ACC_OK);
    cr_expect(strstr(plan, "uses: fallback: kernel:uk_axpy refused (C "
                           "signature: parameter 1 is a value, but on the "
                           "device a Scalar argument stays in device memory: "
                           "use a pointer (const T*))"), "%s", plan);
    acc_free(plan);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(cuda_runtime_fake, source_nvrtc_rejects_is_an_error_with_its_log)
{
    acc_context *ctx = cuda_context();
    acc_user_kernel k = cuda_kernel(
        "uk.bad", "extern \"C\" __global__ void bad(double *x)\n"
        "{\n    x[0] = undefined_thing;\n}\n", "bad", "void(f64*)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_ERR_COMPILE);
    const char *m = acc_last_error();
    cr_expect(strstr(m, "'uk.bad': NVRTC does not compile the CUDA source"),
              "%s", m);
    cr_expect(strstr(m, "uk.bad(3): error") && strstr(m, "undefined_thing"),
              "NVRTC's log, with the line: %s", m);
    /* the entry must have C linkage (extern "C") */
    k = cuda_kernel("uk.cxx", "__global__ void scale(double *x) {}\n",
                    "scale", "void(f64*)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_ERR_COMPILE);
    cr_expect(strstr(acc_last_error(), "no kernel 'scale' with C linkage"),
              "%s", acc_last_error());
    /* a CUDA kernel writes its results; only __device__ functions return */
    k = cuda_kernel("uk.ret", tf_scale_cu, "uk_scale", "f64(const f64*, i64)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_ERR_INVALID_ARGUMENT);
    char *list = NULL;
    cr_assert_eq(acc_foreign_list(ctx, &list), ACC_OK);
    cr_expect(!strstr(list, "uk."), "nothing registered: %s", list);
    acc_free(list);
    acc_context_destroy(ctx);
}

static const char hyp_program[] =
    "hyp (xs : Vector f64) : Vector f64 =\n"
    "  map (\\v -> foreignExp \"uk.hyp\" (\\(a, b) -> a + b) (v, v)) xs\n";

Test(cuda_runtime_fake, a_device_function_is_compiled_into_the_kernel)
{
    acc_context *ctx = cuda_context();
    acc_user_kernel k = cuda_kernel(
        "uk.hyp", "__device__ double uk_hyp(double a, double b)\n"
                  "{ return sqrt(a * a + b * b); }\n", "uk_hyp",
        "f64(f64, f64)");
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    acc_program *p = compile_from(ctx, hyp_program, "hyp");
    char figures[512];
    cuda_figures(p, figures, sizeof figures);
    cr_expect(strstr(figures, "\"kernels\":1") &&
                  strstr(figures, "\"interpreted\":0"),
              "the map with the call is one compiled kernel: %s", figures);
    acc_program_free(p);
    acc_context_destroy(ctx);

    /* the source is in the kernel's translation unit: an error in it is
     * NVRTC's error when the program is compiled */
    ctx = cuda_context();
    k.source = "__device__ double uk_hyp(double a, double b)\n"
               "{ return a * no_such_name; }\n";
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    acc_program *q = NULL;
    cr_expect_eq(acc_compile_text(ctx, hyp_program, (size_t)-1, "hyp", &q),
                 ACC_ERR_COMPILE);
    cr_expect(strstr(acc_last_error(), "no_such_name"), "%s",
              acc_last_error());
    acc_program_free(q);
    acc_context_destroy(ctx);
}

Test(cuda_runtime_fake, a_missing_device_function_is_its_fallback_in_place)
{
    acc_context *ctx = cuda_context();
    acc_program *p = compile_from(ctx, hyp_program, "hyp");
    char figures[512];
    cuda_figures(p, figures, sizeof figures);
    cr_expect(strstr(figures, "\"kernels\":1") &&
                  strstr(figures, "\"interpreted\":0"),
              "the fallback is compiled into the kernel: %s", figures);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(cuda_runtime_fake, host_kernels_are_not_chosen_by_cuda_programs)
{
    acc_context *ctx = cuda_context();
    acc_user_kernel k = cuda_kernel(
        "uk.scale", "void uk_scale(const double *x, double *out, int64_t n)"
                    "\n{ for (int64_t i = 0; i < n; i++) out[i] = x[i]; }\n",
        "uk_scale", "void(const f64*, f64*, i64)");
    k.backend = ACC_BACKEND_CPU;
    cr_assert_eq(acc_register_kernel(ctx, &k), ACC_OK, "%s",
                 acc_last_error());
    char *plan = run_scaled(ctx, 10);
    cr_expect(strstr(plan, "uses: fallback: no implementation of 'uk.scale' "
                           "is registered for backend cuda"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}

#endif /* ACC_FAKE_DRIVER */
