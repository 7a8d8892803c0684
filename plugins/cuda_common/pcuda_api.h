/*
 * pcuda_api.h — the CUDA driver API and NVRTC functions the cublas and
 * cufft plugins call, declared by the plugins themselves (no CUDA header is
 * needed to build them) and resolved with dlsym at load time.
 *
 * Each table lists X(field, symbol, return type, parameters): `symbol` is
 * the name the library exports, which the toolkit headers map several
 * functions to (cuCtxPushCurrent -> cuCtxPushCurrent_v2).  With
 * PCUDA_TOOLKIT_TYPES defined the types below become the toolkit's, which
 * tests/foreign/test_cuda_plugin_decls.c uses to have the compiler check
 * every prototype against cuda.h and nvrtc.h.  The library's own loader
 * (core/backend/cuda/loader.h) is not used: a plugin is built outside
 * libaccel and sees only its public header.
 */
#ifndef ACC_PLUGINS_PCUDA_API_H
#define ACC_PLUGINS_PCUDA_API_H

#include <stddef.h>

/* The exported entry of a plugin built with hidden visibility. */
#define PCUDA_EXPORT __attribute__((visibility("default")))

#ifdef PCUDA_TOOLKIT_TYPES
#include <cuda.h>
#include <nvrtc.h>
typedef CUresult pcu_result;
typedef CUdevice pcu_device;
typedef CUdevice_attribute pcu_device_attribute;
typedef CUcontext pcu_context;
typedef CUstream pcu_stream;
typedef CUevent pcu_event;
typedef CUmodule pcu_module;
typedef CUfunction pcu_function;
typedef CUdeviceptr pcu_deviceptr;
typedef nvrtcResult pnvrtc_result;
typedef nvrtcProgram pnvrtc_program;
#else
typedef int pcu_result;
typedef int pcu_device;
typedef int pcu_device_attribute;
typedef struct CUctx_st *pcu_context;
typedef struct CUstream_st *pcu_stream;
typedef struct CUevent_st *pcu_event;
typedef struct CUmod_st *pcu_module;
typedef struct CUfunc_st *pcu_function;
typedef unsigned long long pcu_deviceptr;
typedef int pnvrtc_result;
typedef struct _nvrtcProgram *pnvrtc_program;
#endif

/* Values of the toolkit's enums that the plugins use (checked by the
 * declarations test). */
enum {
    PCU_SUCCESS = 0,                  /* CUDA_SUCCESS */
    PCU_ERROR_INVALID_VALUE = 1,      /* CUDA_ERROR_INVALID_VALUE */
    PCU_ATTR_COMPUTE_MAJOR = 75,      /* ..._COMPUTE_CAPABILITY_MAJOR */
    PCU_ATTR_COMPUTE_MINOR = 76,      /* ..._COMPUTE_CAPABILITY_MINOR */
    PCU_EVENT_DISABLE_TIMING = 2,     /* CU_EVENT_DISABLE_TIMING */
    PNVRTC_SUCCESS = 0                /* NVRTC_SUCCESS */
};

#define PCUDA_DRIVER_FUNCTIONS(X)                                            \
    X(cuInit, "cuInit", pcu_result, (unsigned int flags))                    \
    X(cuGetErrorString, "cuGetErrorString", pcu_result,                      \
      (pcu_result error, const char **text))                                 \
    X(cuDeviceGetCount, "cuDeviceGetCount", pcu_result, (int *count))        \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", pcu_result,              \
      (int *value, pcu_device_attribute attr, pcu_device dev))               \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", pcu_result,      \
      (pcu_context *ctx, pcu_device dev))                                    \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", pcu_result, \
      (pcu_device dev))                                                      \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", pcu_result, (pcu_context *ctx))    \
    X(cuCtxGetDevice, "cuCtxGetDevice", pcu_result, (pcu_device *dev))       \
    X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", pcu_result, (pcu_context ctx)) \
    X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", pcu_result, (pcu_context *ctx)) \
    X(cuMemAlloc, "cuMemAlloc_v2", pcu_result,                               \
      (pcu_deviceptr *ptr, size_t bytes))                                    \
    X(cuMemFree, "cuMemFree_v2", pcu_result, (pcu_deviceptr ptr))            \
    X(cuMemsetD32Async, "cuMemsetD32Async", pcu_result,                      \
      (pcu_deviceptr dst, unsigned int value, size_t count,                  \
       pcu_stream stream))                                                   \
    X(cuModuleLoadData, "cuModuleLoadData", pcu_result,                      \
      (pcu_module *module, const void *image))                               \
    X(cuModuleUnload, "cuModuleUnload", pcu_result, (pcu_module module))     \
    X(cuModuleGetFunction, "cuModuleGetFunction", pcu_result,                \
      (pcu_function *fn, pcu_module module, const char *name))               \
    X(cuLaunchKernel, "cuLaunchKernel", pcu_result,                          \
      (pcu_function f, unsigned int gx, unsigned int gy, unsigned int gz,    \
       unsigned int bx, unsigned int by, unsigned int bz,                    \
       unsigned int shared_bytes, pcu_stream stream, void **params,          \
       void **extra))                                                        \
    X(cuEventCreate, "cuEventCreate", pcu_result,                            \
      (pcu_event *event, unsigned int flags))                                \
    X(cuEventDestroy, "cuEventDestroy_v2", pcu_result, (pcu_event event))    \
    X(cuEventRecord, "cuEventRecord", pcu_result,                            \
      (pcu_event event, pcu_stream stream))                                  \
    X(cuEventSynchronize, "cuEventSynchronize", pcu_result,                  \
      (pcu_event event))                                                     \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", pcu_result,                    \
      (pcu_stream stream, pcu_event event, unsigned int flags))

#define PCUDA_NVRTC_FUNCTIONS(X)                                             \
    X(nvrtcVersion, "nvrtcVersion", pnvrtc_result, (int *major, int *minor)) \
    X(nvrtcGetErrorString, "nvrtcGetErrorString", const char *,              \
      (pnvrtc_result result))                                                \
    X(nvrtcCreateProgram, "nvrtcCreateProgram", pnvrtc_result,               \
      (pnvrtc_program *prog, const char *src, const char *name,              \
       int n_headers, const char *const *headers,                            \
       const char *const *include_names))                                    \
    X(nvrtcDestroyProgram, "nvrtcDestroyProgram", pnvrtc_result,             \
      (pnvrtc_program *prog))                                                \
    X(nvrtcCompileProgram, "nvrtcCompileProgram", pnvrtc_result,             \
      (pnvrtc_program prog, int n_options, const char *const *options))      \
    X(nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", pnvrtc_result,       \
      (pnvrtc_program prog, size_t *size))                                   \
    X(nvrtcGetProgramLog, "nvrtcGetProgramLog", pnvrtc_result,               \
      (pnvrtc_program prog, char *log))                                      \
    X(nvrtcGetPTXSize, "nvrtcGetPTXSize", pnvrtc_result,                     \
      (pnvrtc_program prog, size_t *size))                                   \
    X(nvrtcGetPTX, "nvrtcGetPTX", pnvrtc_result,                             \
      (pnvrtc_program prog, char *ptx))                                      \
    X(nvrtcGetLTOIRSize, "nvrtcGetLTOIRSize", pnvrtc_result,                 \
      (pnvrtc_program prog, size_t *size))                                   \
    X(nvrtcGetLTOIR, "nvrtcGetLTOIR", pnvrtc_result,                         \
      (pnvrtc_program prog, char *ir))

/* Function-pointer types pfn_<field>, and the structs of resolved
 * functions. */
#define PCUDA_FN_TYPEDEF(field, symbol, ret, params) \
    typedef ret(*pfn_##field) params;
PCUDA_DRIVER_FUNCTIONS(PCUDA_FN_TYPEDEF)
PCUDA_NVRTC_FUNCTIONS(PCUDA_FN_TYPEDEF)

#define PCUDA_FN_FIELD(field, symbol, ret, params) pfn_##field field;

typedef struct pcuda_driver {
    PCUDA_DRIVER_FUNCTIONS(PCUDA_FN_FIELD)
} pcuda_driver;

typedef struct pcuda_nvrtc {
    int major, minor;
    PCUDA_NVRTC_FUNCTIONS(PCUDA_FN_FIELD)
} pcuda_nvrtc;

/* One entry of a resolution table: the symbol and where its pointer goes
 * in the struct of functions. */
typedef struct pcuda_symbol {
    const char *symbol;
    size_t offset;
} pcuda_symbol;

#define PCUDA_SYMBOL_ENTRY(type, field, symbol) \
    {symbol, offsetof(type, field)},

#endif
