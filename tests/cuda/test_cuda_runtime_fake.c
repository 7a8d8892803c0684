/*
 * test_cuda_runtime_fake.c — the host-side logic of the CUDA runtime,
 * checked against a FAKE driver (tests/cuda/fake_driver.c, loaded through
 * ACC_CUDA_DRIVER): backend selection and every "what is missing"
 * sentence, the module cache, the memory pool, which copies a run makes
 * and on which stream, the error slot handing a step to the interpreter,
 * asynchronous runs and their wait, running out of device memory, the
 * launch shapes of generate and fold, foreign calls, `accel info`, and
 * runs from several threads.  Permute and expand, stencils, and
 * segmented folds and scans have files of their own
 * (test_cuda_fake_permute.c, test_cuda_fake_stencil.c,
 * test_cuda_fake_scan.c).
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
#include "core/backend/cuda/nvrtc.h"
#include "core/codegen/skeletons.h"
#include "support.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the kernel ABI, against the device compiler's layout --------------------- */

/* The host mirror of the kernel arguments (cuda_abi.h) has the layout
 * NVRTC gives the prelude's structs: the sizes are static_asserted in
 * device code, and positional constexpr initialisers in the host
 * mirror's field order fix the order and kind of every field (NVRTC has
 * no offsetof; with equal sizes, order and natural alignment on both
 * LP64 sides, the offsets agree). */
Test(cuda_kernel_abi, host_structs_match_the_device_layout)
{
    diag why;
    cuda_nvrtc nv;
    diag_clear(&why);
    if (cuda_load_nvrtc(&nv, &why) != ACC_OK)
        cr_skip_test("NVRTC is not installed here (%s)", why.message);
    const char *prelude = cg_skeleton("cuda/prelude.cuh.in");
    cr_assert_not_null(prelude);
    char checks[1400];
    snprintf(checks, sizeof checks,
             "static_assert(sizeof(acc_karray) == %zu, \"karray\");\n"
             "static_assert(sizeof(acc_kerr) == %zu, \"kerr\");\n"
             "static_assert(sizeof(acc_kargs) == %zu, \"kargs\");\n"
             "static_assert(sizeof(acc_kval) == %zu, \"kval\");\n"
             "constexpr acc_karray acc_a = {{nullptr}, {5}, 6};\n"
             "static_assert(acc_a.ext[0] == 5 && acc_a.size == 6, \"a\");\n"
             "constexpr acc_kerr acc_e = {1, 2, 3};\n"
             "static_assert(acc_e.code == 1 && acc_e.site == 2 && "
             "acc_e.pos == 3, \"e\");\n"
             "constexpr acc_kargs acc_k = {nullptr, nullptr, {1}, 2, {3}, 4, "
             "nullptr, nullptr, nullptr, nullptr};\n"
             "static_assert(acc_k.out_ext[0] == 1 && acc_k.out_size == 2 && "
             "acc_k.src_ext[0] == 3 && acc_k.inner == 4, \"k\");\n",
             sizeof(cuda_karray), sizeof(cuda_kerr), sizeof(cuda_kargs),
             sizeof(ir_value));
    size_t n = strlen(prelude) + strlen(checks) + 1;
    char *src = malloc(n);
    cr_assert_not_null(src);
    snprintf(src, n, "%s%s", prelude, checks);
    cuda_image img;
    int ok = cuda_compile(&nv, src, "abi_check.cu", 90, CUDA_TARGET_PTX, &img);
    cr_expect(ok, "the device layout differs:\n%s", img.log);
    cr_expect_str_empty(img.log);
    cuda_image_free(&img);
    free(src);
}

#ifndef ACC_FAKE_DRIVER
Test(cuda_runtime_fake, fake_driver_not_built)
{
    cr_skip_test("the fake CUDA driver is built only where the CUDA "
                 "toolkit's cuda.h is installed (cmake/AccelCuda.cmake)");
}
#else

#include "core/backend/cuda/loader.h"
#include "fake_support.h"

TestSuite(cuda_runtime_fake, .init = fake_setup, .fini = fake_teardown);

/* ---- the programs these tests run ------------------------------------------------ */

static const char programs[] =
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n"
    "\n"
    "rowSums (m : Matrix f32) : Vector f32 =\n"
    "  fold (+) 0 m\n"
    "\n"
    "rowProducts (m : Matrix f32) : Vector f32 =\n"
    "  fold1 (*) m\n"
    "\n"
    "scaled (xs : Vector f32) : Vector f32 =\n"
    "  map (\\x -> x * 2.0) xs\n"
    "\n"
    "sumAndMax (xs : Vector f32) : (Scalar f32, Scalar f32) =\n"
    "  (fold (+) 0 xs, fold max 0 xs)\n"
    "\n"
    "quotients (xs : Vector i32) (ys : Vector i32) : Vector i32 =\n"
    "  zipWith quot xs ys\n"
    "\n"
    "reshapedSums (m : Matrix f32) : Matrix f32 =\n"
    "  reshape [8, 8] (fold (+) 0 m)\n"
    "\n"
    "viaForeign (xs : Vector f32) : Vector f32 =\n"
    "  foreign \"test.twice\" (\\a -> map (\\x -> x * 2.0) a) xs\n";

static acc_program *compile(acc_context *ctx, const char *entry)
{
    return compile_from(ctx, programs, entry);
}

static acc_array device_output(void)
{
    acc_array out = ts_empty_output();
    out.memory = ACC_MEMORY_CUDA_DEVICE;
    return out;
}

/* ---- backend selection and what is missing ------------------------------------- */

static const char *cuda_reason(acc_context *ctx, int *available)
{
    const char *reason = NULL;
    cr_assert_eq(acc_context_backend_available(ctx, ACC_BACKEND_CUDA,
                                               available, &reason), ACC_OK);
    return reason;
}

Test(cuda_runtime_fake, auto_picks_cuda_when_driver_device_and_nvrtc_exist)
{
    acc_status st;
    acc_backend b = ACC_BACKEND_INTERP;
    if (!nvrtc_present())
        cr_skip_test("NVRTC is not installed here");
    acc_context *ctx = fake_context(ACC_BACKEND_AUTO, 0, &st);
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    acc_context_backend(ctx, &b);
    cr_expect_eq(b, ACC_BACKEND_CUDA);
    int available = 0;
    const char *reason = cuda_reason(ctx, &available);
    cr_expect(available);
    const char *want = "available: CUDA device 0 of 1 (accel fake CUDA "
                       "device 0, compute capability 9.0, 132 "
                       "multiprocessors) and NVRTC ";
    cr_expect(strncmp(reason, want, strlen(want)) == 0, "%s", reason);
    cr_expect(strstr(reason, "kernels are compiled to cubins for sm_90"),
              "%s", reason);
    cr_expect(!strstr(reason, "cannot launch"), "%s", reason);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* The sentence for CUDA, the refusal of an explicit CUDA context, and
 * AUTO choosing something else, for one missing piece. */
static void expect_missing(const char *sentence, int32_t device)
{
    acc_status st;
    int available = 1;
    acc_backend b = ACC_BACKEND_CUDA;
    acc_context *ctx = fake_context(ACC_BACKEND_AUTO, device, &st);
    cr_assert_eq(st, ACC_OK, "AUTO always succeeds: %s", acc_last_error());
    const char *reason = cuda_reason(ctx, &available);
    cr_expect(!available);
    cr_expect(strncmp(reason, "not available: ", 15) == 0, "%s", reason);
    cr_expect(strstr(reason, sentence), "expected \"%s\" in \"%s\"", sentence,
              reason);
    acc_context_backend(ctx, &b);
    cr_expect_neq(b, ACC_BACKEND_CUDA);
    acc_context_destroy(ctx);
    cr_expect_null(fake_context(ACC_BACKEND_CUDA, device, &st));
    cr_expect_eq(st, ACC_ERR_UNSUPPORTED);
    cr_expect(strstr(acc_last_error(), "backend 'cuda' is not available: ") &&
                  strstr(acc_last_error(), sentence),
              "%s", acc_last_error());
}

Test(cuda_runtime_fake, missing_driver_named_by_the_variable)
{
    setenv("ACC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    expect_missing("the CUDA driver named by ACC_CUDA_DRIVER "
                   "(/nonexistent/libcuda.so.1) cannot be loaded: ", 0);
}

Test(cuda_runtime_fake, no_driver_installed)
{
    unsetenv("ACC_CUDA_DRIVER");
    void *real = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (real)
        cr_skip_test("an NVIDIA driver is installed here");
    expect_missing("libcuda.so.1 not found (the NVIDIA driver is not "
                   "installed)", 0);
}

static void init_fails(fake_config *c) { c->init_error = 100; }
static void no_devices(fake_config *c) { c->devices = 0; }
static void old_device(fake_config *c) { c->cc_major = 3, c->cc_minor = 0; }
static void newer_device(fake_config *c) { c->cc_major = 9, c->cc_minor = 9; }

Test(cuda_runtime_fake, driver_that_fails_to_start)
{
    fake_configure(init_fails); /* CUDA_ERROR_NO_DEVICE from cuInit */
    expect_missing("the CUDA driver failed to start: CUDA_ERROR_NO_DEVICE "
                   "(no CUDA-capable device is detected)", 0);
}

Test(cuda_runtime_fake, no_device)
{
    fake_configure(no_devices);
    expect_missing("no CUDA device", 0);
}

Test(cuda_runtime_fake, device_ordinal_that_does_not_exist)
{
    expect_missing("CUDA device 2 does not exist (1 device)", 2);
}

Test(cuda_runtime_fake, nvrtc_missing)
{
    setenv("ACC_NVRTC", "/nonexistent/libnvrtc.so.99", 1);
    expect_missing("NVRTC not found (tried /nonexistent/libnvrtc.so.99", 0);
    cr_expect(strstr(acc_last_error(), "as ACC_NVRTC says"), "%s",
              acc_last_error());
}

Test(cuda_runtime_fake, device_older_than_nvrtc_supports)
{
    if (!nvrtc_present())
        cr_skip_test("NVRTC is not installed here");
    fake_configure(old_device);
    expect_missing("cannot compile for compute capability 3.0 (it supports "
                   "sm_", 0);
}

/* A device newer than NVRTC knows gets PTX, which the driver compiles. */
Test(cuda_runtime_fake, device_newer_than_nvrtc_gets_ptx)
{
    acc_status st;
    int available = 0;
    float xs[4] = {1, 2, 3, 4};
    acc_array in = vec_f32(xs, 4), out;
    if (!nvrtc_present())
        cr_skip_test("NVRTC is not installed here");
    fake_configure(newer_device);
    acc_context *ctx = fake_context(ACC_BACKEND_CUDA, 0, &st);
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    const char *reason = cuda_reason(ctx, &available);
    cr_expect(strstr(reason, "kernels are compiled to PTX for compute_"),
              "%s", reason);
    acc_program *p = compile(ctx, "scaled");
    cr_expect_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    acc_array_release(&out);
    fake_counters c = fake_counts();
    cr_expect_eq(c.ptx_images, 1);
    cr_expect_eq(c.cubins, 0);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

Test(cuda_runtime_fake, device_memory_is_refused_by_host_backends)
{
    acc_status st;
    float xs[4] = {1, 2, 3, 4};
    acc_context *ctx = fake_context(ACC_BACKEND_INTERP, 0, &st);
    acc_program *p = compile(ctx, "scaled");
    acc_array in = vec_f32(xs, 4), out = ts_empty_output();
    in.memory = ACC_MEMORY_CUDA_DEVICE;
    cr_expect_eq(acc_run(p, 1, &in, 1, &out), ACC_ERR_UNSUPPORTED);
    cr_expect(strstr(acc_last_error(), "input 0: the array is in device "
                     "memory, but this program runs on the host (backend "
                     "interp)"), "%s", acc_last_error());
    in.memory = ACC_MEMORY_HOST;
    out = device_output();
    cr_expect_eq(acc_run(p, 1, &in, 1, &out), ACC_ERR_UNSUPPORTED);
    cr_expect(strstr(acc_last_error(), "output 0: the array is in device "
                     "memory"), "%s", acc_last_error());
    cr_expect_null(out.data[0]);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* ---- the module cache --------------------------------------------------------- */

static void expect_figures(acc_context *ctx, const char *want)
{
    char got[512];
    acc_program *p = compile(ctx, "dotp");
    cuda_figures(p, got, sizeof got);
    cr_expect(strstr(got, want), "expected %s in %s", want, got);
    acc_program_free(p);
}

/* The one module file in the cache folder. */
static void module_path(char *buf, size_t size)
{
    DIR *d = opendir(fake_cache_dir);
    struct dirent *e;
    int found = 0;
    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".cumod")) {
            snprintf(buf, size, "%s/%s", fake_cache_dir, e->d_name);
            found++;
        }
    closedir(d);
    cr_assert_eq(found, 1, "one module file in %s", fake_cache_dir);
}

Test(cuda_runtime_fake, module_cache_memory_disk_and_corrupt_entries)
{
    char path[600];
    struct stat st;
    acc_context *ctx = cuda_context();
    expect_figures(ctx, "\"kernels\":1,\"host_steps\":0,\"interpreted\":0,"
                        "\"memory_hits\":0,\"disk_hits\":0,\"compiled\":1");
    expect_figures(ctx, "\"memory_hits\":1,\"disk_hits\":0,\"compiled\":0");
    acc_context_destroy(ctx);
    cr_expect_eq(fake_counts().modules_loaded, 1, "one module, loaded once");

    ctx = cuda_context(); /* another context: the file on disk */
    expect_figures(ctx, "\"memory_hits\":0,\"disk_hits\":1,\"compiled\":0");
    acc_context_destroy(ctx);
    cr_expect_eq(fake_counts().modules_loaded, 2);

    module_path(path, sizeof path);
    cr_assert_eq(stat(path, &st), 0);
    off_t full = st.st_size;
    cr_assert_eq(truncate(path, full / 2), 0);
    ctx = cuda_context(); /* a truncated file is ignored and rebuilt */
    expect_figures(ctx, "\"disk_hits\":0,\"compiled\":1");
    acc_context_destroy(ctx);
    cr_assert_eq(stat(path, &st), 0);
    cr_expect_eq(st.st_size, full, "the rebuilt module replaced the file");
    cr_expect_eq(fake_counts().cubins, 3, "every image loaded was a cubin");
    expect_all_released();
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

/* ---- streams and asynchronous runs --------------------------------------------- */

/* A stream of the test's own, made through the fake driver as a caller's
 * CUDA code would make it. */
typedef struct caller_cuda {
    cuda_driver drv;
    cu_device dev;
    cu_context ctx;
    cu_stream stream;
} caller_cuda;

static void caller_open(caller_cuda *c)
{
    diag why;
    diag_clear(&why);
    cr_assert_eq(cuda_load_driver(&c->drv, &why), ACC_OK, "%s", why.message);
    cr_assert_eq(c->drv.cuInit(0), CU_SUCCESS);
    cr_assert_eq(c->drv.cuDeviceGet(&c->dev, 0), CU_SUCCESS);
    cr_assert_eq(c->drv.cuDevicePrimaryCtxRetain(&c->ctx, c->dev), CU_SUCCESS);
    cr_assert_eq(c->drv.cuCtxPushCurrent(c->ctx), CU_SUCCESS);
    cr_assert_eq(c->drv.cuStreamCreate(&c->stream, 0), CU_SUCCESS);
}

static void caller_close(caller_cuda *c)
{
    cr_expect_eq(c->drv.cuStreamDestroy(c->stream), CU_SUCCESS);
    cr_expect_eq(c->drv.cuCtxPopCurrent(NULL), CU_SUCCESS);
    cr_expect_eq(c->drv.cuDevicePrimaryCtxRelease(c->dev), CU_SUCCESS);
}

/* Every copy, launch and wait recorded used `stream`; returns how many. */
static size_t all_on(void *stream)
{
    size_t n = fake.events(fake_ev, sizeof fake_ev / sizeof *fake_ev), k = 0;
    for (size_t i = 0; i < n; i++) {
        fake_kind kind = fake_ev[i].kind;
        if (kind != FAKE_HTOD && kind != FAKE_DTOH && kind != FAKE_DTOD &&
            kind != FAKE_LAUNCH && kind != FAKE_SYNC)
            continue;
        cr_expect_eq(fake_ev[i].stream, stream, "event %zu (kind %d) used stream "
                     "%p, not %p", i, (int)kind, fake_ev[i].stream, stream);
        k++;
    }
    return k;
}

static acc_exec *exec_on(acc_context *ctx, void *stream, int async)
{
    acc_exec_options o;
    acc_exec *x = NULL;
    acc_exec_options_init(&o);
    o.stream = stream;
    o.async = async;
    cr_assert_eq(acc_exec_create(ctx, &o, &x), ACC_OK, "%s",
                 acc_last_error());
    return x;
}

Test(cuda_runtime_fake, callers_stream_reaches_every_copy_and_launch)
{
    float xs[1000] = {0}, ys[1000] = {0};
    caller_cuda c;
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp");
    acc_array in[2] = {vec_f32(xs, 1000), vec_f32(ys, 1000)}, out;
    caller_open(&c);
    acc_exec *x = exec_on(ctx, (void *)c.stream, 0);
    fake.clear_events();
    out = ts_empty_output();
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_geq(all_on((void *)c.stream), 5, "2 uploads, the arguments, "
                  "a launch, a download, waits");
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 1);
    acc_array_release(&out);

    acc_exec *legacy = exec_on(ctx, NULL, 0); /* NULL: the default stream */
    fake.clear_events();
    out = ts_empty_output();
    cr_assert_eq(acc_run_exec(legacy, p, 2, in, 1, &out), ACC_OK);
    cr_expect_geq(all_on(NULL), 5);
    acc_array_release(&out);

    fake.clear_events(); /* acc_run: a stream of the context's own */
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK);
    size_t n = fake.events(fake_ev, sizeof fake_ev / sizeof *fake_ev);
    void *own = NULL;
    for (size_t i = 0; i < n && !own; i++)
        if (fake_ev[i].kind == FAKE_LAUNCH)
            own = fake_ev[i].stream;
    cr_expect(own && own != (void *)c.stream);
    cr_expect_geq(all_on(own), 5);
    acc_array_release(&out);
    acc_exec_destroy(legacy);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    caller_close(&c);
    expect_all_released();
}

Test(cuda_runtime_fake, async_run_is_queued_and_wait_completes_it)
{
    float xs[1000] = {0}, ys[1000] = {0};
    caller_cuda c;
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp"); /* no runtime checks */
    acc_array in[2] = {vec_f32(xs, 1000), vec_f32(ys, 1000)};
    acc_array out[3] = {device_output(), device_output(), device_output()};
    caller_open(&c);
    acc_exec *x = exec_on(ctx, (void *)c.stream, 1);
    fake.clear_events();
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out[0]), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 1);
    cr_expect_eq(fake_count(FAKE_SYNC, 0), 0, "the run returned without waiting");
    long before = fake_counts().allocs;
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out[1]), ACC_OK);
    cr_expect_gt(fake_counts().allocs, before, "blocks of a run still queued "
                 "are not handed to the next");
    cr_expect_eq(fake_count(FAKE_SYNC, 0), 0);
    cr_expect_eq(acc_exec_wait(x), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(fake_count(FAKE_SYNC, 0), 1);
    before = fake_counts().allocs;
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out[2]), ACC_OK);
    cr_expect_eq(fake_counts().allocs, before, "after the wait they are");
    cr_expect_eq(acc_exec_wait(x), ACC_OK);
    all_on((void *)c.stream);
    for (int i = 0; i < 3; i++)
        acc_array_release(&out[i]);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    caller_close(&c);
    expect_all_released();
}

static void sync_fails(fake_config *c) { c->sync_error = 719; }

Test(cuda_runtime_fake, device_errors_are_reported_with_the_drivers_name)
{
    float xs[1000] = {0}, ys[1000] = {0};
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp");
    acc_array in[2] = {vec_f32(xs, 1000), vec_f32(ys, 1000)};
    acc_array out = device_output();
    acc_exec *x = exec_on(ctx, NULL, 1);
    fake_configure(sync_fails); /* CUDA_ERROR_LAUNCH_FAILED from every wait */
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(acc_exec_wait(x), ACC_ERR_DEVICE);
    cr_expect(strstr(acc_exec_last_error(x), "CUDA_ERROR_LAUNCH_FAILED "
                     "(unspecified launch failure)"), "%s",
              acc_exec_last_error(x));
    acc_array_release(&out);
    acc_array host_out = ts_empty_output();
    cr_expect_eq(acc_run(p, 2, in, 1, &host_out), ACC_ERR_DEVICE);
    cr_expect(strstr(acc_last_error(), "CUDA_ERROR_LAUNCH_FAILED"), "%s",
              acc_last_error());
    cr_expect_null(host_out.data[0], "no output is left allocated");
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    cr_expect_eq(fake_counts().live_allocs, 0);
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

/* ---- several threads ------------------------------------------------------------ */

typedef struct runner {
    acc_program *p;
    int failures;
} runner;

static void *run_many(void *arg)
{
    runner *r = arg;
    float xs[500] = {0}, ys[500] = {0};
    acc_array in[2] = {vec_f32(xs, 500), vec_f32(ys, 500)};
    for (int i = 0; i < 20; i++) {
        acc_array out = ts_empty_output();
        if (acc_run(r->p, 2, in, 1, &out) != ACC_OK)
            r->failures++;
        acc_array_release(&out);
    }
    return NULL;
}

/* One program run from four threads at once: each run has its own stream
 * (the context's idle streams are shared out), the pool is shared, and
 * the driver sees every call with a current context. */
Test(cuda_runtime_fake, runs_from_several_threads_at_once)
{
    pthread_t t[4];
    runner r[4];
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp");
    for (int i = 0; i < 4; i++) {
        r[i] = (runner){p, 0};
        cr_assert_eq(pthread_create(&t[i], NULL, run_many, &r[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        cr_expect_eq(r[i].failures, 0, "thread %d", i);
    }
    cr_expect_leq(fake_counts().streams_created, 4);
    expect_clean();
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* ---- foreign calls ----------------------------------------------------------------- */

typedef struct seen_call {
    int calls;
    acc_memory arg_memory, result_memory;
    int32_t arg_device;
    void *stream, *workspace, *result;
    acc_status answer; /* what execute returns */
} seen_call;

static acc_status twice_shape(acc_foreign_call *call)
{
    memcpy(call->results[0].extents, call->args[0].extents,
           sizeof call->results[0].extents);
    return ACC_OK;
}

/* A "CUDA implementation" that records what it was given (it cannot
 * compute on the fake device). */
static acc_status twice_execute(acc_foreign_call *call)
{
    seen_call *s = call->user;
    s->calls++;
    s->arg_memory = call->args[0].memory;
    s->arg_device = call->args[0].device;
    s->result_memory = call->results[0].memory;
    s->result = call->results[0].data[0];
    s->stream = call->stream;
    s->workspace = call->workspace(call, 1000);
    return s->answer;
}

Test(cuda_runtime_fake, cuda_foreign_implementation_gets_device_memory)
{
    seen_call seen;
    memset(&seen, 0, sizeof seen);
    float xs[100] = {0};
    caller_cuda c;
    acc_context *ctx = cuda_context();
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = "test.twice";
    impl.impl_name = "fake.twice";
    impl.backend = ACC_BACKEND_CUDA;
    impl.result_shape = twice_shape;
    impl.execute = twice_execute;
    impl.user = &seen;
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK, "%s",
                 acc_last_error());
    acc_program *p = compile(ctx, "viaForeign");
    caller_open(&c);
    acc_exec *x = exec_on(ctx, (void *)c.stream, 0);
    acc_array in = vec_f32(xs, 100), out = ts_empty_output();
    fake.clear_events();
    cr_assert_eq(acc_run_exec(x, p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(seen.calls, 1);
    cr_expect_eq(seen.arg_memory, ACC_MEMORY_CUDA_DEVICE);
    cr_expect_eq(seen.arg_device, 0);
    cr_expect_eq(seen.result_memory, ACC_MEMORY_CUDA_DEVICE);
    cr_expect_not_null(seen.result);
    cr_expect_eq(seen.stream, (void *)c.stream, "the run's stream");
    cr_expect_not_null(seen.workspace, "device scratch from the pool");
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof xs), 1, "the argument uploaded");
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof xs), 1, "the result downloaded");
    all_on((void *)c.stream);
    acc_array_release(&out);
    seen.answer = ACC_ERR_UNSUPPORTED; /* the fallback runs instead */
    out = ts_empty_output();
    cr_expect_eq(acc_run_exec(x, p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(seen.calls, 2);
    acc_array_release(&out);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    caller_close(&c);
    expect_all_released();
}

/* ---- accel info -------------------------------------------------------------------- */

/* The accel tool of this build (bin/accel next to fake-cuda/). */
static void accel_tool(char *buf, size_t size)
{
    snprintf(buf, size, "%s", ACC_FAKE_DRIVER);
    for (int i = 0; i < 2; i++) {
        char *slash = strrchr(buf, '/');
        cr_assert_not_null(slash);
        *slash = '\0';
    }
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "/bin/accel");
}

static void info_output(char *out, size_t size)
{
    char tool[600], cmd[800];
    accel_tool(tool, sizeof tool);
    if (access(tool, X_OK) != 0)
        cr_skip_test("%s is not built", tool);
    snprintf(cmd, sizeof cmd, "'%s' info", tool);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    cr_expect_eq(pclose(f), 0);
}

Test(cuda_runtime_fake, accel_info_says_what_auto_picks_and_what_is_missing)
{
    char out[8192];
    if (!nvrtc_present())
        cr_skip_test("NVRTC is not installed here");
    info_output(out, sizeof out);
    cr_expect(strstr(out, "  cuda    yes: available: CUDA device 0 of 1 "
                     "(accel fake CUDA device 0,"), "%s", out);
    cr_expect(strstr(out, "  auto    selects cuda"), "%s", out);
    setenv("ACC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    info_output(out, sizeof out);
    cr_expect(strstr(out, "  cuda    no: not available: the CUDA driver "
                     "named by ACC_CUDA_DRIVER (/nonexistent/libcuda.so.1) "
                     "cannot be loaded"), "%s", out);
    cr_expect(!strstr(out, "selects cuda"), "%s", out);
}

#endif /* ACC_FAKE_DRIVER */
