/*
 * test_text_roundtrip.c — the IR printer's output is a text program: for
 * every LANGUAGE.md §4 program and every entry of the library program,
 * compile the text, print the compiled IR (ir_print_program), compile the
 * printed text, run both programs on the same inputs and require the same
 * outputs, bit for bit (the printed program computes the same operations
 * in the same order).  A unit test: it reads the program's IR.
 *
 * Fusion is disabled (ACC_DISABLE=fusion): the printer then shows the IR
 * after sharing recovery, which is made of language operations only;
 * fused programs contain internal operations (`bounds`) that the text
 * language does not have.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "core/base/strbuf.h"
#include "abi/src/program.h"
#include "core/ir/printer.h"
#include "support.h"
#include "text_sources.h"

enum { VEC = 8, ROWS = 4, COLS = 8, MAX_IO = 16 };

static acc_context *ctx;

static void setup(void)
{
    setenv("ACC_DISABLE", "fusion", 1);
    ctx = ts_context(ACC_BACKEND_INTERP);
}

static void teardown(void)
{
    acc_context_destroy(ctx);
    ctx = NULL;
}

TestSuite(text_roundtrip, .init = setup, .fini = teardown);

/* Inputs made from a program's signature: vectors of VEC elements and
 * matrices of ROWS x COLS; integers 1..3 (rank 0: 4), floats from 0.5 up,
 * bools alternating.  Buffers are malloc'd; free_inputs releases them. */
static void fill_leaf(acc_scalar s, void *buf, int64_t n, int rank0)
{
    for (int64_t k = 0; k < n; k++) {
        int64_t iv = rank0 ? 4 : 1 + k % 3;
        double fv = rank0 ? 2.5 : 0.5 + (double)(k % 13) * 0.37;
        switch (s) {
        case ACC_BOOL: ((uint8_t *)buf)[k] = k % 3 == 0; break;
        case ACC_I8: ((int8_t *)buf)[k] = (int8_t)iv; break;
        case ACC_I16: ((int16_t *)buf)[k] = (int16_t)iv; break;
        case ACC_I32: ((int32_t *)buf)[k] = (int32_t)iv; break;
        case ACC_I64: ((int64_t *)buf)[k] = iv; break;
        case ACC_U8: ((uint8_t *)buf)[k] = (uint8_t)iv; break;
        case ACC_U16: ((uint16_t *)buf)[k] = (uint16_t)iv; break;
        case ACC_U32: ((uint32_t *)buf)[k] = (uint32_t)iv; break;
        case ACC_U64: ((uint64_t *)buf)[k] = (uint64_t)iv; break;
        case ACC_F32: ((float *)buf)[k] = (float)fv; break;
        case ACC_F64: ((double *)buf)[k] = fv; break;
        }
    }
}

static size_t make_inputs(acc_program *p, acc_array *in)
{
    size_t n = acc_program_num_inputs(p);
    cr_assert_leq(n, MAX_IO);
    for (size_t i = 0; i < n; i++) {
        const acc_type *t = NULL;
        int32_t rank = 0;
        cr_assert_eq(acc_program_input(p, i, &t, &rank), ACC_OK);
        int64_t ext[2] = {rank == 1 ? VEC : ROWS, COLS};
        int64_t count = rank == 0 ? 1 : rank == 1 ? VEC : ROWS * COLS;
        cr_assert_leq(rank, 2);
        void *bufs[ACC_MAX_COMPONENTS] = {0};
        for (size_t l = 0; l < acc_type_leaf_count(t); l++) {
            acc_scalar s = acc_type_leaf(t, l);
            bufs[l] = calloc((size_t)count, acc_scalar_size(s));
            fill_leaf(s, bufs[l], count, rank == 0);
        }
        in[i] = ts_host_array(t, rank, ext, bufs);
    }
    return n;
}

static void free_inputs(acc_array *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t l = 0; l < ACC_MAX_COMPONENTS; l++)
            free(in[i].data[l]);
}

static char *print_program(const acc_program *p)
{
    strbuf b = {0};
    ir_print_program(&b, &p->c.ir);
    cr_assert(!b.failed && b.text);
    return b.text;
}

static acc_status run(acc_program *p, size_t n_in, const acc_array *in,
                      acc_array *out)
{
    size_t n = acc_program_num_outputs(p);
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].struct_size = sizeof out[i];
    }
    return acc_run(p, n_in, in, n, out);
}

static void same_outputs(const acc_array *a, const acc_array *b, size_t n,
                         const char *entry)
{
    for (size_t i = 0; i < n; i++) {
        cr_assert(acc_type_equal(a[i].type, b[i].type), "%s: output %zu type",
                  entry, i);
        cr_assert_eq(a[i].rank, b[i].rank, "%s: output %zu rank", entry, i);
        for (int32_t d = 0; d < a[i].rank; d++)
            cr_assert_eq(a[i].extents[d], b[i].extents[d],
                         "%s: output %zu extent %d", entry, i, (int)d);
        int64_t size = acc_array_size(&a[i]);
        for (size_t l = 0; l < acc_type_leaf_count(a[i].type); l++) {
            size_t bytes = (size_t)size * acc_scalar_size(acc_type_leaf(a[i].type, l));
            cr_assert(bytes == 0 || memcmp(a[i].data[l], b[i].data[l], bytes) == 0,
                      "%s: output %zu leaf %zu differs", entry, i, l);
        }
    }
}

static void release(acc_array *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc_array_release(&out[i]);
}

/* Compile, print, re-parse, run both, compare. */
static void round_trip(const char *src, const char *entry, size_t n_in,
                       const acc_array *given)
{
    acc_program *p1 = NULL, *p2 = NULL;
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, entry, &p1);
    cr_assert_eq(st, ACC_OK, "%s: %s", entry, acc_last_error());
    char *text = print_program(p1);
    st = acc_compile_text(ctx, text, (size_t)-1, NULL, &p2);
    cr_assert_eq(st, ACC_OK, "%s: the printed program does not compile: %s\n%s",
                 entry, acc_last_error(), text);
    cr_assert_eq(acc_program_num_outputs(p1), acc_program_num_outputs(p2));
    cr_assert_eq(acc_program_num_inputs(p1), acc_program_num_inputs(p2));
    acc_array made[MAX_IO], o1[MAX_IO], o2[MAX_IO];
    size_t n = given ? n_in : make_inputs(p1, made);
    const acc_array *in = given ? given : made;
    size_t n_out = acc_program_num_outputs(p1);
    cr_assert_leq(n_out, MAX_IO);
    acc_status s1 = run(p1, n, in, o1);
    acc_status s2 = run(p2, n, in, o2);
    cr_assert_eq(s1, ACC_OK, "%s: %s", entry, acc_last_error());
    cr_assert_eq(s2, ACC_OK, "%s (printed): %s\n%s", entry, acc_last_error(),
                 text);
    same_outputs(o1, o2, n_out, entry);
    release(o1, n_out);
    release(o2, n_out);
    if (!given)
        free_inputs(made, n);
    free(text);
    acc_program_free(p1);
    acc_program_free(p2);
}

/* ---- LANGUAGE.md §4 ------------------------------------------------------- */

Test(text_roundtrip, dotp) { round_trip(ts_language4_source(), "dotp", 0, NULL); }
Test(text_roundtrip, blackscholes)
{
    round_trip(ts_language4_source(), "blackscholes", 0, NULL);
}
Test(text_roundtrip, histogram)
{
    round_trip(ts_language4_source(), "histogram", 0, NULL);
}
Test(text_roundtrip, blur) { round_trip(ts_language4_source(), "blur", 0, NULL); }
Test(text_roundtrip, mandelbrot)
{
    round_trip(ts_language4_source(), "mandelbrot", 0, NULL);
}
Test(text_roundtrip, dotBlas)
{
    round_trip(ts_language4_source(), "dotBlas", 0, NULL);
}

Test(text_roundtrip, smvm)
{
    int64_t segd[4] = {2, 0, 3, 1}, inds[6] = {0, 3, 1, 2, 4, 0};
    float vals[6] = {1.5f, -2.0f, 0.5f, 4.0f, -1.0f, 3.0f};
    float v[5] = {2.0f, -1.0f, 0.25f, 8.0f, 0.5f};
    int64_t n4 = 4, n6 = 6, n5 = 5;
    void *b0 = segd, *b1 = inds, *b2 = vals, *b3 = v;
    acc_array in[4] = {
        ts_host_array(acc_type_scalar(ACC_I64), 1, &n4, &b0),
        ts_host_array(acc_type_scalar(ACC_I64), 1, &n6, &b1),
        ts_host_array(acc_type_scalar(ACC_F32), 1, &n6, &b2),
        ts_host_array(acc_type_scalar(ACC_F32), 1, &n5, &b3)};
    round_trip(ts_language4_source(), "smvm", 4, in);
}

Test(text_roundtrip, sieve)
{
    int64_t ps[4] = {2, 3, 5, 7}, n = 40, four = 4;
    void *b0 = ps, *b1 = &n;
    acc_array in[2] = {ts_host_array(acc_type_scalar(ACC_I64), 1, &four, &b0),
                       ts_host_array(acc_type_scalar(ACC_I64), 0, NULL, &b1)};
    round_trip(ts_sieve_source(), NULL, 2, in);
}

/* ---- the library program -------------------------------------------------------- */

#define LIBRARY_CASE(name)                                                   \
    Test(text_roundtrip, name)                                               \
    {                                                                        \
        round_trip(ts_library_source(), #name, 0, NULL);                     \
    }

LIBRARY_CASE(reductions)
LIBRARY_CASE(logic)
LIBRARY_CASE(totals)
LIBRARY_CASE(zips)
LIBRARY_CASE(enums)
LIBRARY_CASE(structure)
LIBRARY_CASE(gathering)
LIBRARY_CASE(blas)
LIBRARY_CASE(transforms)
LIBRARY_CASE(scans)
LIBRARY_CASE(segfolds)
LIBRARY_CASE(specs)
LIBRARY_CASE(shapes)
LIBRARY_CASE(stencils)
LIBRARY_CASE(control)
LIBRARY_CASE(scalars)

/* ---- literals the printer must write carefully ------------------------------------ */

Test(text_roundtrip, negative_and_special_literals)
{
    round_trip("lits (xs : Vector f32) (ys : Vector i8) (zs : Vector u64) : "
               "(Vector f32, Vector i8, Vector u64, Vector f64, Vector i64) =\n"
               "  (map (\\x -> max x (-2.5) + (-0.0) * x + 1e30) xs,\n"
               "   map (\\y -> min y (-128) - (-3)) ys,\n"
               "   map (\\z -> z + 18446744073709551615) zs,\n"
               "   map (\\x -> f64 x / 0.0 - (0.0 / 0.0) * 0.0) xs,\n"
               "   map (\\x -> truncate x + (-9223372036854775807) - 1) xs)\n",
               "lits", 0, NULL);
}
