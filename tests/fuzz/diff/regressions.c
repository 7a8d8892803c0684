/*
 * regressions.c — seeds whose programs once found a bug, each with what
 * it found.  The ctest slice (test_diff_fuzz.c) runs every entry whose bug
 * is fixed (open == NULL) with the options it was found with; an open
 * entry names who is fixing it and is skipped until then (`fuzz_diff
 * --regressions` runs them all).  When a fix is merged, set its entries'
 * `open` to NULL.  A seed's program depends on the generator: these seeds
 * hold for the generator as committed with this table.
 */
#include "diff.h"

#include <stddef.h>

enum {
    ALL = DZ_AVOID_ALL,
    NOT_A = DZ_AVOID_ALL & ~DZ_AVOID_WIDEN,
    NOT_B = DZ_AVOID_ALL & ~DZ_AVOID_UNCHECKED,
    NOT_C = DZ_AVOID_ALL & ~DZ_AVOID_HUGE,
    NOT_D = DZ_AVOID_ALL & ~DZ_AVOID_LIBM
};

const dz_regression dz_regressions[] = {
    /* fixed */
    {55, ALL, "permute'-expand", NULL,
     "the cpu code generator wrote the name of a dead stack buffer into a "
     "permute'-over-expand kernel whose get returns a component of its "
     "element: the C compiler refused the kernel "
     "(core/codegen/kernel_permute.c; e2e.test_cpu_expand_leaves)"},
    {10, NOT_A, "widen-fold", NULL,
     "(a) fold (+) of u8 widened to i64 over rows of 63: wrong sum on cpu "
     "(fixed by fix-miscompile)"},
    {3, NOT_B, "fused-read", NULL,
     "(b) a read of a fused producer outside it: unchecked on cpu, which "
     "ran where the interpreter reports the read out of bounds (fixed by "
     "fix-bounds)"},
    {17, NOT_B, "fused-read", NULL,
     "(b) strict program: fusion dropped the check of a read outside a "
     "fused producer, on the interpreter too (fixed by fix-bounds)"},
    {90, NOT_B, NULL, NULL,
     "(b) cpu dead-code elimination: shiftL by -61 in a tuple component "
     "nothing uses was not evaluated (fixed by fix-bounds)"},
    /* open */
    {7, NOT_C, "extent", "unassigned (the interpreter's order of allocation)",
     "(c) scanl over a generate of 2^63-2 elements: cpu reports the "
     "out-of-memory of scanl's n+1 elements, the interpreter that of the "
     "embedded generate's n, which it makes an array first (the overflow "
     "of n+1 for n = 2^63-1 is fixed by fix-miscompile)"},
    /* not a bug: with (d) not avoided, libm calls appear anywhere and are
     * compared exactly, which LANGUAGE.md does not ask for; the default
     * compares them by the libm rule (gen_libm.c, compare.c) */
    {521, NOT_D, NULL, "not a bug: LANGUAGE.md does not fix libm "
     "results (the default compares them by the libm rule)",
     "(d) sinh of an f32 constant, folded by gcc when it compiles the "
     "kernel (correctly rounded), differs from glibc's sinhf by 1 ulp"},
};

const size_t dz_n_regressions = sizeof dz_regressions / sizeof *dz_regressions;

void dz_regression_options(const dz_regression *g, dz_options *o)
{
    o->avoid = g->avoid;
    o->only_class = 0;
    if (g->only && dz_class_of(g->only) >= 0)
        o->only_class = (unsigned)dz_class_of(g->only) + 1;
}
