/*
 * test_replicate_slice.c — replicate and slice (LANGUAGE.md §3.1) on the
 * reference interpreter: the examples of the language description, ranks
 * 0 to 3, tuple elements, extents and indices computed at run time, empty
 * results, and every error (builder errors naming the operation, runtime
 * errors after which the program still runs).  Expected values are
 * computed here with plain C loops.
 */
#include <criterion/criterion.h>

#include <stdint.h>
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

TestSuite(replicate_slice, .init = setup, .fini = teardown);

/* ---- helpers ------------------------------------------------------------ */

/* A builder error: the graph keeps it, compile reports it, and a fresh
 * graph of the same context still works. */
static void expect_builder_error(acc_node *n, acc_status want,
                                 const char *name)
{
    ts_expect_null_node(g, n, want, name);
    cr_assert_null(acc_all(g), "builder errors are sticky");
    ts_fresh_graph(ctx, &g);
    acc_node *spec[2] = {ts_i64(g, 2), acc_all(g)};
    acc_node *r = acc_replicate(g, 2, spec, acc_unit(g, ts_i64(g, 9)));
    cr_assert_null(r, "a scalar has no dimension for the All entry");
    ts_fresh_graph(ctx, &g);
    acc_node *ok_spec[1] = {ts_i64(g, 2)};
    r = acc_replicate(g, 1, ok_spec, acc_unit(g, ts_i64(g, 9)));
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 0, NULL, &out));
    cr_assert_eq(((const int64_t *)out.data[0])[1], 9);
    acc_array_release(&out);
}

/* ---- All ------------------------------------------------------------------ */

Test(replicate_slice, all_is_a_unit_scalar_term)
{
    acc_node *a = acc_all(g);
    cr_assert_not_null(a);
    const acc_type *t = acc_node_type(a);
    cr_assert_eq(acc_type_get_kind(t), ACC_TYPE_TUPLE);
    cr_assert_eq(acc_type_get_arity(t), 0);
}

/* ---- replicate -------------------------------------------------------------- */

Test(replicate_slice, replicate_vector_4_all_gives_equal_rows)
{
    int64_t x[10], n = 10, ext[2] = {4, 10};
    ts_iota(x, 10);
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *spec[2] = {ts_i64(g, 4), acc_all(g)};
    acc_node *r = acc_replicate(g, 2, spec, xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 2, ext);
    const int64_t *o = out.data[0];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 10; j++)
            cr_assert_eq(o[i * 10 + j], x[j], "at [%d,%d]", i, j);
    acc_array_release(&out);
}

Test(replicate_slice, replicate_vector_all_4_repeats_across_columns)
{
    int64_t x[10], n = 10, ext[2] = {10, 4};
    for (int k = 0; k < 10; k++)
        x[k] = 100 - 7 * k;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *spec[2] = {acc_all(g), ts_i64(g, 4)};
    acc_node *r = acc_replicate(g, 2, spec, xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 2, ext);
    const int64_t *o = out.data[0];
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 4; j++)
            cr_assert_eq(o[i * 4 + j], x[i], "at [%d,%d]", i, j);
    acc_array_release(&out);
}

Test(replicate_slice, replicate_matrix_to_rank3_in_every_position)
{
    /* a 2x3 matrix; [k, All, All], [All, k, All] and [All, All, k] */
    int64_t m[6], em[2] = {2, 3};
    ts_iota(m, 6);
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *rs[3];
    for (int pos = 0; pos < 3; pos++) {
        acc_node *spec[3];
        for (int d = 0; d < 3; d++)
            spec[d] = d == pos ? ts_i64(g, 5) : acc_all(g);
        rs[pos] = acc_replicate(g, 3, spec, xs);
    }
    acc_array in = ts_host(ACC_I64, 2, em, m), out[3];
    ts_expect_ok(g, ts_run(ctx, g, 3, rs, 1, &in, out));
    for (int pos = 0; pos < 3; pos++) {
        int64_t ext[3], at = 0;
        for (int d = 0, s = 0; d < 3; d++)
            ext[d] = d == pos ? 5 : em[s++];
        ts_expect_shape(&out[pos], 3, ext);
        const int64_t *o = out[pos].data[0];
        for (int64_t a = 0; a < ext[0]; a++)
            for (int64_t b = 0; b < ext[1]; b++)
                for (int64_t c = 0; c < ext[2]; c++, at++) {
                    int64_t ix[3] = {a, b, c}, src[2];
                    for (int d = 0, s = 0; d < 3; d++)
                        if (d != pos)
                            src[s++] = ix[d];
                    cr_assert_eq(o[at], m[src[0] * 3 + src[1]],
                                 "pos %d at [%lld,%lld,%lld]", pos,
                                 (long long)a, (long long)b, (long long)c);
                }
        acc_array_release(&out[pos]);
    }
}

Test(replicate_slice, replicate_tuple_elements_with_runtime_extent)
{
    /* replicate [All, the n, All] over a 2x2 matrix of (i32, f32) */
    int32_t a[4] = {1, -2, 3, -4};
    float b[4] = {0.5f, 1.5f, 2.5f, 3.5f};
    int64_t em[2] = {2, 2}, reps = 3, ext[3] = {2, 3, 2};
    const acc_type *fields[2] = {ts_sc(ACC_I32), ts_sc(ACC_F32)};
    const acc_type *pair = acc_type_tuple(ctx, 2, fields);
    acc_node *xs = acc_input(g, pair, 2);
    acc_node *n = acc_input(g, ts_sc(ACC_I64), 0);
    acc_node *spec[3] = {acc_all(g), acc_the(g, n), acc_all(g)};
    acc_node *r = acc_replicate(g, 3, spec, xs);
    void *bufs[2] = {a, b};
    acc_array in[2] = {ts_host_array(pair, 2, em, bufs),
                       ts_host(ACC_I64, 0, NULL, &reps)};
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 2, in, &out));
    ts_expect_shape(&out, 3, ext);
    cr_assert_eq(acc_type_leaf_count(out.type), 2);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 2; j++) {
                int at = (i * 3 + k) * 2 + j;
                cr_assert_eq(((const int32_t *)out.data[0])[at], a[i * 2 + j]);
                cr_assert_eq(((const float *)out.data[1])[at], b[i * 2 + j]);
            }
    acc_array_release(&out);
}

Test(replicate_slice, replicate_scalar_to_vector_and_to_itself)
{
    acc_node *s = acc_unit(g, ts_i64(g, 42));
    acc_node *spec[1] = {ts_i64(g, 3)};
    acc_node *rs[2] = {acc_replicate(g, 1, spec, s),
                       acc_replicate(g, 0, NULL, s)};
    acc_array out[2];
    int64_t three = 3;
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 0, NULL, out));
    ts_expect_shape(&out[0], 1, &three);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(((const int64_t *)out[0].data[0])[k], 42);
    cr_assert_eq(out[1].rank, 0);
    cr_assert_eq(*(const int64_t *)out[1].data[0], 42);
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

Test(replicate_slice, replicate_zero_extent_gives_empty_array)
{
    int64_t x[3] = {1, 2, 3}, n = 3, ext[2] = {0, 3};
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *spec[2] = {ts_i64(g, 0), acc_all(g)};
    acc_node *r = acc_replicate(g, 2, spec, xs);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 2, ext);
    cr_assert_eq(acc_array_size(&out), 0);
    acc_array_release(&out);
}

Test(replicate_slice, replicate_negative_extent_is_a_runtime_shape_error)
{
    int64_t x[2] = {5, 6}, n = 2, reps = -2;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *k = acc_input(g, ts_sc(ACC_I64), 0);
    acc_node *spec[2] = {acc_the(g, k), acc_all(g)};
    acc_node *r = acc_replicate(g, 2, spec, xs);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, x),
                       ts_host(ACC_I64, 0, NULL, &reps)},
              out;
    ts_expect_error(ts_run_program(p, 2, in, 1, &out), ACC_ERR_SHAPE,
                    "replicate");
    cr_assert_null(out.data[0]);
    cr_assert(ts_contains_ci(acc_last_error(), "-2"), "message: %s",
              acc_last_error());
    reps = 2;
    ts_expect_ok(g, ts_run_program(p, 2, in, 1, &out));
    cr_assert_eq(acc_array_size(&out), 4);
    cr_assert_eq(((const int64_t *)out.data[0])[3], 6);
    acc_array_release(&out);
    acc_program_free(p);
}

/* ---- slice --------------------------------------------------------------------- */

Test(replicate_slice, slice_row_2_of_5x10)
{
    int64_t m[50], em[2] = {5, 10}, n = 10;
    ts_iota(m, 50);
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *spec[2] = {ts_i64(g, 2), acc_all(g)};
    acc_node *r = acc_slice(g, xs, 2, spec);
    acc_array in = ts_host(ACC_I64, 2, em, m), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    for (int k = 0; k < 10; k++)
        cr_assert_eq(((const int64_t *)out.data[0])[k], 20 + k);
    acc_array_release(&out);
}

Test(replicate_slice, slice_column_of_5x10)
{
    int64_t m[50], em[2] = {5, 10}, n = 5;
    ts_iota(m, 50);
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *spec[2] = {acc_all(g), ts_i64(g, 3)};
    acc_node *r = acc_slice(g, xs, 2, spec);
    acc_array in = ts_host(ACC_I64, 2, em, m), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    for (int k = 0; k < 5; k++)
        cr_assert_eq(((const int64_t *)out.data[0])[k], 10 * k + 3);
    acc_array_release(&out);
}

Test(replicate_slice, slice_rank3_every_pattern)
{
    /* a 3x4x5 array; all 8 patterns of All / fixed index (2, 1, 3) */
    int64_t x[60], ex[3] = {3, 4, 5}, fix[3] = {2, 1, 3};
    for (int k = 0; k < 60; k++)
        x[k] = k * k - 7;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 3);
    acc_node *rs[8];
    for (int mask = 0; mask < 8; mask++) {
        acc_node *spec[3];
        for (int d = 0; d < 3; d++)
            spec[d] = mask & (1 << d) ? acc_all(g) : ts_i64(g, fix[d]);
        rs[mask] = acc_slice(g, xs, 3, spec);
    }
    acc_array in = ts_host(ACC_I64, 3, ex, x), out[8];
    ts_expect_ok(g, ts_run(ctx, g, 8, rs, 1, &in, out));
    for (int mask = 0; mask < 8; mask++) {
        int64_t ext[3];
        int32_t rank = 0;
        for (int d = 0; d < 3; d++)
            if (mask & (1 << d))
                ext[rank++] = ex[d];
        ts_expect_shape(&out[mask], rank, ext);
        const int64_t *o = out[mask].data[0];
        int64_t at = 0;
        for (int64_t a = 0; a < 3; a++)
            for (int64_t b = 0; b < 4; b++)
                for (int64_t c = 0; c < 5; c++) {
                    int64_t ix[3] = {a, b, c};
                    int kept = 1;
                    for (int d = 0; d < 3; d++)
                        kept &= (mask & (1 << d)) || ix[d] == fix[d];
                    if (!kept)
                        continue;
                    cr_assert_eq(o[at], x[(a * 4 + b) * 5 + c],
                                 "mask %d at %lld", mask, (long long)at);
                    at++;
                }
        cr_assert_eq(at, acc_array_size(&out[mask]));
        acc_array_release(&out[mask]);
    }
}

Test(replicate_slice, slice_tuple_elements)
{
    int32_t a[6] = {1, 2, 3, 4, 5, 6};
    uint8_t b[6] = {1, 0, 0, 1, 1, 0};
    int64_t em[2] = {2, 3}, n = 3;
    const acc_type *fields[2] = {ts_sc(ACC_I32), ts_sc(ACC_BOOL)};
    const acc_type *pair = acc_type_tuple(ctx, 2, fields);
    acc_node *xs = acc_input(g, pair, 2);
    acc_node *spec[2] = {ts_i64(g, 1), acc_all(g)};
    acc_node *r = acc_slice(g, xs, 2, spec);
    void *bufs[2] = {a, b};
    acc_array in = ts_host_array(pair, 2, em, bufs), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(((const int32_t *)out.data[0])[k], a[3 + k]);
        cr_assert_eq(((const uint8_t *)out.data[1])[k], b[3 + k]);
    }
    acc_array_release(&out);
}

Test(replicate_slice, slice_of_a_replicate_gives_the_source_back)
{
    int64_t x[4] = {9, 8, 7, 6}, n = 4;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *rspec[2] = {acc_all(g), ts_i64(g, 3)};
    acc_node *rep = acc_replicate(g, 2, rspec, xs);
    acc_node *sspec[2] = {acc_all(g), ts_i64(g, 2)};
    acc_node *r = acc_slice(g, rep, 2, sspec);
    acc_array in = ts_host(ACC_I64, 1, &n, x), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 1, &n);
    cr_assert_eq(memcmp(out.data[0], x, sizeof x), 0);
    acc_array_release(&out);
}

Test(replicate_slice, slice_index_out_of_range_is_a_runtime_error)
{
    int64_t m[50], em[2] = {5, 10}, row = 5;
    ts_iota(m, 50);
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *i = acc_input(g, ts_sc(ACC_I64), 0);
    acc_node *spec[2] = {acc_the(g, i), acc_all(g)};
    acc_node *r = acc_slice(g, xs, 2, spec);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    acc_array in[2] = {ts_host(ACC_I64, 2, em, m),
                       ts_host(ACC_I64, 0, NULL, &row)},
              out;
    ts_expect_error(ts_run_program(p, 2, in, 1, &out), ACC_ERR_RUNTIME,
                    "slice");
    cr_assert_null(out.data[0]);
    row = -1;
    ts_expect_error(ts_run_program(p, 2, in, 1, &out), ACC_ERR_RUNTIME,
                    "slice");
    row = 4;
    ts_expect_ok(g, ts_run_program(p, 2, in, 1, &out));
    for (int k = 0; k < 10; k++)
        cr_assert_eq(((const int64_t *)out.data[0])[k], 40 + k);
    acc_array_release(&out);
    acc_program_free(p);
}

Test(replicate_slice, slice_of_an_empty_dimension_is_out_of_range)
{
    int64_t em[2] = {0, 3};
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *spec[2] = {ts_i64(g, 0), acc_all(g)};
    acc_node *r = acc_slice(g, xs, 2, spec);
    acc_array in = ts_host(ACC_I64, 2, em, NULL), out;
    ts_expect_error(ts_run(ctx, g, 1, &r, 1, &in, &out), ACC_ERR_RUNTIME,
                    "slice");
}

Test(replicate_slice, one_all_node_shared_by_many_entries)
{
    /* one All node in every entry of a slice and a replicate */
    int64_t m[6] = {1, 2, 3, 4, 5, 6}, em[2] = {2, 3}, er[3] = {2, 2, 3};
    acc_node *all = acc_all(g);
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *sspec[2] = {all, all};
    acc_node *same = acc_slice(g, xs, 2, sspec);
    acc_node *rspec[3] = {all, ts_i64(g, 2), all};
    acc_node *r = acc_replicate(g, 3, rspec, same);
    acc_array in = ts_host(ACC_I64, 2, em, m), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    ts_expect_shape(&out, 3, er);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 3; j++)
                cr_assert_eq(((const int64_t *)out.data[0])[(i * 2 + k) * 3 + j],
                             m[i * 3 + j]);
    acc_array_release(&out);
}

/* ---- builder errors ------------------------------------------------------------- */

Test(replicate_slice, replicate_with_too_few_all_entries)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *spec[2] = {ts_i64(g, 3), acc_all(g)};
    expect_builder_error(acc_replicate(g, 2, spec, xs), ACC_ERR_SHAPE,
                         "replicate");
}

Test(replicate_slice, replicate_with_too_many_all_entries)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *spec[3] = {acc_all(g), ts_i64(g, 3), acc_all(g)};
    expect_builder_error(acc_replicate(g, 3, spec, xs), ACC_ERR_SHAPE,
                         "replicate");
}

Test(replicate_slice, replicate_with_a_spec_beyond_the_maximum_rank)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *spec[ACC_MAX_RANK + 1];
    spec[0] = acc_all(g);
    for (int d = 1; d <= ACC_MAX_RANK; d++)
        spec[d] = ts_i64(g, 1);
    expect_builder_error(acc_replicate(g, ACC_MAX_RANK + 1, spec, xs),
                         ACC_ERR_SHAPE, "replicate");
}

Test(replicate_slice, replicate_entry_of_the_wrong_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *spec[2] = {ts_i32(g, 3), acc_all(g)};
    expect_builder_error(acc_replicate(g, 2, spec, xs), ACC_ERR_TYPE,
                         "replicate");
}

Test(replicate_slice, replicate_null_entry)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *spec[2] = {NULL, acc_all(g)};
    expect_builder_error(acc_replicate(g, 2, spec, xs),
                         ACC_ERR_INVALID_ARGUMENT, "replicate");
}

Test(replicate_slice, slice_spec_length_differs_from_rank)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *spec[1] = {acc_all(g)};
    expect_builder_error(acc_slice(g, xs, 1, spec), ACC_ERR_SHAPE, "slice");
}

Test(replicate_slice, slice_entry_depending_on_a_lambda_parameter)
{
    /* \i -> slice xs [i, All] inside a lambda body is not an array term of
     * the language */
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *i = acc_param(g, ts_sc(ACC_I64));
    acc_node *spec[2] = {i, acc_all(g)};
    expect_builder_error(acc_slice(g, xs, 2, spec), ACC_ERR_TYPE, "slice");
}

Test(replicate_slice, slice_of_a_scalar_value_is_refused)
{
    acc_node *spec[1] = {acc_all(g)};
    expect_builder_error(acc_slice(g, ts_i64(g, 1), 1, spec), ACC_ERR_TYPE,
                         "slice");
}
