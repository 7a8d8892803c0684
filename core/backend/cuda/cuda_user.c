/*
 * cuda_user.c — user kernels on the CUDA backend (see cuda_backend.h and
 * foreign/user_kernel.c): the NVRTC check at registration, loading the
 * kernel through the module cache, and its launch on a run's stream.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/cuda/nvrtc.h"
#include "core/base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The architecture a registration is checked for: the oldest that recent
 * NVRTC versions (12, 13) all compile for. */
enum { CHECK_ARCH = 75 };

struct cuda_user_fn {
    cuda_module *module;
    cu_function f;
    char entry[128];
};

/* Whether PTX defines kernel `entry` (".entry NAME(": C linkage). */
static int ptx_has_entry(const char *ptx, const char *entry)
{
    char want[160];
    snprintf(want, sizeof want, ".entry %s(", entry);
    return strstr(ptx, want) != NULL;
}

acc_status cuda_user_check(const char *who, const char *source,
                           const char *name, const char *entry, diag *d)
{
    cuda_nvrtc nv;
    cuda_image img;
    diag absent; /* no NVRTC (loader.h): nothing to check */
    diag_clear(&absent);
    if (cuda_load_nvrtc(&nv, &absent))
        return d->status;
    int ok = cuda_compile(&nv, source, name, CHECK_ARCH, CUDA_TARGET_PTX,
                          &img);
    if (!ok)
        diag_fail(d, ACC_ERR_COMPILE, "%s: '%s': NVRTC does not compile the "
                  "CUDA source: %s", who, name,
                  img.log && img.log[0] ? img.log : "no log");
    else if (!ptx_has_entry(img.bytes, entry))
        diag_fail(d, ACC_ERR_COMPILE, "%s: '%s': NVRTC does not compile the "
                  "CUDA source: it defines no kernel '%s' with C linkage "
                  "(write extern \"C\" __global__ void %s(...))", who, name,
                  entry, entry);
    cuda_image_free(&img);
    cuda_unload_nvrtc(&nv);
    return d->status;
}

acc_status cuda_user_load(cuda_backend *be, const char *source,
                          const char *name, const char *entry,
                          cuda_user_fn **out, diag *d)
{
    cache_stats how = {0, 0, 0, 0.0};
    *out = NULL;
    cuda_user_fn *f = mem_calloc(1, sizeof *f);
    if (!f)
        return diag_oom(d, "the user kernel");
    snprintf(f->entry, sizeof f->entry, "%s", entry);
    if (cuda_enter(be, d)) {
        free(f);
        return d->status;
    }
    if (cuda_module_get(be, source, name, &f->module, &how, d) == ACC_OK) {
        cu_result r = be->drv.cuModuleGetFunction(
            &f->f, cuda_module_handle(f->module), entry);
        if (r != CU_SUCCESS)
            cuda_fail(be, d, r, "the user kernel '%s' has no kernel '%s' "
                      "with C linkage (cuModuleGetFunction)", name, entry);
    }
    cuda_leave(be);
    if (!diag_ok(d)) {
        cuda_user_unload(be, f);
        return d->status;
    }
    *out = f;
    return ACC_OK;
}

void cuda_user_unload(cuda_backend *be, cuda_user_fn *f)
{
    if (!f)
        return;
    cuda_module_release(be, f->module);
    free(f);
}

acc_status cuda_user_launch(cuda_backend *be, const cuda_user_fn *f,
                            const uint32_t grid[3], const uint32_t block[3],
                            uint32_t shared_bytes, void *stream,
                            void **params, diag *d)
{
    cu_result r = be->drv.cuLaunchKernel(f->f, grid[0], grid[1], grid[2],
                                         block[0], block[1], block[2],
                                         shared_bytes, (cu_stream)stream,
                                         params, NULL);
    if (r != CU_SUCCESS)
        cuda_fail(be, d, r, "launching the user kernel %s with %u x %u x %u "
                  "blocks of %u x %u x %u threads and %u bytes of dynamic "
                  "shared memory (cuLaunchKernel)", f->entry, grid[0],
                  grid[1], grid[2], block[0], block[1], block[2],
                  shared_bytes);
    return d->status;
}
