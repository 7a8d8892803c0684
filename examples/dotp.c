/*
 * dotp.c — the dot product, compiled once and run many times.
 *
 *     dotp xs ys = fold (+) 0 (zipWith (*) xs ys)
 *
 * Builds the program with the builder API on f32 vectors, compiles it once,
 * runs it on three built-in inputs of 10, 1000 and 1000000 elements, checks
 * each result against a plain C loop, and prints the version, the backends,
 * the results and the compile and run times.  Exits non-zero on any failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <accel.h>

#include <float.h>
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

static double abs_double(double x)
{
    return x < 0 ? -x : x;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Reports a failed call with the library's own explanation. */
static int failed(const char *what, acc_status st)
{
    fprintf(stderr, "dotp: %s failed: %s: %s\n", what, acc_status_string(st),
            acc_last_error());
    return 0;
}

/* Builds fold (+) 0 (zipWith (*) xs ys) on f32 vectors.  Builder errors are
 * sticky, so the calls are chained without checks and acc_compile reports
 * the first one. */
static acc_node *build_dotp(acc_graph *g)
{
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    acc_node *xs = acc_input(g, f32, 1); /* input 0 */
    acc_node *ys = acc_input(g, f32, 1); /* input 1 */

    acc_node *a = acc_param(g, f32), *b = acc_param(g, f32);
    acc_node *mul_params[2] = {a, b};
    acc_node *mul = acc_lambda(g, 2, mul_params, acc_binop(g, ACC_OP_MUL, a, b));

    acc_node *c = acc_param(g, f32), *d = acc_param(g, f32);
    acc_node *add_params[2] = {c, d};
    acc_node *add = acc_lambda(g, 2, add_params, acc_binop(g, ACC_OP_ADD, c, d));

    acc_node *vectors[2] = {xs, ys};
    acc_node *products = acc_zipwith(g, mul, 2, vectors);
    return acc_fold(g, add, acc_const_f64(g, ACC_F32, 0.0), products);
}

static acc_program *compile_dotp(acc_context *ctx, double *seconds)
{
    acc_graph *g = NULL;
    acc_program *p = NULL;
    acc_status st = acc_graph_create(ctx, &g);
    if (st != ACC_OK) {
        failed("acc_graph_create", st);
        return NULL;
    }
    acc_node *result = build_dotp(g);
    double t0 = now_seconds();
    st = acc_compile(ctx, g, 1, &result, &p);
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
        /* the reason starts with "available" or "not available" */
        printf("  %-6s %s\n", acc_backend_name(all[i]), reason);
    }
}

/* Runs the program once on xs and ys of n elements; the library allocates
 * the Scalar result, which is copied out and released. */
static acc_status run_dotp(acc_program *p, const acc_type *f32, float *xs,
                           float *ys, int64_t n, float *result)
{
    acc_array in[2], out;
    acc_array_init(&in[0], f32, 1, &n);
    acc_array_init(&in[1], f32, 1, &n);
    in[0].data[0] = xs;
    in[1].data[0] = ys;
    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out; /* data[0] NULL: accel allocates */
    acc_status st = acc_run(p, 2, in, 1, &out);
    if (st == ACC_OK) {
        *result = *(const float *)out.data[0];
        acc_array_release(&out);
    }
    return st;
}

/* Deterministic inputs with a known scale: xs[i] in [-1, 1), ys[i] in
 * [0, 2). */
static void fill_inputs(float *xs, float *ys, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        xs[i] = (float)((i * 37) % 200 - 100) / 100.0f;
        ys[i] = (float)((i * 11) % 100) / 50.0f;
    }
}

/* The reference: the same sum accumulated in double.  *abs_sum receives
 * the sum of |x*y|, which bounds the rounding error of the f32 result. */
static double reference_dotp(const float *xs, const float *ys, int64_t n,
                             double *abs_sum)
{
    double sum = 0.0;
    *abs_sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double p = (double)xs[i] * (double)ys[i];
        sum += p;
        *abs_sum += abs_double(p);
    }
    return sum;
}

/* An f32 sum of n terms, in whatever order accel chooses, is within
 * n * FLT_EPSILON * sum|x*y| of the exact result (the classic bound for
 * floating-point summation); anything further off is wrong. */
static int close_enough(float got, double want, double abs_sum, int64_t n)
{
    double bound = (double)(n + 1) * FLT_EPSILON * abs_sum;
    return abs_double((double)got - want) <= bound;
}

/* Runs one size RUNS times; returns 1 when every result is right. */
static int check_size(acc_program *p, const acc_type *f32, int64_t n)
{
    float *xs = malloc((size_t)n * sizeof *xs);
    float *ys = malloc((size_t)n * sizeof *ys);
    double times[RUNS];
    int ok = xs && ys;
    if (!ok)
        fprintf(stderr, "dotp: out of memory for %lld elements\n",
                (long long)n);
    if (ok)
        fill_inputs(xs, ys, n);
    double abs_sum = 0.0;
    double want = ok ? reference_dotp(xs, ys, n, &abs_sum) : 0.0;
    for (int r = 0; ok && r < RUNS; r++) {
        float got = 0.0f;
        double t0 = now_seconds();
        acc_status st = run_dotp(p, f32, xs, ys, n, &got);
        times[r] = now_seconds() - t0;
        if (st != ACC_OK) {
            ok = failed("acc_run", st);
            break;
        }
        if (!close_enough(got, want, abs_sum, n)) {
            fprintf(stderr, "dotp: n=%lld: got %.6f, expected %.6f\n",
                    (long long)n, (double)got, want);
            ok = 0;
        } else if (r == RUNS - 1) {
            qsort(times, RUNS, sizeof times[0], compare_doubles);
            printf("n = %8lld  result %14.4f  reference %14.4f  "
                   "(rel. diff %.1e)  run %9.3f ms (median of %d)\n",
                   (long long)n, (double)got, want,
                   abs_double((double)got - want) /
                       (abs_double(want) > 0 ? abs_double(want) : 1.0),
                   times[RUNS / 2] * 1e3, RUNS);
        }
    }
    free(xs);
    free(ys);
    return ok;
}

int main(void)
{
    static const int64_t sizes[] = {10, 1000, 1000000};
    acc_context *ctx = NULL;
    acc_program *p = NULL;
    double compile_seconds = 0.0;
    int ok = 0;

    acc_status st = acc_context_create(NULL, &ctx); /* AUTO: the best backend */
    if (st != ACC_OK) {
        failed("acc_context_create", st);
        return 1;
    }
    p = compile_dotp(ctx, &compile_seconds);
    if (p) {
        print_backends(ctx, p);
        printf("compiled fold (+) 0 (zipWith (*) xs ys) in %.3f ms\n",
               compile_seconds * 1e3);
        ok = 1;
        for (size_t i = 0; ok && i < sizeof sizes / sizeof sizes[0]; i++)
            ok = check_size(p, acc_type_scalar(ACC_F32), sizes[i]);
    }
    acc_program_free(p);
    acc_context_destroy(ctx);
    puts(ok ? "all results correct" : "FAILED");
    return ok ? 0 : 1;
}
