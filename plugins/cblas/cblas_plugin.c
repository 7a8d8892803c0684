/*
 * cblas_plugin.c — the cblas plugin (DESIGN.md §8): OpenBLAS behind the
 * foreign names "blas.dot", "blas.axpy", "blas.gemv" and "blas.gemm", for
 * f32 and f64 arrays in host memory (host backends), priority 10.
 *
 * Each operation agrees with the fallback of the standard library (or,
 * for axpy, with zipWith (\x y -> a * x + y)): operands are cut to their
 * common length, as zipWith intersects extents.  Extents beyond BLAS's
 * integer type are refused at run time with ACC_ERR_UNSUPPORTED, so the
 * fallback computes them.
 */
#include "accel.h"

#include <cblas.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The ranks an operation takes: its arguments (a Scalar is rank 0) and its
 * one result. */
typedef struct op_shape {
    size_t n_args;
    int32_t ranks[3];
    int32_t result_rank;
} op_shape;

static const op_shape dot_shape = {2, {1, 1, 0}, 0};
static const op_shape axpy_shape = {3, {0, 1, 1}, 1};
static const op_shape gemv_shape = {2, {2, 1, 0}, 1};
static const op_shape gemm_shape = {2, {2, 2, 0}, 2};

static int is_float(const acc_type *t, acc_scalar *s)
{
    if (acc_type_get_kind(t) != ACC_TYPE_SCALAR)
        return 0;
    *s = acc_type_get_scalar(t);
    return *s == ACC_F32 || *s == ACC_F64;
}

static int refuse(acc_foreign_query *q, const char *why)
{
    snprintf(q->reason, q->reason_size, "%s", why);
    return 0;
}

/* Every array of one float type, of the ranks the operation takes. */
static int accepts(acc_foreign_query *q)
{
    const op_shape *want = q->user;
    acc_scalar s0 = 0, s = 0;
    if (q->n_args != want->n_args || q->n_results != 1 ||
        q->result_ranks[0] != want->result_rank)
        return refuse(q, "the arguments or the result have other ranks "
                         "than the BLAS routine takes");
    for (size_t i = 0; i < q->n_args; i++)
        if (q->arg_ranks[i] != want->ranks[i])
            return refuse(q, "an argument has another rank than the BLAS "
                             "routine takes");
    if (!is_float(q->result_elems[0], &s0))
        return refuse(q, "the element type is not f32 or f64");
    for (size_t i = 0; i < q->n_args; i++)
        if (!is_float(q->arg_elems[i], &s) || s != s0)
            return refuse(q, "the arrays are not all f32 or all f64");
    return 1;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int fits(int64_t v)
{
    return v <= INT_MAX;
}

static int is_f32(const acc_foreign_call *c)
{
    return acc_type_get_scalar(c->results[0].type) == ACC_F32;
}

/* Zeroes a result: an empty inner dimension gives a product of zeros,
 * and BLAS routines are not called on empty operands. */
static void zero(acc_array *a)
{
    int64_t n = acc_array_size(a);
    size_t bytes = (size_t)n * acc_scalar_size(acc_type_get_scalar(a->type));
    if (bytes)
        memset(a->data[0], 0, bytes);
}

/* ---- dot ------------------------------------------------------------------ */

static acc_status dot_shape_fn(acc_foreign_call *c)
{
    (void)c; /* a Scalar */
    return ACC_OK;
}

static acc_status dot_execute(acc_foreign_call *c)
{
    int64_t n = min64(c->args[0].extents[0], c->args[1].extents[0]);
    if (!fits(n))
        return ACC_ERR_UNSUPPORTED;
    if (is_f32(c))
        *(float *)c->results[0].data[0] =
            n ? cblas_sdot((blasint)n, c->args[0].data[0], 1,
                           c->args[1].data[0], 1) : 0.0f;
    else
        *(double *)c->results[0].data[0] =
            n ? cblas_ddot((blasint)n, c->args[0].data[0], 1,
                           c->args[1].data[0], 1) : 0.0;
    return ACC_OK;
}

/* ---- axpy: (a, x, y) -> a x + y --------------------------------------------- */

static acc_status axpy_shape_fn(acc_foreign_call *c)
{
    c->results[0].extents[0] = min64(c->args[1].extents[0],
                                     c->args[2].extents[0]);
    return ACC_OK;
}

static acc_status axpy_execute(acc_foreign_call *c)
{
    int64_t n = c->results[0].extents[0];
    size_t elem = is_f32(c) ? sizeof(float) : sizeof(double);
    if (!fits(n))
        return ACC_ERR_UNSUPPORTED;
    if (n == 0)
        return ACC_OK;
    memcpy(c->results[0].data[0], c->args[2].data[0], (size_t)n * elem);
    if (is_f32(c))
        cblas_saxpy((blasint)n, *(const float *)c->args[0].data[0],
                    c->args[1].data[0], 1, c->results[0].data[0], 1);
    else
        cblas_daxpy((blasint)n, *(const double *)c->args[0].data[0],
                    c->args[1].data[0], 1, c->results[0].data[0], 1);
    return ACC_OK;
}

/* ---- gemv: a [m, n], x [n] -> [m] ------------------------------------------- */

static acc_status gemv_shape_fn(acc_foreign_call *c)
{
    c->results[0].extents[0] = c->args[0].extents[0];
    return ACC_OK;
}

static acc_status gemv_execute(acc_foreign_call *c)
{
    const acc_array *a = &c->args[0], *x = &c->args[1];
    int64_t m = a->extents[0], lda = a->extents[1];
    int64_t k = min64(lda, x->extents[0]);
    if (!fits(m) || !fits(lda))
        return ACC_ERR_UNSUPPORTED;
    /* with beta = 0 BLAS writes every element of y without reading it:
     * only an empty product leaves the result to be zeroed here */
    if (m == 0 || k == 0) {
        zero(&c->results[0]);
        return ACC_OK;
    }
    if (is_f32(c))
        cblas_sgemv(CblasRowMajor, CblasNoTrans, (blasint)m, (blasint)k, 1.0f,
                    a->data[0], (blasint)lda, x->data[0], 1, 0.0f,
                    c->results[0].data[0], 1);
    else
        cblas_dgemv(CblasRowMajor, CblasNoTrans, (blasint)m, (blasint)k, 1.0,
                    a->data[0], (blasint)lda, x->data[0], 1, 0.0,
                    c->results[0].data[0], 1);
    return ACC_OK;
}

/* ---- gemm: a [m, k], b [k, n] -> [m, n] ------------------------------------- */

static acc_status gemm_shape_fn(acc_foreign_call *c)
{
    c->results[0].extents[0] = c->args[0].extents[0];
    c->results[0].extents[1] = c->args[1].extents[1];
    return ACC_OK;
}

static acc_status gemm_execute(acc_foreign_call *c)
{
    const acc_array *a = &c->args[0], *b = &c->args[1];
    int64_t m = a->extents[0], lda = a->extents[1], n = b->extents[1];
    int64_t k = min64(lda, b->extents[0]);
    if (!fits(m) || !fits(n) || !fits(lda))
        return ACC_ERR_UNSUPPORTED;
    /* beta = 0: C is written, never read (no zeroing pass over it) */
    if (m == 0 || n == 0 || k == 0) {
        zero(&c->results[0]);
        return ACC_OK;
    }
    if (is_f32(c))
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)m,
                    (blasint)n, (blasint)k, 1.0f, a->data[0], (blasint)lda,
                    b->data[0], (blasint)n, 0.0f, c->results[0].data[0],
                    (blasint)n);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)m,
                    (blasint)n, (blasint)k, 1.0, a->data[0], (blasint)lda,
                    b->data[0], (blasint)n, 0.0, c->results[0].data[0],
                    (blasint)n);
    return ACC_OK;
}

/* ---- registration ------------------------------------------------------------ */

static acc_status add(acc_plugin_registrar *reg, const char *name,
                      const char *impl_name, const op_shape *shape,
                      acc_status (*shape_fn)(acc_foreign_call *),
                      acc_status (*execute)(acc_foreign_call *))
{
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = name;
    impl.impl_name = impl_name;
    impl.backend = ACC_BACKEND_CPU;
    impl.priority = 10;
    impl.accepts = accepts;
    impl.result_shape = shape_fn;
    impl.execute = execute;
    impl.user = (void *)shape;
    impl.note = "OpenBLAS, f32 and f64";
    return reg->add(reg, &impl);
}

/* The plugin's entry (ACC_PLUGIN_ENTRY_SYMBOL). */
acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version);

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version)
{
    acc_status st = ACC_PLUGIN_DECLARE(reg, "cblas");
    (void)abi_version; /* the declaration checks it */
    if (st == ACC_OK)
        st = add(reg, "blas.dot", "cblas.dot", &dot_shape, dot_shape_fn,
                 dot_execute);
    if (st == ACC_OK)
        st = add(reg, "blas.axpy", "cblas.axpy", &axpy_shape, axpy_shape_fn,
                 axpy_execute);
    if (st == ACC_OK)
        st = add(reg, "blas.gemv", "cblas.gemv", &gemv_shape, gemv_shape_fn,
                 gemv_execute);
    if (st == ACC_OK)
        st = add(reg, "blas.gemm", "cblas.gemm", &gemm_shape, gemm_shape_fn,
                 gemm_execute);
    return st;
}
