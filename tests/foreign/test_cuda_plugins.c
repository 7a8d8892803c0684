/*
 * test_cuda_plugins.c — the cublas and cufft plugins where no device is
 * (tests/gpu/test_cuda_plugins_device.c computes with them on one):
 *  - both load through acc_plugin_load and acc_foreign_list shows their
 *    implementations, backend cuda, with the note saying why they are
 *    unavailable and, where the toolkit is installed, what they found;
 *  - programs of the host backends never pick them;
 *  - their predicates (called through a registrar of the test's own, as a
 *    CUDA program's resolution would call them) refuse with the reason the
 *    plan would show, and refuse wrong types and ranks first;
 *  - a failing registration leaves nothing allocated (ASan build);
 *  - the cufft plugin's device code compiles with NVRTC, to LTO-IR for the
 *    callbacks and PTX for the kernels, and the callbacks have exactly the
 *    types of cufftXt.h's JIT callbacks (checked by NVRTC itself, with a
 *    wrong signature as the control that the check can fail).
 * ctest runs this file three times: as is; with the toolkit's stub
 * libcuda.so first in the library path (ACC_TEST_CUDA_DRIVER_STUB): a
 * driver that loads, resolves every function the plugins use, and does
 * not start; and with a fake driver and a fake cuBLAS over OpenBLAS first
 * (ACC_TEST_FAKE_CUDA), where the cublas plugin is available and computes
 * on host memory, which checks its argument mapping against row-major
 * loops.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cufft_plugin.h"
#include "foreign_support.h"
#include "pcuda_lib.h"

#define CUBLAS_PATH ACC_TEST_PLUGIN_DIR "/accel_cublas.so"
#define CUFFT_PATH ACC_TEST_PLUGIN_DIR "/accel_cufft.so"

/* What the plugins must say about the driver here, or NULL when a real
 * driver is installed (a device may then exist: such checks skip). */
static const char *expected_driver_reason(void)
{
    void *real = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (real) {
        dlclose(real);
        return NULL;
    }
    if (getenv("ACC_TEST_CUDA_DRIVER_STUB"))
        return "no CUDA device: the CUDA driver failed to start (error 34";
    return "no CUDA device: libcuda.so.1 not found (tried libcuda.so.1";
}

static acc_context *context(acc_backend backend)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = backend;
    o.plugin_path = ACC_TEST_PLUGIN_DIR;
    o.plugins = "none"; /* only the plugins loaded below */
    acc_context *ctx = NULL;
    if (acc_context_create(&o, &ctx) != ACC_OK)
        return NULL;
    cr_assert_eq(acc_plugin_load(ctx, "cublas"), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(acc_plugin_load(ctx, "cufft"), ACC_OK, "%s",
                 acc_last_error());
    return ctx;
}

static char *listing(acc_context *ctx)
{
    char *list = NULL;
    cr_assert_eq(acc_foreign_list(ctx, &list), ACC_OK);
    return list;
}

/* The listing's line of implementation `impl_name` (malloc'd). */
static char *line_of(const char *list, const char *impl_name)
{
    char key[64];
    snprintf(key, sizeof key, " %s backend=", impl_name);
    const char *at = strstr(list, key);
    cr_assert(at, "%s is not listed:\n%s", impl_name, list);
    while (at > list && at[-1] != '\n')
        at--;
    size_t n = strcspn(at, "\n");
    char *line = malloc(n + 1);
    memcpy(line, at, n);
    line[n] = '\0';
    return line;
}

/* The toolkit folder holds `file` (the plugins look there too). */
static int toolkit_has(const char *file)
{
    char path[256];
    snprintf(path, sizeof path, "/usr/local/cuda/lib64/%s", file);
    return access(path, R_OK) == 0;
}

Test(cuda_plugins, both_load_and_list_their_implementations_for_cuda)
{
    static const char *const impls[][2] = {
        {"blas.dot", "cublas.dot"},       {"blas.axpy", "cublas.axpy"},
        {"blas.gemv", "cublas.gemv"},     {"blas.gemm", "cublas.gemm"},
        {"fft.forward", "cufft.forward"}, {"fft.inverse", "cufft.inverse"}};
    acc_context *ctx = context(ACC_BACKEND_INTERP);
    cr_assert_eq(acc_plugin_load(ctx, CUBLAS_PATH), ACC_OK,
                 "loading twice does nothing");
    char *list = listing(ctx);
    const char *reason = expected_driver_reason();
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++) {
        char *line = line_of(list, impls[i][1]), want[128];
        snprintf(want, sizeof want, "%s %s backend=cuda priority=10 "
                 "from=plugin %s; ", impls[i][0], impls[i][1],
                 i < 4 ? "cublas" : "cufft");
        cr_assert(strstr(line, want) == line, "%s", line);
        if (reason) {
            cr_assert(strstr(line, "; unavailable: "), "%s", line);
            cr_assert(strstr(line, reason), "%s", line);
        }
        free(line);
    }
    acc_free(list);
    acc_context_destroy(ctx);
}

/* Where the toolkit is installed the plugins open it even without a
 * driver, and say so: the symbol tables resolve against the real
 * libraries, and the major versions are the sonames'. */
Test(cuda_plugins, the_notes_name_the_libraries_found)
{
    if (!toolkit_has("libcublas.so.13") || !toolkit_has("libcufft.so.12") ||
        !toolkit_has("libnvrtc.so.13"))
        cr_skip_test("the CUDA 13 toolkit is not in /usr/local/cuda");
    acc_context *ctx = context(ACC_BACKEND_INTERP);
    char *list = listing(ctx);
    char *blas = line_of(list, "cublas.gemm"), *fft = line_of(list,
                                                             "cufft.inverse");
    cr_assert(strstr(blas, "cuBLAS 13."), "%s", blas);
    cr_assert(strstr(blas, "libcublas.so.13), f32 and f64"), "%s", blas);
    cr_assert(strstr(fft, "cuFFT 12."), "%s", fft);
    cr_assert(strstr(fft, "libcufft.so.12), NVRTC 13."), "%s", fft);
    cr_assert(strstr(fft, "(re, im) through LTO callbacks"), "%s", fft);
    free(blas);
    free(fft);
    acc_free(list);
    acc_context_destroy(ctx);
}

/* ---- programs on the host backends -------------------------------------- */

/* A program of one foreign node over f64 inputs: gemm of two matrices,
 * gemv of a matrix and a vector, fft of a vector of pairs. */
typedef enum program_kind { GEMM, GEMV, FFT } program_kind;

static acc_node *program(acc_context *ctx, acc_graph *g, program_kind k)
{
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    const acc_type *leaves[2] = {f64, f64};
    if (k == FFT)
        return acc_fft(g, acc_input(g, acc_type_tuple(ctx, 2, leaves), 1));
    acc_node *a = acc_input(g, f64, 2);
    return k == GEMM ? acc_gemm(g, a, acc_input(g, f64, 2))
                     : acc_gemv(g, a, acc_input(g, f64, 1));
}

static void expect_plan(acc_context *ctx, program_kind k, const char *want)
{
    acc_graph *g = ts_graph(ctx);
    acc_program *p = tf_compile(ctx, g, program(ctx, g, k));
    char *plan = tf_plan(p);
    cr_assert(strstr(plan, want), "%s", plan);
    cr_assert_null(strstr(plan, "cublas."), "%s", plan);
    cr_assert_null(strstr(plan, "cufft."), "%s", plan);
    acc_free(plan);
    acc_program_free(p);
    acc_graph_free(g);
}

Test(cuda_plugins, host_programs_do_not_pick_them)
{
    acc_backend backends[2] = {ACC_BACKEND_INTERP, ACC_BACKEND_CPU};
    for (int b = 0; b < 2; b++) {
        acc_context *ctx = context(backends[b]);
        if (!ctx)
            continue; /* no C compiler: the cpu backend is unavailable */
        char want[128];
        const char *name = acc_backend_name(backends[b]);
        snprintf(want, sizeof want, "fallback: no implementation of "
                 "'blas.gemm' is registered for backend %s", name);
        expect_plan(ctx, GEMM, want);
        snprintf(want, sizeof want, "fallback: no implementation of "
                 "'blas.gemv' is registered for backend %s", name);
        expect_plan(ctx, GEMV, want);
        snprintf(want, sizeof want, "fallback: no implementation of "
                 "'fft.forward' is registered for backend %s", name);
        expect_plan(ctx, FFT, want);
        acc_context_destroy(ctx);
    }
}

Test(cuda_plugins, a_host_plugin_of_the_same_name_is_still_chosen)
{
    acc_context *ctx = context(ACC_BACKEND_INTERP);
    if (acc_plugin_load(ctx, "cblas") != ACC_OK)
        cr_skip_test("the cblas plugin is not built");
    expect_plan(ctx, GEMM, "uses: cblas.gemm (plugin cblas, priority 10)");
    acc_context_destroy(ctx);
}

/* ---- the predicates, asked as for a cuda program ------------------------ */

/* A registrar of the test's own that keeps what the plugin adds. */
typedef struct capture {
    acc_plugin_registrar reg; /* first: the plugin passes &reg back */
    acc_foreign_impl impls[8];
    size_t n;
    size_t fail_at; /* this add fails (SIZE_MAX: none) */
} capture;

static acc_status capture_declare(acc_plugin_registrar *self,
                                  const char *name, uint32_t abi)
{
    (void)self;
    (void)name;
    return abi == ACC_ABI_VERSION ? ACC_OK : ACC_ERR_ABI_MISMATCH;
}

static acc_status capture_add(acc_plugin_registrar *self,
                              const acc_foreign_impl *impl)
{
    capture *c = (capture *)self;
    if (c->n == c->fail_at || c->n == 8)
        return ACC_ERR_OUT_OF_HOST_MEMORY;
    c->impls[c->n++] = *impl;
    return ACC_OK;
}

/* Runs the plugin's entry with a capturing registrar; returns the dlopen
 * handle (close it after releasing the implementations). */
static void *run_entry(const char *path, capture *c, size_t fail_at,
                       acc_status *status)
{
    memset(c, 0, sizeof *c);
    c->reg.struct_size = sizeof c->reg;
    c->reg.abi_version = ACC_ABI_VERSION;
    c->reg.declare = capture_declare;
    c->reg.add = capture_add;
    c->fail_at = fail_at;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert(h, "%s", dlerror());
    void *sym = dlsym(h, ACC_PLUGIN_ENTRY_SYMBOL);
    cr_assert(sym);
    acc_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof sym);
    *status = entry(&c->reg, ACC_ABI_VERSION);
    return h;
}

/* What a host does with the implementations it drops (the registry's
 * rollback and context destruction): release each. */
static void release_all(capture *c, void *handle)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->impls[i].release)
            c->impls[i].release(c->impls[i].user);
    dlclose(handle);
}

static const acc_foreign_impl *impl_named(const capture *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->impls[i].impl_name, name) == 0)
            return &c->impls[i];
    cr_assert_fail("%s was not registered", name);
    return NULL;
}

/* accepts() of impl for arrays of `elem` with the given ranks (the last
 * is the result's). */
static int ask(const acc_foreign_impl *impl, const acc_type *elem,
               size_t n_args, const int32_t *ranks, char *reason,
               size_t size)
{
    const acc_type *elems[4] = {elem, elem, elem, elem};
    acc_foreign_query q;
    memset(&q, 0, sizeof q);
    q.struct_size = sizeof q;
    q.name = impl->name;
    q.backend = ACC_BACKEND_CUDA;
    q.n_args = n_args;
    q.arg_elems = elems;
    q.arg_ranks = ranks;
    q.n_results = 1;
    q.result_elems = elems;
    q.result_ranks = &ranks[n_args];
    q.user = impl->user;
    q.reason = reason;
    q.reason_size = size;
    reason[0] = '\0';
    return impl->accepts(&q);
}

Test(cuda_plugins, cublas_refuses_wrong_types_first_then_says_why_not_here)
{
    capture c;
    acc_status st;
    char reason[1024];
    void *h = run_entry(CUBLAS_PATH, &c, SIZE_MAX, &st);
    cr_assert_eq(st, ACC_OK);
    cr_assert_eq(c.n, 4);
    const acc_foreign_impl *dot = impl_named(&c, "cublas.dot");
    cr_assert_eq(dot->backend, ACC_BACKEND_CUDA);
    const int32_t vectors[3] = {1, 1, 0}, matrices[3] = {2, 2, 2};
    cr_assert_not(ask(dot, acc_type_scalar(ACC_I32), 2, vectors, reason,
                      sizeof reason));
    cr_assert_str_eq(reason, "the element type is not f32 or f64");
    cr_assert_not(ask(dot, acc_type_scalar(ACC_F64), 2, matrices, reason,
                      sizeof reason));
    cr_assert_str_eq(reason, "the arguments or the result have other ranks "
                             "than the BLAS routine takes");
    int ok = ask(dot, acc_type_scalar(ACC_F32), 2, vectors, reason,
                 sizeof reason);
    const char *want = expected_driver_reason();
    if (want) {
        cr_assert_not(ok);
        cr_assert(strstr(reason, want) == reason, "%s", reason);
        /* the note is the same sentence */
        cr_assert(strstr(dot->note, reason), "%s", dot->note);
    }
    release_all(&c, h);
}

Test(cuda_plugins, cufft_refuses_wrong_types_first_then_says_why_not_here)
{
    capture c;
    acc_status st;
    char reason[1024];
    void *h = run_entry(CUFFT_PATH, &c, SIZE_MAX, &st);
    cr_assert_eq(st, ACC_OK);
    cr_assert_eq(c.n, 2);
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    const acc_type *mixed[2] = {f32, f64}, *pair[2] = {f32, f32};
    const acc_foreign_impl *inv = impl_named(&c, "cufft.inverse");
    const int32_t rank2[2] = {2, 2}, rank4[2] = {4, 4};
    cr_assert_not(ask(inv, f64, 1, rank2, reason, sizeof reason));
    cr_assert_str_eq(reason, "the elements are not (re, im) pairs of f32 or "
                             "f64");
    cr_assert_not(ask(inv, acc_type_tuple(ctx, 2, mixed), 1, rank2, reason,
                      sizeof reason));
    cr_assert_str_eq(reason, "the elements are not (re, im) pairs of f32 or "
                             "f64");
    cr_assert_not(ask(inv, acc_type_tuple(ctx, 2, pair), 1, rank4, reason,
                      sizeof reason));
    cr_assert_str_eq(reason, "cuFFT transforms ranks 1 to 3");
    int ok = ask(inv, acc_type_tuple(ctx, 2, pair), 1, rank2, reason,
                 sizeof reason);
    const char *want = expected_driver_reason();
    if (want) {
        cr_assert_not(ok);
        cr_assert(strstr(reason, want) == reason, "%s", reason);
    }
    acc_context_destroy(ctx);
    release_all(&c, h);
}

/* execute is never called after a refusal; called anyway, it fails with
 * the reason instead of touching the (host) pointers it is given. */
Test(cuda_plugins, an_unavailable_implementation_fails_a_call_with_the_reason)
{
    const char *want = expected_driver_reason();
    if (!want)
        cr_skip_test("a CUDA driver is installed here");
    capture c;
    acc_status st;
    char message[1024] = "";
    double x[2] = {1, 2}, out = 0;
    void *h = run_entry(CUBLAS_PATH, &c, SIZE_MAX, &st);
    const int64_t n = 2;
    acc_array args[2] = {tf_f64(1, &n, x), tf_f64(1, &n, x)};
    acc_array result = tf_f64(0, NULL, &out);
    acc_foreign_call call;
    memset(&call, 0, sizeof call);
    call.struct_size = sizeof call;
    call.n_args = 2;
    call.args = args;
    call.n_results = 1;
    call.results = &result;
    call.user = impl_named(&c, "cublas.dot")->user;
    call.message = message;
    call.message_size = sizeof message;
    cr_assert_eq(impl_named(&c, "cublas.dot")->execute(&call),
                 ACC_ERR_PLUGIN);
    cr_assert(strstr(message, "the implementation is unavailable: "), "%s",
              message);
    cr_assert(strstr(message, want), "%s", message);
    cr_assert_eq(out, 0.0);
    release_all(&c, h);
}

/* A registrar refusing the first or a later implementation: the entry
 * fails, what was added is released by the host, nothing leaks. */
Test(cuda_plugins, a_failing_registration_releases_everything)
{
    const char *paths[2] = {CUBLAS_PATH, CUFFT_PATH};
    for (int p = 0; p < 2; p++)
        for (size_t fail_at = 0; fail_at < 2; fail_at++) {
            capture c;
            acc_status st;
            void *h = run_entry(paths[p], &c, fail_at, &st);
            cr_assert_eq(st, ACC_ERR_OUT_OF_HOST_MEMORY);
            cr_assert_eq(c.n, fail_at);
            release_all(&c, h);
        }
}

/* ---- the cublas plugin on a fake driver and cuBLAS ---------------------- */

/* ctest's foreign.test_cuda_plugins.fake_device run puts a fake libcuda.so.1
 * and a fake libcublas.so.13 (OpenBLAS underneath, column-major like
 * cuBLAS; tests/foreign/fake_cublas.c) first in the library path: the
 * plugin is then available, and its calls compute on host memory marked
 * as device memory.  This checks the row-major to column-major mapping,
 * the cut lengths, the empty cases and the pointer modes against plain
 * row-major loops, and that the one handle made is destroyed. */
static int fake_count(const char *lib, const char *fn)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    cr_assert(h, "%s is not loaded", lib);
    void *sym = dlsym(h, fn);
    int (*count_fn)(void);
    cr_assert(sym);
    memcpy(&count_fn, &sym, sizeof sym);
    int n = count_fn();
    dlclose(h);
    return n;
}

typedef struct fake_op {
    const char *impl_name;
    acc_scalar e;
    size_t n_args;
    int32_t rank[3];
    int64_t ext[3][2];
    int32_t out_rank;
} fake_op;

static double input_value(size_t arg, int64_t i)
{
    return 0.5 + 0.25 * (double)((i * 7 + (int64_t)arg * 3) % 11) -
           0.125 * (double)arg;
}

/* The row-major result the fallback defines, element `i`. */
static double reference(const fake_op *op, double *const *in, int64_t i)
{
    double r = 0;
    const int64_t *a = op->ext[0], *b = op->ext[1];
    if (op->n_args == 3) /* axpy (a, x, y) */
        return in[0][0] * in[1][i] + in[2][i];
    if (op->rank[0] == 1) /* dot */
        for (int64_t p = 0; p < (a[0] < b[0] ? a[0] : b[0]); p++)
            r += in[0][p] * in[1][p];
    else if (op->rank[1] == 1) /* gemv */
        for (int64_t p = 0; p < (a[1] < b[0] ? a[1] : b[0]); p++)
            r += in[0][i * a[1] + p] * in[1][p];
    else /* gemm: i = row * n + column */
        for (int64_t p = 0; p < (a[1] < b[0] ? a[1] : b[0]); p++)
            r += in[0][(i / b[1]) * a[1] + p] * in[1][p * b[1] + i % b[1]];
    return r;
}

static void *typed(acc_scalar e, const double *v, int64_t n)
{
    void *b = calloc((size_t)n + 1, 8);
    for (int64_t i = 0; i < n; i++) {
        if (e == ACC_F32)
            ((float *)b)[i] = (float)v[i];
        else
            ((double *)b)[i] = v[i];
    }
    return b;
}

static acc_array device_array(acc_scalar e, int32_t rank, const int64_t *ext,
                              void *data)
{
    void *bufs[1] = {data};
    acc_array a = ts_host_array(acc_type_scalar(e), rank, ext, bufs);
    a.memory = ACC_MEMORY_CUDA_DEVICE; /* the fake's device memory */
    return a;
}

static void check_fake_op(const capture *c, const fake_op *op)
{
    static int stream; /* any non-NULL CUstream for the fake */
    double *in[3];
    void *bufs[3];
    acc_array args[3];
    char message[512] = "";
    for (size_t k = 0; k < op->n_args; k++) {
        int64_t n = op->rank[k] ? op->ext[k][0] : 1;
        n *= op->rank[k] == 2 ? op->ext[k][1] : 1;
        in[k] = calloc((size_t)n + 1, sizeof **in);
        for (int64_t i = 0; i < n; i++)
            in[k][i] = input_value(k, i);
        bufs[k] = typed(op->e, in[k], n);
        args[k] = device_array(op->e, op->rank[k], op->ext[k], bufs[k]);
    }
    void *out = calloc(512, 8);
    acc_array result = device_array(op->e, op->out_rank, NULL, out);
    const acc_foreign_impl *impl = impl_named(c, op->impl_name);
    acc_foreign_call call = {sizeof call, op->n_args, args, 1, &result,
                             &stream, NULL, NULL, impl->user, message,
                             sizeof message, NULL};
    cr_assert_eq(impl->result_shape(&call), ACC_OK);
    memset(out, 0x7f, 512 * 8); /* what is not written is wrong */
    cr_assert_eq(impl->execute(&call), ACC_OK, "%s: %s", op->impl_name,
                 message);
    for (int64_t i = 0; i < acc_array_size(&result); i++) {
        double got = op->e == ACC_F32 ? ((float *)out)[i]
                                      : ((double *)out)[i];
        double want = reference(op, in, i);
        cr_assert_leq(fabs(got - want), (op->e == ACC_F32 ? 1e-5 : 1e-12) *
                      (1 + fabs(want)), "%s %s element %ld: %g, want %g",
                      op->impl_name, op->e == ACC_F32 ? "f32" : "f64",
                      (long)i, got, want);
    }
    for (size_t k = 0; k < op->n_args; k++) {
        free(in[k]);
        free(bufs[k]);
    }
    free(out);
}

Test(cuda_plugins, cublas_maps_row_major_operations_onto_column_major_blas)
{
    if (!getenv("ACC_TEST_FAKE_CUDA"))
        cr_skip_test("runs under the fake driver and cuBLAS (ctest's "
                     "foreign.test_cuda_plugins.fake_device)");
    capture c;
    acc_status st;
    void *h = run_entry(CUBLAS_PATH, &c, SIZE_MAX, &st);
    cr_assert_eq(st, ACC_OK);
    cr_assert(strstr(c.impls[0].note, "cuBLAS 13.0.0 (libcublas.so.13)") ==
              c.impls[0].note, "available: %s", c.impls[0].note);
    for (int k = 0; k < 2; k++) {
        acc_scalar e = k ? ACC_F32 : ACC_F64;
        const fake_op ops[] = {
            {"cublas.dot", e, 2, {1, 1}, {{13}, {11}}, 0},
            {"cublas.dot", e, 2, {1, 1}, {{0}, {4}}, 0},
            {"cublas.axpy", e, 3, {0, 1, 1}, {{0}, {9}, {12}}, 1},
            {"cublas.gemv", e, 2, {2, 1}, {{5, 7}, {7}}, 1},
            {"cublas.gemv", e, 2, {2, 1}, {{5, 7}, {4}}, 1},
            {"cublas.gemv", e, 2, {2, 1}, {{3, 0}, {0}}, 1},
            {"cublas.gemm", e, 2, {2, 2}, {{4, 6}, {6, 5}}, 2},
            {"cublas.gemm", e, 2, {2, 2}, {{3, 6}, {4, 2}}, 2},
            {"cublas.gemm", e, 2, {2, 2}, {{2, 3}, {5, 4}}, 2},
            {"cublas.gemm", e, 2, {2, 2}, {{3, 0}, {0, 2}}, 2},
        };
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            check_fake_op(&c, &ops[i]);
    }
    cr_assert_eq(fake_count("libcublas.so.13", "fake_cublas_created"), 1,
                 "one handle for the context, made once");
    cr_assert_eq(fake_count("libcuda.so.1", "fake_cuda_retained"), 1,
                 "the primary context is held while the handle lives");
    release_all(&c, h);
    cr_assert_eq(fake_count("libcublas.so.13", "fake_cublas_live"), 0);
    cr_assert_eq(fake_count("libcuda.so.1", "fake_cuda_retained"), 0);
}

/* ---- the library search ------------------------------------------------- */

Test(cuda_plugins, a_missing_library_is_named_with_the_paths_tried)
{
    static const char *const names[] = {"libaccel_absent.so.7",
                                        "libaccel_absent.so"};
    char why[1536], path[256] = "";
    cr_assert_null(pcuda_open(names, 2, 1, path, sizeof path, why,
                              sizeof why));
    cr_assert(strstr(why, "libaccel_absent.so.7 not found (tried "
                          "libaccel_absent.so.7, "), "%s", why);
    cr_assert(strstr(why, "/usr/local/cuda/lib64/libaccel_absent.so.7, "
                          "libaccel_absent.so"), "%s", why);
    cr_assert(strstr(why, "): "), "dlerror's text follows: %s", why);
    cr_assert_str_eq(path, "");
}

Test(cuda_plugins, a_library_lacking_a_function_is_named)
{
    static const char *const names[] = {"libc.so.6"};
    static const pcuda_symbol table[] = {{"strlen", 0},
                                         {"cuNoSuchFunction", 8}};
    void *fns[2] = {NULL, NULL};
    char why[256];
    void *lib = pcuda_open(names, 1, 0, NULL, 0, why, sizeof why);
    cr_assert(lib, "%s", why);
    cr_assert_not(pcuda_resolve(lib, "libc", table, 2, fns, why,
                                sizeof why));
    cr_assert_str_eq(why, "libc lacks the function cuNoSuchFunction (too "
                          "old a version?)");
    cr_assert_not_null(fns[0], "the functions before it were resolved");
}

/* ---- the cufft plugin's device code ------------------------------------- */

static int nvrtc_or_skip(pcuda_nvrtc *n)
{
    char why[1536];
    if (getenv("ACC_TEST_FAKE_CUDA")) /* NVRTC calls into libcuda.so.1 */
        cr_skip_test("NVRTC does not work with the fake driver");
    if (!pcuda_load_nvrtc(n, why, sizeof why))
        cr_skip_test("NVRTC is not installed here (%s)", why);
    return 1;
}

static int contains(const char *image, size_t size, const char *text)
{
    size_t k = strlen(text);
    for (size_t i = 0; i + k <= size; i++)
        if (memcmp(image + i, text, k) == 0)
            return 1;
    return 0;
}

Test(cuda_plugins, the_device_code_compiles_to_lto_ir_and_ptx)
{
    pcuda_nvrtc n;
    nvrtc_or_skip(&n);
    const int archs[2] = {75, 90};
    char why[4096], target[32];
    for (int a = 0; a < 2; a++) {
        cfp_images *im = cfp_compile(&n, archs[a], why, sizeof why);
        cr_assert_not_null(im, "sm_%d: %s", archs[a], why);
        cr_assert_eq(im->arch, archs[a]);
        for (int f64 = 0; f64 < 2; f64++) {
            cr_assert_gt(im->load_size[f64], 0);
            cr_assert_gt(im->store_size[f64], 0);
            cr_assert(im->load_size[f64] != im->store_size[f64] ||
                      memcmp(im->load[f64], im->store[f64],
                             im->load_size[f64]) != 0,
                      "one module per callback");
            cr_assert(strstr(im->set_info_ptx, cfp_set_info_kernel(f64)));
        }
        snprintf(target, sizeof target, ".target sm_%d", archs[a]);
        cr_assert(strstr(im->set_info_ptx, target), "%s",
                  im->set_info_ptx);
        cr_assert(strstr(im->set_info_ptx, ".entry acc_fft_set_info_f32"));
        cfp_images_free(im);
    }
    /* the PTX holds no callback: those are only in the LTO-IR */
    cfp_images *im = cfp_compile(&n, 75, why, sizeof why);
    cr_assert_not(contains(im->set_info_ptx, strlen(im->set_info_ptx),
                           "acc_fft_load"));
    cfp_images_free(im);
}

#ifdef ACC_TEST_CUDA_INCLUDE
/* Compiles the callback part `part` followed by `check` with NVRTC and
 * the toolkit's include folder; returns whether it compiled. */
static int compiles_with(const pcuda_nvrtc *n, const char *part,
                         int f64, const char *check, char *why,
                         size_t why_size)
{
    const char *src = cfp_device_source();
    size_t len = strlen(src) + strlen(check) + 64;
    char *text = malloc(len);
    snprintf(text, len, "%s\n#include <cufftXt.h>\n%s\n", src, check);
    /* -default-device: cufft.h's host prototypes are not NVRTC's concern */
    const char *opts[7] = {"-arch=compute_75", "-dlto", "-rdc=true",
                           "-default-device", part,
                           "-I" ACC_TEST_CUDA_INCLUDE, "-DACC_FFT_F64"};
    size_t size = 0;
    char *ir = pcuda_compile(n, text, "check.cu", opts, f64 ? 7 : 6,
                             PCUDA_LTO_IR, &size, why, why_size);
    free(text);
    free(ir);
    return ir != NULL;
}

Test(cuda_plugins, the_callbacks_have_the_types_of_cufft_jit_callbacks)
{
    pcuda_nvrtc n;
    nvrtc_or_skip(&n);
    char why[8192], check[160];
    /* the names the plugin gives cufftXtSetJITCallback, assigned to the
     * typedefs' pointer types: another parameter or result type, or no
     * function of that name, does not compile */
    static const char *const types[2][2] = {
        {"cufftJITCallbackLoadC", "cufftJITCallbackStoreC"},
        {"cufftJITCallbackLoadZ", "cufftJITCallbackStoreZ"}};
    for (int f64 = 0; f64 < 2; f64++) {
        snprintf(check, sizeof check, "__device__ %s acc_check = %s;",
                 types[f64][0], cfp_load_symbol(f64));
        cr_assert(compiles_with(&n, "-DACC_FFT_LOAD", f64, check, why,
                                sizeof why), "%s", why);
        snprintf(check, sizeof check, "__device__ %s acc_check = %s;",
                 types[f64][1], cfp_store_symbol(f64));
        cr_assert(compiles_with(&n, "-DACC_FFT_STORE", f64, check, why,
                                sizeof why), "%s", why);
    }
    /* the control: the legacy callback type (size_t offset) is another */
    snprintf(check, sizeof check, "__device__ cufftCallbackLoadC acc_check "
             "= %s;", cfp_load_symbol(0));
    cr_assert_not(compiles_with(&n, "-DACC_FFT_LOAD", 0, check, why,
                                sizeof why));
    cr_assert(strstr(why, "acc_check"), "NVRTC names the check: %s", why);
}
#endif
