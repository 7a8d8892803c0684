/*
 * test_cuda_decls.c — accel's own declarations of the driver API and NVRTC
 * against the toolkit headers.  Built with ACC_CUDA_TOOLKIT_TYPES and the
 * toolkit's include folder when cuda.h exists (cmake/AccelCuda.cmake), so
 * every function pointer type is checked by the compiler against the
 * header's prototype (a mismatch does not compile), and every symbol name
 * we resolve is checked against the name the header maps it to.
 */
#include <criterion/criterion.h>

#ifdef ACC_HAVE_CUDA_HEADERS
#define ACC_CUDA_TOOLKIT_TYPES
#include "core/backend/cuda/loader.h"

#include <string.h>

#define NAME_OF(x) #x
#define EXPANDED_NAME(x) NAME_OF(x)

/* Assigning each header function to our pointer type: a wrong parameter
 * or return type is an incompatible-pointer error under -Werror. */
#define CHECK_PROTOTYPE(field, symbol, ret, params) \
    static const cuda_fn_##field check_##field = field;
CUDA_DRIVER_FUNCTIONS(CHECK_PROTOTYPE)
NVRTC_FUNCTIONS(CHECK_PROTOTYPE)

_Static_assert(sizeof(CUresult) == sizeof(acc_plain_cu_result), "CUresult");
_Static_assert(sizeof(CUdevice) == sizeof(acc_plain_cu_device), "CUdevice");
_Static_assert(sizeof(CUdeviceptr) == sizeof(acc_plain_cu_deviceptr),
               "CUdeviceptr");
_Static_assert(sizeof(nvrtcResult) == sizeof(acc_plain_nvrtc_result),
               "nvrtcResult");
_Static_assert((int)CU_ATTR_COMPUTE_MAJOR ==
                   (int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "major");
_Static_assert((int)CU_ATTR_COMPUTE_MINOR ==
                   (int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "minor");
_Static_assert((int)CU_ERR_OUT_OF_MEMORY == (int)CUDA_ERROR_OUT_OF_MEMORY,
               "out of memory");
_Static_assert((int)CU_ATTR_MAX_GRID_DIM_X ==
                   (int)CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "grid x");
_Static_assert((int)CU_ATTR_MAX_GRID_DIM_Y ==
                   (int)CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "grid y");
_Static_assert((int)CU_ATTR_MULTIPROCESSORS ==
                   (int)CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SMs");
_Static_assert((int)CU_STREAM_FLAG_NON_BLOCKING ==
                   (int)CU_STREAM_NON_BLOCKING, "non-blocking stream");

Test(cuda_decls, prototypes_match_the_toolkit_headers)
{
#define USE_CHECK(field, symbol, ret, params) cr_expect(check_##field != NULL);
    CUDA_DRIVER_FUNCTIONS(USE_CHECK)
    NVRTC_FUNCTIONS(USE_CHECK)
}

Test(cuda_decls, resolved_symbols_are_the_ones_the_header_maps_to)
{
    /* the header maps e.g. cuMemAlloc to cuMemAlloc_v2 */
#define SAME_SYMBOL(field, symbol, ret, params) \
    cr_expect_str_eq(symbol, EXPANDED_NAME(field), #field);
    CUDA_DRIVER_FUNCTIONS(SAME_SYMBOL)
    NVRTC_FUNCTIONS(SAME_SYMBOL)
}
#else
Test(cuda_decls, toolkit_headers_absent)
{
    cr_skip_test("the CUDA toolkit headers are not installed; the "
                 "declarations cannot be checked here");
}
#endif
