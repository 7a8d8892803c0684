/*
 * test_cuda_runtime_fake.c — the host-side logic of the CUDA runtime,
 * checked against a FAKE driver (tests/cuda/fake_driver.c, loaded through
 * ACC_CUDA_DRIVER).  This file: backend selection and every "what is
 * missing" sentence, device memory refused by the host backends, the
 * module cache, and `accel info`.  The memory pool and the copies a run
 * makes (test_cuda_fake_pool.c); streams, asynchronous runs, runs from
 * several threads and foreign calls (test_cuda_fake_streams.c); the error
 * slot and launch shapes (test_cuda_fake_launch.c); permute and expand,
 * stencils, and segmented folds and scans (test_cuda_fake_permute.c,
 * test_cuda_fake_stencil.c, test_cuda_fake_scan.c) have files of their
 * own.
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
#include "support.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
