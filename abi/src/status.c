/* status.c — versions and the names of status codes. */
#include "accel.h"

#include "core/base/version.h"

uint32_t acc_abi_version(void)
{
    return ACC_ABI_VERSION;
}

const char *acc_version_string(void)
{
    return ACC_VERSION_STRING;
}

const char *acc_status_string(acc_status status)
{
    switch (status) {
    case ACC_OK: return "ACC_OK";
    case ACC_ERR_INVALID_ARGUMENT: return "ACC_ERR_INVALID_ARGUMENT";
    case ACC_ERR_INVALID_HANDLE: return "ACC_ERR_INVALID_HANDLE";
    case ACC_ERR_TYPE: return "ACC_ERR_TYPE";
    case ACC_ERR_SHAPE: return "ACC_ERR_SHAPE";
    case ACC_ERR_OUT_OF_HOST_MEMORY: return "ACC_ERR_OUT_OF_HOST_MEMORY";
    case ACC_ERR_OUT_OF_DEVICE_MEMORY: return "ACC_ERR_OUT_OF_DEVICE_MEMORY";
    case ACC_ERR_UNSUPPORTED: return "ACC_ERR_UNSUPPORTED";
    case ACC_ERR_NOT_FOUND: return "ACC_ERR_NOT_FOUND";
    case ACC_ERR_COMPILE: return "ACC_ERR_COMPILE";
    case ACC_ERR_DEVICE: return "ACC_ERR_DEVICE";
    case ACC_ERR_PLUGIN: return "ACC_ERR_PLUGIN";
    case ACC_ERR_ABI_MISMATCH: return "ACC_ERR_ABI_MISMATCH";
    case ACC_ERR_PARSE: return "ACC_ERR_PARSE";
    case ACC_ERR_RUNTIME: return "ACC_ERR_RUNTIME";
    case ACC_ERR_CANCELLED: return "ACC_ERR_CANCELLED";
    case ACC_ERR_TIMEOUT: return "ACC_ERR_TIMEOUT";
    case ACC_ERR_INTERNAL: return "ACC_ERR_INTERNAL";
    }
    return "unknown status";
}
