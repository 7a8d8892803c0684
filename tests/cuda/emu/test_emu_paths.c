/*
 * test_emu_paths.c — every launch path of the CUDA launchers executed on
 * the emulated device (tests/cuda/emu/, docs/CUDA.md "The emulated
 * device"), on both of its shapes, against the reference interpreter:
 * fold by rows and in parts, segmented folds a thread or a warp per
 * segment and their tail, scans a thread per row, a warp per row and in
 * three passes, segmented scans a thread or a warp per segment, the
 * stencil's interior, border and check kernels, permute's defaults,
 * privatised and global source passes and map, and expand's sizes, scan,
 * offsets and its two value passes.  Each case asserts both that the
 * results agree with the interpreter and that the kernel of the path
 * ran (the executing driver records every launch by kernel name).
 *
 * The suite sets the environment itself (the emulating driver and test
 * NVRTC, ACC_TEST_BACKEND=cuda, ACC_EMU_DEVICE): ctest runs it with the
 * cuda label, and again under cuda-emu.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "reference_support.h"
#include "support.h"
#include "tests/cuda/fake_driver.h"
#include "text_sources.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ACC_EMU_DRIVER
Test(emu_paths, emulator_not_built)
{
    cr_skip_test("the emulated device is built only where cuda.h and a C++ "
                 "compiler are installed (cmake/AccelCuda.cmake)");
}
#else

static fake_cuda_events_fn events;
static fake_cuda_clear_events_fn clear_events;
static fake_event ev[8192];

static void use_shape(const char *shape)
{
    setenv("ACC_CUDA_DRIVER", ACC_EMU_DRIVER, 1);
    setenv("ACC_NVRTC", ACC_EMU_NVRTC, 1);
    setenv("ACC_TEST_BACKEND", "cuda", 1);
    setenv("ACC_EMU_DEVICE", shape, 1);
    void *lib = dlopen(ACC_EMU_DRIVER, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "%s: %s", ACC_EMU_DRIVER, dlerror());
    void *p = dlsym(lib, "fake_cuda_events");
    cr_assert_not_null(p);
    memcpy(&events, &p, sizeof p);
    p = dlsym(lib, "fake_cuda_clear_events");
    cr_assert_not_null(p);
    memcpy(&clear_events, &p, sizeof p);
    clear_events();
}

/* How many launches of `kernel` the driver recorded since the last
 * clear_events. */
static size_t launched(const char *kernel)
{
    size_t n = events(ev, sizeof ev / sizeof *ev), k = 0;
    for (size_t i = 0; i < n && i < sizeof ev / sizeof *ev; i++)
        k += ev[i].kind == FAKE_LAUNCH && strcmp(ev[i].function, kernel) == 0;
    return k;
}

/* `entry` of `src` on the emulated device agrees with the interpreter on
 * `in`, and launched each kernel of `kernels` (NULL-terminated) at least
 * once, and none of `not_kernels`. */
static void path(const char *shape, const char *src, const char *entry,
                 size_t n_in, const acc_array *in,
                 const char *const *kernels, const char *const *not_kernels)
{
    use_shape(shape);
    acc_program *ref = ts_ref_compile_text(src, entry, TS_REF_UNFUSED);
    acc_program *p = ts_ref_compile_text(src, entry, TS_UNDER_TEST);
    ts_ref_agree(ref, p, n_in, in, 0, NULL, entry);
    for (size_t i = 0; kernels && kernels[i]; i++)
        cr_expect_gt(launched(kernels[i]), 0, "%s on the %s device: %s did "
                     "not run", entry, shape, kernels[i]);
    for (size_t i = 0; not_kernels && not_kernels[i]; i++)
        cr_expect_eq(launched(not_kernels[i]), 0, "%s on the %s device: %s "
                     "ran", entry, shape, not_kernels[i]);
    acc_program_free(ref);
    acc_program_free(p);
}

#define K(...) ((const char *const[]){__VA_ARGS__, NULL})

static const char *const shapes[2] = {"small", "large"};

static void fill_i64(int64_t *x, int64_t n, int64_t mod)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (i * 7919 + 13) % mod;
}

static const char folds[] =
    "rowSums (m : Matrix i64) : Vector i64 = fold (+) 7 m\n"
    "\n"
    "total (xs : Vector i64) : Scalar i64 = fold (+) 0 xs\n"
    "\n"
    "segSums (xs : Vector i64) (s : Vector i64) : Vector i64 =\n"
    "  foldSeg (+) 0 xs s\n"
    "\n"
    "segQuots (xs : Vector i32) (s : Vector i64) : Vector i32 =\n"
    "  foldSeg (+) 0 (map (\\x -> quot 100 x) xs) s\n";

Test(emu_paths, fold_rows_and_parts)
{
    static int64_t x[70000];
    fill_i64(x, 70000, 1000);
    for (int s = 0; s < 2; s++) {
        int64_t ext[2] = {8, 100}, n = 70000;
        acc_array m = ts_host(ACC_I64, 2, ext, x);
        path(shapes[s], folds, "rowSums", 1, &m, K("accel_fold_rows"),
             K("accel_fold_part"));
        acc_array v = ts_host(ACC_I64, 1, &n, x);
        path(shapes[s], folds, "total", 1, &v,
             K("accel_fold_part", "accel_fold_finish"), K("accel_fold_rows"));
    }
}

Test(emu_paths, segmented_fold_thread_warp_and_tail)
{
    static int64_t x[4000], seg[400];
    static int32_t q[4000];
    fill_i64(x, 4000, 1000);
    for (int i = 0; i < 4000; i++)
        q[i] = 1 + i % 7;
    for (int s = 0; s < 2; s++) {
        int64_t n = 4000, k = 400;
        for (int i = 0; i < 400; i++)
            seg[i] = 1 + i % 3; /* short: a thread per segment */
        acc_array in[2] = {ts_host(ACC_I64, 1, &n, x),
                           ts_host(ACC_I64, 1, &k, seg)};
        path(shapes[s], folds, "segSums", 2, in, K("accel_fold_seg_thread"),
             K("accel_fold_seg_warp"));
        k = 40;
        for (int i = 0; i < 40; i++)
            seg[i] = 60 + i % 50; /* long: a warp per segment */
        in[1] = ts_host(ACC_I64, 1, &k, seg);
        path(shapes[s], folds, "segSums", 2, in, K("accel_fold_seg_warp"),
             K("accel_fold_seg_thread"));
        /* the producer's elements past the last segment are checked */
        in[0] = ts_host(ACC_I32, 1, &n, q);
        path(shapes[s], folds, "segQuots", 2, in,
             K("accel_fold_seg_warp", "accel_fold_seg_tail"), NULL);
    }
}

static const char scans[] =
    "diffs (m : Matrix i64) : Matrix i64 = scanl (-) 0 m\n"
    "\n"
    "sums (m : Matrix i64) : Matrix i64 = scanl (+) 0 m\n"
    "\n"
    "segSums (xs : Vector i64) (s : Vector i64) : Vector i64 =\n"
    "  scanlSeg (+) 0 xs s\n"
    "\n"
    "segDiffs (xs : Vector i64) (s : Vector i64) : Vector i64 =\n"
    "  scanlSeg (-) 0 xs s\n";

Test(emu_paths, scan_thread_rows_and_three_passes)
{
    static int64_t x[40000];
    fill_i64(x, 40000, 1000);
    for (int s = 0; s < 2; s++) {
        int64_t ext[2] = {300, 20};
        acc_array m = ts_host(ACC_I64, 2, ext, x);
        path(shapes[s], scans, "diffs", 1, &m, K("accel_scan_thread"),
             K("accel_scan_rows"));
        path(shapes[s], scans, "sums", 1, &m, K("accel_scan_rows"),
             K("accel_scan_thread", "accel_scan_part"));
        ext[0] = 1, ext[1] = 40000;
        m = ts_host(ACC_I64, 2, ext, x);
        path(shapes[s], scans, "sums", 1, &m,
             K("accel_scan_part", "accel_scan_finish", "accel_scan_block"),
             K("accel_scan_rows"));
    }
}

Test(emu_paths, segmented_scan_thread_and_warp)
{
    static int64_t x[4000], seg[40];
    fill_i64(x, 4000, 1000);
    for (int i = 0; i < 40; i++)
        seg[i] = 60 + i % 50;
    for (int s = 0; s < 2; s++) {
        int64_t n = 4000, k = 40;
        acc_array in[2] = {ts_host(ACC_I64, 1, &n, x),
                           ts_host(ACC_I64, 1, &k, seg)};
        path(shapes[s], scans, "segSums", 2, in, K("accel_scan_seg_warp"),
             K("accel_scan_seg_thread"));
        path(shapes[s], scans, "segDiffs", 2, in, K("accel_scan_seg_thread"),
             K("accel_scan_seg_warp"));
    }
}

Test(emu_paths, stencil_interior_border_and_checks)
{
    static float img[40 * 30];
    static int32_t ys[3000];
    for (int i = 0; i < 40 * 30; i++)
        img[i] = (float)((i * 37) % 251) * 0.37f - 11.3f;
    for (int i = 0; i < 3000; i++)
        ys[i] = i == 1500 ? 0 : 1 + i % 9;
    for (int s = 0; s < 2; s++) {
        int64_t ext[2] = {40, 30}, n = 3000;
        acc_array in = ts_host(ACC_F32, 2, ext, img);
        path(shapes[s], ts_language4_source(), "blur", 1, &in,
             K("accel_stencil_interior", "accel_stencil_border"), NULL);
        acc_array two[2] = {ts_host(ACC_I64, 0, NULL, &n),
                            ts_host(ACC_I32, 1, &n, ys)};
        use_shape(shapes[s]);
        acc_program *ref = ts_ref_compile_text(ts_stencil_source(),
                                               "leftOnly", TS_REF_UNFUSED);
        acc_program *p = ts_ref_compile_text(ts_stencil_source(), "leftOnly",
                                             TS_UNDER_TEST);
        /* a division by zero in the producer: the interpreter's error */
        ts_ref_agree(ref, p, 2, two, 0, "", "leftOnly");
        cr_expect_gt(launched("accel_stencil_checks") +
                         launched("accel_stencil_interior"), 0);
        acc_program_free(ref);
        acc_program_free(p);
    }
}

Test(emu_paths, permute_private_global_and_map)
{
    static int32_t x[5000];
    for (int i = 0; i < 5000; i++)
        x[i] = (int32_t)((i * 7919) % 10);
    for (int s = 0; s < 2; s++) {
        int64_t n = 5000, k = 10;
        acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &k),
                           ts_host(ACC_I32, 1, &n, x)};
        path(shapes[s], ts_permute_source(), "histogram", 2, in,
             K("accel_permute_defaults", "accel_permute_private"),
             K("accel_permute_source"));
        k = 3000;
        path(shapes[s], ts_permute_source(), "histogram", 2, in,
             K("accel_permute_defaults", "accel_permute_source"),
             K("accel_permute_private"));
        path(shapes[s], ts_permute_source(), "twoMapsAfter", 2, in,
             K("accel_permute_map"), NULL);
    }
}

Test(emu_paths, expand_threads_and_blocks)
{
    static int64_t x[1000];
    for (int s = 0; s < 2; s++) {
        int64_t n = 1000;
        for (int i = 0; i < 1000; i++)
            x[i] = i % 4;
        acc_array in = ts_host(ACC_I64, 1, &n, x);
        path(shapes[s], ts_permute_source(), "spread", 1, &in,
             K("accel_expand_sizes", "accel_expand_scan",
               "accel_expand_offsets", "accel_expand_threads"),
             K("accel_expand_blocks"));
        memset(x, 0, sizeof x);
        x[500] = 3000;
        path(shapes[s], ts_permute_source(), "spread", 1, &in,
             K("accel_expand_blocks"), K("accel_expand_threads"));
    }
}

#endif
