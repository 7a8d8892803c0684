/*
 * probe.c — the CUDA availability check: the driver, the device the
 * context asks for, NVRTC, and an architecture NVRTC can compile for that
 * device.  The libraries stay loaded (loader.c never unloads them); the
 * backend of a context that uses CUDA loads what it needs itself.
 */
#include "core/backend/cuda/probe.h"

#include "core/backend/cuda/device.h"

#include <stdio.h>

acc_status cuda_probe(int ordinal, char *about, size_t about_size, diag *d)
{
    diag why; /* the loaders' sentence (loader.h, device.h), prefixed */
    cuda_driver driver;
    cuda_nvrtc nvrtc;
    cuda_device_info dev;
    cuda_arch arch;
    int count = 0;
    diag_clear(&why);
    if (cuda_load_driver(&driver, &why) ||
        cuda_device_query(&driver, ordinal, &dev, &count, &why) ||
        cuda_load_nvrtc(&nvrtc, &why) ||
        cuda_arch_for(&nvrtc, dev.cc, &arch, &why))
        diag_fail(d, why.status, "not available: %s", why.message);
    else
        snprintf(about, about_size, "available: CUDA device %d of %d (%s, "
                 "compute capability %d.%d, %d multiprocessors) and NVRTC "
                 "%d.%d; kernels are compiled to %s_%d", ordinal, count,
                 dev.name, dev.cc / 10, dev.cc % 10, dev.sms, nvrtc.major,
                 nvrtc.minor,
                 arch.target == CUDA_TARGET_CUBIN ? "cubins for sm"
                                                  : "PTX for compute",
                 arch.arch);
    cuda_unload_nvrtc(&nvrtc);
    cuda_unload_driver(&driver);
    return diag_ok(&why) ? ACC_OK : d->status;
}
