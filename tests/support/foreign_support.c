/*
 * foreign_support.c — the helpers of foreign_support.h.
 */
#include "foreign_support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

acc_program *tf_compile(acc_context *ctx, acc_graph *g, acc_node *r)
{
    acc_program *p = NULL;
    acc_status st = acc_compile(ctx, g, 1, &r, &p);
    cr_assert_eq(st, ACC_OK, "compile: %s", acc_last_error());
    return p;
}

char *tf_plan(const acc_program *p)
{
    char *text = NULL;
    cr_assert_eq(acc_program_explain(p, 0, &text), ACC_OK);
    return text;
}

void tf_run(acc_program *p, size_t n_in, const acc_array *in, size_t n_out,
            acc_array *out)
{
    for (size_t i = 0; i < n_out; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].struct_size = sizeof out[i];
    }
    acc_status st = acc_run(p, n_in, in, n_out, out);
    cr_assert_eq(st, ACC_OK, "run: %s", acc_last_error());
}

acc_array tf_f64(int32_t rank, const int64_t *extents, double *data)
{
    void *bufs[1] = {data};
    return ts_host_array(acc_type_scalar(ACC_F64), rank, extents, bufs);
}

double tf_max_diff(const double *a, const double *b, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) > m)
            m = fabs(a[i] - b[i]);
    return m;
}

acc_node *tf_axpy(acc_graph *g, acc_node *arg)
{
    acc_node *p = acc_param(g, acc_node_type(arg));
    acc_node *u = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *v = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *uv[2] = {u, v};
    acc_node *alpha = acc_the(g, acc_get(g, p, 0));
    acc_node *f = acc_lambda(g, 2, uv, acc_binop(
        g, ACC_OP_ADD, acc_binop(g, ACC_OP_MUL, alpha, u), v));
    acc_node *xy[2] = {acc_get(g, p, 1), acc_get(g, p, 2)};
    return acc_foreign(g, "blas.axpy", acc_lambda(
        g, 1, &p, acc_zipwith(g, f, 2, xy)), arg);
}

acc_user_kernel tf_user_kernel(const char *name, acc_backend backend,
                               const char *source, const char *entry,
                               const char *signature)
{
    acc_user_kernel k;
    memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    k.name = name;
    k.backend = backend;
    k.source = source;
    k.entry = entry;
    k.signature = signature;
    return k;
}

const char tf_scale_cu[] =
    "extern \"C\" __global__ void uk_scale(const double *x, double *out,\n"
    "                                      long long n)\n"
    "{\n"
    "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = 3 * x[i] + 1;\n"
    "}\n";
