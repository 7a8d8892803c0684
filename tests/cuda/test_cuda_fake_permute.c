/*
 * test_cuda_fake_permute.c — permute, permute' and expand on the CUDA
 * runtime, checked against a FAKE driver (tests/cuda/fake_driver.c,
 * loaded through ACC_CUDA_DRIVER): which kernels a histogram, a sieve and
 * an expansion launch, in which shapes, as the sizes of their sources
 * choose, and failures the kernels report handed to the interpreter.
 *
 * The fake driver keeps device memory in host memory and records every
 * call, but it cannot execute a kernel: nothing here shows that a result
 * computed by a kernel is right, and no test looks at one.  Kernels are
 * really compiled (NVRTC) and the images really checked (an ELF cubin for
 * the CUDA machine, or PTX), so these tests skip where NVRTC is missing.
 * The fixture and the helpers the files share are in fake_support.c.
 * Nothing in this file ran on a GPU.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "core/backend/cuda/cuda_abi.h"
#include "core/codegen/kernel_cuda.h"
#include "support.h"
#include "text_sources.h"

#include <stdint.h>
#include <stdio.h>
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

/* ---- permute, permute' and expand ------------------------------------------------- */

/* The step of p compiled and launched: nothing left to the interpreter. */
static void expect_all_compiled(acc_program *p)
{
    char figures[512];
    cuda_figures(p, figures, sizeof figures);
    cr_expect(strstr(figures, "\"kernels\":1,") && strstr(figures, "\"interpreted\":0"),
              "%s", figures);
}

/* Entry `entry` of ts_permute_source (or of ts_sieve_source). */
static acc_program *compile_permute(acc_context *ctx, const char *entry)
{
    acc_program *p = compile_from(ctx, strcmp(entry, "sieveMarks") == 0
                                           ? ts_sieve_source()
                                           : ts_permute_source(), entry);
    expect_all_compiled(p);
    return p;
}

static int64_t histogram_bins;
static acc_array histogram_run(acc_program *p, int32_t *xs, int64_t n,
                               acc_status want)
{
    acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &histogram_bins),
                       ts_host(ACC_I32, 1, &n, xs)}, out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), want, "%s",
                 acc_last_error());
    return out;
}

/* histogram_run of n sources into histogram_bins bins: the result has the
 * bins, and the launches are want[0..k). */
static void histogram_launches_are(acc_program *p, int32_t *xs, int64_t n,
                                   const char *const *want, size_t k)
{
    acc_array out = histogram_run(p, xs, n, ACC_OK);
    cr_expect_eq(out.extents[0], histogram_bins);
    acc_array_release(&out);
    expect_sequence(want, k);
}

/* A histogram: the defaults, then the source; a few elements go straight
 * into the result, many into per-block copies (at most one block per 8
 * sources a bin); a target too large for shared memory goes straight in.
 * The error slot is read once, at the end (targets can be out of range). */
Test(cuda_runtime_fake, histogram_launches)
{
    static int32_t xs[100000];
    static const char *const straight[2] = {"accel_permute_defaults",
                                            "accel_permute_source"};
    static const char *const privatised[2] = {"accel_permute_defaults",
                                              "accel_permute_private"};
    acc_context *ctx = cuda_context();
    acc_program *p = compile_permute(ctx, "histogram");
    histogram_bins = 10;
    histogram_launches_are(p, xs, 20, straight, 2);
    expect_launch("accel_permute_defaults", 1, 1, 32);
    expect_launch("accel_permute_source", 1, 1, 32);
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot, once");
    cr_expect_eq(fake_count(FAKE_DTOH, 0), 2, "and the result");
    /* 391 blocks of 256 for 100000 sources; at most 100000 / 80 */
    histogram_launches_are(p, xs, 100000, privatised, 2);
    expect_launch("accel_permute_private", 391, 1, 256);
    /* 100 a bin: at most 12 blocks, 4 of 256 cover them */
    histogram_launches_are(p, xs, 1000, privatised, 2);
    expect_launch("accel_permute_private", 4, 1, 256);
    histogram_bins = 5000; /* 5000 i32 bins: over 16 KiB */
    histogram_launches_are(p, xs, 100000, straight, 2);
    expect_launch("accel_permute_defaults", 20, 1, 256);
    expect_launch("accel_permute_source", 391, 1, 256);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* No source elements: the defaults alone (and for an expand, nothing). */
Test(cuda_runtime_fake, empty_sources_launch_nothing_but_the_defaults)
{
    int32_t none32[1] = {0};
    int64_t none64[1] = {0}, zero = 0, n = 100;
    static const char *const defaults[1] = {"accel_permute_defaults"};
    acc_context *ctx = cuda_context();
    acc_program *h = compile_permute(ctx, "histogram");
    histogram_bins = 7;
    acc_array out = histogram_run(h, none32, 0, ACC_OK);
    acc_array_release(&out);
    expect_sequence(defaults, 1);
    acc_program *s = compile_permute(ctx, "sieveMarks");
    acc_array in[2] = {ts_host(ACC_I64, 1, &zero, none64),
                       ts_host(ACC_I64, 0, NULL, &n)};
    fake.clear_events();
    cr_assert_eq(ts_run_program(s, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 100);
    acc_array_release(&out);
    expect_sequence(defaults, 1);
    acc_program *e = compile_permute(ctx, "spread");
    fake.clear_events();
    cr_assert_eq(ts_run_program(e, 1, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 0);
    acc_array_release(&out);
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 0);
    acc_program_free(e);
    acc_program_free(s);
    acc_program_free(h);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* What accel_expand_scan would leave for the host: the total and the
 * largest size, after the 2 x parts sums (expansion.cuh.in). */
static int64_t poke_sizes[3]; /* total, largest, parts */
static void poke_expansion(fake_config *c)
{
    snprintf(c->poke_function, sizeof c->poke_function, "accel_expand_scan");
    c->poke_part = 1;
    c->poke_offset = (size_t)(16 * poke_sizes[2]);
    c->poke_len = 16;
    memcpy(c->poke_bytes, poke_sizes, 16);
}

static void expand_with(int64_t n, int64_t total, int64_t largest)
{
    poke_sizes[0] = total;
    poke_sizes[1] = largest;
    poke_sizes[2] = cg_cuda_expand_parts(n);
    fake_configure(poke_expansion);
    fake.clear_events();
}

/* The expansion's three passes (a warp a part: one part per 32 sources),
 * one read-back of the slot and the total, then the values pass the sizes
 * choose; the result has the device's total. */
Test(cuda_runtime_fake, expand_launches_chosen_by_the_sizes)
{
    static int64_t xs[1000];
    static const char *const by_threads[4] = {
        "accel_expand_sizes", "accel_expand_scan", "accel_expand_offsets",
        "accel_expand_threads"};
    static const char *const by_blocks[4] = {
        "accel_expand_sizes", "accel_expand_scan", "accel_expand_offsets",
        "accel_expand_blocks"};
    int64_t n = 1000;
    acc_context *ctx = cuda_context();
    acc_program *p = compile_permute(ctx, "spread");
    acc_array in = ts_host(ACC_I64, 1, &n, xs), out;

    expand_with(n, 2500, 4); /* small, uniform: a thread a source */
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 2500, "sized by the device's total");
    acc_array_release(&out);
    expect_sequence(by_threads, 4);
    expect_launch("accel_expand_sizes", 4, 1, 256); /* 32 parts */
    expect_launch("accel_expand_scan", 1, 1, 32);
    expect_launch("accel_expand_offsets", 4, 1, 256);
    expect_launch("accel_expand_threads", 4, 1, 256);
    cr_expect_eq(fake_count(FAKE_DTOH, 16), 2, "the slot and the total, once");

    expand_with(n, 100000, 90000); /* irregular: blocks, 4 positions a thread */
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 100000);
    acc_array_release(&out);
    expect_sequence(by_blocks, 4);
    expect_launch("accel_expand_blocks", 98, 1, 256);

    expand_with(n, 0, 0); /* every size 0: no values pass */
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK);
    cr_expect_eq(out.extents[0], 0);
    acc_array_release(&out);
    expect_sequence(by_threads, 3);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* The sieve: the defaults, the expansion, each result combined into the
 * marks; one kernel, no index or value arrays. */
Test(cuda_runtime_fake, sieve_launches)
{
    static int64_t ps[100];
    static const char *const want[5] = {
        "accel_permute_defaults", "accel_expand_sizes", "accel_expand_scan",
        "accel_expand_offsets", "accel_expand_blocks"};
    int64_t np = 100, n = 100000;
    acc_context *ctx = cuda_context();
    acc_program *p = compile_permute(ctx, "sieveMarks");
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)}, out;
    expand_with(np, 300000, 49999);
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(out.extents[0], 100000);
    acc_array_release(&out);
    expect_sequence(want, 5);
    expect_launch("accel_permute_defaults", 391, 1, 256);
    expect_launch("accel_expand_sizes", 1, 1, 128); /* 4 parts */
    expect_launch("accel_expand_blocks", 293, 1, 256);
    cr_expect_eq(fake_count(FAKE_DTOH, 16), 3, "the slot and the total after "
                 "the scan, the slot at the end");
    size_t syncs = fake_count(FAKE_SYNC, 0);
    cr_expect_eq(syncs, 4, "a wait for each read, one for the result's "
                 "download, one at the end of the run: %zu", syncs);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* After a map: the map pass reads the permuted array (released after)
 * into the step's result. */
Test(cuda_runtime_fake, map_after_permute_is_a_third_launch)
{
    static int32_t xs[50];
    static const char *const want[3] = {"accel_permute_defaults",
                                        "accel_permute_source",
                                        "accel_permute_map"};
    acc_context *ctx = cuda_context();
    acc_program *p = compile_permute(ctx, "emptyBins");
    histogram_bins = 1000;
    histogram_launches_are(p, xs, 50, want, 3);
    expect_launch("accel_permute_map", 4, 1, 256);
    cr_expect_eq(fake_count(FAKE_DTOH, 1000), 1, "the mapped result only");
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

static int fail_code = 3; /* ACC_KERR_BOUNDS */
static void fail_first_launch(fake_config *c)
{
    c->fail_launches = 1;
    c->fail_code = fail_code;
    c->fail_site = 0;
    c->fail_pos = 14;
}

/* Failures the kernels report in the error slot (written here by the
 * fake): the step goes to the interpreter, whose message names them. */
Test(cuda_runtime_fake, permute_and_expand_failures_are_the_interpreters)
{
    int32_t xs[20] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                      3, 2, 1, 0, -1, 4, 3, 2, 1, 0};
    int64_t sizes[4] = {3, 2, -3, 1}, four = 4;
    acc_context *ctx = cuda_context();
    acc_program *h = compile_permute(ctx, "histogram");
    histogram_bins = 10;
    fake_configure(fail_first_launch);
    acc_array out = histogram_run(h, xs, 20, ACC_ERR_RUNTIME);
    cr_expect(strstr(acc_last_error(), "permute: source element [14] has "
                     "target index [-1], which is out of bounds for the "
                     "target shape [10]"), "%s", acc_last_error());
    cr_expect_null(out.data[0]);
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot was read");
    acc_program *e = compile_permute(ctx, "spread");
    acc_array in = ts_host(ACC_I64, 1, &four, sizes);
    fail_code = 5; /* a negative size (expansion.cuh.in) */
    fake_configure(fail_first_launch);
    fake.clear_events();
    cr_expect_eq(ts_run_program(e, 1, &in, 1, &out), ACC_ERR_RUNTIME);
    cr_expect(strstr(acc_last_error(), "expand: the size function gives -3 "
                     "for element 2"), "%s", acc_last_error());
    cr_expect_null(out.data[0]);
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 3, "no values pass");
    acc_program_free(e);
    acc_program_free(h);
    acc_context_destroy(ctx);
    expect_all_released();
}

#endif /* ACC_FAKE_DRIVER */
