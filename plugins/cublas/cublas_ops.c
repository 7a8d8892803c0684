/*
 * cublas_ops.c — the cublas plugin's operations on device arrays: dot,
 * axpy, gemv and gemm for f32 and f64, each agreeing with the fallback of
 * the standard library (axpy: with zipWith (\x y -> a * x + y)).
 *
 * Operands are cut to their common length as zipWith intersects extents
 * (the same rule as the cblas plugin).  accel's matrices are row-major and
 * cuBLAS's column-major: a row-major [r, c] matrix with row length ld is
 * the column-major [c, r] matrix with leading dimension ld, i.e. its
 * transpose, so no copy is made:
 *   gemv  y = A x        is  y = (A^T)^T x: cuBLAS gemv with CUBLAS_OP_T
 *                            of the [k, m] column-major matrix;
 *   gemm  C = A B        is  C^T = B^T A^T: cuBLAS gemm of B (as [n, k])
 *                            by A (as [k, m]) into C (as [n, m]).
 * Everything is enqueued on the call's stream; dot and axpy read and write
 * their scalars in device memory (CUBLAS_POINTER_MODE_DEVICE), so nothing
 * waits for the device.  Extents beyond cuBLAS's int are refused with
 * ACC_ERR_UNSUPPORTED (the fallback computes them).
 */
#include "cublas_plugin.h"
#include "pcuda_lib.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

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

static acc_status status_of(pcublas_status s)
{
    if (s == PCUBLAS_STATUS_ALLOC_FAILED)
        return ACC_ERR_OUT_OF_DEVICE_MEMORY;
    if (s == PCUBLAS_STATUS_NOT_SUPPORTED)
        return ACC_ERR_UNSUPPORTED;
    return ACC_ERR_DEVICE;
}

/* ACC_OK, or the call fails naming the routine and cuBLAS's status. */
static acc_status check(const cbp_run *r, pcublas_status s, const char *what)
{
    char detail[256];
    if (s == PCUBLAS_STATUS_SUCCESS)
        return ACC_OK;
    snprintf(detail, sizeof detail, "status %d (%s)", (int)s,
             r->fn->cublasGetStatusString(s));
    return pcuda_fail(r->call, status_of(s), what, detail);
}

static pcu_deviceptr device_address(const void *p)
{
    return (pcu_deviceptr)(uintptr_t)p;
}

/* Zeroes result 0 on the stream (the empty sums of the fallbacks). */
static acc_status zero_result(const cbp_run *r)
{
    acc_array *a = &r->call->results[0];
    size_t elem = is_f32(r->call) ? sizeof(float) : sizeof(double);
    size_t words = (size_t)acc_array_size(a) * elem / 4;
    char err[256];
    if (words == 0)
        return ACC_OK;
    pcu_result e = r->driver->cuMemsetD32Async(
        device_address(a->data[0]), 0, words, (pcu_stream)r->call->stream);
    if (e == PCU_SUCCESS)
        return ACC_OK;
    pcuda_error_text(r->driver, e, err, sizeof err);
    return pcuda_fail(r->call, ACC_ERR_DEVICE, "cuMemsetD32Async", err);
}

static acc_status pointer_mode(const cbp_run *r, pcublas_pointer_mode mode)
{
    return check(r, r->fn->cublasSetPointerMode(r->handle, mode),
                 "cublasSetPointerMode");
}

/* ---- dot: x [n], y [n] -> Scalar ---------------------------------------- */

static acc_status scalar_shape(acc_foreign_call *c)
{
    (void)c; /* a Scalar has no extents */
    return ACC_OK;
}

static acc_status dot_run(const cbp_run *r)
{
    const acc_foreign_call *c = r->call;
    int64_t n = min64(c->args[0].extents[0], c->args[1].extents[0]);
    void *out = c->results[0].data[0];
    if (!fits(n))
        return ACC_ERR_UNSUPPORTED;
    if (n == 0)
        return zero_result(r);
    acc_status st = pointer_mode(r, PCUBLAS_POINTER_MODE_DEVICE);
    if (st != ACC_OK)
        return st;
    if (is_f32(c))
        return check(r, r->fn->cublasSdot(r->handle, (int)n,
                                           c->args[0].data[0], 1,
                                           c->args[1].data[0], 1, out),
                     "cublasSdot");
    return check(r, r->fn->cublasDdot(r->handle, (int)n, c->args[0].data[0],
                                      1, c->args[1].data[0], 1, out),
                 "cublasDdot");
}

/* ---- axpy: (Scalar a, x [n], y [n]) -> a x + y -------------------------- */

static acc_status axpy_shape(acc_foreign_call *c)
{
    c->results[0].extents[0] = min64(c->args[1].extents[0],
                                     c->args[2].extents[0]);
    return ACC_OK;
}

static acc_status axpy_run(const cbp_run *r)
{
    const acc_foreign_call *c = r->call;
    int64_t n = c->results[0].extents[0];
    const void *a = c->args[0].data[0], *x = c->args[1].data[0],
               *y = c->args[2].data[0];
    void *out = c->results[0].data[0];
    if (!fits(n))
        return ACC_ERR_UNSUPPORTED;
    if (n == 0)
        return ACC_OK;
    acc_status st = pointer_mode(r, PCUBLAS_POINTER_MODE_DEVICE);
    if (st == ACC_OK && is_f32(c))
        st = check(r, r->fn->cublasScopy(r->handle, (int)n, y, 1, out, 1),
                   "cublasScopy");
    else if (st == ACC_OK)
        st = check(r, r->fn->cublasDcopy(r->handle, (int)n, y, 1, out, 1),
                   "cublasDcopy");
    if (st != ACC_OK)
        return st;
    if (is_f32(c))
        return check(r, r->fn->cublasSaxpy(r->handle, (int)n, a, x, 1, out,
                                           1), "cublasSaxpy");
    return check(r, r->fn->cublasDaxpy(r->handle, (int)n, a, x, 1, out, 1),
                 "cublasDaxpy");
}

/* ---- gemv and gemm ------------------------------------------------------ */

/* What both do before calling cuBLAS for an [m, n] result (gemv: n = 1)
 * from a row-major [m, lda] matrix and sums of k terms: refuse what
 * exceeds cuBLAS's int, finish empty results (*done), zero the empty
 * sums, and take alpha and beta from host memory. */
static acc_status matrix_start(const cbp_run *r, int64_t m, int64_t n,
                               int64_t lda, int64_t k, int *done)
{
    *done = 1;
    if (!fits(m) || !fits(n) || !fits(lda))
        return ACC_ERR_UNSUPPORTED;
    if (m == 0 || n == 0)
        return ACC_OK;
    if (k == 0)
        return zero_result(r);
    *done = 0;
    return pointer_mode(r, PCUBLAS_POINTER_MODE_HOST);
}

static const float one_f = 1.0f, zero_f = 0.0f;
static const double one_d = 1.0, zero_d = 0.0;

/* ---- gemv: a [m, lda], x [n] -> [m], k = min(lda, n) -------------------- */

static acc_status gemv_shape(acc_foreign_call *c)
{
    c->results[0].extents[0] = c->args[0].extents[0];
    return ACC_OK;
}

static acc_status gemv_run(const cbp_run *r)
{
    const acc_foreign_call *c = r->call;
    const acc_array *a = &c->args[0], *x = &c->args[1];
    int64_t m = a->extents[0], lda = a->extents[1];
    int64_t k = min64(lda, x->extents[0]);
    void *y = c->results[0].data[0];
    int done = 0;
    acc_status st = matrix_start(r, m, 1, lda, k, &done);
    if (st != ACC_OK || done)
        return st;
    /* the row-major [m, lda] matrix is the column-major [lda, m] one; its
     * first k rows, transposed, times x */
    if (is_f32(c))
        return check(r, r->fn->cublasSgemv(
                            r->handle, PCUBLAS_OP_T, (int)k, (int)m, &one_f,
                            a->data[0], (int)lda, x->data[0], 1, &zero_f, y,
                            1), "cublasSgemv");
    return check(r, r->fn->cublasDgemv(r->handle, PCUBLAS_OP_T, (int)k,
                                       (int)m, &one_d, a->data[0], (int)lda,
                                       x->data[0], 1, &zero_d, y, 1),
                 "cublasDgemv");
}

/* ---- gemm: a [m, lda], b [kb, n] -> [m, n], k = min(lda, kb) ------------ */

static acc_status gemm_shape(acc_foreign_call *c)
{
    c->results[0].extents[0] = c->args[0].extents[0];
    c->results[0].extents[1] = c->args[1].extents[1];
    return ACC_OK;
}

static acc_status gemm_run(const cbp_run *r)
{
    const acc_foreign_call *c = r->call;
    const acc_array *a = &c->args[0], *b = &c->args[1];
    int64_t m = a->extents[0], lda = a->extents[1], n = b->extents[1];
    int64_t k = min64(lda, b->extents[0]);
    void *out = c->results[0].data[0];
    int done = 0;
    acc_status st = matrix_start(r, m, n, lda, k, &done);
    if (st != ACC_OK || done)
        return st;
    /* C^T [n, m] = B^T [n, k] A^T [k, m], all column-major views of the
     * row-major arrays: B's first k rows, A's first k columns */
    if (is_f32(c))
        return check(r, r->fn->cublasSgemm(
                            r->handle, PCUBLAS_OP_N, PCUBLAS_OP_N, (int)n,
                            (int)m, (int)k, &one_f, b->data[0], (int)n,
                            a->data[0], (int)lda, &zero_f, out, (int)n),
                     "cublasSgemm");
    return check(r, r->fn->cublasDgemm(r->handle, PCUBLAS_OP_N, PCUBLAS_OP_N,
                                       (int)n, (int)m, (int)k, &one_d,
                                       b->data[0], (int)n, a->data[0],
                                       (int)lda, &zero_d, out, (int)n),
                 "cublasDgemm");
}

const cbp_op cbp_ops[CBP_N_OPS] = {
    {"blas.dot", "cublas.dot", 2, {1, 1, 0}, 0, scalar_shape, dot_run},
    {"blas.axpy", "cublas.axpy", 3, {0, 1, 1}, 1, axpy_shape, axpy_run},
    {"blas.gemv", "cublas.gemv", 2, {2, 1, 0}, 1, gemv_shape, gemv_run},
    {"blas.gemm", "cublas.gemm", 2, {2, 2, 0}, 2, gemm_shape, gemm_run},
};
