/*
 * test_gpu_bench_baselines.c — the hand-written CUDA baselines of
 * `make bench-gpu` (bench/gpu_baselines.cu) compile with NVRTC for sm_90,
 * silently, and define the kernels bench/gpu_bench.c launches.  (They run
 * only on a GPU; here they are only compiled.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "core/backend/cuda/nvrtc.h"

#ifndef ACC_TEST_GPU_BASELINES
#define ACC_TEST_GPU_BASELINES "bench/gpu_baselines.cu"
#endif

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

Test(gpu_bench, baselines_compile_with_nvrtc)
{
    cuda_nvrtc nvrtc;
    diag why;
    diag_clear(&why);
    if (cuda_load_nvrtc(&nvrtc, &why) != ACC_OK)
        cr_skip_test("NVRTC is not installed: %s", why.message);
    const char *src = read_all(ACC_TEST_GPU_BASELINES);
    cuda_image ptx;
    cr_assert(cuda_compile(&nvrtc, src, "gpu_baselines.cu", 90,
                           CUDA_TARGET_PTX, &ptx), "%s", ptx.log);
    cr_expect_str_empty(ptx.log);
    cr_expect_not_null(strstr(ptx.bytes, ".entry blackscholes"));
    cr_expect_not_null(strstr(ptx.bytes, ".entry nbody"));
    cuda_image_free(&ptx);
    cuda_image cubin;
    cr_assert(cuda_compile(&nvrtc, src, "gpu_baselines.cu", 90,
                           CUDA_TARGET_CUBIN, &cubin), "%s", cubin.log);
    cr_expect(cubin.size > 4 && memcmp(cubin.bytes, "\177ELF", 4) == 0);
    cuda_image_free(&cubin);
    cuda_unload_nvrtc(&nvrtc);
}
