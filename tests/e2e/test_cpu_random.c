/*
 * test_cpu_random.c — randomised differential testing of the CPU backend
 * against the reference interpreter: random well-typed programs over i64
 * vectors and matrices that mix producers (map, zipWith, backpermute,
 * replicate, slice, generate) and reshapes with the consumers the CPU
 * backend compiles (fold, fold1, foldSeg, fold1Seg, the scans and the
 * segmented scans, and maps after any of them), run on random data on
 * both backends (ts_differ: every step compiled, outputs equal bit for
 * bit, or the same error with the same message).
 *
 * The seeds are a fixed list, so a failure reproduces: a failed
 * comparison ends the test and its seed is printed; with --verbose each
 * seed is logged before its program runs (the last one logged before a
 * failed expectation is its seed).  A program's shape comes from its seed
 * modulo N_SHAPES and its data from the whole seed: every program shape
 * runs on several data sets, and its kernels, compiled once, come from the
 * test's cache folder after that.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

/* The seed whose program is being checked; 0 when none is. */
static uint32_t at_seed;

static void finish(void)
{
    if (at_seed)
        fprintf(stderr, "cpu_random: the program of seed %u failed\n",
                (unsigned)at_seed);
    ts_remove_cache_dir();
}

TestSuite(cpu_random, .init = ts_make_cache_dir, .fini = finish);

enum { N_SEEDS = 300, N_SHAPES = 60, POOL = 12, STEPS = 4, MAX_SEG = 8 };

/* A term of the program: rank 1 or 2; `wide` when its innermost extent
 * is at least the inputs' (segment descriptors then fit it). */
typedef struct term {
    acc_node *n;
    int rank, wide;
} term;

typedef struct gen {
    acc_graph *g;
    uint64_t rng;
    term pool[POOL];
    int n;
    acc_node *seg;
} gen;

static uint32_t pick(gen *s, uint32_t n)
{
    return ts_rnd(&s->rng, n);
}

static acc_node *i64c(gen *s, int64_t v)
{
    return ts_i64(s->g, v);
}

static acc_node *bin(gen *s, acc_primop op, acc_node *a, acc_node *b)
{
    return acc_binop(s->g, op, a, b);
}

/* One of a few combining functions on i64: (+), max, min, and for scans,
 * which apply f in order, also (-) (not associative). */
static acc_node *combiner(gen *s, int associative)
{
    static const acc_primop ops[4] = {ACC_OP_ADD, ACC_OP_MAX, ACC_OP_MIN,
                                      ACC_OP_SUB};
    return ts_binop_fn(s->g, ACC_I64, ops[pick(s, associative ? 3 : 4)]);
}

/* The index ix with its innermost component j replaced by f(j). */
static acc_node *with_inner(gen *s, acc_node *ix, int rank, acc_node *j)
{
    acc_node *c[2];
    for (int d = 0; d < rank - 1; d++)
        c[d] = acc_get(s->g, ix, (size_t)d);
    c[rank - 1] = j;
    return acc_index(s->g, (size_t)rank, c);
}

static acc_node *last_index(gen *s, acc_node *x, int rank)
{
    return acc_binop(s->g, ACC_OP_SUB, acc_get(s->g, acc_shape(s->g, x),
                                                (size_t)rank - 1), i64c(s, 1));
}

/* ---- producers ------------------------------------------------------------------ */

static term map_affine(gen *s, term x)
{
    acc_node *v = acc_param(s->g, acc_type_scalar(ACC_I64));
    int64_t m = (int64_t)pick(s, 4) - 1, c = (int64_t)pick(s, 5) - 2;
    acc_node *body = bin(s, ACC_OP_ADD, bin(s, ACC_OP_MUL, v, i64c(s, m)),
                         i64c(s, c));
    x.n = acc_map(s->g, ts_lam1(s->g, v, body), x.n);
    return x;
}

static term zip(gen *s, term x, term y)
{
    acc_node *xy[2] = {x.n, y.n};
    x.n = acc_zipwith(s->g, combiner(s, 0), 2, xy);
    x.wide = x.wide && y.wide;
    return x;
}

/* backpermute: the innermost dimension reversed */
static term reverse(gen *s, term x)
{
    acc_node *ix = acc_param(s->g, acc_type_shape(x.rank));
    acc_node *j = bin(s, ACC_OP_SUB, last_index(s, x.n, x.rank),
                      acc_get(s->g, ix, (size_t)x.rank - 1));
    acc_node *p = ts_lam1(s->g, ix, with_inner(s, ix, x.rank, j));
    x.n = acc_backpermute(s->g, acc_shape(s->g, x.n), p, x.n);
    return x;
}

/* backpermute: a matrix transposed */
static term transpose(gen *s, term x)
{
    acc_node *ix = acc_param(s->g, acc_type_shape(2));
    acc_node *sh = acc_shape(s->g, x.n);
    acc_node *to[2] = {acc_get(s->g, sh, 1), acc_get(s->g, sh, 0)};
    acc_node *from[2] = {acc_get(s->g, ix, 1), acc_get(s->g, ix, 0)};
    x.n = acc_backpermute(s->g, acc_index(s->g, 2, to),
                          ts_lam1(s->g, ix, acc_index(s->g, 2, from)), x.n);
    x.wide = 0;
    return x;
}

/* replicate [c, All]: a vector as c equal rows */
static term replicate(gen *s, term x)
{
    acc_node *spec[2] = {i64c(s, 1 + pick(s, 3)), acc_all(s->g)};
    x.n = acc_replicate(s->g, 2, spec, x.n);
    x.rank = 2;
    return x;
}

/* slice [0, All]: the first row of a matrix */
static term first_row(gen *s, term x)
{
    acc_node *spec[2] = {i64c(s, 0), acc_all(s->g)};
    x.n = acc_slice(s->g, x.n, 2, spec);
    x.rank = 1;
    return x;
}

/* reshape [size x]: a matrix's rows one after the other */
static term flatten(gen *s, term x)
{
    acc_node *size = acc_size(s->g, x.n);
    x.n = acc_reshape(s->g, acc_index(s->g, 1, &size), x.n);
    x.rank = 1;
    x.wide = 0;
    return x;
}

/* generate (shape x) (\ix -> x ! ix * 2 - j) with j the innermost index */
static term generate(gen *s, term x)
{
    acc_node *ix = acc_param(s->g, acc_type_shape(x.rank));
    acc_node *e = bin(s, ACC_OP_SUB, bin(s, ACC_OP_MUL, acc_read(s->g, x.n, ix),
                                         i64c(s, 2)),
                      acc_get(s->g, ix, (size_t)x.rank - 1));
    x.n = acc_generate(s->g, acc_shape(s->g, x.n), ts_lam1(s->g, ix, e));
    return x;
}

/* ---- consumers ------------------------------------------------------------------ */

/* fold or fold1 of a matrix's rows; of a vector: each element of y plus
 * the vector's total */
static term fold(gen *s, term x, term y)
{
    int seeded = pick(s, 2);
    acc_node *f = combiner(s, 1);
    acc_node *r = seeded ? acc_fold(s->g, f, i64c(s, (int64_t)pick(s, 9) - 4),
                                    x.n)
                         : acc_fold1(s->g, f, x.n);
    if (x.rank == 2)
        return (term){r, 1, 0};
    acc_node *e = acc_param(s->g, acc_type_scalar(ACC_I64));
    y.n = acc_map(s->g, ts_lam1(s->g, e, bin(s, ACC_OP_ADD, e,
                                              acc_the(s->g, r))), y.n);
    return y;
}

static term fold_seg(gen *s, term x)
{
    acc_node *f = combiner(s, 1);
    x.n = pick(s, 2) ? acc_fold_seg(s->g, f, i64c(s, 1), x.n, s->seg)
                     : acc_fold1_seg(s->g, f, x.n, s->seg);
    x.wide = 0;
    return x;
}

/* A scan of a random kind, plain or segmented; of a primed one, either
 * component. */
static term scan(gen *s, term x, int segmented)
{
    acc_scan_kind kind = (acc_scan_kind)(ACC_SCANL + (int)pick(s, 10));
    acc_node *f = combiner(s, 0);
    acc_node *z = kind == ACC_SCANL1 || kind == ACC_SCANR1
                      ? NULL : i64c(s, (int64_t)pick(s, 9) - 4);
    acc_node *r = segmented ? acc_scan_seg(s->g, kind, f, z, x.n, s->seg)
                            : acc_scan(s->g, kind, f, z, x.n);
    x.wide = !segmented && x.wide;
    if (kind != ACC_SCANL_PRIME && kind != ACC_SCANR_PRIME) {
        x.n = r;
        return x;
    }
    /* the totals of a plain scan of a vector are a Scalar: keep the
     * scanned part then */
    int totals = pick(s, 2) && (segmented || x.rank == 2);
    x.n = acc_get(s->g, r, (size_t)totals);
    x.rank -= totals && !segmented;
    x.wide = x.wide && !totals;
    return x;
}

/* ---- programs ------------------------------------------------------------------- */

static term any_of_rank(gen *s, int rank, term fallback)
{
    int at = (int)pick(s, (uint32_t)s->n);
    for (int i = 0; i < s->n; i++) {
        term t = s->pool[(at + i) % s->n];
        if (t.rank == rank)
            return t;
    }
    return fallback;
}

/* One new term from the pool (the most recent ones preferred). */
static term step(gen *s)
{
    term x = s->pool[s->n - 1 - (int)pick(s, s->n < 3 ? (uint32_t)s->n : 3)];
    switch (pick(s, 13)) {
    case 0: return map_affine(s, x);
    case 1: return zip(s, x, any_of_rank(s, x.rank, x));
    case 2: return reverse(s, x);
    case 3: return x.rank == 2 ? transpose(s, x) : replicate(s, x);
    case 4: return x.rank == 2 ? first_row(s, x) : replicate(s, x);
    case 5: return x.rank == 2 ? flatten(s, x) : map_affine(s, x);
    case 6: return generate(s, x);
    case 7: return fold(s, x, any_of_rank(s, 1, x));
    case 8: return x.wide ? fold_seg(s, x) : fold(s, x, x);
    case 9:
    case 10: return scan(s, x, 0);
    default: return scan(s, x, x.wide);
    }
}

/* The program of shape `shape`: inputs a (Matrix i64), b (Vector i64) and
 * seg (segment lengths), whose innermost extents are equal. */
static acc_node *build_random(acc_graph *g, const void *arg)
{
    uint32_t shape = *(const uint32_t *)arg;
    gen s = {.g = g, .rng = 0x9e3779b97f4a7c15ull * (shape + 1)};
    acc_node *a = acc_input(g, acc_type_scalar(ACC_I64), 2);
    acc_node *b = acc_input(g, acc_type_scalar(ACC_I64), 1);
    s.seg = acc_input(g, acc_type_scalar(ACC_I64), 1);
    s.pool[s.n++] = (term){a, 2, 1};
    s.pool[s.n++] = (term){b, 1, 1};
    for (int i = 0; i < STEPS; i++) {
        term t = step(&s);
        s.pool[s.n++] = t;
    }
    return s.pool[s.n - 1].n;
}

/* Random inputs for seed `seed`: rows x n matrix, n vector, segment
 * lengths summing to at most n; runs both backends and returns their
 * common status. */
static acc_status check_seed(uint32_t seed)
{
    uint64_t rng = 0xd1b54a32d192ed03ull ^ ((uint64_t)seed << 32 | seed);
    uint32_t shape = seed % N_SHAPES;
    int64_t rows = ts_rnd(&rng, 8) == 0 ? 0 : 1 + ts_rnd(&rng, 4);
    int64_t n = ts_rnd(&rng, 10) == 0 ? 0 : 1 + ts_rnd(&rng, 40);
    int64_t k = ts_rnd(&rng, MAX_SEG + 1), seg[MAX_SEG + 1], used = 0;
    for (int64_t s = 0; s < k; s++)
        used += seg[s] = used < n && ts_rnd(&rng, 4)
                             ? ts_rnd(&rng, (uint32_t)(n - used + 1)) : 0;
    int64_t *xa = malloc((size_t)(rows * n + 1) * sizeof *xa);
    int64_t *xb = malloc((size_t)(n + 1) * sizeof *xb);
    for (int64_t i = 0; i < rows * n; i++)
        xa[i] = (int64_t)ts_rnd(&rng, 201) - 100;
    for (int64_t i = 0; i < n; i++)
        xb[i] = (int64_t)ts_rnd(&rng, 201) - 100;
    acc_array in[3] = {
        ts_host_array(acc_type_scalar(ACC_I64), 2, (int64_t[]){rows, n},
                      (void *[]){xa}),
        ts_host_array(acc_type_scalar(ACC_I64), 1, &n, (void *[]){xb}),
        ts_host_array(acc_type_scalar(ACC_I64), 1, &k, (void *[]){seg})};
    cr_log_info("seed %u (program shape %u): %lld x %lld, %lld segments",
                seed, shape, (long long)rows, (long long)n, (long long)k);
    acc_status st = ts_differ(build_random, &shape, 3, in, 0, 0);
    free(xa);
    free(xb);
    return st;
}

Test(cpu_random, random_programs_give_the_interpreters_values)
{
    int ok = 0;
    for (at_seed = 1; at_seed <= N_SEEDS; at_seed++)
        ok += check_seed(at_seed) == ACC_OK;
    at_seed = 0;
    /* runtime errors (an empty fold1 row, a slice of no rows) must agree
     * too, but most programs must compute values to test anything */
    cr_expect_gt(ok, N_SEEDS * 3 / 4, "%d of %d programs ran", ok, N_SEEDS);
}
