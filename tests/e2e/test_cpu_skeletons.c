/*
 * test_cpu_skeletons.c — the CPU backend's segmented-fold and scan
 * skeletons (core/skeletons/cpu/fold_seg.c.in, scan.c.in) against the
 * reference interpreter.
 *
 * Every program is built twice (contexts interp and cpu), run on the same
 * inputs, and the outputs compared: integers bit for bit, float sums
 * within a relative 1e-5 (the CPU backend reassociates them).  Every step
 * of every program must be compiled ("interpreted":0 in
 * acc_program_explain's JSON).  Runtime errors must agree in status and
 * message.  Every test skips when there is no working C compiler (the CPU
 * backend is then unavailable).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

TestSuite(cpu_skeletons, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

/* ------------------------------------------------------------------------
 * Segmented folds: foldSeg, foldSeg', fold1Seg
 * ------------------------------------------------------------------------ */

enum { SEG_LENGTHS, SEG_OFFSETS, SEG_FOLD1 };

typedef struct seg_case {
    int rank;
    int64_t ext[3];
    int form;           /* SEG_LENGTHS, SEG_OFFSETS, SEG_FOLD1 */
    int embedded;       /* elements read through a permuted index */
    int tuple;          /* (i64, f64) elements, (+, max) */
    int noncommutative; /* 2x2 matrix product */
    int mapped;         /* map g after the fold */
    int floats;         /* f64 elements, (+) */
    int divide_at;      /* > 0: the element at innermost j = divide_at - 1
                           divides by zero (embedded) */
    size_t n_seg;
    int64_t seg[16];
} seg_case;

/* The element at ix: xs ! ix, or (embedded) xs read at the innermost
 * position (7 j + 3) `rem` n, times 3, minus j; then shaped per case. */
static acc_node *seg_elem(acc_graph *g, const seg_case *sc, acc_node *xs,
                          acc_node *ix)
{
    int r = sc->rank;
    acc_node *j = acc_get(g, ix, (size_t)r - 1), *x;
    if (sc->embedded) {
        acc_node *comps[3];
        for (int d = 0; d < r - 1; d++)
            comps[d] = acc_get(g, ix, (size_t)d);
        acc_node *n = acc_get(g, acc_shape(g, xs), (size_t)r - 1);
        comps[r - 1] = acc_binop(g, ACC_OP_REM, acc_binop(g, ACC_OP_ADD,
                           acc_binop(g, ACC_OP_MUL, j, ts_i64(g, 7)),
                           ts_i64(g, 3)), n);
        x = acc_read(g, xs, acc_index(g, (size_t)r, comps));
        x = acc_binop(g, ACC_OP_SUB, acc_binop(g, ACC_OP_MUL, x, ts_i64(g, 3)),
                      j);
        if (sc->divide_at > 0)
            x = acc_binop(g, ACC_OP_ADD, x, acc_binop(g, ACC_OP_QUOT,
                    ts_i64(g, 1000), acc_binop(g, ACC_OP_SUB, j,
                                               ts_i64(g, sc->divide_at - 1))));
    } else {
        x = acc_read(g, xs, ix);
    }
    if (sc->noncommutative)
        return acc_tuple(g, 4, (acc_node *[]){
            ts_i64(g, 1), acc_binop(g, ACC_OP_REM, x, ts_i64(g, 5)),
            acc_binop(g, ACC_OP_REM, x, ts_i64(g, 3)), ts_i64(g, 1)});
    if (sc->tuple)
        return acc_tuple(g, 2, (acc_node *[]){x, acc_convert(g, x, ACC_F64)});
    if (sc->floats)
        return acc_binop(g, ACC_OP_MUL, acc_convert(g, x, ACC_F64),
                         ts_f64(g, 0.37));
    return x;
}

static acc_node *build_seg(acc_graph *g, const void *arg)
{
    const seg_case *sc = arg;
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), sc->rank);
    acc_node *seg = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *ix = acc_param(g, acc_type_shape(sc->rank));
    acc_node *e = seg_elem(g, sc, xs, ix);
    acc_node *arr = sc->embedded || sc->tuple || sc->noncommutative ||
                            sc->floats
                        ? acc_generate(g, acc_shape(g, xs),
                                       acc_lambda(g, 1, &ix, e))
                        : xs;
    const acc_type *elem = acc_node_type(e);
    ts_red_elem k = sc->noncommutative ? TS_RED_MATRIX
                  : sc->tuple ? TS_RED_TUPLE
                  : sc->floats ? TS_RED_F64 : TS_RED_I64;
    acc_node *f = ts_red_combiner(g, k, elem);
    acc_node *z = ts_red_start(g, k);
    acc_node *r = sc->form == SEG_LENGTHS ? acc_fold_seg(g, f, z, arr, seg)
                : sc->form == SEG_OFFSETS
                    ? acc_fold_seg_offsets(g, f, z, arr, seg)
                    : acc_fold1_seg(g, f, arr, seg);
    if (sc->mapped && !sc->tuple && !sc->noncommutative && !sc->floats) {
        acc_node *v = acc_param(g, acc_type_scalar(ACC_I64));
        r = acc_map(g, acc_lambda(g, 1, &v, acc_convert(g, acc_binop(g,
                    ACC_OP_MUL, v, ts_i64(g, 2)), ACC_F64)), r);
    }
    return r;
}

static acc_status check_seg(const seg_case *sc)
{
    return ts_differ_segmented(build_seg, sc, sc->rank, sc->ext, sc->seg,
                               (int64_t)sc->n_seg, sc->floats ? 1e-5 : 0);
}

/* Lengths of a row of `inner` elements (with empty segments) as the case's
 * descriptor for `form`. */
static void describe(seg_case *sc, size_t k, const int64_t *lengths)
{
    sc->n_seg = k + (sc->form == SEG_OFFSETS);
    int64_t at = 0;
    for (size_t s = 0; s < k; s++) {
        if (sc->form == SEG_OFFSETS)
            sc->seg[s] = at;
        else
            sc->seg[s] = lengths[s];
        at += lengths[s];
    }
    if (sc->form == SEG_OFFSETS)
        sc->seg[k] = at;
}

Test(cpu_skeletons, fold_seg_forms_ranks_1_to_3)
{
    static const int64_t shapes[3][3] = {{1000, 0, 0}, {5, 1000, 0},
                                         {3, 4, 1000}};
    static const int64_t with_empty[] = {0, 10, 1, 0, 300, 489, 0, 200, 0};
    static const int64_t no_empty[] = {10, 1, 300, 489, 200};
    for (int rank = 1; rank <= 3; rank++)
        for (int form = SEG_LENGTHS; form <= SEG_FOLD1; form++)
            for (int embedded = 0; embedded <= 1; embedded++) {
                seg_case sc = {.rank = rank, .form = form,
                               .embedded = embedded};
                memcpy(sc.ext, shapes[rank - 1], sizeof sc.ext);
                if (form == SEG_FOLD1)
                    describe(&sc, 5, no_empty);
                else
                    describe(&sc, 9, with_empty);
                cr_expect_eq(check_seg(&sc), ACC_OK, "rank %d form %d "
                             "embedded %d", rank, form, embedded);
            }
}

Test(cpu_skeletons, fold_seg_elements_and_map)
{
    static const int64_t lengths[] = {4100, 0, 1000, 1, 899};
    seg_case cases[] = {
        {.rank = 2, .ext = {7, 6000}, .form = SEG_LENGTHS, .tuple = 1},
        {.rank = 2, .ext = {7, 6000}, .form = SEG_OFFSETS,
         .noncommutative = 1},
        {.rank = 1, .ext = {6000}, .form = SEG_LENGTHS, .noncommutative = 1,
         .embedded = 1},
        {.rank = 2, .ext = {3, 6000}, .form = SEG_LENGTHS, .floats = 1},
        {.rank = 1, .ext = {6000}, .form = SEG_OFFSETS, .floats = 1,
         .embedded = 1},
        {.rank = 2, .ext = {4, 6000}, .form = SEG_LENGTHS, .mapped = 1},
        {.rank = 3, .ext = {2, 2, 6000}, .form = SEG_OFFSETS, .mapped = 1,
         .embedded = 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        describe(&cases[i], 5, lengths);
        cr_expect_eq(check_seg(&cases[i]), ACC_OK, "case %zu", i);
    }
    /* fold1Seg of tuples and matrices: no empty segment */
    static const int64_t full[] = {4100, 1000, 1, 899};
    seg_case f1[] = {
        {.rank = 2, .ext = {7, 6000}, .form = SEG_FOLD1, .tuple = 1},
        {.rank = 2, .ext = {7, 6000}, .form = SEG_FOLD1, .noncommutative = 1,
         .embedded = 1},
    };
    for (size_t i = 0; i < sizeof f1 / sizeof f1[0]; i++) {
        describe(&f1[i], 4, full);
        cr_expect_eq(check_seg(&f1[i]), ACC_OK, "fold1Seg case %zu", i);
    }
}

Test(cpu_skeletons, fold_seg_empty)
{
    static const int64_t some[] = {2, 0, 3};
    /* no rows */
    seg_case a = {.rank = 2, .ext = {0, 5}, .form = SEG_LENGTHS};
    describe(&a, 3, some);
    cr_expect_eq(check_seg(&a), ACC_OK);
    seg_case b = {.rank = 2, .ext = {0, 5}, .form = SEG_FOLD1, .embedded = 1};
    describe(&b, 3, some); /* an empty segment, but no rows: no error */
    cr_expect_eq(check_seg(&b), ACC_OK);
    /* no segments */
    seg_case c = {.rank = 2, .ext = {3, 5}, .form = SEG_LENGTHS};
    describe(&c, 0, some);
    cr_expect_eq(check_seg(&c), ACC_OK);
    seg_case d = {.rank = 1, .ext = {5}, .form = SEG_OFFSETS, .embedded = 1};
    describe(&d, 0, some);
    cr_expect_eq(check_seg(&d), ACC_OK);
    /* empty rows, empty segments only */
    static const int64_t zeros[] = {0, 0};
    seg_case e = {.rank = 2, .ext = {4, 0}, .form = SEG_OFFSETS,
                  .embedded = 1};
    describe(&e, 2, zeros);
    cr_expect_eq(check_seg(&e), ACC_OK);
    /* segments shorter than the row */
    seg_case f = {.rank = 3, .ext = {2, 3, 9}, .form = SEG_FOLD1,
                  .embedded = 1};
    describe(&f, 3, (const int64_t[]){1, 2, 3});
    cr_expect_eq(check_seg(&f), ACC_OK);
}

Test(cpu_skeletons, fold_seg_errors)
{
    /* negative length; a segment ending beyond the row */
    seg_case neg = {.rank = 2, .ext = {3, 10}, .form = SEG_LENGTHS,
                    .n_seg = 3, .seg = {2, -1, 3}};
    cr_expect_eq(check_seg(&neg), ACC_ERR_RUNTIME);
    seg_case neg1 = {.rank = 1, .ext = {10}, .form = SEG_FOLD1,
                     .embedded = 1, .n_seg = 2, .seg = {2, -4}};
    cr_expect_eq(check_seg(&neg1), ACC_ERR_RUNTIME);
    seg_case longer = {.rank = 2, .ext = {3, 10}, .form = SEG_LENGTHS,
                       .embedded = 1, .n_seg = 3, .seg = {2, 5, 4}};
    cr_expect_eq(check_seg(&longer), ACC_ERR_SHAPE);
    /* offsets: empty, not starting with 0, decreasing, beyond the row */
    seg_case none = {.rank = 1, .ext = {10}, .form = SEG_OFFSETS,
                     .n_seg = 0};
    cr_expect_eq(check_seg(&none), ACC_ERR_RUNTIME);
    seg_case start = {.rank = 1, .ext = {10}, .form = SEG_OFFSETS,
                      .n_seg = 2, .seg = {1, 4}};
    cr_expect_eq(check_seg(&start), ACC_ERR_RUNTIME);
    seg_case down = {.rank = 2, .ext = {2, 10}, .form = SEG_OFFSETS,
                     .n_seg = 3, .seg = {0, 5, 3}};
    cr_expect_eq(check_seg(&down), ACC_ERR_RUNTIME);
    seg_case beyond = {.rank = 2, .ext = {2, 10}, .form = SEG_OFFSETS,
                       .n_seg = 3, .seg = {0, 5, 11}};
    cr_expect_eq(check_seg(&beyond), ACC_ERR_SHAPE);
    /* fold1Seg of an empty segment */
    seg_case empty = {.rank = 2, .ext = {2, 10}, .form = SEG_FOLD1,
                      .n_seg = 3, .seg = {4, 0, 6}};
    cr_expect_eq(check_seg(&empty), ACC_ERR_RUNTIME);
    /* division by zero in the producer: inside a segment, and past the
     * last segment (the interpreter computes the whole producer) */
    seg_case inside = {.rank = 2, .ext = {3, 10}, .form = SEG_LENGTHS,
                       .embedded = 1, .divide_at = 3, .n_seg = 2,
                       .seg = {4, 2}};
    cr_expect_eq(check_seg(&inside), ACC_ERR_RUNTIME);
    seg_case tail = {.rank = 2, .ext = {3, 10}, .form = SEG_FOLD1,
                     .embedded = 1, .divide_at = 9, .n_seg = 2,
                     .seg = {4, 2}};
    cr_expect_eq(check_seg(&tail), ACC_ERR_RUNTIME);
    seg_case nothing = {.rank = 2, .ext = {3, 10}, .form = SEG_LENGTHS,
                        .embedded = 1, .divide_at = 5, .n_seg = 0};
    cr_expect_eq(check_seg(&nothing), ACC_ERR_RUNTIME);
}

/* Many segments: the lengths are summed in parts over the thread pool
 * (cpu_launch.c, lengths_to_offsets_parallel), with the serial reading's
 * refusals: a negative length deep inside, a total beyond the row reached
 * only in the last part. */
Test(cpu_skeletons, fold_seg_many_segments)
{
    enum { K = 100000 };
    static int64_t seg[K];
    int64_t ext[1] = {300000}, sum = 0;
    seg_case sc = {.rank = 1, .ext = {300000}, .form = SEG_LENGTHS};
    for (int64_t s = 0; s < K; s++)
        sum += seg[s] = s % 5;
    cr_assert_leq(sum, ext[0]);
    cr_expect_eq(ts_differ_segmented(build_seg, &sc, 1, ext, seg, K, 0),
                 ACC_OK);
    sc.embedded = 1;
    cr_expect_eq(ts_differ_segmented(build_seg, &sc, 1, ext, seg, K, 0),
                 ACC_OK);
    seg[98765] = -2;
    cr_expect_eq(ts_differ_segmented(build_seg, &sc, 1, ext, seg, K, 0),
                 ACC_ERR_RUNTIME);
    seg[98765] = 0;
    seg[K - 1] = ext[0] - sum + seg[K - 1] + 1; /* one past the row */
    cr_expect_eq(ts_differ_segmented(build_seg, &sc, 1, ext, seg, K, 0),
                 ACC_ERR_SHAPE);
}

/* SMVM: foldSeg (+) 0 (zipWith (*) (backpermute n (\i -> cols ! i) vec)
 * vals) segd, after fusion a foldSeg over an embedded generate. */
static acc_node *build_smvm(acc_graph *g, const void *arg)
{
    (void)arg;
    acc_node *segd = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *cols = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *vals = acc_input(g, acc_type_scalar(ACC_F32), 1);
    acc_node *vec = acc_input(g, acc_type_scalar(ACC_F32), 1);
    acc_node *i = acc_param(g, acc_type_shape(1));
    acc_node *p = acc_lambda(g, 1, &i, acc_index(g, 1, (acc_node *[]){
                                 acc_read(g, cols, i)}));
    acc_node *gathered = acc_backpermute(g, acc_shape(g, cols), p, vec);
    acc_node *a = acc_param(g, acc_type_scalar(ACC_F32));
    acc_node *b = acc_param(g, acc_type_scalar(ACC_F32));
    acc_node *mul = acc_lambda(g, 2, (acc_node *[]){a, b},
                               acc_binop(g, ACC_OP_MUL, a, b));
    acc_node *prods = acc_zipwith(g, mul, 2, (acc_node *[]){gathered, vals});
    acc_node *z = acc_convert(g, ts_i64(g, 0), ACC_F32);
    return acc_fold_seg(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD), z, prods, segd);
}

Test(cpu_skeletons, fold_seg_smvm)
{
    enum { ROWS = 3000, COLS = 5000 };
    int64_t *segd = malloc(ROWS * sizeof *segd);
    int64_t nnz = 0;
    for (int64_t r = 0; r < ROWS; r++)
        nnz += segd[r] = (r * 37) % 23 + (r % 97 == 0 ? 0 : 1);
    int64_t *cols = malloc((size_t)nnz * sizeof *cols);
    float *vals = malloc((size_t)nnz * sizeof *vals);
    float *vec = malloc(COLS * sizeof *vec);
    for (int64_t k = 0; k < nnz; k++) {
        cols[k] = (k * 7919) % COLS;
        vals[k] = (float)((k % 17) - 8) * 0.25f;
    }
    for (int64_t c = 0; c < COLS; c++)
        vec[c] = (float)(c % 11) * 0.5f - 2.0f;
    acc_array in[4] = {
        ts_host_array(acc_type_scalar(ACC_I64), 1, (int64_t[]){ROWS},
                      (void *[]){segd}),
        ts_host_array(acc_type_scalar(ACC_I64), 1, &nnz, (void *[]){cols}),
        ts_host_array(acc_type_scalar(ACC_F32), 1, &nnz, (void *[]){vals}),
        ts_host_array(acc_type_scalar(ACC_F32), 1, (int64_t[]){COLS},
                      (void *[]){vec})};
    cr_expect_eq(ts_differ(build_smvm, NULL, 4, in, 0, 1e-5), ACC_OK);
    free(segd);
    free(cols);
    free(vals);
    free(vec);
}

/* ------------------------------------------------------------------------
 * Scans: the ten kinds over the innermost dimension
 * ------------------------------------------------------------------------ */

typedef struct scan_case {
    acc_scan_kind kind;
    int rank;
    int64_t ext[3];
    int embedded, tuple, noncommutative, floats;
    int divide_at; /* as in seg_case */
} scan_case;

static acc_node *build_scan(acc_graph *g, const void *arg)
{
    const scan_case *c = arg;
    seg_case sc = {.rank = c->rank, .embedded = c->embedded,
                   .tuple = c->tuple, .noncommutative = c->noncommutative,
                   .floats = c->floats, .divide_at = c->divide_at};
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), c->rank);
    acc_node *ix = acc_param(g, acc_type_shape(c->rank));
    acc_node *e = seg_elem(g, &sc, xs, ix);
    if (c->floats) /* positive: no cancellation in long running sums */
        e = acc_unop(g, ACC_OP_ABS, e);
    acc_node *arr = c->embedded || c->tuple || c->noncommutative || c->floats
                        ? acc_generate(g, acc_shape(g, xs),
                                       acc_lambda(g, 1, &ix, e))
                        : xs;
    const acc_type *elem = acc_node_type(e);
    ts_red_elem k = c->noncommutative ? TS_RED_MATRIX
                  : c->tuple ? TS_RED_TUPLE
                  : c->floats ? TS_RED_F64 : TS_RED_I64;
    acc_node *f = ts_red_combiner(g, k, elem);
    acc_node *z = NULL;
    if (c->kind != ACC_SCANL1 && c->kind != ACC_SCANR1)
        z = ts_red_start(g, k);
    return acc_scan(g, c->kind, f, z, arr);
}

static acc_status check_scan(const scan_case *c)
{
    int64_t n = 1;
    for (int d = 0; d < c->rank; d++)
        n *= c->ext[d];
    int64_t *xs = malloc((size_t)(n ? n : 1) * sizeof *xs);
    for (int64_t i = 0; i < n; i++)
        xs[i] = (i * 7919) % 1000 - 300;
    acc_array in = ts_host_array(acc_type_scalar(ACC_I64), c->rank, c->ext,
                                 (void *[]){xs});
    acc_status st = ts_differ(build_scan, c, 1, &in, 0, c->floats ? 1e-5 : 0);
    free(xs);
    return st;
}

static const acc_scan_kind all_kinds[10] = {
    ACC_SCANL, ACC_SCANL_PRIME, ACC_SCANL1, ACC_SCANR, ACC_SCANR_PRIME,
    ACC_SCANR1, ACC_PRESCANL, ACC_POSTSCANL, ACC_PRESCANR, ACC_POSTSCANR};

Test(cpu_skeletons, scan_kinds_ranks_1_to_3)
{
    static const int64_t shapes[3][3] = {{1000, 0, 0}, {5, 300, 0},
                                         {3, 4, 77}};
    for (int k = 0; k < 10; k++)
        for (int rank = 1; rank <= 3; rank++)
            for (int embedded = 0; embedded <= 1; embedded++) {
                scan_case c = {.kind = all_kinds[k], .rank = rank,
                               .embedded = embedded};
                memcpy(c.ext, shapes[rank - 1], sizeof c.ext);
                cr_expect_eq(check_scan(&c), ACC_OK, "kind %d rank %d "
                             "embedded %d", (int)all_kinds[k], rank, embedded);
            }
}

Test(cpu_skeletons, scan_elements_and_long_rows)
{
    for (int k = 0; k < 10; k++) {
        scan_case cases[] = {
            /* tuples, matrices (not commutative: in order) */
            {all_kinds[k], 2, {6, 500, 0}, 0, 1, 0, 0, 0},
            {all_kinds[k], 2, {6, 500, 0}, 1, 0, 1, 0, 0},
            /* one long row: three phases for (+) */
            {all_kinds[k], 1, {40000, 0, 0}, 0, 0, 0, 0, 0},
            {all_kinds[k], 2, {1, 40000, 0}, 1, 0, 0, 1, 0},
            /* one long row, not regroupable: in order */
            {all_kinds[k], 1, {40000, 0, 0}, 1, 0, 1, 0, 0},
            /* many rows of floats */
            {all_kinds[k], 3, {4, 5, 300}, 1, 0, 0, 1, 0},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            cr_expect_eq(check_scan(&cases[i]), ACC_OK, "kind %d case %zu",
                         (int)all_kinds[k], i);
    }
}

Test(cpu_skeletons, scan_empty_and_errors)
{
    for (int k = 0; k < 10; k++) {
        acc_scan_kind kind = all_kinds[k];
        int inclusive = kind == ACC_SCANL1 || kind == ACC_SCANR1;
        /* empty rows: an error for scanl1/scanr1 only */
        scan_case empty_rows = {kind, 2, {4, 0, 0}, 1, 0, 0, 0, 0};
        cr_expect_eq(check_scan(&empty_rows),
                     inclusive ? ACC_ERR_RUNTIME : ACC_OK, "kind %d",
                     (int)kind);
        /* no rows */
        scan_case no_rows = {kind, 3, {0, 3, 5}, 0, 1, 0, 0, 0};
        cr_expect_eq(check_scan(&no_rows), ACC_OK, "kind %d", (int)kind);
        scan_case none = {kind, 1, {0, 0, 0}, 0, 0, 0, 0, 0};
        cr_expect_eq(check_scan(&none), inclusive ? ACC_ERR_RUNTIME : ACC_OK,
                     "kind %d", (int)kind);
        /* division by zero in the producer, in a short and a long row */
        scan_case div = {kind, 2, {3, 10, 0}, 1, 0, 0, 0, 7};
        cr_expect_eq(check_scan(&div), ACC_ERR_RUNTIME, "kind %d", (int)kind);
        scan_case div_long = {kind, 1, {40000, 0, 0}, 1, 0, 0, 0, 33333};
        cr_expect_eq(check_scan(&div_long), ACC_ERR_RUNTIME, "kind %d",
                     (int)kind);
    }
}
