/*
 * lane_reduction.c — a standalone reproducer of the gcc 12 miscompilation
 * that made the CPU backend count 48 True as 17 (issue 14), next to the
 * shape the skeletons use now.  tests/unit/test_canary.c builds and runs
 * it; by hand, from the repository root:
 *
 *     gcc -O3 -mavx2 -I. tests/repro/lane_reduction.c -o repro && ./repro
 *
 * The trigger: a reduction into L interleaved accumulators (lanes) inside
 * a loop (the vectoriser sees an SLP group of L lanes in the loop body),
 * whose narrowest scalar type fills less than one vector with L lanes:
 * L * (bytes of the narrowest type) < the vector's bytes.  gcc 12.2's loop
 * vectoriser then vectorises several iterations of the lanes loop together
 * (vectorisation factor VF = vector bytes / (L * narrowest bytes)) and
 * returns a wrong sum whenever that loop runs a multiple of VF times.  Here:
 * bytes widened to 16 i64 lanes (16 bytes of bytes per group): wrong with
 * -mavx2 (32-byte vectors; 48 True give 17) and with -march=native on
 * AVX-512 machines, right with SSE only (16-byte vectors),
 * -fno-tree-loop-vectorize, or clang.  The same happens without any
 * widening (i64 elements into 4 i64 lanes with 64-byte vectors), which the
 * skeletons never do: their lanes fill 128 bytes of the accumulator type.
 *
 * legacy_count is that one-loop shape (fold.c.in before the fix);
 * canary.c.in's widening-fold canary is the shape fold.c.in uses now for
 * narrow elements (the lanes fed from a buffer).  The program prints the
 * lengths the legacy shape gets wrong, and exits 1 when the canary's
 * shape gets any wrong (then the canary fails too, and the CPU backend
 * falls back to safer flags).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/skeletons/cpu/prelude.h.in"
#include "core/skeletons/cpu/canary.c.in"

enum { LANES = 16 };

/* The number of non-zero bytes among a[0 .. n), as fold.c.in computed it:
 * 16 i64 lanes, each element a bool made from a byte, then widened.  The
 * outer loop over rows (one here) is part of the trigger: without it gcc
 * inlines differently and the loop comes out right. */
__attribute__((noinline)) static void legacy_count(const uint8_t *a,
                                                   int64_t n, int64_t rows,
                                                   int64_t *out)
{
    for (int64_t row = 0; row < rows; row++) {
        int64_t acc = 0, j = 0;
        if (n >= 2 * LANES) {
            int64_t lane[LANES];
            for (int k = 0; k < LANES; k++)
                lane[k] = (int64_t)(uint64_t)(uint8_t)(a[k] != 0);
            for (j = LANES; j + LANES <= n; j += LANES)
                for (int k = 0; k < LANES; k++)
                    lane[k] = acc_add_i64(lane[k], (int64_t)(uint64_t)(uint8_t)(a[j + k] != 0));
            acc = lane[0];
            for (int k = 1; k < LANES; k++)
                acc = acc_add_i64(acc, lane[k]);
        } else if (n > 0) {
            acc = a[0] != 0;
            j = 1;
        }
        for (; j < n; j++)
            acc = acc_add_i64(acc, (int64_t)(a[j] != 0));
        out[row] = acc;
    }
}

int main(void)
{
    enum { MAX = 1100 };
    static uint8_t bytes[MAX];
    static int64_t zeros[MAX], out[MAX + 16];
    int legacy_wrong = 0, canary_wrong = 0;
    for (int64_t n = 0; n <= MAX; n++) {
        const void *in[ACC_CIN_COUNT];
        for (int k = 0; k < ACC_CIN_COUNT; k++)
            in[k] = k == ACC_CIN_U8 ? (const void *)bytes : zeros;
        int64_t got = -1;
        for (int64_t i = 0; i < n; i++)
            bytes[i] = 1;
        legacy_count(bytes, n, 1, &got);
        if (got != n && legacy_wrong++ < 8)
            printf("legacy shape: %lld True counted as %lld\n", (long long)n,
                   (long long)got);
        accel_canary_widening_fold(in, n, out);
        if (out[0] != n && canary_wrong++ < 8)
            printf("canary shape: %lld True counted as %lld\n", (long long)n,
                   (long long)out[0]);
    }
    printf("legacy shape wrong at %d of %d lengths; canary shape wrong at "
           "%d\n", legacy_wrong, MAX + 1, canary_wrong);
    return canary_wrong != 0;
}
