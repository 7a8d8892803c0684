/*
 * test_cpu_widening.c — folds, segmented folds and scans whose elements
 * are narrow values widened to the accumulator (fold (+) 0 (map i64 bs)
 * over bools, bytes, shorts) on the CPU backend, against the interpreter.
 *
 * gcc 12.2's loop vectoriser miscompiled the interleaved-lane reduction of
 * fold.c.in and fold_seg.c.in when the lanes, in the narrowest type of the
 * loop, filled less than one vector: 48 True counted to 17, and every
 * length whose count of whole lane groups after the first was a multiple
 * of the vectorisation factor was wrong (docs/CPU_BACKEND.md).  The
 * lengths below straddle the lane groups (16 lanes for i64, 32 for i32)
 * and the 4096-element blocks.  Each source type and accumulator is one
 * program of three kernels (fold, foldSeg over two segments of the length,
 * one of them unaligned, and scanl), compiled once into the suite's cache
 * folder and run at every length.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

TestSuite(cpu_widening, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

static const int64_t lengths[] = {0,  1,   15,  16,  17,  31,   32,
                                  33, 47,  48,  63,  64,  65,   80,
                                  95, 112, 127, 255, 1000, 1023, 5000};
enum { N_LENGTHS = sizeof lengths / sizeof lengths[0] };

typedef struct widen_case {
    acc_scalar src, acc;
} widen_case;

static acc_node *plus(acc_graph *g, acc_scalar s)
{
    return ts_binop_fn(g, s, ACC_OP_ADD);
}

/* map acc xs: one per consumer, so that fusion embeds the widening into
 * each (a map shared by three consumers would be computed once, as an i64
 * array, and the consumers would read no narrow element). */
static acc_node *widen(acc_graph *g, const widen_case *wc, acc_node *xs)
{
    acc_node *x = acc_param(g, acc_type_scalar(wc->src));
    return acc_map(g, acc_lambda(g, 1, &x, acc_convert(g, x, wc->acc)), xs);
}

/* (fold (+) 1 e, foldSeg (+) 2 e seg, scanl (+) 3 e) with e = map acc xs. */
static acc_node *build(acc_graph *g, const void *arg)
{
    const widen_case *wc = arg;
    acc_node *xs = acc_input(g, acc_type_scalar(wc->src), 1);
    acc_node *seg = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *r[3] = {
        acc_fold(g, plus(g, wc->acc), acc_const_i64(g, wc->acc, 1),
                 widen(g, wc, xs)),
        acc_fold_seg(g, plus(g, wc->acc), acc_const_i64(g, wc->acc, 2),
                     widen(g, wc, xs), seg),
        acc_scan(g, ACC_SCANL, plus(g, wc->acc), acc_const_i64(g, wc->acc, 3),
                 widen(g, wc, xs))};
    return acc_tuple(g, 3, r);
}

/* Element i of the source: all True for bools at even `variant`, else a
 * pattern covering the type's range (negative values for signed types). */
static void fill(acc_scalar s, int variant, void *buf, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = (uint64_t)(i * 7919 + 11 + variant * 101);
        switch (s) {
        case ACC_BOOL: ((uint8_t *)buf)[i] = variant % 2 == 0 || v % 3 != 1;
            break;
        case ACC_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
        case ACC_I8: ((int8_t *)buf)[i] = (int8_t)(int64_t)(v % 256 - 128);
            break;
        case ACC_U16: ((uint16_t *)buf)[i] = (uint16_t)(v * 31); break;
        case ACC_I16: ((int16_t *)buf)[i] = (int16_t)(int64_t)(v * 31 % 65536 - 32768);
            break;
        default: cr_assert_fail("no pattern for %s", acc_scalar_name(s));
        }
    }
}

static void check(acc_scalar src, acc_scalar acc)
{
    widen_case wc = {src, acc};
    for (int variant = 0; variant < (src == ACC_BOOL ? 2 : 1); variant++)
        for (int l = 0; l < N_LENGTHS; l++) {
            const int64_t n = lengths[l];
            /* two segments: [0, n) and, after one element, [n + 1, 2n + 1) */
            const int64_t total = 2 * n + 1, seg[3] = {n, 1, n};
            void *data = calloc((size_t)total, acc_scalar_size(src));
            cr_assert_not_null(data);
            fill(src, variant, data, total);
            acc_array in[2] = {
                ts_host_array(acc_type_scalar(src), 1, &total,
                              (void *[]){data}),
                ts_host_array(acc_type_scalar(ACC_I64), 1, &(int64_t){3},
                              (void *[]){(void *)seg})};
            cr_expect_eq(ts_differ(build, &wc, 2, in, 0, 0), ACC_OK,
                         "%s widened to %s, length %lld",
                         acc_scalar_name(src), acc_scalar_name(acc),
                         (long long)n);
            free(data);
        }
}

Test(cpu_widening, bool_to_i64) { check(ACC_BOOL, ACC_I64); }
Test(cpu_widening, bool_to_i32) { check(ACC_BOOL, ACC_I32); }
Test(cpu_widening, u8_to_i64) { check(ACC_U8, ACC_I64); }
Test(cpu_widening, u8_to_i32) { check(ACC_U8, ACC_I32); }
Test(cpu_widening, i8_to_i64) { check(ACC_I8, ACC_I64); }
Test(cpu_widening, i8_to_i32) { check(ACC_I8, ACC_I32); }
Test(cpu_widening, i16_to_i64) { check(ACC_I16, ACC_I64); }
Test(cpu_widening, i16_to_i32) { check(ACC_I16, ACC_I32); }
Test(cpu_widening, u16_to_i64) { check(ACC_U16, ACC_I64); }
Test(cpu_widening, u16_to_i32) { check(ACC_U16, ACC_I32); }
