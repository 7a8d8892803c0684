/*
 * test_emu_device.c — the emulated device itself (tests/cuda/emu/,
 * docs/CUDA.md "The emulated device"), through the driver API as a CUDA
 * program would use it: hand-written kernels built by the test NVRTC and
 * launched on the executing driver, their results computed here on the
 * host.  Thread and block indices on a 2-D grid, barriers and their
 * votes, every warp shuffle (with widths), ballots and votes, atomics
 * (64-bit compare-and-swap included), static shared memory per block; and
 * the misuses a GPU would hang or misbehave on, each failing the launch
 * with a sentence: a barrier some threads never reach, a shuffle naming a
 * lane that has exited.  Also a user kernel (acc_register_kernel) run by
 * a program on the emulated device.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "foreign_support.h"
#include "support.h"
#include "tests/cuda/fake_driver.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ACC_EMU_DRIVER
Test(emu_device, emulator_not_built)
{
    cr_skip_test("the emulated device is built only where cuda.h and a C++ "
                 "compiler are installed (cmake/AccelCuda.cmake)");
}
#else

typedef unsigned long long dptr;
typedef int (*init_fn)(unsigned);
typedef int (*retain_fn)(void **, int);
typedef int (*push_fn)(void *);
typedef int (*load_fn)(void **, const void *);
typedef int (*get_fn)(void **, void *, const char *);
typedef int (*alloc_fn)(dptr *, size_t);
typedef int (*free_fn)(dptr);
typedef int (*htod_fn)(dptr, const void *, size_t, void *);
typedef int (*dtoh_fn)(void *, dptr, size_t, void *);
typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, void *, void **,
                         void **);
typedef int (*create_fn)(void **, const char *, const char *, int,
                         const char *const *, const char *const *);
typedef int (*compile_fn)(void *, int, const char *const *);
typedef int (*size_fn)(void *, size_t *);
typedef int (*text_fn)(void *, char *);
typedef int (*destroy_fn)(void **);
typedef int (*unload_fn)(void *);

static struct {
    void *drv, *nv;
    alloc_fn alloc;
    free_fn free;
    htod_fn htod;
    dtoh_fn dtoh;
    launch_fn launch;
    load_fn load;
    get_fn get;
    create_fn create; /* the test NVRTC's */
    compile_fn compile;
    size_fn ptx_size;
    text_fn ptx;
    destroy_fn destroy;
} cu;

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    cr_assert_not_null(p, "%s", name);
    return p;
}

/* dst (a function pointer) = symbol `name` of lib (memcpy: ISO C has no
 * conversion from void * to a function pointer) */
#define BIND(dst, lib, name)                                                \
    do {                                                                    \
        void *p_ = sym(lib, name);                                          \
        memcpy(&(dst), &p_, sizeof p_);                                     \
    } while (0)

static void setup(void)
{
    setenv("ACC_EMU_DEVICE", "small", 1);
    cu.drv = dlopen(ACC_EMU_DRIVER, RTLD_NOW | RTLD_LOCAL);
    cu.nv = dlopen(ACC_EMU_NVRTC, RTLD_NOW | RTLD_LOCAL);
    cr_assert(cu.drv && cu.nv, "%s", dlerror());
    init_fn init;
    retain_fn retain;
    push_fn push;
    BIND(init, cu.drv, "cuInit");
    BIND(retain, cu.drv, "cuDevicePrimaryCtxRetain");
    BIND(push, cu.drv, "cuCtxPushCurrent_v2");
    BIND(cu.alloc, cu.drv, "cuMemAlloc_v2");
    BIND(cu.free, cu.drv, "cuMemFree_v2");
    BIND(cu.htod, cu.drv, "cuMemcpyHtoDAsync_v2");
    BIND(cu.dtoh, cu.drv, "cuMemcpyDtoHAsync_v2");
    BIND(cu.launch, cu.drv, "cuLaunchKernel");
    BIND(cu.load, cu.drv, "cuModuleLoadData");
    BIND(cu.get, cu.drv, "cuModuleGetFunction");
    BIND(cu.create, cu.nv, "nvrtcCreateProgram");
    BIND(cu.compile, cu.nv, "nvrtcCompileProgram");
    BIND(cu.ptx_size, cu.nv, "nvrtcGetPTXSize");
    BIND(cu.ptx, cu.nv, "nvrtcGetPTX");
    BIND(cu.destroy, cu.nv, "nvrtcDestroyProgram");
    void *ctx = NULL;
    cr_assert_eq(init(0), 0);
    cr_assert_eq(retain(&ctx, 0), 0);
    cr_assert_eq(push(ctx), 0);
}

TestSuite(emu_device, .init = setup);

/* The module of `source` through the test NVRTC and the driver. */
static void *module_of(const char *source)
{
    void *prog = NULL, *mod = NULL;
    size_t n = 0;
    cr_assert_eq(cu.create(&prog, source, "t.cu", 0, NULL, NULL), 0);
    cr_assert_eq(cu.compile(prog, 0, NULL), 0, "the kernel does not build");
    cr_assert_eq(cu.ptx_size(prog, &n), 0);
    char *image = malloc(n);
    cr_assert_not_null(image);
    cr_assert_eq(cu.ptx(prog, image), 0);
    cr_assert_eq(cu.destroy(&prog), 0);
    cr_assert_eq(cu.load(&mod, image), 0);
    free(image);
    return mod;
}

/* Launches kernel `name` of `source` on grid (gx, gy) of blocks of bx
 * threads, with one device buffer of `words` 64-bit words (copied from
 * and back to `io`) as its argument; returns cuLaunchKernel's result. */
static int run(const char *source, const char *name, unsigned gx,
               unsigned gy, unsigned bx, uint64_t *io, size_t words)
{
    void *mod = module_of(source), *f = NULL;
    dptr buf = 0;
    cr_assert_eq(cu.get(&f, mod, name), 0, "no kernel %s", name);
    cr_assert_eq(cu.alloc(&buf, words * 8), 0);
    cr_assert_eq(cu.htod(buf, io, words * 8, NULL), 0);
    void *params[1] = {&buf};
    int r = cu.launch(f, gx, gy, 1, bx, 1, 1, 0, NULL, params, NULL);
    cr_assert_eq(cu.dtoh(io, buf, words * 8, NULL), 0);
    cu.free(buf);
    unload_fn unload;
    BIND(unload, cu.drv, "cuModuleUnload");
    cr_assert_eq(unload(mod), 0);
    return r;
}

static const char indices[] =
    "extern \"C\" __global__ void ix(unsigned long long *out)\n"
    "{\n"
    "    unsigned b = blockIdx.y * gridDim.x + blockIdx.x;\n"
    "    unsigned t = b * blockDim.x + threadIdx.x;\n"
    "    out[t] = (unsigned long long)blockIdx.x << 32 |\n"
    "             blockIdx.y << 16 | threadIdx.x;\n"
    "}\n";

Test(emu_device, indices_on_a_2d_grid)
{
    static uint64_t io[3 * 2 * 96];
    cr_assert_eq(run(indices, "ix", 3, 2, 96, io, 3 * 2 * 96), 0);
    for (unsigned y = 0; y < 2; y++)
        for (unsigned x = 0; x < 3; x++)
            for (unsigned t = 0; t < 96; t++)
                cr_expect_eq(io[(y * 3 + x) * 96 + t],
                             (uint64_t)x << 32 | y << 16 | t);
}

/* Each lane's shuffles and votes, and a block's barrier votes and shared
 * memory: 9 words per thread. */
static const char collectives[] =
    "extern \"C\" __global__ void coll(long long *out)\n"
    "{\n"
    "    __shared__ long long sh[128];\n"
    "    int t = threadIdx.x, lane = t % 32;\n"
    "    long long v = 1000 * blockIdx.x + t;\n"
    "    long long *o = out + 9 * (blockIdx.x * blockDim.x + t);\n"
    "    sh[t] = v;\n"
    "    __syncthreads();\n"
    "    o[0] = sh[blockDim.x - 1 - t];\n"
    "    o[1] = __shfl_sync(0xffffffffu, v, 5);\n"
    "    o[2] = __shfl_up_sync(0xffffffffu, v, 3);\n"
    "    o[3] = __shfl_down_sync(0xffffffffu, v, 4, 16);\n"
    "    o[4] = __shfl_xor_sync(0xffffffffu, v, 1);\n"
    "    o[5] = __ballot_sync(0xffffffffu, lane % 3 == 0);\n"
    "    o[6] = __any_sync(0xffffffffu, lane == 7) * 10 +\n"
    "           __all_sync(0xffffffffu, lane < 31);\n"
    "    o[7] = __syncthreads_count(t % 2);\n"
    "    o[8] = __syncthreads_or(t == 100) * 10 + __syncthreads_and(t < 200);\n"
    "}\n";

Test(emu_device, barriers_shuffles_votes_and_shared_memory)
{
    enum { B = 2, T = 128 };
    static uint64_t io[9 * B * T];
    cr_assert_eq(run(collectives, "coll", B, 1, T, io, 9 * B * T), 0);
    uint32_t ballot = 0;
    for (int l = 0; l < 32; l++)
        ballot |= (uint32_t)(l % 3 == 0) << l;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            const int64_t *o = (const int64_t *)&io[9 * (b * T + t)];
            int lane = t % 32, w = t - lane;
            int64_t base = 1000 * b;
            cr_expect_eq(o[0], base + T - 1 - t, "shared, block %d", b);
            cr_expect_eq(o[1], base + w + 5);
            cr_expect_eq(o[2], base + (lane >= 3 ? t - 3 : t));
            cr_expect_eq(o[3], base + (lane % 16 + 4 < 16 ? t + 4 : t),
                         "shfl_down width 16, thread %d", t);
            cr_expect_eq(o[4], base + (t ^ 1));
            cr_expect_eq((uint32_t)o[5], ballot);
            cr_expect_eq(o[6], 10);
            cr_expect_eq(o[7], T / 2);
            cr_expect_eq(o[8], 11);
        }
}

static const char atomics[] =
    "extern \"C\" __global__ void at(unsigned long long *out)\n"
    "{\n"
    "    atomicAdd(&out[0], 1ull);\n"
    "    atomicMax((unsigned *)&out[1], threadIdx.x + blockIdx.x);\n"
    "    unsigned long long old = out[2], seen;\n"
    "    do {\n"
    "        seen = old;\n"
    "        old = atomicCAS(&out[2], seen, seen * 3 + 1);\n"
    "    } while (old != seen);\n"
    "}\n";

Test(emu_device, atomics_and_64_bit_compare_and_swap)
{
    static uint64_t io[3];
    cr_assert_eq(run(atomics, "at", 4, 1, 64, io, 3), 0);
    uint64_t want = 0;
    for (int i = 0; i < 4 * 64; i++)
        want = want * 3 + 1;
    cr_expect_eq(io[0], 4 * 64);
    cr_expect_eq((uint32_t)io[1], 63 + 3);
    cr_expect_eq(io[2], want);
}

static const char hangs[] =
    "extern \"C\" __global__ void half(unsigned long long *out)\n"
    "{\n"
    "    if (threadIdx.x < 16)\n"
    "        __syncthreads_or(1);\n"
    "    else\n"
    "        __syncthreads();\n"
    "    out[0] = 1;\n"
    "}\n"
    "extern \"C\" __global__ void gone(unsigned long long *out)\n"
    "{\n"
    "    if (threadIdx.x == 3)\n"
    "        return;\n"
    "    out[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1ull, 1);\n"
    "}\n"
    "extern \"C\" __global__ void stuck(unsigned long long *out)\n"
    "{\n"
    "    if (threadIdx.x < 16)\n"
    "        __syncthreads();\n"
    "    else\n"
    "        __syncwarp();\n"
    "    out[threadIdx.x] = 1;\n"
    "}\n";

/* What would hang or be undefined on a GPU fails the launch. */
Test(emu_device, misuse_fails_the_launch)
{
    static uint64_t io[64];
    cr_expect_eq(run(hangs, "half", 1, 1, 64, io, 64), 719,
                 "barriers of two kinds: CUDA_ERROR_LAUNCH_FAILED");
    cr_expect_eq(run(hangs, "gone", 1, 1, 32, io, 64), 719,
                 "a shuffle naming an exited lane");
    cr_expect_eq(run(hangs, "stuck", 1, 1, 32, io, 64), 719,
                 "half a warp at a barrier, half at __syncwarp: a deadlock");
}

/* ---- user kernels (acc_register_kernel) run by a program ---------------- */

/* A user kernel of signature void(const f64*, f64*, i64) from `source`
 * (`entry`), registered as "uk.<entry>"; grid, block and shared_bytes
 * are for the caller to set (zero: the library's launch shape). */
static acc_user_kernel user_kernel_of(const char *source, const char *entry)
{
    static char name[64];
    snprintf(name, sizeof name, "uk.%s", entry);
    return tf_user_kernel(name, ACC_BACKEND_CUDA, source, entry,
                          "void(const f64*, f64*, i64)");
}

/* Runs, on the emulated device, a program calling user kernel k on the n
 * values xs (`foreign "uk.<entry>" (map f) xs`, f the fallback); the
 * result into got.  Returns the run's status (registering and compiling
 * must succeed). */
static acc_status run_user(const acc_user_kernel *k, const char *f,
                           const double *xs, int64_t n, double *got)
{
    setenv("ACC_CUDA_DRIVER", ACC_EMU_DRIVER, 1);
    setenv("ACC_NVRTC", ACC_EMU_NVRTC, 1);
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CUDA;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(acc_register_kernel(ctx, k), ACC_OK, "%s",
                 acc_last_error());
    char text[256];
    snprintf(text, sizeof text, "user (xs : Vector f64) : Vector f64 =\n"
             "  foreign \"%s\" (map (%s)) xs\n", k->name, f);
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, text, (size_t)-1, "user", &p), ACC_OK,
                 "%s", acc_last_error());
    acc_array in = ts_host(ACC_F64, 1, &n, (void *)xs), out;
    acc_status st = ts_run_program(p, 1, &in, 1, &out);
    if (st == ACC_OK) {
        memcpy(got, out.data[0], (size_t)n * sizeof *got);
        acc_array_release(&out);
    }
    acc_program_free(p);
    acc_context_destroy(ctx);
    return st;
}

Test(emu_device, user_kernel)
{
    enum { N = 1000 };
    static double xs[N], got[N];
    for (int i = 0; i < N; i++)
        xs[i] = i * 0.5;
    acc_user_kernel k = user_kernel_of(tf_scale_cu, "uk_scale");
    cr_assert_eq(run_user(&k, "\\v -> 3 * v + 1", xs, N, got), ACC_OK, "%s",
                 acc_last_error());
    for (int i = 0; i < N; i++)
        cr_expect_eq(got[i], 3 * xs[i] + 1, "element %d", i);
    /* the kernel ran (not the fallback) */
    fake_cuda_events_fn events;
    BIND(events, cu.drv, "fake_cuda_events");
    static fake_event ev[8192];
    size_t m = events(ev, 8192), ran = 0;
    for (size_t i = 0; i < m && i < 8192; i++)
        ran += ev[i].kind == FAKE_LAUNCH && strcmp(ev[i].function,
                                                   "uk_scale") == 0;
    cr_expect_gt(ran, 0, "uk_scale was not launched");
}

/* Dynamic shared memory: a user kernel with `extern __shared__`, launched
 * with the kernel's shared_bytes.  Each block loads its elements into two
 * halves of the buffer and reads other threads' entries after a barrier,
 * so a buffer that is not the block's (or too small, or not shared by its
 * threads) gives other values than the reference computed here.  A
 * request beyond the device's 48 KiB fails the run, saying so. */
static const char dyn_cu[] =
    "extern \"C\" __global__ void uk_dyn(const double *x, double *out,\n"
    "                                    long long n)\n"
    "{\n"
    "    extern __shared__ double s[];\n"
    "    unsigned t = threadIdx.x, b = blockDim.x;\n"
    "    long long i = (long long)blockIdx.x * b + t;\n"
    "    s[t] = i < n ? x[i] : 0.0;\n"
    "    s[b + t] = 2 * s[t];\n"
    "    __syncthreads();\n"
    "    if (i < n)\n"
    "        out[i] = s[b - 1 - t] + s[b + (t + 1) % b];\n"
    "}\n";

static acc_status run_dyn(uint32_t shared_bytes, double *got, int64_t n,
                          const double *xs)
{
    acc_user_kernel k = user_kernel_of(dyn_cu, "uk_dyn");
    k.grid[0] = (uint32_t)((n + 127) / 128), k.grid[1] = k.grid[2] = 1;
    k.block[0] = 128, k.block[1] = k.block[2] = 1;
    k.shared_bytes = shared_bytes;
    return run_user(&k, "\\v -> v", xs, n, got);
}

Test(emu_device, user_kernel_with_dynamic_shared_memory)
{
    enum { N = 1000, B = 128 };
    static double xs[N], got[N];
    for (int i = 0; i < N; i++)
        xs[i] = i * 0.25 - 7;
    cr_assert_eq(run_dyn(2 * B * sizeof(double), got, N, xs), ACC_OK, "%s",
                 acc_last_error());
    for (int i = 0; i < N; i++) {
        int blk = i / B, t = i % B, j = blk * B + (B - 1 - t),
            k = blk * B + (t + 1) % B;
        double want = (j < N ? xs[j] : 0.0) + 2 * (k < N ? xs[k] : 0.0);
        cr_expect_eq(got[i], want, "element %d: %g, not %g", i, got[i], want);
    }
    cr_expect_neq(run_dyn(64 << 10, got, N, xs), ACC_OK,
                  "64 KiB of dynamic shared memory (beyond 48 KiB) ran");
    cr_expect(strstr(acc_last_error(), "dynamic shared memory") != NULL,
              "%s", acc_last_error());
}

#endif
