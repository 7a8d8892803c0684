/*
 * test_cuda_kernel_abi.c — the kernel ABI of the CUDA backend against the
 * device compiler's layout: the host mirror of a kernel's arguments
 * (core/backend/cuda/cuda_abi.h) has the sizes and field order NVRTC
 * gives the prelude's structs.  Needs NVRTC (skips, saying so, where it
 * is not installed), no device and no driver.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "core/backend/cuda/cuda_abi.h"
#include "core/backend/cuda/nvrtc.h"
#include "core/codegen/skeletons.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The host mirror of the kernel arguments (cuda_abi.h) has the layout
 * NVRTC gives the prelude's structs: the sizes are static_asserted in
 * device code, and positional constexpr initialisers in the host
 * mirror's field order fix the order and kind of every field (NVRTC has
 * no offsetof; with equal sizes, order and natural alignment on both
 * LP64 sides, the offsets agree). */
Test(cuda_kernel_abi, host_structs_match_the_device_layout)
{
    diag why;
    cuda_nvrtc nv;
    diag_clear(&why);
    if (cuda_load_nvrtc(&nv, &why) != ACC_OK)
        cr_skip_test("NVRTC is not installed here (%s)", why.message);
    const char *prelude = cg_skeleton("cuda/prelude.cuh.in");
    cr_assert_not_null(prelude);
    char checks[1400];
    snprintf(checks, sizeof checks,
             "static_assert(sizeof(acc_karray) == %zu, \"karray\");\n"
             "static_assert(sizeof(acc_kerr) == %zu, \"kerr\");\n"
             "static_assert(sizeof(acc_kargs) == %zu, \"kargs\");\n"
             "static_assert(sizeof(acc_kval) == %zu, \"kval\");\n"
             "constexpr acc_karray acc_a = {{nullptr}, {5}, 6};\n"
             "static_assert(acc_a.ext[0] == 5 && acc_a.size == 6, \"a\");\n"
             "constexpr acc_kerr acc_e = {1, 2, 3};\n"
             "static_assert(acc_e.code == 1 && acc_e.site == 2 && "
             "acc_e.pos == 3, \"e\");\n"
             "constexpr acc_kargs acc_k = {nullptr, nullptr, {1}, 2, {3}, 4, "
             "nullptr, nullptr, nullptr, nullptr};\n"
             "static_assert(acc_k.out_ext[0] == 1 && acc_k.out_size == 2 && "
             "acc_k.src_ext[0] == 3 && acc_k.inner == 4, \"k\");\n",
             sizeof(cuda_karray), sizeof(cuda_kerr), sizeof(cuda_kargs),
             sizeof(ir_value));
    size_t n = strlen(prelude) + strlen(checks) + 1;
    char *src = malloc(n);
    cr_assert_not_null(src);
    snprintf(src, n, "%s%s", prelude, checks);
    cuda_image img;
    int ok = cuda_compile(&nv, src, "abi_check.cu", 90, CUDA_TARGET_PTX, &img);
    cr_expect(ok, "the device layout differs:\n%s", img.log);
    cr_expect_str_empty(img.log);
    cuda_image_free(&img);
    free(src);
}
