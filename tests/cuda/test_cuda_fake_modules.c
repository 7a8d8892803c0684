/*
 * test_cuda_fake_modules.c — the CUDA module cache on the FAKE driver
 * (tests/cuda/fake_driver.c): a module is unloaded when the last program
 * using it is freed (beyond CACHE_IDLE_MAX recently freed ones), so
 * compiling and freeing many distinct programs in one context keeps the
 * loaded modules bounded; and a module file whose seal does not verify
 * (core/cache/cache_file.h) is never given to the driver, but rebuilt.
 * Kernels are really compiled (NVRTC): these tests skip without it.
 * Nothing in this file ran on a GPU.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "cache_support.h"
#include "core/cache/cache_store.h"
#include "support.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ACC_FAKE_DRIVER
Test(cuda_runtime_fake, fake_driver_not_built)
{
    cr_skip_test("the fake CUDA driver is built only where the CUDA "
                 "toolkit's cuda.h is installed (cmake/AccelCuda.cmake)");
}
#else

#include "fake_support.h"

TestSuite(cuda_runtime_fake, .init = fake_setup, .fini = fake_teardown);

/* A program whose kernel differs for every k. */
static acc_program *scaled_by(acc_context *ctx, long k)
{
    char src[256];
    snprintf(src, sizeof src, "scaled (xs : Vector f32) : Vector f32 =\n"
             "  map (\\x -> x * %ld.0 + 1.0) xs\n", k);
    return compile_from(ctx, src, "scaled");
}

static long modules_live(void)
{
    fake_counters c = fake_counts();
    return c.modules_loaded - c.modules_unloaded;
}

/* How many programs ACC_TEST_PROGRAMS asks for (default `fallback`):
 * each compiles a kernel, so the default keeps the suite fast. */
static long programs(long fallback)
{
    const char *v = getenv("ACC_TEST_PROGRAMS");
    return v && atol(v) > 0 ? atol(v) : fallback;
}

Test(cuda_runtime_fake, freed_programs_unload_their_modules, .timeout = 600)
{
    acc_context *ctx = cuda_context();
    acc_program *keep = scaled_by(ctx, 100000);
    cr_assert_eq(modules_live(), 1);
    long n = programs(2 * CACHE_IDLE_MAX), most = 0;
    for (long k = 0; k < n; k++) {
        acc_program_free(scaled_by(ctx, k));
        long live = modules_live();
        most = live > most ? live : most;
    }
    cr_expect_eq(most, CACHE_IDLE_MAX + 1, "at most the recently freed "
                 "modules and the live program's were loaded (%ld)", most);
    cr_expect_eq(fake_counts().modules_loaded, n + 1, "each compiled once");

    /* the most recently freed module is still loaded; the first one was
     * unloaded and comes back from its file */
    char got[512];
    acc_program *p = scaled_by(ctx, n - 1);
    cuda_figures(p, got, sizeof got);
    cr_expect(strstr(got, "\"memory_hits\":1"), "%s", got);
    acc_program_free(p);
    p = scaled_by(ctx, 0);
    cuda_figures(p, got, sizeof got);
    cr_expect(strstr(got, "\"disk_hits\":1"), "%s", got);
    acc_program_free(p);

    acc_program_free(keep);
    acc_context_destroy(ctx);
    cr_expect_eq(modules_live(), 0);
    expect_all_released();
}

/* Rewrites byte `at` (counted from the end when negative) of the one
 * module file in the cache folder. */
static void flip_byte(long at)
{
    char names[4][64], path[600];
    cr_assert_eq(cs_names(fake_cache_dir, ".cumod", names, 4), 1);
    snprintf(path, sizeof path, "%s/%s", fake_cache_dir, names[0]);
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, at, at < 0 ? SEEK_END : SEEK_SET), 0);
    int c = fgetc(f);
    cr_assert_eq(fseek(f, -1, SEEK_CUR), 0);
    fputc(c ^ 0x20, f);
    cr_assert_eq(fclose(f), 0);
}

static void expect_rebuilt(void)
{
    char got[512];
    long loaded = fake_counts().modules_loaded;
    acc_context *ctx = cuda_context();
    acc_program *p = scaled_by(ctx, 7);
    cuda_figures(p, got, sizeof got);
    cr_expect(strstr(got, "\"disk_hits\":0,\"compiled\":1"), "%s", got);
    acc_program_free(p);
    acc_context_destroy(ctx);
    cr_expect_eq(fake_counts().modules_loaded, loaded + 1,
                 "only the rebuilt image reached the driver");
}

Test(cuda_runtime_fake, module_files_that_fail_their_seal_are_rebuilt)
{
    acc_context *ctx = cuda_context();
    acc_program_free(scaled_by(ctx, 7));
    acc_context_destroy(ctx);
    flip_byte(200);    /* inside the image: the header still matches */
    expect_rebuilt();
    flip_byte(-20);    /* inside the MAC */
    expect_rebuilt();
    /* sealed with another secret: as if written by someone else */
    char secret[600];
    snprintf(secret, sizeof secret, "%s/secret.key", fake_cache_dir);
    FILE *f = fopen(secret, "r+b");
    cr_assert_not_null(f);
    int c = fgetc(f);
    cr_assert_eq(fseek(f, 0, SEEK_SET), 0);
    fputc(c ^ 1, f);
    cr_assert_eq(fclose(f), 0);
    expect_rebuilt();
    expect_all_released();
}

#endif
