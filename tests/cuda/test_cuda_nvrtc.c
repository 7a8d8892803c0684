/*
 * test_cuda_nvrtc.c — what can be checked of the CUDA backend without a
 * device: NVRTC is found and compiles CUDA C to a cubin for sm_90 and to
 * PTX for compute_90, errors come back with the compiler's log, and the
 * probe names what is missing.  Skips (saying why) when NVRTC is absent.
 */
#include <criterion/criterion.h>

#include "core/backend/cuda/nvrtc.h"
#include "core/backend/cuda/probe.h"

#include <stdio.h>
#include <string.h>

static const char kernel_source[] =
    "extern \"C\" __global__ void axpy(long n, float a, const float *x,\n"
    "                                  float *y)\n"
    "{\n"
    "    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;\n"
    "         i += (long)gridDim.x * blockDim.x)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

static cuda_nvrtc nvrtc;

static void load(void)
{
    diag why;
    diag_clear(&why);
    if (cuda_load_nvrtc(&nvrtc, &why) != ACC_OK)
        cr_skip_test("NVRTC is not installed here (%s); nothing to check",
                     why.message);
}

static void unload(void)
{
    cuda_unload_nvrtc(&nvrtc);
}

TestSuite(nvrtc, .init = load, .fini = unload);

Test(nvrtc, reports_its_version)
{
    cr_expect_geq(nvrtc.major, 11, "NVRTC %d.%d", nvrtc.major, nvrtc.minor);
}

Test(nvrtc, compiles_to_a_cubin_for_sm_90)
{
    cuda_image image;
    int ok = cuda_compile(&nvrtc, kernel_source, "axpy.cu", 90,
                          CUDA_TARGET_CUBIN, &image);
    cr_assert(ok, "compile failed: %s", image.log);
    cr_expect_gt(image.size, 4);
    cr_expect(memcmp(image.bytes, "\x7f" "ELF", 4) == 0, "a cubin is ELF");
    cr_expect_str_empty(image.log, "no warnings: %s", image.log);
    cuda_image_free(&image);
}

Test(nvrtc, compiles_to_ptx_for_compute_90)
{
    cuda_image image;
    int ok = cuda_compile(&nvrtc, kernel_source, "axpy.cu", 90,
                          CUDA_TARGET_PTX, &image);
    cr_assert(ok, "compile failed: %s", image.log);
    cr_expect(strstr(image.bytes, ".target sm_90"), "%s", image.bytes);
    cr_expect(strstr(image.bytes, ".entry axpy"), "the kernel keeps its C name");
    cr_expect(!strstr(image.bytes, "fma.rn.f32"),
              "no contraction of a * x + y into an FMA");
    cuda_image_free(&image);
}

Test(nvrtc, errors_come_back_with_the_log)
{
    cuda_image image;
    int ok = cuda_compile(&nvrtc, "__global__ void k() { undefined_name; }\n",
                          "broken.cu", 90, CUDA_TARGET_CUBIN, &image);
    cr_assert(!ok);
    cr_expect_null(image.bytes);
    cr_expect(strstr(image.log, "broken.cu(1)"), "names the line: %s",
              image.log);
    cr_expect(strstr(image.log, "undefined_name"), "%s", image.log);
    cuda_image_free(&image);
}

/* On this machine, whatever it has: the sentence says available (and on
 * which device), or names the missing piece.  Every sentence is checked
 * one by one with the fake driver (test_cuda_runtime_fake.c). */
Test(cuda_probe, says_available_or_names_what_is_missing)
{
    char reason[1024];
    diag d;
    diag_clear(&d);
    int available = cuda_probe(0, reason, sizeof reason, &d) == ACC_OK;
    if (!available) /* why not: the diag's sentence */
        snprintf(reason, sizeof reason, "%s", d.message);
    if (available) {
        cr_expect(strncmp(reason, "available: CUDA device 0 of ", 28) == 0,
                  "%s", reason);
        return;
    }
    cr_expect(strncmp(reason, "not available: ", 15) == 0, "%s", reason);
    cr_expect(strstr(reason, "libcuda.so.1 not found") ||
                  strstr(reason, "ACC_CUDA_DRIVER") ||
                  strstr(reason, "no CUDA device") ||
                  strstr(reason, "driver failed to start") ||
                  strstr(reason, "NVRTC not found") ||
                  strstr(reason, "cannot compile for compute capability"),
              "%s", reason);
}
