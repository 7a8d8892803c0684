/*
 * gpu_bench.c — `make bench-gpu`: accel's CUDA backend against
 * hand-written GPU baselines, in the same process, on the same device
 * data: the dot product against cuBLAS's cublasSdot, Black-Scholes and
 * N-body against straightforward CUDA kernels (bench/gpu_baselines.cu,
 * compiled here with NVRTC for the device).  Inputs and outputs live in
 * device memory on both sides (accel gets device-pointer descriptors), so
 * the figures compare kernels, not PCIe copies.  Results are checked
 * against each other; nothing asserts a speed.
 *
 * Without a usable CUDA device (or when accel's CUDA backend is not
 * available) it prints one line saying why and exits 0: nothing is
 * measured, and nothing is reported as measured.
 *
 * Usage: gpu_bench [CSV-PATH]; environment: ACC_BENCH_RUNS (default 10),
 * ACC_BENCH_SCALE (problem-size factor), ACC_BENCH_ONLY (dotp,
 * blackscholes, nbody).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/bench_common.h"
#include "core/backend/cuda/loader.h"
#include "core/backend/cuda/nvrtc.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef ACC_BENCH_GPU_BASELINES
#define ACC_BENCH_GPU_BASELINES "bench/gpu_baselines.cu"
#endif

typedef struct gpu {
    cuda_driver cu;
    cuda_nvrtc nvrtc;
    cu_device dev;
    cu_context ctx;
    cu_module baselines;
    int arch;
} gpu;

/* ---- the device ------------------------------------------------------------ */

static void die_cu(const gpu *g, cu_result r, const char *what)
{
    const char *text = NULL;
    if (g->cu.cuGetErrorString)
        g->cu.cuGetErrorString(r, &text);
    fprintf(stderr, "gpu_bench: %s failed: error %d (%s)\n", what, (int)r,
            text ? text : "no description");
    exit(1);
}

#define CU(g, call) \
    do { cu_result r_ = (g)->cu.call; if (r_ != CU_SUCCESS) die_cu((g), r_, #call); } while (0)

/* 1 with the device ready; 0 with why it is not usable. */
static int open_device(gpu *g, char *why, size_t why_len)
{
    int count = 0, major = 0, minor = 0;
    diag d;
    diag_clear(&d);
    if (cuda_load_driver(&g->cu, &d) || cuda_load_nvrtc(&g->nvrtc, &d)) {
        snprintf(why, why_len, "%.*s", (int)why_len - 1, d.message);
        return 0;
    }
    if (g->cu.cuInit(0) != CU_SUCCESS || g->cu.cuDeviceGetCount(&count) !=
        CU_SUCCESS || count == 0) {
        snprintf(why, why_len, "no CUDA device");
        return 0;
    }
    CU(g, cuDeviceGet(&g->dev, 0));
    CU(g, cuDeviceGetAttribute(&major, CU_ATTR_COMPUTE_MAJOR, g->dev));
    CU(g, cuDeviceGetAttribute(&minor, CU_ATTR_COMPUTE_MINOR, g->dev));
    CU(g, cuDevicePrimaryCtxRetain(&g->ctx, g->dev));
    CU(g, cuCtxPushCurrent(g->ctx)); /* current for the whole run */
    g->arch = 10 * major + minor;
    return 1;
}

static void load_baselines(gpu *g)
{
    char *src = bench_read_text(ACC_BENCH_GPU_BASELINES);
    if (!src) {
        fprintf(stderr, "gpu_bench: cannot read %s\n", ACC_BENCH_GPU_BASELINES);
        exit(1);
    }
    cuda_image img;
    if (!cuda_compile(&g->nvrtc, src, "gpu_baselines.cu", g->arch,
                      CUDA_TARGET_CUBIN, &img)) {
        fprintf(stderr, "gpu_bench: NVRTC: %s\n", img.log ? img.log : "");
        exit(1);
    }
    CU(g, cuModuleLoadData(&g->baselines, img.bytes));
    cuda_image_free(&img);
    free(src);
}

static cu_deviceptr upload(gpu *g, const void *host, size_t bytes)
{
    cu_deviceptr d = 0;
    CU(g, cuMemAlloc(&d, bytes ? bytes : 1));
    if (host) {
        CU(g, cuMemcpyHtoDAsync(d, host, bytes, NULL));
        CU(g, cuStreamSynchronize(NULL));
    }
    return d;
}

static void download(gpu *g, void *host, cu_deviceptr d, size_t bytes)
{
    CU(g, cuMemcpyDtoHAsync(host, d, bytes, NULL));
    CU(g, cuStreamSynchronize(NULL));
}

static void launch(gpu *g, const char *kernel, int64_t threads, void **params)
{
    cu_function f;
    CU(g, cuModuleGetFunction(&f, g->baselines, kernel));
    int64_t blocks = (threads + 255) / 256;
    blocks = blocks < 1 ? 1 : blocks > (1 << 20) ? (1 << 20) : blocks;
    CU(g, cuLaunchKernel(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0, NULL, params,
                         NULL));
    CU(g, cuStreamSynchronize(NULL));
}

/* A device-memory descriptor of element type elem and rank 0 or 1. */
static acc_array device_array(const acc_type *elem, int32_t rank, int64_t n,
                              const cu_deviceptr *leaves)
{
    acc_array a;
    acc_array_init(&a, elem, rank, &n);
    a.memory = ACC_MEMORY_CUDA_DEVICE;
    a.device = 0;
    for (size_t i = 0; i < acc_type_leaf_count(elem); i++)
        a.data[i] = (void *)(uintptr_t)leaves[i];
    return a;
}

static const acc_type *io_type(acc_program *p, int output, size_t i)
{
    const acc_type *t = NULL;
    if (output)
        acc_program_output(p, i, &t, NULL);
    else
        acc_program_input(p, i, &t, NULL);
    return t;
}

/* Median of b->runs timed runs of p (synchronous: acc_run returns once
 * the results are written). */
static double time_accel(bench *b, acc_program *p, size_t n_in,
                         const acc_array *in, acc_array *out)
{
    double t[64];
    bench_run(b, p, n_in, in, 1, out); /* warm-up: first-use costs */
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        bench_run(b, p, n_in, in, 1, out);
        t[r] = bench_now_ms() - s;
    }
    return bench_median(t, b->runs);
}

static double time_kernel(bench *b, gpu *g, const char *kernel,
                          int64_t threads, void **params)
{
    double t[64];
    launch(g, kernel, threads, params);
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        launch(g, kernel, threads, params);
        t[r] = bench_now_ms() - s;
    }
    return bench_median(t, b->runs);
}

/* ---- dot product against cublasSdot ------------------------------------------ */

typedef struct cublas {
    int (*create)(void **handle);
    int (*destroy)(void *handle);
    int (*pointer_mode)(void *handle, int mode);
    int (*sdot)(void *handle, int n, const float *x, int incx, const float *y,
                int incy, float *result);
} cublas;

enum { CUBLAS_POINTER_MODE_DEVICE_ = 1 };

static int load_cublas(cublas *c)
{
    const char *names[] = {"libcublas.so.13", "libcublas.so.12",
                           "libcublas.so.11", "libcublas.so"};
    const char *syms[] = {"cublasCreate_v2", "cublasDestroy_v2",
                          "cublasSetPointerMode_v2", "cublasSdot_v2"};
    void (**fields[])(void) = {(void (**)(void))&c->create,
                               (void (**)(void))&c->destroy,
                               (void (**)(void))&c->pointer_mode,
                               (void (**)(void))&c->sdot};
    void *lib = NULL;
    for (size_t i = 0; !lib && i < 4; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; lib && i < 4; i++) {
        void *f = dlsym(lib, syms[i]);
        if (!f)
            return 0;
        memcpy(fields[i], &f, sizeof f);
    }
    return lib != NULL;
}

static void bench_dotp(bench *b, gpu *g)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    size_t bytes = (size_t)n * sizeof(float);
    float *x = bench_alloc(b, bytes), *y = bench_alloc(b, bytes);
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.001f;
        y[i] = (float)(i % 7) - 3.0f;
    }
    cu_deviceptr dx = upload(g, x, bytes), dy = upload(g, y, bytes);
    cu_deviceptr dr = upload(g, NULL, sizeof(float));
    cu_deviceptr db = upload(g, NULL, sizeof(float));
    acc_program *p = bench_compile(b, "dotp");
    acc_array in[2] = {device_array(io_type(p, 0, 0), 1, n, &dx),
                       device_array(io_type(p, 0, 1), 1, n, &dy)};
    acc_array out = device_array(io_type(p, 1, 0), 0, 0, &dr);
    double accel = time_accel(b, p, 2, in, &out);
    cublas c;
    void *h = NULL;
    char size[32];
    snprintf(size, sizeof size, "%lld f32", (long long)n);
    if (!load_cublas(&c) || c.create(&h) != 0) {
        printf("%-22s %-16s %12.3f (cuBLAS not found: no baseline)\n", "dotp",
               size, accel);
    } else {
        double t[64];
        c.pointer_mode(h, CUBLAS_POINTER_MODE_DEVICE_);
        for (int r = -1; r < b->runs; r++) { /* r = -1: warm-up */
            double s = bench_now_ms();
            c.sdot(h, (int)n, (const float *)(uintptr_t)dx, 1,
                   (const float *)(uintptr_t)dy, 1, (float *)(uintptr_t)db);
            CU(g, cuStreamSynchronize(NULL));
            if (r >= 0)
                t[r] = bench_now_ms() - s;
        }
        float got = 0, want = 0;
        download(g, &got, dr, sizeof got);
        download(g, &want, db, sizeof want);
        bench_report(b, "dotp", size, accel, "cublasSdot",
                     bench_median(t, b->runs),
                     fabsf(got - want) <= 1e-5f * (fabsf(want) + (float)n));
        c.destroy(h);
    }
    acc_program_free(p);
    g->cu.cuMemFree(dx);
    g->cu.cuMemFree(dy);
    g->cu.cuMemFree(dr);
    g->cu.cuMemFree(db);
    free(x);
    free(y);
}

/* ---- Black-Scholes --------------------------------------------------------- */

static int close_enough(const float *a, const float *b, int64_t n)
{
    for (int64_t i = 0; i < n; i += 1 + n / 4096)
        if (!(fabsf(a[i] - b[i]) <= 1e-3f * (1 + fabsf(b[i]))))
            return 0;
    return 1;
}

static void bench_blackscholes(bench *b, gpu *g)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    size_t bytes = (size_t)n * sizeof(float);
    float *h[3];
    for (int k = 0; k < 3; k++)
        h[k] = bench_alloc(b, bytes);
    for (int64_t i = 0; i < n; i++) {
        h[0][i] = 5.0f + (float)(i % 100) * 0.3f;
        h[1][i] = 1.0f + (float)(i % 17) * 0.9f;
        h[2][i] = 0.25f + (float)(i % 9) * 0.5f;
    }
    cu_deviceptr opts[3], res[2], base[2];
    for (int k = 0; k < 3; k++)
        opts[k] = upload(g, h[k], bytes);
    for (int k = 0; k < 2; k++) {
        res[k] = upload(g, NULL, bytes);
        base[k] = upload(g, NULL, bytes);
    }
    acc_program *p = bench_compile(b, "blackscholes");
    acc_array in = device_array(io_type(p, 0, 0), 1, n, opts);
    acc_array out = device_array(io_type(p, 1, 0), 1, n, res);
    double accel = time_accel(b, p, 1, &in, &out);
    long long nn = n;
    void *params[] = {&opts[0], &opts[1], &opts[2], &base[0], &base[1], &nn};
    double hand = time_kernel(b, g, "blackscholes", n, params);
    float *got = bench_alloc(b, bytes), *want = bench_alloc(b, bytes);
    int agree = 1;
    for (int k = 0; k < 2; k++) {
        download(g, got, res[k], bytes);
        download(g, want, base[k], bytes);
        agree &= close_enough(got, want, n);
    }
    char size[32];
    snprintf(size, sizeof size, "%lld options", (long long)n);
    bench_report(b, "blackscholes", size, accel, "CUDA, 1 thread/option",
                 hand, agree);
    acc_program_free(p);
    for (int k = 0; k < 3; k++) {
        g->cu.cuMemFree(opts[k]);
        free(h[k]);
    }
    for (int k = 0; k < 2; k++) {
        g->cu.cuMemFree(res[k]);
        g->cu.cuMemFree(base[k]);
    }
    free(got);
    free(want);
}

/* ---- N-body ------------------------------------------------------------------ */

static void bench_nbody(bench *b, gpu *g)
{
    int n = (int)(16384 * sqrt(b->scale));
    n = n < 32 ? 32 : n;
    size_t bytes = (size_t)n * sizeof(float);
    float *h = bench_alloc(b, 4 * bytes);
    for (int i = 0; i < 4 * n; i++)
        h[i] = (float)((i * 7919) % 1000) * 0.001f + (i >= 3 * n ? 0.5f : 0);
    cu_deviceptr bodies[4], res[3], base[3];
    for (int k = 0; k < 4; k++)
        bodies[k] = upload(g, h + (size_t)k * n, bytes);
    for (int k = 0; k < 3; k++) {
        res[k] = upload(g, NULL, bytes);
        base[k] = upload(g, NULL, bytes);
    }
    acc_program *p = bench_compile(b, "nbody");
    acc_array in = device_array(io_type(p, 0, 0), 1, n, bodies);
    acc_array out = device_array(io_type(p, 1, 0), 1, n, res);
    double accel = time_accel(b, p, 1, &in, &out);
    void *params[] = {&bodies[0], &bodies[1], &bodies[2], &bodies[3],
                      &base[0],   &base[1],   &base[2],   &n};
    double hand = time_kernel(b, g, "nbody", n, params);
    float *got = bench_alloc(b, bytes), *want = bench_alloc(b, bytes);
    int agree = 1;
    for (int k = 0; k < 3; k++) {
        download(g, got, res[k], bytes);
        download(g, want, base[k], bytes);
        agree &= close_enough(got, want, n);
    }
    char size[32];
    snprintf(size, sizeof size, "%d bodies", n);
    bench_report(b, "nbody", size, accel, "CUDA, 1 thread/body", hand, agree);
    acc_program_free(p);
    for (int k = 0; k < 4; k++)
        g->cu.cuMemFree(bodies[k]);
    for (int k = 0; k < 3; k++) {
        g->cu.cuMemFree(res[k]);
        g->cu.cuMemFree(base[k]);
    }
    free(h);
    free(got);
    free(want);
}

/* ---- main ---------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    bench b = {0};
    gpu g;
    char why[512] = "";
    memset(&g, 0, sizeof g);
    b.tool = "gpu_bench";
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CUDA;
    if (!open_device(&g, why, sizeof why)) {
        printf("gpu_bench: SKIPPED, nothing measured: %s\n", why);
        return 0;
    }
    if (acc_context_create(&o, &b.ctx) != ACC_OK) {
        printf("gpu_bench: SKIPPED, nothing measured: accel's CUDA backend is "
               "not available: %s\n", acc_last_error());
        return 0;
    }
    b.runs = bench_env_int("ACC_BENCH_RUNS", 10);
    b.runs = b.runs > 63 ? 63 : b.runs;
    const char *scale = getenv("ACC_BENCH_SCALE");
    b.scale = scale && atof(scale) > 0 ? atof(scale) : 1;
    const char *csv_path = argc > 1 ? argv[1] : "bench-gpu-results.csv";
    if (!(b.csv = fopen(csv_path, "w"))) {
        perror(csv_path);
        return 1;
    }
    char name[256] = "";
    g.cu.cuDeviceGetName(name, (int)sizeof name, g.dev);
    printf("accel %s, backend cuda, device %s (sm_%d), median of %d runs, "
           "scale %g\n", acc_version_string(), name, g.arch, b.runs, b.scale);
    load_baselines(&g);
    bench_headings(&b);
    if (bench_selected("dotp"))
        bench_dotp(&b, &g);
    if (bench_selected("blackscholes"))
        bench_blackscholes(&b, &g);
    if (bench_selected("nbody"))
        bench_nbody(&b, &g);
    fclose(b.csv);
    acc_context_destroy(b.ctx);
    g.cu.cuModuleUnload(g.baselines);
    g.cu.cuDevicePrimaryCtxRelease(g.dev);
    printf("results written to %s\n", csv_path);
    return b.failures ? 1 : 0;
}
