/*
 * test_cuda_device.c — the CUDA backend on a real device, against the
 * reference interpreter: device-pointer inputs and outputs, a caller's
 * stream with an asynchronous run, the two fold launch shapes, the error
 * slot, running out of device memory; stencils (the blur, every boundary,
 * width 9, rank 3, stencil2, tuples, producer errors: bit for bit) and
 * maps over host arrays.  Part of the device suite (ctest
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

/* Leaf l of outputs a (CUDA) and b (interpreter): equal byte for byte, or
 * within rel for floats. */
static void same_leaf(const char *entry, const acc_array *a,
                      const acc_array *b, size_t l, double rel)
{
    int64_t n = acc_array_size(a);
    acc_scalar s = acc_type_leaf(a->type, l);
    size_t w = acc_scalar_size(s);
    for (int64_t i = 0; i < n; i++) {
        const char *x = (const char *)a->data[l] + i * w;
        const char *y = (const char *)b->data[l] + i * w;
        if (s == ACC_F32 || s == ACC_F64) {
            double u = s == ACC_F32 ? *(const float *)x : *(const double *)x;
            double v = s == ACC_F32 ? *(const float *)y : *(const double *)y;
            cr_expect_leq(fabs(u - v), rel * fabs(v) + 1e-30,
                          "%s[%lld].%zu: %g vs %g", entry, (long long)i, l, u,
                          v);
        } else {
            cr_expect(memcmp(x, y, w) == 0, "%s[%lld].%zu differs", entry,
                      (long long)i, l);
        }
    }
}

/* Both backends on the same host inputs, entry `entry` of text src: the
 * same status, message and shape, and every leaf the same (same_leaf). */
static void same_in(const char *src, const char *entry, size_t n_in,
                    const acc_array *in, double rel)
{
    acc_context *dev = cuda(), *ref = reference();
    acc_program *p = compile_from(dev, src, entry);
    acc_program *q = compile_from(ref, src, entry);
    acc_array a, b;
    char message[512];
    acc_status sa = ts_run_program(p, n_in, in, 1, &a);
    snprintf(message, sizeof message, "%s", acc_last_error());
    acc_status sb = ts_run_program(q, n_in, in, 1, &b);
    cr_assert_eq(sa, sb, "%s: cuda %s, interpreter %s (%s)", entry,
                 acc_status_string(sa), acc_status_string(sb), message);
    if (sa != ACC_OK)
        cr_expect_str_eq(message, acc_last_error(), "%s", entry);
    if (sa == ACC_OK) {
        cr_assert_eq(acc_array_size(&a), acc_array_size(&b), "%s", entry);
        cr_assert_eq(a.rank, b.rank);
        for (int32_t k = 0; k < a.rank; k++)
            cr_expect_eq(a.extents[k], b.extents[k], "%s", entry);
        for (size_t l = 0; l < acc_type_leaf_count(a.type); l++)
            same_leaf(entry, &a, &b, l, rel);
        acc_array_release(&a);
        acc_array_release(&b);
    }
    acc_program_free(p);
    acc_program_free(q);
    acc_context_destroy(dev);
    acc_context_destroy(ref);
}

static void same_as_interpreter(const char *entry, size_t n_in,
                                const acc_array *in, double rel)
{
    same_in(programs, entry, n_in, in, rel);
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
    int64_t shapes[3][2] = {{300000, 10}, {3, 1000000}, {1, 0}};
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
    int64_t n = N;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
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
    int64_t n = (int64_t)1 << 28; /* 2 GiB of f64 */
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
    same_in(strcmp(entry, "blur") == 0 ? ts_language4_source()
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
        acc_array in = ts_host(ACC_F32, 2, image_sizes[k], img);
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
            acc_array in = ts_host(ACC_F64, 2, image_sizes[k], xs);
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
    static const int64_t lines[3] = {100003, 5, 1};
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
    acc_array in = ts_host(ACC_F32, 2, image_sizes[0], img);
    identical_to_interpreter("mapOverStencil", 1, &in);
    int64_t len = 1000 * 776, rows = 1000 * 388;
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
    int64_t n = N, ks[3] = {10, 3000, 100000};
    for (int i = 0; i < 3; i++) {
        acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &ks[i]),
                           ts_host(ACC_I32, 1, &n, x)};
        same_in(ts_permute_source(), "histogram", 2, in, 0);
        same_in(ts_permute_source(), "xorBits", 2, in, 0);
        in[1] = ts_host(ACC_I64, 1, &n, v);
        same_in(ts_permute_source(), "histo64", 2, in, 0);
        in[1] = ts_host(ACC_U32, 1, &n, u);
        same_in(ts_permute_source(), "andBits", 2, in, 0);
        in[1] = ts_host(ACC_U64, 1, &n, w);
        same_in(ts_permute_source(), "orBits", 2, in, 0);
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
    same_in(ts_permute_source(), "sumF32", 2, in, 1e-4);
    in[1] = ts_host(ACC_F64, 1, &n, d);
    same_in(ts_permute_source(), "maxF64", 2, in, 0);
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
    same_in(ts_permute_source(), "tupleTarget", 2, in, 0);
    in[1] = ts_host(ACC_I8, 1, &n, c);
    same_in(ts_permute_source(), "sumI8", 2, in, 0);
    in[1] = ts_host(ACC_BOOL, 1, &n, t);
    same_in(ts_permute_source(), "anyBool", 2, in, 0);
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
    same_in(ts_permute_source(), "ignoring", 1, &in, 0);
    same_in(ts_permute_source(), "pairs", 1, &in, 0);
    acc_array dv[2] = {ts_host(ACC_I64, 2, dext, d), ts_host(ACC_I64, 1, &n, v)};
    same_in(ts_permute_source(), "toMatrix", 2, dv, 0);
    in = ts_host(ACC_I64, 2, mext, v);
    same_in(ts_permute_source(), "fromMatrix", 1, &in, 0);
    in = ts_host(ACC_I64, 1, &n, v);
    same_in(ts_permute_source(), "toScalar", 1, &in, 0);
    in = ts_host(ACC_I64, 1, &none, v);
    same_in(ts_permute_source(), "toScalar", 1, &in, 0);
    for (int i = 0; i < N; i++)
        x[i] = i % 50;
    acc_array two[2] = {ts_host(ACC_I64, 0, NULL, &k),
                        ts_host(ACC_I32, 1, &n, x)};
    same_in(ts_permute_source(), "emptyBins", 2, two, 0);
    same_in(ts_permute_source(), "twoMapsAfter", 2, two, 0);
}

/* The sieve of LANGUAGE.md §3.6 (irregular sizes: blocks over results),
 * and permute' over an expand of small sizes (a thread a source) into a
 * tuple target under locks. */
Test(cuda_device, sieve_and_pairs_over_expand)
{
    static int64_t ps[1000], xs[30000];
    int64_t np = 0, n = 2000000;
    for (int64_t c = 2; np < 1000; c++) {
        int prime = 1;
        for (int64_t j = 0; j < np && ps[j] * ps[j] <= c; j++)
            prime &= c % ps[j] != 0;
        if (prime)
            ps[np++] = c;
    }
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)};
    same_in(ts_sieve_source(), "sieveMarks", 2, in, 0);
    int64_t m = 30000;
    for (int64_t i = 0; i < m; i++)
        xs[i] = (i * 13) % 101;
    acc_array x = ts_host(ACC_I64, 1, &m, xs);
    same_in(ts_permute_source(), "tupleSieve", 1, &x, 0);
    same_in(ts_permute_source(), "mappedSieve", 2, in, 0);
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
    same_in(ts_permute_source(), "spread", 1, &in, 0);
    same_in(ts_permute_source(), "spreadMapped", 1, &in, 0);
    memset(x, 0, sizeof x);
    x[N / 2] = 5000000;
    same_in(ts_permute_source(), "spread", 1, &in, 0);
    x[N / 2] = 0;
    same_in(ts_permute_source(), "spread", 1, &in, 0);
    in = ts_host(ACC_I64, 1, &none, x);
    same_in(ts_permute_source(), "spread", 1, &in, 0);
}

/* Errors reported through the error slot: the interpreter's message. */
Test(cuda_device, out_of_range_and_negative_sizes)
{
    int32_t xs[20] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                      3, 2, 1, 0, -1, 4, 3, 2, 1, 0};
    int64_t n = 20, k = 10, sizes[4] = {3, 2, -3, 1}, four = 4;
    acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &k),
                       ts_host(ACC_I32, 1, &n, xs)};
    same_in(ts_permute_source(), "histogram", 2, in, 0);
    cr_expect(strstr(acc_last_error(), "source element [14] has target "
                     "index [-1]"), "%s", acc_last_error());
    acc_array s = ts_host(ACC_I64, 1, &four, sizes);
    same_in(ts_permute_source(), "spread", 1, &s, 0);
    cr_expect(strstr(acc_last_error(), "expand: the size function gives -3 "
                     "for element 2"), "%s", acc_last_error());
}
