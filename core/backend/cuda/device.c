/*
 * device.c — device facts and the choice of compilation target (see
 * device.h).
 */
#include "core/backend/cuda/device.h"
#include "core/base/mem.h"

#include <stdio.h>
#include <stdlib.h>

static int attribute(const cuda_driver *d, cuda_device_info *o, int attr,
                     int *value, char *why, size_t size)
{
    char err[160];
    cu_result r = d->cuDeviceGetAttribute(value, attr, o->dev);
    if (r == CU_SUCCESS)
        return 1;
    cuda_error_text(d, r, err, sizeof err);
    snprintf(why, size, "cuDeviceGetAttribute(%d) failed for CUDA device "
             "%d: %s", attr, o->ordinal, err);
    return 0;
}

int cuda_device_query(const cuda_driver *d, int ordinal,
                      cuda_device_info *out, int *count, char *why,
                      size_t why_size)
{
    char err[160];
    int major = 0, minor = 0;
    *count = 0;
    cu_result r = d->cuInit(0);
    if (r == CU_SUCCESS)
        r = d->cuDeviceGetCount(count);
    if (r != CU_SUCCESS) {
        cuda_error_text(d, r, err, sizeof err);
        snprintf(why, why_size, "the CUDA driver failed to start: %s", err);
        return 0;
    }
    if (*count == 0) {
        snprintf(why, why_size, "no CUDA device");
        return 0;
    }
    if (ordinal < 0 || ordinal >= *count) {
        snprintf(why, why_size, "CUDA device %d does not exist (%d device%s)",
                 ordinal, *count, *count == 1 ? "" : "s");
        return 0;
    }
    out->ordinal = ordinal;
    if ((r = d->cuDeviceGet(&out->dev, ordinal)) != CU_SUCCESS ||
        (r = d->cuDeviceGetName(out->name, (int)sizeof out->name,
                                out->dev)) != CU_SUCCESS) {
        cuda_error_text(d, r, err, sizeof err);
        snprintf(why, why_size, "CUDA device %d cannot be opened: %s",
                 ordinal, err);
        return 0;
    }
    if (!attribute(d, out, CU_ATTR_COMPUTE_MAJOR, &major, why, why_size) ||
        !attribute(d, out, CU_ATTR_COMPUTE_MINOR, &minor, why, why_size) ||
        !attribute(d, out, CU_ATTR_MULTIPROCESSORS, &out->sms, why,
                   why_size) ||
        !attribute(d, out, CU_ATTR_MAX_GRID_DIM_X, &out->max_grid_x, why,
                   why_size) ||
        !attribute(d, out, CU_ATTR_MAX_GRID_DIM_Y, &out->max_grid_y, why,
                   why_size))
        return 0;
    out->cc = 10 * major + minor;
    return 1;
}

int cuda_arch_for(const cuda_nvrtc *nv, int cc, cuda_arch *out, char *why,
                  size_t why_size)
{
    int n = 0, best = 0, lo = 0, hi = 0, *archs = NULL;
    if (nv->nvrtcGetNumSupportedArchs(&n) != NVRTC_OK || n <= 0 ||
        !(archs = mem_alloc((size_t)n * sizeof *archs)) ||
        nv->nvrtcGetSupportedArchs(archs) != NVRTC_OK) {
        free(archs);
        snprintf(why, why_size, "NVRTC %d.%d does not list the architectures "
                 "it supports", nv->major, nv->minor);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (archs[i] <= cc && archs[i] > best)
            best = archs[i];
        lo = i == 0 || archs[i] < lo ? archs[i] : lo;
        hi = archs[i] > hi ? archs[i] : hi;
    }
    if (best == 0)
        snprintf(why, why_size, "NVRTC %d.%d cannot compile for compute "
                 "capability %d.%d (it supports sm_%d to sm_%d)", nv->major,
                 nv->minor, cc / 10, cc % 10, lo, hi);
    free(archs);
    out->arch = best;
    out->target = best == cc ? CUDA_TARGET_CUBIN : CUDA_TARGET_PTX;
    return best != 0;
}
