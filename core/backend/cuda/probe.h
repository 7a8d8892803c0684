/*
 * probe.h — whether the CUDA backend can run here, and if not, exactly why
 * ("libcuda.so.1 not found", "no CUDA device", "NVRTC not found ...").
 */
#ifndef ACC_CORE_BACKEND_CUDA_PROBE_H
#define ACC_CORE_BACKEND_CUDA_PROBE_H

#include "core/base/diag.h"

#include <stddef.h>

/* Whether the CUDA backend can run on device `ordinal`: a driver that
 * starts, that device, NVRTC, and an architecture NVRTC compiles for it.
 * ACC_OK with a sentence starting "available: " written into `about`, or
 * ACC_ERR_UNSUPPORTED recorded on d with the sentence "not available:
 * ..." naming what is missing. */
acc_status cuda_probe(int ordinal, char *about, size_t about_size, diag *d);

#endif
