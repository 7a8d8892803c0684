/*
 * test_cuda_kernels.c — the CUDA code generator without a device: for a
 * representative set of programs, every plan step with a CUDA skeleton is
 * instantiated (core/codegen/kernel_cuda.c) and the source is compiled by
 * NVRTC to a cubin for sm_90 and to PTX for compute_90, which must succeed
 * with an empty log (no warnings).  Nothing is launched: whether the
 * kernels compute the right values has never been checked here.  Skips
 * (saying why) when NVRTC is not installed.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "core/backend/cuda/nvrtc.h"
#include "core/codegen/kernel_cuda.h"
#include "core/exec/program.h"
#include "support.h"
#include "text_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cuda_nvrtc nvrtc;
static acc_context *ctx;

static void setup(void)
{
    char why[1024];
    if (!cuda_load_nvrtc(&nvrtc, why, sizeof why))
        cr_skip_test("NVRTC is not installed here (%s); nothing to check", why);
    ctx = ts_context(ACC_BACKEND_INTERP);
}

static void teardown(void)
{
    if (ctx)
        acc_context_destroy(ctx);
    ctx = NULL;
    cuda_unload_nvrtc(&nvrtc);
}

TestSuite(cuda_kernels, .init = setup, .fini = teardown);

/* Kernels generated and compiled by one check, by kind; steps without a
 * CUDA skeleton. */
typedef struct counts {
    int generate, fold, map_fold, fold_seg, map_fold_seg, scan, steps, none;
    int map_scan, scan_seg, map_scan_seg;
} counts;

/* The entry points each kind of kernel defines (docs/CUDA.md), by kind
 * (kernel_cpu.h's cg_kind, 1 to 8). */
static const char *const expected_entries[9][5] = {
    [CG_KERNEL_GENERATE] = {"accel_generate"},
    [CG_KERNEL_FOLD] = {"accel_fold_rows", "accel_fold_part",
                        "accel_fold_finish"},
    [CG_KERNEL_FOLD_SEG] = {"accel_fold_seg_warp", "accel_fold_seg_thread",
                            "accel_fold_seg_tail"},
    [CG_KERNEL_SCAN] = {"accel_scan_rows", "accel_scan_part",
                        "accel_scan_finish", "accel_scan_block",
                        "accel_scan_thread"},
    [CG_KERNEL_SCAN_SEG] = {"accel_scan_seg_warp", "accel_scan_seg_thread"},
};

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *t = strstr(text, what); t; t = strstr(t + 1, what))
        n++;
    return n;
}

/* The PTX code of entry `name` (up to the next entry). */
static const char *entry_body(const char *ptx, const char *name, size_t *len)
{
    char want[96];
    snprintf(want, sizeof want, ".entry %s(", name);
    const char *b = strstr(ptx, want);
    const char *e = b ? strstr(b + 1, ".entry ") : NULL;
    *len = b ? (e ? (size_t)(e - b) : strlen(b)) : 0;
    return b;
}

/* The PTX defines exactly the kind's entry points, and the launch
 * contract's table says what they are: their names, their parameters,
 * which ones shuffle (and so need blocks of whole warps). */
static void check_entries(const char *ptx, cg_kind kind, const char *name)
{
    char want[96];
    int n = 0;
    for (; n < 5 && expected_entries[kind][n]; n++) {
        snprintf(want, sizeof want, ".entry %s(", expected_entries[kind][n]);
        cr_expect(strstr(ptx, want) != NULL, "%s: %s", name, want);
    }
    cr_expect_eq(count_of(ptx, ".entry "), n, "%s: %d entry points", name, n);
    for (int id = 0; id < CG_CUDA_N_ENTRIES; id++) {
        const cg_cuda_entry *e = cg_cuda_entry_of((cg_cuda_entry_id)id);
        size_t len;
        if (e->kind != kind)
            continue;
        const char *body = entry_body(ptx, e->name, &len);
        cr_assert_not_null(body, "%s: %s", name, e->name);
        char *code = strndup(body, len);
        cr_expect_eq(strstr(code, "shfl.sync") != NULL, e->warp_blocks,
                     "%s: %s %s", name, e->name,
                     e->warp_blocks ? "shuffles" : "does not shuffle");
        free(code);
        snprintf(want, sizeof want, "%s_param_1", e->name);
        cr_expect_eq(strstr(ptx, want) != NULL, e->int64_arg != NULL,
                     "%s: %s has %s second parameter", name, e->name,
                     e->int64_arg ? "a" : "no");
    }
}

static void compile_both(const char *src, cg_kind kind, const char *name)
{
    static const cuda_target targets[2] = {CUDA_TARGET_CUBIN,
                                           CUDA_TARGET_PTX};
    for (int t = 0; t < 2; t++) {
        cuda_image image;
        int ok = cuda_compile(&nvrtc, src, name, 90, targets[t], &image);
        if (!ok || image.log[0])
            fprintf(stderr, "---- %s ----\n%s\n", name, src);
        cr_assert(ok, "%s (%s): NVRTC failed:\n%s", name,
                  t ? "compute_90" : "sm_90", image.log);
        cr_expect_str_empty(image.log, "%s (%s): warnings:\n%s", name,
                            t ? "compute_90" : "sm_90", image.log);
        if (targets[t] == CUDA_TARGET_CUBIN) {
            cr_expect(image.size > 4 && memcmp(image.bytes, "\x7f" "ELF", 4) == 0,
                      "%s: a cubin is ELF", name);
        } else {
            cr_expect(strstr(image.bytes, ".target sm_90") != NULL, "%s", name);
            check_entries(image.bytes, kind, name);
        }
        cuda_image_free(&image);
    }
}

/* What each kind of kernel's source must contain. */
static void check_source(const cg_kernel *k, const ir_node *n, counts *c)
{
    switch (k->kind) {
    case CG_KERNEL_GENERATE:
        c->generate++;
        break;
    case CG_KERNEL_FOLD:
        c->fold++;
        c->map_fold += n->op == IR_MAP;
        cr_expect(strstr(k->source, "__shfl_down_sync") != NULL);
        break;
    case CG_KERNEL_FOLD_SEG: {
        char arg[64];
        c->fold_seg++;
        c->map_fold_seg += n->op == IR_MAP;
        cr_expect(strstr(k->source, "__shfl_down_sync") != NULL);
        /* the offsets come right after the arrays the scalar code reads */
        snprintf(arg, sizeof arg, "#define ACC_SEG_ARG %zu\n", k->n_arrays);
        cr_expect(strstr(k->source, arg) != NULL, "%s", arg);
        break;
    }
    case CG_KERNEL_SCAN:
        c->scan++;
        c->map_scan += n->op == IR_MAP;
        cr_expect(strstr(k->source, "__shfl_up_sync") != NULL);
        cr_expect(strstr(k->source, "__syncthreads_or") != NULL);
        cr_expect(strstr(k->source, "#define ACC_SEGMENTED 0\n") != NULL);
        break;
    case CG_KERNEL_SCAN_SEG: {
        char arg[64];
        c->scan_seg++;
        c->map_scan_seg += n->op == IR_MAP;
        cr_expect(strstr(k->source, "__shfl_up_sync") != NULL);
        cr_expect(strstr(k->source, "#define ACC_SEGMENTED 1\n") != NULL);
        /* the offsets come right after the arrays the scalar code reads;
         * the tail pair exactly when the producer is embedded */
        snprintf(arg, sizeof arg, "#define ACC_SEG_ARG %zu\n", k->n_arrays);
        cr_expect(strstr(k->source, arg) != NULL, "%s", arg);
        snprintf(arg, sizeof arg, "#define ACC_TAIL %d\n",
                 k->src->op == IR_GENERATE);
        cr_expect(strstr(k->source, arg) != NULL, "%s", arg);
        break;
    }
    default: /* a kind the CUDA target has no skeleton for */
        cr_expect(0, "kind %d generated for CUDA", (int)k->kind);
        break;
    }
}

/* Every step of program p: those with a CUDA skeleton generated and
 * compiled, the others refused with a reason. */
static counts check_program(acc_program *p, const char *what)
{
    counts c = {0};
    for (size_t i = 0; i < p->plan.n_steps; i++) {
        const ir_node *n = p->plan.steps[i].node;
        cg_kernel k;
        char why[256], name[128];
        int r = cg_cuda_kernel(&p->ir, n, &k, why, sizeof why);
        if (!cg_cuda_has_skeleton(n)) {
            cr_expect_eq(r, 0, "%s, step %zu (%s)", what, i, ir_op_name(n->op));
            cr_expect(strstr(why, "has no CUDA skeleton") != NULL, "%s", why);
            c.none++;
            continue;
        }
        cr_assert_eq(r, 1, "%s, step %zu (%s): %s", what, i,
                     ir_op_name(n->op), why);
        c.steps++;
        check_source(&k, n, &c);
        snprintf(name, sizeof name, "%s_step%zu.cu", what, i);
        compile_both(k.source, k.kind, name);
        cg_kernel_free(&k);
    }
    return c;
}

static counts check_text(const char *src, const char *entry)
{
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, entry, &p);
    cr_assert_eq(st, ACC_OK, "%s: %s: %s", entry, acc_status_string(st),
                 acc_last_error());
    counts c = check_program(p, entry);
    acc_program_free(p);
    return c;
}

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
    for (size_t i = 0; i < p->plan.n_steps; i++) {
        const ir_node *n = p->plan.steps[i].node;
        if (n->op != IR_GENERATE)
            continue;
        cg_kernel k;
        char why[256];
        cr_assert_eq(cg_cuda_kernel(&p->ir, n, &k, why, sizeof why), 1, "%s",
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
    for (size_t i = 0; i < p->plan.n_steps; i++) {
        const ir_node *n = p->plan.steps[i].node;
        if (n->op != IR_GENERATE)
            continue;
        cg_kernel k;
        char why[256];
        cr_assert_eq(cg_cuda_kernel(&p->ir, n, &k, why, sizeof why), 1, "%s",
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
    for (size_t i = 0; i < p->plan.n_steps; i++) {
        const ir_node *n = p->plan.steps[i].node;
        if (n->op != IR_GENERATE)
            continue;
        cg_kernel k;
        char why[256];
        cr_assert_eq(cg_cuda_kernel(&p->ir, n, &k, why, sizeof why), 1, "%s",
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

/* ---- scans and segmented folds --------------------------------------------- */

/* affine: associative, not commutative, on a tuple. */
static const char seg_scan_programs[] =
    "affine p q = (fst p * fst q, snd p * fst q + snd q)\n"
    "\n"
    "scanlRank3 (xs : Array 3 f64) : Array 3 f64 = scanl (+) 1.5 xs\n"
    "\n"
    "scanlPrimed (xs : Vector (f32, f32))\n"
    "  : (Vector (f32, f32), Scalar (f32, f32)) = scanl' affine (1.0, 0.0) xs\n"
    "\n"
    "scanl1Max (xs : Matrix i16) : Matrix i16 = scanl1 max xs\n"
    "\n"
    "scanrAffine (xs : Matrix (f64, f64)) : Matrix (f64, f64) =\n"
    "  scanr affine (1.0, 0.0) xs\n"
    "\n"
    "scanrPrimed (xs : Matrix i64) : (Matrix i64, Vector i64) =\n"
    "  scanr' (+) 0 xs\n"
    "\n"
    "scanr1And (xs : Vector bool) : Vector bool = scanr1 (&&) xs\n"
    "\n"
    "prescanlXor (xs : Matrix u8) : Matrix u8 = prescanl xor 0 xs\n"
    "\n"
    "postscanlAffine (xs : Vector (f64, f64)) : Vector (f64, f64) =\n"
    "  postscanl affine (2.0, 1.0) xs\n"
    "\n"
    "prescanrMin (xs : Array 3 i32) : Array 3 i32 = prescanr min 100 xs\n"
    "\n"
    "postscanrEmbedded (n : i64) (ys : Vector i32) : Matrix i32 =\n"
    "  postscanr (+) 5 (generate [n, 7] (\\[i, j] -> quot (ys ! [j]) (i32 i)))\n"
    "\n"
    "scanOfMap (xs : Matrix f32) : Matrix f32 = scanl (+) 0 (map (\\x -> x * x) xs)\n"
    "\n"
    "foldSegSum (m : Matrix f32) (s : Vector i64) : Matrix f32 =\n"
    "  foldSeg (+) 0 m s\n"
    "\n"
    "foldSegOffsets (xs : Vector (f64, f64)) (o : Vector i64) : Vector (f64, f64) =\n"
    "  foldSeg' affine (1.0, 0.0) xs o\n"
    "\n"
    "fold1SegRank3 (a : Array 3 i16) (s : Vector i64) : Array 3 i16 =\n"
    "  fold1Seg max a s\n"
    "\n"
    "mapAfterFoldSeg (m : Matrix i32) (s : Vector i64) : Matrix f64 =\n"
    "  map (\\x -> f64 x * 0.5) (foldSeg (+) 0 m s)\n"
    "\n"
    "scanlSegRank3 (xs : Array 3 f64) (s : Vector i64) : Array 3 f64 =\n"
    "  scanlSeg (+) 1.5 xs s\n"
    "\n"
    "scanlPrimedSeg (xs : Vector (f32, f32)) (s : Vector i64)\n"
    "  : (Vector (f32, f32), Vector (f32, f32)) =\n"
    "  scanl'Seg affine (1.0, 0.0) xs s\n"
    "\n"
    "scanl1SegMax (xs : Matrix i16) (s : Vector i64) : Matrix i16 =\n"
    "  scanl1Seg max xs s\n"
    "\n"
    "scanrSegAffine (xs : Matrix (f64, f64)) (s : Vector i64)\n"
    "  : Matrix (f64, f64) = scanrSeg affine (1.0, 0.0) xs s\n"
    "\n"
    "scanrPrimedSeg (xs : Matrix i64) (s : Vector i64)\n"
    "  : (Matrix i64, Matrix i64) = scanr'Seg (+) 0 xs s\n"
    "\n"
    "scanr1SegAnd (xs : Vector bool) (s : Vector i64) : Vector bool =\n"
    "  scanr1Seg (&&) xs s\n"
    "\n"
    "prescanlSegXor (xs : Matrix u8) (s : Vector i64) : Matrix u8 =\n"
    "  prescanlSeg xor 0 xs s\n"
    "\n"
    "postscanlSegAffine (xs : Vector (f64, f64)) (s : Vector i64)\n"
    "  : Vector (f64, f64) = postscanlSeg affine (2.0, 1.0) xs s\n"
    "\n"
    "prescanrSegMin (xs : Array 3 i32) (s : Vector i64) : Array 3 i32 =\n"
    "  prescanrSeg min 100 xs s\n"
    "\n"
    "postscanrSegEmbedded (n : i64) (ys : Vector i32) (s : Vector i64)\n"
    "  : Matrix i32 =\n"
    "  postscanrSeg (+) 5 (generate [n, 7] (\\[i, j] -> quot (ys ! [j]) (i32 i))) s\n"
    "\n"
    "mapAfterScan (xs : Matrix i32) : Matrix f64 =\n"
    "  map (\\x -> f64 x * 0.5) (scanl (+) 0 xs)\n"
    "\n"
    "mapsAfterScanr (xs : Vector i64) : Vector i64 =\n"
    "  map (\\(a, b) -> a - 2 * b) (map (\\v -> (v * 3 + 1, v)) (scanr (-) 0 xs))\n"
    "\n"
    "mapAfterScanSeg (xs : Vector i32) (s : Vector i64) : Vector i32 =\n"
    "  map (\\x -> quot 100 x) (scanl1Seg (+) xs s)\n";

/* The CUDA kernel of program `entry`'s only step with a skeleton. */
static acc_program *only_kernel(const char *entry, cg_kernel *k)
{
    acc_program *p = NULL;
    const ir_node *n = NULL;
    char why[256];
    cr_assert_eq(acc_compile_text(ctx, seg_scan_programs, (size_t)-1, entry,
                                  &p), ACC_OK, "%s: %s", entry, acc_last_error());
    for (size_t i = 0; i < p->plan.n_steps; i++)
        if (cg_cuda_has_skeleton(p->plan.steps[i].node)) {
            cr_assert_null(n, "%s: one kernel", entry);
            n = p->plan.steps[i].node;
        }
    cr_assert_not_null(n, "%s: a step with a CUDA skeleton", entry);
    cr_assert_eq(cg_cuda_kernel(&p->ir, n, k, why, sizeof why), 1, "%s", why);
    return p;
}

static void expect_define(const cg_kernel *k, const char *macro, int value,
                          const char *entry)
{
    char want[64];
    snprintf(want, sizeof want, "#define %s %d\n", macro, value);
    cr_expect(strstr(k->source, want) != NULL, "%s: %s", entry, want);
}

/* The kernel of `entry`: its kind and the values of its configuration
 * macros (names[i] is values[i]); then every step compiled. */
static counts check_config(const char *entry, cg_kind kind,
                           const char *const names[4], const int values[4])
{
    cg_kernel k;
    acc_program *p = only_kernel(entry, &k);
    cr_expect_eq(k.kind, kind, "%s", entry);
    for (int i = 0; i < 4 && names[i]; i++)
        expect_define(&k, names[i], values[i], entry);
    cg_kernel_free(&k);
    counts c = check_program(p, entry);
    cr_expect_eq(c.steps, 1, "%s", entry);
    acc_program_free(p);
    return c;
}

/* The scan of `entry`: its direction and form (scan.cu.in: 0 scanl/scanr,
 * 1 primed, 2 scanl1/scanr1, 3 prescan, 4 postscan), whether f may take
 * interleaved elements. */
static void check_scan(const char *entry, int left, int form, int strided)
{
    static const char *const names[4] = {"ACC_LEFT", "ACC_FORM",
                                         "ACC_STRIDED", NULL};
    const int values[4] = {left, form, strided, 0};
    check_config(entry, CG_KERNEL_SCAN, names, values);
}

Test(cuda_kernels, every_scan_kind)
{
    check_scan("scanlRank3", 1, 0, 1);
    check_scan("scanlPrimed", 1, 1, 0);
    check_scan("scanl1Max", 1, 2, 1);
    check_scan("scanrAffine", 0, 0, 0);
    check_scan("scanrPrimed", 0, 1, 1);
    check_scan("scanr1And", 0, 2, 1);
    check_scan("prescanlXor", 1, 3, 1);
    check_scan("postscanlAffine", 1, 4, 0);
    check_scan("prescanrMin", 0, 3, 1);
    check_scan("postscanrEmbedded", 0, 4, 1);
}

Test(cuda_kernels, scan_of_tuples_keeps_the_combiner_in_order)
{
    cg_kernel k;
    acc_program *p = only_kernel("scanrAffine", &k);
    /* two f64 leaves: 16 bytes, two elements a thread per tile */
    expect_define(&k, "ACC_ITEMS", 2, "scanrAffine");
    for (int l = 0; l < 2; l++) {
        char want[96];
        snprintf(want, sizeof want, "o.l%d = (double)__shfl_up_sync("
                 "ACC_FULL_MASK, v->l%d, off);", l, l);
        cr_expect(strstr(k.source, want) != NULL, "%s", want);
    }
    cg_kernel_free(&k);
    acc_program_free(p);
}

Test(cuda_kernels, scan_over_embedded_producers)
{
    cg_kernel k;
    acc_program *p = only_kernel("postscanrEmbedded", &k);
    cr_expect_eq(k.src->op, IR_GENERATE, "the generate is computed in the scan");
    cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL);
    cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL);
    cg_kernel_free(&k);
    acc_program_free(p);
    p = only_kernel("scanOfMap", &k);
    cr_expect_eq(k.src->op, IR_GENERATE, "the map is fused into the scan");
    cg_kernel_free(&k);
    counts c = check_program(p, "scanOfMap");
    cr_expect_eq(c.scan, 1);
    cr_expect_eq(c.generate, 0);
    acc_program_free(p);
}

static counts check_seg(const char *entry, int seeded, int strided)
{
    static const char *const names[4] = {"ACC_SEEDED", "ACC_STRIDED", NULL,
                                         NULL};
    const int values[4] = {seeded, strided, 0, 0};
    return check_config(entry, CG_KERNEL_FOLD_SEG, names, values);
}

Test(cuda_kernels, segmented_folds)
{
    check_seg("foldSegSum", 1, 1);
    check_seg("foldSegOffsets", 1, 0);
    check_seg("fold1SegRank3", 0, 1);
    counts c = check_seg("mapAfterFoldSeg", 1, 1);
    cr_expect_eq(c.map_fold_seg, 1, "the map is applied as foldSeg stores");
}

Test(cuda_kernels, smvm_is_one_segmented_fold_over_a_producer)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, ts_language4_source(), (size_t)-1,
                                  "smvm", &p), ACC_OK, "%s", acc_last_error());
    counts c = check_program(p, "smvm");
    cr_expect_eq(c.fold_seg, 1, "backpermute and zipWith fused into foldSeg");
    cr_expect_eq(c.generate, 0);
    for (size_t i = 0; i < p->plan.n_steps; i++) {
        const ir_node *n = p->plan.steps[i].node;
        cg_kernel k;
        char why[256];
        if (n->op != IR_FOLD_SEG)
            continue;
        cr_assert_eq(cg_cuda_kernel(&p->ir, n, &k, why, sizeof why), 1, "%s",
                     why);
        cr_expect_eq(k.src->op, IR_GENERATE);
        /* the producer reads the vector through the column indices */
        cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL);
        cg_kernel_free(&k);
    }
    acc_program_free(p);
}

Test(cuda_kernels, steps_without_a_cuda_skeleton_are_refused)
{
    static const char *const programs4[] = {"histogram", "blur"};
    for (size_t i = 0; i < 2; i++) {
        acc_program *p = NULL;
        cr_assert_eq(acc_compile_text(ctx, ts_language4_source(), (size_t)-1,
                                      programs4[i], &p), ACC_OK, "%s",
                     acc_last_error());
        counts c = check_program(p, programs4[i]);
        cr_expect_geq(c.none, 1, "%s: permute, stencil", programs4[i]);
        acc_program_free(p);
    }
}

Test(cuda_kernels, segment_length_picks_the_variant)
{
    /* segments of 7.9 elements on average: a thread each; of 8, a warp */
    cr_expect_eq(cg_cuda_fold_seg_entry(79, 10), CG_CUDA_SEG_THREAD);
    cr_expect_eq(cg_cuda_fold_seg_entry(80, 10), CG_CUDA_SEG_WARP);
    /* scans: a thread per pair below 32 elements on average, and always
     * when f may not be regrouped */
    cr_expect_eq(cg_cuda_scan_seg_entry(1, 319, 10), CG_CUDA_SCAN_SEG_THREAD);
    cr_expect_eq(cg_cuda_scan_seg_entry(1, 320, 10), CG_CUDA_SCAN_SEG_WARP);
    cr_expect_eq(cg_cuda_scan_seg_entry(0, 1 << 20, 10),
                 CG_CUDA_SCAN_SEG_THREAD);
    cr_expect_null(cg_cuda_entry_of(CG_CUDA_N_ENTRIES));
}

/* ---- segmented scans, maps after scans ---------------------------------------- */

/* The segmented scan of `entry`: its direction and form, and whether it
 * has the tail pair (an embedded producer). */
static void check_scan_seg(const char *entry, int left, int form, int tail)
{
    static const char *const names[4] = {"ACC_LEFT", "ACC_FORM",
                                         "ACC_SEGMENTED", "ACC_TAIL"};
    const int values[4] = {left, form, 1, tail};
    counts c = check_config(entry, CG_KERNEL_SCAN_SEG, names, values);
    cr_expect_eq(c.scan_seg, 1, "%s", entry);
}

Test(cuda_kernels, every_segmented_scan_kind)
{
    check_scan_seg("scanlSegRank3", 1, 0, 0);
    check_scan_seg("scanlPrimedSeg", 1, 1, 0);
    check_scan_seg("scanl1SegMax", 1, 2, 0);
    check_scan_seg("scanrSegAffine", 0, 0, 0);
    check_scan_seg("scanrPrimedSeg", 0, 1, 0);
    check_scan_seg("scanr1SegAnd", 0, 2, 0);
    check_scan_seg("prescanlSegXor", 1, 3, 0);
    check_scan_seg("postscanlSegAffine", 1, 4, 0);
    check_scan_seg("prescanrSegMin", 0, 3, 0);
    check_scan_seg("postscanrSegEmbedded", 0, 4, 1);
}

Test(cuda_kernels, segmented_scan_over_an_embedded_producer)
{
    cg_kernel k;
    acc_program *p = only_kernel("postscanrSegEmbedded", &k);
    cr_expect_eq(k.src->op, IR_GENERATE, "the generate is computed in the "
                 "scan");
    cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL);
    cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL);
    cr_expect_gt(k.checks, 0);
    /* ys is the only array the producer reads: the offsets are in[1] */
    cr_expect_eq(k.n_arrays, 1);
    expect_define(&k, "ACC_SEG_ARG", 1, "postscanrSegEmbedded");
    cg_kernel_free(&k);
    acc_program_free(p);
}

Test(cuda_kernels, maps_after_scans_are_applied_as_they_store)
{
    static const char *const entries[3] = {"mapAfterScan", "mapsAfterScanr",
                                           "mapAfterScanSeg"};
    for (int i = 0; i < 3; i++) {
        cg_kernel k;
        acc_program *p = only_kernel(entries[i], &k);
        cr_expect_eq(k.kind, i < 2 ? CG_KERNEL_SCAN : CG_KERNEL_SCAN_SEG,
                     "%s", entries[i]);
        cg_kernel_free(&k);
        counts c = check_program(p, entries[i]);
        cr_expect_eq(c.steps, 1, "%s: one kernel", entries[i]);
        cr_expect_eq(c.map_scan + c.map_scan_seg, 1, "%s: the maps are the "
                     "scan's store", entries[i]);
        cr_expect_eq(c.generate, 0, "%s", entries[i]);
        acc_program_free(p);
    }
    cg_kernel k; /* the map's division is checked as the scan stores */
    acc_program *p = only_kernel("mapAfterScanSeg", &k);
    const char *store = strstr(k.source, "ACC_FN int acc_store(");
    const char *next = store ? strstr(store, "ACC_FN int acc_store_total(")
                             : NULL;
    cr_assert(store && next);
    char *body = strndup(store, (size_t)(next - store));
    cr_expect(strstr(body, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL, "%s", body);
    free(body);
    cg_kernel_free(&k);
    acc_program_free(p);
}
