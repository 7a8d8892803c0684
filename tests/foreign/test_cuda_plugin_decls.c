/*
 * test_cuda_plugin_decls.c — the cublas and cufft plugins' own
 * declarations of the driver API, NVRTC, cuBLAS and cuFFT against the
 * toolkit's headers.  Built with PCUDA_TOOLKIT_TYPES and the toolkit's
 * include folder when cuda.h, cublas_v2.h and cufftXt.h exist
 * (cmake/AccelForeign.cmake): every header function is assigned to the
 * plugins' function-pointer type (a wrong parameter or result type is an
 * incompatible-pointer error under -Werror), every symbol the plugins
 * resolve is compared with the name the header maps the function to
 * (cublasCreate -> cublasCreate_v2), and every enum value the plugins use
 * is compared with the header's.
 */
#include <criterion/criterion.h>

#ifdef ACC_HAVE_CUDA_HEADERS
#define PCUDA_TOOLKIT_TYPES
#include "cublas_api.h"
#include "cufft_api.h"

#include <string.h>

#define NAME_OF(x) #x
#define EXPANDED_NAME(x) NAME_OF(x)

#define CHECK_PROTOTYPE(field, symbol, ret, params) \
    static const pfn_##field check_##field = field;
PCUDA_DRIVER_FUNCTIONS(CHECK_PROTOTYPE)
PCUDA_NVRTC_FUNCTIONS(CHECK_PROTOTYPE)
PCUBLAS_FUNCTIONS(CHECK_PROTOTYPE)
PCUFFT_FUNCTIONS(CHECK_PROTOTYPE)

#define SAME(ours, theirs) _Static_assert((int)(ours) == (int)(theirs), #ours)
SAME(PCU_SUCCESS, CUDA_SUCCESS);
SAME(PCU_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE);
SAME(PCU_ATTR_COMPUTE_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME(PCU_ATTR_COMPUTE_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME(PCU_EVENT_DISABLE_TIMING, CU_EVENT_DISABLE_TIMING);
SAME(PNVRTC_SUCCESS, NVRTC_SUCCESS);
SAME(PCUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS);
SAME(PCUBLAS_STATUS_ALLOC_FAILED, CUBLAS_STATUS_ALLOC_FAILED);
SAME(PCUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_NOT_SUPPORTED);
SAME(PCUBLAS_OP_N, CUBLAS_OP_N);
SAME(PCUBLAS_OP_T, CUBLAS_OP_T);
SAME(PCUBLAS_POINTER_MODE_HOST, CUBLAS_POINTER_MODE_HOST);
SAME(PCUBLAS_POINTER_MODE_DEVICE, CUBLAS_POINTER_MODE_DEVICE);
SAME(PCUBLAS_MAJOR_VERSION, MAJOR_VERSION);
SAME(PCUBLAS_MINOR_VERSION, MINOR_VERSION);
SAME(PCUBLAS_PATCH_LEVEL, PATCH_LEVEL);
SAME(PCUFFT_SUCCESS, CUFFT_SUCCESS);
SAME(PCUFFT_ALLOC_FAILED, CUFFT_ALLOC_FAILED);
SAME(PCUFFT_INVALID_SIZE, CUFFT_INVALID_SIZE);
SAME(PCUFFT_C2C, CUFFT_C2C);
SAME(PCUFFT_Z2Z, CUFFT_Z2Z);
SAME(PCUFFT_FORWARD, CUFFT_FORWARD);
SAME(PCUFFT_INVERSE, CUFFT_INVERSE);
SAME(PCUFFT_CB_LD_COMPLEX, CUFFT_CB_LD_COMPLEX);
SAME(PCUFFT_CB_LD_COMPLEX_DOUBLE, CUFFT_CB_LD_COMPLEX_DOUBLE);
SAME(PCUFFT_CB_ST_COMPLEX, CUFFT_CB_ST_COMPLEX);
SAME(PCUFFT_CB_ST_COMPLEX_DOUBLE, CUFFT_CB_ST_COMPLEX_DOUBLE);
SAME(PCUFFT_MAJOR_VERSION, MAJOR_VERSION);
SAME(PCUFFT_MINOR_VERSION, MINOR_VERSION);
SAME(PCUFFT_PATCH_LEVEL, PATCH_LEVEL);

/* The plain build's stand-ins have the toolkit types' sizes. */
_Static_assert(sizeof(int) == sizeof(CUresult), "CUresult");
_Static_assert(sizeof(int) == sizeof(CUdevice), "CUdevice");
_Static_assert(sizeof(unsigned long long) == sizeof(CUdeviceptr),
               "CUdeviceptr");
_Static_assert(sizeof(int) == sizeof(nvrtcResult), "nvrtcResult");
_Static_assert(sizeof(int) == sizeof(cublasStatus_t), "cublasStatus_t");
_Static_assert(sizeof(int) == sizeof(cublasOperation_t), "cublasOperation_t");
_Static_assert(sizeof(int) == sizeof(cufftHandle), "cufftHandle");
_Static_assert(sizeof(int) == sizeof(cufftResult), "cufftResult");
_Static_assert(sizeof(int) == sizeof(cufftType), "cufftType");
_Static_assert(sizeof(float) * 2 == sizeof(cufftComplex), "cufftComplex");
_Static_assert(sizeof(double) * 2 == sizeof(cufftDoubleComplex),
               "cufftDoubleComplex");

Test(cuda_plugin_decls, prototypes_match_the_toolkit_headers)
{
#define USE_CHECK(field, symbol, ret, params) cr_expect(check_##field != NULL);
    PCUDA_DRIVER_FUNCTIONS(USE_CHECK)
    PCUDA_NVRTC_FUNCTIONS(USE_CHECK)
    PCUBLAS_FUNCTIONS(USE_CHECK)
    PCUFFT_FUNCTIONS(USE_CHECK)
}

Test(cuda_plugin_decls, resolved_symbols_are_the_ones_the_headers_map_to)
{
#define SAME_SYMBOL(field, symbol, ret, params) \
    cr_expect_str_eq(symbol, EXPANDED_NAME(field), #field);
    PCUDA_DRIVER_FUNCTIONS(SAME_SYMBOL)
    PCUDA_NVRTC_FUNCTIONS(SAME_SYMBOL)
    PCUBLAS_FUNCTIONS(SAME_SYMBOL)
    PCUFFT_FUNCTIONS(SAME_SYMBOL)
    /* the _v2 mapping is really exercised */
    cr_assert_str_eq(EXPANDED_NAME(cublasCreate), "cublasCreate_v2");
    cr_assert_str_eq(EXPANDED_NAME(cuCtxPushCurrent), "cuCtxPushCurrent_v2");
}
#else
Test(cuda_plugin_decls, toolkit_headers_absent)
{
    cr_skip_test("the CUDA toolkit headers are not installed; the plugins' "
                 "declarations cannot be checked here");
}
#endif
