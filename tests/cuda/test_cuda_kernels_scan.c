/*
 * test_cuda_kernels_scan.c — the CUDA kernels of scans and segmented folds
 * and scans, without a device (kernels_support.h: each step generated and
 * compiled by NVRTC): every scan kind and its configuration macros, tuple
 * elements and embedded producers, the segmented folds (SMVM among them),
 * every segmented scan kind, maps applied as a scan stores, and the
 * choice of the thread or warp variant by the segments' length.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "kernels_support.h"
#include "text_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(cuda_kernels, .init = kernels_setup, .fini = kernels_teardown);

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
