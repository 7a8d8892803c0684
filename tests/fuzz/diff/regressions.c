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

const dz_regression dz_regressions[] = {
    {0, 0, NULL, NULL, NULL},
};

const size_t dz_n_regressions = 0;

void dz_regression_options(const dz_regression *g, dz_options *o)
{
    o->avoid = g->avoid;
    o->only_class = 0;
    if (g->only && dz_class_of(g->only) >= 0)
        o->only_class = (unsigned)dz_class_of(g->only) + 1;
}
