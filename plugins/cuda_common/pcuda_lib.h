/*
 * pcuda_lib.h — finding and opening the CUDA libraries for the cublas and
 * cufft plugins (compiled into each): dlopen by name and in the toolkit
 * folders, resolution of a function table, the driver with its device
 * check, and NVRTC with a compile helper.
 *
 * Every failure becomes a sentence for the plugin's note ("libcublas.so.13
 * not found (tried ...): ..."), so a plugin loads on any machine and says
 * why its implementations are unavailable.  Libraries are never closed:
 * the driver does not support being unloaded, and the vendor libraries
 * keep state (their CUDA runtime, registered kernels) that outlives a
 * plugin; opening them again only counts a reference.
 */
#ifndef ACC_PLUGINS_PCUDA_LIB_H
#define ACC_PLUGINS_PCUDA_LIB_H

#include "pcuda_api.h"

/* Opens the first of `names` that dlopen finds, each tried as given and,
 * for a toolkit library (toolkit != 0; not the driver), then under
 * $CUDA_HOME/lib64, $CUDA_PATH/lib64 and /usr/local/cuda/lib64.  Returns
 * the handle and writes the name or path opened to `path` (may be NULL);
 * NULL with "NAMES[0] not found (tried A, B, ...): <last dlerror>" in why. */
void *pcuda_open(const char *const *names, size_t n_names, int toolkit,
                 char *path, size_t path_size, char *why, size_t why_size);

/* Resolves n symbols of `library` into the struct `fns` at the table's
 * offsets; 0 with "LIB lacks the function F (...)" in why. */
int pcuda_resolve(void *library, const char *lib_name,
                  const pcuda_symbol *table, size_t n, void *fns, char *why,
                  size_t why_size);

/* Opens the driver (libcuda.so.1, then libcuda.so) and checks that it
 * starts and sees a device.  Returns 1; or 0 with "no CUDA device: REASON"
 * in why. */
int pcuda_load_driver(pcuda_driver *d, char *why, size_t why_size);

/* The driver's description of an error: "error 2 (out of memory)", or
 * "error 2" when the driver has none. */
void pcuda_error_text(const pcuda_driver *d, pcu_result r, char *out,
                      size_t size);

/* Opens NVRTC: libnvrtc.so.13, .12, libnvrtc.so.  0 with a sentence. */
int pcuda_load_nvrtc(pcuda_nvrtc *n, char *why, size_t why_size);

/* Output of a compilation: LTO-IR (NVRTC's -dlto) or PTX. */
typedef enum pcuda_output { PCUDA_LTO_IR, PCUDA_PTX } pcuda_output;

/* Compiles `source` with NVRTC and the options given; returns the malloc'd
 * image and its size, or NULL with NVRTC's message and log in why. */
char *pcuda_compile(const pcuda_nvrtc *n, const char *source,
                    const char *name, const char *const *options,
                    int n_options, pcuda_output kind, size_t *size,
                    char *why, size_t why_size);

#endif
