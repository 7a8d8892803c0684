/*
 * test_cpu_fold_order.c — the order in which the CPU fold kernel
 * (core/skeletons/cpu/fold.c.in) combines f32 elements, bit for bit.
 *
 * Float folds may differ from the interpreter's (a balanced tree) in
 * rounding, so they are not compared with it; what is promised instead
 * is the kernel's own order (docs/CPU_BACKEND.md, "Skeletons"): blocks of
 * 4096 elements combined left to right; within a block of at least
 * 2 x 32 elements, 32 interleaved lanes (128 bytes of f32) started with
 * the block's first 32 elements, fed group by group, merged pairwise
 * (lane k with lane k + 16, then k + 8, k + 4, k + 2, k + 1), then the
 * rest of the block in order; the seed combined first.  The
 * reference below computes that order in C, and the values are chosen so
 * that another order rounds differently (checked here too), so a change of
 * the lanes, the blocks or the merge fails this test.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

enum { LANES = 32, BLOCK = 4096 };

TestSuite(cpu_fold_order, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

/* Elements [lo, hi) of one block in the kernel's order (acc_reduce). */
static float reduce(const float *x, int64_t lo, int64_t hi)
{
    float acc;
    int64_t j = lo + 1;
    if (hi - lo >= 2 * LANES) {
        float lane[LANES];
        for (int k = 0; k < LANES; k++)
            lane[k] = x[lo + k];
        for (j = lo + LANES; j + LANES <= hi; j += LANES)
            for (int k = 0; k < LANES; k++)
                lane[k] = lane[k] + x[j + k];
        for (int s = LANES / 2; s > 0; s /= 2)
            for (int k = 0; k < s; k++)
                lane[k] = lane[k] + lane[k + s];
        acc = lane[0];
    } else {
        acc = x[lo];
    }
    for (; j < hi; j++)
        acc = acc + x[j];
    return acc;
}

/* fold (+) z over x[0 .. n) as the kernel computes it on one thread. */
static float kernel_order(const float *x, int64_t n, float z)
{
    if (n == 0)
        return z;
    int64_t b = n > BLOCK ? BLOCK : n;
    float acc = reduce(x, 0, b);
    for (int64_t lo = b; lo < n; lo = b) {
        b = n - lo > BLOCK ? lo + BLOCK : n;
        acc = acc + reduce(x, lo, b);
    }
    return z + acc;
}

static float left_to_right(const float *x, int64_t n, float z)
{
    float acc = z;
    for (int64_t i = 0; i < n; i++)
        acc = acc + x[i];
    return acc;
}

/* Magnitudes from 1e-3 to 1e3, both signs: sums that round differently
 * in every order. */
static void fill(float *x, int64_t n)
{
    static const float scale[7] = {1e-3f, 1e-2f, 1e-1f, 1.0f,
                                   1e1f, 1e2f, 1e3f};
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 7919) % 2001 - 1000) * 1.0009765625f *
               scale[(i * 3) % 7];
}

/* fold (+) z xs, compiled on ctx. */
static acc_program *fold_program(acc_context *ctx, float z)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_F32), 1);
    acc_node *r = acc_fold(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD),
                           acc_const_f64(g, ACC_F32, z), xs);
    acc_program *p = ts_compile(ctx, g, r);
    acc_graph_free(g);
    return p;
}

/* Below the threads' threshold (cpu_launch.h, CPU_SERIAL_BELOW) the
 * fold runs on the calling thread: one row, reduced whole. */
Test(cpu_fold_order, f32_sum_is_the_kernels_order_bit_for_bit)
{
    static const int64_t sizes[] = {1,    2,    31,   63,   64,   65,
                                    95,   96,   1000, 4095, 4096, 4097,
                                    4160, 9999, 10000, 65537};
    acc_context *ctx = ts_cpu_context();
    int64_t most = 65537;
    float *x = malloc((size_t)most * sizeof *x);
    cr_assert_not_null(x);
    fill(x, most);
    int reordered = 0; /* sizes where another order rounds differently */
    for (int seeded = 0; seeded < 2; seeded++) {
        float z = seeded ? 0.3f : 0.0f;
        acc_program *p = fold_program(ctx, z);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            int64_t n = sizes[s];
            float got = 0, want = kernel_order(x, n, z);
            acc_array in = ts_host(ACC_F32, 1, &n, x);
            acc_array out = ts_host(ACC_F32, 0, NULL, &got);
            cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s",
                         acc_last_error());
            cr_expect_eq(memcmp(&got, &want, sizeof got), 0,
                         "n = %lld, seed %g: the kernel gave %.9g, its "
                         "documented order %.9g", (long long)n, (double)z,
                         (double)got, (double)want);
            float plain = left_to_right(x, n, z);
            reordered += memcmp(&plain, &want, sizeof plain) != 0;
        }
        acc_program_free(p);
    }
    /* the test can tell orders apart: most sizes round differently */
    cr_expect_geq(reordered, 12, "only %d sizes distinguish the orders",
                  reordered);
    free(x);
    acc_context_destroy(ctx);
}
