/*
 * cufft_compile.c — NVRTC compilation of the cufft plugin's device code
 * (cufft_callbacks.cu): the load and store callbacks to LTO-IR, one module
 * each per precision, and the set-info kernels to PTX, for one compute
 * capability.  Needs NVRTC, not a device: tests/foreign/test_cuda_plugins.c
 * compiles everything here for sm_75 and sm_90.
 */
#include "cufft_plugin.h"

#include "pcuda_lib.h"

#include "cufft_sources.h" /* generated: cg_skeleton_files[] */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cfp_device_source(void)
{
    return cg_skeleton_files[0].text; /* the one file embedded */
}

const char *cfp_load_symbol(int f64)
{
    return f64 ? "acc_fft_load_f64" : "acc_fft_load_f32";
}

const char *cfp_store_symbol(int f64)
{
    return f64 ? "acc_fft_store_f64" : "acc_fft_store_f32";
}

const char *cfp_set_info_kernel(int f64)
{
    return f64 ? "acc_fft_set_info_f64" : "acc_fft_set_info_f32";
}

/* One part of the source: `part` is -DACC_FFT_LOAD, -DACC_FFT_STORE or
 * NULL (the set-info kernels, PTX). */
static char *compile_part(const pcuda_nvrtc *n, int arch, const char *part,
                          int f64, size_t *size, char *why, size_t why_size)
{
    char arch_opt[32];
    snprintf(arch_opt, sizeof arch_opt, "-arch=compute_%d", arch);
    const char *opts[5] = {arch_opt};
    int n_opts = 1;
    if (part) {
        opts[n_opts++] = "-dlto";
        opts[n_opts++] = "-rdc=true";
        opts[n_opts++] = part;
        if (f64)
            opts[n_opts++] = "-DACC_FFT_F64";
    }
    return pcuda_compile(n, cfp_device_source(), "cufft_callbacks.cu", opts,
                         n_opts, part ? PCUDA_LTO_IR : PCUDA_PTX, size, why,
                         why_size);
}

cfp_images *cfp_compile(const pcuda_nvrtc *n, int arch, char *why,
                        size_t why_size)
{
    cfp_images *im = calloc(1, sizeof *im);
    size_t ptx_size = 0;
    if (!im) {
        snprintf(why, why_size, "out of host memory");
        return NULL;
    }
    im->arch = arch;
    int ok = 1;
    for (int f64 = 0; ok && f64 < 2; f64++) {
        im->load[f64] = compile_part(n, arch, "-DACC_FFT_LOAD", f64,
                                     &im->load_size[f64], why, why_size);
        im->store[f64] = im->load[f64]
                             ? compile_part(n, arch, "-DACC_FFT_STORE", f64,
                                            &im->store_size[f64], why,
                                            why_size)
                             : NULL;
        ok = im->store[f64] != NULL;
    }
    if (ok)
        im->set_info_ptx = compile_part(n, arch, NULL, 0, &ptx_size, why,
                                        why_size);
    if (!im->set_info_ptx) {
        cfp_images_free(im);
        return NULL;
    }
    return im;
}

void cfp_images_free(cfp_images *im)
{
    if (!im)
        return;
    for (int i = 0; i < 2; i++) {
        free(im->load[i]);
        free(im->store[i]);
    }
    free(im->set_info_ptx);
    free(im);
}
