/*
 * foreign_dot.c — one program, with and without a plugin.
 *
 *     dotp xs ys = dot xs ys        -- a foreign node named "blas.dot"
 *
 * acc_dot builds a foreign node whose fallback is the array code
 * fold (+) 0 (zipWith (*) xs ys).  The program is compiled twice: in a
 * context that loads no plugin (option plugins = "none": the fallback
 * runs), and in one that loaded the cblas plugin (OpenBLAS's ddot runs),
 * both on the backend `auto` picks.  (A context with the default options
 * would load cblas by itself when it compiles the foreign node; loading
 * it by name shows the call.)  Each prints the backend, which
 * implementation was used (from the plan), the result and the median time
 * of a few runs; both results must agree.  The plugin is looked up in
 * $ACC_PLUGIN_PATH, the install folder next to libaccel and, run from the
 * build tree, build/plugins.  Exits non-zero on failure; a missing plugin
 * is reported, not a failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <accel.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { N = 4000000, RUNS = 7 };

static int failed(const char *what)
{
    fprintf(stderr, "foreign_dot: %s failed: %s\n", what, acc_last_error());
    return 1;
}

/* Prints the "uses:" part of the plan's foreign step. */
static void print_choice(const acc_program *p)
{
    char *plan = NULL;
    if (acc_program_explain(p, 0, &plan) != ACC_OK)
        return;
    const char *uses = strstr(plan, "uses: ");
    const char *end = uses ? strchr(uses, '\n') : NULL;
    if (uses)
        printf("  blas.dot %.*s\n", end ? (int)(end - uses) : (int)strlen(uses),
               uses);
    acc_free(plan);
}

/* Compiles dot xs ys in ctx, runs it RUNS times, prints what ran, the
 * value and the median time. */
static int run_dot(acc_context *ctx, const double *x, const double *y,
                   double *result)
{
    acc_graph *g = NULL;
    acc_program *p = NULL;
    int rc = 1;
    if (acc_graph_create(ctx, &g) != ACC_OK)
        return failed("acc_graph_create");
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    acc_node *xs = acc_input(g, f64, 1), *ys = acc_input(g, f64, 1);
    acc_node *dot = acc_dot(g, xs, ys);
    if (acc_compile(ctx, g, 1, &dot, &p) != ACC_OK) {
        failed("acc_compile");
        goto out;
    }
    print_choice(p);
    int64_t n = N;
    acc_array in[2], out;
    acc_array_init(&in[0], f64, 1, &n);
    acc_array_init(&in[1], f64, 1, &n);
    in[0].data[0] = (void *)x;
    in[1].data[0] = (void *)y;
    acc_array_init(&out, f64, 0, NULL);
    out.data[0] = result; /* written by the run */
    double ms[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double start = now_ms();
        if (acc_run(p, 2, in, 1, &out) != ACC_OK) {
            failed("acc_run");
            goto out;
        }
        ms[r] = now_ms() - start;
    }
    qsort(ms, RUNS, sizeof *ms, by_value);
    printf("  dot = %.6f   (n = %d, %.3f ms, median of %d runs)\n", *result,
           N, ms[RUNS / 2], RUNS);
    rc = 0;
out:
    acc_program_free(p);
    acc_graph_free(g);
    return rc;
}

static int demo(const double *x, const double *y)
{
    acc_context *plain = NULL, *blas = NULL;
    acc_backend backend = ACC_BACKEND_AUTO;
    double a = 0, b = 0;
    int rc = 1;
    acc_context_options none;
    acc_context_options_init(&none);
    none.plugins = "none";
    if (acc_context_create(&none, &plain) != ACC_OK ||
        acc_context_create(&none, &blas) != ACC_OK)
        return failed("acc_context_create");
    acc_context_backend(plain, &backend);
    printf("backend in use: %s\n", acc_backend_name(backend));
    printf("without plugins:\n");
    if (run_dot(plain, x, y, &a) != 0)
        goto out;
    printf("with the cblas plugin:\n");
    if (acc_plugin_load(blas, "cblas") != ACC_OK) {
        printf("  (not available: %s)\n", acc_context_last_error(blas));
        rc = 0;
        goto out;
    }
    if (run_dot(blas, x, y, &b) != 0)
        goto out;
    rc = fabs(a - b) > 1e-9 * fabs(a) ? 1 : 0;
    printf("the two agree: %s\n", rc ? "NO" : "yes");
out:
    acc_context_destroy(plain);
    acc_context_destroy(blas);
    return rc;
}

int main(void)
{
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    if (!x || !y)
        return 1;
    for (int i = 0; i < N; i++) {
        x[i] = sin(0.001 * i);
        y[i] = cos(0.002 * i);
    }
    int rc = demo(x, y);
    free(x);
    free(y);
    return rc;
}
