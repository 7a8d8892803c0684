/*
 * test_cuda_device.c — the CUDA backend on a real device, against the
 * reference interpreter: device-pointer inputs and outputs, a caller's
 * stream with an asynchronous run, the two fold launch shapes, SMVM and
 * the segmented folds, every scan and segmented scan kind on short and
 * long rows and segments, the error slot, running out of device memory;
 * stencils (the blur, every boundary, width 9, rank 3, stencil2, tuples,
 * producer errors: bit for bit) and maps over host arrays; permute,
 * permute' over expand and expand.  Part of the device suite (ctest
 * label gpu, make test-gpu): it is registered only with
 * -DACC_GPU_TESTS=ON, runs with ACC_TEST_BACKEND=cuda, and where no GPU
 * can be used the whole executable is skipped with one line saying why
 * (tests/support/support.c), never reported as passed.
 *
 * Public API only, plus the driver's own cuStreamCreate (dlopen of
 * libcuda.so.1) to make a stream as a caller's CUDA code would.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"
#include "text_sources.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char programs[] =
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n"
    "\n"
    "scaled (xs : Vector f32) : Vector f32 =\n"
    "  map (\\x -> x * 2.0) xs\n"
    "\n"
    "rowSums (m : Matrix i64) : Vector i64 =\n"
    "  fold (+) 7 m\n"
    "\n"
    "rowMins (m : Matrix i32) : Vector i32 =\n"
    "  fold1 min m\n"
    "\n"
    "indexed (n : i64) : Matrix i64 =\n"
    "  generate [n, 3] (\\[i, j] -> i * 10 + j)\n"
    "\n"
    "quotients (xs : Vector i32) (ys : Vector i32) : Vector i32 =\n"
    "  zipWith quot xs ys\n"
    "\n"
    "big (n : i64) : Vector f64 =\n"
    "  generate [n] (\\[i] -> f64 i)\n";

/* How much smaller the problems are on the emulated device: 16, and 64
 * under AddressSanitizer, where the reference interpreter (instrumented)
 * takes most of the time (docs/CUDA.md, "The emulated device": budget). */
#if defined(__SANITIZE_ADDRESS__)
#define EMU_SCALE 64
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_SCALE 64
#endif
#endif
#ifndef EMU_SCALE
#define EMU_SCALE 16
#endif

/* A problem size: n on a GPU, n / EMU_SCALE (at least 1000, at most n) on
 * the emulated device (ACC_EMU_DEVICE set: docs/CUDA.md, "The emulated
 * device"), where every thread runs on one CPU core and the reference
 * interpreter too; the launch paths these sizes choose on a GPU are each
 * taken on the emulator by tests/cuda/emu/test_emu_paths.c. */
static int64_t emu_scaled(int64_t n)
{
    const char *e = getenv("ACC_EMU_DEVICE");
    int64_t m = n / EMU_SCALE < 1000 ? 1000 : n / EMU_SCALE;
    return e && *e && m < n ? m : n;
}

/* gpu on a GPU, emu on the emulated device. */
static int64_t on_emu(int64_t gpu, int64_t emu)
{
    const char *e = getenv("ACC_EMU_DEVICE");
    return e && *e ? emu : gpu;
}

static acc_program *compile_from(acc_context *ctx, const char *src,
                                 const char *entry)
{
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, entry, &p);
    cr_assert_eq(st, ACC_OK, "%s: %s", entry, acc_last_error());
    return p;
}

static acc_program *compile(acc_context *ctx, const char *entry)
{
    return compile_from(ctx, programs, entry);
}

/* ts_context asks for the interpreter; ACC_TEST_BACKEND=cuda makes it
 * CUDA.  The reference is an interpreter context made explicitly. */
static acc_context *cuda(void)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_backend b = ACC_BACKEND_INTERP;
    acc_context_backend(ctx, &b);
    cr_assert_eq(b, ACC_BACKEND_CUDA, "run with ACC_TEST_BACKEND=cuda");
    return ctx;
}

static acc_context *reference(void)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK);
    return ctx;
}

static acc_array device_output(void)
{
    acc_array out = ts_empty_output();
    out.memory = ACC_MEMORY_CUDA_DEVICE;
    return out;
}

/* Both backends run `entry` of `src` on the same host inputs: the same
 * status (and message), and the same outputs: integers bit for bit,
 * floats within relative error rel (ts_expect_same_outputs; rel 0:
 * exactly). */
static void matches_interpreter(const char *src, const char *entry,
                                size_t n_in, const acc_array *in, double rel)
{
    enum { MAX_OUT = 2 };
    char message[1024];
    acc_context *dev = cuda(), *ref = reference();
    acc_program *p = compile_from(dev, src, entry);
    acc_program *q = compile_from(ref, src, entry);
    size_t n = acc_program_num_outputs(q);
    acc_array a[MAX_OUT], b[MAX_OUT];
    cr_assert_leq(n, MAX_OUT);
    acc_status sb = ts_run_program(q, n_in, in, n, b);
    snprintf(message, sizeof message, "%s", acc_last_error());
    acc_status sa = ts_run_program(p, n_in, in, n, a);
    cr_assert_eq(sa, sb, "%s: cuda %s (%s), interpreter %s (%s)", entry,
                 acc_status_string(sa), acc_last_error(),
                 acc_status_string(sb), message);
    if (sa != ACC_OK)
        cr_expect_str_eq(acc_last_error(), message, "%s", entry);
    else
        ts_expect_same_outputs(a, b, n, 0, rel);
    for (size_t i = 0; sa == ACC_OK && i < n; i++) {
        acc_array_release(&a[i]);
        acc_array_release(&b[i]);
    }
    acc_program_free(p);
    acc_program_free(q);
    acc_context_destroy(dev);
    acc_context_destroy(ref);
}

static void same_as_interpreter(const char *entry, size_t n_in,
                                const acc_array *in, double rel)
{
    matches_interpreter(programs, entry, n_in, in, rel);
}

Test(cuda_device, dot_product)
{
    enum { N = 100000 };
    static float xs[N], ys[N];
    for (int i = 0; i < N; i++)
        xs[i] = (float)(i % 17) * 0.25f, ys[i] = (float)(i % 5) - 2.0f;
    int64_t n = N;
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, xs), ts_host(ACC_F32, 1, &n, ys)};
    same_as_interpreter("dotp", 2, in, 1e-5);
}

/* Short rows (one block per row) and long rows (parts, then finish). */
Test(cuda_device, fold_short_and_long_rows)
{
    static int64_t m[3 * 1000000];
    for (int64_t i = 0; i < 3 * 1000000; i++)
        m[i] = (i * 7919) % 1000 - 500;
    int64_t shapes[3][2] = {{emu_scaled(300000), 10},
                            {3, emu_scaled(1000000)}, {1, 0}};
    for (int k = 0; k < 3; k++) {
        acc_array in = ts_host(ACC_I64, 2, shapes[k], m);
        same_as_interpreter("rowSums", 1, &in, 0);
    }
}

Test(cuda_device, fold1_and_generate_with_index)
{
    static int32_t m[4000];
    for (int i = 0; i < 4000; i++)
        m[i] = (i * 31) % 97 - 40;
    int64_t ext[2] = {40, 100}, n = 12345;
    acc_array in = ts_host(ACC_I32, 2, ext, m);
    same_as_interpreter("rowMins", 1, &in, 0);
    acc_array k = ts_host(ACC_I64, 0, NULL, &n);
    same_as_interpreter("indexed", 1, &k, 0);
}

/* A division by zero in a kernel: the interpreter's status and message. */
Test(cuda_device, runtime_error_has_the_interpreters_message)
{
    int32_t xs[5] = {9, 8, 7, 6, 5}, ys[5] = {1, 2, 0, 3, 4};
    int64_t n = 5;
    acc_array in[2] = {ts_host(ACC_I32, 1, &n, xs), ts_host(ACC_I32, 1, &n, ys)};
    acc_context *ctx = cuda();
    acc_program *p = compile(ctx, "quotients");
    acc_array out;
    cr_expect_eq(ts_run_program(p, 2, in, 1, &out), ACC_ERR_RUNTIME);
    cr_expect_str_eq(acc_last_error(), "quot: division by zero");
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* Device outputs feed device inputs; a caller's device buffer is written;
 * the value read back equals the interpreter's. */
Test(cuda_device, device_pointer_inputs_and_outputs)
{
    enum { N = 4096 };
    static float xs[N];
    for (int i = 0; i < N; i++)
        xs[i] = (float)i / 64.0f;
    int64_t n = N;
    acc_context *ctx = cuda();
    acc_program *scale = compile(ctx, "scaled"), *dot = compile(ctx, "dotp");
    acc_array in = ts_host(ACC_F32, 1, &n, xs), d1 = device_output();
    cr_assert_eq(acc_run(scale, 1, &in, 1, &d1), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(d1.memory, ACC_MEMORY_CUDA_DEVICE);
    acc_array d2;
    acc_array_init(&d2, acc_type_scalar(ACC_F32), 1, &n);
    d2.memory = ACC_MEMORY_CUDA_DEVICE;
    acc_array d2_owner = device_output();
    cr_assert_eq(acc_run(scale, 1, &in, 1, &d2_owner), ACC_OK);
    d2.data[0] = d2_owner.data[0];
    cr_assert_eq(acc_run(scale, 1, &in, 1, &d2), ACC_OK, "%s",
                 acc_last_error());
    acc_array both[2] = {d1, d2}, out;
    cr_assert_eq(ts_run_program(dot, 2, both, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    double want = 0;
    for (int i = 0; i < N; i++)
        want += 4.0 * (double)xs[i] * (double)xs[i];
    double got = *(float *)out.data[0];
    cr_expect_leq(fabs(got - want), 1e-5 * want, "%g vs %g", got, want);
    acc_array_release(&out);
    acc_array_release(&d1);
    acc_array_release(&d2_owner);
    acc_program_free(dot);
    acc_program_free(scale);
    acc_context_destroy(ctx);
}

/* The driver's stream functions, as a caller's own CUDA code has them. */
typedef int (*init_fn)(unsigned);
typedef int (*device_get_fn)(int *, int);
typedef int (*retain_fn)(void **, int);
typedef int (*push_fn)(void *);
typedef int (*pop_fn)(void **);
typedef int (*release_fn)(int);
typedef int (*stream_create_fn)(void **, unsigned);
typedef int (*stream_destroy_fn)(void *);

static void *driver_fn(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    cr_assert_not_null(p, "libcuda.so.1 lacks %s", name);
    return p;
}

Test(cuda_device, callers_stream_and_asynchronous_run)
{
    enum { N = 1 << 20 };
    static float xs[N], ys[N];
    for (int i = 0; i < N; i++)
        xs[i] = 1.0f / (float)(1 + i % 100), ys[i] = (float)(i % 3);
    int64_t n = emu_scaled(N);
    /* the driver the library loads (ACC_CUDA_DRIVER: the emulated device) */
    const char *driver = getenv("ACC_CUDA_DRIVER");
    void *lib = dlopen(driver && *driver ? driver : "libcuda.so.1",
                       RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib);
    void *f;
    init_fn init; device_get_fn get; retain_fn retain; push_fn push;
    pop_fn pop; release_fn release; stream_create_fn create;
    stream_destroy_fn destroy;
    f = driver_fn(lib, "cuInit"); memcpy(&init, &f, sizeof f);
    f = driver_fn(lib, "cuDeviceGet"); memcpy(&get, &f, sizeof f);
    f = driver_fn(lib, "cuDevicePrimaryCtxRetain"); memcpy(&retain, &f, sizeof f);
    f = driver_fn(lib, "cuCtxPushCurrent_v2"); memcpy(&push, &f, sizeof f);
    f = driver_fn(lib, "cuCtxPopCurrent_v2"); memcpy(&pop, &f, sizeof f);
    f = driver_fn(lib, "cuDevicePrimaryCtxRelease_v2"); memcpy(&release, &f, sizeof f);
    f = driver_fn(lib, "cuStreamCreate"); memcpy(&create, &f, sizeof f);
    f = driver_fn(lib, "cuStreamDestroy_v2"); memcpy(&destroy, &f, sizeof f);
    int dev = 0;
    void *cu_ctx = NULL, *stream = NULL;
    cr_assert_eq(init(0), 0);
    cr_assert_eq(get(&dev, 0), 0);
    cr_assert_eq(retain(&cu_ctx, dev), 0);
    cr_assert_eq(push(cu_ctx), 0);
    cr_assert_eq(create(&stream, 1), 0);

    acc_context *ctx = cuda(), *ref = reference();
    acc_program *p = compile(ctx, "dotp"), *q = compile(ref, "dotp");
    acc_exec_options o;
    acc_exec *x = NULL;
    acc_exec_options_init(&o);
    o.stream = stream;
    o.async = 1;
    cr_assert_eq(acc_exec_create(ctx, &o, &x), ACC_OK);
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, xs), ts_host(ACC_F32, 1, &n, ys)};
    acc_array out = ts_empty_output(), want;
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(acc_exec_wait(x), ACC_OK, "%s", acc_exec_last_error(x));
    cr_assert_eq(ts_run_program(q, 2, in, 1, &want), ACC_OK);
    double a = *(float *)out.data[0], b = *(float *)want.data[0];
    cr_expect_leq(fabs(a - b), 1e-5 * fabs(b), "%g vs %g", a, b);
    acc_array_release(&out);
    acc_array_release(&want);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_program_free(q);
    acc_context_destroy(ctx);
    acc_context_destroy(ref);
    cr_expect_eq(destroy(stream), 0);
    cr_expect_eq(pop(NULL), 0);
    cr_expect_eq(release(dev), 0);
}

/* Library-owned device outputs are kept until the device is full: the
 * run that does not fit fails with ACC_ERR_OUT_OF_DEVICE_MEMORY naming the
 * driver's error, and once they are released a run succeeds again. */
Test(cuda_device, out_of_device_memory)
{
    enum { MAX = 4096 };
    static acc_array held[MAX];
    /* 2 GiB of f64 (64 MiB on the emulated device, which has 512 MiB or
     * 1 GiB) */
    int64_t n = getenv("ACC_EMU_DEVICE") ? (int64_t)1 << 23 : (int64_t)1 << 28;
    acc_array size = ts_host(ACC_I64, 0, NULL, &n);
    acc_context *ctx = cuda();
    acc_program *p = compile(ctx, "big");
    acc_status st = ACC_OK;
    int k = 0;
    for (; k < MAX; k++) {
        held[k] = device_output();
        st = acc_run(p, 1, &size, 1, &held[k]);
        if (st != ACC_OK)
            break;
    }
    cr_assert_eq(st, ACC_ERR_OUT_OF_DEVICE_MEMORY, "%s", acc_last_error());
    cr_expect(strstr(acc_last_error(), "CUDA_ERROR_OUT_OF_MEMORY"), "%s",
              acc_last_error());
    cr_expect_null(held[k].data[0]);
    for (int i = 0; i < k; i++)
        acc_array_release(&held[i]);
    acc_array again = device_output();
    cr_expect_eq(acc_run(p, 1, &size, 1, &again), ACC_OK, "%s",
                 acc_last_error());
    acc_array_release(&again);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* ---- stencils, and maps over host arrays ---------------------------------------- */

/* Stencils use +, -, * and / only where compared: the interpreter, the
 * CPU backend and (with --fmad=false, IEEE division) the device round the
 * same operations in the same order, so the outputs must be identical bit
 * for bit.  Program `entry` of the CUDA tests' stencil programs, or
 * LANGUAGE.md's blur. */
static void identical_to_interpreter(const char *entry, size_t n_in,
                                     const acc_array *in)
{
    matches_interpreter(strcmp(entry, "blur") == 0 ? ts_language4_source()
                                                   : ts_stencil_source(),
                        entry, n_in, in, 0);
}

/* Sizes with many blocks, one row, and arrays narrower than the window
 * (all border). */
static const int64_t image_sizes[5][2] = {{1000, 777}, {1, 1}, {2, 3},
                                          {3, 5000}, {4000, 2}};

static void fill_f32(float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 37) % 251) * 0.37f - 11.3f;
}

static void fill_f64(double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (double)((i * 7919) % 1009) * 0.173 - 50.1;
}

Test(cuda_device, stencil_blur)
{
    static float img[1000 * 777];
    fill_f32(img, 1000 * 777);
    for (int k = 0; k < 5; k++) {
        int64_t ext[2] = {k == 0 ? on_emu(1000, 100) : image_sizes[k][0],
                          image_sizes[k][1]};
        acc_array in = ts_host(ACC_F32, 2, ext, img);
        identical_to_interpreter("blur", 1, &in);
    }
}

Test(cuda_device, stencil_every_boundary)
{
    static const char *const entries[5] = {"clamped", "mirrored", "wrapped",
                                           "byFunction", "byConstant"};
    static double xs[1000 * 777];
    fill_f64(xs, 1000 * 777);
    for (int b = 0; b < 5; b++)
        for (int k = 0; k < 5; k++) {
            int64_t ext[2] = {k == 0 ? on_emu(1000, 100) : image_sizes[k][0],
                              image_sizes[k][1]};
            acc_array in = ts_host(ACC_F64, 2, ext, xs);
            identical_to_interpreter(entries[b], 1, &in);
        }
}

Test(cuda_device, stencil_width_9_and_rank_3)
{
    static int64_t xs[100003];
    static float cube[40 * 50 * 60];
    for (int64_t i = 0; i < 100003; i++)
        xs[i] = (i * 7919) % 1000 - 300;
    fill_f32(cube, 40 * 50 * 60);
    const int64_t lines[3] = {emu_scaled(100003), 5, 1};
    for (int k = 0; k < 3; k++) {
        acc_array in = ts_host(ACC_I64, 1, &lines[k], xs);
        identical_to_interpreter("line9", 1, &in);
    }
    static const int64_t cubes[3][3] = {{40, 50, 60}, {2, 1, 3}, {1, 70, 2}};
    for (int k = 0; k < 3; k++) {
        acc_array in = ts_host(ACC_F32, 3, cubes[k], cube);
        identical_to_interpreter("cube", 1, &in);
    }
}

/* The result is the intersection of two extents; each side has its own
 * boundary. */
Test(cuda_device, stencil2_intersection_and_two_boundaries)
{
    static float xs[600 * 500];
    static int32_t ys[700 * 400];
    fill_f32(xs, 600 * 500);
    for (int i = 0; i < 700 * 400; i++)
        ys[i] = i % 91 - 45;
    static const int64_t shapes[3][2][2] = {{{600, 500}, {700, 400}},
                                            {{2, 500}, {700, 1}},
                                            {{600, 3}, {4, 400}}};
    for (int k = 0; k < 3; k++) {
        acc_array in[2] = {ts_host(ACC_F32, 2, shapes[k][0], xs),
                           ts_host(ACC_I32, 2, shapes[k][1], ys)};
        identical_to_interpreter("twoBoundaries", 2, in);
        identical_to_interpreter("twoSides", 2, in);
    }
}

Test(cuda_device, stencil_tuple_elements)
{
    enum { N = 50000 };
    static float f[N];
    static int32_t i32[N];
    static uint8_t b[N];
    for (int i = 0; i < N; i++) {
        f[i] = (float)(i % 101) * 0.5f - 20.0f;
        i32[i] = i % 17 - 8;
        b[i] = i % 3 == 0;
    }
    acc_context *types = reference();
    const acc_type *leaves[3] = {acc_type_scalar(ACC_F32),
                                 acc_type_scalar(ACC_I32),
                                 acc_type_scalar(ACC_BOOL)};
    const acc_type *elem = acc_type_tuple(types, 3, leaves);
    void *data[3] = {f, i32, b};
    static const int64_t sizes[3] = {N, 2, 1};
    for (int k = 0; k < 3; k++) {
        acc_array in = ts_host_array(elem, 1, &sizes[k], data);
        identical_to_interpreter("tupleStencil", 1, &in);
    }
    acc_context_destroy(types);
}

/* An embedded producer's runtime error, in an element the stencil reads
 * and in the last one, which it never reads (f takes the left neighbour,
 * clamped): only the check pass computes it.  The interpreter's message
 * either way; no error without a zero. */
Test(cuda_device, stencil_producer_errors)
{
    enum { N = 10000 };
    static int32_t ys[N];
    int64_t n = N;
    static const int zero_at[3] = {-1, 5000, N - 1};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < N; i++)
            ys[i] = i == zero_at[k] ? 0 : 1 + i % 9;
        acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &n),
                           ts_host(ACC_I32, 1, &n, ys)};
        identical_to_interpreter("leftOnly", 2, in);
    }
}

Test(cuda_device, maps_over_host_arrays)
{
    static float img[1000 * 777];
    fill_f32(img, 1000 * 777);
    /* 1000 x 777 on a GPU, 100 x 777 on the emulator */
    int64_t ext[2] = {on_emu(1000, 100), 777};
    acc_array in = ts_host(ACC_F32, 2, ext, img);
    identical_to_interpreter("mapOverStencil", 1, &in);
    int64_t len = ext[0] * 776, rows = ext[0] * 388;
    acc_array two[2] = {ts_host(ACC_F32, 1, &len, img),
                        ts_host(ACC_I64, 0, NULL, &rows)};
    identical_to_interpreter("mapOverReshape", 2, two);
}

/* ---- permute, permute' and expand ----------------------------------------- */

/* n pseudo-random values in [0, m) (a fixed sequence). */
static void fill_i64(int64_t *v, int64_t n, int64_t m)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (int64_t)((s >> 33) % (uint64_t)m);
    }
}

/* Few bins (privatised per block), many bins (global atomics), a target
 * too large for shared memory; i32 and i64 fetch-and-add, u32 and, u64
 * or, i32 xor. */
Test(cuda_device, histograms)
{
    enum { N = 1 << 20 };
    static int64_t v[N];
    static int32_t x[N];
    static uint32_t u[N];
    static uint64_t w[N];
    fill_i64(v, N, 100000);
    for (int64_t i = 0; i < N; i++)
        x[i] = (int32_t)(v[i] % 10), u[i] = (uint32_t)v[i] * 2654435761u,
        w[i] = (uint64_t)v[i] * 0x9e3779b97f4a7c15ull;
    int64_t n = emu_scaled(N), ks[3] = {10, 3000, 100000};
    for (int i = 0; i < 3; i++) {
        acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &ks[i]),
                           ts_host(ACC_I32, 1, &n, x)};
        matches_interpreter(ts_permute_source(), "histogram", 2, in, 0);
        matches_interpreter(ts_permute_source(), "xorBits", 2, in, 0);
        in[1] = ts_host(ACC_I64, 1, &n, v);
        matches_interpreter(ts_permute_source(), "histo64", 2, in, 0);
        in[1] = ts_host(ACC_U32, 1, &n, u);
        matches_interpreter(ts_permute_source(), "andBits", 2, in, 0);
        in[1] = ts_host(ACC_U64, 1, &n, w);
        matches_interpreter(ts_permute_source(), "orBits", 2, in, 0);
    }
}

/* Compare-and-swap loops: f32 (+) (sums regrouped: a tolerance) and a
 * non-primitive max on f64 (exact). */
Test(cuda_device, float_combiners)
{
    enum { N = 200000 };
    static float f[N];
    static double d[N];
    for (int i = 0; i < N; i++)
        f[i] = (float)((i * 37) % 101) * 0.25f, d[i] = sin((double)i) * 1e3;
    int64_t n = N, k = 17;
    acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &k), ts_host(ACC_F32, 1, &n, f)};
    matches_interpreter(ts_permute_source(), "sumF32", 2, in, 1e-4);
    in[1] = ts_host(ACC_F64, 1, &n, d);
    matches_interpreter(ts_permute_source(), "maxF64", 2, in, 0);
}

/* The striped locks: a tuple, an 8-bit leaf, bool; few cells, much
 * contention. */
Test(cuda_device, tuple_narrow_and_bool_targets)
{
    enum { N = 100000 };
    static int32_t a[N];
    static double b[N];
    static int8_t c[N];
    static uint8_t t[N];
    for (int i = 0; i < N; i++)
        a[i] = i % 1000 - 500, b[i] = cos((double)i), c[i] = (int8_t)(i % 7),
        t[i] = i % 9973 == 0;
    int64_t n = N, k = 13;
    void *ab[2] = {a, b};
    const acc_type *f[2] = {acc_type_scalar(ACC_I32), acc_type_scalar(ACC_F64)};
    acc_context *types = reference();
    acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &k),
                       ts_host_array(acc_type_tuple(types, 2, f), 1, &n, ab)};
    matches_interpreter(ts_permute_source(), "tupleTarget", 2, in, 0);
    in[1] = ts_host(ACC_I8, 1, &n, c);
    matches_interpreter(ts_permute_source(), "sumI8", 2, in, 0);
    in[1] = ts_host(ACC_BOOL, 1, &n, t);
    matches_interpreter(ts_permute_source(), "anyBool", 2, in, 0);
    acc_context_destroy(types);
}

/* ignore, permute' of pairs, manifest defaults of a rank-2 target, a
 * matrix source, a Scalar target, an empty source, maps after. */
Test(cuda_device, ignore_ranks_and_maps)
{
    enum { N = 5000 };
    static int32_t x[N];
    static int64_t v[N];
    int64_t d[20], dext[2] = {4, 5}, mext[2] = {50, 100};
    for (int i = 0; i < N; i++)
        x[i] = i * 7 - 300, v[i] = i * i - 50;
    for (int i = 0; i < 20; i++)
        d[i] = 1000 * i;
    int64_t n = N, none = 0, k = 64;
    acc_array in = ts_host(ACC_I32, 1, &n, x);
    matches_interpreter(ts_permute_source(), "ignoring", 1, &in, 0);
    matches_interpreter(ts_permute_source(), "pairs", 1, &in, 0);
    acc_array dv[2] = {ts_host(ACC_I64, 2, dext, d), ts_host(ACC_I64, 1, &n, v)};
    matches_interpreter(ts_permute_source(), "toMatrix", 2, dv, 0);
    in = ts_host(ACC_I64, 2, mext, v);
    matches_interpreter(ts_permute_source(), "fromMatrix", 1, &in, 0);
    in = ts_host(ACC_I64, 1, &n, v);
    matches_interpreter(ts_permute_source(), "toScalar", 1, &in, 0);
    in = ts_host(ACC_I64, 1, &none, v);
    matches_interpreter(ts_permute_source(), "toScalar", 1, &in, 0);
    for (int i = 0; i < N; i++)
        x[i] = i % 50;
    acc_array two[2] = {ts_host(ACC_I64, 0, NULL, &k),
                        ts_host(ACC_I32, 1, &n, x)};
    matches_interpreter(ts_permute_source(), "emptyBins", 2, two, 0);
    matches_interpreter(ts_permute_source(), "twoMapsAfter", 2, two, 0);
}

/* The sieve of LANGUAGE.md §3.6 (irregular sizes: blocks over results),
 * and permute' over an expand of small sizes (a thread a source) into a
 * tuple target under locks. */
Test(cuda_device, sieve_and_pairs_over_expand)
{
    static int64_t ps[1000], xs[30000];
    int64_t np = 0, n = emu_scaled(2000000);
    for (int64_t c = 2; np < 1000; c++) {
        int prime = 1;
        for (int64_t j = 0; j < np && ps[j] * ps[j] <= c; j++)
            prime &= c % ps[j] != 0;
        if (prime)
            ps[np++] = c;
    }
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)};
    matches_interpreter(ts_sieve_source(), "sieveMarks", 2, in, 0);
    int64_t m = 30000;
    for (int64_t i = 0; i < m; i++)
        xs[i] = (i * 13) % 101;
    acc_array x = ts_host(ACC_I64, 1, &m, xs);
    matches_interpreter(ts_permute_source(), "tupleSieve", 1, &x, 0);
    matches_interpreter(ts_permute_source(), "mappedSieve", 2, in, 0);
}

/* Expand: small uniform sizes, one huge size among zeros (blocks), all
 * zeros, an empty source, a map after it. */
Test(cuda_device, expand)
{
    enum { N = 100000 };
    static int64_t x[N];
    int64_t n = N, none = 0;
    for (int i = 0; i < N; i++)
        x[i] = i % 4;
    acc_array in = ts_host(ACC_I64, 1, &n, x);
    matches_interpreter(ts_permute_source(), "spread", 1, &in, 0);
    matches_interpreter(ts_permute_source(), "spreadMapped", 1, &in, 0);
    memset(x, 0, sizeof x);
    x[N / 2] = 5000000;
    matches_interpreter(ts_permute_source(), "spread", 1, &in, 0);
    x[N / 2] = 0;
    matches_interpreter(ts_permute_source(), "spread", 1, &in, 0);
    in = ts_host(ACC_I64, 1, &none, x);
    matches_interpreter(ts_permute_source(), "spread", 1, &in, 0);
}

/* Errors reported through the error slot: the interpreter's message. */
Test(cuda_device, out_of_range_and_negative_sizes)
{
    int32_t xs[20] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                      3, 2, 1, 0, -1, 4, 3, 2, 1, 0};
    int64_t n = 20, k = 10, sizes[4] = {3, 2, -3, 1}, four = 4;
    acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &k),
                       ts_host(ACC_I32, 1, &n, xs)};
    matches_interpreter(ts_permute_source(), "histogram", 2, in, 0);
    cr_expect(strstr(acc_last_error(), "source element [14] has target "
                     "index [-1]"), "%s", acc_last_error());
    acc_array s = ts_host(ACC_I64, 1, &four, sizes);
    matches_interpreter(ts_permute_source(), "spread", 1, &s, 0);
    cr_expect(strstr(acc_last_error(), "expand: the size function gives -3 "
                     "for element 2"), "%s", acc_last_error());
}

/* ---- segmented folds and SMVM ------------------------------------------------- */

/* cat: associative, not commutative (the digits of two numbers written
 * one after the other, modulo a prime), on (digits, 10^count) pairs: any
 * regrouping is exact, any reordering shows. */
static const char seg_programs[] =
    "cat p q = (rem (fst p * snd q + fst q) 1000000007,\n"
    "           rem (snd p * snd q) 1000000007)\n"
    "\n"
    "foldSegCat (xs : Matrix i64) (s : Vector i64) : Matrix (i64, i64) =\n"
    "  foldSeg cat (7, 10) (map (\\x -> (rem (abs x) 10, 10)) xs) s\n"
    "\n"
    "foldSegOffsets (xs : Vector i64) (o : Vector i64) : Vector i64 =\n"
    "  foldSeg' (+) 1 xs o\n"
    "\n"
    "fold1SegMin (xs : Array 3 i32) (s : Vector i64) : Array 3 i32 =\n"
    "  fold1Seg min xs s\n"
    "\n"
    "segQuotients (xs : Vector i32) (s : Vector i64) : Vector i32 =\n"
    "  postscanlSeg (+) 0 (map (\\x -> quot 100 x) xs) s\n";

/* xs[i] = (i * 7919) % 1000 - 300 (as ts_differ_segmented fills it). */
static int64_t *test_values(int64_t n)
{
    int64_t *xs = malloc((size_t)(n ? n : 1) * sizeof *xs);
    cr_assert_not_null(xs);
    for (int64_t i = 0; i < n; i++)
        xs[i] = (i * 7919) % 1000 - 300;
    return xs;
}

/* Segment lengths: short ones (0 to 9, zeros included) or long ones,
 * covering `cover` elements of a row, the rest of the row a tail. */
static int64_t segment_lengths(int64_t *seg, int64_t max, int64_t cover,
                               int long_ones)
{
    int64_t k = 0, sum = 0;
    for (int64_t i = 0; k < max; i++) {
        int64_t len = long_ones ? 5000 + (i * 7919) % 40000 : (i * 7) % 10;
        if (sum + len > cover)
            break;
        seg[k++] = len;
        sum += len;
    }
    return k;
}

static acc_array matrix_i64(int64_t *data, int64_t rows, int64_t cols)
{
    int64_t ext[2] = {rows, cols};
    return ts_host(ACC_I64, 2, ext, data);
}

/* The inputs of a segmented test: an i64 matrix (300 rows of 1000, or 2
 * of 250000: test_values) and the lengths (in seg, 4096 at most) of short
 * segments, zeros included, or long ones, leaving a tail of at least 17
 * elements in every row.  Returns the matrix's data, to be freed. */
static int64_t *segmented_inputs(int long_ones, int64_t *seg, acc_array *in)
{
    int64_t cols = long_ones ? emu_scaled(250000) : 1000;
    /* short segments: 300 rows of 1000 on a GPU and the emulator, 75
     * under AddressSanitizer (EMU_SCALE) */
    int64_t rows = long_ones ? 2 : on_emu(300, 300 * 16 / EMU_SCALE);
    int64_t *xs = test_values(rows * cols);
    int64_t k = segment_lengths(seg, 4096, cols - 17, long_ones);
    in[0] = matrix_i64(xs, rows, cols);
    in[1] = ts_host(ACC_I64, 1, &k, seg);
    return xs;
}

/* foldSeg over an embedded producer, short segments (a thread each) and
 * long ones (a warp each), with a tail past the last segment. */
Test(cuda_device, segmented_folds_short_and_long_segments)
{
    static int64_t seg[4096];
    for (int long_ones = 0; long_ones < 2; long_ones++) {
        acc_array in[2];
        int64_t *xs = segmented_inputs(long_ones, seg, in);
        matches_interpreter(seg_programs, "foldSegCat", 2, in, 0);
        free(xs);
    }
}

Test(cuda_device, segmented_fold_offsets_and_fold1seg)
{
    int64_t *xs = test_values(3 * 4 * 500);
    int64_t n = 500, off[5] = {0, 0, 120, 499, 500};
    int64_t five = 5, lens[4] = {1, 100, 7, 392};
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, xs), ts_host(ACC_I64, 1, &five,
                                                            off)};
    matches_interpreter(seg_programs, "foldSegOffsets", 2, in, 0);
    static int32_t m[3 * 4 * 500];
    for (int i = 0; i < 3 * 4 * 500; i++)
        m[i] = (int32_t)xs[i];
    int64_t ext[3] = {3, 4, 500}, four = 4;
    in[0] = ts_host(ACC_I32, 3, ext, m);
    in[1] = ts_host(ACC_I64, 1, &four, lens);
    matches_interpreter(seg_programs, "fold1SegMin", 2, in, 0);
    free(xs);
}

/* SMVM (LANGUAGE.md §4): short rows, and one long row, each leaving a
 * tail of the producer past the last segment; f32 sums regrouped, so
 * within 1e-5 relative (of the larger magnitude, at least 1). */
Test(cuda_device, smvm_against_the_interpreter)
{
    enum { NNZ = 200000, COLS = 5000 };
    static int64_t segd[2000], inds[NNZ];
    static float vals[NNZ], vec[COLS];
    for (int i = 0; i < NNZ; i++)
        inds[i] = (i * 7919) % COLS, vals[i] = (float)(i % 13) * 0.25f - 1.5f;
    for (int j = 0; j < COLS; j++)
        vec[j] = (float)(j % 17) * 0.5f;
    int64_t rows = 0, sum = 0;
    for (; rows < 2000 && sum + (rows * 37) % 23 <= NNZ - 9; rows++)
        sum += segd[rows] = (rows * 37) % 23;
    int64_t one = 1, long_row = NNZ - 123, nnz = NNZ, cols = COLS;
    acc_array in[4] = {ts_host(ACC_I64, 1, &rows, segd),
                       ts_host(ACC_I64, 1, &nnz, inds),
                       ts_host(ACC_F32, 1, &nnz, vals),
                       ts_host(ACC_F32, 1, &cols, vec)};
    matches_interpreter(ts_language4_source(), "smvm", 4, in, 1e-5);
    in[0] = ts_host(ACC_I64, 1, &one, &long_row);
    matches_interpreter(ts_language4_source(), "smvm", 4, in, 1e-5);
}

/* ---- every scan kind ---------------------------------------------------------- */

static const struct scan_kind {
    const char *name;
    int seeded, primed;
} scan_kinds[10] = {
    {"scanl", 1, 0}, {"scanl'", 1, 1}, {"scanl1", 0, 0}, {"scanr", 1, 0},
    {"scanr'", 1, 1}, {"scanr1", 0, 0}, {"prescanl", 1, 0},
    {"postscanl", 1, 0}, {"prescanr", 1, 0}, {"postscanr", 1, 0}};

/* Entry `name`K of scan kind K, plain or segmented: with cat over the
 * digits of an i64 matrix (an embedded producer; applied in order, a
 * thread per row or segment), or with (+) over the matrix itself (a
 * commutative primitive, so regrouped: warps, the three passes). */
static size_t scan_entry(char *src, size_t size, int k, int seg, int add)
{
    const struct scan_kind *K = &scan_kinds[k];
    const char *e = add ? "i64" : "(i64, i64)";
    char type[96];
    if (K->primed)
        snprintf(type, sizeof type, "(Matrix %s, %s %s)", e,
                 seg ? "Matrix" : "Vector", e);
    else
        snprintf(type, sizeof type, "Matrix %s", e);
    return (size_t)snprintf(src, size,
        "%s%s%d (xs : Matrix i64)%s : %s =\n  %s%s %s %s %s%s\n\n",
        seg ? "seg" : "plain", add ? "Add" : "", k,
        seg ? " (s : Vector i64)" : "", type, K->name, seg ? "Seg" : "",
        add ? "(+)" : "cat", K->seeded ? (add ? "7" : "(7, 10)") : "",
        add ? "xs" : "(map (\\x -> (rem (abs x) 10, 10)) xs)",
        seg ? " s" : "");
}

/* Entries plainK, segK, plainAddK and segAddK for every scan kind K, and
 * two float scans. */
static const char *scan_source(void)
{
    static char src[16384];
    size_t at = (size_t)snprintf(src, sizeof src, "%s",
        "cat p q = (rem (fst p * snd q + fst q) 1000000007,\n"
        "           rem (snd p * snd q) 1000000007)\n\n"
        "plainF64 (xs : Matrix f64) : Matrix f64 = scanl (+) 0.5 xs\n\n"
        "segF32 (xs : Matrix f32) (s : Vector i64) : Matrix f32 =\n"
        "  scanl1Seg (+) xs s\n\n");
    for (int v = 0; v < 4; v++)
        for (int k = 0; k < 10 && at < sizeof src; k++)
            at += scan_entry(src + at, sizeof src - at, k, v & 1, v >> 1);
    cr_assert_lt(at, sizeof src);
    return src;
}

/* Every scan kind, in order (cat) and regrouped ((+)), plain or
 * segmented, against the interpreter on the inputs in. */
static void every_kind(int seg, size_t n_in, const acc_array *in)
{
    const char *src = scan_source();
    for (int add = 0; add < 2; add++)
        for (int k = 0; k < 10; k++) {
            char entry[24];
            snprintf(entry, sizeof entry, "%s%s%d", seg ? "seg" : "plain",
                     add ? "Add" : "", k);
            matches_interpreter(src, entry, n_in, in, 0);
        }
}

/* Many short rows (a warp each when regrouped), a few long ones (the
 * three passes), empty rows. */
Test(cuda_device, every_scan_kind_short_and_long_rows)
{
    static const int64_t shapes[3][2] = {{300, 37}, {2, 300001}, {5, 0}};
    for (int sh = 0; sh < 3; sh++) {
        int64_t rows = shapes[sh][0], cols = emu_scaled(shapes[sh][1]);
        int64_t *xs = test_values(rows * cols);
        acc_array in = matrix_i64(xs, rows, cols);
        every_kind(0, 1, &in);
        free(xs);
    }
}

/* Short segments (a thread each, zeros included) and long ones (a warp
 * each when regrouped), each leaving a tail of the row. */
Test(cuda_device, every_segmented_scan_kind_short_and_long_segments)
{
    static int64_t seg[4096];
    for (int long_ones = 0; long_ones < 2; long_ones++) {
        acc_array in[2];
        int64_t *xs = segmented_inputs(long_ones, seg, in);
        every_kind(1, 2, in);
        free(xs);
    }
}

/* Floats: f64 sums of fractions regrouped by the three passes (within
 * 1e-9 relative), f32 sums of small integers (exact in any order below
 * 2^24). */
Test(cuda_device, float_scans)
{
    static double d[2 * 300001];
    static float f[300 * 1000];
    static int64_t seg[4096];
    for (int i = 0; i < 2 * 300001; i++)
        d[i] = (double)(i % 1000) / 7.0;
    for (int i = 0; i < 300 * 1000; i++)
        f[i] = (float)(i % 16);
    int64_t ext[2] = {2, emu_scaled(300001)}, fext[2] = {300, 1000};
    acc_array in = ts_host(ACC_F64, 2, ext, d);
    matches_interpreter(scan_source(), "plainF64", 1, &in, 1e-9);
    int64_t k = segment_lengths(seg, 4096, 1000, 0);
    acc_array two[2] = {ts_host(ACC_F32, 2, fext, f), ts_host(ACC_I64, 1, &k,
                                                              seg)};
    matches_interpreter(scan_source(), "segF32", 2, two, 0);
}

/* A division by zero in the producer past the last segment: the tail
 * finds it, and the interpreter reports it. */
Test(cuda_device, segmented_scan_error_in_the_tail)
{
    static int32_t q[1000];
    for (int i = 0; i < 1000; i++)
        q[i] = i == 700 ? 0 : i + 1;
    int64_t n = 1000, two = 2, seg[2] = {100, 200};
    acc_array in[2] = {ts_host(ACC_I32, 1, &n, q), ts_host(ACC_I64, 1, &two,
                                                            seg)};
    matches_interpreter(seg_programs, "segQuotients", 2, in, 0);
    acc_context *ctx = cuda();
    acc_program *p = compile_from(ctx, seg_programs, "segQuotients");
    acc_array out;
    cr_expect_eq(ts_run_program(p, 2, in, 1, &out), ACC_ERR_RUNTIME);
    cr_expect_str_eq(acc_last_error(), "quot: division by zero");
    acc_program_free(p);
    acc_context_destroy(ctx);
}
