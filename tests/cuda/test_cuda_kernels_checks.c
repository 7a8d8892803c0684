/*
 * test_cuda_kernels_checks.c — the runtime checks the CUDA kernels keep,
 * without a device (kernels_support.h: each step generated and compiled
 * by NVRTC): a read of a fused producer keeps its bounds check, and a
 * value nobody uses keeps its checks, in a map, a backpermute and a
 * stencil's side or neighbours.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "kernels_support.h"
#include "text_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(cuda_kernels, .init = kernels_setup, .fini = kernels_teardown);

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
