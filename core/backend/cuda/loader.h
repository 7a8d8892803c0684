/*
 * loader.h — the CUDA driver API and NVRTC, loaded at run time.
 *
 * accel has no link-time dependency on any CUDA library: libcuda.so.1 and
 * NVRTC are dlopen'ed when a context probes for the CUDA backend, and the
 * functions below are resolved by name.  The declarations here are our
 * own; tests/cuda/test_cuda_decls.c compiles them against the toolkit's
 * cuda.h and nvrtc.h (when installed) with ACC_CUDA_TOOLKIT_TYPES defined,
 * so a wrong parameter list is a compile error, and checks that every
 * symbol name we resolve is the one the header maps the function to.
 */
#ifndef ACC_CORE_BACKEND_CUDA_LOADER_H
#define ACC_CORE_BACKEND_CUDA_LOADER_H

#include "core/base/diag.h"

#include <stddef.h>

/* Our declarations of the driver/NVRTC types (layout-compatible with the
 * toolkit's; checked by the test). */
typedef int acc_plain_cu_result;
typedef int acc_plain_cu_device;
typedef unsigned long long acc_plain_cu_deviceptr;
typedef int acc_plain_nvrtc_result;

#ifdef ACC_CUDA_TOOLKIT_TYPES
#include <cuda.h>
#include <nvrtc.h>
typedef CUresult cu_result;
typedef CUdevice cu_device;
typedef CUdevice_attribute cu_device_attribute;
typedef CUcontext cu_context;
typedef CUmodule cu_module;
typedef CUfunction cu_function;
typedef CUstream cu_stream;
typedef CUdeviceptr cu_deviceptr;
typedef CUoccupancyB2DSize cu_occupancy_smem_fn;
typedef nvrtcResult nvrtc_result;
typedef nvrtcProgram nvrtc_program;
#else
typedef acc_plain_cu_result cu_result;
typedef acc_plain_cu_device cu_device;
typedef int cu_device_attribute;
typedef struct CUctx_st *cu_context;
typedef struct CUmod_st *cu_module;
typedef struct CUfunc_st *cu_function;
typedef struct CUstream_st *cu_stream;
typedef acc_plain_cu_deviceptr cu_deviceptr;
typedef size_t (*cu_occupancy_smem_fn)(int block_size);
typedef acc_plain_nvrtc_result nvrtc_result;
typedef struct _nvrtcProgram *nvrtc_program;
#endif

/* The driver's constants accel uses (the toolkit's values; the
 * declarations test compares each with cuda.h). */
enum {
    CU_SUCCESS = 0,
    CU_ERR_OUT_OF_MEMORY = 2,         /* CUDA_ERROR_OUT_OF_MEMORY */
    CU_ATTR_MAX_GRID_DIM_X = 5,       /* CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X */
    CU_ATTR_MAX_GRID_DIM_Y = 6,       /* CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y */
    CU_ATTR_MULTIPROCESSORS = 16,     /* ..._MULTIPROCESSOR_COUNT */
    CU_ATTR_COMPUTE_MAJOR = 75, /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
    CU_ATTR_COMPUTE_MINOR = 76, /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */
    CU_STREAM_FLAG_NON_BLOCKING = 1,  /* CU_STREAM_NON_BLOCKING */
    NVRTC_OK = 0
};

/* X(field, symbol, return type, parameters): every driver function used.
 * `symbol` is the exported name (the header maps many functions to _v2
 * versions).  Every copy is the stream-ordered (Async) form: work is
 * always queued on the run's stream, never on the NULL stream. */
#define CUDA_DRIVER_FUNCTIONS(X)                                              \
    X(cuInit, "cuInit", cu_result, (unsigned int flags))                      \
    X(cuDriverGetVersion, "cuDriverGetVersion", cu_result, (int *version))    \
    X(cuGetErrorName, "cuGetErrorName", cu_result,                            \
      (cu_result error, const char **text))                                   \
    X(cuGetErrorString, "cuGetErrorString", cu_result,                        \
      (cu_result error, const char **text))                                   \
    X(cuDeviceGetCount, "cuDeviceGetCount", cu_result, (int *count))          \
    X(cuDeviceGet, "cuDeviceGet", cu_result, (cu_device *dev, int ordinal))   \
    X(cuDeviceGetName, "cuDeviceGetName", cu_result,                          \
      (char *name, int len, cu_device dev))                                   \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", cu_result,                \
      (int *value, cu_device_attribute attr, cu_device dev))                  \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", cu_result,        \
      (cu_context *ctx, cu_device dev))                                       \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", cu_result,   \
      (cu_device dev))                                                        \
    X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", cu_result, (cu_context ctx))   \
    X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", cu_result, (cu_context *ctx))    \
    X(cuModuleLoadData, "cuModuleLoadData", cu_result,                        \
      (cu_module *module, const void *image))                                 \
    X(cuModuleUnload, "cuModuleUnload", cu_result, (cu_module module))        \
    X(cuModuleGetFunction, "cuModuleGetFunction", cu_result,                  \
      (cu_function *fn, cu_module module, const char *name))                  \
    X(cuMemAlloc, "cuMemAlloc_v2", cu_result,                                 \
      (cu_deviceptr *ptr, size_t bytes))                                      \
    X(cuMemFree, "cuMemFree_v2", cu_result, (cu_deviceptr ptr))               \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", cu_result,                   \
      (cu_deviceptr dst, const void *src, size_t bytes, cu_stream stream))    \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", cu_result,                   \
      (void *dst, cu_deviceptr src, size_t bytes, cu_stream stream))          \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", cu_result,                   \
      (cu_deviceptr dst, cu_deviceptr src, size_t bytes, cu_stream stream))   \
    X(cuStreamCreate, "cuStreamCreate", cu_result,                            \
      (cu_stream *stream, unsigned int flags))                                \
    X(cuStreamDestroy, "cuStreamDestroy_v2", cu_result, (cu_stream stream))   \
    X(cuStreamSynchronize, "cuStreamSynchronize", cu_result,                  \
      (cu_stream stream))                                                     \
    X(cuLaunchKernel, "cuLaunchKernel", cu_result,                            \
      (cu_function f, unsigned int gx, unsigned int gy, unsigned int gz,      \
       unsigned int bx, unsigned int by, unsigned int bz,                     \
       unsigned int shared_bytes, cu_stream stream, void **params,            \
       void **extra))                                                         \
    X(cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize",   \
      cu_result,                                                              \
      (int *min_grid, int *block, cu_function f,                              \
       cu_occupancy_smem_fn smem_of_block, size_t smem, int block_limit))

#define NVRTC_FUNCTIONS(X)                                                    \
    X(nvrtcVersion, "nvrtcVersion", nvrtc_result, (int *major, int *minor))   \
    X(nvrtcGetErrorString, "nvrtcGetErrorString", const char *,               \
      (nvrtc_result result))                                                  \
    X(nvrtcCreateProgram, "nvrtcCreateProgram", nvrtc_result,                 \
      (nvrtc_program *prog, const char *src, const char *name,                \
       int n_headers, const char *const *headers,                             \
       const char *const *include_names))                                     \
    X(nvrtcDestroyProgram, "nvrtcDestroyProgram", nvrtc_result,               \
      (nvrtc_program *prog))                                                  \
    X(nvrtcCompileProgram, "nvrtcCompileProgram", nvrtc_result,               \
      (nvrtc_program prog, int n_options, const char *const *options))        \
    X(nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", nvrtc_result,         \
      (nvrtc_program prog, size_t *size))                                     \
    X(nvrtcGetProgramLog, "nvrtcGetProgramLog", nvrtc_result,                 \
      (nvrtc_program prog, char *log))                                        \
    X(nvrtcGetPTXSize, "nvrtcGetPTXSize", nvrtc_result,                       \
      (nvrtc_program prog, size_t *size))                                     \
    X(nvrtcGetPTX, "nvrtcGetPTX", nvrtc_result,                               \
      (nvrtc_program prog, char *ptx))                                        \
    X(nvrtcGetCUBINSize, "nvrtcGetCUBINSize", nvrtc_result,                   \
      (nvrtc_program prog, size_t *size))                                     \
    X(nvrtcGetCUBIN, "nvrtcGetCUBIN", nvrtc_result,                           \
      (nvrtc_program prog, char *cubin))                                      \
    X(nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs", nvrtc_result,   \
      (int *count))                                                           \
    X(nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs", nvrtc_result,         \
      (int *archs))

#define CUDA_FN_TYPEDEF(field, symbol, ret, params) \
    typedef ret(*cuda_fn_##field) params;
CUDA_DRIVER_FUNCTIONS(CUDA_FN_TYPEDEF)
NVRTC_FUNCTIONS(CUDA_FN_TYPEDEF)
#undef CUDA_FN_TYPEDEF

#define CUDA_FN_FIELD(field, symbol, ret, params) cuda_fn_##field field;

typedef struct cuda_driver {
    void *library;
    CUDA_DRIVER_FUNCTIONS(CUDA_FN_FIELD)
} cuda_driver;

typedef struct cuda_nvrtc {
    void *library;
    int major, minor; /* NVRTC version */
    NVRTC_FUNCTIONS(CUDA_FN_FIELD)
} cuda_nvrtc;

#undef CUDA_FN_FIELD

/* Loads the driver: $ACC_CUDA_DRIVER when set (a path or a name; then
 * nothing else is tried: this is how tests load a fake driver), else
 * libcuda.so.1, then libcuda.so.  ACC_OK, or ACC_ERR_UNSUPPORTED recorded
 * on d with a sentence saying what is missing (e.g. "libcuda.so.1 not
 * found: ..."); the diag's status either way. */
acc_status cuda_load_driver(cuda_driver *out, diag *d);
/* Loads NVRTC: $ACC_NVRTC when set (then only that library, also looked
 * up under the toolkit folders), else libnvrtc.so.13, .12, .11.2,
 * libnvrtc.so, each also under $CUDA_HOME/lib64, $CUDA_PATH/lib64 and
 * /usr/local/cuda/lib64.  ACC_OK, or ACC_ERR_UNSUPPORTED recorded on d
 * with a sentence naming what was tried. */
acc_status cuda_load_nvrtc(cuda_nvrtc *out, diag *d);
/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)": the driver's name and
 * description of r, for messages. */
void cuda_error_text(const cuda_driver *d, cu_result r, char *buf,
                     size_t size);
/* Forgets the functions; the library itself stays loaded (see loader.c). */
void cuda_unload_driver(cuda_driver *d);
void cuda_unload_nvrtc(cuda_nvrtc *n);

/* The symbols resolved, for the declarations test: names[i] of count. */
const char *const *cuda_driver_symbols(size_t *count);
const char *const *cuda_nvrtc_symbols(size_t *count);

#endif
