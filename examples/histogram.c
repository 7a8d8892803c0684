/*
 * histogram.c — a histogram by forward permutation, compiled once and run
 * many times.
 *
 *     histogram bins xs = permute (+) (fill [bins] 0) bin (map (\_ -> 1) xs)
 *       where bin ix = let v = xs ! ix
 *                      in if 0 <= v && v < bins then [v] else ignore
 *
 * Every element of xs adds 1 to the bin it names; values outside [0, bins)
 * are dropped (ignore).  The program also returns `sum histogram` (the
 * standard library's sum), the number of values counted.  It runs on the
 * example of LANGUAGE.md §3.4 (20 values, 10 bins) and on 10^6 built-in
 * pseudo-random values in 256 bins, checks every bin against a plain C
 * loop, and prints the backend, a summary of each result and the compile
 * and run times.  Exits non-zero on any failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <accel.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 5

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Reports a failed call with the library's own explanation. */
static int failed(const char *what, acc_status st)
{
    fprintf(stderr, "histogram: %s failed: %s: %s\n", what,
            acc_status_string(st), acc_last_error());
    return 0;
}

/* \ix -> let v = convert (xs ! ix) in if 0 <= v && v < bins then [v]
 *                                     else ignore */
static acc_node *bin_of(acc_graph *g, acc_node *xs, acc_node *bins)
{
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *v = acc_convert(g, acc_read(g, xs, ix), ACC_I64);
    acc_node *in_range = acc_binop(
        g, ACC_OP_LAND,
        acc_binop(g, ACC_OP_GE, v, acc_const_i64(g, ACC_I64, 0)),
        acc_binop(g, ACC_OP_LT, v, bins));
    acc_node *body = acc_cond(g, in_range, acc_index(g, 1, &v),
                              acc_ignore(g, 1));
    return acc_lambda(g, 1, &ix, body);
}

/* Builds the histogram of input 0 (a Vector i32) into `the input 1` bins
 * (a Scalar i64), and its sum.  Builder errors are sticky, so the calls are
 * chained without checks and acc_compile reports the first one. */
static void build_histogram(acc_graph *g, acc_node *results[2])
{
    const acc_type *i32 = acc_type_scalar(ACC_I32);
    acc_node *xs = acc_input(g, i32, 1);                          /* input 0 */
    acc_node *bins = acc_the(g, acc_input(g, acc_type_scalar(ACC_I64), 0));

    acc_node *x = acc_param(g, i32);
    acc_node *ones = acc_map(g, acc_lambda(g, 1, &x, acc_const_i64(g, ACC_I32, 1)),
                             xs);
    acc_node *a = acc_param(g, i32), *b = acc_param(g, i32);
    acc_node *add_params[2] = {a, b};
    acc_node *add = acc_lambda(g, 2, add_params, acc_binop(g, ACC_OP_ADD, a, b));
    acc_node *zeros = acc_fill(g, acc_index(g, 1, &bins),
                               acc_const_i64(g, ACC_I32, 0));

    results[0] = acc_permute(g, add, zeros, bin_of(g, xs, bins), ones);
    results[1] = acc_sum(g, results[0]);
}

static acc_program *compile_histogram(acc_context *ctx, double *seconds)
{
    acc_graph *g = NULL;
    acc_program *p = NULL;
    acc_node *results[2];
    acc_status st = acc_graph_create(ctx, &g);
    if (st != ACC_OK) {
        failed("acc_graph_create", st);
        return NULL;
    }
    build_histogram(g, results);
    double t0 = now_seconds();
    st = acc_compile(ctx, g, 2, results, &p);
    *seconds = now_seconds() - t0;
    if (st != ACC_OK)
        failed("acc_compile", st);
    acc_graph_free(g); /* the program keeps what it needs */
    return p;
}

static void print_backends(acc_context *ctx, acc_program *p)
{
    static const acc_backend all[] = {ACC_BACKEND_INTERP, ACC_BACKEND_CPU,
                                      ACC_BACKEND_CUDA};
    printf("accel %s (ABI %u)\n", acc_version_string(),
           (unsigned)acc_abi_version());
    printf("backend in use: %s\n", acc_backend_name(acc_program_backend(p)));
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        int available = 0;
        const char *reason = NULL;
        if (acc_context_backend_available(ctx, all[i], &available, &reason) !=
                ACC_OK ||
            !reason)
            continue;
        printf("  %-6s %s\n", acc_backend_name(all[i]), reason);
    }
}

/* One data set: the values, the number of bins, and the histogram a C loop
 * computes for them. */
typedef struct data_set {
    const char *name;
    int32_t *xs;
    int64_t n, bins;
    int32_t *want;  /* bins entries */
    int64_t counted; /* values inside [0, bins) */
} data_set;

static void reference_histogram(data_set *d)
{
    memset(d->want, 0, (size_t)d->bins * sizeof *d->want);
    d->counted = 0;
    for (int64_t i = 0; i < d->n; i++)
        if (d->xs[i] >= 0 && d->xs[i] < d->bins) {
            d->want[d->xs[i]]++;
            d->counted++;
        }
}

/* Runs the program once; the library allocates both results, which are
 * compared with the reference and released.  Returns 1 when they match. */
static int run_once(acc_program *p, const data_set *d, double *seconds)
{
    acc_array in[2], out[2];
    int64_t bins = d->bins;
    acc_array_init(&in[0], acc_type_scalar(ACC_I32), 1, &d->n);
    acc_array_init(&in[1], acc_type_scalar(ACC_I64), 0, NULL);
    in[0].data[0] = d->xs;
    in[1].data[0] = &bins;
    memset(out, 0, sizeof out);
    out[0].struct_size = out[1].struct_size = sizeof out[0];
    double t0 = now_seconds();
    acc_status st = acc_run(p, 2, in, 2, out); /* data[0] NULL: accel allocates */
    *seconds = now_seconds() - t0;
    if (st != ACC_OK)
        return failed("acc_run", st);
    int ok = out[0].rank == 1 && out[0].extents[0] == d->bins &&
             memcmp(out[0].data[0], d->want,
                    (size_t)d->bins * sizeof *d->want) == 0 &&
             *(const int32_t *)out[1].data[0] == (int32_t)d->counted;
    if (!ok)
        fprintf(stderr, "histogram: %s: the result differs from the C loop\n",
                d->name);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
    return ok;
}

/* Prints the number of values, of bins, and the fullest and emptiest bins. */
static void print_summary(const data_set *d, double median_seconds)
{
    int64_t hi = 0, lo = 0;
    for (int64_t b = 1; b < d->bins; b++) {
        hi = d->want[b] > d->want[hi] ? b : hi;
        lo = d->want[b] < d->want[lo] ? b : lo;
    }
    printf("%-9s n = %7lld  bins = %3lld  counted %7lld (dropped %lld)  "
           "fullest bin %lld: %d  emptiest bin %lld: %d  run %8.3f ms "
           "(median of %d)\n",
           d->name, (long long)d->n, (long long)d->bins,
           (long long)d->counted, (long long)(d->n - d->counted),
           (long long)hi, d->want[hi], (long long)lo, d->want[lo],
           median_seconds * 1e3, RUNS);
}

/* Runs one data set RUNS times; returns 1 when every result is right. */
static int check_data(acc_program *p, data_set *d)
{
    double times[RUNS];
    reference_histogram(d);
    for (int r = 0; r < RUNS; r++)
        if (!run_once(p, d, &times[r]))
            return 0;
    qsort(times, RUNS, sizeof times[0], compare_doubles);
    print_summary(d, times[RUNS / 2]);
    if (d->bins <= 10) {
        printf("          histogram:");
        for (int64_t b = 0; b < d->bins; b++)
            printf(" %d", d->want[b]);
        printf("\n");
    }
    return 1;
}

/* xorshift32: a small deterministic generator for the built-in data. */
static uint32_t next_random(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* Deterministic values for the large data set: the sum of two uniform
 * values (a triangular distribution over [0, bins - 1)), with every
 * 1000th value out of range (-1 or bins) to exercise ignore. */
static void fill_values(int32_t *xs, int64_t n, int64_t bins)
{
    uint32_t state = 12345u, half = (uint32_t)(bins / 2);
    for (int64_t i = 0; i < n; i++) {
        uint32_t a = next_random(&state) % half;
        uint32_t b = next_random(&state) % half;
        xs[i] = i % 1000 == 999 ? (i % 2000 == 999 ? -1 : (int32_t)bins)
                                : (int32_t)(a + b);
    }
}

static int check_all(acc_program *p)
{
    static int32_t small[20] = {0, 0, 1, 2, 1, 1, 2, 4, 8, 3,
                                4, 9, 8, 3, 2, 5, 5, 3, 1, 2};
    int32_t small_want[10];
    data_set sets[2] = {{"example", small, 20, 10, small_want, 0},
                        {"large", NULL, 1000000, 256, NULL, 0}};
    sets[1].xs = malloc((size_t)sets[1].n * sizeof *sets[1].xs);
    sets[1].want = malloc((size_t)sets[1].bins * sizeof *sets[1].want);
    int ok = sets[1].xs && sets[1].want;
    if (!ok)
        fprintf(stderr, "histogram: out of memory\n");
    if (ok)
        fill_values(sets[1].xs, sets[1].n, sets[1].bins);
    for (size_t i = 0; ok && i < 2; i++)
        ok = check_data(p, &sets[i]);
    free(sets[1].xs);
    free(sets[1].want);
    return ok;
}

int main(void)
{
    acc_context *ctx = NULL;
    acc_program *p = NULL;
    double compile_seconds = 0.0;
    int ok = 0;

    acc_status st = acc_context_create(NULL, &ctx); /* AUTO: the best backend */
    if (st != ACC_OK) {
        failed("acc_context_create", st);
        return 1;
    }
    p = compile_histogram(ctx, &compile_seconds);
    if (p) {
        print_backends(ctx, p);
        printf("compiled permute (+) (fill [bins] 0) bin (map (\\_ -> 1) xs) "
               "and its sum in %.3f ms\n", compile_seconds * 1e3);
        ok = check_all(p);
    }
    acc_program_free(p);
    acc_context_destroy(ctx);
    puts(ok ? "all results correct" : "FAILED");
    return ok ? 0 : 1;
}
