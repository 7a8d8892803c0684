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
#include "abi/src/program.h"
#include "support.h"
#include "text_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cuda_nvrtc nvrtc;
static acc_context *ctx;

/* cg_cuda_kernel's answer as these tests read it: 1 built, 0 no kernel
 * (why: the reason), -1 an error (why: its message). */
static int cuda_kernel(const ir_program *ir, const ir_node *n, cg_kernel *k,
                       char *why, size_t size)
{
    cg_outcome o;
    diag d;
    diag_clear(&d);
    if (cg_cuda_kernel(ir, n, k, &o, &d) != ACC_OK) {
        snprintf(why, size, "%.*s", (int)size - 1, d.message);
        return -1;
    }
    snprintf(why, size, "%s", o.built ? "" : o.why_not);
    return o.built;
}

static void setup(void)
{
    diag why;
    diag_clear(&why);
    if (cuda_load_nvrtc(&nvrtc, &why) != ACC_OK)
        cr_skip_test("NVRTC is not installed here (%s); nothing to check",
                     why.message);
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
    int stencil, map_over; /* map_over: generates mapping a host array */
    int permute, permute_expand, expand, mapped; /* mapped: maps after a
                                                    permute or an expand */
    int map_scan, scan_seg, map_scan_seg;
} counts;

enum { MAX_KINDS = 10, MAX_ENTRIES = 8 };

/* The entry points each kind of kernel defines (docs/CUDA.md). */
static const char *const expected_entries[MAX_KINDS][MAX_ENTRIES] = {
    [CG_KERNEL_GENERATE] = {"accel_generate"},
    [CG_KERNEL_FOLD] = {"accel_fold_rows", "accel_fold_part",
                        "accel_fold_finish"},
    [CG_KERNEL_FOLD_SEG] = {"accel_fold_seg_warp", "accel_fold_seg_thread",
                            "accel_fold_seg_tail"},
    [CG_KERNEL_SCAN] = {"accel_scan_rows", "accel_scan_part",
                        "accel_scan_finish", "accel_scan_block",
                        "accel_scan_thread"},
    [CG_KERNEL_SCAN_SEG] = {"accel_scan_seg_warp", "accel_scan_seg_thread"},
    [CG_KERNEL_STENCIL] = {"accel_stencil_interior", "accel_stencil_border",
                           "accel_stencil_checks"},
    [CG_KERNEL_PERMUTE] = {"accel_permute_defaults", "accel_permute_map",
                           "accel_permute_source", "accel_permute_private"},
    [CG_KERNEL_PERMUTE_EXPAND] = {"accel_permute_defaults",
                                  "accel_permute_map", "accel_expand_sizes",
                                  "accel_expand_scan", "accel_expand_offsets",
                                  "accel_expand_threads",
                                  "accel_expand_blocks"},
    [CG_KERNEL_EXPAND] = {"accel_expand_sizes", "accel_expand_scan",
                          "accel_expand_offsets", "accel_expand_threads",
                          "accel_expand_blocks"},
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

/* The text of the function or PTX entry that `head` begins, up to its
 * closing brace at the start of a line (NULL when absent; free it). */
static char *body_of(const char *text, const char *head)
{
    const char *b = strstr(text, head);
    const char *e = b ? strstr(b, "\n}") : NULL;
    return e ? strndup(b, (size_t)(e - b)) : NULL;
}

/* In the compiled code too, a stencil's interior kernel calls nothing (in
 * particular not acc_read0/1, which stay out of line), and its border
 * kernel calls acc_read0/1 when its source does. */
static void check_stencil_ptx(const char *ptx, const char *src,
                              const char *name)
{
    char *in = body_of(ptx, ".entry accel_stencil_interior(");
    char *bo = body_of(ptx, ".entry accel_stencil_border(");
    char *bsrc = body_of(src, "ACC_FN int acc_border(");
    cr_assert(in && bo && bsrc, "%s: the interior and border entries", name);
    cr_expect_eq(count_of(in, "call.uni"), 0, "%s: the interior calls", name);
    cr_expect_eq(count_of(in, "acc_read"), 0, "%s", name);
    cr_expect_eq(count_of(bo, "acc_read") > 0, count_of(bsrc, "acc_read") > 0,
                 "%s: the border reads through acc_read0/1", name);
    free(in);
    free(bo);
    free(bsrc);
}

/* The PTX defines exactly the kind's entry points, and the launch
 * contract's table says what they are: their names, their parameters,
 * which ones shuffle (and so need blocks of whole warps). */
static void check_entries(const char *ptx, cg_kind kind, const char *name)
{
    char want[96];
    int n = 0;
    for (; n < MAX_ENTRIES && expected_entries[kind][n]; n++) {
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
            if (kind == CG_KERNEL_STENCIL)
                check_stencil_ptx(image.bytes, src, name);
        }
        cuda_image_free(&image);
    }
}

/* A stencil's interior code has no bounds check and no boundary logic;
 * only the border resolves neighbours (acc_read0/1, acc_resolve).  The
 * sides follow the arrays the scalar code reads. */
static void check_stencil_source(const cg_kernel *k)
{
    char want[64];
    char *in = body_of(k->source, "ACC_FN int acc_interior(");
    char *bo = body_of(k->source, "ACC_FN int acc_border(");
    cr_assert(in && bo, "acc_interior and acc_border");
    cr_expect_eq(count_of(in, "acc_read"), 0, "%s", in);
    cr_expect_eq(count_of(in, "acc_resolve"), 0, "%s", in);
    cr_expect_eq(count_of(in, "acc_fix_coord"), 0, "%s", in);
    cr_expect_eq(count_of(in, "acc_outside"), 0, "%s", in);
    cr_expect_eq(count_of(bo, "acc_elem"), 0, "the border resolves first");
    snprintf(want, sizeof want, "#define ACC_SRC %zu\n", k->n_arrays);
    cr_expect(strstr(k->source, want) != NULL, "%s", want);
    free(in);
    free(bo);
}

static void expect_define(const cg_kernel *k, const char *macro, int value,
                          const char *entry)
{
    char want[64];
    snprintf(want, sizeof want, "#define %s %d\n", macro, value);
    cr_expect(strstr(k->source, want) != NULL, "%s: %s", entry, want);
}

/* Permute, permute' over an expand, expand: the expansion is there
 * exactly when there is one, with the host's constants. */
static void check_permute_source(const cg_kernel *k, const ir_node *n,
                                 counts *c)
{
    int expanding = k->kind != CG_KERNEL_PERMUTE;
    c->permute += k->kind == CG_KERNEL_PERMUTE;
    c->permute_expand += k->kind == CG_KERNEL_PERMUTE_EXPAND;
    c->expand += k->kind == CG_KERNEL_EXPAND;
    c->mapped += n->op == IR_MAP;
    cr_expect_eq(strstr(k->source, "BEGIN expansion.cuh.in") != NULL,
                 expanding);
    cr_expect_eq(strstr(k->source, "__shfl_up_sync") != NULL, expanding);
    if (expanding)
        expect_define(k, "ACC_EXPAND_ITEMS", CG_CUDA_EXPAND_ITEMS, "expand");
    if (k->kind != CG_KERNEL_EXPAND) {
        expect_define(k, "ACC_EXPANDED", expanding, "permute");
        expect_define(k, "ACC_PRIVATE_BYTES", CG_CUDA_PERMUTE_PRIVATE_BYTES,
                      "permute");
        /* out-of-range targets reach the error slot */
        cr_expect(strstr(k->source, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL);
    }
}

/* What each kind of kernel's source must contain. */
static void check_source(const cg_kernel *k, const ir_node *n, counts *c)
{
    switch (k->kind) {
    case CG_KERNEL_GENERATE:
        c->generate++;
        c->map_over += k->src != NULL;
        cr_expect_eq(k->src != NULL, n->op == IR_MAP, "a map reads its array");
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
    case CG_KERNEL_STENCIL:
        c->stencil++;
        check_stencil_source(k);
        break;
    case CG_KERNEL_PERMUTE:
    case CG_KERNEL_PERMUTE_EXPAND:
    case CG_KERNEL_EXPAND:
        check_permute_source(k, n, c);
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
    for (size_t i = 0; i < p->c.sched.n_all; i++) {
        const ir_node *n = p->c.sched.all[i]->node;
        cg_kernel k;
        char why[256], name[128];
        int r = cuda_kernel(&p->c.ir, n, &k, why, sizeof why);
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

/* The CUDA kernel of entry point `entry` of text `src`: its only step
 * with a skeleton. */
static acc_program *only_kernel_of(const char *src, const char *entry,
                                   cg_kernel *k)
{
    acc_program *p = NULL;
    const ir_node *n = NULL;
    char why[256];
    cr_assert_eq(acc_compile_text(ctx, src, (size_t)-1, entry, &p), ACC_OK,
                 "%s: %s", entry, acc_last_error());
    for (size_t i = 0; i < p->c.sched.n_all; i++)
        if (cg_cuda_has_skeleton(p->c.sched.all[i]->node)) {
            cr_assert_null(n, "%s: one kernel", entry);
            n = p->c.sched.all[i]->node;
        }
    cr_assert_not_null(n, "%s: a step with a CUDA skeleton", entry);
    cr_assert_eq(cuda_kernel(&p->c.ir, n, k, why, sizeof why), 1, "%s", why);
    return p;
}

static acc_program *only_kernel(const char *entry, cg_kernel *k)
{
    return only_kernel_of(seg_scan_programs, entry, k);
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
    for (size_t i = 0; i < p->c.sched.n_all; i++) {
        const ir_node *n = p->c.sched.all[i]->node;
        cg_kernel k;
        char why[256];
        if (n->op != IR_FOLD_SEG)
            continue;
        cr_assert_eq(cuda_kernel(&p->c.ir, n, &k, why, sizeof why), 1, "%s",
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

/* ---- stencils ---------------------------------------------------------------- */

/* The CUDA kernel of the only step of program `entry` of `src`. */
static acc_program *one_step(const char *src, const char *entry, cg_kernel *k)
{
    acc_program *p = NULL;
    char why[256];
    cr_assert_eq(acc_compile_text(ctx, src, (size_t)-1, entry, &p), ACC_OK,
                 "%s: %s", entry, acc_last_error());
    cr_assert_eq(p->c.sched.n_all, 1, "%s: one step", entry);
    cr_assert_eq(cuda_kernel(&p->c.ir, p->c.sched.all[0]->node, k, why,
                                sizeof why), 1, "%s: %s", entry, why);
    return p;
}

/* The neighbourhood pattern of a window (names x0, x1, ... in row-major
 * order, the outermost dimension outermost) appended to b. */
static void window_pattern(char *b, size_t size, int rank, const int *w,
                           int *next)
{
    strncat(b, "(", size - strlen(b) - 1);
    for (int i = 0; i < w[0]; i++) {
        char name[16];
        if (i)
            strncat(b, ", ", size - strlen(b) - 1);
        if (rank > 1) {
            window_pattern(b, size, rank - 1, w + 1, next);
            continue;
        }
        snprintf(name, sizeof name, "x%d", (*next)++);
        strncat(b, name, size - strlen(b) - 1);
    }
    strncat(b, ")", size - strlen(b) - 1);
}

typedef struct stencil_case {
    const char *name, *type, *boundary;
    int rank, w[3];
    int column; /* f reads only the centre column of the innermost dimension */
    acc_boundary b;
} stencil_case;

/* Program c->name: stencil of a weighted sum of the neighbours f reads
 * (each weight a literal of the element type). */
static void stencil_text(const stencil_case *c, char *b, size_t size)
{
    int next = 0, window = 1;
    for (int d = 0; d < c->rank; d++)
        window *= c->w[d];
    snprintf(b, size, "%s (xs : Array %d %s) : Array %d %s =\n  stencil (\\",
             c->name, c->rank, c->type, c->rank, c->type);
    window_pattern(b, size, c->rank, c->w, &next);
    strncat(b, " ->\n    0", size - strlen(b) - 1);
    for (int k = 0; k < window; k++) {
        char term[48];
        int inner = c->w[c->rank - 1];
        if (c->column && k % inner != inner / 2)
            continue;
        snprintf(term, sizeof term, " + x%d * %s%d%s", k,
                 c->type[0] == 'f' ? "(" : "", k % 7 + 1,
                 c->type[0] == 'f' ? ".5)" : "");
        strncat(b, term, size - strlen(b) - 1);
    }
    snprintf(b + strlen(b), size - strlen(b), ") %s xs\n", c->boundary);
}

/* Stencil case c: one step, a stencil kernel compiled by NVRTC whose
 * interior has no boundary code; the boundary, rank and the offsets the
 * host will derive the interior box from. */
static void check_stencil_case(const stencil_case *c)
{
    static char src[16384];
    cg_kernel k;
    stencil_text(c, src, sizeof src);
    acc_program *p = one_step(src, c->name, &k);
    cr_expect_eq(k.kind, CG_KERNEL_STENCIL, "%s", c->name);
    expect_define(&k, "ACC_BOUNDARY0", (int)c->b, c->name);
    expect_define(&k, "ACC_RANK", c->rank, c->name);
    expect_define(&k, "ACC_SIDES", 1, c->name);
    for (int d = 0; d < c->rank; d++) {
        int r = c->column && d == c->rank - 1 ? 0 : c->w[d] / 2;
        cr_expect(k.stencil_reach[0][0][d] == -r && k.stencil_reach[0][1][d] == r,
                  "%s: dimension %d reaches %d..%d", c->name, d,
                  k.stencil_reach[0][0][d], k.stencil_reach[0][1][d]);
    }
    cg_kernel_free(&k);
    counts n = check_program(p, c->name);
    cr_expect_eq(n.stencil, 1, "%s", c->name);
    acc_program_free(p);
}

Test(cuda_kernels, blur_of_the_language_reference)
{
    cg_kernel k;
    acc_program *p = one_step(ts_language4_source(), "blur", &k);
    cr_expect_eq(k.kind, CG_KERNEL_STENCIL);
    expect_define(&k, "ACC_BOUNDARY0", ACC_BOUNDARY_CLAMP, "blur");
    /* the border reads all nine neighbours through the boundary; the
     * interior loads them from three row pointers */
    char *bo = body_of(k.source, "ACC_FN int acc_border(");
    char *in = body_of(k.source, "ACC_FN int acc_interior(");
    cr_assert(bo && in);
    cr_expect_eq(count_of(bo, "acc_read0(A, acc_pos"), 9, "%s", bo);
    cr_expect_eq(count_of(in, "const float *const acc_r0_0_"), 3, "%s", in);
    cr_expect_eq(count_of(in, "= acc_r0_0_"), 9, "%s", in);
    free(bo);
    free(in);
    cr_expect_eq(k.checks, 0, "no runtime checks: the slot is not read");
    cg_kernel_free(&k);
    counts c = check_program(p, "blur");
    cr_expect_eq(c.stencil, 1);
    acc_program_free(p);
}

Test(cuda_kernels, stencil_every_boundary)
{
    static const stencil_case cases[5] = {
        {"clamped", "f64", "clamp", 2, {3, 3}, 0, ACC_BOUNDARY_CLAMP},
        {"mirrored", "f64", "mirror", 2, {3, 3}, 0, ACC_BOUNDARY_MIRROR},
        {"wrapped", "f64", "wrap", 2, {3, 3}, 0, ACC_BOUNDARY_WRAP},
        {"byFunction", "f64",
         "(function (\\[i, j] -> f64 (i * 100 + j)))", 2, {3, 3}, 0,
         ACC_BOUNDARY_FUNCTION},
        {"byConstant", "f64", "(constant 0.5)", 2, {3, 3}, 0,
         ACC_BOUNDARY_CONSTANT}};
    for (int i = 0; i < 5; i++)
        check_stencil_case(&cases[i]);
}

Test(cuda_kernels, stencil_widths_and_ranks)
{
    static const stencil_case cases[4] = {
        {"wide5x5", "i32", "mirror", 2, {5, 5}, 0, ACC_BOUNDARY_MIRROR},
        /* 7x3 of which f reads the centre column: a 7x1 window */
        {"column7x1", "f32", "wrap", 2, {7, 3}, 1, ACC_BOUNDARY_WRAP},
        {"line9", "i64", "clamp", 1, {9}, 0, ACC_BOUNDARY_CLAMP},
        {"cube", "f32", "(constant 2.5)", 3, {3, 5, 3}, 0,
         ACC_BOUNDARY_CONSTANT}};
    for (int i = 0; i < 4; i++)
        check_stencil_case(&cases[i]);
}

Test(cuda_kernels, stencil2_with_two_boundaries)
{
    cg_kernel k;
    acc_program *p = one_step(ts_stencil_source(), "twoBoundaries", &k);
    expect_define(&k, "ACC_SIDES", 2, "twoBoundaries");
    expect_define(&k, "ACC_BOUNDARY0", ACC_BOUNDARY_MIRROR, "twoBoundaries");
    expect_define(&k, "ACC_BOUNDARY1", ACC_BOUNDARY_CONSTANT, "twoBoundaries");
    /* side 1's constant is leaf 0 of its seed block */
    cr_expect(strstr(k.source, "A->seed[ACC_MAX_COMPONENTS * 1 + 0].i") != NULL);
    cr_expect(strstr(k.source, "acc_read1(A, acc_pos") != NULL);
    cg_kernel_free(&k);
    counts c = check_program(p, "twoBoundaries");
    cr_expect_eq(c.stencil, 1);
    acc_program_free(p);
    p = one_step(ts_stencil_source(), "functionSide", &k);
    expect_define(&k, "ACC_BOUNDARY1", ACC_BOUNDARY_FUNCTION, "functionSide");
    /* side 1 is 5 wide; f reads its ends only */
    cr_expect(k.stencil_reach[1][0][0] == -2 && k.stencil_reach[1][1][0] == 2);
    cr_expect(k.stencil_reach[0][0][0] == -1 && k.stencil_reach[0][1][0] == 1);
    expect_define(&k, "ACC_FOCUS1", 0, "functionSide");
    cg_kernel_free(&k);
    c = check_program(p, "functionSide");
    cr_expect_eq(c.stencil, 1);
    acc_program_free(p);
}

/* f reads the bool leaf of the focus only: the neighbours' bool leaves
 * are never loaded. */
Test(cuda_kernels, stencil_tuple_elements_read_what_f_uses)
{
    cg_kernel k;
    acc_program *p = one_step(ts_stencil_source(), "tupleStencil", &k);
    cr_expect(strstr(k.source, "x0_1_2 = ") != NULL, "the focus's bool");
    cr_expect(strstr(k.source, "x0_0_2 = ") == NULL, "no other bool");
    cr_expect(strstr(k.source, "x0_2_2 = ") == NULL, "no other bool");
    cr_expect(strstr(k.source, "x0_0_0 = ") != NULL, "a's f32");
    cr_expect(strstr(k.source, "x0_0_1 = ") != NULL, "p's i32");
    cg_kernel_free(&k);
    counts c = check_program(p, "tupleStencil");
    cr_expect_eq(c.stencil, 1);
    acc_program_free(p);
}

Test(cuda_kernels, stencil_function_boundary_with_checks)
{
    cg_kernel k;
    acc_program *p = one_step(ts_stencil_source(), "checkedBoundary", &k);
    cr_expect_gt(k.checks, 0);
    char *in = body_of(k.source, "ACC_FN int acc_interior(");
    char *out = body_of(k.source, "ACC_FN int acc_outside0(");
    cr_assert(in && out);
    cr_expect(strstr(out, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL, "g's check");
    cr_expect(strstr(in, "ACC_FAIL(") == NULL, "no check in the interior");
    free(in);
    free(out);
    cr_expect_eq(k.stencil_checks[0], 0, "no producer");
    cg_kernel_free(&k);
    check_program(p, "checkedBoundary");
    acc_program_free(p);
}

/* The producer is computed inside the stencil (one kernel), with its
 * checks; the elements the stencil may skip get the check pass: all of
 * them when f does not read the focus, else those outside the result. */
Test(cuda_kernels, stencil_over_an_embedded_producer_with_checks)
{
    static const char *const entries[2] = {"producerChecks", "producerFocus"};
    for (int i = 0; i < 2; i++) {
        cg_kernel k;
        acc_program *p = one_step(ts_stencil_source(), entries[i], &k);
        cr_expect_eq(k.kind, CG_KERNEL_STENCIL);
        cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL);
        cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL);
        cr_expect_eq(k.stencil_checks[0], i == 0 ? 2 : 1, "%s", entries[i]);
        cr_expect_eq(k.n_arrays, 1, "ys, read by the producer");
        /* the interior computes the producer's elements, no boundary */
        char *in = body_of(k.source, "ACC_FN int acc_interior(");
        cr_assert_not_null(in);
        cr_expect(strstr(in, "acc_elem0(A, acc_pos, acc_c") != NULL, "%s", in);
        free(in);
        cg_kernel_free(&k);
        counts c = check_program(p, entries[i]);
        cr_expect_eq(c.stencil, 1);
        cr_expect_eq(c.generate, 0, "the producer is embedded");
        acc_program_free(p);
    }
}

/* Maps over arrays without a kernel of their own: a generate reading the
 * array the host evaluates (as on the CPU). */
Test(cuda_kernels, maps_over_host_arrays)
{
    static const struct {
        const char *entry;
        ir_op base;
    } cases[5] = {{"mapOverStencil", IR_STENCIL}, {"mapOverComponent", IR_GET},
                  {"mapOverReshape", IR_RESHAPE}, {"mapOverUnit", IR_UNIT},
                  {"mapOverAcond", IR_ACOND}};
    for (int i = 0; i < 5; i++) {
        acc_program *p = NULL;
        cr_assert_eq(acc_compile_text(ctx, ts_stencil_source(), (size_t)-1,
                                      cases[i].entry, &p), ACC_OK, "%s: %s",
                     cases[i].entry, acc_last_error());
        const ir_node *map = NULL;
        for (size_t s = 0; s < p->c.sched.n_all; s++)
            if (p->c.sched.all[s]->node->op == IR_MAP)
                map = p->c.sched.all[s]->node;
        cr_assert_not_null(map, "%s: a map step", cases[i].entry);
        cg_kernel k;
        char why[256];
        cr_assert_eq(cuda_kernel(&p->c.ir, map, &k, why, sizeof why), 1,
                     "%s: %s", cases[i].entry, why);
        cr_expect_eq(k.kind, CG_KERNEL_GENERATE);
        cr_assert_not_null(k.src);
        cr_expect_eq(k.src->op, cases[i].base, "%s maps over %s",
                     cases[i].entry, ir_op_name(k.src->op));
        cr_expect_eq(k.n_arrays, 1, "%s: the array is the argument",
                     cases[i].entry);
        cr_expect_eq(k.arrays[0], k.src);
        cg_kernel_free(&k);
        counts c = check_program(p, cases[i].entry);
        cr_expect_eq(c.map_over, 1, "%s", cases[i].entry);
        cr_expect_eq(c.stencil, 0, "%s: a stencil under a map is not a step",
                     cases[i].entry);
        acc_program_free(p);
    }
}

/* ---- permute, permute' and expand ---------------------------------------- */

/* The permute or expand kernel of `entry` (the only step with a
 * skeleton): its kind and configuration (names[i] is values[i]); then
 * every step of the program compiled. */
static counts check_permute(const char *entry, cg_kind kind,
                            const char *const names[3], const int values[3])
{
    cg_kernel k;
    acc_program *p = only_kernel_of(ts_permute_source(), entry, &k);
    cr_expect_eq(k.kind, kind, "%s", entry);
    for (int i = 0; i < 3 && names && names[i]; i++)
        expect_define(&k, names[i], values[i], entry);
    cg_kernel_free(&k);
    counts c = check_program(p, entry);
    cr_expect_eq(c.steps, 1, "%s: one kernel", entry);
    cr_expect_eq(c.none, 0, "%s: nothing refused", entry);
    acc_program_free(p);
    return c;
}

/* How a permute combines: ACC_ATOMIC (32, 64 or 0: locks), ACC_FETCH (1
 * add, 2 and, 3 or, 4 xor, 0 none), and what the source must call. */
static void check_combining(const char *entry, int atomic, int fetch,
                            const char *call)
{
    static const char *const names[3] = {"ACC_ATOMIC", "ACC_FETCH",
                                         "ACC_EXPANDED"};
    const int values[3] = {atomic, fetch, 0};
    cg_kernel k;
    check_permute(entry, CG_KERNEL_PERMUTE, names, values);
    acc_program *p = only_kernel_of(ts_permute_source(), entry, &k);
    const char *body = strstr(k.source, "BEGIN permute.cu.in");
    cr_assert_not_null(body);
    /* the path the preprocessor keeps: past the #if of its width */
    const char *path = atomic ? strstr(body, "#if ACC_ATOMIC\n")
                              : strstr(body, "__device__ unsigned int acc_lock[");
    cr_expect_not_null(path, "%s", entry);
    cr_expect(strstr(k.source, call) != NULL, "%s calls %s", entry, call);
    cg_kernel_free(&k);
    acc_program_free(p);
}

Test(cuda_kernels, permute_fetch_and_op_on_32_and_64_bits)
{
    counts c = check_text(ts_language4_source(), "histogram");
    cr_expect_eq(c.permute, 1, "histogram: one permute kernel, the map "
                 "(\\_ -> 1) embedded");
    cr_expect_eq(c.none, 0);
    check_combining("histo64", 64, 1, "atomicAdd(cell, x)");
    check_combining("andBits", 32, 2, "atomicAnd(cell, x)");
    check_combining("orBits", 64, 3, "atomicOr(cell, x)");
    check_combining("xorBits", 32, 4, "atomicXor(cell, x)");
}

Test(cuda_kernels, permute_compare_and_swap_for_other_combiners)
{
    check_combining("sumF32", 32, 0, "__float_as_uint(x)");
    check_combining("maxF64", 64, 0, "__double_as_longlong(x)");
    check_combining("maxI32", 32, 0, "atomicCAS(cell, old, now)");
}

Test(cuda_kernels, permute_locks_for_tuples_narrow_leaves_and_bool)
{
    check_combining("tupleTarget", 0, 0, "atomicCAS(l, 0u, 1u)");
    check_combining("sumI8", 0, 0, "((ACC_CELL const int8_t *)b[0])[i]");
    check_combining("anyBool", 0, 0, "((ACC_CELL uint8_t *)b[0])[i] = e->l0");
}

Test(cuda_kernels, permute_targets_sources_and_defaults)
{
    static const char *const ranks[3] = {"ACC_TGT_RANK", "ACC_SRC_RANK",
                                         "ACC_SRC_INDEX"};
    const int scalar[3] = {0, 1, 0}, matrix[3] = {2, 1, 1}, vector[3] = {1, 2, 1};
    check_permute("toScalar", CG_KERNEL_PERMUTE, ranks, scalar);
    check_permute("toMatrix", CG_KERNEL_PERMUTE, ranks, matrix);
    check_permute("fromMatrix", CG_KERNEL_PERMUTE, ranks, vector);
    /* defaults computed by an embedded generate that reads its index */
    static const char *const defs[3] = {"ACC_DEF_INDEX", NULL, NULL};
    const int reads[3] = {1, 0, 0};
    check_permute("ignoring", CG_KERNEL_PERMUTE, defs, reads);
    check_permute("pairs", CG_KERNEL_PERMUTE, NULL, NULL);
}

Test(cuda_kernels, permute_with_maps_after_it)
{
    counts c = check_permute("emptyBins", CG_KERNEL_PERMUTE, NULL, NULL);
    cr_expect_eq(c.mapped, 1, "the map is applied by accel_permute_map");
    c = check_permute("twoMapsAfter", CG_KERNEL_PERMUTE, NULL, NULL);
    cr_expect_eq(c.mapped, 1, "a chain of maps is one map");
}

Test(cuda_kernels, sieve_is_one_kernel_over_the_expansion)
{
    static const char *const names[3] = {"ACC_EXPANDED", "ACC_FETCH",
                                         "ACC_TGT_RANK"};
    const int values[3] = {1, 1, 1};
    cg_kernel k;
    acc_program *p = only_kernel_of(ts_sieve_source(), "sieveMarks", &k);
    cr_expect_eq(k.kind, CG_KERNEL_PERMUTE_EXPAND);
    cr_expect_eq(k.src->op, IR_EXPAND, "the expand is embedded");
    for (int i = 0; i < 3; i++)
        expect_define(&k, names[i], values[i], "sieveMarks");
    /* quot (n - p) p in the size function */
    cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL);
    cg_kernel_free(&k);
    counts c = check_program(p, "sieveMarks");
    cr_expect_eq(c.permute_expand, 1);
    cr_expect_eq(c.steps, 1, "no index or value arrays in between");
    acc_program_free(p);
    c = check_permute("mappedSieve", CG_KERNEL_PERMUTE_EXPAND, names, values);
    cr_expect_eq(c.mapped, 1);
    static const char *const tuple[3] = {"ACC_EXPANDED", "ACC_ATOMIC", NULL};
    const int locks[3] = {1, 0, 0};
    check_permute("tupleSieve", CG_KERNEL_PERMUTE_EXPAND, tuple, locks);
}

Test(cuda_kernels, standalone_expand_with_and_without_a_map)
{
    counts c = check_permute("spread", CG_KERNEL_EXPAND, NULL, NULL);
    cr_expect_eq(c.expand, 1);
    cr_expect_eq(c.mapped, 0);
    c = check_permute("spreadMapped", CG_KERNEL_EXPAND, NULL, NULL);
    cr_expect_eq(c.mapped, 1, "the map is applied as results are stored");
    c = check_permute("expandTuples", CG_KERNEL_EXPAND, NULL, NULL);
    cr_expect_eq(c.expand, 1);
}

Test(cuda_kernels, expansion_and_privatisation_choices)
{
    /* sizes of at most 64 within 4x the mean: a thread per source */
    cr_expect(cg_cuda_expand_per_thread(100, 400, 16));
    cr_expect(!cg_cuda_expand_per_thread(100, 399, 16), "spread over 4x");
    cr_expect(!cg_cuda_expand_per_thread(100, 6500, 65), "a size over 64");
    cr_expect(cg_cuda_expand_per_thread(3, INT64_MAX / 2, 64));
    /* a part (one warp) per 32 sources, at most 2048 */
    cr_expect_eq(cg_cuda_expand_parts(1), 1);
    cr_expect_eq(cg_cuda_expand_parts(100), 4);
    cr_expect_eq(cg_cuda_expand_parts(INT64_MAX / 2), CG_CUDA_EXPAND_MAX_PARTS);
    /* 16 KiB of shared memory: 4096 cells of 4 bytes, 2048 of 8; 8 source
     * elements a cell a block */
    cr_expect_eq(cg_cuda_permute_private_blocks(10, 100000, 4), 1250);
    cr_expect_eq(cg_cuda_permute_private_blocks(10, 79, 4), 0);
    cr_expect_eq(cg_cuda_permute_private_blocks(4096, 1 << 20, 4), 32);
    cr_expect_eq(cg_cuda_permute_private_blocks(4097, 1 << 20, 4), 0);
    cr_expect_eq(cg_cuda_permute_private_blocks(2049, 1 << 20, 8), 0);
    cr_expect_eq(cg_cuda_permute_private_blocks(0, 1 << 20, 8), 0);
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

/* ---- runtime checks of fused reads and of unused values -------------------- */

/* The CUDA kernels come from the same emitter as the CPU ones: a read of
 * an inlined producer keeps a bounds check (fusion), and a value nobody
 * uses keeps its checks (docs/LANGUAGE.md, "Runtime errors"): in the
 * source, then compiled by NVRTC. */
static const char check_programs[] =
    "fusedRead (k : i64) : Vector f32 =\n"
    "  let ys = map (\\x -> x * 2.0) (generate [5] (\\[i] -> f32 i))\n"
    "  in generate [5] (\\[i] -> ys ! [i + k])\n"
    "\n"
    "fusedLinearRead (k : i64) (m : Matrix f32) : Scalar f32 =\n"
    "  let ys = map (\\x -> x + 1.0) m\n"
    "  in fold (+) 0 (generate [3] (\\[i] -> ys !! (i + k)))\n"
    "\n"
    "unusedBackpermute (k : i64) : Vector i64 =\n"
    "  backpermute [3] (\\[i] -> [i + k]) (fill [0] 5)\n"
    "\n"
    "unusedLeaves (d : i64) (xs : Vector i64) : Vector i64 =\n"
    "  map (\\(q, s, r, x) -> x)\n"
    "      (map (\\x -> (quot x d, shiftL x d, xs ! [x], x)) xs)\n"
    "\n"
    "unusedSide (k : i64) (xs : Vector i64) : Vector i64 =\n"
    "  let ys = map (\\x -> x + 1) xs\n"
    "  in stencil2 (\\(a, b, c) (d, e, f) -> b) clamp xs\n"
    "              clamp (generate [size xs] (\\[i] -> ys ! [i + k]))\n"
    "\n"
    "unusedNeighbours (k : i64) (xs : Vector i64) : Vector i64 =\n"
    "  let ys = map (\\x -> x + 1) xs\n"
    "  in stencil (\\(a, b, c) -> b) (function (\\[i] -> ys ! [i + k])) xs\n";

/* The one kernel of `entry` has a check of each kind in `kinds`
 * ("ACC_KERR_BOUNDS", ...; NULL-terminated); it compiles. */
static cg_kernel check_kinds(const char *entry, const char *const *kinds,
                             acc_program **p)
{
    cg_kernel k;
    *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, check_programs, (size_t)-1, entry, p),
                 ACC_OK, "%s: %s", entry, acc_last_error());
    size_t last = (*p)->c.sched.n_all - 1;
    char why[256], want[64];
    cr_assert_eq(cuda_kernel(&(*p)->c.ir, (*p)->c.sched.all[last]->node, &k,
                                why, sizeof why), 1, "%s: %s", entry, why);
    for (size_t i = 0; kinds[i]; i++) {
        snprintf(want, sizeof want, "ACC_FAIL(%s", kinds[i]);
        cr_expect(strstr(k.source, want) != NULL, "%s: %s", entry, want);
    }
    check_program(*p, entry);
    return k;
}

Test(cuda_kernels, reads_of_fused_producers_are_checked)
{
    static const char *const bounds[] = {"ACC_KERR_BOUNDS", NULL};
    acc_program *p;
    cg_kernel k = check_kinds("fusedRead", bounds, &p);
    cr_expect_eq(p->c.sched.n_all, 1, "ys is inlined");
    cr_expect_eq(k.checks, 1);
    cg_kernel_free(&k);
    acc_program_free(p);
    k = check_kinds("fusedLinearRead", bounds, &p);
    cr_expect_eq(k.kind, CG_KERNEL_FOLD);
    /* the position against ys's size (before it is unravelled): one
     * unsigned comparison with the product of m's extents */
    cr_expect(strstr(k.source, "< (uint64_t)t") != NULL, "%s", k.source);
    cg_kernel_free(&k);
    acc_program_free(p);
}

Test(cuda_kernels, unused_values_keep_their_checks)
{
    static const char *const bounds[] = {"ACC_KERR_BOUNDS", NULL};
    static const char *const all[] = {"ACC_KERR_DIV_ZERO", "ACC_KERR_SHIFT",
                                      "ACC_KERR_BOUNDS", NULL};
    acc_program *p;
    cg_kernel k = check_kinds("unusedBackpermute", bounds, &p);
    cg_kernel_free(&k);
    acc_program_free(p);
    k = check_kinds("unusedLeaves", all, &p);
    /* checked, not computed */
    cr_expect(strstr(k.source, "acc_quot_i64(") == NULL, "%s", k.source);
    cr_expect(strstr(k.source, "acc_shiftl_i64(") == NULL, "%s", k.source);
    cg_kernel_free(&k);
    acc_program_free(p);
}

/* The interpreter computes every element of a stencil's producer and
 * applies g to every neighbour out of range, used by f or not. */
Test(cuda_kernels, stencil_checks_of_what_f_ignores)
{
    static const char *const bounds[] = {"ACC_KERR_BOUNDS", NULL};
    acc_program *p;
    cg_kernel k = check_kinds("unusedSide", bounds, &p);
    cr_expect_eq(k.stencil_checks[1], 2, "a check pass over the whole side");
    char *e1 = body_of(k.source, "ACC_FN int acc_elem1(");
    cr_assert_not_null(e1);
    cr_expect(strstr(e1, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL, "%s", e1);
    free(e1);
    cg_kernel_free(&k);
    acc_program_free(p);
    k = check_kinds("unusedNeighbours", bounds, &p);
    char *bo = body_of(k.source, "ACC_FN int acc_border(");
    char *co = body_of(k.source, "ACC_FN int acc_check_outside0(");
    cr_assert(bo && co);
    cr_expect_eq(count_of(bo, "acc_check_outside0(A"), 2, "a and c: %s", bo);
    cr_expect(strstr(co, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL, "%s", co);
    cr_expect_eq(k.stencil_reach[0][0][0], -1, "the whole window");
    cr_expect_eq(k.stencil_reach[0][1][0], 1, "the whole window");
    free(bo);
    free(co);
    cg_kernel_free(&k);
    acc_program_free(p);
}
