/*
 * fftw_layout.c — the fftw plugin against FFTW called directly (issue 22
 * item 7), and FFTW's split layout (accel's: re and im in two buffers)
 * against its interleaved one.  Not part of `make bench`: a standalone
 * measurement, built and run by hand:
 *
 *   cc -O2 -std=c11 -Iabi/include bench/fftw_layout.c -Lbuild -laccel \
 *      -Wl,-rpath,$PWD/build -lfftw3_threads -lfftw3f_threads -lfftw3 \
 *      -lfftw3f -lm -o /tmp/fftw_layout
 *   /tmp/fftw_layout build/plugins 2d   # FFT 2-D 512x512 of (f32, f32)
 *   /tmp/fftw_layout build/plugins 1d   # FFT 1-D 2^20 of (f64, f64)
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
#include <time.h>
#include <unistd.h>

#include "accel.h"

enum { REPS = 31, THREADS = 2 };

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *t)
{
    qsort(t, REPS, sizeof *t, cmp);
    printf("%-34s median %8.3f ms  (%.3f .. %.3f)\n", what, t[REPS / 2], t[0],
           t[REPS - 1]);
}

typedef struct shape {
    int f32, rank, n[2];
    size_t total;
} shape;

/* Times fn(plan) REPS times after one warm-up. */
#define TIME(label, stmt)                                                    \
    do {                                                                     \
        double t_[REPS];                                                     \
        stmt;                                                                \
        for (int r_ = 0; r_ < REPS; r_++) {                                  \
            double t0_ = now_ms();                                           \
            stmt;                                                            \
            t_[r_] = now_ms() - t0_;                                         \
        }                                                                    \
        report(label, t_);                                                   \
    } while (0)

static void direct(const shape *s)
{
    size_t esz = s->f32 ? sizeof(float) : sizeof(double);
    void *in = fftw_malloc(2 * s->total * esz);
    void *out = fftw_malloc(2 * s->total * esz);
    void *re = fftw_malloc(s->total * esz), *im = fftw_malloc(s->total * esz);
    void *ro = fftw_malloc(s->total * esz), *io = fftw_malloc(s->total * esz);
    fftw_iodim d[2];
    fftwf_iodim df[2];
    int stride = 1;
    for (int k = s->rank - 1; k >= 0; k--) {
        d[k].n = df[k].n = s->n[k];
        d[k].is = d[k].os = df[k].is = df[k].os = stride;
        stride *= s->n[k];
    }
    double t0 = now_ms();
    if (s->f32) {
        fftwf_plan_with_nthreads(THREADS);
        fftwf_plan pi = fftwf_plan_dft(s->rank, s->n, in, out, FFTW_FORWARD,
                                       FFTW_MEASURE);
        fftwf_plan ps = fftwf_plan_guru_split_dft(s->rank, df, 0, NULL, re, im,
                                                  ro, io, FFTW_MEASURE);
        printf("(FFTW planning: %.0f ms)\n", now_ms() - t0);
        memset(in, 0, 2 * s->total * esz);
        memset(re, 0, s->total * esz);
        memset(im, 0, s->total * esz);
        TIME("FFTW interleaved, direct", fftwf_execute(pi));
        TIME("FFTW split, direct", fftwf_execute(ps));
        fftwf_destroy_plan(pi);
        fftwf_destroy_plan(ps);
    } else {
        fftw_plan_with_nthreads(THREADS);
        fftw_plan pi = fftw_plan_dft(s->rank, s->n, in, out, FFTW_FORWARD,
                                     FFTW_MEASURE);
        fftw_plan ps = fftw_plan_guru_split_dft(s->rank, d, 0, NULL, re, im,
                                                ro, io, FFTW_MEASURE);
        printf("(FFTW planning: %.0f ms)\n", now_ms() - t0);
        memset(in, 0, 2 * s->total * esz);
        memset(re, 0, s->total * esz);
        memset(im, 0, s->total * esz);
        TIME("FFTW interleaved, direct", fftw_execute(pi));
        TIME("FFTW split, direct", fftw_execute(ps));
        fftw_destroy_plan(pi);
        fftw_destroy_plan(ps);
    }
    fftw_free(in);
    fftw_free(out);
    fftw_free(re);
    fftw_free(im);
    fftw_free(ro);
    fftw_free(io);
}

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
    acc_program *p = NULL;
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
    if (acc_compile(ctx, g, 1, &r, &p) != ACC_OK) {
        fprintf(stderr, "compile: %s\n", acc_last_error());
        return 1;
    }
    acc_array in, out;
    memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    in.type = elem;
    in.rank = s->rank;
    for (int k = 0; k < s->rank; k++)
        in.extents[k] = s->n[k];
    in.memory = ACC_MEMORY_HOST;
    out = in;
    for (int c = 0; c < 2; c++) {
        in.data[c] = calloc(s->total, esz);
        out.data[c] = calloc(s->total, esz);
    }
    double t0 = now_ms();
    acc_status st = acc_run(p, 1, &in, 1, &out); /* the plugin times it */
    printf("(accel first run, planning included: %.0f ms)\n", now_ms() - t0);
    if (st != ACC_OK) {
        fprintf(stderr, "run: %s\n", acc_last_error());
        return 1;
    }
    TIME("accel acc_fft (fftw plugin)", (void)acc_run(p, 1, &in, 1, &out));
    for (int c = 0; c < 2; c++) {
        free(in.data[c]);
        free(out.data[c]);
    }
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) != 0;
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
