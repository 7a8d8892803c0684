/*
 * loader.c — dlopen of the CUDA driver and NVRTC, and symbol resolution.
 * Every failure is turned into a sentence a user can act on; nothing here
 * needs a device or a toolkit to compile or to run.
 */
#include "core/backend/cuda/loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_FN_NAME(field, symbol, ret, params) symbol,
static const char *const driver_symbols[] = {
    CUDA_DRIVER_FUNCTIONS(CUDA_FN_NAME)};
static const char *const nvrtc_symbols[] = {NVRTC_FUNCTIONS(CUDA_FN_NAME)};
#undef CUDA_FN_NAME

const char *const *cuda_driver_symbols(size_t *count)
{
    *count = sizeof driver_symbols / sizeof driver_symbols[0];
    return driver_symbols;
}

const char *const *cuda_nvrtc_symbols(size_t *count)
{
    *count = sizeof nvrtc_symbols / sizeof nvrtc_symbols[0];
    return nvrtc_symbols;
}

/* Resolves one symbol into *slot (a function pointer stored as bytes, so
 * no object/function pointer cast is needed). */
static acc_status resolve(void *library, const char *symbol, void *slot,
                          const char *lib_name, diag *d)
{
    void *p = dlsym(library, symbol);
    if (!p)
        return diag_fail(d, ACC_ERR_UNSUPPORTED, "%s lacks the function %s "
                         "(too old a version?)", lib_name, symbol);
    memcpy(slot, &p, sizeof p);
    return ACC_OK;
}

acc_status cuda_load_driver(cuda_driver *out, diag *d)
{
    const char *forced = getenv("ACC_CUDA_DRIVER");
    char err[512] = "dlopen failed";
    memset(out, 0, sizeof *out);
    out->library = dlopen(forced && *forced ? forced : "libcuda.so.1",
                          RTLD_NOW | RTLD_LOCAL);
    if (!out->library) {
        const char *e = dlerror(); /* the first attempt's: the one named */
        if (e)
            snprintf(err, sizeof err, "%s", e);
    }
    if (!out->library && !(forced && *forced))
        out->library = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!out->library) {
        if (forced && *forced)
            return diag_fail(d, ACC_ERR_UNSUPPORTED, "the CUDA driver named "
                             "by ACC_CUDA_DRIVER (%s) cannot be loaded: %s",
                             forced, err);
        return diag_fail(d, ACC_ERR_UNSUPPORTED, "libcuda.so.1 not found (the "
                         "NVIDIA driver is not installed): %s", err);
    }
#define CUDA_FN_RESOLVE(field, symbol, ret, params)                          \
    if (resolve(out->library, symbol, &out->field, "libcuda.so.1", d) !=    \
        ACC_OK) {                                                            \
        cuda_unload_driver(out);                                             \
        return d->status;                                                    \
    }
    CUDA_DRIVER_FUNCTIONS(CUDA_FN_RESOLVE)
    return ACC_OK;
}

void cuda_error_text(const cuda_driver *d, cu_result r, char *buf,
                     size_t size)
{
    const char *name = NULL, *text = NULL;
    if (d->cuGetErrorName(r, &name) != CU_SUCCESS || !name)
        name = NULL;
    if (d->cuGetErrorString(r, &text) != CU_SUCCESS || !text)
        text = NULL;
    if (name)
        snprintf(buf, size, "%s (%s)", name, text ? text : "no description");
    else
        snprintf(buf, size, "CUDA error %d (not known to this driver)",
                 (int)r);
}

/* dlopen of `name` directly, then (a name, not a path) under each toolkit
 * folder. */
static void *open_in_toolkits(const char *name, char *tried, size_t size)
{
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"),
                           "/usr/local/cuda"};
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    size_t at = strlen(tried);
    snprintf(tried + at, size - at, "%s%s", at ? ", " : "", name);
    for (size_t i = 0; !lib && !strchr(name, '/') &&
                       i < sizeof roots / sizeof roots[0]; i++) {
        char path[512];
        if (!roots[i] || !*roots[i])
            continue;
        snprintf(path, sizeof path, "%s/lib64/%s", roots[i], name);
        lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        at = strlen(tried);
        snprintf(tried + at, size - at, ", %s", path);
    }
    return lib;
}

acc_status cuda_load_nvrtc(cuda_nvrtc *out, diag *d)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12",
                                        "libnvrtc.so.11.2", "libnvrtc.so"};
    char tried[1024] = "";
    memset(out, 0, sizeof *out);
    const char *forced = getenv("ACC_NVRTC");
    int strict = forced && *forced;
    if (strict)
        out->library = open_in_toolkits(forced, tried, sizeof tried);
    for (size_t i = 0; !strict && !out->library && i < 4; i++)
        out->library = open_in_toolkits(names[i], tried, sizeof tried);
    if (!out->library)
        return diag_fail(d, ACC_ERR_UNSUPPORTED, "NVRTC not found (tried "
                         "%s%s)", tried, strict ? ", as ACC_NVRTC says" : "");
#define NVRTC_FN_RESOLVE(field, symbol, ret, params)                          \
    if (resolve(out->library, symbol, &out->field, "libnvrtc", d) !=        \
        ACC_OK) {                                                            \
        cuda_unload_nvrtc(out);                                              \
        return d->status;                                                    \
    }
    NVRTC_FUNCTIONS(NVRTC_FN_RESOLVE)
    if (out->nvrtcVersion(&out->major, &out->minor) != NVRTC_OK) {
        cuda_unload_nvrtc(out);
        return diag_fail(d, ACC_ERR_UNSUPPORTED, "NVRTC does not report its "
                         "version");
    }
    return ACC_OK;
}

/* The libraries are never dlclose'd: the CUDA driver does not support
 * being unloaded, and NVRTC carries a static C++ runtime whose global
 * state (its exception-handling pool) would be orphaned.  dlopen of an
 * already loaded library only counts a reference, so loading again is
 * cheap. */
void cuda_unload_driver(cuda_driver *d)
{
    memset(d, 0, sizeof *d);
}

void cuda_unload_nvrtc(cuda_nvrtc *n)
{
    memset(n, 0, sizeof *n);
}
