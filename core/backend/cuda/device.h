/*
 * device.h — what accel needs to know about one CUDA device (its name,
 * compute capability, multiprocessors, grid limits), and which target
 * NVRTC compiles kernels for on it: a cubin for sm_XY when NVRTC supports
 * the device's architecture, else PTX for the newest older architecture
 * NVRTC supports (the driver compiles PTX for newer devices).
 */
#ifndef ACC_CORE_BACKEND_CUDA_DEVICE_H
#define ACC_CORE_BACKEND_CUDA_DEVICE_H

#include "core/backend/cuda/nvrtc.h"

typedef struct cuda_device_info {
    int ordinal;
    cu_device dev;
    char name[128];
    int cc;          /* compute capability as 10 * major + minor (90) */
    int sms;         /* multiprocessors */
    int max_grid_x, max_grid_y;
} cuda_device_info;

typedef struct cuda_arch {
    int arch;           /* e.g. 90 */
    cuda_target target; /* CUBIN: sm_<arch>; PTX: compute_<arch> */
} cuda_arch;

/* cuInit, then the facts of device `ordinal`.  ACC_OK, or
 * ACC_ERR_UNSUPPORTED recorded on dg with a sentence ("no CUDA device",
 * "the CUDA driver failed to start (...)", "CUDA device 2 does not exist
 * (1 device)"); the diag's status either way. */
acc_status cuda_device_query(const cuda_driver *d, int ordinal,
                             cuda_device_info *out, int *count, diag *dg);
/* The target for a device of compute capability cc: ACC_OK, or
 * ACC_ERR_UNSUPPORTED recorded on d with a sentence when NVRTC supports
 * no architecture the device can run (out of memory: diag_oom). */
acc_status cuda_arch_for(const cuda_nvrtc *nv, int cc, cuda_arch *out,
                         diag *d);

#endif
