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
