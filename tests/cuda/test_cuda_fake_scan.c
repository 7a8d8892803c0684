/*
 * test_cuda_fake_scan.c — segmented folds, scans and segmented
 * scans on the CUDA runtime, checked against a FAKE driver
 * (tests/cuda/fake_driver.c, loaded through ACC_CUDA_DRIVER): which
 * kernels they launch by the number and length of rows and segments, the
 * arguments the launches pass, the tail past the last segment, and
 * descriptors and failures reported with the interpreter's message.
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

/* ---- segmented folds and scans ------------------------------------------------- */

static const char scan_programs[] =
    "segSums (m : Matrix f32) (s : Vector i64) : Matrix f32 =\n"
    "  foldSeg (+) 0 m s\n"
    "\n"
    "offsetSums (xs : Vector i64) (o : Vector i64) : Vector i64 =\n"
    "  foldSeg' (+) 0 xs o\n"
    "\n"
    "segMaxes (xs : Vector i32) (s : Vector i64) : Vector i32 =\n"
    "  fold1Seg max xs s\n"
    "\n"
    "rowScans (m : Matrix f32) : Matrix f32 = scanl (+) 0 m\n"
    "\n"
    "rowTotals (m : Matrix i64) : (Matrix i64, Vector i64) = scanr' (+) 0 m\n"
    "\n"
    "inclusive (m : Matrix f32) : Matrix f32 = scanl1 (+) m\n"
    "\n"
    "exclusive (m : Matrix f32) : Matrix f32 = prescanl (+) 0 m\n"
    "\n"
    "segScans (xs : Vector f32) (s : Vector i64) : Vector f32 =\n"
    "  scanlSeg (+) 0 xs s\n"
    "\n"
    "segTotals (xs : Vector i64) (s : Vector i64) : (Vector i64, Vector i64) =\n"
    "  scanl'Seg (+) 0 xs s\n"
    "\n"
    "segQuotients (xs : Vector i32) (s : Vector i64) : Vector i32 =\n"
    "  postscanlSeg (+) 0 (map (\\x -> quot 100 x) xs) s\n"
    "\n"
    "rowDiffs (m : Matrix i64) : Matrix i64 = scanl (-) 0 m\n"
    "\n"
    "segDiffs (xs : Vector i64) (s : Vector i64) : Vector i64 =\n"
    "  scanlSeg (-) 0 xs s\n"
    "\n"
    "segSums32 (m : Matrix f32) (s : Vector i32) : Matrix f32 =\n"
    "  foldSeg (+) 0 m s\n"
    "\n"
    "segSumsU64 (m : Matrix f32) (s : Vector u64) : Matrix f32 =\n"
    "  foldSeg (+) 0 m s\n"
    "\n"
    "segScansU8 (xs : Vector f32) (s : Vector u8) : Vector f32 =\n"
    "  scanlSeg (+) 0 xs s\n";

/* Entry `entry` of scan_programs, or of LANGUAGE.md §4 when it is "smvm". */
static acc_program *compile_scan(acc_context *ctx, const char *entry)
{
    return compile_from(ctx, strcmp(entry, "smvm") == 0
                                 ? ts_language4_source() : scan_programs,
                        entry);
}

static acc_array vec_i64(int64_t *data, int64_t n)
{
    return ts_host(ACC_I64, 1, &n, data);
}

/* Runs `entry` on the fake device (n_out host outputs, released after
 * their shapes are checked against want_ext[i][0..rank)); the launches stay
 * recorded.  Every step must have had a kernel; nothing may leak. */
static void run_on_device(const char *entry, size_t n_in, const acc_array *in,
                          size_t n_out)
{
    char figures[512];
    acc_context *ctx = cuda_context();
    acc_program *p = compile_scan(ctx, entry);
    acc_array out[2];
    cuda_figures(p, figures, sizeof figures);
    cr_expect(strstr(figures, "\"interpreted\":0"), "%s: %s", entry, figures);
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, n_in, in, n_out, out), ACC_OK, "%s: %s",
                 entry, acc_last_error());
    for (size_t i = 0; i < n_out; i++)
        acc_array_release(&out[i]);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* The arguments of the nth launch of `function`: the result's size,
 * the innermost extent of the source and, when arg1 >= 0, the second
 * parameter (-1: none). */
static void expect_args(const char *function, size_t nth, int64_t out_size,
                        int64_t inner, int64_t arg1)
{
    const fake_event *e = launch_of(function, nth);
    cr_expect_eq(e->out_size, out_size, "%s: out_size %lld, expected %lld",
                 function, (long long)e->out_size, (long long)out_size);
    cr_expect_eq(e->inner, inner, "%s: inner %lld, expected %lld", function,
                 (long long)e->inner, (long long)inner);
    cr_expect_eq(e->has_arg1, arg1 >= 0, "%s: a second parameter", function);
    if (arg1 >= 0 && e->has_arg1)
        cr_expect_eq(e->arg1, arg1, "%s: second parameter %lld, expected "
                     "%lld", function, (long long)e->arg1, (long long)arg1);
}

/* Warps (one per segment) or threads (one per segment) by the average
 * segment length; the offsets travel in the argument block: no upload of
 * their own. */
Test(cuda_runtime_fake, segmented_fold_launches)
{
    static float m[100 * 1000];
    static int64_t tens[100], ones[1000];
    for (int i = 0; i < 1000; i++)
        ones[i] = 1, tens[i % 100] = 10;
    acc_array in[2] = {mat_f32(m, 100, 1000), vec_i64(tens, 100)};
    run_on_device("segSums", 2, in, 1); /* segments of 10: a warp each */
    expect_sequence_text("accel_fold_seg_warp");
    expect_launch("accel_fold_seg_warp", 1056, 1, 256); /* capped grid */
    expect_args("accel_fold_seg_warp", 0, 100 * 100, 1000, -1);
    cr_expect_eq(fake_count(FAKE_HTOD, 0), 2, "m, then the argument block with "
                 "the 101 offsets");
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof m), 1);
    in[1] = vec_i64(ones, 1000); /* segments of 1: a thread each */
    run_on_device("segSums", 2, in, 1);
    expect_sequence_text("accel_fold_seg_thread");
    expect_launch("accel_fold_seg_thread", 391, 1, 256);
    expect_args("accel_fold_seg_thread", 0, 100 * 1000, 1000, -1);
    in[0] = mat_f32(m, 0, 1000); /* no rows: no result, no launch */
    run_on_device("segSums", 2, in, 1);
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 0);
}

/* SMVM: foldSeg over an embedded producer with bounds checks; its
 * elements past the last segment are computed for their checks, from
 * off[k], and the error slot is read once. */
Test(cuda_runtime_fake, smvm_runs_the_tail_past_the_last_segment)
{
    int64_t segd[3] = {10, 20, 30}, full[3] = {10, 20, 70}, inds[100];
    float vals[100], vec[50];
    for (int i = 0; i < 100; i++)
        inds[i] = (i * 7) % 50, vals[i] = 1.0f;
    for (int i = 0; i < 50; i++)
        vec[i] = (float)i;
    acc_array in[4] = {vec_i64(segd, 3), vec_i64(inds, 100),
                       vec_f32(vals, 100), vec_f32(vec, 50)};
    run_on_device("smvm", 4, in, 1);
    expect_sequence_text("accel_fold_seg_warp accel_fold_seg_tail");
    expect_launch("accel_fold_seg_warp", 1, 1, 96);
    expect_launch("accel_fold_seg_tail", 1, 1, 64); /* 40 elements */
    expect_args("accel_fold_seg_tail", 0, 3, 100, 60);
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot, once");
    in[0] = vec_i64(full, 3); /* the segments cover the row: no tail */
    run_on_device("smvm", 4, in, 1);
    expect_sequence_text("accel_fold_seg_warp");
    in[0] = vec_i64(segd, 0); /* no segment, no result: the tail alone */
    run_on_device("smvm", 4, in, 1);
    expect_sequence_text("accel_fold_seg_tail");
    expect_args("accel_fold_seg_tail", 0, 0, 100, 0);
}

/* `entry` fails on the CUDA backend with the interpreter's own status and
 * message, after `launches` launches. */
static void expect_interpreters_error(const char *entry, size_t n_in,
                                      const acc_array *in, size_t n_out,
                                      size_t launches)
{
    acc_status st;
    char message[1024];
    acc_array out[2];
    acc_context *ref = fake_context(ACC_BACKEND_INTERP, 0, &st);
    acc_program *q = compile_scan(ref, entry);
    acc_status want = ts_run_program(q, n_in, in, n_out, out);
    cr_assert_neq(want, ACC_OK, "%s: the interpreter refuses it", entry);
    snprintf(message, sizeof message, "%s", acc_last_error());
    acc_program_free(q);
    acc_context_destroy(ref);
    acc_context *ctx = cuda_context();
    acc_program *p = compile_scan(ctx, entry);
    fake.clear_events();
    cr_expect_eq(ts_run_program(p, n_in, in, n_out, out), want, "%s", entry);
    cr_expect_str_eq(acc_last_error(), message);
    cr_expect_null(out[0].data[0]);
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), launches, "%s", entry);
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* Descriptors the interpreter refuses are refused on the host, before any
 * launch, and reported with the interpreter's message. */
Test(cuda_runtime_fake, bad_segment_descriptors_have_the_interpreters_message)
{
    float m[2 * 5] = {0};
    int64_t xs[5] = {1, 2, 3, 4, 5}, negative[2] = {2, -1}, past[2] = {3, 3};
    int64_t decreasing[3] = {0, 3, 2}, late[2] = {1, 5};
    int32_t ys[3] = {1, 2, 3};
    int64_t empty_seg[3] = {2, 0, 1};
    float fs[5] = {0};
    acc_array in[2] = {mat_f32(m, 2, 5), vec_i64(negative, 2)};
    expect_interpreters_error("segSums", 2, in, 1, 0);
    in[1] = vec_i64(past, 2);
    expect_interpreters_error("segSums", 2, in, 1, 0);
    in[0] = vec_i64(xs, 5);
    in[1] = vec_i64(decreasing, 3);
    expect_interpreters_error("offsetSums", 2, in, 1, 0);
    in[1] = vec_i64(late, 2);
    expect_interpreters_error("offsetSums", 2, in, 1, 0);
    in[1] = vec_i64(late, 0); /* no offsets at all */
    expect_interpreters_error("offsetSums", 2, in, 1, 0);
    int64_t three = 3;
    in[0] = ts_host(ACC_I32, 1, &three, ys);
    in[1] = vec_i64(empty_seg, 3); /* an empty fold1Seg segment */
    expect_interpreters_error("segMaxes", 2, in, 1, 0);
    in[0] = vec_f32(fs, 5);
    in[1] = vec_i64(negative, 2);
    expect_interpreters_error("segScans", 2, in, 1, 0);
    in[1] = vec_i64(past, 2);
    expect_interpreters_error("segScans", 2, in, 1, 0);
}

/* Segments of another integer type are widened on the host with the
 * offsets: the same launches as with i64 segments (a descriptor the host
 * refused would go to the interpreter, with no launch), and the
 * interpreter's message for a negative i32 length or a u64 one beyond
 * 2^63-1. */
Test(cuda_runtime_fake, segments_of_other_integer_types_launch_like_i64)
{
    static float m[100 * 1000], xs[10000];
    static int32_t tens[100];
    static uint8_t u8_tens[1000];
    for (int i = 0; i < 1000; i++)
        tens[i % 100] = 10, u8_tens[i] = 10;
    int64_t n = 100, k = 1000;
    acc_array in[2] = {mat_f32(m, 100, 1000), ts_host(ACC_I32, 1, &n, tens)};
    run_on_device("segSums32", 2, in, 1);
    expect_sequence_text("accel_fold_seg_warp");
    expect_launch("accel_fold_seg_warp", 1056, 1, 256);
    expect_args("accel_fold_seg_warp", 0, 100 * 100, 1000, -1);
    in[0] = vec_f32(xs, 10000);
    in[1] = ts_host(ACC_U8, 1, &k, u8_tens);
    run_on_device("segScansU8", 2, in, 1);
    expect_sequence_text("accel_scan_seg_thread");
    expect_args("accel_scan_seg_thread", 0, 10000 + 1000, 10000, -1);
    float small[2 * 5] = {0};
    int32_t negative[2] = {2, -1};
    uint64_t huge[2] = {2, UINT64_C(1) << 63};
    int64_t two = 2;
    in[0] = mat_f32(small, 2, 5);
    in[1] = ts_host(ACC_I32, 1, &two, negative);
    expect_interpreters_error("segSums32", 2, in, 1, 0);
    in[1] = ts_host(ACC_U64, 1, &two, huge);
    expect_interpreters_error("segSumsU64", 2, in, 1, 0);
    cr_expect(strstr(acc_last_error(), "beyond 2^63-1"), "%s",
              acc_last_error());
}

/* Many short rows: a warp per row; one long row: the three passes, with
 * partials of the run's memory (a second run allocates nothing). */
Test(cuda_runtime_fake, scan_launches_by_rows_and_row_length)
{
    static float big[1 << 20];
    acc_array in = mat_f32(big, 1000, 8);
    run_on_device("rowScans", 1, &in, 1);
    expect_sequence_text("accel_scan_rows");
    expect_launch("accel_scan_rows", 125, 1, 256); /* 1000 warps */
    expect_args("accel_scan_rows", 0, 1000 * 9, 8, -1);

    in = mat_f32(big, 1, 1 << 20); /* 128 parts of 8192 (4 tiles) */
    acc_context *ctx = cuda_context();
    acc_program *p = compile_scan(ctx, "rowScans");
    acc_array out;
    fake.clear_events();
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    acc_array_release(&out);
    expect_sequence_text("accel_scan_part accel_scan_finish accel_scan_block");
    expect_launch("accel_scan_part", 128, 1, 256);
    expect_launch("accel_scan_finish", 1, 1, 32);
    expect_launch("accel_scan_block", 128, 1, 256);
    expect_args("accel_scan_finish", 0, (1 << 20) + 1, 1 << 20, 128);
    cr_expect_eq(fake_count(FAKE_ALLOC, 0), 5, "the input, the result, the "
                 "argument block and the partials (values and flags)");
    long allocs = fake_counts().allocs;
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK);
    acc_array_release(&out);
    cr_expect_eq(fake_counts().allocs, allocs, "the partials went back to the "
                 "pool with the rest");
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* (-) is not associative: a scan by it is applied in order, a thread per
 * row or per segment, however long they are. */
Test(cuda_runtime_fake, scans_by_a_combiner_that_may_not_be_regrouped)
{
    static int64_t m[1 << 20];
    int64_t thousands[10];
    for (int i = 0; i < 10; i++)
        thousands[i] = 1000;
    int64_t ext[2] = {1, 1 << 20};
    acc_array in = ts_host(ACC_I64, 2, ext, m);
    run_on_device("rowDiffs", 1, &in, 1); /* one long row: one thread */
    expect_sequence_text("accel_scan_thread");
    expect_launch("accel_scan_thread", 1, 1, 32);
    expect_args("accel_scan_thread", 0, (1 << 20) + 1, 1 << 20, -1);
    ext[0] = 1000, ext[1] = 8;
    in = ts_host(ACC_I64, 2, ext, m);
    run_on_device("rowDiffs", 1, &in, 1); /* 1000 rows: 1000 threads */
    expect_launch("accel_scan_thread", 4, 1, 256);
    acc_array seg[2] = {vec_i64(m, 10000), vec_i64(thousands, 10)};
    run_on_device("segDiffs", 2, seg, 1); /* long segments, a thread each */
    expect_sequence_text("accel_scan_seg_thread");
    expect_launch("accel_scan_seg_thread", 1, 1, 32);
}

static void warp_blocks(fake_config *c) { c->occupancy_block = 32; }

/* Long rows go by rows once they fill the device with warps (occupancy:
 * 264 blocks of 32 threads, so 264 warps; tiles of 32 x 8 f32). */
Test(cuda_runtime_fake, scan_rows_that_fill_the_device_go_by_rows)
{
    static float m[264 * 2048];
    fake_configure(warp_blocks);
    acc_array in = mat_f32(m, 264, 2048);
    run_on_device("rowScans", 1, &in, 1);
    expect_sequence_text("accel_scan_rows");
    expect_launch("accel_scan_rows", 264, 1, 32);
    in = mat_f32(m, 263, 2048); /* one row fewer: 2 parts of 4 tiles */
    run_on_device("rowScans", 1, &in, 1);
    expect_sequence_text("accel_scan_part accel_scan_finish accel_scan_block");
    expect_launch("accel_scan_part", 2, 263, 32);
    expect_launch("accel_scan_finish", 9, 1, 32);
    expect_args("accel_scan_finish", 0, 263 * 2049, 2048, 2);
    expect_launch("accel_scan_block", 2, 263, 32);
}

/* A primed scan writes its two results in one launch; both come back. */
Test(cuda_runtime_fake, primed_scan_writes_both_results)
{
    static int64_t m[64 * 100];
    int64_t ext[2] = {64, 100};
    acc_array in = ts_host(ACC_I64, 2, ext, m);
    run_on_device("rowTotals", 1, &in, 2);
    expect_sequence_text("accel_scan_rows");
    expect_launch("accel_scan_rows", 8, 1, 256);
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof m), 1, "the scan");
    cr_expect_eq(fake_count(FAKE_DTOH, 64 * sizeof(int64_t)), 1, "the totals");
    cr_expect_eq(fake_count(FAKE_DTOH, 0), 2, "no error slot: no checks");
    int64_t xs[100] = {0}, seg[2] = {30, 70};
    acc_array two[2] = {vec_i64(xs, 100), vec_i64(seg, 2)};
    run_on_device("segTotals", 2, two, 2);
    expect_sequence_text("accel_scan_seg_warp");
    expect_args("accel_scan_seg_warp", 0, 100, 100, -1);
    cr_expect_eq(fake_count(FAKE_DTOH, 2 * sizeof(int64_t)), 1, "the totals");
}

/* Results without elements launch nothing; scanl of empty rows still
 * writes their seeds; scanl1 of empty rows is the interpreter's error. */
Test(cuda_runtime_fake, empty_scans)
{
    float none[1] = {0};
    acc_array in = mat_f32(none, 3, 0);
    run_on_device("exclusive", 1, &in, 1);
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 0);
    run_on_device("rowScans", 1, &in, 1);
    expect_launch("accel_scan_rows", 1, 1, 96);
    expect_args("accel_scan_rows", 0, 3, 0, -1);
    in = mat_f32(none, 0, 5);
    run_on_device("rowScans", 1, &in, 1);
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 0);
    in = mat_f32(none, 3, 0);
    expect_interpreters_error("inclusive", 1, &in, 1, 0);
    int64_t no_seg[1] = {0};
    int32_t no_xs[1] = {0};
    int64_t zero = 0;
    acc_array seg[2] = {ts_host(ACC_I32, 1, &zero, no_xs), vec_i64(no_seg, 0)};
    run_on_device("segQuotients", 2, seg, 1); /* nothing, not even a tail */
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 0);
    float fs[1] = {0};
    int64_t two_empty[2] = {0, 0};
    acc_array seeds[2] = {vec_f32(fs, 0), vec_i64(two_empty, 2)};
    run_on_device("segScans", 2, seeds, 1); /* two seeds to write */
    expect_args("accel_scan_seg_thread", 0, 2, 0, -1);
}

/* Segmented scans: a thread or a warp per (row, segment) pair by the
 * average length; an embedded producer adds each row's tail as a pair. */
Test(cuda_runtime_fake, segmented_scan_launches)
{
    static float xs[10000];
    static int64_t tens[1000], thousands[10];
    for (int i = 0; i < 1000; i++)
        tens[i] = 10, thousands[i % 10] = 1000;
    acc_array in[2] = {vec_f32(xs, 10000), vec_i64(tens, 1000)};
    run_on_device("segScans", 2, in, 1);
    expect_sequence_text("accel_scan_seg_thread");
    expect_launch("accel_scan_seg_thread", 4, 1, 256); /* 1000 pairs */
    expect_args("accel_scan_seg_thread", 0, 10000 + 1000, 10000, -1);
    in[1] = vec_i64(thousands, 10);
    run_on_device("segScans", 2, in, 1);
    expect_sequence_text("accel_scan_seg_warp");
    expect_launch("accel_scan_seg_warp", 2, 1, 256); /* 10 warps */
    int32_t q[1000];
    int64_t n = 1000, seg[2] = {100, 200};
    for (int i = 0; i < 1000; i++)
        q[i] = i + 1;
    acc_array emb[2] = {ts_host(ACC_I32, 1, &n, q), vec_i64(seg, 2)};
    run_on_device("segQuotients", 2, emb, 1); /* 2 segments and the tail */
    expect_sequence_text("accel_scan_seg_warp");
    expect_launch("accel_scan_seg_warp", 1, 1, 96);
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot, once");
}

/* The kernel reports a division by zero in the producer's tail (the fake
 * writes the slot as the kernel would): the interpreter reports it. */
Test(cuda_runtime_fake, segmented_scan_error_has_the_interpreters_message)
{
    int32_t q[1000];
    int64_t n = 1000, seg[2] = {100, 200};
    for (int i = 0; i < 1000; i++)
        q[i] = i == 500 ? 0 : i + 1;
    acc_array in[2] = {ts_host(ACC_I32, 1, &n, q), vec_i64(seg, 2)};
    fake_configure(fail_next_launch);
    expect_interpreters_error("segQuotients", 2, in, 1, 1);
    cr_expect_str_eq(acc_last_error(), "quot: division by zero");
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof(cuda_kerr)), 1, "the slot was read");
}

#endif /* ACC_FAKE_DRIVER */
