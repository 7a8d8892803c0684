/*
 * pcuda_lib.c — dlopen of the CUDA libraries, symbol resolution, the
 * driver's device check and NVRTC compilation (see pcuda_lib.h).  Nothing
 * here needs a device or the toolkit's headers to compile or to run.
 */
#include "pcuda_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends ", TEXT" (or TEXT when empty) to the list of paths tried. */
static void note_tried(char *tried, size_t size, const char *text)
{
    size_t at = strlen(tried);
    if (at + 3 < size)
        snprintf(tried + at, size - at, "%s%s", at ? ", " : "", text);
}

static void *try_open(const char *path, char *tried, size_t tried_size,
                      char *err, size_t err_size)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    note_tried(tried, tried_size, path);
    if (!lib) {
        const char *e = dlerror();
        snprintf(err, err_size, "%s", e ? e : "dlopen failed");
    }
    return lib;
}

/* `name` as given, then (toolkit libraries) in each toolkit folder, each
 * folder once. */
static void *open_one(const char *name, int toolkit, char *path,
                      size_t path_size, char *tried, size_t tried_size,
                      char *err, size_t err_size)
{
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"),
                           "/usr/local/cuda"};
    char full[512];
    snprintf(full, sizeof full, "%s", name);
    void *lib = try_open(full, tried, tried_size, err, err_size);
    for (size_t i = 0; !lib && toolkit && i < 3; i++) {
        int seen = !roots[i] || !roots[i][0];
        for (size_t j = 0; !seen && j < i; j++)
            seen = roots[j] && strcmp(roots[i], roots[j]) == 0;
        if (seen)
            continue;
        snprintf(full, sizeof full, "%s/lib64/%s", roots[i], name);
        lib = try_open(full, tried, tried_size, err, err_size);
    }
    if (lib && path)
        snprintf(path, path_size, "%s", full);
    return lib;
}

void *pcuda_open(const char *const *names, size_t n_names, int toolkit,
                 char *path, size_t path_size, char *why, size_t why_size)
{
    char tried[1024] = "", err[512] = "";
    void *lib = NULL;
    for (size_t i = 0; !lib && i < n_names; i++)
        lib = open_one(names[i], toolkit, path, path_size, tried,
                       sizeof tried, err, sizeof err);
    if (!lib)
        snprintf(why, why_size, "%s not found (tried %s): %s", names[0],
                 tried, err);
    return lib;
}

int pcuda_resolve(void *library, const char *lib_name,
                  const pcuda_symbol *table, size_t n, void *fns, char *why,
                  size_t why_size)
{
    for (size_t i = 0; i < n; i++) {
        void *p = dlsym(library, table[i].symbol);
        if (!p) {
            snprintf(why, why_size, "%s lacks the function %s (too old a "
                     "version?)", lib_name, table[i].symbol);
            return 0;
        }
        /* copied as bytes: ISO C has no object-to-function pointer cast */
        memcpy((char *)fns + table[i].offset, &p, sizeof p);
    }
    return 1;
}

static const pcuda_symbol driver_table[] = {
#define DRIVER_ENTRY(field, symbol, ret, params) \
    PCUDA_SYMBOL_ENTRY(pcuda_driver, field, symbol)
    PCUDA_DRIVER_FUNCTIONS(DRIVER_ENTRY)
#undef DRIVER_ENTRY
};

static const pcuda_symbol nvrtc_table[] = {
#define NVRTC_ENTRY(field, symbol, ret, params) \
    PCUDA_SYMBOL_ENTRY(pcuda_nvrtc, field, symbol)
    PCUDA_NVRTC_FUNCTIONS(NVRTC_ENTRY)
#undef NVRTC_ENTRY
};

void pcuda_error_text(const pcuda_driver *d, pcu_result r, char *out,
                      size_t size)
{
    const char *text = NULL;
    if (!d->cuGetErrorString || d->cuGetErrorString(r, &text) != PCU_SUCCESS ||
        !text)
        snprintf(out, size, "error %d", (int)r);
    else
        snprintf(out, size, "error %d (%s)", (int)r, text);
}

int pcuda_load_driver(pcuda_driver *d, char *why, size_t why_size)
{
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
    char reason[1536], err[256];
    int count = 0;
    pcu_result r;
    memset(d, 0, sizeof *d);
    void *lib = pcuda_open(names, 2, 0, NULL, 0, reason, sizeof reason);
    if (!lib)
        goto fail;
    if (!pcuda_resolve(lib, "libcuda.so.1", driver_table,
                       sizeof driver_table / sizeof driver_table[0], d,
                       reason, sizeof reason))
        goto fail;
    if ((r = d->cuInit(0)) != PCU_SUCCESS) {
        pcuda_error_text(d, r, err, sizeof err);
        snprintf(reason, sizeof reason, "the CUDA driver failed to start "
                 "(%s)", err);
        goto fail;
    }
    if (d->cuDeviceGetCount(&count) != PCU_SUCCESS || count < 1) {
        snprintf(reason, sizeof reason, "the CUDA driver reports none");
        goto fail;
    }
    return 1;
fail:
    snprintf(why, why_size, "no CUDA device: %s", reason);
    memset(d, 0, sizeof *d);
    return 0;
}

int pcuda_load_nvrtc(pcuda_nvrtc *n, char *why, size_t why_size)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12",
                                        "libnvrtc.so"};
    memset(n, 0, sizeof *n);
    void *lib = pcuda_open(names, 3, 1, NULL, 0, why, why_size);
    if (!lib || !pcuda_resolve(lib, "libnvrtc", nvrtc_table,
                               sizeof nvrtc_table / sizeof nvrtc_table[0], n,
                               why, why_size))
        return 0;
    if (n->nvrtcVersion(&n->major, &n->minor) != PNVRTC_SUCCESS) {
        snprintf(why, why_size, "NVRTC does not report its version");
        return 0;
    }
    return 1;
}

/* NVRTC's log, appended to why after "; log: ". */
static void append_log(const pcuda_nvrtc *n, pnvrtc_program prog, char *why,
                       size_t why_size)
{
    size_t size = 0, at = strlen(why);
    if (n->nvrtcGetProgramLogSize(prog, &size) != PNVRTC_SUCCESS || size < 2)
        return;
    char *log = malloc(size);
    if (log && n->nvrtcGetProgramLog(prog, log) == PNVRTC_SUCCESS &&
        at + 8 < why_size)
        snprintf(why + at, why_size - at, "; log: %s", log);
    free(log);
}

static char *fetch_image(const pcuda_nvrtc *n, pnvrtc_program prog,
                         pcuda_output kind, size_t *size)
{
    pnvrtc_result r = kind == PCUDA_LTO_IR ? n->nvrtcGetLTOIRSize(prog, size)
                                           : n->nvrtcGetPTXSize(prog, size);
    char *image = r == PNVRTC_SUCCESS && *size ? malloc(*size) : NULL;
    if (image) {
        r = kind == PCUDA_LTO_IR ? n->nvrtcGetLTOIR(prog, image)
                                 : n->nvrtcGetPTX(prog, image);
        if (r != PNVRTC_SUCCESS) {
            free(image);
            image = NULL;
        }
    }
    return image;
}

char *pcuda_compile(const pcuda_nvrtc *n, const char *source,
                    const char *name, const char *const *options,
                    int n_options, pcuda_output kind, size_t *size,
                    char *why, size_t why_size)
{
    pnvrtc_program prog = NULL;
    char *image = NULL;
    *size = 0;
    pnvrtc_result r = n->nvrtcCreateProgram(&prog, source, name, 0, NULL,
                                            NULL);
    if (r == PNVRTC_SUCCESS)
        r = n->nvrtcCompileProgram(prog, n_options, options);
    if (r == PNVRTC_SUCCESS)
        image = fetch_image(n, prog, kind, size);
    if (!image) {
        snprintf(why, why_size, "NVRTC could not compile %s: %s", name,
                 r == PNVRTC_SUCCESS ? "no output" : n->nvrtcGetErrorString(r));
        if (prog)
            append_log(n, prog, why, why_size);
    }
    if (prog)
        n->nvrtcDestroyProgram(&prog);
    return image;
}
