/*
 * test_text_prelude.c — the text language as Accelerate programs are
 * written: composition `.` and application `$` (precedence,
 * associativity, sections), id/const/flip/curry/uncurry, tuples holding
 * functions, fromBool/boolToInt/fromIntegral of bool, minBound/maxBound
 * per type, length, zip3..zip9 and their unzips, iterate (unrolled or a
 * loop, with the plan to show which), sfoldl, segments of another integer
 * type in text, and stencil patterns with wildcard rows.  Runs on the
 * interpreter and, as lang.test_text_prelude.cpu, on the CPU backend.
 * Expected values are computed here with plain C loops (f32 arithmetic in
 * the same order where results are compared exactly).
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "support.h"

TestSuite(text_prelude, .init = ts_ctx_open, .fini = ts_ctx_close);

static acc_program *compile(const char *src, const char *entry)
{
    return ts_compile_text(ts_ctx, src, entry);
}

static void run_program(acc_program *p, size_t n_in, const acc_array *in,
                        size_t n_out, acc_array *out)
{
    cr_assert_eq(acc_program_num_outputs(p), n_out);
    acc_status st = ts_run_program(p, n_in, in, n_out, out);
    cr_assert_eq(st, ACC_OK, "%s: %s", acc_status_string(st),
                 acc_last_error());
}

/* Compiles entry of src, runs it and frees the program. */
static void run(const char *src, const char *entry, size_t n_in,
                const acc_array *in, size_t n_out, acc_array *out)
{
    acc_program *p = compile(src, entry);
    run_program(p, n_in, in, n_out, out);
    acc_program_free(p);
}

static void release(acc_array *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc_array_release(&out[i]);
}

static acc_array vec(acc_scalar s, int64_t *n, void *data)
{
    return ts_host(s, 1, n, data);
}

static const int64_t *i64s(const acc_array *a)
{
    cr_assert(acc_type_equal(a->type, acc_type_scalar(ACC_I64)));
    return a->data[0];
}

/* ---- . and $ ------------------------------------------------------------ */

static const char composition_src[] =
    "ops (xs : Vector i64) : (Vector i64, Vector i64, Vector i64, Vector i64,\n"
    "                         Vector i64, Vector i64, Vector i64) =\n"
    "  (map (* 2) . map (+ 1) $ xs,\n"
    "   (map negate .) (map (* 3)) xs,\n"
    "   (. map (* 3)) (map (+ 1)) xs,\n"
    "   ($ xs) (map (+ 5)),\n"
    "   map (abs . negate . (+ (-10))) xs,\n"
    "   map negate $ map abs $ xs,\n"
    "   map (\\x -> negate . abs $ x - 10) xs)\n";

Test(text_prelude, composition_and_application)
{
    int64_t xs[6] = {-7, -1, 0, 3, 10, 25}, n = 6;
    acc_array in = vec(ACC_I64, &n, xs), out[7];
    run(composition_src, "ops", 1, &in, 7, out);
    for (int i = 0; i < 6; i++) {
        int64_t x = xs[i], d = llabs(x - 10);
        int64_t want[7] = {2 * (x + 1), -3 * x, 3 * x + 1, x + 5, d, -llabs(x),
                           -d};
        for (int k = 0; k < 7; k++)
            cr_expect_eq(i64s(&out[k])[i], want[k], "output %d at %d: %lld, "
                         "expected %lld", k, i,
                         (long long)i64s(&out[k])[i], (long long)want[k]);
    }
    release(out, 7);
}

/* ---- id, const, flip, curry, uncurry ---------------------------------- */

static const char combinators_src[] =
    "f (xs : Vector i64) (ys : Vector i64)\n"
    "  : (Vector i64, Vector i64, Vector i64, Vector i64) =\n"
    "  (permute const (fill [4] 0) (\\[i] -> [3 - i]) (map id xs),\n"
    "   zipWith (flip (-)) xs ys,\n"
    "   map (curry (\\(a, b) -> a * 10 + b) 7) xs,\n"
    "   map (uncurry max) (zip xs ys))\n";

Test(text_prelude, id_const_flip_curry_uncurry)
{
    int64_t xs[4] = {5, -2, 9, 4}, ys[4] = {1, 8, -3, 4}, n = 4;
    acc_array in[2] = {vec(ACC_I64, &n, xs), vec(ACC_I64, &n, ys)}, out[4];
    run(combinators_src, "f", 2, in, 4, out);
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(i64s(&out[0])[i], xs[3 - i]);
        cr_expect_eq(i64s(&out[1])[i], ys[i] - xs[i]);
        cr_expect_eq(i64s(&out[2])[i], 70 + xs[i]);
        cr_expect_eq(i64s(&out[3])[i], xs[i] > ys[i] ? xs[i] : ys[i]);
    }
    release(out, 4);
}

/* ---- tuples holding functions ------------------------------------------- */

static const char dictionary_src[] =
    "intOps = (\\a b -> a + b, \\a -> a * 2, 3)\n"
    "pairOps = (\\a -> a - 1, negate)\n"
    "plus (f, _, _) = f\n"
    "f (xs : Vector i64) : (Vector i64, Vector i64, Vector i64, Vector i64) =\n"
    "  let (_, twice, k) = intOps\n"
    "  in (zipWith (plus intOps) xs xs, map (twice . fst pairOps) xs,\n"
    "      map (\\x -> x + prj 2 intOps + k) xs, map (asnd pairOps) xs)\n";

Test(text_prelude, tuples_holding_functions)
{
    int64_t xs[3] = {4, -6, 11}, n = 3;
    acc_array in = vec(ACC_I64, &n, xs), out[4];
    run(dictionary_src, "f", 1, &in, 4, out);
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(i64s(&out[0])[i], 2 * xs[i]);
        cr_expect_eq(i64s(&out[1])[i], 2 * (xs[i] - 1));
        cr_expect_eq(i64s(&out[2])[i], xs[i] + 6);
        cr_expect_eq(i64s(&out[3])[i], -xs[i]);
    }
    release(out, 4);
}

/* ---- conversions from bool, bounds ------------------------------------ */

static const char bools_src[] =
    "f (bs : Vector bool) : (Vector f32, Vector i64, Vector u8, Vector f64) =\n"
    "  (map fromBool bs, map boolToInt bs, map fromBool bs,\n"
    "   map (\\b -> fromIntegral b * 0.5) bs)\n";

Test(text_prelude, conversions_from_bool)
{
    uint8_t bs[5] = {1, 0, 0, 1, 1};
    int64_t n = 5;
    acc_array in = vec(ACC_BOOL, &n, bs), out[4];
    run(bools_src, "f", 1, &in, 4, out);
    const float *a = out[0].data[0];
    const uint8_t *c = out[2].data[0];
    const double *d = out[3].data[0];
    cr_assert(acc_type_equal(out[3].type, acc_type_scalar(ACC_F64)));
    for (int i = 0; i < 5; i++) {
        cr_expect_eq(a[i], bs[i] ? 1.0f : 0.0f);
        cr_expect_eq(i64s(&out[1])[i], bs[i]);
        cr_expect_eq(c[i], bs[i]);
        cr_expect_eq(d[i], bs[i] * 0.5);
    }
    release(out, 4);
}

static const char bounds_src[] =
    "signed : Scalar (i8, i8, i16, i16, i32, i32, i64, i64) =\n"
    "  unit (minBound, maxBound, minBound, maxBound, minBound, maxBound,\n"
    "        minBound, maxBound)\n"
    "unsigned : Scalar (u8, u8, u16, u16, u32, u32, u64, u64, bool, bool) =\n"
    "  unit (minBound, maxBound, minBound, maxBound, minBound, maxBound,\n"
    "        minBound, maxBound, minBound, maxBound)\n"
    "smallest (xs : Vector u16) : Scalar u16 = fold min maxBound xs\n"
    "arithmetic : Scalar i64 = unit (let m = maxBound in m - 1)\n";

Test(text_prelude, bounds_of_every_integer_type_and_bool)
{
    acc_array out;
    run(bounds_src, "signed", 0, NULL, 1, &out);
    cr_expect_eq(((const int8_t *)out.data[0])[0], INT8_MIN);
    cr_expect_eq(((const int8_t *)out.data[1])[0], INT8_MAX);
    cr_expect_eq(((const int16_t *)out.data[2])[0], INT16_MIN);
    cr_expect_eq(((const int16_t *)out.data[3])[0], INT16_MAX);
    cr_expect_eq(((const int32_t *)out.data[4])[0], INT32_MIN);
    cr_expect_eq(((const int32_t *)out.data[5])[0], INT32_MAX);
    cr_expect_eq(((const int64_t *)out.data[6])[0], INT64_MIN);
    cr_expect_eq(((const int64_t *)out.data[7])[0], INT64_MAX);
    acc_array_release(&out);
    run(bounds_src, "unsigned", 0, NULL, 1, &out);
    cr_expect_eq(((const uint8_t *)out.data[0])[0], 0);
    cr_expect_eq(((const uint8_t *)out.data[1])[0], UINT8_MAX);
    cr_expect_eq(((const uint16_t *)out.data[3])[0], UINT16_MAX);
    cr_expect_eq(((const uint32_t *)out.data[5])[0], UINT32_MAX);
    cr_expect_eq(((const uint64_t *)out.data[6])[0], 0);
    cr_expect_eq(((const uint64_t *)out.data[7])[0], UINT64_MAX);
    cr_expect_eq(((const uint8_t *)out.data[8])[0], 0);
    cr_expect_eq(((const uint8_t *)out.data[9])[0], 1);
    acc_array_release(&out);
    uint16_t xs[4] = {900, 17, 60000, 18};
    int64_t n = 4;
    acc_array in = vec(ACC_U16, &n, xs);
    run(bounds_src, "smallest", 1, &in, 1, &out);
    cr_expect_eq(((const uint16_t *)out.data[0])[0], 17);
    acc_array_release(&out);
    run(bounds_src, "arithmetic", 0, NULL, 1, &out);
    cr_expect_eq(i64s(&out)[0], INT64_MAX - 1);
    acc_array_release(&out);
}

/* ---- length, zip3 .. zip9, unzip3 .. unzip9 ------------------------------ */

static const char zips_src[] =
    "lengths (m : Matrix f32) (v : Vector i8) : Scalar (i64, i64) =\n"
    "  unit (length m, length v)\n"
    "three (a : Vector i64) (b : Vector f32) (c : Vector bool)\n"
    "  : (Vector i64, Vector f32, Vector bool) =\n"
    "  unzip3 (zip3 a b c)\n"
    "nine (a : Vector i64) (b : Vector i64) : Vector (i64, i64, i64, i64, i64,\n"
    "                                                 i64, i64, i64, i64) =\n"
    "  let (p, q, r, s, t, u, v, w, x) =\n"
    "        unzip9 (zip9 a b (map (+ 1) a) (map (+ 2) a) (map (+ 3) a)\n"
    "                     (map (+ 4) a) (map (+ 5) a) (map (+ 6) a) (map (+ 7) b))\n"
    "  in zip9 x w v u t s r q p\n";

Test(text_prelude, length_zips_and_unzips)
{
    float m[12] = {0};
    int8_t v[5] = {0};
    int64_t me[2] = {3, 4}, vn = 5;
    acc_array in[3] = {ts_host(ACC_F32, 2, me, m), vec(ACC_I8, &vn, v)}, out[9];
    run(zips_src, "lengths", 2, in, 1, out);
    cr_expect_eq(((const int64_t *)out[0].data[0])[0], 4, "innermost extent");
    cr_expect_eq(((const int64_t *)out[0].data[1])[0], 5);
    acc_array_release(&out[0]);

    int64_t a[4] = {1, 2, 3, 4}, n = 4, three = 3;
    float b[3] = {0.5f, -1.5f, 2.25f};
    uint8_t c[4] = {1, 0, 1, 1};
    in[0] = vec(ACC_I64, &n, a);
    in[1] = vec(ACC_F32, &three, b);
    in[2] = vec(ACC_BOOL, &n, c);
    run(zips_src, "three", 3, in, 3, out);
    for (int k = 0; k < 3; k++)
        cr_expect_eq(acc_array_size(&out[k]), 3, "the intersection");
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(i64s(&out[0])[i], a[i]);
        cr_expect_eq(((const float *)out[1].data[0])[i], b[i]);
        cr_expect_eq(((const uint8_t *)out[2].data[0])[i], c[i]);
    }
    release(out, 3);

    int64_t bb[4] = {10, 20, 30, 40};
    in[1] = vec(ACC_I64, &n, bb);
    run(zips_src, "nine", 2, in, 1, out);
    for (int i = 0; i < 4; i++) {
        int64_t want[9] = {bb[i] + 7, a[i] + 6, a[i] + 5, a[i] + 4, a[i] + 3,
                           a[i] + 2, a[i] + 1, bb[i], a[i]};
        for (int k = 0; k < 9; k++)
            cr_expect_eq(((const int64_t *)out[0].data[k])[i], want[k],
                         "field %d at %d", k, i);
    }
    acc_array_release(&out[0]);
}

/* ---- iterate -------------------------------------------------------------- */

static const char iterate_src[] =
    "unrolled (xs : Vector f32) : Vector f32 = iterate 3 (map (\\x -> x * 2.0 + 1.0)) xs\n"
    "looped (n : i64) (xs : Vector f32) : Vector f32 =\n"
    "  iterate n (map (\\x -> x * 2.0 + 1.0)) xs\n"
    "many (xs : Vector f32) : Vector f32 = iterate 65 (map (\\x -> x * 0.5)) xs\n"
    "never (xs : Vector f32) : Vector f32 = iterate (-2) (map (+ 1.0)) xs\n"
    "scalars (n : i32) (xs : Vector i64) : Vector i64 =\n"
    "  map (\\x -> iterate n (\\y -> y * 3 + 1) x) xs\n";

/* Whether the plan of p contains an awhile step. */
static int has_awhile(acc_program *p)
{
    char *text = NULL;
    cr_assert_eq(acc_program_explain(p, 0, &text), ACC_OK);
    int found = strstr(text, "awhile") != NULL;
    acc_free(text);
    return found;
}

static void expect_doubled(const acc_array *out, const float *xs, int64_t n,
                           int64_t times)
{
    for (int64_t i = 0; i < n; i++) {
        float want = xs[i];
        for (int64_t k = 0; k < times; k++)
            want = want * 2.0f + 1.0f;
        cr_expect_eq(((const float *)out->data[0])[i], want, "[%lld] after "
                     "%lld steps", (long long)i, (long long)times);
    }
}

Test(text_prelude, iterate_unrolls_literal_counts_and_loops_otherwise)
{
    float xs[3] = {1.0f, -0.5f, 3.0f};
    int64_t n = 3, counts[3] = {0, 3, -4};
    acc_array in[2] = {vec(ACC_F32, &n, xs)}, out;

    acc_program *p = compile(iterate_src, "unrolled");
    acc_plan_summary plan;
    memset(&plan, 0, sizeof plan);
    plan.struct_size = sizeof plan;
    cr_assert_eq(acc_program_plan(p, &plan), ACC_OK);
    cr_expect(!has_awhile(p), "a literal count is unrolled");
    cr_expect_eq(plan.kernels, 1, "the three maps fuse into one kernel");
    run_program(p, 1, in, 1, &out);
    expect_doubled(&out, xs, n, 3);
    acc_array_release(&out);
    acc_program_free(p);

    p = compile(iterate_src, "looped");
    cr_expect(has_awhile(p), "a computed count is an awhile");
    for (int c = 0; c < 3; c++) {
        in[0] = ts_host(ACC_I64, 0, NULL, &counts[c]);
        in[1] = vec(ACC_F32, &n, xs);
        run_program(p, 2, in, 1, &out);
        expect_doubled(&out, xs, n, counts[c] > 0 ? counts[c] : 0);
        acc_array_release(&out);
    }
    acc_program_free(p);

    p = compile(iterate_src, "many");
    cr_expect(has_awhile(p), "a literal count above 64 is an awhile");
    in[0] = vec(ACC_F32, &n, xs);
    run_program(p, 1, in, 1, &out);
    for (int i = 0; i < 3; i++) {
        float want = xs[i];
        for (int k = 0; k < 65; k++)
            want *= 0.5f;
        cr_expect_eq(((const float *)out.data[0])[i], want);
    }
    acc_array_release(&out);
    acc_program_free(p);

    run(iterate_src, "never", 1, in, 1, &out);
    cr_expect(memcmp(out.data[0], xs, sizeof xs) == 0, "no step at all");
    acc_array_release(&out);
}

Test(text_prelude, iterate_on_scalars_is_a_while_loop)
{
    int32_t times = 4;
    int64_t xs[3] = {0, 2, -5}, n = 3;
    acc_array in[2] = {ts_host(ACC_I32, 0, NULL, &times), vec(ACC_I64, &n, xs)},
              out;
    run(iterate_src, "scalars", 2, in, 1, &out);
    for (int i = 0; i < 3; i++) {
        int64_t want = xs[i];
        for (int k = 0; k < times; k++)
            want = want * 3 + 1;
        cr_expect_eq(i64s(&out)[i], want);
    }
    acc_array_release(&out);
}

/* ---- sfoldl --------------------------------------------------------------- */

static const char sfoldl_src[] =
    "rows (m : Matrix i64) : Vector i64 =\n"
    "  let [r, c] = shape m\n"
    "  in generate [r] (\\[i] -> sfoldl (\\a b -> a * 10 + b) 7 [i] m)\n"
    "whole (v : Vector f64) : Scalar (f64, i64) =\n"
    "  unit (sfoldl (\\(s, k) x -> (s + x, k + 1)) (0.0, 0) [] v)\n"
    "planes (a : Array 3 i32) : Matrix i32 =\n"
    "  let [p, q, r] = shape a\n"
    "  in generate [p, q] (\\[i, j] -> sfoldl (-) 100 [i, j] a)\n";

Test(text_prelude, sfoldl_folds_a_row_left_to_right)
{
    int64_t m[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2}, me[2] = {3, 4};
    acc_array in = ts_host(ACC_I64, 2, me, m), out;
    run(sfoldl_src, "rows", 1, &in, 1, &out);
    int64_t want[3] = {71234, 75678, 79012};
    ts_expect_i64(&out, want, 3);
    acc_array_release(&out);

    double v[5] = {0.5, 1.25, -2.0, 8.0, 0.125};
    int64_t n = 5;
    in = vec(ACC_F64, &n, v);
    run(sfoldl_src, "whole", 1, &in, 1, &out);
    double s = 0;
    for (int i = 0; i < 5; i++)
        s += v[i];
    cr_expect_eq(((const double *)out.data[0])[0], s);
    cr_expect_eq(((const int64_t *)out.data[1])[0], 5);
    acc_array_release(&out);

    int32_t a[2 * 3 * 4];
    int64_t ae[3] = {2, 3, 4};
    for (int k = 0; k < 24; k++)
        a[k] = (k * 5) % 7;
    in = ts_host(ACC_I32, 3, ae, a);
    run(sfoldl_src, "planes", 1, &in, 1, &out);
    for (int ij = 0; ij < 6; ij++) {
        int32_t want_ij = 100;
        for (int k = 0; k < 4; k++)
            want_ij -= a[ij * 4 + k];
        cr_expect_eq(((const int32_t *)out.data[0])[ij], want_ij);
    }
    acc_array_release(&out);
}

/* ---- segments of another integer type, in text -------------------------- */

static const char segments_src[] =
    "sums (xs : Vector i64) (s : Vector i32) : Vector i64 = foldSeg (+) 0 xs s\n"
    "scans (xs : Vector i64) (s : Vector u16) : Vector i64 = scanl1Seg (+) xs s\n"
    "literal (xs : Vector i64) : Vector i64 =\n"
    "  foldSeg (+) 0 xs (generate [2] (\\[i] -> 2 * i + 1))\n";

Test(text_prelude, segments_of_any_integer_type)
{
    int64_t xs[6] = {1, 2, 3, 4, 5, 6}, n = 6, k = 3;
    int32_t s32[3] = {1, 0, 5};
    uint16_t s16[3] = {2, 3, 1};
    acc_array in[2] = {vec(ACC_I64, &n, xs), vec(ACC_I32, &k, s32)}, out;
    run(segments_src, "sums", 2, in, 1, &out);
    int64_t sums[3] = {1, 0, 20};
    ts_expect_i64(&out, sums, 3);
    acc_array_release(&out);
    in[1] = vec(ACC_U16, &k, s16);
    run(segments_src, "scans", 2, in, 1, &out);
    int64_t scans[6] = {1, 3, 3, 7, 12, 6};
    ts_expect_i64(&out, scans, 6);
    acc_array_release(&out);
    run(segments_src, "literal", 1, in, 1, &out);
    int64_t lit[2] = {1, 2 + 3 + 4};
    ts_expect_i64(&out, lit, 2);
    acc_array_release(&out);
}

/* ---- stencil patterns with wildcard rows ------------------------------- */

enum { H = 4, W = 6 };

static int clampi(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static int wrapi(int i, int n)
{
    return ((i % n) + n) % n;
}

static int mirrori(int i, int n)
{
    return i < 0 ? -i : i >= n ? 2 * n - 2 - i : i;
}

static float at(const float *img, int (*b)(int, int), int y, int x)
{
    return img[b(y, H) * W + b(x, W)];
}

static const char stencil_src[] =
    "row5 (img : Matrix f32) : Matrix f32 =\n"
    "  stencil (\\(_, (a, b, c, d, e), _) -> a + 2.0 * b + 3.0 * c + 4.0 * d + 5.0 * e)\n"
    "          clamp img\n"
    "centre (img : Matrix f32) : Matrix f32 =\n"
    "  stencil (\\(_, (_, x0, _), _) -> x0 * 2.0) wrap img\n"
    "column (img : Matrix f32) : Matrix f32 =\n"
    "  stencil (\\((_, a, _), _, (_, b, _)) -> a - b) mirror img\n"
    "named (img : Matrix f32) : Matrix f32 =\n"
    "  stencil (\\(top, (l, c, r), bot) -> prj 0 top + r * 2.0 - prj 2 bot) clamp img\n"
    "scale k (_, (_, x, _), _) = k * x\n"
    "partial (img : Matrix f32) : Matrix f32 = stencil (scale 3.0) clamp img\n"
    "relax (xs : Matrix f32) (ys : Matrix f32) : Matrix f32 =\n"
    "  stencil2 (\\(_, (_, x0, _), _) ((_, t, _), (l, _, r), (_, b, _)) ->\n"
    "              x0 + t + l * 2.0 + r * 3.0 + b * 4.0)\n"
    "           (function (const 0.0)) xs (function $ const 0.0) ys\n"
    "cube (a : Array 3 f32) : Array 3 f32 =\n"
    "  stencil (\\(_, (_, (p, q, r), _), _) -> p - r * 2.0) clamp a\n";

static void image(float *img)
{
    for (int k = 0; k < H * W; k++)
        img[k] = (float)((k * 7) % 13) - 4.0f;
}

/* Runs entry on the H x W image; want(y, x) per element. */
static void expect_stencil(const char *entry, float (*want)(const float *,
                                                            int, int))
{
    float img[H * W];
    int64_t ext[2] = {H, W};
    image(img);
    acc_array in = ts_host(ACC_F32, 2, ext, img), out;
    run(stencil_src, entry, 1, &in, 1, &out);
    ts_expect_shape(&out, 2, ext);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            cr_expect_eq(((const float *)out.data[0])[y * W + x],
                         want(img, y, x), "%s [%d, %d]: %g, expected %g",
                         entry, y, x,
                         (double)((const float *)out.data[0])[y * W + x],
                         (double)want(img, y, x));
    acc_array_release(&out);
}

static float row5_ref(const float *img, int y, int x)
{
    return at(img, clampi, y, x - 2) + 2.0f * at(img, clampi, y, x - 1) +
           3.0f * at(img, clampi, y, x) + 4.0f * at(img, clampi, y, x + 1) +
           5.0f * at(img, clampi, y, x + 2);
}

static float centre_ref(const float *img, int y, int x)
{
    return at(img, wrapi, y, x) * 2.0f;
}

static float column_ref(const float *img, int y, int x)
{
    return at(img, mirrori, y - 1, x) - at(img, mirrori, y + 1, x);
}

static float named_ref(const float *img, int y, int x)
{
    return at(img, clampi, y - 1, x - 1) + at(img, clampi, y, x + 1) * 2.0f -
           at(img, clampi, y + 1, x + 1);
}

static float partial_ref(const float *img, int y, int x)
{
    return 3.0f * at(img, clampi, y, x);
}

Test(text_prelude, stencil_rows_may_be_wildcards)
{
    expect_stencil("row5", row5_ref);       /* 3x5 from the middle row */
    expect_stencil("centre", centre_ref);   /* 3x3, two wildcard rows */
    expect_stencil("column", column_ref);   /* the middle row a wildcard */
    expect_stencil("named", named_ref);     /* rows bound to names */
    expect_stencil("partial", partial_ref); /* a helper's later parameter */
}

Test(text_prelude, stencil2_and_rank3_with_wildcard_rows)
{
    float xs[H * W], ys[H * W];
    int64_t ext[2] = {H, W};
    image(xs);
    for (int k = 0; k < H * W; k++)
        ys[k] = (float)(k % 5) * 0.5f;
    acc_array in[2] = {ts_host(ACC_F32, 2, ext, xs), ts_host(ACC_F32, 2, ext, ys)},
              out;
    run(stencil_src, "relax", 2, in, 1, &out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
#define Y(j, i) ((j) < 0 || (i) < 0 || (j) >= H || (i) >= W ? 0.0f : ys[(j) * W + (i)])
            float want = xs[y * W + x] + Y(y - 1, x) + Y(y, x - 1) * 2.0f +
                         Y(y, x + 1) * 3.0f + Y(y + 1, x) * 4.0f;
#undef Y
            cr_expect_eq(((const float *)out.data[0])[y * W + x], want,
                         "relax [%d, %d]", y, x);
        }
    acc_array_release(&out);

    float a[2 * 3 * 4];
    int64_t ae[3] = {2, 3, 4};
    for (int k = 0; k < 24; k++)
        a[k] = (float)((k * 5) % 9);
    in[0] = ts_host(ACC_F32, 3, ae, a);
    run(stencil_src, "cube", 1, in, 1, &out);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++) {
                float p = a[(i * 3 + j) * 4 + clampi(k - 1, 4)];
                float r = a[(i * 3 + j) * 4 + clampi(k + 1, 4)];
                cr_expect_eq(((const float *)out.data[0])[(i * 3 + j) * 4 + k],
                             p - r * 2.0f, "cube [%d, %d, %d]", i, j, k);
            }
    acc_array_release(&out);
}
