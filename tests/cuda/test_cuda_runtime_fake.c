/*
 * test_cuda_runtime_fake.c — the host-side logic of the CUDA runtime,
 * checked against a FAKE driver (tests/cuda/fake_driver.c, loaded through
 * ACC_CUDA_DRIVER): backend selection and every "what is missing"
 * sentence, the module cache, the memory pool, which copies a run makes
 * and on which stream, the error slot handing a step to the interpreter,
 * asynchronous runs and their wait, running out of device memory, and the
 * launch shapes the drivers choose.
 *
 * The fake driver keeps device memory in host memory and records every
 * call, but it cannot execute a kernel: nothing here shows that a result
 * computed by a kernel is right, and no test looks at one.  Kernels are
 * really compiled (NVRTC) and the images really checked (an ELF cubin for
 * the CUDA machine, or PTX), so these tests skip where NVRTC is missing.
 * Nothing in this file ran on a GPU.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "core/backend/cuda/cuda_abi.h"
#include "core/backend/cuda/nvrtc.h"
#include "core/codegen/kernel_cuda.h"
#include "core/codegen/skeletons.h"
#include "support.h"
#include "text_sources.h"

#include <dirent.h>
#include <stddef.h>
#include <dlfcn.h>
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
    char why[1024];
    cuda_nvrtc nv;
    if (!cuda_load_nvrtc(&nv, why, sizeof why))
        cr_skip_test("NVRTC is not installed here (%s)", why);
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
#include "fake_driver.h"

/* ---- fixture ----------------------------------------------------------------------- */

static struct {
    fake_cuda_reset_fn reset;
    fake_cuda_configure_fn configure;
    fake_cuda_get_config_fn get_config;
    fake_cuda_counters_fn counters;
    fake_cuda_events_fn events;
    fake_cuda_clear_events_fn clear_events;
} fake;

static char cache_dir[256];
static fake_event ev[8192];

static void *fake_symbol(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    cr_assert_not_null(p, "the fake driver lacks %s", name);
    return p;
}

static void setup(void)
{
    setenv("ACC_CUDA_DRIVER", ACC_FAKE_DRIVER, 1);
    unsetenv("ACC_NVRTC");
    void *lib = dlopen(ACC_FAKE_DRIVER, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "%s: %s", ACC_FAKE_DRIVER, dlerror());
    void *p;
    p = fake_symbol(lib, "fake_cuda_reset");
    memcpy(&fake.reset, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_configure");
    memcpy(&fake.configure, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_get_config");
    memcpy(&fake.get_config, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_counters");
    memcpy(&fake.counters, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_events");
    memcpy(&fake.events, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_clear_events");
    memcpy(&fake.clear_events, &p, sizeof p);
    fake.reset();
    const char *tmp = getenv("TMPDIR");
    snprintf(cache_dir, sizeof cache_dir, "%s/accel-fake-cuda-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(cache_dir));
}

static void teardown(void)
{
    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", cache_dir);
}

TestSuite(cuda_runtime_fake, .init = setup, .fini = teardown);

static fake_counters counters(void)
{
    fake_counters c;
    fake.counters(&c);
    return c;
}

static void configure(void (*edit)(fake_config *))
{
    fake_config c;
    fake.get_config(&c);
    edit(&c);
    fake.configure(&c);
}

static int nvrtc_present(void)
{
    char why[1024];
    cuda_nvrtc nv;
    return cuda_load_nvrtc(&nv, why, sizeof why);
}

static acc_context *context(acc_backend backend, int32_t device,
                            acc_status *st)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = backend;
    o.cache_dir = cache_dir;
    o.cuda_device = device;
    *st = acc_context_create(&o, &ctx);
    return ctx;
}

/* A context on the fake device (skips without NVRTC). */
static acc_context *cuda_context(void)
{
    acc_status st;
    if (!nvrtc_present())
        cr_skip_test("NVRTC is not installed here: no CUDA context can be "
                     "created, even on the fake driver");
    acc_context *ctx = context(ACC_BACKEND_CUDA, 0, &st);
    cr_assert_eq(st, ACC_OK, "%s: %s", acc_status_string(st),
                 acc_last_error());
    return ctx;
}

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

static acc_program *compile_from(acc_context *ctx, const char *src,
                                 const char *entry)
{
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, entry, &p);
    cr_assert_eq(st, ACC_OK, "%s: %s: %s", entry, acc_status_string(st),
                 acc_last_error());
    return p;
}

static acc_program *compile(acc_context *ctx, const char *entry)
{
    return compile_from(ctx, programs, entry);
}

static acc_array vec_f32(float *data, int64_t n)
{
    return ts_host(ACC_F32, 1, &n, data);
}

static acc_array mat_f32(float *data, int64_t rows, int64_t cols)
{
    int64_t ext[2] = {rows, cols};
    return ts_host(ACC_F32, 2, ext, data);
}

static acc_array device_output(void)
{
    acc_array out = ts_empty_output();
    out.memory = ACC_MEMORY_CUDA_DEVICE;
    return out;
}

/* Recorded events of a kind (bytes 0: any size). */
static size_t count(fake_kind kind, size_t bytes)
{
    size_t n = fake.events(ev, sizeof ev / sizeof *ev), k = 0;
    for (size_t i = 0; i < n && i < sizeof ev / sizeof *ev; i++)
        k += ev[i].kind == kind && (bytes == 0 || ev[i].bytes == bytes);
    return k;
}

static void expect_clean(void)
{
    fake_counters c = counters();
    cr_expect_eq(c.misuse, 0, "driver API misuse: %s", c.last_misuse);
}

/* After every handle is gone: nothing left on the device. */
static void expect_all_released(void)
{
    fake_counters c = counters();
    cr_expect_eq(c.live_allocs, 0, "%ld device allocations leaked",
                 c.live_allocs);
    cr_expect_eq(c.frees, c.allocs);
    cr_expect_eq(c.primary_releases, c.primary_retains);
    cr_expect_eq(c.streams_destroyed, c.streams_created);
    cr_expect_eq(c.modules_unloaded, c.modules_loaded);
    expect_clean();
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
    acc_context *ctx = context(ACC_BACKEND_AUTO, 0, &st);
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
    acc_context *ctx = context(ACC_BACKEND_AUTO, device, &st);
    cr_assert_eq(st, ACC_OK, "AUTO always succeeds: %s", acc_last_error());
    const char *reason = cuda_reason(ctx, &available);
    cr_expect(!available);
    cr_expect(strncmp(reason, "not available: ", 15) == 0, "%s", reason);
    cr_expect(strstr(reason, sentence), "expected \"%s\" in \"%s\"", sentence,
              reason);
    acc_context_backend(ctx, &b);
    cr_expect_neq(b, ACC_BACKEND_CUDA);
    acc_context_destroy(ctx);
    cr_expect_null(context(ACC_BACKEND_CUDA, device, &st));
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
    configure(init_fails); /* CUDA_ERROR_NO_DEVICE from cuInit */
    expect_missing("the CUDA driver failed to start: CUDA_ERROR_NO_DEVICE "
                   "(no CUDA-capable device is detected)", 0);
}

Test(cuda_runtime_fake, no_device)
{
    configure(no_devices);
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
    configure(old_device);
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
    configure(newer_device);
    acc_context *ctx = context(ACC_BACKEND_CUDA, 0, &st);
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    const char *reason = cuda_reason(ctx, &available);
    cr_expect(strstr(reason, "kernels are compiled to PTX for compute_"),
              "%s", reason);
    acc_program *p = compile(ctx, "scaled");
    cr_expect_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    acc_array_release(&out);
    fake_counters c = counters();
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
    acc_context *ctx = context(ACC_BACKEND_INTERP, 0, &st);
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

/* The "cuda" member of the program's JSON plan, as text. */
static void cuda_figures(acc_program *p, char *buf, size_t size)
{
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    const char *at = strstr(json, "\"cuda\":{");
    cr_assert_not_null(at, "%s", json);
    snprintf(buf, size, "%s", at);
    acc_free(json);
}

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
    DIR *d = opendir(cache_dir);
    struct dirent *e;
    int found = 0;
    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".cumod")) {
            snprintf(buf, size, "%s/%s", cache_dir, e->d_name);
            found++;
        }
    closedir(d);
    cr_assert_eq(found, 1, "one module file in %s", cache_dir);
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
    cr_expect_eq(counters().modules_loaded, 1, "one module, loaded once");

    ctx = cuda_context(); /* another context: the file on disk */
    expect_figures(ctx, "\"memory_hits\":0,\"disk_hits\":1,\"compiled\":0");
    acc_context_destroy(ctx);
    cr_expect_eq(counters().modules_loaded, 2);

    module_path(path, sizeof path);
    cr_assert_eq(stat(path, &st), 0);
    off_t full = st.st_size;
    cr_assert_eq(truncate(path, full / 2), 0);
    ctx = cuda_context(); /* a truncated file is ignored and rebuilt */
    expect_figures(ctx, "\"disk_hits\":0,\"compiled\":1");
    acc_context_destroy(ctx);
    cr_assert_eq(stat(path, &st), 0);
    cr_expect_eq(st.st_size, full, "the rebuilt module replaced the file");
    cr_expect_eq(counters().cubins, 3, "every image loaded was a cubin");
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
    fake_counters first = counters();
    cr_expect_gt(first.allocs, 0);
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK);
    acc_array_release(&out);
    fake_counters second = counters();
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
    cr_expect_eq(count(FAKE_LAUNCH, 0), 2);
    cr_expect_eq(count(FAKE_HTOD, sizeof xs), 1, "xs crossed once");
    cr_expect_eq(count(FAKE_DTOH, sizeof(float)), 2, "the two results");
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
    cr_expect_eq(count(FAKE_HTOD, sizeof xs), 0, "no upload of a device "
                 "input");
    cr_expect_eq(count(FAKE_DTOD, 0), 0);
    cr_expect_eq(count(FAKE_LAUNCH, 0), 1);
    acc_array_release(&out);
    acc_array_release(&dev[0]);
    acc_program_free(dot);
    acc_program_free(scale);
    acc_context_destroy(ctx);
    /* dev[1] outlives its context; the device stays open until then */
    cr_expect_lt(counters().primary_releases, counters().primary_retains);
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
    cr_expect_eq(count(FAKE_DTOD, 0), 0, "the kernel wrote the caller's "
                 "buffer: nothing to copy");
    cr_expect_eq(count(FAKE_DTOH, 0), 0);
    cr_expect_eq(count(FAKE_HTOD, sizeof xs), 1);
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
 * no element is overwritten before it is read (core/exec/destinations.h). */
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
    cr_expect_eq(count(FAKE_HTOD, sizeof xs), 0, "the input is on the "
                 "device");
    cr_expect_eq(count(FAKE_DTOD, sizeof xs), 1, "the result is copied into "
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
    cr_expect_eq(count(FAKE_DTOH, 64 * sizeof(float)), 1, "the row sums");
    cr_expect_eq(count(FAKE_DTOH, 0), 1, "nothing else");
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
    char why[512];
    cr_assert(cuda_load_driver(&c->drv, why, sizeof why), "%s", why);
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
    size_t n = fake.events(ev, sizeof ev / sizeof *ev), k = 0;
    for (size_t i = 0; i < n; i++) {
        fake_kind kind = ev[i].kind;
        if (kind != FAKE_HTOD && kind != FAKE_DTOH && kind != FAKE_DTOD &&
            kind != FAKE_LAUNCH && kind != FAKE_SYNC)
            continue;
        cr_expect_eq(ev[i].stream, stream, "event %zu (kind %d) used stream "
                     "%p, not %p", i, (int)kind, ev[i].stream, stream);
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
    cr_expect_eq(count(FAKE_LAUNCH, 0), 1);
    acc_array_release(&out);

    acc_exec *legacy = exec_on(ctx, NULL, 0); /* NULL: the default stream */
    fake.clear_events();
    out = ts_empty_output();
    cr_assert_eq(acc_run_exec(legacy, p, 2, in, 1, &out), ACC_OK);
    cr_expect_geq(all_on(NULL), 5);
    acc_array_release(&out);

    fake.clear_events(); /* acc_run: a stream of the context's own */
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK);
    size_t n = fake.events(ev, sizeof ev / sizeof *ev);
    void *own = NULL;
    for (size_t i = 0; i < n && !own; i++)
        if (ev[i].kind == FAKE_LAUNCH)
            own = ev[i].stream;
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
    cr_expect_eq(count(FAKE_LAUNCH, 0), 1);
    cr_expect_eq(count(FAKE_SYNC, 0), 0, "the run returned without waiting");
    long before = counters().allocs;
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out[1]), ACC_OK);
    cr_expect_gt(counters().allocs, before, "blocks of a run still queued "
                 "are not handed to the next");
    cr_expect_eq(count(FAKE_SYNC, 0), 0);
    cr_expect_eq(acc_exec_wait(x), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(count(FAKE_SYNC, 0), 1);
    before = counters().allocs;
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out[2]), ACC_OK);
    cr_expect_eq(counters().allocs, before, "after the wait they are");
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
    configure(sync_fails); /* CUDA_ERROR_LAUNCH_FAILED from every wait */
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
    cr_expect_eq(counters().live_allocs, 0);
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
    configure(fail_from_now);
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
        configure(fail_from_now);
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
    configure(fail_once);
    fake.clear_events();
    acc_array min = mat_f32(m, 300, 7);
    cr_expect_eq(ts_run_program(rows, 1, &min, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    acc_array_release(&out);
    cr_expect_eq(counters().alloc_failures, 1);
    /* the blocks dotp left in the pool were freed before the retry */
    size_t n = fake.events(ev, sizeof ev / sizeof *ev), freed = 0;
    for (size_t i = 0; i < n && ev[i].kind != FAKE_ALLOC; i++)
        freed += ev[i].kind == FAKE_FREE;
    cr_expect_geq(freed, 3, "%zu cached blocks freed before the retry",
                  freed);
    acc_program_free(rows);
    acc_program_free(dot);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* ---- the error slot, and launch shapes -------------------------------------------- */

static void fail_next_launch(fake_config *c)
{
    c->fail_launches = 1;
    c->fail_code = 1; /* ACC_KERR_DIV_ZERO */
    c->fail_site = 0;
    c->fail_pos = 2;
}

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
    configure(fail_next_launch);
    fake.clear_events();
    cr_expect_eq(ts_run_program(p, 2, in, 1, &out), ACC_ERR_RUNTIME);
    cr_expect_str_eq(acc_last_error(), "quot: division by zero");
    cr_expect_eq(count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot was read");
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
    cr_expect_eq(count(FAKE_DTOH, 0), 0, "no error slot to read back");
    cr_expect_eq(count(FAKE_SYNC, 0), 1, "one wait, at the end of the run");
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
    cr_expect_eq(count(FAKE_LAUNCH, 0), 0);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

static const fake_event *launch_of(const char *function, size_t nth)
{
    size_t n = fake.events(ev, sizeof ev / sizeof *ev);
    for (size_t i = 0; i < n; i++)
        if (ev[i].kind == FAKE_LAUNCH && strcmp(ev[i].function, function) == 0 &&
            nth-- == 0)
            return &ev[i];
    cr_assert_fail("no launch of %s", function);
    return NULL;
}

static void expect_launch(const char *function, unsigned gx, unsigned gy,
                          unsigned block)
{
    const fake_event *e = launch_of(function, 0);
    cr_expect(e->grid[0] == gx && e->grid[1] == gy && e->grid[2] == 1 &&
                  e->block[0] == block && e->block[1] == 1 && e->block[2] == 1,
              "%s: grid (%u, %u, %u), block (%u, %u, %u); expected grid "
              "(%u, %u, 1), block (%u, 1, 1)", function, e->grid[0],
              e->grid[1], e->grid[2], e->block[0], e->block[1], e->block[2],
              gx, gy, block);
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
    cr_expect_eq(count(FAKE_LAUNCH, 0), 2);

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
    cr_expect_leq(counters().streams_created, 4);
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
    cr_expect_eq(count(FAKE_HTOD, sizeof xs), 1, "the argument uploaded");
    cr_expect_eq(count(FAKE_DTOH, sizeof xs), 1, "the result downloaded");
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

/* ---- permute, permute' and expand ------------------------------------------------- */

/* The step of p compiled and launched: nothing left to the interpreter. */
static void expect_all_compiled(acc_program *p)
{
    char figures[512];
    cuda_figures(p, figures, sizeof figures);
    cr_expect(strstr(figures, "\"kernels\":1,") && strstr(figures, "\"interpreted\":0"),
              "%s", figures);
}

/* Entry `entry` of ts_permute_source (or of ts_sieve_source). */
static acc_program *compile_permute(acc_context *ctx, const char *entry)
{
    acc_program *p = compile_from(ctx, strcmp(entry, "sieveMarks") == 0
                                           ? ts_sieve_source()
                                           : ts_permute_source(), entry);
    expect_all_compiled(p);
    return p;
}

/* The launches recorded, by name, in order, into names (at most max). */
static size_t launches(const char **names, size_t max)
{
    size_t n = fake.events(ev, sizeof ev / sizeof *ev), k = 0;
    for (size_t i = 0; i < n && i < sizeof ev / sizeof *ev; i++)
        if (ev[i].kind == FAKE_LAUNCH && k < max)
            names[k++] = ev[i].function;
    return k;
}

static void expect_sequence(const char *const *want, size_t n)
{
    const char *got[16];
    size_t k = launches(got, 16);
    cr_expect_eq(k, n, "%zu launches, expected %zu", k, n);
    for (size_t i = 0; i < n && i < k; i++)
        cr_expect_str_eq(got[i], want[i], "launch %zu", i);
}

static int64_t histogram_bins;
static acc_array histogram_run(acc_program *p, int32_t *xs, int64_t n,
                               acc_status want)
{
    acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &histogram_bins),
                       ts_host(ACC_I32, 1, &n, xs)}, out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), want, "%s",
                 acc_last_error());
    return out;
}

/* histogram_run of n sources into histogram_bins bins: the result has the
 * bins, and the launches are want[0..k). */
static void histogram_launches_are(acc_program *p, int32_t *xs, int64_t n,
                                   const char *const *want, size_t k)
{
    acc_array out = histogram_run(p, xs, n, ACC_OK);
    cr_expect_eq(out.extents[0], histogram_bins);
    acc_array_release(&out);
    expect_sequence(want, k);
}

/* A histogram: the defaults, then the source; a few elements go straight
 * into the result, many into per-block copies (at most one block per 8
 * sources a bin); a target too large for shared memory goes straight in.
 * The error slot is read once, at the end (targets can be out of range). */
Test(cuda_runtime_fake, histogram_launches)
{
    static int32_t xs[100000];
    static const char *const straight[2] = {"accel_permute_defaults",
                                            "accel_permute_source"};
    static const char *const privatised[2] = {"accel_permute_defaults",
                                              "accel_permute_private"};
    acc_context *ctx = cuda_context();
    acc_program *p = compile_permute(ctx, "histogram");
    histogram_bins = 10;
    histogram_launches_are(p, xs, 20, straight, 2);
    expect_launch("accel_permute_defaults", 1, 1, 32);
    expect_launch("accel_permute_source", 1, 1, 32);
    cr_expect_eq(count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot, once");
    cr_expect_eq(count(FAKE_DTOH, 0), 2, "and the result");
    /* 391 blocks of 256 for 100000 sources; at most 100000 / 80 */
    histogram_launches_are(p, xs, 100000, privatised, 2);
    expect_launch("accel_permute_private", 391, 1, 256);
    /* 100 a bin: at most 12 blocks, 4 of 256 cover them */
    histogram_launches_are(p, xs, 1000, privatised, 2);
    expect_launch("accel_permute_private", 4, 1, 256);
    histogram_bins = 5000; /* 5000 i32 bins: over 16 KiB */
    histogram_launches_are(p, xs, 100000, straight, 2);
    expect_launch("accel_permute_defaults", 20, 1, 256);
    expect_launch("accel_permute_source", 391, 1, 256);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* No source elements: the defaults alone (and for an expand, nothing). */
Test(cuda_runtime_fake, empty_sources_launch_nothing_but_the_defaults)
{
    int32_t none32[1] = {0};
    int64_t none64[1] = {0}, zero = 0, n = 100;
    static const char *const defaults[1] = {"accel_permute_defaults"};
    acc_context *ctx = cuda_context();
    acc_program *h = compile_permute(ctx, "histogram");
    histogram_bins = 7;
    acc_array out = histogram_run(h, none32, 0, ACC_OK);
    acc_array_release(&out);
    expect_sequence(defaults, 1);
    acc_program *s = compile_permute(ctx, "sieveMarks");
    acc_array in[2] = {ts_host(ACC_I64, 1, &zero, none64),
                       ts_host(ACC_I64, 0, NULL, &n)};
    fake.clear_events();
    cr_assert_eq(ts_run_program(s, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 100);
    acc_array_release(&out);
    expect_sequence(defaults, 1);
    acc_program *e = compile_permute(ctx, "spread");
    fake.clear_events();
    cr_assert_eq(ts_run_program(e, 1, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 0);
    acc_array_release(&out);
    cr_expect_eq(count(FAKE_LAUNCH, 0), 0);
    acc_program_free(e);
    acc_program_free(s);
    acc_program_free(h);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* What accel_expand_scan would leave for the host: the total and the
 * largest size, after the 2 x parts sums (expansion.cuh.in). */
static int64_t poke_sizes[3]; /* total, largest, parts */
static void poke_expansion(fake_config *c)
{
    snprintf(c->poke_function, sizeof c->poke_function, "accel_expand_scan");
    c->poke_part = 1;
    c->poke_offset = (size_t)(16 * poke_sizes[2]);
    c->poke_len = 16;
    memcpy(c->poke_bytes, poke_sizes, 16);
}

static void expand_with(int64_t n, int64_t total, int64_t largest)
{
    poke_sizes[0] = total;
    poke_sizes[1] = largest;
    poke_sizes[2] = cg_cuda_expand_parts(n);
    configure(poke_expansion);
    fake.clear_events();
}

/* The expansion's three passes (a warp a part: one part per 32 sources),
 * one read-back of the slot and the total, then the values pass the sizes
 * choose; the result has the device's total. */
Test(cuda_runtime_fake, expand_launches_chosen_by_the_sizes)
{
    static int64_t xs[1000];
    static const char *const by_threads[4] = {
        "accel_expand_sizes", "accel_expand_scan", "accel_expand_offsets",
        "accel_expand_threads"};
    static const char *const by_blocks[4] = {
        "accel_expand_sizes", "accel_expand_scan", "accel_expand_offsets",
        "accel_expand_blocks"};
    int64_t n = 1000;
    acc_context *ctx = cuda_context();
    acc_program *p = compile_permute(ctx, "spread");
    acc_array in = ts_host(ACC_I64, 1, &n, xs), out;

    expand_with(n, 2500, 4); /* small, uniform: a thread a source */
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 2500, "sized by the device's total");
    acc_array_release(&out);
    expect_sequence(by_threads, 4);
    expect_launch("accel_expand_sizes", 4, 1, 256); /* 32 parts */
    expect_launch("accel_expand_scan", 1, 1, 32);
    expect_launch("accel_expand_offsets", 4, 1, 256);
    expect_launch("accel_expand_threads", 4, 1, 256);
    cr_expect_eq(count(FAKE_DTOH, 16), 2, "the slot and the total, once");

    expand_with(n, 100000, 90000); /* irregular: blocks, 4 positions a thread */
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 100000);
    acc_array_release(&out);
    expect_sequence(by_blocks, 4);
    expect_launch("accel_expand_blocks", 98, 1, 256);

    expand_with(n, 0, 0); /* every size 0: no values pass */
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK);
    cr_expect_eq(out.extents[0], 0);
    acc_array_release(&out);
    expect_sequence(by_threads, 3);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* The sieve: the defaults, the expansion, each result combined into the
 * marks; one kernel, no index or value arrays. */
Test(cuda_runtime_fake, sieve_launches)
{
    static int64_t ps[100];
    static const char *const want[5] = {
        "accel_permute_defaults", "accel_expand_sizes", "accel_expand_scan",
        "accel_expand_offsets", "accel_expand_blocks"};
    int64_t np = 100, n = 100000;
    acc_context *ctx = cuda_context();
    acc_program *p = compile_permute(ctx, "sieveMarks");
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)}, out;
    expand_with(np, 300000, 49999);
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 100000);
    acc_array_release(&out);
    expect_sequence(want, 5);
    expect_launch("accel_permute_defaults", 391, 1, 256);
    expect_launch("accel_expand_sizes", 1, 1, 128); /* 4 parts */
    expect_launch("accel_expand_blocks", 293, 1, 256);
    cr_expect_eq(count(FAKE_DTOH, 16), 3, "the slot and the total after "
                 "the scan, the slot at the end");
    size_t syncs = count(FAKE_SYNC, 0);
    cr_expect_eq(syncs, 4, "a wait for each read, one for the result's "
                 "download, one at the end of the run: %zu", syncs);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* After a map: the map pass reads the permuted array (released after)
 * into the step's result. */
Test(cuda_runtime_fake, map_after_permute_is_a_third_launch)
{
    static int32_t xs[50];
    static const char *const want[3] = {"accel_permute_defaults",
                                        "accel_permute_source",
                                        "accel_permute_map"};
    acc_context *ctx = cuda_context();
    acc_program *p = compile_permute(ctx, "emptyBins");
    histogram_bins = 1000;
    histogram_launches_are(p, xs, 50, want, 3);
    expect_launch("accel_permute_map", 4, 1, 256);
    cr_expect_eq(count(FAKE_DTOH, 1000), 1, "the mapped result only");
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

static int fail_code = 3; /* ACC_KERR_BOUNDS */
static void fail_first_launch(fake_config *c)
{
    c->fail_launches = 1;
    c->fail_code = fail_code;
    c->fail_site = 0;
    c->fail_pos = 14;
}

/* Failures the kernels report in the error slot (written here by the
 * fake): the step goes to the interpreter, whose message names them. */
Test(cuda_runtime_fake, permute_and_expand_failures_are_the_interpreters)
{
    int32_t xs[20] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                      3, 2, 1, 0, -1, 4, 3, 2, 1, 0};
    int64_t sizes[4] = {3, 2, -3, 1}, four = 4;
    acc_context *ctx = cuda_context();
    acc_program *h = compile_permute(ctx, "histogram");
    histogram_bins = 10;
    configure(fail_first_launch);
    acc_array out = histogram_run(h, xs, 20, ACC_ERR_RUNTIME);
    cr_expect(strstr(acc_last_error(), "permute: source element [14] has "
                     "target index [-1], which is out of bounds for the "
                     "target shape [10]"), "%s", acc_last_error());
    cr_expect_null(out.data[0]);
    cr_expect_eq(count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot was read");
    acc_program *e = compile_permute(ctx, "spread");
    acc_array in = ts_host(ACC_I64, 1, &four, sizes);
    fail_code = 5; /* a negative size (expansion.cuh.in) */
    configure(fail_first_launch);
    fake.clear_events();
    cr_expect_eq(ts_run_program(e, 1, &in, 1, &out), ACC_ERR_RUNTIME);
    cr_expect(strstr(acc_last_error(), "expand: the size function gives -3 "
                     "for element 2"), "%s", acc_last_error());
    cr_expect_null(out.data[0]);
    cr_expect_eq(count(FAKE_LAUNCH, 0), 3, "no values pass");
    acc_program_free(e);
    acc_program_free(h);
    acc_context_destroy(ctx);
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

/* The recorded launches' functions, in order, joined by spaces. */
/* The launches recorded, as names separated by spaces (launches()). */
static void launch_sequence(char *buf, size_t size)
{
    const char *got[64];
    size_t n = launches(got, 64);
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
                 buf[0] ? " " : "", got[i]);
}

static void expect_sequence_text(const char *want)
{
    char got[512];
    launch_sequence(got, sizeof got);
    cr_expect_str_eq(got, want);
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
    cr_expect_eq(count(FAKE_DTOH, sizeof(cuda_kerr)), 0, "no checks");
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
    cr_expect_eq(count(FAKE_HTOD, sizeof xs), 1, "xs uploaded");
    cr_expect_eq(count(FAKE_HTOD, sizeof ys), 1, "ys uploaded");
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
    cr_expect_eq(count(FAKE_HTOD, 0), 0, "nothing uploaded");
    cr_expect_eq(count(FAKE_DTOH, 0), 0, "nothing downloaded");
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
        cr_expect_eq(count(FAKE_DTOH, sizeof(cuda_kerr)), 1,
                     "the slot read once, after the last launch");
        cr_expect_eq(count(FAKE_HTOD, sizeof ys), 1, "ys, read by the producer");
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
    configure(fail_next_launch);
    fake.clear_events();
    cr_expect_eq(ts_run_program(p, 1, &in, 1, &out), ACC_ERR_RUNTIME);
    cr_expect_str_eq(acc_last_error(), "quot: division by zero");
    expect_sequence_text("accel_stencil_interior accel_stencil_border");
    cr_expect_eq(count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot was read");
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
    cr_expect_eq(count(FAKE_HTOD, sizeof xs), 1, "the array, uploaded once");
    acc_array_release(&out);
    acc_program_free(p);
    p = compile_stencil(ctx, "mapOverStencil");
    acc_array img = mat_f32(xs, 15, 20);
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 1, &img, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect(out.extents[0] == 15 && out.extents[1] == 20);
    expect_sequence_text("accel_generate");
    cr_expect_eq(count(FAKE_HTOD, sizeof xs), 1, "the stencil's result");
    acc_array_release(&out);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* ---- segmented folds and scans ------------------------------------------------- */

static const char scan_programs[] =
    "segSums (m : Matrix f32) (s : Vector i64) : Matrix f32 =\n"
    "  foldSeg (+) 0 m s\n"
    "\n"
    "offsetSums (xs : Vector i64) (o : Vector i64) : Vector i64 =\n"
    "  foldSeg' (+) 0 xs o\n"
    "\n"
    "segMaxes (xs : Vector i32) (s : Vector i64) : Vector i32 =\n"
    "  fold1Seg max xs s\n"
    "\n"
    "rowScans (m : Matrix f32) : Matrix f32 = scanl (+) 0 m\n"
    "\n"
    "rowTotals (m : Matrix i64) : (Matrix i64, Vector i64) = scanr' (+) 0 m\n"
    "\n"
    "inclusive (m : Matrix f32) : Matrix f32 = scanl1 (+) m\n"
    "\n"
    "exclusive (m : Matrix f32) : Matrix f32 = prescanl (+) 0 m\n"
    "\n"
    "segScans (xs : Vector f32) (s : Vector i64) : Vector f32 =\n"
    "  scanlSeg (+) 0 xs s\n"
    "\n"
    "segTotals (xs : Vector i64) (s : Vector i64) : (Vector i64, Vector i64) =\n"
    "  scanl'Seg (+) 0 xs s\n"
    "\n"
    "segQuotients (xs : Vector i32) (s : Vector i64) : Vector i32 =\n"
    "  postscanlSeg (+) 0 (map (\\x -> quot 100 x) xs) s\n"
    "\n"
    "rowDiffs (m : Matrix i64) : Matrix i64 = scanl (-) 0 m\n"
    "\n"
    "segDiffs (xs : Vector i64) (s : Vector i64) : Vector i64 =\n"
    "  scanlSeg (-) 0 xs s\n";

_Static_assert(FAKE_KARGS_ERR_OFFSET == offsetof(cuda_kargs, err),
               "the fake reads the error slot where acc_kargs has it");
_Static_assert(FAKE_KARGS_OUT_SIZE_OFFSET == offsetof(cuda_kargs, out_size),
               "acc_kargs.out_size");
_Static_assert(FAKE_KARGS_INNER_OFFSET == offsetof(cuda_kargs, inner),
               "acc_kargs.inner");

/* Entry `entry` of scan_programs, or of LANGUAGE.md §4 when it is "smvm". */
static acc_program *compile_scan(acc_context *ctx, const char *entry)
{
    return compile_from(ctx, strcmp(entry, "smvm") == 0
                                 ? ts_language4_source() : scan_programs,
                        entry);
}

static acc_array vec_i64(int64_t *data, int64_t n)
{
    return ts_host(ACC_I64, 1, &n, data);
}

/* Runs `entry` on the fake device (n_out host outputs, released after
 * their shapes are checked against want_ext[i][0..rank)); the launches stay
 * recorded.  Every step must have had a kernel; nothing may leak. */
static void run_on_device(const char *entry, size_t n_in, const acc_array *in,
                          size_t n_out)
{
    char figures[512];
    acc_context *ctx = cuda_context();
    acc_program *p = compile_scan(ctx, entry);
    acc_array out[2];
    cuda_figures(p, figures, sizeof figures);
    cr_expect(strstr(figures, "\"interpreted\":0"), "%s: %s", entry, figures);
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, n_in, in, n_out, out), ACC_OK, "%s: %s",
                 entry, acc_last_error());
    for (size_t i = 0; i < n_out; i++)
        acc_array_release(&out[i]);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* The arguments of the nth launch of `function`: the result's size,
 * the innermost extent of the source and, when arg1 >= 0, the second
 * parameter (-1: none). */
static void expect_args(const char *function, size_t nth, int64_t out_size,
                        int64_t inner, int64_t arg1)
{
    const fake_event *e = launch_of(function, nth);
    cr_expect_eq(e->out_size, out_size, "%s: out_size %lld, expected %lld",
                 function, (long long)e->out_size, (long long)out_size);
    cr_expect_eq(e->inner, inner, "%s: inner %lld, expected %lld", function,
                 (long long)e->inner, (long long)inner);
    cr_expect_eq(e->has_arg1, arg1 >= 0, "%s: a second parameter", function);
    if (arg1 >= 0 && e->has_arg1)
        cr_expect_eq(e->arg1, arg1, "%s: second parameter %lld, expected "
                     "%lld", function, (long long)e->arg1, (long long)arg1);
}

/* Warps (one per segment) or threads (one per segment) by the average
 * segment length; the offsets travel in the argument block: no upload of
 * their own. */
Test(cuda_runtime_fake, segmented_fold_launches)
{
    static float m[100 * 1000];
    static int64_t tens[100], ones[1000];
    for (int i = 0; i < 1000; i++)
        ones[i] = 1, tens[i % 100] = 10;
    acc_array in[2] = {mat_f32(m, 100, 1000), vec_i64(tens, 100)};
    run_on_device("segSums", 2, in, 1); /* segments of 10: a warp each */
    expect_sequence_text("accel_fold_seg_warp");
    expect_launch("accel_fold_seg_warp", 1056, 1, 256); /* capped grid */
    expect_args("accel_fold_seg_warp", 0, 100 * 100, 1000, -1);
    cr_expect_eq(count(FAKE_HTOD, 0), 2, "m, then the argument block with "
                 "the 101 offsets");
    cr_expect_eq(count(FAKE_HTOD, sizeof m), 1);
    in[1] = vec_i64(ones, 1000); /* segments of 1: a thread each */
    run_on_device("segSums", 2, in, 1);
    expect_sequence_text("accel_fold_seg_thread");
    expect_launch("accel_fold_seg_thread", 391, 1, 256);
    expect_args("accel_fold_seg_thread", 0, 100 * 1000, 1000, -1);
    in[0] = mat_f32(m, 0, 1000); /* no rows: no result, no launch */
    run_on_device("segSums", 2, in, 1);
    cr_expect_eq(count(FAKE_LAUNCH, 0), 0);
}

/* SMVM: foldSeg over an embedded producer with bounds checks; its
 * elements past the last segment are computed for their checks, from
 * off[k], and the error slot is read once. */
Test(cuda_runtime_fake, smvm_runs_the_tail_past_the_last_segment)
{
    int64_t segd[3] = {10, 20, 30}, full[3] = {10, 20, 70}, inds[100];
    float vals[100], vec[50];
    for (int i = 0; i < 100; i++)
        inds[i] = (i * 7) % 50, vals[i] = 1.0f;
    for (int i = 0; i < 50; i++)
        vec[i] = (float)i;
    acc_array in[4] = {vec_i64(segd, 3), vec_i64(inds, 100),
                       vec_f32(vals, 100), vec_f32(vec, 50)};
    run_on_device("smvm", 4, in, 1);
    expect_sequence_text("accel_fold_seg_warp accel_fold_seg_tail");
    expect_launch("accel_fold_seg_warp", 1, 1, 96);
    expect_launch("accel_fold_seg_tail", 1, 1, 64); /* 40 elements */
    expect_args("accel_fold_seg_tail", 0, 3, 100, 60);
    cr_expect_eq(count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot, once");
    in[0] = vec_i64(full, 3); /* the segments cover the row: no tail */
    run_on_device("smvm", 4, in, 1);
    expect_sequence_text("accel_fold_seg_warp");
    in[0] = vec_i64(segd, 0); /* no segment, no result: the tail alone */
    run_on_device("smvm", 4, in, 1);
    expect_sequence_text("accel_fold_seg_tail");
    expect_args("accel_fold_seg_tail", 0, 0, 100, 0);
}

/* `entry` fails on the CUDA backend with the interpreter's own status and
 * message, after `launches` launches. */
static void expect_interpreters_error(const char *entry, size_t n_in,
                                      const acc_array *in, size_t n_out,
                                      size_t launches)
{
    acc_status st;
    char message[1024];
    acc_array out[2];
    acc_context *ref = context(ACC_BACKEND_INTERP, 0, &st);
    acc_program *q = compile_scan(ref, entry);
    acc_status want = ts_run_program(q, n_in, in, n_out, out);
    cr_assert_neq(want, ACC_OK, "%s: the interpreter refuses it", entry);
    snprintf(message, sizeof message, "%s", acc_last_error());
    acc_program_free(q);
    acc_context_destroy(ref);
    acc_context *ctx = cuda_context();
    acc_program *p = compile_scan(ctx, entry);
    fake.clear_events();
    cr_expect_eq(ts_run_program(p, n_in, in, n_out, out), want, "%s", entry);
    cr_expect_str_eq(acc_last_error(), message);
    cr_expect_null(out[0].data[0]);
    cr_expect_eq(count(FAKE_LAUNCH, 0), launches, "%s", entry);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* Descriptors the interpreter refuses are refused on the host, before any
 * launch, and reported with the interpreter's message. */
Test(cuda_runtime_fake, bad_segment_descriptors_have_the_interpreters_message)
{
    float m[2 * 5] = {0};
    int64_t xs[5] = {1, 2, 3, 4, 5}, negative[2] = {2, -1}, past[2] = {3, 3};
    int64_t decreasing[3] = {0, 3, 2}, late[2] = {1, 5};
    int32_t ys[3] = {1, 2, 3};
    int64_t empty_seg[3] = {2, 0, 1};
    float fs[5] = {0};
    acc_array in[2] = {mat_f32(m, 2, 5), vec_i64(negative, 2)};
    expect_interpreters_error("segSums", 2, in, 1, 0);
    in[1] = vec_i64(past, 2);
    expect_interpreters_error("segSums", 2, in, 1, 0);
    in[0] = vec_i64(xs, 5);
    in[1] = vec_i64(decreasing, 3);
    expect_interpreters_error("offsetSums", 2, in, 1, 0);
    in[1] = vec_i64(late, 2);
    expect_interpreters_error("offsetSums", 2, in, 1, 0);
    in[1] = vec_i64(late, 0); /* no offsets at all */
    expect_interpreters_error("offsetSums", 2, in, 1, 0);
    int64_t three = 3;
    in[0] = ts_host(ACC_I32, 1, &three, ys);
    in[1] = vec_i64(empty_seg, 3); /* an empty fold1Seg segment */
    expect_interpreters_error("segMaxes", 2, in, 1, 0);
    in[0] = vec_f32(fs, 5);
    in[1] = vec_i64(negative, 2);
    expect_interpreters_error("segScans", 2, in, 1, 0);
    in[1] = vec_i64(past, 2);
    expect_interpreters_error("segScans", 2, in, 1, 0);
}

/* Many short rows: a warp per row; one long row: the three passes, with
 * partials of the run's memory (a second run allocates nothing). */
Test(cuda_runtime_fake, scan_launches_by_rows_and_row_length)
{
    static float big[1 << 20];
    acc_array in = mat_f32(big, 1000, 8);
    run_on_device("rowScans", 1, &in, 1);
    expect_sequence_text("accel_scan_rows");
    expect_launch("accel_scan_rows", 125, 1, 256); /* 1000 warps */
    expect_args("accel_scan_rows", 0, 1000 * 9, 8, -1);

    in = mat_f32(big, 1, 1 << 20); /* 128 parts of 8192 (4 tiles) */
    acc_context *ctx = cuda_context();
    acc_program *p = compile_scan(ctx, "rowScans");
    acc_array out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    acc_array_release(&out);
    expect_sequence_text("accel_scan_part accel_scan_finish accel_scan_block");
    expect_launch("accel_scan_part", 128, 1, 256);
    expect_launch("accel_scan_finish", 1, 1, 32);
    expect_launch("accel_scan_block", 128, 1, 256);
    expect_args("accel_scan_finish", 0, (1 << 20) + 1, 1 << 20, 128);
    cr_expect_eq(count(FAKE_ALLOC, 0), 5, "the input, the result, the "
                 "argument block and the partials (values and flags)");
    long allocs = counters().allocs;
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK);
    acc_array_release(&out);
    cr_expect_eq(counters().allocs, allocs, "the partials went back to the "
                 "pool with the rest");
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* (-) is not associative: a scan by it is applied in order, a thread per
 * row or per segment, however long they are. */
Test(cuda_runtime_fake, scans_by_a_combiner_that_may_not_be_regrouped)
{
    static int64_t m[1 << 20];
    int64_t thousands[10];
    for (int i = 0; i < 10; i++)
        thousands[i] = 1000;
    int64_t ext[2] = {1, 1 << 20};
    acc_array in = ts_host(ACC_I64, 2, ext, m);
    run_on_device("rowDiffs", 1, &in, 1); /* one long row: one thread */
    expect_sequence_text("accel_scan_thread");
    expect_launch("accel_scan_thread", 1, 1, 32);
    expect_args("accel_scan_thread", 0, (1 << 20) + 1, 1 << 20, -1);
    ext[0] = 1000, ext[1] = 8;
    in = ts_host(ACC_I64, 2, ext, m);
    run_on_device("rowDiffs", 1, &in, 1); /* 1000 rows: 1000 threads */
    expect_launch("accel_scan_thread", 4, 1, 256);
    acc_array seg[2] = {vec_i64(m, 10000), vec_i64(thousands, 10)};
    run_on_device("segDiffs", 2, seg, 1); /* long segments, a thread each */
    expect_sequence_text("accel_scan_seg_thread");
    expect_launch("accel_scan_seg_thread", 1, 1, 32);
}

static void warp_blocks(fake_config *c) { c->occupancy_block = 32; }

/* Long rows go by rows once they fill the device with warps (occupancy:
 * 264 blocks of 32 threads, so 264 warps; tiles of 32 x 8 f32). */
Test(cuda_runtime_fake, scan_rows_that_fill_the_device_go_by_rows)
{
    static float m[264 * 2048];
    configure(warp_blocks);
    acc_array in = mat_f32(m, 264, 2048);
    run_on_device("rowScans", 1, &in, 1);
    expect_sequence_text("accel_scan_rows");
    expect_launch("accel_scan_rows", 264, 1, 32);
    in = mat_f32(m, 263, 2048); /* one row fewer: 2 parts of 4 tiles */
    run_on_device("rowScans", 1, &in, 1);
    expect_sequence_text("accel_scan_part accel_scan_finish accel_scan_block");
    expect_launch("accel_scan_part", 2, 263, 32);
    expect_launch("accel_scan_finish", 9, 1, 32);
    expect_args("accel_scan_finish", 0, 263 * 2049, 2048, 2);
    expect_launch("accel_scan_block", 2, 263, 32);
}

/* A primed scan writes its two results in one launch; both come back. */
Test(cuda_runtime_fake, primed_scan_writes_both_results)
{
    static int64_t m[64 * 100];
    int64_t ext[2] = {64, 100};
    acc_array in = ts_host(ACC_I64, 2, ext, m);
    run_on_device("rowTotals", 1, &in, 2);
    expect_sequence_text("accel_scan_rows");
    expect_launch("accel_scan_rows", 8, 1, 256);
    cr_expect_eq(count(FAKE_DTOH, sizeof m), 1, "the scan");
    cr_expect_eq(count(FAKE_DTOH, 64 * sizeof(int64_t)), 1, "the totals");
    cr_expect_eq(count(FAKE_DTOH, 0), 2, "no error slot: no checks");
    int64_t xs[100] = {0}, seg[2] = {30, 70};
    acc_array two[2] = {vec_i64(xs, 100), vec_i64(seg, 2)};
    run_on_device("segTotals", 2, two, 2);
    expect_sequence_text("accel_scan_seg_warp");
    expect_args("accel_scan_seg_warp", 0, 100, 100, -1);
    cr_expect_eq(count(FAKE_DTOH, 2 * sizeof(int64_t)), 1, "the totals");
}

/* Results without elements launch nothing; scanl of empty rows still
 * writes their seeds; scanl1 of empty rows is the interpreter's error. */
Test(cuda_runtime_fake, empty_scans)
{
    float none[1] = {0};
    acc_array in = mat_f32(none, 3, 0);
    run_on_device("exclusive", 1, &in, 1);
    cr_expect_eq(count(FAKE_LAUNCH, 0), 0);
    run_on_device("rowScans", 1, &in, 1);
    expect_launch("accel_scan_rows", 1, 1, 96);
    expect_args("accel_scan_rows", 0, 3, 0, -1);
    in = mat_f32(none, 0, 5);
    run_on_device("rowScans", 1, &in, 1);
    cr_expect_eq(count(FAKE_LAUNCH, 0), 0);
    in = mat_f32(none, 3, 0);
    expect_interpreters_error("inclusive", 1, &in, 1, 0);
    int64_t no_seg[1] = {0};
    int32_t no_xs[1] = {0};
    int64_t zero = 0;
    acc_array seg[2] = {ts_host(ACC_I32, 1, &zero, no_xs), vec_i64(no_seg, 0)};
    run_on_device("segQuotients", 2, seg, 1); /* nothing, not even a tail */
    cr_expect_eq(count(FAKE_LAUNCH, 0), 0);
    float fs[1] = {0};
    int64_t two_empty[2] = {0, 0};
    acc_array seeds[2] = {vec_f32(fs, 0), vec_i64(two_empty, 2)};
    run_on_device("segScans", 2, seeds, 1); /* two seeds to write */
    expect_args("accel_scan_seg_thread", 0, 2, 0, -1);
}

/* Segmented scans: a thread or a warp per (row, segment) pair by the
 * average length; an embedded producer adds each row's tail as a pair. */
Test(cuda_runtime_fake, segmented_scan_launches)
{
    static float xs[10000];
    static int64_t tens[1000], thousands[10];
    for (int i = 0; i < 1000; i++)
        tens[i] = 10, thousands[i % 10] = 1000;
    acc_array in[2] = {vec_f32(xs, 10000), vec_i64(tens, 1000)};
    run_on_device("segScans", 2, in, 1);
    expect_sequence_text("accel_scan_seg_thread");
    expect_launch("accel_scan_seg_thread", 4, 1, 256); /* 1000 pairs */
    expect_args("accel_scan_seg_thread", 0, 10000 + 1000, 10000, -1);
    in[1] = vec_i64(thousands, 10);
    run_on_device("segScans", 2, in, 1);
    expect_sequence_text("accel_scan_seg_warp");
    expect_launch("accel_scan_seg_warp", 2, 1, 256); /* 10 warps */
    int32_t q[1000];
    int64_t n = 1000, seg[2] = {100, 200};
    for (int i = 0; i < 1000; i++)
        q[i] = i + 1;
    acc_array emb[2] = {ts_host(ACC_I32, 1, &n, q), vec_i64(seg, 2)};
    run_on_device("segQuotients", 2, emb, 1); /* 2 segments and the tail */
    expect_sequence_text("accel_scan_seg_warp");
    expect_launch("accel_scan_seg_warp", 1, 1, 96);
    cr_expect_eq(count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot, once");
}

/* The kernel reports a division by zero in the producer's tail (the fake
 * writes the slot as the kernel would): the interpreter reports it. */
Test(cuda_runtime_fake, segmented_scan_error_has_the_interpreters_message)
{
    int32_t q[1000];
    int64_t n = 1000, seg[2] = {100, 200};
    for (int i = 0; i < 1000; i++)
        q[i] = i == 500 ? 0 : i + 1;
    acc_array in[2] = {ts_host(ACC_I32, 1, &n, q), vec_i64(seg, 2)};
    configure(fail_next_launch);
    expect_interpreters_error("segQuotients", 2, in, 1, 1);
    cr_expect_str_eq(acc_last_error(), "quot: division by zero");
    cr_expect_eq(count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot was read");
}

#endif /* ACC_FAKE_DRIVER */
