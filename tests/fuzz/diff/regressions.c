/*
 * regressions.c — seeds whose programs once found a bug, each with what
 * it found.  The ctest slice (test_diff_fuzz.c) runs every entry whose bug
 * is fixed (open == NULL) with the options it was found with; an open
 * entry names who is fixing it and is skipped until then (`fuzz_diff
 * --regressions` runs them all).  When a fix is merged, set its entries'
 * `open` to NULL.
 */
#include "diff.h"

const dz_regression dz_regressions[] = {
    {0, 0, NULL, NULL},
};

const size_t dz_n_regressions = 0;
