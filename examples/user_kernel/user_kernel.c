/*
 * user_kernel.c — a user's own C kernel as a foreign implementation, in
 * one call (acc_register_kernel; docs/PLUGINS.md, "User kernels").
 *
 *     saxpy a xs ys = foreign "user.saxpy"
 *                       (\(s, u, v) -> zipWith (\p q -> the s * p + q) u v)
 *                       (a, xs, ys)
 *
 * The text program (saxpy.acc in this folder, embedded below) is compiled
 * twice on the backend `auto` picks: in a context where the C source below
 * is registered under "user.saxpy" (accel compiles it with the CPU
 * backend's compiler, through its kernel cache; on the cuda backend the
 * host kernel is not used and the fallback runs), and in one without it,
 * where the fallback runs.  Each prints what its foreign node uses (from
 * the plan); the results must agree (they are the same operations in the
 * same order: exactly equal).  Exits non-zero on failure.  The same
 * kernel as a file for `accel run --kernel` is saxpy_kernel.c.
 */
#include <accel.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char program[] =
    "saxpy (a : Scalar f64) (xs : Vector f64) (ys : Vector f64)"
    " : Vector f64 =\n"
    "  foreign \"user.saxpy\" (\\(s, u, v) -> zipWith (\\p q -> the s * p + q)"
    " u v)\n"
    "    (a, xs, ys)\n";

static const char kernel_source[] =
    "void saxpy(double a, const double *x, const double *y, double *out,\n"
    "           int64_t nx, int64_t ny)\n"
    "{\n"
    "    int64_t n = nx < ny ? nx : ny;\n"
    "    for (int64_t i = 0; i < n; i++)\n"
    "        out[i] = a * x[i] + y[i];\n"
    "}\n";

enum { N = 1000000 };

static int failed(const char *what)
{
    fprintf(stderr, "user_kernel: %s failed: %s\n", what, acc_last_error());
    return 1;
}

/* Prints the "uses:" part of the plan's foreign step. */
static void print_use(const char *label, acc_program *p)
{
    char *plan = NULL;
    if (acc_program_explain(p, 0, &plan) != ACC_OK)
        return;
    const char *uses = strstr(plan, "uses: ");
    const char *end = uses ? strchr(uses, '\n') : NULL;
    printf("%-12s %s: %.*s\n", label,
           acc_backend_name(acc_program_backend(p)),
           uses ? (int)(end ? end - uses : (long)strlen(uses)) : 0,
           uses ? uses : "");
    acc_free(plan);
}

/* Compiles and runs saxpy in ctx; the result into out[N]. */
static int run(acc_context *ctx, const char *label, const double *xs,
               const double *ys, double a, double *out)
{
    acc_program *p = NULL;
    if (acc_compile_text(ctx, program, sizeof program - 1, "saxpy", &p) !=
        ACC_OK)
        return failed("acc_compile_text");
    print_use(label, p);
    int64_t n = N;
    acc_array in[3], res;
    int st = acc_array_init(&in[0], acc_type_scalar(ACC_F64), 0, NULL) ||
             acc_array_init(&in[1], acc_type_scalar(ACC_F64), 1, &n) ||
             acc_array_init(&in[2], acc_type_scalar(ACC_F64), 1, &n) ||
             acc_array_init(&res, acc_type_scalar(ACC_F64), 1, &n);
    in[0].data[0] = &a;
    in[1].data[0] = (void *)xs;
    in[2].data[0] = (void *)ys;
    res.data[0] = out;
    if (st || acc_run(p, 3, in, 1, &res) != ACC_OK) {
        acc_program_free(p);
        return failed("acc_run");
    }
    acc_program_free(p);
    return 0;
}

static acc_context *context(void)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.plugins = "none";
    acc_context *ctx = NULL;
    if (acc_context_create(&o, &ctx) != ACC_OK) {
        failed("acc_context_create");
        return NULL;
    }
    return ctx;
}

int main(void)
{
    double *xs = malloc(N * sizeof *xs), *ys = malloc(N * sizeof *ys);
    double *with = malloc(N * sizeof *with), *without = malloc(N * sizeof *with);
    acc_context *k = context(), *plain = context();
    int rc = !xs || !ys || !with || !without || !k || !plain;
    for (int i = 0; !rc && i < N; i++) {
        xs[i] = sin(i * 1e-3);
        ys[i] = (i % 101) * 0.25;
    }
    acc_user_kernel uk;
    memset(&uk, 0, sizeof uk);
    uk.struct_size = sizeof uk;
    uk.name = "user.saxpy";
    uk.backend = ACC_BACKEND_CPU;
    uk.source = kernel_source;
    uk.entry = "saxpy";
    uk.signature = "void(f64, const f64*, const f64*, f64*, i64, i64)";
    if (!rc && acc_register_kernel(k, &uk) != ACC_OK)
        rc = failed("acc_register_kernel");
    rc = rc || run(k, "user kernel", xs, ys, 2.5, with) ||
         run(plain, "fallback", xs, ys, 2.5, without);
    double diff = 0;
    for (int i = 0; !rc && i < N; i++)
        diff = fmax(diff, fabs(with[i] - without[i]));
    if (!rc)
        printf("%d elements, largest difference %g: %s\n", N, diff,
               diff == 0 ? "they agree" : "THEY DIFFER");
    rc = rc || diff != 0;
    acc_context_destroy(k);
    acc_context_destroy(plain);
    free(xs), free(ys), free(with), free(without);
    return rc;
}
