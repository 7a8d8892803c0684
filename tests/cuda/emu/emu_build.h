/*
 * emu_build.h — CUDA source to a loadable host module for the emulated
 * device (docs/CUDA.md, "The emulated device"), shared by the test NVRTC
 * (emu_nvrtc.c) and the emulating driver (fake_driver*.c with FAKE_EMU).
 *
 * The "image" the test NVRTC hands out for any target is text: a head
 * that looks like PTX to accel's checks (".version", ".target", one
 * ".entry NAME(" line per kernel) and then the CUDA source itself.  The
 * driver builds the source with the host C++ compiler after cuda_emu.h,
 * into a shared object cached by content hash (the header, the compiler
 * command and the source), and dlopens it.
 */
#ifndef ACC_EMU_BUILD_H
#define ACC_EMU_BUILD_H

#include <stddef.h>

#define EMU_IMAGE_MAGIC "// accel-cuda-emu image v1\n"

/* The shared object of `source` (built unless the cache has it) into
 * so_path; 1 on success, else 0 with the compiler's log (or why) in
 * *log (malloc'ed; the caller frees it). */
int emu_build(const char *source, char *so_path, size_t so_size, char **log);

/* The image of `source` (malloc'ed, NUL-terminated; *size counts the
 * NUL), or NULL when out of memory. */
char *emu_image(const char *source, size_t *size);

/* The CUDA source inside an image, or NULL when it is not one. */
const char *emu_image_source(const char *image);

/* Calls visit(name, ctx) for every kernel `source` defines
 * (`__global__ void NAME(` or `ACC_KERNEL void NAME(`). */
void emu_kernels(const char *source, void (*visit)(const char *name,
                                                   size_t len, void *ctx),
                 void *ctx);

#endif
