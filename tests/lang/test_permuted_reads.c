/*
 * test_permuted_reads.c — reads at the generate's own index components in
 * another order (a transpose's `xs ! [j, i]`) or repeated (a diagonal's
 * `xs ! [i, i]`): core/fusion/in_range.c drops their bounds check when
 * the generate's shape proves them in range, and keeps it otherwise.
 * Either way the backend under test (the fused interpreter, the CPU
 * backend in the .cpu run) must agree with the reference interpreter on
 * square, wide, tall, one-row and empty matrices: the unfused one's
 * values, or the fused one's error when a read is out of range (its
 * messages name the user's operations as the compiled backends' do).
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "reference_support.h"
#include "support.h"

#include <stdio.h>

static const char programs[] =
    /* proven: [w, h] bounds [j, i] by [h, w] = shape xs */
    "transpose (xs : Matrix i64) : Matrix i64 =\n"
    "  let [h, w] = shape xs in backpermute [w, h] (\\[i, j] -> [j, i]) xs\n"
    /* not proven: the shape is not swapped (out of range unless square) */
    "unswapped (xs : Matrix i64) : Matrix i64 =\n"
    "  let [h, w] = shape xs in backpermute [h, w] (\\[i, j] -> [j, i]) xs\n"
    /* proven: min h w bounds both components */
    "diagonal (xs : Matrix i64) : Vector i64 =\n"
    "  let [h, w] = shape xs in generate [min h w] (\\[i] -> xs ! [i, i])\n"
    /* not proven: h may exceed w */
    "tallDiagonal (xs : Matrix i64) : Vector i64 =\n"
    "  let [h, w] = shape xs in generate [h] (\\[i] -> xs ! [i, i])\n"
    /* proven, with arithmetic on the value read */
    "transposeTwice (xs : Matrix i64) : Matrix i64 =\n"
    "  let [h, w] = shape xs;\n"
    "      t = backpermute [w, h] (\\[i, j] -> [j, i]) xs\n"
    "  in generate [h, w] (\\[i, j] -> t ! [j, i] * 10 + xs ! [i, j])\n";

typedef enum fails_when { NEVER, NOT_SQUARE, TALL } fails_when;

static const struct {
    const char *entry;
    fails_when fails; /* when a read is out of range */
} entries[] = {
    {"transpose", NEVER},   {"unswapped", NOT_SQUARE}, {"diagonal", NEVER},
    {"tallDiagonal", TALL}, {"transposeTwice", NEVER},
};

/* Whether the entry reads out of range on an h x w input. */
static int out_of_range(fails_when f, int64_t h, int64_t w)
{
    switch (f) {
    case NOT_SQUARE: return h != w && h > 0 && w > 0; /* else nothing read */
    case TALL: return h > w;
    default: return 0;
    }
}

Test(permuted_reads, agree_with_the_reference_on_every_shape)
{
    static const int64_t shapes[][2] = {{4, 4}, {3, 5}, {5, 3}, {1, 7},
                                        {7, 1}, {0, 3}, {3, 0}};
    static int64_t data[64];
    for (int i = 0; i < 64; i++)
        data[i] = i * 7 - 20;
    for (size_t e = 0; e < sizeof entries / sizeof *entries; e++) {
        acc_program *ref =
            ts_ref_compile_text(programs, entries[e].entry, TS_REF_UNFUSED);
        acc_program *ref_fused =
            ts_ref_compile_text(programs, entries[e].entry, TS_REF_FUSED);
        acc_program *p =
            ts_ref_compile_text(programs, entries[e].entry, TS_UNDER_TEST);
        ts_ref_expect_compiled(p);
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            const int64_t *ext = shapes[s];
            acc_array in = ts_host(ACC_I64, 2, ext, data);
            char what[96];
            snprintf(what, sizeof what, "%s on %lldx%lld", entries[e].entry,
                     (long long)ext[0], (long long)ext[1]);
            if (out_of_range(entries[e].fails, ext[0], ext[1]))
                ts_ref_agree(ref_fused, p, 1, &in, 0, "out of bounds", what);
            else
                ts_ref_agree(ref, p, 1, &in, 0, NULL, what);
        }
        acc_program_free(ref);
        acc_program_free(ref_fused);
        acc_program_free(p);
    }
}
