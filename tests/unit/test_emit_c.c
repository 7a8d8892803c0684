/*
 * test_emit_c.c — properties of the C the CPU code generator emits:
 * unused tuple components are neither loaded nor computed, the index is
 * unravelled only when read, primitive commutative combiners get
 * interleaved accumulators, equal programs give byte-identical source
 * (whatever their node numbering), and the source compiles warning-free
 * under -Wall -Wextra (when a C compiler is available).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "core/codegen/kernel_cpu.h"
#include "abi/src/program.h"
#include "cpu_support.h"
#include "emit_support.h"
#include "support.h"

static acc_context *ctx;

static void setup(void)
{
    ctx = ts_context(ACC_BACKEND_INTERP);
}

static void teardown(void)
{
    acc_context_destroy(ctx);
}

TestSuite(emit_c, .init = setup, .fini = teardown);

/* The source of the kernel of the last plan step of `result`. */
static char *kernel_source(acc_graph *g, acc_node *result)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile(ctx, g, 1, &result, &p), ACC_OK, "%s",
                 acc_last_error());
    return ts_last_step_source(p);
}

/* generate (shape xs) (\ix -> let t = xs ! ix; u = (sqrt a, exp a) in
 *                              fst t * 2 + fst u) over xs : Vector (f64, f64, i32) */
static acc_node *build_dce(acc_graph *g)
{
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    const acc_type *fields[3] = {f64, f64, acc_type_scalar(ACC_I32)};
    acc_node *xs = acc_input(g, acc_type_tuple(ctx, 3, fields), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *t = acc_read(g, xs, ix);
    acc_node *a = acc_get(g, t, 0);
    acc_node *u = acc_tuple(g, 2, (acc_node *[]){acc_unop(g, ACC_OP_SQRT, a),
                                                 acc_unop(g, ACC_OP_EXP, a)});
    acc_node *body = acc_binop(g, ACC_OP_ADD,
                               acc_binop(g, ACC_OP_MUL, a, ts_f64(g, 2.0)),
                               acc_get(g, u, 0));
    return acc_generate(g, acc_shape(g, xs), acc_lambda(g, 1, &ix, body));
}

Test(emit_c, unused_components_are_neither_loaded_nor_computed)
{
    acc_graph *g = ts_graph(ctx);
    char *src = kernel_source(g, build_dce(g));
    cr_expect(strstr(src, "a0_0[") != NULL, "leaf 0 is loaded");
    cr_expect(strstr(src, "a0_1") == NULL, "leaf 1 is never used");
    cr_expect(strstr(src, "a0_2") == NULL, "leaf 2 is never used");
    const char *kernel = strstr(src, "BEGIN generate");
    cr_assert_not_null(kernel);
    cr_expect(strstr(kernel, " sqrt(") != NULL);
    cr_expect(strstr(kernel, " exp(") == NULL, "the unused exp is not computed");
    free(src);
    acc_graph_free(g);
}

Test(emit_c, index_unravelled_only_when_read)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *sh = acc_index(g, 2, (acc_node *[]){ts_i64(g, 3), ts_i64(g, 4)});
    acc_node *r = acc_generate(g, sh, acc_lambda(g, 1, &ix, ts_f32(g, 1.5f)));
    char *src = kernel_source(g, r);
    cr_expect(strstr(src, "#define ACC_NEEDS_INDEX 0") != NULL);
    free(src);
    acc_graph_free(g);
    g = ts_graph(ctx);
    ix = acc_param(g, acc_type_shape(2));
    sh = acc_index(g, 2, (acc_node *[]){ts_i64(g, 3), ts_i64(g, 4)});
    r = acc_generate(g, sh, acc_lambda(g, 1, &ix, acc_get(g, ix, 1)));
    src = kernel_source(g, r);
    cr_expect(strstr(src, "#define ACC_NEEDS_INDEX 1") != NULL);
    free(src);
    acc_graph_free(g);
}

static acc_node *build_fold(acc_graph *g, acc_primop op, int junk)
{
    const acc_type *i32 = acc_type_scalar(ACC_I32);
    for (int i = 0; i < junk; i++) /* shifts the node numbering */
        acc_binop(g, ACC_OP_ADD, ts_i32(g, i), ts_i32(g, 1));
    acc_node *xs = acc_input(g, i32, 2);
    acc_node *a = acc_param(g, i32), *b = acc_param(g, i32);
    acc_node *f = acc_lambda(g, 2, (acc_node *[]){a, b}, acc_binop(g, op, a, b));
    acc_node *v = acc_param(g, i32);
    acc_node *gm = acc_lambda(g, 1, &v, acc_binop(g, ACC_OP_MUL, v, v));
    return acc_map(g, gm, acc_fold(g, f, ts_i32(g, 7), acc_map(g, gm, xs)));
}

Test(emit_c, lanes_for_commutative_primitives_only)
{
    acc_graph *g = ts_graph(ctx);
    char *src = kernel_source(g, build_fold(g, ACC_OP_ADD, 0));
    /* 128 bytes of i32 accumulators: independent chains enough to hide
     * the latency of vector adds (kernel_cpu.c, fold_lanes) */
    cr_expect(strstr(src, "#define ACC_LANES 32") != NULL, "%s", src);
    free(src);
    acc_graph_free(g);
    g = ts_graph(ctx);
    src = kernel_source(g, build_fold(g, ACC_OP_SUB, 0));
    cr_expect(strstr(src, "#define ACC_LANES 1") != NULL);
    free(src);
    acc_graph_free(g);
}

Test(emit_c, equal_programs_give_identical_source)
{
    acc_graph *g1 = ts_graph(ctx), *g2 = ts_graph(ctx);
    char *s1 = kernel_source(g1, build_fold(g1, ACC_OP_MAX, 0));
    char *s2 = kernel_source(g2, build_fold(g2, ACC_OP_MAX, 25));
    cr_expect_str_eq(s1, s2);
    free(s1);
    free(s2);
    acc_graph_free(g1);
    acc_graph_free(g2);
}

/* The kernel source of the last step of text program `text`, entry
 * `entry`.  malloc'd. */
static char *text_kernel_source(const char *text, const char *entry)
{
    return ts_text_kernel_source(ctx, text, entry);
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *at = strstr(text, what); at; at = strstr(at + 1, what))
        n++;
    return n;
}

static const char in_range_programs[] =
    "own (xs : Vector f32) : Vector f32 =\n"
    "  generate (shape xs) (\\i -> let j = i in xs ! j * 2.0)\n"
    "other (xs : Vector f32) (ys : Vector f32) : Vector f32 =\n"
    "  generate (shape ys) (\\i -> xs ! i)\n"
    "shifted (xs : Vector f32) : Vector f32 =\n"
    "  generate (shape xs) (\\[i] -> xs ! [i + 1])\n"
    "mixed (a : Matrix f32) (b : Matrix f32) : Matrix f32 =\n"
    "  generate (shape a) (\\ix -> a ! ix + b ! ix)\n"
    "smvm (segd : Vector i64) (inds : Vector i64) (vals : Vector f32)\n"
    "     (vec : Vector f32) : Vector f32 =\n"
    "  let vecVals = backpermute (shape inds) (\\i -> [inds ! i]) vec;\n"
    "      products = zipWith (*) vecVals vals\n"
    "  in foldSeg (+) 0 products segd\n"
    "producer (xs : Vector f32) : Vector f32 =\n"
    "  let ys = map (\\x -> x * 2.0) xs in generate (shape ys) (\\i -> ys ! i)\n"
    "producerShifted (xs : Vector f32) : Vector f32 =\n"
    "  let ys = map (\\x -> x * 2.0) xs\n"
    "  in generate (shape ys) (\\[i] -> ys ! [i + 1])\n"
    "intersection (a : Matrix f32) (b : Matrix f32) : Matrix f32 =\n"
    "  let ys = zipWith (+) a b in generate (shape ys) (\\ix -> ys ! ix * 2.0)\n"
    "wider (a : Matrix f32) (b : Matrix f32) : Matrix f32 =\n"
    "  let ys = zipWith (+) a b in generate (shape a) (\\ix -> ys ! ix * 2.0)\n"
    "hist (k : i64) (xs : Vector i32) : Vector i32 =\n"
    "  permute (+) (fill [k] 0) (\\[i] -> [i64 (xs ! [i])]) "
    "(map (\\_ -> 1) xs)\n"
    "histOther (k : i64) (xs : Vector i32) (ys : Vector i32) : Vector i32 =\n"
    "  permute (+) (fill [k] 0) (\\i -> [i64 (xs ! i)]) (map (\\_ -> 1) ys)\n"
    "transpose (xs : Matrix f32) : Matrix f32 =\n"
    "  let [h, w] = shape xs in backpermute [w, h] (\\[i, j] -> [j, i]) xs\n"
    "unswapped (xs : Matrix f32) : Matrix f32 =\n"
    "  let [h, w] = shape xs in backpermute [h, w] (\\[i, j] -> [j, i]) xs\n"
    "diagonal (xs : Matrix f32) : Vector f32 =\n"
    "  let [h, w] = shape xs in generate [min h w] (\\[i] -> xs ! [i, i])\n"
    "tallDiagonal (xs : Matrix f32) : Vector f32 =\n"
    "  let [h, w] = shape xs in generate [h] (\\[i] -> xs ! [i, i])\n";

/* A generate reading an array at its own index, when its shape is within
 * the array's, needs no bounds check (core/fusion/in_range.c); any other
 * read keeps its check.  So do the checks fusion puts on the reads of an
 * inlined producer: proved at the generate's own index when its shape
 * term is the producer's (a copy), else kept.  Likewise a permute's index
 * function reading at its source's index. */
Test(emit_c, reads_at_the_generates_own_index_are_unchecked)
{
    static const struct { const char *entry; int checks; } cases[] = {
        {"own", 0},     /* through a scalar let */
        {"other", 1},   /* another array's shape */
        {"shifted", 1}, /* not the index itself (i + 0 would fold to
                           i in core/simplify and be proven) */
        {"mixed", 1},   /* a's read proven, b's not */
        {"smvm", 1},    /* inds ! i proven (the intersection of zipWith's
                           shapes); the gather through inds is not */
        {"producer", 0},        /* ys's shape term, copied */
        {"producerShifted", 1}, /* not the index itself */
        {"intersection", 0},    /* [min .., min ..] on both sides */
        {"wider", 1},           /* a's shape may exceed the intersection */
        /* permute's index function at its source's index: the one check
         * left is the target's, in the skeleton */
        {"hist", 1},
        {"histOther", 2}, /* another array's shape */
        /* the index's components in another order, or repeated: each
         * bounded by the shape component it comes from */
        {"transpose", 0},
        {"unswapped", 1},    /* [h, w] does not bound [j, i] */
        {"diagonal", 0},     /* min h w bounds both */
        {"tallDiagonal", 1}, /* h does not bound the second */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *src = text_kernel_source(in_range_programs, cases[i].entry);
        cr_expect_eq(count_of(src, "ACC_FAIL(ACC_KERR_BOUNDS"),
                     cases[i].checks, "%s: %d checks\n%s", cases[i].entry,
                     count_of(src, "ACC_FAIL(ACC_KERR_BOUNDS"), src);
        free(src);
    }
}

/* Compiles src with strict warnings with every one of cc, gcc and clang
 * that is installed. */
static void expect_clean_compile(const char *src)
{
    static const char *const compilers[] = {"cc", "gcc", "clang", NULL};
    ts_expect_clean_compile(src, compilers);
}

/* generate [10] (\[i] -> let (a, k) = while (\(a, k) -> k < i && a < 100)
 *   (\(a, k) -> (a * 2, k + 1)) (1, 0) in if a > 50 || k == 0 then a else k) */
static acc_node *build_loop(acc_graph *g)
{
    acc_node *init = acc_tuple(g, 2, (acc_node *[]){ts_i64(g, 1), ts_i64(g, 0)});
    acc_node *ix = acc_param(g, acc_type_shape(1)), *i = acc_get(g, ix, 0);
    acc_node *s1 = acc_param(g, acc_node_type(init));
    acc_node *s2 = acc_param(g, acc_node_type(init));
    acc_node *c = acc_binop(g, ACC_OP_LAND,
                            acc_binop(g, ACC_OP_LT, acc_get(g, s1, 1), i),
                            acc_binop(g, ACC_OP_LT, acc_get(g, s1, 0),
                                      ts_i64(g, 100)));
    acc_node *next = acc_tuple(g, 2, (acc_node *[]){
        acc_binop(g, ACC_OP_MUL, acc_get(g, s2, 0), ts_i64(g, 2)),
        acc_binop(g, ACC_OP_ADD, acc_get(g, s2, 1), ts_i64(g, 1))});
    acc_node *w = acc_while(g, acc_lambda(g, 1, &s1, c),
                            acc_lambda(g, 1, &s2, next), init);
    acc_node *a = acc_get(g, w, 0), *k = acc_get(g, w, 1);
    acc_node *pick = acc_binop(g, ACC_OP_LOR,
                               acc_binop(g, ACC_OP_GT, a, ts_i64(g, 50)),
                               acc_binop(g, ACC_OP_EQ, k, ts_i64(g, 0)));
    acc_node *sh = acc_index(g, 1, (acc_node *[]){ts_i64(g, 10)});
    return acc_generate(g, sh, acc_lambda(g, 1, &ix, acc_cond(g, pick, a, k)));
}

/* map (\(a, b) -> a - b) (map (\v -> (v, v * 2)) a) with a = scanl (+) 0
 * xs (maps after a consumer) or reshape [size xs] xs (maps over an array
 * the host makes) */
static acc_node *build_maps(acc_graph *g, int reshaped)
{
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), 2);
    acc_node *size = acc_size(g, xs);
    acc_node *a = reshaped
        ? acc_reshape(g, acc_index(g, 1, &size), xs)
        : acc_scan(g, ACC_SCANL, ts_binop_fn(g, ACC_I64, ACC_OP_ADD),
                   ts_i64(g, 0), xs);
    acc_node *v = acc_param(g, acc_type_scalar(ACC_I64));
    a = acc_map(g, ts_lam1(g, v, acc_tuple(g, 2, (acc_node *[]){v,
                acc_binop(g, ACC_OP_MUL, v, ts_i64(g, 2))})), a);
    acc_node *p = acc_param(g, acc_type_get_elem(acc_node_type(a)));
    return acc_map(g, ts_lam1(g, p, acc_binop(g, ACC_OP_SUB, acc_get(g, p, 0),
                                              acc_get(g, p, 1))), a);
}

/* generate [4] (\[i] -> snd ((quot i d, xs ! [i + d]), i)) over an input
 * d (a Scalar i64) and xs: the pair's value is never used, its checks
 * are (docs/LANGUAGE.md, "Runtime errors") */
static acc_node *build_unused_checks(acc_graph *g)
{
    const acc_type *i64 = acc_type_scalar(ACC_I64);
    acc_node *d = acc_the(g, acc_input(g, i64, 0));
    acc_node *xs = acc_input(g, i64, 1);
    acc_node *ix = acc_param(g, acc_type_shape(1)), *i = acc_get(g, ix, 0);
    acc_node *at = acc_index(g, 1, (acc_node *[]){acc_binop(g, ACC_OP_ADD, i, d)});
    acc_node *pair = acc_tuple(g, 2, (acc_node *[]){
        acc_binop(g, ACC_OP_QUOT, i, d), acc_read(g, xs, at)});
    acc_node *outer = acc_tuple(g, 2, (acc_node *[]){pair, i});
    acc_node *sh = acc_index(g, 1, (acc_node *[]){ts_i64(g, 4)});
    return acc_generate(g, sh, acc_lambda(g, 1, &ix, acc_get(g, outer, 1)));
}

Test(emit_c, unused_values_keep_their_checks_only)
{
    acc_graph *g = ts_graph(ctx);
    char *src = kernel_source(g, build_unused_checks(g));
    const char *kernel = strstr(src, "BEGIN generate");
    cr_assert_not_null(kernel);
    cr_expect_eq(count_of(kernel, "ACC_FAIL(ACC_KERR_DIV_ZERO"), 1, "%s", kernel);
    cr_expect_eq(count_of(kernel, "ACC_FAIL(ACC_KERR_BOUNDS"), 1, "%s", kernel);
    cr_expect(strstr(kernel, "acc_quot_i64(") == NULL, "not divided: %s",
              kernel);
    cr_expect(strstr(kernel, "a1_0[") == NULL, "xs not loaded: %s", kernel);
    cr_expect(strstr(kernel, "a1_e0") != NULL, "its extent checked: %s",
              kernel);
    expect_clean_compile(src);
    free(src);
    acc_graph_free(g);
}

/* Check mode where the checked value is the only thing computed: the
 * backpermute of an empty array (its elements are all 5, no extent admits
 * an index), a stencil whose boundary function can fail at neighbours f
 * ignores (docs/CPU_BACKEND.md). */
static const char check_mode_programs[] =
    "empty (k : i64) : Vector i64 =\n"
    "  backpermute [3] (\\[i] -> [i + k]) (fill [0] 5)\n"
    "ignored (k : i64) (xs : Vector i64) : Vector i64 =\n"
    "  let ys = map (\\x -> x + 1) xs\n"
    "  in stencil (\\(a, b, c) -> b) (function (\\[i] -> ys ! [i + k])) xs\n";

Test(emit_c, check_mode_source_compiles_without_warnings)
{
    char *src = text_kernel_source(check_mode_programs, "empty");
    cr_expect_eq(count_of(src, "ACC_FAIL(ACC_KERR_BOUNDS"), 1, "%s", src);
    expect_clean_compile(src);
    free(src);
    src = text_kernel_source(check_mode_programs, "ignored");
    cr_expect(strstr(src, "acc_check_outside0(A") != NULL, "%s", src);
    expect_clean_compile(src);
    free(src);
}

Test(emit_c, generated_source_compiles_without_warnings)
{
    acc_graph *g = ts_graph(ctx);
    char *src = kernel_source(g, build_dce(g));
    expect_clean_compile(src);
    free(src);
    src = kernel_source(g, build_fold(g, ACC_OP_QUOT, 0));
    expect_clean_compile(src);
    free(src);
    src = kernel_source(g, build_loop(g));
    expect_clean_compile(src);
    cr_expect(strstr(src, "for (;;)") != NULL);
    free(src);
    src = kernel_source(g, build_maps(g, 0));
    expect_clean_compile(src);
    free(src);
    src = kernel_source(g, build_maps(g, 1));
    expect_clean_compile(src);
    free(src);
    acc_graph_free(g);
}

/* 0, or the pair (0, 0.0) */
static acc_node *seg_start(acc_graph *g, int pair)
{
    return pair ? acc_tuple(g, 2, (acc_node *[]){ts_i64(g, 0), ts_f64(g, 0.0)})
                : ts_i64(g, 0);
}

/* (+) on i64, or on the first of (i64, f64) pairs with max on the second */
static acc_node *seg_combiner(acc_graph *g, const acc_type *e, int pair)
{
    return ts_red_combiner(g, pair ? TS_RED_TUPLE : TS_RED_I64, e);
}

/* An embedded producer of (i64, f64) pairs over xs, or xs itself. */
static acc_node *seg_source(acc_graph *g, acc_node *xs, int pair)
{
    if (!pair)
        return xs;
    acc_node *ix = acc_param(g, acc_type_shape(2));
    acc_node *x = acc_binop(g, ACC_OP_QUOT, acc_read(g, xs, ix),
                            acc_get(g, ix, 1));
    return acc_generate(g, acc_shape(g, xs), acc_lambda(g, 1, &ix,
                        acc_tuple(g, 2, (acc_node *[]){x,
                                  acc_convert(g, x, ACC_F64)})));
}

Test(emit_c, segmented_folds_and_scans_compile_without_warnings)
{
    for (int pair = 0; pair <= 1; pair++) {
        for (int form = 0; form < 3; form++) {
            acc_graph *g = ts_graph(ctx);
            acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), 2);
            acc_node *seg = acc_input(g, acc_type_scalar(ACC_I64), 1);
            acc_node *arr = seg_source(g, xs, pair);
            acc_node *z = seg_start(g, pair);
            acc_node *f = seg_combiner(g, acc_node_type(z), pair);
            acc_node *r = form == 0 ? acc_fold_seg(g, f, z, arr, seg)
                        : form == 1 ? acc_fold_seg_offsets(g, f, z, arr, seg)
                                    : acc_fold1_seg(g, f, arr, seg);
            char *src = kernel_source(g, r);
            expect_clean_compile(src);
            free(src);
            acc_graph_free(g);
        }
        for (int at = 0; at < 2 * (ACC_POSTSCANR - ACC_SCANL + 1); at++) {
            int kind = ACC_SCANL + at / 2, segmented = at % 2;
            acc_graph *g = ts_graph(ctx);
            acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), 2);
            acc_node *seg = acc_input(g, acc_type_scalar(ACC_I64), 1);
            acc_node *arr = seg_source(g, xs, pair);
            acc_node *z = seg_start(g, pair);
            acc_node *f = seg_combiner(g, acc_node_type(z), pair);
            int unseeded = kind == ACC_SCANL1 || kind == ACC_SCANR1;
            acc_node *r = segmented
                ? acc_scan_seg(g, (acc_scan_kind)kind, f, unseeded ? NULL : z,
                               arr, seg)
                : acc_scan(g, (acc_scan_kind)kind, f, unseeded ? NULL : z,
                           arr);
            char *src = kernel_source(g, r);
            expect_clean_compile(src);
            free(src);
            acc_graph_free(g);
        }
    }
}

/* ---- stencils ---------------------------------------------------------- */

/* The 3-wide neighbourhood type of elements of e's type. */
static const acc_type *stencil_nb(acc_graph *g, acc_node *e)
{
    return acc_node_type(acc_tuple(g, 3, (acc_node *[]){e, e, e}));
}

/* stencil (\(l, c, r) -> fst l + f64 (snd c)) over (f64, i32) pairs, or
 * stencil2 of an embedded producer (function boundary) and a manifest
 * vector (constant boundary) */
static acc_node *build_stencil(acc_graph *g, int two)
{
    acc_node *pair = acc_tuple(g, 2, (acc_node *[]){ts_f64(g, 0), ts_i32(g, 0)});
    acc_node *xs = acc_input(g, acc_node_type(pair), 1);
    acc_node *p = acc_param(g, stencil_nb(g, pair));
    acc_node *body = acc_binop(g, ACC_OP_ADD, acc_get(g, acc_get(g, p, 0), 0),
                               acc_convert(g, acc_get(g, acc_get(g, p, 1), 1),
                                           ACC_F64));
    const int32_t w[1] = {3};
    if (!two)
        return acc_stencil(g, ts_lam1(g, p, body), w, ACC_BOUNDARY_MIRROR,
                           NULL, xs);
    acc_node *x = acc_param(g, acc_node_type(pair));
    acc_node *prod = acc_map(g, ts_lam1(g, x, acc_tuple(g, 2, (acc_node *[]){
        acc_get(g, x, 0), acc_binop(g, ACC_OP_QUOT, ts_i32(g, 7),
                                    acc_get(g, x, 1))})), xs);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *gfun = ts_lam1(g, ix, acc_tuple(g, 2, (acc_node *[]){
        acc_convert(g, acc_get(g, ix, 0), ACC_F64), ts_i32(g, 1)}));
    acc_node *ys = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *q = acc_param(g, stencil_nb(g, ts_i64(g, 0)));
    body = acc_binop(g, ACC_OP_ADD, body,
                     acc_convert(g, acc_get(g, q, 2), ACC_F64));
    return acc_stencil2(g, ts_lam2(g, p, q, body), w, ACC_BOUNDARY_FUNCTION,
                        gfun, prod, w, ACC_BOUNDARY_CONSTANT, ts_i64(g, -1),
                        ys);
}

Test(emit_c, stencils_read_only_the_neighbour_leaves_f_uses)
{
    acc_graph *g = ts_graph(ctx);
    char *src = kernel_source(g, build_stencil(g, 0));
    const char *k = strstr(src, "BEGIN stencil");
    cr_assert_not_null(k);
    /* interior: leaf 0 of the left neighbour and leaf 1 of the focus, each
     * through a row pointer at a constant offset; nothing of the right */
    cr_expect(strstr(k, "x0_0_0 = acc_r0_0_0[acc_i + (-1)]") != NULL, "%s", k);
    cr_expect(strstr(k, "x0_1_1 = acc_r0_1_0[acc_i + (0)]") != NULL, "%s", k);
    cr_expect(strstr(k, "x0_0_1") == NULL && strstr(k, "x0_1_0") == NULL);
    cr_expect(strstr(k, "x0_2_") == NULL && strstr(k, "acc_n0_2") == NULL);
    /* border: the two neighbours through the boundary */
    cr_expect(strstr(k, "acc_read0(A, acc_pos, acc_c, &acc_n0_0)") != NULL);
    cr_expect(strstr(k, "acc_read0(A, acc_pos, acc_c, &acc_n0_1)") != NULL);
    cr_expect(strstr(k, "{{-1}, {0}}") != NULL, "the reach is [-1, 0]");
    expect_clean_compile(src);
    free(src);
    src = kernel_source(g, build_stencil(g, 1));
    cr_expect(strstr(src, "#define ACC_SIDES 2") != NULL);
    cr_expect(strstr(src, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL,
              "the producer's check");
    expect_clean_compile(src);
    free(src);
    acc_graph_free(g);
}

/* ---- permute, permute', expand ----------------------------------------- */

/* permute (+) / max into fill [5] z, from xs (manifest or through a map),
 * target xs ! ix `rem` 5; or permute' of (target, value) pairs. */
static acc_node *build_permute(acc_graph *g, acc_scalar s, int pairs,
                               int mapped_source)
{
    acc_node *xs = acc_input(g, acc_type_scalar(s), 1);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *x = acc_read(g, xs, ix);
    acc_node *t = ts_idx1(g, acc_binop(g, ACC_OP_REM,
                                       acc_convert(g, x, ACC_I64), ts_i64(g, 5)));
    acc_node *defs = acc_fill(g, ts_idx1(g, ts_i64(g, 5)), ts_int(g, s, 0));
    acc_node *f = ts_binop_fn(g, s, s == ACC_BOOL ? ACC_OP_LOR : ACC_OP_MAX);
    if (pairs) {
        acc_node *pair = acc_tuple(g, 2, (acc_node *[]){t, x});
        acc_node *src = acc_generate(g, acc_shape(g, xs),
                                     acc_lambda(g, 1, &ix, pair));
        return acc_permute_pairs(g, f, defs, src);
    }
    acc_node *src = xs;
    if (mapped_source) {
        acc_node *y = acc_param(g, acc_type_scalar(s));
        src = acc_map(g, ts_lam1(g, y, y), xs);
    }
    return acc_permute(g, f, defs, acc_lambda(g, 1, &ix, t), src);
}

Test(emit_c, permute_and_expand_compile_without_warnings)
{
    static const acc_scalar types[] = {ACC_I32, ACC_F64, ACC_U16, ACC_BOOL};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        for (int form = 0; form < 3; form++) {
            acc_graph *g = ts_graph(ctx);
            char *src = kernel_source(g, build_permute(g, types[i], form == 2,
                                                       form == 1));
            /* one 32/64-bit leaf: compare-and-swap; else locks */
            const char *want = types[i] == ACC_I32 ? "#define ACC_ATOMIC 32"
                             : types[i] == ACC_F64 ? "#define ACC_ATOMIC 64"
                                                   : "#define ACC_ATOMIC 0\n";
            cr_expect(strstr(src, want) != NULL, "%s", want);
            cr_expect(strstr(src, "#define ACC_FETCH 0") != NULL, "max, ||");
            expect_clean_compile(src);
            free(src);
            acc_graph_free(g);
        }
    acc_graph *g = ts_graph(ctx);
    acc_node *ps = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *n = acc_input(g, acc_type_scalar(ACC_I64), 0);
    char *src = kernel_source(g, ts_sieve_marks(g, ps, n));
    cr_expect(strstr(src, "#define ACC_EXPANDED 1") != NULL);
    /* (+) on i32: one atomic fetch-and-add, no compare-and-swap loop */
    cr_expect(strstr(src, "#define ACC_FETCH 1") != NULL);
    expect_clean_compile(src);
    free(src);
    acc_graph_free(g);
    g = ts_graph(ctx);
    ps = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *p = acc_param(g, acc_type_scalar(ACC_I64));
    acc_node *q = acc_param(g, acc_type_scalar(ACC_I64));
    acc_node *k = acc_param(g, acc_type_scalar(ACC_I64));
    acc_node *pair = acc_tuple(g, 2, (acc_node *[]){q, acc_binop(g, ACC_OP_MUL,
                                                                 q, k)});
    acc_node *e = acc_expand(g, ts_lam1(g, p, p), ts_lam2(g, q, k, pair), ps);
    src = kernel_source(g, e);
    cr_expect(strstr(src, "BEGIN expand") != NULL);
    expect_clean_compile(src);
    free(src);
    acc_graph_free(g);
}

/* A step the CPU target cannot compile is an outcome of cg_cpu_kernel,
 * not an error: ACC_OK, no kernel, the reason the plan shows, nothing
 * recorded on the diag; a step it compiles comes with its source. */
Test(emit_c, no_kernel_is_an_outcome_not_an_error)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, "r (xs : Vector f32) : Matrix f32 =\n"
                                  "  reshape [2, 3] (map (* 2.0) xs)\n",
                                  (size_t)-1, "r", &p),
                 ACC_OK, "%s", acc_last_error());
    const ir_node *reshape = NULL, *map = NULL;
    for (size_t i = 0; i < p->c.sched.n_all; i++) {
        const ir_node *n = p->c.sched.all[i]->node;
        if (n->op == IR_RESHAPE)
            reshape = n;
        else if (cg_cpu_has_skeleton(n))
            map = n;
    }
    cr_assert_not_null(reshape);
    cr_assert_not_null(map);
    cg_kernel k;
    cg_outcome o = {1, "stale"};
    diag d;
    diag_clear(&d);
    cr_expect_eq(cg_cpu_kernel(&p->c.ir, reshape, &k, &o, &d), ACC_OK);
    cr_expect_eq(o.built, 0);
    cr_expect_str_eq(o.why_not, "reshape has no CPU skeleton");
    cr_expect(diag_ok(&d), "%s", d.message);
    cr_expect_null(k.source);
    cr_assert_eq(cg_cpu_kernel(&p->c.ir, map, &k, &o, &d), ACC_OK, "%s",
                 d.message);
    cr_expect_eq(o.built, 1, "%s", o.why_not);
    cr_expect_not_null(k.source);
    cg_kernel_free(&k);
    acc_program_free(p);
}
