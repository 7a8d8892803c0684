/*
 * vendor_bench.c — the plugin rows of `make bench`: the same text program
 * with a plugin and with its pure fallback (group `foreign`), and the
 * plugin against the vendor library called directly, both writing into
 * caller buffers (group `vendor`: cblas gemm, fftw 2-D f32 and 1-D f64).
 * The libraries are loaded at run time when installed, so the bench builds
 * without their headers; a missing one skips its row with a line saying so.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/vendor_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- foreign functions: a plugin against the pure fallback ----------------- */

/* A context like the main one with `plugin` loaded (NULL when it cannot be
 * loaded: the row is then reported as skipped). */
static acc_context *plugin_context(const bench *b, const char *plugin)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.num_threads = b->threads;
    acc_context *ctx = NULL;
    if (acc_context_create(&o, &ctx) != ACC_OK)
        return NULL;
    if (acc_plugin_load(ctx, plugin) != ACC_OK) {
        printf("%-22s (plugin %s not loaded: %s)\n", plugin, plugin,
               acc_last_error());
        acc_context_destroy(ctx);
        return NULL;
    }
    return ctx;
}

/* Median time of `entry` on ctx; the last run's outputs stay in out. */
static double time_entry(const bench *b, acc_context *ctx, const char *entry,
                         size_t n_in, const acc_array *in, acc_array *out)
{
    acc_program *p = bench_compile_in(b, ctx, entry);
    double t[64];
    for (int r = 0; r < b->runs; r++) {
        memset(out, 0, sizeof *out);
        double s = bench_now_ms();
        bench_run(b, p, n_in, in, 1, out);
        t[r] = bench_now_ms() - s;
        if (r + 1 < b->runs)
            acc_array_release(out);
    }
    acc_program_free(p);
    return bench_median(t, b->runs);
}

/* Element i of a leaf of f32 or (f64 set) f64. */
static double leaf_at(const void *leaf, int f64, size_t i)
{
    return f64 ? ((const double *)leaf)[i] : ((const float *)leaf)[i];
}

/* Whether every element of the `leaves` leaves of got is within rel times
 * (1 + the largest magnitude of want) of want's. */
static int agree_within(void *const *got, void *const *want, size_t leaves,
                        size_t count, int f64, double rel)
{
    double scale = 0, err = 0;
    for (size_t l = 0; l < leaves; l++)
        for (size_t i = 0; i < count; i++) {
            double w = leaf_at(want[l], f64, i);
            scale = fmax(scale, fabs(w));
            err = fmax(err, fabs(leaf_at(got[l], f64, i) - w));
        }
    return err <= rel * (1 + scale);
}

/* f32 arrays of the same shape and type (the foreign rows' results). */
static int close_enough(const acc_array *x, const acc_array *y, float rel)
{
    return agree_within(y->data, x->data, acc_type_leaf_count(x->type),
                        (size_t)acc_array_size(x), 0, rel);
}

/* One foreign benchmark: the same text program with and without the
 * plugin. */
static void foreign_row(bench *b, const char *plugin, const char *entry,
                        const char *size, size_t n_in, const acc_array *in)
{
    acc_context *with = plugin_context(b, plugin);
    if (!with)
        return;
    acc_array fast, pure;
    double t_plugin = time_entry(b, with, entry, n_in, in, &fast);
    double t_pure = time_entry(b, b->ctx, entry, n_in, in, &pure);
    char label[48];
    snprintf(label, sizeof label, "%s (%s)", entry, plugin);
    bench_report(b, label, size, t_plugin, "pure fallback", t_pure,
           close_enough(&pure, &fast, 1e-3f));
    acc_array_release(&fast);
    acc_array_release(&pure);
    acc_context_destroy(with);
}

void vendor_bench_foreign(bench *b)
{
    int64_t side = 512, ext[2] = {side, side};
    size_t n = (size_t)(side * side);
    float *re = bench_alloc(b, n * 4), *im = bench_alloc(b, n * 4);
    for (size_t i = 0; i < n; i++) {
        re[i] = (float)((i * 7) % 13) - 6.0f;
        im[i] = (float)((i * 3) % 5) - 2.0f;
    }
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    const acc_type *fields[2] = {f32, f32};
    acc_array sig;
    acc_array_init(&sig, acc_type_tuple(b->ctx, 2, fields), 2, ext);
    sig.data[0] = re;
    sig.data[1] = im;
    foreign_row(b, "fftw", "fft2", "512x512 complex", 1, &sig);
    int64_t cut = 32;
    acc_array hp_in[2] = {bench_scalar(ACC_I64, &cut), sig};
    foreign_row(b, "fftw", "highpass", "512x512, cut 32", 2, hp_in);
    int64_t m = (int64_t)(1024 * sqrt(b->scale)), mext[2];
    m = m < 8 ? 8 : m;
    mext[0] = mext[1] = m;
    float *a = bench_alloc(b, (size_t)(m * m) * 4), *c = bench_alloc(b, (size_t)(m * m) * 4);
    for (int64_t i = 0; i < m * m; i++) {
        a[i] = (float)(i % 17) * 0.125f - 1.0f;
        c[i] = (float)(i % 11) * 0.25f - 1.25f;
    }
    acc_array mats[2];
    acc_array_init(&mats[0], f32, 2, mext);
    acc_array_init(&mats[1], f32, 2, mext);
    mats[0].data[0] = a;
    mats[1].data[0] = c;
    char size[64];
    snprintf(size, sizeof size, "%lldx%lld f32", (long long)m, (long long)m);
    foreign_row(b, "cblas", "matmul", size, 2, mats);
    free(re);
    free(im);
    free(a);
    free(c);
}

/* ---- vendor calls: the plugin against the library called directly ---------- */

typedef void (*sgemm_fn)(int order, int ta, int tb, int m, int n, int k,
                         float alpha, const float *a, int lda, const float *b,
                         int ldb, float beta, float *c, int ldc);

typedef struct vendor_run {
    const bench *b;
    acc_program *p;
    size_t n_in;
    acc_array in[2], out;
    void (*direct)(struct vendor_run *v);
    sgemm_fn sgemm;
    int m;
    const float *a, *c;
    float *mine;
    void *plan;                                /* fftw: fftwf_plan */
    void (*execute)(void *plan, float *ri, float *ii, float *ro, float *io);
    float *re, *im, *ro, *io;
    /* fft1: fftw_plan (double), split arrays */
    void (*execute64)(void *plan, double *ri, double *ii, double *ro,
                      double *io);
    double *dre, *dim, *dro, *dio;
    /* run after accel's warm-up run, before the timed rounds (NULL: none);
     * returns 0 when the baseline cannot run (the row is skipped) */
    int (*prepare)(struct vendor_run *v);
    int f64; /* the results' leaves are f64 (else f32) */
} vendor_run;

static void vendor_accel(void *c)
{
    vendor_run *v = c;
    bench_run(v->b, v->p, v->n_in, v->in, 1, &v->out);
}

static void vendor_direct(void *c)
{
    vendor_run *v = c;
    v->direct(v);
}

static void sgemm_direct(vendor_run *v)
{
    enum { ROW_MAJOR = 101, NO_TRANS = 111 };
    v->sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, v->m, v->m, v->m, 1.0f, v->a,
             v->m, v->c, v->m, 0.0f, v->mine, v->m);
}

static void fft_direct(vendor_run *v)
{
    v->execute(v->plan, v->re, v->im, v->ro, v->io);
}

static void fft64_direct(vendor_run *v)
{
    v->execute64(v->plan, v->dre, v->dim, v->dro, v->dio);
}

/* The program `entry` in context `with` (holding `plugin`), into caller
 * buffers, against v->direct, interleaved, after one run of accel (the
 * plugin's first call plans) and v->prepare. */
static void vendor_row(bench *b, vendor_run *v, acc_context *with,
                       const char *plugin, const char *entry,
                       const char *size, const char *baseline,
                       void *const *got, void *const *want, size_t n_leaves,
                       size_t count)
{
    v->p = bench_compile_in(b, with, entry);
    vendor_accel(v);
    if (!v->prepare || v->prepare(v)) {
        bench_timed_fn fn[2] = {vendor_accel, vendor_direct};
        void *ctx[2] = {v, v};
        double med[2];
        bench_interleaved(b, 2, fn, ctx, med);
        char label[48];
        snprintf(label, sizeof label, "%s (%s)", entry, plugin);
        bench_report(b, label, size, med[0], baseline, med[1],
                     agree_within(got, want, n_leaves, count, v->f64, 1e-3));
    }
    acc_program_free(v->p);
}

/* Which kernels OpenBLAS chose (its dynamic-architecture build picks them
 * by CPU model at load; a model it does not know gets generic SSE3
 * "Prescott" ones, bench/README.md) and its threads, for the gemm row. */
static void openblas_note(const char *const *libs, size_t n)
{
    void *core = bench_find_symbol(libs, n, "openblas_get_corename");
    void *threads = bench_find_symbol(libs, n, "openblas_get_num_threads");
    char *(*core_fn)(void) = NULL;
    int (*threads_fn)(void) = NULL;
    if (!core || !threads)
        return;
    memcpy(&core_fn, &core, sizeof core);
    memcpy(&threads_fn, &threads, sizeof threads);
    printf("%-22s (OpenBLAS: %s kernels, %d threads; OPENBLAS_CORETYPE "
           "chooses others)\n", "matmul (cblas)", core_fn(), threads_fn());
}

static void vendor_gemm(bench *b)
{
    static const char *const libs[] = {"libopenblas.so.0", "libopenblas.so",
                                       "libcblas.so.3"};
    void *f = bench_find_symbol(libs, 3, "cblas_sgemm");
    int64_t m = (int64_t)(1024 * sqrt(b->scale)), ext[2];
    m = m < 8 ? 8 : m;
    ext[0] = ext[1] = m;
    if (!f) {
        printf("%-22s (no cblas_sgemm found)\n", "matmul (cblas)");
        return;
    }
    size_t n = (size_t)(m * m);
    float *a = bench_alloc(b, n * 4), *c = bench_alloc(b, n * 4);
    float *got = bench_touched(b, n * 4), *mine = bench_touched(b, n * 4);
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i % 17) * 0.125f - 1.0f;
        c[i] = (float)(i % 11) * 0.25f - 1.25f;
    }
    vendor_run v;
    memset(&v, 0, sizeof v);
    v.b = b;
    v.n_in = 2;
    acc_array_init(&v.in[0], acc_type_scalar(ACC_F32), 2, ext);
    acc_array_init(&v.in[1], acc_type_scalar(ACC_F32), 2, ext);
    v.in[0].data[0] = a;
    v.in[1].data[0] = c;
    v.out = bench_array(ACC_F32, 2, (int64_t[]){m, m}, got);
    memcpy(&v.sgemm, &f, sizeof f);
    v.direct = sgemm_direct;
    v.m = (int)m;
    v.a = a;
    v.c = c;
    v.mine = mine;
    char size[48];
    snprintf(size, sizeof size, "%lldx%lld f32", (long long)m, (long long)m);
    acc_context *with = plugin_context(b, "cblas");
    openblas_note(libs, 3);
    if (with)
        vendor_row(b, &v, with, "cblas", "matmul", size,
                   "cblas_sgemm direct", (void *[]){got}, (void *[]){mine}, 1,
                   n);
    acc_context_destroy(with);
    free(a);
    free(c);
    free(got);
    free(mine);
}

/* fftw_iodim and fftwf_iodim (fftw3.h): the bench does not include
 * fftw3.h, the libraries are loaded at run time when installed. */
typedef struct fftwf_dim {
    int n, is, os;
} fftwf_dim;
typedef void *(*fftwf_plan_split_fn)(int rank, const fftwf_dim *dims,
                                     int howmany, const fftwf_dim *hdims,
                                     float *ri, float *ii, float *ro,
                                     float *io, unsigned flags);
typedef void (*fftwf_exec_split_fn)(void *plan, float *ri, float *ii,
                                    float *ro, float *io);
typedef void (*fftwf_destroy_fn)(void *plan);

/* fft2 of a 512x512 complex f32 signal with the plugin, into caller
 * buffers, against FFTW's split-array transform planned once with
 * FFTW_MEASURE (flag values from fftw3.h: the bench does not include it,
 * libfftw3f is loaded at run time when installed). */
static void vendor_fft2(bench *b)
{
    static const char *const libs[] = {"libfftw3f.so.3", "libfftw3f.so"};
    void *fp = bench_find_symbol(libs, 2, "fftwf_plan_guru_split_dft");
    void *fe = bench_find_symbol(libs, 2, "fftwf_execute_split_dft");
    void *fd = bench_find_symbol(libs, 2, "fftwf_destroy_plan");
    if (!fp || !fe || !fd) {
        printf("%-22s (no libfftw3f found)\n", "fft2 (fftw)");
        return;
    }
    fftwf_plan_split_fn plan_fn;
    fftwf_destroy_fn destroy;
    vendor_run v;
    memset(&v, 0, sizeof v);
    memcpy(&plan_fn, &fp, sizeof fp);
    memcpy(&v.execute, &fe, sizeof fe);
    memcpy(&destroy, &fd, sizeof fd);
    int64_t side = 512, ext[2] = {side, side};
    size_t n = (size_t)(side * side);
    float *re = bench_alloc(b, n * 4), *im = bench_alloc(b, n * 4);
    float *got[2] = {bench_touched(b, n * 4), bench_touched(b, n * 4)};
    float *mine[2] = {bench_touched(b, n * 4), bench_touched(b, n * 4)};
    fftwf_dim dims[2] = {{(int)side, (int)side, (int)side}, {(int)side, 1, 1}};
    /* FFTW_MEASURE overwrites the arrays while planning: plan first */
    v.plan = plan_fn(2, dims, 0, NULL, re, im, mine[0], mine[1],
                     0u /* FFTW_MEASURE */ | (1u << 4) /* PRESERVE_INPUT */);
    for (size_t i = 0; i < n; i++) {
        re[i] = (float)((i * 7) % 13) - 6.0f;
        im[i] = (float)((i * 3) % 5) - 2.0f;
    }
    if (!v.plan) {
        printf("%-22s (FFTW could not plan)\n", "fft2 (fftw)");
        return;
    }
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    const acc_type *fields[2] = {f32, f32};
    const acc_type *c64 = acc_type_tuple(b->ctx, 2, fields);
    v.b = b;
    v.n_in = 1;
    acc_array_init(&v.in[0], c64, 2, ext);
    v.in[0].data[0] = re;
    v.in[0].data[1] = im;
    acc_array_init(&v.out, c64, 2, ext);
    v.out.data[0] = got[0];
    v.out.data[1] = got[1];
    v.direct = fft_direct;
    v.re = re;
    v.im = im;
    v.ro = mine[0];
    v.io = mine[1];
    acc_context *with = plugin_context(b, "fftw");
    if (with)
        vendor_row(b, &v, with, "fftw", "fft2", "512x512 complex",
                   "FFTW direct, MEASURE", (void *[]){got[0], got[1]},
                   (void *[]){mine[0], mine[1]}, 2, n);
    /* before the plugin goes: its unloading calls fftwf_cleanup, after
     * which no plan of the process may be used or destroyed */
    destroy(v.plan);
    acc_context_destroy(with);
    free(re);
    free(im);
    for (int i = 0; i < 2; i++) {
        free(got[i]);
        free(mine[i]);
    }
}

/* ---- fft1: 1-D 2^20 complex f64, FFTW with threads as the baseline -------- */

typedef void *(*fftw_plan_split_fn)(int rank, const fftwf_dim *dims,
                                    int howmany, const fftwf_dim *hdims,
                                    double *ri, double *ii, double *ro,
                                    double *io, unsigned flags);
typedef int (*fftw_init_threads_fn)(void);
typedef void (*fftw_nthreads_fn)(int nthreads);
typedef int (*fftw_planner_nthreads_fn)(void);

typedef struct fft1_lib {
    fftw_plan_split_fn plan;
    fftwf_destroy_fn destroy;
    fftw_nthreads_fn nthreads; /* NULL: no libfftw3_threads */
    fftw_planner_nthreads_fn current; /* FFTW >= 3.3.9; NULL: older */
    int threads;               /* the baseline's threads */
} fft1_lib;

static fft1_lib fft1_library;

static void fft1_signal(double *re, double *im, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        re[i] = (double)((i * 7) % 13) - 6.0;
        im[i] = (double)((i * 3) % 5) - 2.0;
    }
}

/* Plans the baseline with FFTW_MEASURE (FFTW_PATIENT when
 * ACC_BENCH_FFTW_PATIENT=1) on fft1_library.threads threads, after accel's
 * warm-up, so the plugin planned first with its own settings; then puts
 * FFTW's thread count back as it was (a process-wide setting the plugin
 * may rely on; 1, FFTW's default, where FFTW cannot say) and the input
 * back (planning overwrites it). */
static int fft1_prepare(vendor_run *v)
{
    fft1_lib *lib = &fft1_library;
    fftwf_dim dim = {v->m, 1, 1};
    unsigned effort = bench_env_int("ACC_BENCH_FFTW_PATIENT", 0) == 1
                          ? 1u << 5 /* FFTW_PATIENT */
                          : 0u /* FFTW_MEASURE */;
    int was = lib->current ? lib->current() : 1;
    if (lib->nthreads)
        lib->nthreads(lib->threads);
    v->plan = lib->plan(1, &dim, 0, NULL, v->dre, v->dim, v->dro, v->dio,
                        effort | (1u << 4) /* PRESERVE_INPUT */);
    if (lib->nthreads)
        lib->nthreads(was);
    fft1_signal(v->dre, v->dim, (size_t)v->m);
    if (!v->plan)
        printf("%-22s (FFTW could not plan)\n", "fft1 (fftw)");
    return v->plan != NULL;
}

/* Loads libfftw3 (and libfftw3_threads when installed) into fft1_library;
 * 0 when libfftw3 is missing. */
static int fft1_load(const bench *b)
{
    static const char *const libs[] = {"libfftw3.so.3", "libfftw3.so"};
    static const char *const thr[] = {"libfftw3_threads.so.3",
                                      "libfftw3_threads.so"};
    void *fp = bench_find_symbol(libs, 2, "fftw_plan_guru_split_dft");
    void *fd = bench_find_symbol(libs, 2, "fftw_destroy_plan");
    void *fi = bench_find_symbol(thr, 2, "fftw_init_threads");
    void *fn = bench_find_symbol(thr, 2, "fftw_plan_with_nthreads");
    fft1_lib *lib = &fft1_library;
    memset(lib, 0, sizeof *lib);
    if (!fp || !fd)
        return 0;
    memcpy(&lib->plan, &fp, sizeof fp);
    memcpy(&lib->destroy, &fd, sizeof fd);
    fftw_init_threads_fn init = NULL;
    if (fi && fn)
        memcpy(&init, &fi, sizeof fi);
    void *fc = bench_find_symbol(thr, 2, "fftw_planner_nthreads");
    if (init && init() != 0) {
        memcpy(&lib->nthreads, &fn, sizeof fn);
        if (fc)
            memcpy(&lib->current, &fc, sizeof fc);
    }
    lib->threads = lib->nthreads ? b->threads : 1;
    return 1;
}

/* fft1 (fft of a 2^20 vector of complex f64) with the plugin, into caller
 * buffers, against FFTW's split-array transform executed directly: its best
 * plan (FFTW_MEASURE, planned once outside the timing) on b->threads
 * threads, as issue 22's row "FFT 1-D 2^20 c128" asks. */
static void vendor_fft1(bench *b)
{
    void *fe = NULL;
    static const char *const libs[] = {"libfftw3.so.3", "libfftw3.so"};
    if (!fft1_load(b) ||
        !(fe = bench_find_symbol(libs, 2, "fftw_execute_split_dft"))) {
        printf("%-22s (no libfftw3 found)\n", "fft1 (fftw)");
        return;
    }
    int64_t n = 1 << 20;
    size_t bytes = (size_t)n * 8;
    vendor_run v;
    memset(&v, 0, sizeof v);
    memcpy(&v.execute64, &fe, sizeof fe);
    v.dre = bench_alloc(b, bytes);
    v.dim = bench_alloc(b, bytes);
    v.dro = bench_touched(b, bytes);
    v.dio = bench_touched(b, bytes);
    double *got[2] = {bench_touched(b, bytes), bench_touched(b, bytes)};
    fft1_signal(v.dre, v.dim, (size_t)n);
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    const acc_type *fields[2] = {f64, f64};
    const acc_type *c128 = acc_type_tuple(b->ctx, 2, fields);
    v.b = b;
    v.n_in = 1;
    v.m = (int)n;
    v.f64 = 1;
    acc_array_init(&v.in[0], c128, 1, &n);
    v.in[0].data[0] = v.dre;
    v.in[0].data[1] = v.dim;
    acc_array_init(&v.out, c128, 1, &n);
    v.out.data[0] = got[0];
    v.out.data[1] = got[1];
    v.direct = fft64_direct;
    v.prepare = fft1_prepare;
    char baseline[32];
    snprintf(baseline, sizeof baseline, "FFTW MEASURE, %d thr.",
             fft1_library.threads);
    acc_context *with = plugin_context(b, "fftw");
    if (with)
        vendor_row(b, &v, with, "fftw", "fft1", "1048576 c128", baseline,
                   (void *[]){got[0], got[1]}, (void *[]){v.dro, v.dio}, 2,
                   (size_t)n);
    /* before the plugin goes (it calls fftw_cleanup when unloaded) */
    if (v.plan)
        fft1_library.destroy(v.plan);
    acc_context_destroy(with);
    free(v.dre);
    free(v.dim);
    free(v.dro);
    free(v.dio);
    free(got[0]);
    free(got[1]);
}

void vendor_bench_vendor(bench *b)
{
    vendor_gemm(b);
    vendor_fft2(b);
    vendor_fft1(b);
}
