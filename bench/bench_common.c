/*
 * bench_common.c — the pieces shared by the benchmark programs (see
 * bench_common.h): the text programs, descriptors, timing, the rows.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/bench_common.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A program file's text without its first line (its title comment, as in
 * tests/support/text_sources.c); exits when it cannot be read. */
static char *program_body(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = bench_read_text(path);
    if (!text) {
        fprintf(stderr, "bench: cannot read %s (set ACC_BENCH_SOURCE_DIR to "
                        "the source tree)\n", path);
        exit(1);
    }
    const char *body = strchr(text, '\n');
    if (body)
        memmove(text, body + 1, strlen(body + 1) + 1);
    return text;
}

const char *bench_source(void)
{
    static char *text;
    static const char *const files[] = {"tests/programs/language4.acc",
                                        "tests/programs/sieve.acc",
                                        "bench/programs.acc"};
    if (text)
        return text;
    const char *dir = getenv("ACC_BENCH_SOURCE_DIR");
    dir = dir && *dir ? dir : ACC_BENCH_SOURCE_DIR;
    char *part[3];
    size_t len = 0;
    for (size_t i = 0; i < 3; i++) {
        part[i] = program_body(dir, files[i]);
        len += strlen(part[i]) + 1;
    }
    text = malloc(len + 1);
    if (!text) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    text[0] = '\0';
    for (size_t i = 0; i < 3; i++) {
        strcat(strcat(text, part[i]), "\n"); /* a blank line between files */
        free(part[i]);
    }
    return text;
}

char *bench_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long n = -1;
    char *s = NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1)) &&
        fread(s, 1, (size_t)n, f) == (size_t)n) {
        s[n] = '\0';
    } else {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, by_value);
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

/* A CSV field and its comma, quoted (RFC 4180) when it holds a comma or a
 * quote: names like "dotp, small" and sizes like "n=10, 2 primes". */
static void csv_field(FILE *csv, const char *text)
{
    if (!strpbrk(text, ",\"")) {
        fprintf(csv, "%s,", text);
        return;
    }
    fputc('"', csv);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', csv);
        fputc(*c, csv);
    }
    fputs("\",", csv);
}

/* The row; bytes <= 0: not a memory-bound row (no fraction shown). */
static void report(bench *b, const char *name, const char *size,
                   double accel_ms, const char *baseline, double base_ms,
                   int agree, double bytes)
{
    double limit = bytes <= 0 ? 0
                   : b->read_limit ? b->read_limit(b, bytes)
                                   : b->bandwidth;
    double fraction = limit > 0 && accel_ms > 0 ? bytes / accel_ms / limit
                                                : -1;
    int in_llc = b->llc_bytes > 0 && bytes <= b->llc_bytes;
    double ratio = accel_ms > 0 ? base_ms / accel_ms : 0;
    printf("%-22s %-16s %12.4g %-20s %12.4g %8.2fx  %s", name, size,
           accel_ms, baseline, base_ms, ratio, agree ? "ok" : "MISMATCH");
    csv_field(b->csv, name);
    csv_field(b->csv, size);
    fprintf(b->csv, "%.6f,", accel_ms);
    csv_field(b->csv, baseline);
    fprintf(b->csv, "%.6f,%.4f,%s,", base_ms, ratio,
            agree ? "ok" : "mismatch");
    if (fraction >= 0) {
        printf("  %3.0f%% of read bw (%.1f GB/s%s)", 100 * fraction,
               limit / 1e6, in_llc ? "; fits in the LLC" : "");
        fprintf(b->csv, "%.6g,%.6g,%s", fraction, limit / 1e6,
                in_llc ? "yes" : "no");
    } else {
        fputs(",,", b->csv);
    }
    printf("\n");
    fprintf(b->csv, "\n");
    b->failures += !agree;
}

void bench_report(bench *b, const char *name, const char *size,
                  double accel_ms, const char *baseline, double base_ms,
                  int agree)
{
    report(b, name, size, accel_ms, baseline, base_ms, agree, 0);
}

void bench_report_mem(bench *b, const char *name, const char *size,
                      double accel_ms, const char *baseline, double base_ms,
                      int agree, double bytes)
{
    report(b, name, size, accel_ms, baseline, base_ms, agree, bytes);
}

void bench_headings(bench *b)
{
    fprintf(b->csv, "benchmark,size,accel_ms,baseline,baseline_ms,"
                    "baseline_over_accel,check,accel_fraction_of_bandwidth,"
                    "read_limit_gbps,fits_llc\n");
    printf("%-22s %-16s %12s %-20s %12s %9s\n", "benchmark", "size",
           "accel ms", "baseline", "baseline ms", "accel/base");
    printf("(accel/base = baseline time / accel time: 1.00x is equal speed, "
           "above 1 accel is faster; memory-bound rows end with the bytes "
           "they read and write once / accel's time, as a share of the "
           "best streaming read rate measured beyond the last-level cache "
           "or at the row's footprint, and say when that fits in the "
           "LLC)\n");
}

acc_context *bench_context(const bench *b, const char *cache_dir)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.num_threads = b->threads;
    o.cache_dir = cache_dir;
    o.plugins = "none"; /* accel's own code; plugin rows load theirs */
    acc_context *ctx = NULL;
    if (acc_context_create(&o, &ctx) != ACC_OK) {
        fprintf(stderr, "%s: %s\n", b->tool, acc_last_error());
        exit(1);
    }
    return ctx;
}

acc_program *bench_compile_in(const bench *b, acc_context *ctx,
                              const char *entry)
{
    acc_program *p = NULL;
    if (acc_compile_text(ctx, bench_source(), (size_t)-1, entry, &p) !=
        ACC_OK) {
        fprintf(stderr, "%s: cannot compile %s: %s\n", b->tool, entry,
                acc_last_error());
        exit(1);
    }
    return p;
}

acc_program *bench_compile(const bench *b, const char *entry)
{
    return bench_compile_in(b, b->ctx, entry);
}

void bench_run(const bench *b, acc_program *p, size_t n_in, const acc_array *in,
               size_t n_out, acc_array *out)
{
    if (acc_run(p, n_in, in, n_out, out) != ACC_OK) {
        fprintf(stderr, "%s: run failed: %s\n", b->tool, acc_last_error());
        exit(1);
    }
}

void *bench_alloc(const bench *b, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", b->tool);
        exit(1);
    }
    return p;
}

void *bench_touched(const bench *b, size_t bytes)
{
    void *p = bench_alloc(b, bytes);
    memset(p, 0, bytes);
    return p;
}

acc_array bench_array(acc_scalar s, int rank, const int64_t *ext, void *data)
{
    acc_array a;
    acc_array_init(&a, acc_type_scalar(s), rank, ext);
    a.data[0] = data;
    return a;
}

acc_array bench_vector(acc_scalar s, int64_t n, void *data)
{
    return bench_array(s, 1, &n, data);
}

acc_array bench_scalar(acc_scalar s, void *data)
{
    return bench_array(s, 0, NULL, data);
}

double bench_time(const bench *b, bench_timed_fn fn, void *ctx)
{
    double t[64];
    for (int r = 0; r < b->runs; r++) {
        double s = bench_now_ms();
        fn(ctx);
        t[r] = bench_now_ms() - s;
    }
    return bench_median(t, b->runs);
}

void bench_call_run(void *call)
{
    bench_call *c = call;
    bench_run(c->b, c->p, c->n_in, c->in, 1, c->out);
}

uint64_t bench_lcg(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state;
}

void bench_interleaved(const bench *b, size_t n, bench_timed_fn *fn,
                       void **ctx, double *median)
{
    double t[8][64];
    for (int r = 0; r < b->runs; r++)
        for (size_t j = 0; j < n; j++) {
            size_t k = (j + (size_t)r) % n;
            double s = bench_now_ms();
            fn[k](ctx[k]);
            t[k][r] = bench_now_ms() - s;
        }
    for (size_t k = 0; k < n; k++)
        median[k] = bench_median(t[k], b->runs);
}

void *bench_find_symbol(const char *const *libs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        void *lib = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        void *f = lib ? dlsym(lib, name) : NULL;
        if (f)
            return f;
    }
    return NULL;
}

int bench_selected(const char *group)
{
    const char *only = getenv("ACC_BENCH_ONLY");
    if (!only || !*only)
        return 1;
    size_t n = strlen(group);
    for (const char *p = only; (p = strstr(p, group)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int bench_env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && atoi(v) > 0 ? atoi(v) : fallback;
}
