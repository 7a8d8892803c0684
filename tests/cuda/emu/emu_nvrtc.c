/*
 * emu_nvrtc.c — a test NVRTC for the emulated device (docs/CUDA.md, "The
 * emulated device"), loaded by the library through ACC_NVRTC.  It exports
 * the functions accel's loader resolves (core/backend/cuda/loader.h).
 * Compiling builds the source for the host (emu_build.c: a compile error
 * is the program's log, as NVRTC's would be); the "PTX" it hands out is
 * the emulator's image, the CUDA source behind a PTX-like head naming
 * its kernels.  It cannot produce a cubin: accel then asks for PTX, as it
 * does when NVRTC cannot produce one.  The cufft plugin loads it too (as
 * libnvrtc.so.13, a link in build/emu-cuda/): it compiles its callbacks
 * with -D options, which are honoured (a `#define` line each, ahead of the
 * source), and asks for LTO IR, which is the same image (the fake cuFFT,
 * tests/foreign/fake_cufft.c, builds it and calls the callback).
 */
#include "emu_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct emu_program {
    char *source;
    char *log;
    char *image;
    size_t image_size;
} emu_program;

typedef emu_program *nvrtcProgram;

enum { OK = 0, ERR_OUT_OF_MEMORY = 1, ERR_INVALID_INPUT = 3,
       ERR_INVALID_PROGRAM = 4, ERR_COMPILATION = 6 };

#define EXPORT __attribute__((visibility("default")))

/* The prototypes of core/backend/cuda/loader.h's NVRTC_FUNCTIONS. */
EXPORT int nvrtcVersion(int *major, int *minor);
EXPORT const char *nvrtcGetErrorString(int result);
EXPORT int nvrtcCreateProgram(nvrtcProgram *prog, const char *src,
                              const char *name, int n_headers,
                              const char *const *headers,
                              const char *const *include_names);
EXPORT int nvrtcDestroyProgram(nvrtcProgram *prog);
EXPORT int nvrtcCompileProgram(nvrtcProgram prog, int n_options,
                               const char *const *options);
EXPORT int nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *size);
EXPORT int nvrtcGetProgramLog(nvrtcProgram prog, char *log);
EXPORT int nvrtcGetPTXSize(nvrtcProgram prog, size_t *size);
EXPORT int nvrtcGetPTX(nvrtcProgram prog, char *ptx);
EXPORT int nvrtcGetCUBINSize(nvrtcProgram prog, size_t *size);
EXPORT int nvrtcGetCUBIN(nvrtcProgram prog, char *cubin);
EXPORT int nvrtcGetNumSupportedArchs(int *count);
EXPORT int nvrtcGetLTOIRSize(nvrtcProgram prog, size_t *size);
EXPORT int nvrtcGetLTOIR(nvrtcProgram prog, char *ir);
EXPORT int nvrtcGetSupportedArchs(int *out);

EXPORT int nvrtcVersion(int *major, int *minor)
{
    *major = 13;
    *minor = 0;
    return OK;
}

EXPORT const char *nvrtcGetErrorString(int result)
{
    switch (result) {
    case OK: return "NVRTC_SUCCESS";
    case ERR_OUT_OF_MEMORY: return "NVRTC_ERROR_OUT_OF_MEMORY";
    case ERR_INVALID_INPUT: return "NVRTC_ERROR_INVALID_INPUT";
    case ERR_INVALID_PROGRAM: return "NVRTC_ERROR_INVALID_PROGRAM";
    case ERR_COMPILATION: return "NVRTC_ERROR_COMPILATION";
    default: return "NVRTC_ERROR (emulated NVRTC: no cubin)";
    }
}

EXPORT int nvrtcCreateProgram(nvrtcProgram *prog, const char *src,
                              const char *name, int n_headers,
                              const char *const *headers,
                              const char *const *include_names)
{
    (void)name, (void)headers, (void)include_names;
    if (!prog || !src || n_headers != 0)
        return ERR_INVALID_INPUT;
    emu_program *p = calloc(1, sizeof *p);
    if (!p || !(p->source = malloc(strlen(src) + 1))) {
        free(p);
        return ERR_OUT_OF_MEMORY;
    }
    strcpy(p->source, src);
    *prog = p;
    return OK;
}

EXPORT int nvrtcDestroyProgram(nvrtcProgram *prog)
{
    if (!prog || !*prog)
        return ERR_INVALID_PROGRAM;
    free((*prog)->source);
    free((*prog)->log);
    free((*prog)->image);
    free(*prog);
    *prog = NULL;
    return OK;
}

/* The source after one `#define NAME VALUE` line per -DNAME[=VALUE]
 * option (malloc'ed), or NULL when out of memory. */
static char *with_defines(const char *source, int n_options,
                          const char *const *options)
{
    size_t size = strlen(source) + 1;
    for (int i = 0; i < n_options; i++)
        if (options[i] && strncmp(options[i], "-D", 2) == 0)
            size += strlen(options[i]) + 16;
    char *out = malloc(size), *at = out;
    if (!out)
        return NULL;
    for (int i = 0; i < n_options; i++) {
        if (!options[i] || strncmp(options[i], "-D", 2) != 0)
            continue;
        const char *name = options[i] + 2, *eq = strchr(name, '=');
        int len = eq ? (int)(eq - name) : (int)strlen(name);
        at += sprintf(at, "#define %.*s %s\n", len, name, eq ? eq + 1 : "1");
    }
    strcpy(at, source);
    return out;
}

EXPORT int nvrtcCompileProgram(nvrtcProgram prog, int n_options,
                               const char *const *options)
{
    char so[1200];
    if (!prog || (n_options > 0 && !options))
        return ERR_INVALID_PROGRAM;
    free(prog->log);
    prog->log = NULL;
    free(prog->image);
    prog->image = NULL;
    char *source = with_defines(prog->source, n_options, options);
    if (!source)
        return ERR_OUT_OF_MEMORY;
    int ok = emu_build(source, so, sizeof so, &prog->log);
    if (ok)
        prog->image = emu_image(source, &prog->image_size);
    free(source);
    if (!ok)
        return ERR_COMPILATION;
    return prog->image ? OK : ERR_OUT_OF_MEMORY;
}

EXPORT int nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *size)
{
    if (!prog || !size)
        return ERR_INVALID_INPUT;
    *size = (prog->log ? strlen(prog->log) : 0) + 1;
    return OK;
}

EXPORT int nvrtcGetProgramLog(nvrtcProgram prog, char *log)
{
    if (!prog || !log)
        return ERR_INVALID_INPUT;
    strcpy(log, prog->log ? prog->log : "");
    return OK;
}

EXPORT int nvrtcGetPTXSize(nvrtcProgram prog, size_t *size)
{
    if (!prog || !size || !prog->image)
        return ERR_INVALID_PROGRAM;
    *size = prog->image_size;
    return OK;
}

EXPORT int nvrtcGetPTX(nvrtcProgram prog, char *ptx)
{
    if (!prog || !ptx || !prog->image)
        return ERR_INVALID_PROGRAM;
    memcpy(ptx, prog->image, prog->image_size);
    return OK;
}

/* LTO IR (-dlto) is the image as well. */
EXPORT int nvrtcGetLTOIRSize(nvrtcProgram prog, size_t *size)
{
    return nvrtcGetPTXSize(prog, size);
}

EXPORT int nvrtcGetLTOIR(nvrtcProgram prog, char *ir)
{
    return nvrtcGetPTX(prog, ir);
}

/* No cubin: accel falls back to PTX for the same architecture. */
EXPORT int nvrtcGetCUBINSize(nvrtcProgram prog, size_t *size)
{
    (void)prog, (void)size;
    return ERR_INVALID_INPUT;
}

EXPORT int nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    (void)prog, (void)cubin;
    return ERR_INVALID_INPUT;
}

static const int archs[] = {75, 80, 86, 89, 90};

EXPORT int nvrtcGetNumSupportedArchs(int *count)
{
    *count = (int)(sizeof archs / sizeof archs[0]);
    return OK;
}

EXPORT int nvrtcGetSupportedArchs(int *out)
{
    memcpy(out, archs, sizeof archs);
    return OK;
}
