/*
 * test_segment_types.c — segment descriptors of every integer type
 * (i8 .. i64, u8 .. u64) for every segmented operation: foldSeg, foldSeg',
 * fold1Seg and the segmented scans give what they give with the same
 * segments as i64; negative lengths and u64 entries beyond 2^63-1 are
 * run-time errors naming the segment; the builder refuses descriptors of
 * other types; and the plan does not change with the descriptor's type
 * (the backends widen it where they read it: no conversion kernel, no
 * intermediate).  Runs on the interpreter and, as lang.*.cpu, on the CPU
 * backend.  Expected values are computed here with plain C loops.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "support.h"

static acc_context *ctx;
static acc_graph *g;

static void setup(void)
{
    ts_fixture_open(&ctx, &g);
}

static void teardown(void)
{
    ts_fixture_close(&ctx, &g);
}

TestSuite(segment_types, .init = setup, .fini = teardown);

static const acc_scalar int_types[] = {ACC_I8,  ACC_I16, ACC_I32, ACC_I64,
                                       ACC_U8,  ACC_U16, ACC_U32, ACC_U64};
enum { N_TYPES = sizeof int_types / sizeof int_types[0] };

/* v[0 .. n-1] stored as scalar type s in a buffer of exactly that size
 * (malloc'd: a backend reading the descriptor with the wrong width reads
 * past its end, which the sanitizer build reports); free it. */
static void *store_as(acc_scalar s, const int64_t *v, int64_t n)
{
    void *buf = malloc((size_t)(n ? n : 1) * acc_scalar_size(s));
    cr_assert_not_null(buf);
    for (int64_t i = 0; i < n; i++)
        switch (s) {
        case ACC_I8: ((int8_t *)buf)[i] = (int8_t)v[i]; break;
        case ACC_I16: ((int16_t *)buf)[i] = (int16_t)v[i]; break;
        case ACC_I32: ((int32_t *)buf)[i] = (int32_t)v[i]; break;
        case ACC_U8: ((uint8_t *)buf)[i] = (uint8_t)v[i]; break;
        case ACC_U16: ((uint16_t *)buf)[i] = (uint16_t)v[i]; break;
        case ACC_U32: ((uint32_t *)buf)[i] = (uint32_t)v[i]; break;
        case ACC_U64: ((uint64_t *)buf)[i] = (uint64_t)v[i]; break;
        default: ((int64_t *)buf)[i] = v[i]; break;
        }
    return buf;
}

/* The 3 x 10 matrix of the tests: a non-constant pattern. */
static void matrix(int64_t *m)
{
    for (int k = 0; k < 30; k++)
        m[k] = (k * 7) % 11 - 3;
}

static const int64_t mext[2] = {3, 10};

/* foldSeg (+) z, foldSeg' (+) z or fold1Seg max over the matrix with
 * descriptor d (lengths, or offsets) of type s; out[row * k + seg]. */
typedef enum { FOLD_SEG, FOLD_SEG_OFFSETS, FOLD1_SEG } fold_kind;

static acc_status run_fold(fold_kind kind, acc_scalar s, const int64_t *d,
                           int64_t n, acc_array *out)
{
    static int64_t m[30];
    matrix(m);
    void *buf = store_as(s, d, n);
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *seg = acc_input(g, ts_sc(s), 1);
    acc_node *r =
        kind == FOLD_SEG
            ? acc_fold_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD), ts_i64(g, 5),
                           xs, seg)
        : kind == FOLD_SEG_OFFSETS
            ? acc_fold_seg_offsets(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                                   ts_i64(g, 5), xs, seg)
            : acc_fold1_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_MAX), xs, seg);
    acc_array in[2] = {ts_host(ACC_I64, 2, mext, m), ts_host(s, 1, &n, buf)};
    acc_status st = ts_run(ctx, g, 1, &r, 2, in, out);
    ts_fresh_graph(ctx, &g);
    free(buf);
    return st;
}

/* The reference: per row, each segment [off[j], off[j+1]) reduced. */
static void fold_ref(fold_kind kind, const int64_t *off, int64_t k,
                     int64_t *want)
{
    int64_t m[30];
    matrix(m);
    for (int64_t row = 0; row < 3; row++)
        for (int64_t j = 0; j < k; j++) {
            int64_t acc = kind == FOLD1_SEG ? m[row * 10 + off[j]] : 5;
            for (int64_t i = off[j]; i < off[j + 1]; i++)
                acc = kind == FOLD1_SEG
                          ? (acc > m[row * 10 + i] ? acc : m[row * 10 + i])
                          : acc + m[row * 10 + i];
            want[row * k + j] = acc;
        }
}

static void expect_fold(fold_kind kind, const int64_t *d, int64_t n)
{
    int64_t off[16], k = kind == FOLD_SEG_OFFSETS ? n - 1 : n, want[48];
    off[0] = 0;
    for (int64_t j = 0; j < k; j++)
        off[j + 1] = kind == FOLD_SEG_OFFSETS ? d[j + 1] : off[j] + d[j];
    fold_ref(kind, off, k, want);
    for (int t = 0; t < N_TYPES; t++) {
        acc_array out;
        acc_status st = run_fold(kind, int_types[t], d, n, &out);
        cr_assert_eq(st, ACC_OK, "%s segments: %s", acc_scalar_name(int_types[t]),
                     acc_last_error());
        int64_t ext[2] = {3, k};
        ts_expect_shape(&out, 2, ext);
        for (int64_t i = 0; i < 3 * k; i++)
            cr_expect_eq(((const int64_t *)out.data[0])[i], want[i],
                         "%s segments: [%lld] = %lld, expected %lld",
                         acc_scalar_name(int_types[t]), (long long)i,
                         (long long)((const int64_t *)out.data[0])[i],
                         (long long)want[i]);
        acc_array_release(&out);
    }
}

Test(segment_types, fold_seg_with_every_integer_type)
{
    int64_t lengths[5] = {3, 0, 4, 1, 1}; /* a row of 10, one unused */
    expect_fold(FOLD_SEG, lengths, 5);
}

Test(segment_types, fold_seg_offsets_with_every_integer_type)
{
    int64_t offsets[5] = {0, 2, 2, 7, 10};
    expect_fold(FOLD_SEG_OFFSETS, offsets, 5);
}

Test(segment_types, fold1_seg_with_every_integer_type)
{
    int64_t lengths[4] = {1, 5, 2, 2};
    expect_fold(FOLD1_SEG, lengths, 4);
}

/* No segments at all, of every type: rows of no results (an i64
 * descriptor without a buffer: segmented_fold's no_segments test). */
Test(segment_types, no_segments_of_any_type)
{
    for (int t = 0; t < N_TYPES; t++) {
        acc_array out;
        acc_status st = run_fold(FOLD_SEG, int_types[t], NULL, 0, &out);
        cr_assert_eq(st, ACC_OK, "%s: %s", acc_scalar_name(int_types[t]),
                     acc_last_error());
        int64_t ext[2] = {3, 0};
        ts_expect_shape(&out, 2, ext);
        acc_array_release(&out);
    }
}

/* scanlSeg (+) 0, scanl'Seg (+) 0 and postscanrSeg (-) 0 of a vector with
 * i64 segments give what they give with segments of every other type. */
Test(segment_types, segmented_scans_with_every_integer_type)
{
    static const acc_scan_kind kinds[] = {ACC_SCANL, ACC_SCANL_PRIME,
                                          ACC_POSTSCANR, ACC_SCANR1};
    int64_t x[9] = {4, -2, 7, 1, 0, 3, 3, -5, 8}, n = 9;
    int64_t lengths[4] = {2, 0, 4, 3}, k = 4;
    for (size_t c = 0; c < sizeof kinds / sizeof kinds[0]; c++) {
        acc_array ref[2];
        int n_out = kinds[c] == ACC_SCANL_PRIME ? 2 : 1;
        for (int t = 0; t < N_TYPES; t++) {
            acc_array out[2];
            void *buf = store_as(int_types[t], lengths, k);
            acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
            acc_node *seg = acc_input(g, ts_sc(int_types[t]), 1);
            acc_node *z = kinds[c] == ACC_SCANR1 ? NULL : ts_i64(g, 0);
            acc_node *r = acc_scan_seg(g, kinds[c],
                                       ts_binop_fn(g, ACC_I64,
                                                   c == 2 ? ACC_OP_SUB
                                                          : ACC_OP_ADD),
                                       z, xs, seg);
            acc_array in[2] = {ts_host(ACC_I64, 1, &n, x),
                               ts_host(int_types[t], 1, &k, buf)};
            ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in,
                                   t == 0 ? ref : out));
            ts_fresh_graph(ctx, &g);
            free(buf);
            for (int o = 0; t > 0 && o < n_out; o++) {
                cr_assert_eq(acc_array_size(&out[o]), acc_array_size(&ref[o]));
                cr_expect(memcmp(out[o].data[0], ref[o].data[0],
                                 (size_t)acc_array_size(&ref[o]) * 8) == 0,
                          "scan kind %d, %s segments differ from i8's",
                          (int)kinds[c], acc_scalar_name(int_types[t]));
                acc_array_release(&out[o]);
            }
        }
        /* the i8 run against a C loop for scanlSeg */
        if (kinds[c] == ACC_SCANL) {
            int64_t want[13], at = 0, i = 0;
            for (int64_t j = 0; j < k; j++) {
                int64_t acc = 0;
                want[at++] = acc;
                for (int64_t e = 0; e < lengths[j]; e++)
                    want[at++] = acc += x[i++];
            }
            ts_expect_i64(&ref[0], want, 13);
        }
        for (int o = 0; o < n_out; o++)
            acc_array_release(&ref[o]);
    }
}

/* ---- errors --------------------------------------------------------------- */

Test(segment_types, negative_lengths_are_runtime_errors)
{
    static const acc_scalar signed_types[] = {ACC_I8, ACC_I16, ACC_I32};
    int64_t lengths[3] = {2, -1, 3};
    for (int t = 0; t < 3; t++) {
        acc_array out;
        acc_status st = run_fold(FOLD_SEG, signed_types[t], lengths, 3, &out);
        ts_expect_error(st, ACC_ERR_RUNTIME, "segment 1 has length -1");
    }
}

Test(segment_types, u64_entries_beyond_2_63_are_runtime_errors)
{
    acc_array out;
    int64_t lengths[2] = {2, (int64_t)(UINT64_C(1) << 63)};
    acc_status st = run_fold(FOLD_SEG, ACC_U64, lengths, 2, &out);
    ts_expect_error(st, ACC_ERR_RUNTIME,
                    "segment 1 has length 9223372036854775808, beyond 2^63-1");
    int64_t offsets[3] = {0, 2, -1}; /* 2^64-1 as u64 */
    st = run_fold(FOLD_SEG_OFFSETS, ACC_U64, offsets, 3, &out);
    ts_expect_error(st, ACC_ERR_RUNTIME,
                    "offset 2 is 18446744073709551615, beyond 2^63-1");
    /* the largest u64 below 2^63 is only too long for the row */
    lengths[1] = INT64_MAX;
    st = run_fold(FOLD_SEG, ACC_U64, lengths, 2, &out);
    ts_expect_error(st, ACC_ERR_SHAPE, "segment 1 ends beyond");
}

static void expect_refused(acc_node *seg, const char *op)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = acc_fold_seg(g, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                               ts_i64(g, 0), xs, seg);
    ts_expect_null_node(g, r, ACC_ERR_TYPE, "expected a vector of an integer "
                                            "type");
    cr_expect(ts_contains_ci(acc_graph_last_error(g), op), "%s",
              acc_graph_last_error(g));
    ts_fresh_graph(ctx, &g);
}

Test(segment_types, descriptors_of_other_types_are_refused)
{
    expect_refused(acc_input(g, ts_sc(ACC_F32), 1), "Array 1 f32");
    expect_refused(acc_input(g, ts_sc(ACC_BOOL), 1), "Array 1 bool");
    expect_refused(acc_input(g, ts_sc(ACC_I32), 2), "Array 2 i32");
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *r = acc_scan_seg(g, ACC_SCANL1, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                               NULL, xs, acc_input(g, ts_sc(ACC_F64), 1));
    ts_expect_null_node(g, r, ACC_ERR_TYPE, "integer type");
}

/* ---- plans ---------------------------------------------------------------- */

/* SMVM (foldSeg over zipWith over backpermute): the plan with i32
 * segments is the plan with i64 segments. */
static acc_plan_summary smvm_plan(acc_scalar s)
{
    acc_node *segd = acc_input(g, ts_sc(s), 1);
    acc_node *inds = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *vals = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *vec = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *i = acc_param(g, acc_type_shape(1));
    acc_node *gathered = acc_backpermute(
        g, acc_shape(g, inds), ts_lam1(g, i, ts_idx1(g, acc_read(g, inds, i))),
        vec);
    acc_node *arrays[2] = {gathered, vals};
    acc_node *products = acc_zipwith(g, ts_binop_fn(g, ACC_F32, ACC_OP_MUL), 2,
                                     arrays);
    acc_node *r = acc_fold_seg(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                               ts_f32(g, 0), products, segd);
    acc_program *p = ts_compile(ctx, g, r);
    acc_plan_summary plan;
    memset(&plan, 0, sizeof plan);
    plan.struct_size = sizeof plan;
    cr_assert_eq(acc_program_plan(p, &plan), ACC_OK);
    acc_program_free(p);
    ts_fresh_graph(ctx, &g);
    return plan;
}

Test(segment_types, the_plan_does_not_depend_on_the_descriptor_type)
{
    acc_plan_summary wide = smvm_plan(ACC_I64);
    for (int t = 0; t < N_TYPES; t++) {
        acc_plan_summary narrow = smvm_plan(int_types[t]);
        cr_expect_eq(narrow.kernels, wide.kernels, "%s: %zu kernels, %zu with "
                     "i64", acc_scalar_name(int_types[t]), narrow.kernels,
                     wide.kernels);
        cr_expect_eq(narrow.intermediates, wide.intermediates, "%s: %zu "
                     "intermediates, %zu with i64",
                     acc_scalar_name(int_types[t]), narrow.intermediates,
                     wide.intermediates);
    }
    cr_expect_eq(wide.intermediates, 0, "SMVM fuses into its foldSeg");
}
