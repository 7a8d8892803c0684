/* nvrtc.c — NVRTC compilation to cubin or PTX, with the log kept. */
#include "core/backend/cuda/nvrtc.h"
#include "core/base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *copy_text(const char *text)
{
    size_t n = strlen(text);
    char *copy = mem_alloc(n + 1);
    if (copy)
        memcpy(copy, text, n + 1);
    return copy;
}

static char *program_log(const cuda_nvrtc *nv, nvrtc_program prog)
{
    size_t size = 0;
    if (nv->nvrtcGetProgramLogSize(prog, &size) != NVRTC_OK || size == 0)
        return copy_text("");
    char *log = mem_alloc(size);
    if (log && nv->nvrtcGetProgramLog(prog, log) != NVRTC_OK)
        log[0] = '\0';
    return log;
}

/* Fetches the compiled image (cubin or PTX) of a compiled program. */
static int fetch(const cuda_nvrtc *nv, nvrtc_program prog, cuda_target t,
                 cuda_image *out)
{
    size_t size = 0;
    nvrtc_result r = t == CUDA_TARGET_CUBIN
                         ? nv->nvrtcGetCUBINSize(prog, &size)
                         : nv->nvrtcGetPTXSize(prog, &size);
    if (r != NVRTC_OK || size == 0 || !(out->bytes = mem_alloc(size)))
        return 0;
    r = t == CUDA_TARGET_CUBIN ? nv->nvrtcGetCUBIN(prog, out->bytes)
                               : nv->nvrtcGetPTX(prog, out->bytes);
    out->size = size;
    return r == NVRTC_OK;
}

/* The options besides the architecture; part of every kernel's cache key
 * (cuda_compile_flags). */
static const char *const fixed_options[] = {"--fmad=false", "-default-device",
                                            "--std=c++17"};
enum { N_FIXED = sizeof fixed_options / sizeof fixed_options[0] };

void cuda_compile_flags(char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_FIXED && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? " " : "",
                               fixed_options[i]);
}

int cuda_compile(const cuda_nvrtc *nv, const char *source, const char *name,
                 int arch, cuda_target target, cuda_image *out)
{
    char arch_option[64];
    memset(out, 0, sizeof *out);
    snprintf(arch_option, sizeof arch_option, "--gpu-architecture=%s_%d",
             target == CUDA_TARGET_CUBIN ? "sm" : "compute", arch);
    const char *options[1 + N_FIXED] = {arch_option};
    for (size_t i = 0; i < N_FIXED; i++)
        options[1 + i] = fixed_options[i];
    nvrtc_program prog = NULL;
    nvrtc_result r = nv->nvrtcCreateProgram(&prog, source, name, 0, NULL,
                                            NULL);
    if (r != NVRTC_OK) {
        char text[256];
        snprintf(text, sizeof text, "nvrtcCreateProgram failed: %s",
                 nv->nvrtcGetErrorString(r));
        out->log = copy_text(text);
        return 0;
    }
    r = nv->nvrtcCompileProgram(prog, 1 + N_FIXED, options);
    out->log = program_log(nv, prog);
    int ok = r == NVRTC_OK && fetch(nv, prog, target, out);
    nv->nvrtcDestroyProgram(&prog);
    if (!ok) {
        free(out->bytes);
        out->bytes = NULL;
        out->size = 0;
    }
    return ok;
}

void cuda_image_free(cuda_image *image)
{
    free(image->bytes);
    free(image->log);
    memset(image, 0, sizeof *image);
}
