/*
 * cufft_api.h — the cuFFT functions the cufft plugin calls, declared by the
 * plugin (see plugins/cuda_common/pcuda_api.h for the scheme):
 * X(field, exported symbol, return type, parameters).
 * tests/foreign/test_cuda_plugin_decls.c checks every prototype, symbol
 * name and enum value here against cufft.h and cufftXt.h.
 *
 * cufftXtSetJITCallback is declared with the signature of cuFFT 12 (CUDA
 * 13), which added the callback's symbol name; cuFFT 11 exports the same
 * name with the older parameters, so the plugin refuses cuFFT before 12.
 */
#ifndef ACC_PLUGINS_CUFFT_API_H
#define ACC_PLUGINS_CUFFT_API_H

#include "pcuda_api.h"

#ifdef PCUDA_TOOLKIT_TYPES
#include <cufftXt.h>
typedef cufftResult pcufft_result;
typedef cufftHandle pcufft_handle;
typedef cufftType pcufft_type;
typedef cufftXtCallbackType pcufft_callback_type;
typedef libraryPropertyType pcufft_property;
typedef cudaStream_t pcufft_stream;
typedef cufftComplex pcufft_complex;
typedef cufftDoubleComplex pcufft_double_complex;
#else
typedef int pcufft_result;
typedef int pcufft_handle;
typedef int pcufft_type;
typedef int pcufft_callback_type;
typedef int pcufft_property;
typedef struct CUstream_st *pcufft_stream; /* cudaStream_t is CUstream */
typedef struct pcufft_complex {
    float x, y;
} pcufft_complex;
typedef struct pcufft_double_complex {
    double x, y;
} pcufft_double_complex;
#endif

enum {
    PCUFFT_SUCCESS = 0,              /* CUFFT_SUCCESS */
    PCUFFT_ALLOC_FAILED = 2,         /* CUFFT_ALLOC_FAILED */
    PCUFFT_INVALID_SIZE = 8,         /* CUFFT_INVALID_SIZE */
    PCUFFT_C2C = 0x29,               /* CUFFT_C2C */
    PCUFFT_Z2Z = 0x69,               /* CUFFT_Z2Z */
    PCUFFT_FORWARD = -1,             /* CUFFT_FORWARD */
    PCUFFT_INVERSE = 1,              /* CUFFT_INVERSE */
    PCUFFT_CB_LD_COMPLEX = 0,        /* CUFFT_CB_LD_COMPLEX */
    PCUFFT_CB_LD_COMPLEX_DOUBLE = 1, /* CUFFT_CB_LD_COMPLEX_DOUBLE */
    PCUFFT_CB_ST_COMPLEX = 4,        /* CUFFT_CB_ST_COMPLEX */
    PCUFFT_CB_ST_COMPLEX_DOUBLE = 5, /* CUFFT_CB_ST_COMPLEX_DOUBLE */
    PCUFFT_MAJOR_VERSION = 0,        /* MAJOR_VERSION (libraryPropertyType) */
    PCUFFT_MINOR_VERSION = 1,        /* MINOR_VERSION */
    PCUFFT_PATCH_LEVEL = 2           /* PATCH_LEVEL */
};

#define PCUFFT_FUNCTIONS(X)                                                  \
    X(cufftCreate, "cufftCreate", pcufft_result, (pcufft_handle * plan))     \
    X(cufftDestroy, "cufftDestroy", pcufft_result, (pcufft_handle plan))     \
    X(cufftGetProperty, "cufftGetProperty", pcufft_result,                   \
      (pcufft_property type, int *value))                                    \
    X(cufftSetAutoAllocation, "cufftSetAutoAllocation", pcufft_result,       \
      (pcufft_handle plan, int auto_allocate))                               \
    X(cufftXtSetJITCallback, "cufftXtSetJITCallback", pcufft_result,         \
      (pcufft_handle plan, const char *symbol, const void *lto_ir,           \
       size_t lto_ir_size, pcufft_callback_type type, void **caller_info))   \
    X(cufftMakePlanMany, "cufftMakePlanMany", pcufft_result,                 \
      (pcufft_handle plan, int rank, int *n, int *inembed, int istride,      \
       int idist, int *onembed, int ostride, int odist, pcufft_type type,    \
       int batch, size_t *work_size))                                        \
    X(cufftSetWorkArea, "cufftSetWorkArea", pcufft_result,                   \
      (pcufft_handle plan, void *work_area))                                 \
    X(cufftSetStream, "cufftSetStream", pcufft_result,                       \
      (pcufft_handle plan, pcufft_stream stream))                            \
    X(cufftExecC2C, "cufftExecC2C", pcufft_result,                           \
      (pcufft_handle plan, pcufft_complex * idata, pcufft_complex * odata,   \
       int direction))                                                       \
    X(cufftExecZ2Z, "cufftExecZ2Z", pcufft_result,                           \
      (pcufft_handle plan, pcufft_double_complex * idata,                    \
       pcufft_double_complex * odata, int direction))

PCUFFT_FUNCTIONS(PCUDA_FN_TYPEDEF)

typedef struct pcufft {
    PCUFFT_FUNCTIONS(PCUDA_FN_FIELD)
} pcufft;

#endif
