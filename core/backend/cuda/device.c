/*
 * device.c — device facts and the choice of compilation target (see
 * device.h).
 */
#include "core/backend/cuda/device.h"
#include "core/base/mem.h"

#include <stdio.h>
#include <stdlib.h>

static acc_status attribute(const cuda_driver *d, cuda_device_info *o,
                            int attr, int *value, diag *dg)
{
    char err[160];
    cu_result r = d->cuDeviceGetAttribute(value, attr, o->dev);
    if (r == CU_SUCCESS)
        return ACC_OK;
    cuda_error_text(d, r, err, sizeof err);
    return diag_fail(dg, ACC_ERR_UNSUPPORTED, "cuDeviceGetAttribute(%d) "
                     "failed for CUDA device %d: %s", attr, o->ordinal, err);
}

acc_status cuda_device_query(const cuda_driver *d, int ordinal,
                             cuda_device_info *out, int *count, diag *dg)
{
    char err[160];
    int major = 0, minor = 0;
    *count = 0;
    cu_result r = d->cuInit(0);
    if (r == CU_SUCCESS)
        r = d->cuDeviceGetCount(count);
    if (r != CU_SUCCESS) {
        cuda_error_text(d, r, err, sizeof err);
        return diag_fail(dg, ACC_ERR_UNSUPPORTED, "the CUDA driver failed to "
                         "start: %s", err);
    }
    if (*count == 0)
        return diag_fail(dg, ACC_ERR_UNSUPPORTED, "no CUDA device");
    if (ordinal < 0 || ordinal >= *count)
        return diag_fail(dg, ACC_ERR_UNSUPPORTED, "CUDA device %d does not "
                         "exist (%d device%s)", ordinal, *count,
                         *count == 1 ? "" : "s");
    out->ordinal = ordinal;
    if ((r = d->cuDeviceGet(&out->dev, ordinal)) != CU_SUCCESS ||
        (r = d->cuDeviceGetName(out->name, (int)sizeof out->name,
                                out->dev)) != CU_SUCCESS) {
        cuda_error_text(d, r, err, sizeof err);
        return diag_fail(dg, ACC_ERR_UNSUPPORTED, "CUDA device %d cannot be "
                         "opened: %s", ordinal, err);
    }
    if (attribute(d, out, CU_ATTR_COMPUTE_MAJOR, &major, dg) ||
        attribute(d, out, CU_ATTR_COMPUTE_MINOR, &minor, dg) ||
        attribute(d, out, CU_ATTR_MULTIPROCESSORS, &out->sms, dg) ||
        attribute(d, out, CU_ATTR_MAX_GRID_DIM_X, &out->max_grid_x, dg) ||
        attribute(d, out, CU_ATTR_MAX_GRID_DIM_Y, &out->max_grid_y, dg))
        return dg->status;
    out->cc = 10 * major + minor;
    return ACC_OK;
}

acc_status cuda_arch_for(const cuda_nvrtc *nv, int cc, cuda_arch *out,
                         diag *d)
{
    int n = 0, best = 0, lo = 0, hi = 0, *archs = NULL;
    if (nv->nvrtcGetNumSupportedArchs(&n) == NVRTC_OK && n > 0 &&
        !(archs = mem_alloc((size_t)n * sizeof *archs)))
        return diag_oom(d, "the CUDA architectures");
    if (!archs || nv->nvrtcGetSupportedArchs(archs) != NVRTC_OK) {
        free(archs);
        return diag_fail(d, ACC_ERR_UNSUPPORTED, "NVRTC %d.%d does not list "
                         "the architectures it supports", nv->major,
                         nv->minor);
    }
    for (int i = 0; i < n; i++) {
        if (archs[i] <= cc && archs[i] > best)
            best = archs[i];
        lo = i == 0 || archs[i] < lo ? archs[i] : lo;
        hi = archs[i] > hi ? archs[i] : hi;
    }
    free(archs);
    out->arch = best;
    out->target = best == cc ? CUDA_TARGET_CUBIN : CUDA_TARGET_PTX;
    if (best == 0)
        return diag_fail(d, ACC_ERR_UNSUPPORTED, "NVRTC %d.%d cannot compile "
                         "for compute capability %d.%d (it supports sm_%d to "
                         "sm_%d)", nv->major, nv->minor, cc / 10, cc % 10,
                         lo, hi);
    return ACC_OK;
}
