/*
 * cublas_api.h — the cuBLAS functions the cublas plugin calls, declared by
 * the plugin (see plugins/cuda_common/pcuda_api.h for the scheme):
 * X(field, exported symbol, return type, parameters).  cublas_v2.h maps
 * most names to _v2 symbols; tests/foreign/test_cuda_plugin_decls.c checks
 * every prototype, symbol name and enum value here against it.
 */
#ifndef ACC_PLUGINS_CUBLAS_API_H
#define ACC_PLUGINS_CUBLAS_API_H

#include "pcuda_api.h"

#ifdef PCUDA_TOOLKIT_TYPES
#include <cublas_v2.h>
typedef cublasStatus_t pcublas_status;
typedef cublasHandle_t pcublas_handle;
typedef cublasOperation_t pcublas_operation;
typedef cublasPointerMode_t pcublas_pointer_mode;
typedef libraryPropertyType pcublas_property;
typedef cudaStream_t pcublas_stream;
#else
typedef int pcublas_status;
typedef struct cublasContext *pcublas_handle;
typedef int pcublas_operation;
typedef int pcublas_pointer_mode;
typedef int pcublas_property;
typedef struct CUstream_st *pcublas_stream; /* cudaStream_t is CUstream */
#endif

enum {
    PCUBLAS_STATUS_SUCCESS = 0,   /* CUBLAS_STATUS_SUCCESS */
    PCUBLAS_STATUS_ALLOC_FAILED = 3,   /* CUBLAS_STATUS_ALLOC_FAILED */
    PCUBLAS_STATUS_NOT_SUPPORTED = 15, /* CUBLAS_STATUS_NOT_SUPPORTED */
    PCUBLAS_OP_N = 0,             /* CUBLAS_OP_N */
    PCUBLAS_OP_T = 1,             /* CUBLAS_OP_T */
    PCUBLAS_POINTER_MODE_HOST = 0,   /* CUBLAS_POINTER_MODE_HOST */
    PCUBLAS_POINTER_MODE_DEVICE = 1, /* CUBLAS_POINTER_MODE_DEVICE */
    PCUBLAS_MAJOR_VERSION = 0,    /* MAJOR_VERSION (libraryPropertyType) */
    PCUBLAS_MINOR_VERSION = 1,    /* MINOR_VERSION */
    PCUBLAS_PATCH_LEVEL = 2       /* PATCH_LEVEL */
};

#define PCUBLAS_GEMV_PARAMS(T)                                               \
    (pcublas_handle handle, pcublas_operation trans, int m, int n,           \
     const T *alpha, const T *a, int lda, const T *x, int incx,              \
     const T *beta, T *y, int incy)
#define PCUBLAS_GEMM_PARAMS(T)                                               \
    (pcublas_handle handle, pcublas_operation transa,                        \
     pcublas_operation transb, int m, int n, int k, const T *alpha,          \
     const T *a, int lda, const T *b, int ldb, const T *beta, T *c, int ldc)

#define PCUBLAS_FUNCTIONS(X)                                                 \
    X(cublasCreate, "cublasCreate_v2", pcublas_status,                       \
      (pcublas_handle * handle))                                             \
    X(cublasDestroy, "cublasDestroy_v2", pcublas_status,                     \
      (pcublas_handle handle))                                               \
    X(cublasGetProperty, "cublasGetProperty", pcublas_status,                \
      (pcublas_property type, int *value))                                   \
    X(cublasGetStatusString, "cublasGetStatusString", const char *,          \
      (pcublas_status status))                                               \
    X(cublasSetStream, "cublasSetStream_v2", pcublas_status,                 \
      (pcublas_handle handle, pcublas_stream stream))                        \
    X(cublasSetPointerMode, "cublasSetPointerMode_v2", pcublas_status,       \
      (pcublas_handle handle, pcublas_pointer_mode mode))                    \
    X(cublasSdot, "cublasSdot_v2", pcublas_status,                           \
      (pcublas_handle handle, int n, const float *x, int incx,               \
       const float *y, int incy, float *result))                             \
    X(cublasDdot, "cublasDdot_v2", pcublas_status,                           \
      (pcublas_handle handle, int n, const double *x, int incx,              \
       const double *y, int incy, double *result))                           \
    X(cublasScopy, "cublasScopy_v2", pcublas_status,                         \
      (pcublas_handle handle, int n, const float *x, int incx, float *y,     \
       int incy))                                                            \
    X(cublasDcopy, "cublasDcopy_v2", pcublas_status,                         \
      (pcublas_handle handle, int n, const double *x, int incx, double *y,   \
       int incy))                                                            \
    X(cublasSaxpy, "cublasSaxpy_v2", pcublas_status,                         \
      (pcublas_handle handle, int n, const float *alpha, const float *x,     \
       int incx, float *y, int incy))                                        \
    X(cublasDaxpy, "cublasDaxpy_v2", pcublas_status,                         \
      (pcublas_handle handle, int n, const double *alpha, const double *x,   \
       int incx, double *y, int incy))                                       \
    X(cublasSgemv, "cublasSgemv_v2", pcublas_status,                         \
      PCUBLAS_GEMV_PARAMS(float))                                            \
    X(cublasDgemv, "cublasDgemv_v2", pcublas_status,                         \
      PCUBLAS_GEMV_PARAMS(double))                                           \
    X(cublasSgemm, "cublasSgemm_v2", pcublas_status,                         \
      PCUBLAS_GEMM_PARAMS(float))                                            \
    X(cublasDgemm, "cublasDgemm_v2", pcublas_status,                         \
      PCUBLAS_GEMM_PARAMS(double))

PCUBLAS_FUNCTIONS(PCUDA_FN_TYPEDEF)

typedef struct pcublas {
    PCUBLAS_FUNCTIONS(PCUDA_FN_FIELD)
} pcublas;

#endif
