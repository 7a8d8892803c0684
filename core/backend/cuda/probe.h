/*
 * probe.h — whether the CUDA backend can run here, and if not, exactly why
 * ("libcuda.so.1 not found", "no CUDA device", "NVRTC not found ...").
 */
#ifndef ACC_CORE_BACKEND_CUDA_PROBE_H
#define ACC_CORE_BACKEND_CUDA_PROBE_H

#include <stddef.h>

/* Returns 1 when the CUDA backend can run on device `ordinal`: a driver
 * that starts, that device, NVRTC, and an architecture NVRTC compiles for
 * it.  Always writes a sentence starting "available: " or "not
 * available: " into reason. */
int cuda_probe(int ordinal, char *reason, size_t size);

#endif
