/*
 * test_cuda_kernels.c — the CUDA code generator without a device: for a
 * representative set of programs, every plan step with a CUDA skeleton is
 * instantiated (core/codegen/kernel_cuda.c) and the source is compiled by
 * NVRTC to a cubin for sm_90 and to PTX for compute_90, which must succeed
 * with an empty log (no warnings).  Nothing is launched: whether the
 * kernels compute the right values has never been checked here.  Skips
 * (saying why) when NVRTC is not installed.
 *
 * This file: generates and folds (LANGUAGE.md's dotp, blackscholes and
 * mandelbrot, folds over ranks and types, tuples, integer division and
 * bounds checks, an embedded producer, every scalar primitive) and the
 * refusal of steps without a skeleton.  Scans and segmented folds,
 * stencils, permute and expand, and the runtime checks of fused reads
 * and unused values have files of their own (test_cuda_kernels_scan.c,
 * test_cuda_kernels_stencil.c, test_cuda_kernels_permute.c,
 * test_cuda_kernels_checks.c); the fixture and the checks they share are
 * in kernels_support.c.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "kernels_support.h"
#include "text_sources.h"

#include <stdint.h>
#include <string.h>

TestSuite(cuda_kernels, .init = kernels_setup, .fini = kernels_teardown);

Test(cuda_kernels, dot_product_is_one_fused_fold)
{
    counts c = check_text(ts_language4_source(), "dotp");
    cr_expect_eq(c.fold, 1, "zipWith fused into the fold: one kernel");
    cr_expect_eq(c.generate, 0);
}

Test(cuda_kernels, blackscholes)
{
    counts c = check_text(ts_language4_source(), "blackscholes");
    cr_expect_eq(c.generate, 1);
}

Test(cuda_kernels, mandelbrot_with_while)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, ts_language4_source(), (size_t)-1,
                                  "mandelbrot", &p), ACC_OK, "%s",
                 acc_last_error());
    counts c;
    for (size_t i = 0; i < p->c.sched.n_all; i++) {
        const ir_node *n = p->c.sched.all[i]->node;
        if (n->op != IR_GENERATE)
            continue;
        cg_kernel k;
        char why[256];
        cr_assert_eq(cuda_kernel(&p->c.ir, n, &k, why, sizeof why), 1, "%s",
                     why);
        cr_expect(strstr(k.source, "for (;;)") != NULL, "the while loop");
        cr_expect(strstr(k.source, "#define ACC_NEEDS_INDEX 1") != NULL);
        cg_kernel_free(&k);
    }
    c = check_program(p, "mandelbrot");
    cr_expect_eq(c.generate, 1);
    acc_program_free(p);
}

static const char programs[] =
    "fold3 (a : Array 3 f64) : Matrix f64 =\n"
    "  fold (\\x y -> x + y * 0.5) 1.0 a\n"
    "\n"
    "fold1Rows (a : Matrix i16) : Vector i16 =\n"
    "  fold1 (\\x y -> x - y) a\n"
    "\n"
    "mapAfterFold (a : Matrix f32) : Vector i32 =\n"
    "  map (\\s -> i32 (sqrt s)) (fold (+) 0 (map (\\x -> x * x) a))\n"
    "\n"
    "tuples (xs : Vector (f32, i64, bool)) : Vector (i64, f32) =\n"
    "  map (\\(a, b, c) -> if c then (b * 2, a) else (b, a + 1.0)) xs\n"
    "\n"
    "tupleFold (xs : Vector (f64, i32)) : Scalar (f64, i32) =\n"
    "  fold (\\p q -> if fst p >= fst q then p else q)\n"
    "       (negate 1.0e300, 0) xs\n"
    "\n"
    "intDivBounds (xs : Vector i32) (ys : Vector i64) : Vector i32 =\n"
    "  generate (shape ys) (\\[i] ->\n"
    "    let k = ys ! [i]\n"
    "    in quot (xs ! [k]) (i32 k) + rem 7 (xs ! [i]) + div (xs ! [i]) 3\n"
    "       + mod (-7) (xs ! [k + 1]) + shiftL (xs ! [i]) (i32 k))\n"
    "\n"
    "allPositive (m : Matrix i32) : Vector bool =\n"
    "  and (map (\\x -> x > 0) m)\n"
    "\n"
    "embedded (n : i64) : Vector u64 =\n"
    "  fold (\\a b -> xor a b) 0 (generate [n, 5] (\\[i, j] -> u64 (i * j)))\n";

Test(cuda_kernels, fold_over_rank_3)
{
    counts c = check_text(programs, "fold3");
    cr_expect_eq(c.fold, 1);
}

Test(cuda_kernels, fold1_of_narrow_integers)
{
    counts c = check_text(programs, "fold1Rows");
    cr_expect_eq(c.fold, 1);
}

Test(cuda_kernels, fold_of_bool)
{
    counts c = check_text(programs, "allPositive");
    cr_expect_eq(c.fold, 1);
}

Test(cuda_kernels, map_after_fold)
{
    counts c = check_text(programs, "mapAfterFold");
    cr_expect_eq(c.map_fold, 1, "the map is applied as the fold stores");
}

Test(cuda_kernels, tuple_elements)
{
    counts c = check_text(programs, "tuples");
    cr_expect_eq(c.generate, 1);
    c = check_text(programs, "tupleFold");
    cr_expect_eq(c.fold, 1);
}

Test(cuda_kernels, integer_division_and_bounds_checks)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, programs, (size_t)-1, "intDivBounds",
                                  &p), ACC_OK, "%s", acc_last_error());
    int seen = 0;
    for (size_t i = 0; i < p->c.sched.n_all; i++) {
        const ir_node *n = p->c.sched.all[i]->node;
        if (n->op != IR_GENERATE)
            continue;
        cg_kernel k;
        char why[256];
        cr_assert_eq(cuda_kernel(&p->c.ir, n, &k, why, sizeof why), 1, "%s",
                     why);
        cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL);
        cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL);
        cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_SHIFT") != NULL);
        seen++;
        cg_kernel_free(&k);
    }
    cr_expect_eq(seen, 1);
    check_program(p, "intDivBounds");
    acc_program_free(p);
}

Test(cuda_kernels, embedded_generate_producer)
{
    counts c = check_text(programs, "embedded");
    cr_expect_eq(c.fold, 1, "the generate is computed inside the fold");
    cr_expect_eq(c.generate, 0);
}

/* Every scalar primitive of the language, on every scalar type, in one
 * generate (helpers are inlined at each type). */
static const char all_prims[] =
    "fops x = negate x + abs x + signum x + min x 1.0 + max x 2.0 + sqrt x\n"
    "  + exp x + log x + sin x + cos x + tan x + asin x + acos x + atan x\n"
    "  + sinh x + cosh x + tanh x + atan2 x 1.0 + logBase 2.0 x + x ** 1.5\n"
    "  + pi + x / 3.0 - x * 2.0\n"
    "\n"
    "iops a = negate a + abs a + signum a + min a 3 + max a 4 + quot a 5\n"
    "  + rem a 6 + div a 7 + mod a 8 + xor a 9 + (a .&. 10) + (a .|. 11)\n"
    "  + complement a + shiftL a 2 + shiftR a 1 + fromIntegral (popCount a)\n"
    "  + fromIntegral (countLeadingZeros a) + a * 3 - a\n"
    "\n"
    "allPrims (xs : Vector f64) (ns : Vector i64)\n"
    "  : Vector (f64, f32, i64, i32, i16, i8, u64, u32, u16, u8, bool, f64) =\n"
    "  generate (shape xs) (\\[i] ->\n"
    "    let x = xs ! [i]; n = ns ! [i]; f = f32 x;\n"
    "        b = isNaN x || isInfinite f && not (even n) || odd n\n"
    "            || x == 1.0 || x /= 2.0 || x < 3.0 || x <= 4.0 || n > 5\n"
    "            || n >= 6\n"
    "    in (fops x + f64 (truncate x : i64) + f64 (round x : i32),\n"
    "        fops f + f32 (floor f : i16) + f32 (ceiling f : u8),\n"
    "        iops n + (truncate x : i64), iops (i32 n), iops (i16 n),\n"
    "        iops (i8 n), iops (u64 n) + (round x : u64), iops (u32 n),\n"
    "        iops (u16 n), iops (u8 n), b && bool n,\n"
    "        fromIntegral n + toFloating f + f64 b))\n";

Test(cuda_kernels, every_scalar_primitive_in_one_generate)
{
    static const char *const calls[] = {
        "acc_neg_i8(", "acc_abs_i16(", "acc_signum_u32(", "acc_min_u64(",
        "acc_quot_i64(", "acc_rem_u8(", "acc_div_i32(", "acc_mod_u16(",
        "acc_bxor_i8(", "acc_band_u64(", "acc_bor_i16(", "acc_complement_u8(",
        "acc_shiftl_i32(", "acc_shiftr_i8(", "acc_popcount_u16(",
        "acc_clz_i64(", "acc_signum_f64(", "acc_max_f32(", "acc_logbase_f32(",
        "acc_logbase_f64(", "acc_f2i(71,", "acc_f2i(72,", "acc_f2i(73,",
        "sqrtf(", "expf(", "logf(", "sinf(", "cosf(", "tanf(", "asinf(",
        "acosf(", "atanf(", "sinhf(", "coshf(", "tanhf(", "atan2f(", "powf(",
        "sqrt(", "atan2(", "pow(", "isnan(", "isinf("};
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, all_prims, (size_t)-1, "allPrims", &p),
                 ACC_OK, "%s", acc_last_error());
    for (size_t i = 0; i < p->c.sched.n_all; i++) {
        const ir_node *n = p->c.sched.all[i]->node;
        if (n->op != IR_GENERATE)
            continue;
        cg_kernel k;
        char why[256];
        cr_assert_eq(cuda_kernel(&p->c.ir, n, &k, why, sizeof why), 1, "%s",
                     why);
        const char *body = strstr(k.source, "BEGIN generate.cu.in");
        cr_assert_not_null(body);
        for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++)
            cr_expect(strstr(body, calls[c]) != NULL, "calls %s", calls[c]);
        cg_kernel_free(&k);
    }
    counts c = check_program(p, "allPrims");
    cr_expect_eq(c.generate, 1);
    acc_program_free(p);
}

Test(cuda_kernels, steps_without_a_cuda_skeleton_are_refused)
{
    /* every kernel of the language reference's programs has a skeleton */
    static const char *const programs4[] = {"histogram", "blur", "smvm",
                                            "dotp", "mandelbrot"};
    for (size_t i = 0; i < sizeof programs4 / sizeof *programs4; i++) {
        counts c = check_text(ts_language4_source(), programs4[i]);
        cr_expect_eq(c.none, 0, "%s: every kernel compiled", programs4[i]);
    }
    /* a step that is not a kernel (a reshape: a host step) is refused with
     * the reason */
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, "r (xs : Vector f32) : Matrix f32 =\n"
                                  "  reshape [2, 3] xs\n", (size_t)-1, "r",
                                  &p), ACC_OK, "%s", acc_last_error());
    const ir_node *reshape = NULL;
    for (uint32_t i = 0; i < p->c.ir.n_nodes; i++)
        if (p->c.ir.nodes[i]->op == IR_RESHAPE)
            reshape = p->c.ir.nodes[i];
    cr_assert_not_null(reshape);
    cg_kernel k;
    char why[256];
    cr_expect_eq(cuda_kernel(&p->c.ir, reshape, &k, why, sizeof why), 0);
    cr_expect_str_eq(why, "reshape has no CUDA skeleton");
    acc_program_free(p);
}
