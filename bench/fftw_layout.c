/*
 * fftw_layout.c — the fftw plugin against FFTW called directly (issue 22
 * item 7), and FFTW's split layout (accel's: re and im in two buffers)
 * against its interleaved one.  Not part of `make bench` (its planning
 * with FFTW_MEASURE takes seconds): built as build/bench/fftw_layout when
 * FFTW and its threads libraries are found (cmake/AccelBench.cmake), run
 * by hand:
 *
 *   build/bench/fftw_layout build/plugins 2d   # FFT 2-D 512x512 of (f32, f32)
 *   build/bench/fftw_layout build/plugins 1d   # FFT 1-D 2^20 of (f64, f64)
 *
 * Each line is the median (and min..max) of REPS executions, in ms, with
 * two threads and FFTW_MEASURE plans (the plugin's default): FFTW's
 * interleaved plan (fftw_plan_dft), its split plan (guru split), and
 * acc_run of acc_fft on the cpu backend with the fftw plugin, writing
 * into caller arrays (wisdom in a fresh folder, so the plugin times it).
 */
#define _POSIX_C_SOURCE 200809L
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accel.h"
#include "bench/bench_common.h"

enum { REPS = 31, THREADS = 2 };

typedef struct shape {
    int f32, rank, n[2];
    size_t total;
} shape;

/* Times fn(ctx) REPS times after one untimed call and prints the median
 * and the range. */
static void report(const char *what, bench_timed_fn fn, void *ctx)
{
    double t[REPS];
    fn(ctx);
    for (int r = 0; r < REPS; r++) {
        double s = bench_now_ms();
        fn(ctx);
        t[r] = bench_now_ms() - s;
    }
    double median = bench_median(t, REPS); /* sorts t */
    printf("%-34s median %8.3f ms  (%.3f .. %.3f)\n", what, median, t[0],
           t[REPS - 1]);
}

/* FFTW's calls of one precision (the f32 and f64 libraries have the same
 * calls under other prefixes and types), plans as void pointers. */
typedef struct fft_api {
    size_t elem; /* bytes of a real number */
    void (*threads)(int n);
    void *(*interleaved)(const shape *s, void *in, void *out);
    void *(*split)(const shape *s, void *re, void *im, void *ro, void *io);
    void (*execute)(void *plan);
    void (*destroy)(void *plan);
} fft_api;

/* The guru dimensions of a row-major shape, into n/is/os triples. */
static void dims(const shape *s, int *n, int *stride)
{
    int step = 1;
    for (int k = s->rank - 1; k >= 0; k--) {
        n[k] = s->n[k];
        stride[k] = step;
        step *= s->n[k];
    }
}

static void *f32_interleaved(const shape *s, void *in, void *out)
{
    return fftwf_plan_dft(s->rank, s->n, in, out, FFTW_FORWARD, FFTW_MEASURE);
}

static void *f32_split(const shape *s, void *re, void *im, void *ro, void *io)
{
    int n[2], st[2];
    fftwf_iodim d[2];
    dims(s, n, st);
    for (int k = 0; k < s->rank; k++)
        d[k] = (fftwf_iodim){n[k], st[k], st[k]};
    return fftwf_plan_guru_split_dft(s->rank, d, 0, NULL, re, im, ro, io,
                                     FFTW_MEASURE);
}

static void f32_execute(void *plan)
{
    fftwf_execute(plan);
}

static void f32_destroy(void *plan)
{
    fftwf_destroy_plan(plan);
}

static void *f64_interleaved(const shape *s, void *in, void *out)
{
    return fftw_plan_dft(s->rank, s->n, in, out, FFTW_FORWARD, FFTW_MEASURE);
}

static void *f64_split(const shape *s, void *re, void *im, void *ro, void *io)
{
    int n[2], st[2];
    fftw_iodim d[2];
    dims(s, n, st);
    for (int k = 0; k < s->rank; k++)
        d[k] = (fftw_iodim){n[k], st[k], st[k]};
    return fftw_plan_guru_split_dft(s->rank, d, 0, NULL, re, im, ro, io,
                                    FFTW_MEASURE);
}

static void f64_execute(void *plan)
{
    fftw_execute(plan);
}

static void f64_destroy(void *plan)
{
    fftw_destroy_plan(plan);
}

static const fft_api f32_api = {sizeof(float), fftwf_plan_with_nthreads,
                                f32_interleaved, f32_split, f32_execute,
                                f32_destroy};
static const fft_api f64_api = {sizeof(double), fftw_plan_with_nthreads,
                                f64_interleaved, f64_split, f64_execute,
                                f64_destroy};

typedef struct plan_run {
    const fft_api *api;
    void *plan;
} plan_run;

static void run_plan(void *c)
{
    plan_run *r = c;
    r->api->execute(r->plan);
}

static void direct(const shape *s)
{
    const fft_api *api = s->f32 ? &f32_api : &f64_api;
    size_t bytes = s->total * api->elem;
    void *in = fftw_malloc(2 * bytes), *out = fftw_malloc(2 * bytes);
    void *re = fftw_malloc(bytes), *im = fftw_malloc(bytes);
    void *ro = fftw_malloc(bytes), *io = fftw_malloc(bytes);
    double t0 = bench_now_ms();
    api->threads(THREADS);
    plan_run inter = {api, api->interleaved(s, in, out)};
    plan_run split = {api, api->split(s, re, im, ro, io)};
    printf("(FFTW planning: %.0f ms)\n", bench_now_ms() - t0);
    memset(in, 0, 2 * bytes); /* MEASURE planning overwrote the arrays */
    memset(re, 0, bytes);
    memset(im, 0, bytes);
    report("FFTW interleaved, direct", run_plan, &inter);
    report("FFTW split, direct", run_plan, &split);
    api->destroy(inter.plan);
    api->destroy(split.plan);
    fftw_free(in);
    fftw_free(out);
    fftw_free(re);
    fftw_free(im);
    fftw_free(ro);
    fftw_free(io);
}

typedef struct accel_run {
    acc_program *p;
    acc_array in, out;
    acc_status st; /* the last run's */
} accel_run;

static void run_accel(void *c)
{
    accel_run *a = c;
    a->st = acc_run(a->p, 1, &a->in, 1, &a->out);
}

/* acc_fft of the shape with the fftw plugin; 0 when it ran. */
static int through_accel(const shape *s, const char *plugins)
{
    char dir[] = "/tmp/fftw_layout-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.num_threads = THREADS;
    o.plugin_path = plugins;
    o.plugins = "none";
    o.cache_dir = dir;
    acc_context *ctx = NULL;
    acc_graph *g = NULL;
    accel_run a = {NULL, {0}, {0}, ACC_OK};
    acc_scalar e = s->f32 ? ACC_F32 : ACC_F64;
    size_t esz = s->f32 ? sizeof(float) : sizeof(double);
    if (acc_context_create(&o, &ctx) != ACC_OK ||
        acc_plugin_load(ctx, "fftw") != ACC_OK ||
        acc_graph_create(ctx, &g) != ACC_OK) {
        fprintf(stderr, "setup: %s\n", acc_last_error());
        return 1;
    }
    const acc_type *pair[2] = {acc_type_scalar(e), acc_type_scalar(e)};
    const acc_type *elem = acc_type_tuple(ctx, 2, pair);
    acc_node *r = acc_fft(g, acc_input(g, elem, s->rank));
    if (acc_compile(ctx, g, 1, &r, &a.p) != ACC_OK) {
        fprintf(stderr, "compile: %s\n", acc_last_error());
        return 1;
    }
    int64_t ext[2] = {s->n[0], s->n[1]};
    acc_array_init(&a.in, elem, s->rank, ext);
    acc_array_init(&a.out, elem, s->rank, ext);
    for (int c = 0; c < 2; c++) {
        a.in.data[c] = calloc(s->total, esz);
        a.out.data[c] = calloc(s->total, esz);
    }
    double t0 = bench_now_ms();
    run_accel(&a); /* the plugin plans (and times) it */
    printf("(accel first run, planning included: %.0f ms)\n",
           bench_now_ms() - t0);
    if (a.st != ACC_OK) {
        fprintf(stderr, "run: %s\n", acc_last_error());
        return 1;
    }
    report("accel acc_fft (fftw plugin)", run_accel, &a);
    for (int c = 0; c < 2; c++) {
        free(a.in.data[c]);
        free(a.out.data[c]);
    }
    acc_program_free(a.p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) != 0 || a.st != ACC_OK;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fftw_layout PLUGIN_DIR 2d|1d\n");
        return 2;
    }
    shape s2 = {1, 2, {512, 512}, 512 * 512};
    shape s1 = {0, 1, {1 << 20, 0}, 1 << 20};
    const shape *s = strcmp(argv[2], "2d") == 0 ? &s2 : &s1;
    printf("%s, %d threads, FFTW_MEASURE\n",
           s == &s2 ? "FFT 2-D 512x512 c64" : "FFT 1-D 2^20 c128", THREADS);
    /* accel first: FFTW's threads are set up by the plugin's load */
    int rc = through_accel(s, argv[1]);
    fftw_init_threads();
    fftwf_init_threads();
    direct(s);
    return rc;
}
