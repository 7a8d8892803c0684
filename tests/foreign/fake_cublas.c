/*
 * fake_cublas.c — a stand-in libcublas.so.13 for the host-side check of
 * the cublas plugin (with fake_cuda_driver.c): every cuBLAS function the
 * plugin resolves, computing on host memory with OpenBLAS's column-major
 * CBLAS, which has cuBLAS's documented semantics (both are column-major
 * BLAS; cuBLAS adds the handle, the stream and the pointer mode).  So the
 * plugin's row-major-to-column-major argument mapping, its cut lengths
 * and its pointer modes are checked without a GPU.
 *
 * A scalar argument or result is read or written through its pointer in
 * either pointer mode (host and "device" memory are the same here), but
 * the mode is checked: dot and axpy must use device mode, gemv and gemm
 * host mode, as the plugin promises; a call in the other mode fails with
 * CUBLAS_STATUS_INVALID_VALUE (7).  Calls without a stream set fail too.
 * fake_cublas_live() and fake_cublas_created() count handles.
 */
#include <cblas.h>
#include <stdlib.h>

typedef int cublasStatus_t;
enum { OK = 0, ALLOC_FAILED = 3, INVALID_VALUE = 7 };
enum { MODE_HOST = 0, MODE_DEVICE = 1 };

typedef struct fake_handle {
    int mode;
    void *stream;
} fake_handle;

static int live, created;

int fake_cublas_live(void);
int fake_cublas_created(void);
int fake_cublas_live(void)
{
    return live;
}
int fake_cublas_created(void)
{
    return created;
}

#define FAKE(name, params) \
    cublasStatus_t name params; cublasStatus_t name params

static int ready(const fake_handle *h, int mode)
{
    return h && h->stream && h->mode == mode;
}

FAKE(cublasCreate_v2, (fake_handle **h))
{
    *h = calloc(1, sizeof **h);
    if (!*h)
        return ALLOC_FAILED;
    live++;
    created++;
    return OK;
}
FAKE(cublasDestroy_v2, (fake_handle *h))
{
    live--;
    free(h);
    return OK;
}
FAKE(cublasGetProperty, (int type, int *value))
{
    *value = type == 0 ? 13 : 0; /* MAJOR_VERSION: the soname's */
    return OK;
}
const char *cublasGetStatusString(cublasStatus_t s);
const char *cublasGetStatusString(cublasStatus_t s)
{
    return s == INVALID_VALUE ? "fake: wrong pointer mode or no stream"
                              : "fake status";
}
FAKE(cublasSetStream_v2, (fake_handle *h, void *stream))
{
    h->stream = stream;
    return OK;
}
FAKE(cublasSetPointerMode_v2, (fake_handle *h, int mode))
{
    h->mode = mode;
    return OK;
}

FAKE(cublasSdot_v2, (fake_handle *h, int n, const float *x, int incx,
                     const float *y, int incy, float *r))
{
    if (!ready(h, MODE_DEVICE))
        return INVALID_VALUE;
    *r = cblas_sdot(n, x, incx, y, incy);
    return OK;
}
FAKE(cublasDdot_v2, (fake_handle *h, int n, const double *x, int incx,
                     const double *y, int incy, double *r))
{
    if (!ready(h, MODE_DEVICE))
        return INVALID_VALUE;
    *r = cblas_ddot(n, x, incx, y, incy);
    return OK;
}
FAKE(cublasScopy_v2, (fake_handle *h, int n, const float *x, int incx,
                      float *y, int incy))
{
    if (!h || !h->stream)
        return INVALID_VALUE;
    cblas_scopy(n, x, incx, y, incy);
    return OK;
}
FAKE(cublasDcopy_v2, (fake_handle *h, int n, const double *x, int incx,
                      double *y, int incy))
{
    if (!h || !h->stream)
        return INVALID_VALUE;
    cblas_dcopy(n, x, incx, y, incy);
    return OK;
}
FAKE(cublasSaxpy_v2, (fake_handle *h, int n, const float *a, const float *x,
                      int incx, float *y, int incy))
{
    if (!ready(h, MODE_DEVICE))
        return INVALID_VALUE;
    cblas_saxpy(n, *a, x, incx, y, incy);
    return OK;
}
FAKE(cublasDaxpy_v2, (fake_handle *h, int n, const double *a,
                      const double *x, int incx, double *y, int incy))
{
    if (!ready(h, MODE_DEVICE))
        return INVALID_VALUE;
    cblas_daxpy(n, *a, x, incx, y, incy);
    return OK;
}

static enum CBLAS_TRANSPOSE op(int o)
{
    return o ? CblasTrans : CblasNoTrans;
}

FAKE(cublasSgemv_v2, (fake_handle *h, int t, int m, int n, const float *al,
                      const float *a, int lda, const float *x, int incx,
                      const float *be, float *y, int incy))
{
    if (!ready(h, MODE_HOST))
        return INVALID_VALUE;
    cblas_sgemv(CblasColMajor, op(t), m, n, *al, a, lda, x, incx, *be, y,
                incy);
    return OK;
}
FAKE(cublasDgemv_v2, (fake_handle *h, int t, int m, int n, const double *al,
                      const double *a, int lda, const double *x, int incx,
                      const double *be, double *y, int incy))
{
    if (!ready(h, MODE_HOST))
        return INVALID_VALUE;
    cblas_dgemv(CblasColMajor, op(t), m, n, *al, a, lda, x, incx, *be, y,
                incy);
    return OK;
}
FAKE(cublasSgemm_v2, (fake_handle *h, int ta, int tb, int m, int n, int k,
                      const float *al, const float *a, int lda,
                      const float *b, int ldb, const float *be, float *c,
                      int ldc))
{
    if (!ready(h, MODE_HOST))
        return INVALID_VALUE;
    cblas_sgemm(CblasColMajor, op(ta), op(tb), m, n, k, *al, a, lda, b, ldb,
                *be, c, ldc);
    return OK;
}
FAKE(cublasDgemm_v2, (fake_handle *h, int ta, int tb, int m, int n, int k,
                      const double *al, const double *a, int lda,
                      const double *b, int ldb, const double *be, double *c,
                      int ldc))
{
    if (!ready(h, MODE_HOST))
        return INVALID_VALUE;
    cblas_dgemm(CblasColMajor, op(ta), op(tb), m, n, k, *al, a, lda, b, ldb,
                *be, c, ldc);
    return OK;
}
