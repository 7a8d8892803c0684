/*
 * test_scans.c — the scans of LANGUAGE.md §3.3, plain and segmented, on
 * the reference interpreter: the examples of the language description,
 * all ten kinds on vectors, matrices and rank-3 arrays with a
 * non-associative f (subtraction: the exact evaluation order) and an
 * associative non-commutative f on pairs (digit-string concatenation),
 * tuple elements, result shapes and outputs of the primed kinds, empty
 * rows and segments, and every error.
 *
 * The expected values come from ref_scan below, a direct transcription of
 * the definitions (scanl' = (init of scanl, last of scanl), scanr' = (tail
 * of scanr, head of scanr), prescanl = init of scanl, prescanr = tail of
 * scanr, postscanl f z = map (z `f`) . scanl1 f, postscanr f z =
 * map (`f` z) . scanr1 f), applied per segment.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "accel.h"
#include "support.h"

static acc_context *ctx;
static acc_graph *g;

static void setup(void)
{
    ts_fixture_open(&ctx, &g);
}

static void teardown(void)
{
    ts_fixture_close(&ctx, &g);
}

TestSuite(scans, .init = setup, .fini = teardown);

static const acc_scan_kind all_kinds[10] = {
    ACC_SCANL, ACC_SCANL_PRIME, ACC_SCANL1, ACC_SCANR, ACC_SCANR_PRIME,
    ACC_SCANR1, ACC_PRESCANL, ACC_POSTSCANL, ACC_PRESCANR, ACC_POSTSCANR};

static const char *const kind_names[11] = {
    "?", "scanl", "scanl'", "scanl1", "scanr", "scanr'", "scanr1",
    "prescanl", "postscanl", "prescanr", "postscanr"};

/* ---- helpers ------------------------------------------------------------ */

/* ---- the two functions and their C counterparts ------------------------- */

/* An element of either test type: i64 (a only) or an (i64, i64) pair. */
typedef struct el {
    int64_t a, b;
} el;

enum { M = 1000003 };

typedef enum fn_id { FN_SUB, FN_CAT } fn_id;

/* FN_SUB: a - b (not associative: pins down the exact order).  FN_CAT:
 * digit strings (v, 10^len) appended modulo M; associative, not
 * commutative.  */
static el apply_c(fn_id fn, el x, el y)
{
    el r = {x.a - y.a, 0};
    if (fn == FN_CAT) {
        r.a = (x.a * y.b + y.a) % M;
        r.b = (x.b * y.b) % M;
    }
    return r;
}

static acc_node *fn_node(fn_id fn, const acc_type *t)
{
    if (fn == FN_CAT)
        return ts_cat_fn(g, t, M);
    acc_node *x = acc_param(g, t), *y = acc_param(g, t);
    return ts_lam2(g, x, y, acc_binop(g, ACC_OP_SUB, x, y));
}

static el seed_c(fn_id fn)
{
    el z = {fn == FN_SUB ? 100 : 7, 10};
    return z;
}

static acc_node *seed_node(fn_id fn)
{
    if (fn == FN_SUB)
        return ts_i64(g, 100);
    acc_node *items[2] = {ts_i64(g, 7), ts_i64(g, 10)};
    return acc_tuple(g, 2, items);
}

static const acc_type *elem_type(fn_id fn)
{
    const acc_type *fields[2] = {ts_sc(ACC_I64), ts_sc(ACC_I64)};
    return fn == FN_SUB ? ts_sc(ACC_I64) : acc_type_tuple(ctx, 2, fields);
}

/* ---- the reference --------------------------------------------------------- */

enum { MAXN = 64 };

static int64_t ref_scanl(fn_id fn, el z, const el *x, int64_t m, el *out)
{
    out[0] = z;
    for (int64_t i = 0; i < m; i++)
        out[i + 1] = apply_c(fn, out[i], x[i]);
    return m + 1;
}

static int64_t ref_scanr(fn_id fn, el z, const el *x, int64_t m, el *out)
{
    out[m] = z;
    for (int64_t i = m - 1; i >= 0; i--)
        out[i] = apply_c(fn, x[i], out[i + 1]);
    return m + 1;
}

static int64_t ref_scanl1(fn_id fn, const el *x, int64_t m, el *out)
{
    for (int64_t i = 0; i < m; i++)
        out[i] = i == 0 ? x[0] : apply_c(fn, out[i - 1], x[i]);
    return m;
}

static int64_t ref_scanr1(fn_id fn, const el *x, int64_t m, el *out)
{
    for (int64_t i = m - 1; i >= 0; i--)
        out[i] = i == m - 1 ? x[i] : apply_c(fn, x[i], out[i + 1]);
    return m;
}

/* One segment x[0..m-1] of kind `kind`: writes the elements to out and
 * returns their number; the primed kinds also write *total. */
static int64_t ref_scan(acc_scan_kind kind, fn_id fn, const el *x, int64_t m,
                        el *out, el *total)
{
    el z = seed_c(fn), t[MAXN + 1];
    switch (kind) {
    case ACC_SCANL: return ref_scanl(fn, z, x, m, out);
    case ACC_SCANR: return ref_scanr(fn, z, x, m, out);
    case ACC_SCANL1: return ref_scanl1(fn, x, m, out);
    case ACC_SCANR1: return ref_scanr1(fn, x, m, out);
    case ACC_SCANL_PRIME:
    case ACC_PRESCANL:
        ref_scanl(fn, z, x, m, t);
        memcpy(out, t, (size_t)m * sizeof *out);
        *total = t[m];
        return m;
    case ACC_SCANR_PRIME:
    case ACC_PRESCANR:
        ref_scanr(fn, z, x, m, t);
        memcpy(out, t + 1, (size_t)m * sizeof *out);
        *total = t[0];
        return m;
    case ACC_POSTSCANL:
        ref_scanl1(fn, x, m, t);
        for (int64_t i = 0; i < m; i++)
            out[i] = apply_c(fn, z, t[i]);
        return m;
    case ACC_POSTSCANR:
        ref_scanr1(fn, x, m, t);
        for (int64_t i = 0; i < m; i++)
            out[i] = apply_c(fn, t[i], z);
        return m;
    }
    return 0;
}

static int primed(acc_scan_kind kind)
{
    return kind == ACC_SCANL_PRIME || kind == ACC_SCANR_PRIME;
}

static int seeded(acc_scan_kind kind)
{
    return kind != ACC_SCANL1 && kind != ACC_SCANR1;
}

/* ---- one case: a kind, a function, an input, optional segments ------------- */

typedef struct scan_case {
    acc_scan_kind kind;
    fn_id fn;
    int32_t rank;
    int64_t ext[3];
    const int64_t *seg; /* NULL: a plain scan */
    int64_t n_seg;
} scan_case;

/* Input element k: digits 1..9 (with 10 as b) or small signed numbers. */
static el input_el(fn_id fn, int64_t k)
{
    el e = {fn == FN_CAT ? 1 + (k * 7) % 9 : (k * 11) % 17 - 8, 10};
    return e;
}

static el output_el(fn_id fn, const acc_array *a, int64_t k)
{
    el e = {((const int64_t *)a->data[0])[k], 0};
    if (fn == FN_CAT)
        e.b = ((const int64_t *)a->data[1])[k];
    return e;
}

static void expect_el(fn_id fn, el got, el want, const scan_case *c,
                      const char *what, int64_t at)
{
    cr_assert(got.a == want.a && (fn == FN_SUB || got.b == want.b),
              "%s%s rank %d %s: %s %lld is (%lld, %lld), expected "
              "(%lld, %lld)", kind_names[c->kind], c->seg ? "Seg" : "",
              (int)c->rank, fn == FN_SUB ? "(-)" : "(cat)", what,
              (long long)at, (long long)got.a, (long long)got.b,
              (long long)want.a, (long long)want.b);
}

static acc_node *build_case(const scan_case *c)
{
    const acc_type *t = elem_type(c->fn);
    acc_node *xs = acc_input(g, t, c->rank);
    acc_node *f = fn_node(c->fn, t);
    acc_node *z = seeded(c->kind) ? seed_node(c->fn) : NULL;
    if (!c->seg)
        return acc_scan(g, c->kind, f, z, xs);
    return acc_scan_seg(g, c->kind, f, z, xs, acc_input(g, ts_sc(ACC_I64), 1));
}

/* Checks the shapes the reference predicts: rows of `len` elements, and
 * the totals (k per row when segmented, one per row otherwise). */
static void check_shapes(const scan_case *c, const acc_array *out,
                         int64_t len, int64_t k)
{
    cr_assert_eq(out[0].rank, c->rank);
    for (int32_t d = 0; d < c->rank; d++)
        cr_assert_eq(out[0].extents[d], d == c->rank - 1 ? len : c->ext[d],
                     "%s: extent %d", kind_names[c->kind], (int)d);
    if (!primed(c->kind))
        return;
    int32_t trank = c->seg ? c->rank : c->rank - 1;
    cr_assert_eq(out[1].rank, trank, "%s: totals rank", kind_names[c->kind]);
    for (int32_t d = 0; d < trank; d++)
        cr_assert_eq(out[1].extents[d], d == c->rank - 1 ? k : c->ext[d]);
}

static void check_case(const scan_case *c)
{
    int64_t rows = 1, n = c->ext[c->rank - 1];
    for (int32_t d = 0; d < c->rank - 1; d++)
        rows *= c->ext[d];
    int64_t size = rows * n, a[512], b[512];
    cr_assert(size <= 512 && n <= MAXN);
    for (int64_t k = 0; k < size; k++) {
        el e = input_el(c->fn, k);
        a[k] = e.a;
        b[k] = e.b;
    }
    acc_node *r = build_case(c);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    size_t n_out = primed(c->kind) ? 2 : 1;
    cr_assert_eq(acc_program_num_outputs(p), n_out);
    void *bufs[2] = {a, b};
    int64_t n_seg = c->n_seg;
    acc_array in[2] = {ts_host_array(elem_type(c->fn), c->rank, c->ext, bufs),
                       ts_host(ACC_I64, 1, &n_seg, (int64_t *)c->seg)};
    acc_array out[2];
    ts_expect_ok(g, ts_run_program(p, c->seg ? 2 : 1, in, n_out, out));
    acc_program_free(p);
    /* the reference, row by row and segment by segment */
    int64_t one = n, k = c->seg ? c->n_seg : 1;
    const int64_t *lens = c->seg ? c->seg : &one;
    int64_t at = 0, tot = 0, len = 0;
    for (int64_t s = 0; s < k; s++)
        len += lens[s] + (c->kind == ACC_SCANL || c->kind == ACC_SCANR);
    check_shapes(c, out, len, k);
    for (int64_t row = 0; row < rows; row++) {
        int64_t from = row * n;
        for (int64_t s = 0; s < k; s++) {
            el x[MAXN], want[MAXN + 1], total;
            for (int64_t i = 0; i < lens[s]; i++)
                x[i] = input_el(c->fn, from + i);
            from += lens[s];
            int64_t w = ref_scan(c->kind, c->fn, x, lens[s], want, &total);
            for (int64_t i = 0; i < w; i++, at++)
                expect_el(c->fn, output_el(c->fn, &out[0], at), want[i], c,
                          "element", at);
            if (primed(c->kind)) {
                expect_el(c->fn, output_el(c->fn, &out[1], tot), total, c,
                          "total", tot);
                tot++;
            }
        }
    }
    cr_assert_eq(at, acc_array_size(&out[0]));
    for (size_t i = 0; i < n_out; i++)
        acc_array_release(&out[i]);
}

/* Every kind, both functions, on the given ranks/extents and segments. */
static void check_all_kinds(int32_t rank, const int64_t *ext,
                            const int64_t *seg, int64_t n_seg)
{
    for (int f = FN_SUB; f <= FN_CAT; f++)
        for (int i = 0; i < 10; i++) {
            scan_case c = {all_kinds[i], (fn_id)f, rank, {0, 0, 0}, seg,
                           n_seg};
            memcpy(c.ext, ext, (size_t)rank * sizeof *ext);
            check_case(&c);
            acc_graph_free(g);
            g = ts_graph(ctx);
        }
}

/* ---- the examples of LANGUAGE.md ---------------------------------------------- */

/* Runs `kind` (-) or (+) with seed z over the vector x, into *out. */
static void run_vector(acc_scan_kind kind, acc_primop op, int64_t z,
                       const int64_t *x, int64_t n, acc_array *out)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *a = acc_param(g, ts_sc(ACC_I64)),
             *b = acc_param(g, ts_sc(ACC_I64));
    acc_node *f = ts_lam2(g, a, b, acc_binop(g, op, a, b));
    acc_node *r = acc_scan(g, kind, f, seeded(kind) ? ts_i64(g, z) : NULL,
                           xs);
    acc_array in = ts_host(ACC_I64, 1, &n, (int64_t *)x);
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, out));
}

static void expect_vector(const acc_array *out, const int64_t *want,
                          int64_t n)
{
    cr_assert_eq(out->rank, 1);
    cr_assert_eq(out->extents[0], n, "length %lld, expected %lld",
                 (long long)out->extents[0], (long long)n);
    for (int64_t i = 0; i < n; i++)
        cr_assert_eq(((const int64_t *)out->data[0])[i], want[i],
                     "at %lld: %lld, expected %lld", (long long)i,
                     (long long)((const int64_t *)out->data[0])[i],
                     (long long)want[i]);
}

Test(scans, scanl_plus_10_over_0_to_9)
{
    int64_t x[10], want[11] = {10, 10, 11, 13, 16, 20, 25, 31, 38, 46, 55};
    for (int i = 0; i < 10; i++)
        x[i] = i;
    acc_array out;
    run_vector(ACC_SCANL, ACC_OP_ADD, 10, x, 10, &out);
    expect_vector(&out, want, 11);
    acc_array_release(&out);
}

Test(scans, scanl_minus_100)
{
    int64_t x[3] = {1, 2, 3}, want[4] = {100, 99, 97, 94};
    acc_array out;
    run_vector(ACC_SCANL, ACC_OP_SUB, 100, x, 3, &out);
    expect_vector(&out, want, 4);
    acc_array_release(&out);
}

Test(scans, scanr_minus_100)
{
    int64_t x[3] = {1, 2, 3}, want[4] = {-98, 99, -97, 100};
    acc_array out;
    run_vector(ACC_SCANR, ACC_OP_SUB, 100, x, 3, &out);
    expect_vector(&out, want, 4);
    acc_array_release(&out);
}

Test(scans, every_kind_of_minus_100_by_hand)
{
    /* [1, 2, 3] with (-) and 100, worked out by hand from the definitions */
    static const int64_t want[10][4] = {
        {100, 99, 97, 94},  /* scanl                                   */
        {100, 99, 97},      /* scanl' elements (total 94)              */
        {1, -1, -4},        /* scanl1                                  */
        {-98, 99, -97, 100},/* scanr                                   */
        {99, -97, 100},     /* scanr' elements (total -98)             */
        {2, -1, 3},         /* scanr1: 1-(2-3), 2-3, 3                 */
        {100, 99, 97},      /* prescanl                                */
        {99, 101, 104},     /* postscanl: 100 - [1, -1, -4]            */
        {99, -97, 100},     /* prescanr                                */
        {-98, -101, -97}};  /* postscanr: [2, -1, 3] - 100             */
    static const int64_t lens[10] = {4, 3, 3, 4, 3, 3, 3, 3, 3, 3};
    int64_t x[3] = {1, 2, 3};
    for (int i = 0; i < 10; i++) {
        acc_array out[2];
        acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
        acc_node *a = acc_param(g, ts_sc(ACC_I64)),
                 *b = acc_param(g, ts_sc(ACC_I64));
        acc_scan_kind kind = all_kinds[i];
        acc_node *r = acc_scan(g, kind,
                               ts_lam2(g, a, b, acc_binop(g, ACC_OP_SUB, a, b)),
                               seeded(kind) ? ts_i64(g, 100) : NULL, xs);
        int64_t n = 3;
        acc_array in = ts_host(ACC_I64, 1, &n, x);
        ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, out));
        expect_vector(&out[0], want[i], lens[i]);
        acc_array_release(&out[0]);
        if (primed(kind)) {
            cr_assert_eq(out[1].rank, 0);
            cr_assert_eq(*(const int64_t *)out[1].data[0],
                         kind == ACC_SCANL_PRIME ? 94 : -98);
            acc_array_release(&out[1]);
        }
        acc_graph_free(g);
        g = ts_graph(ctx);
    }
}

/* ---- every kind against the reference ------------------------------------------- */

Test(scans, every_kind_on_a_vector)
{
    int64_t n = 9;
    check_all_kinds(1, &n, NULL, 0);
}

Test(scans, every_kind_on_a_matrix)
{
    int64_t ext[2] = {4, 7};
    check_all_kinds(2, ext, NULL, 0);
}

Test(scans, every_kind_on_a_rank3_array)
{
    int64_t ext[3] = {2, 3, 5};
    check_all_kinds(3, ext, NULL, 0);
}

Test(scans, every_kind_on_a_single_element)
{
    int64_t ext[2] = {3, 1};
    check_all_kinds(2, ext, NULL, 0);
}

Test(scans, every_segmented_kind_on_a_vector)
{
    /* empty segments first, inside and last; one element left unused */
    int64_t n = 12, seg[6] = {0, 3, 0, 1, 7, 0};
    check_all_kinds(1, &n, seg, 6);
}

Test(scans, every_segmented_kind_on_a_matrix)
{
    int64_t ext[2] = {3, 10}, seg[4] = {2, 0, 5, 3};
    check_all_kinds(2, ext, seg, 4);
}

Test(scans, every_segmented_kind_on_a_rank3_array)
{
    int64_t ext[3] = {2, 2, 8}, seg[3] = {4, 1, 1};
    check_all_kinds(3, ext, seg, 3);
}

Test(scans, every_segmented_kind_with_no_segments)
{
    int64_t ext[2] = {2, 4}, none[1] = {0};
    check_all_kinds(2, ext, none, 0);
}

Test(scans, every_segmented_kind_on_empty_rows)
{
    int64_t ext[2] = {3, 0}, seg[2] = {0, 0};
    check_all_kinds(2, ext, seg, 2);
}

/* ---- result types ------------------------------------------------------------------ */

Test(scans, primed_kinds_are_tuples_of_two_arrays)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_F64), 3);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *a = acc_param(g, ts_sc(ACC_F64)),
             *b = acc_param(g, ts_sc(ACC_F64));
    acc_node *f = ts_lam2(g, a, b, acc_binop(g, ACC_OP_ADD, a, b));
    acc_node *plain = acc_scan(g, ACC_SCANR_PRIME, f, ts_f64(g, 0), xs);
    acc_node *seg = acc_scan_seg(g, ACC_SCANL_PRIME, f, ts_f64(g, 0), xs, sn);
    acc_node *one = acc_scan(g, ACC_POSTSCANR, f, ts_f64(g, 0), xs);
    const acc_type *t = acc_node_type(plain);
    cr_assert_eq(acc_type_get_kind(t), ACC_TYPE_TUPLE);
    cr_assert_eq(acc_type_get_rank(acc_type_get_field(t, 0)), 3);
    cr_assert_eq(acc_type_get_rank(acc_type_get_field(t, 1)), 2);
    t = acc_node_type(seg);
    cr_assert_eq(acc_type_get_rank(acc_type_get_field(t, 0)), 3);
    cr_assert_eq(acc_type_get_rank(acc_type_get_field(t, 1)), 3);
    t = acc_node_type(one);
    cr_assert_eq(acc_type_get_kind(t), ACC_TYPE_ARRAY);
    cr_assert_eq(acc_type_get_rank(t), 3);
    /* acc_get takes the totals alone */
    acc_node *totals = acc_get(g, plain, 1);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &totals, &p));
    cr_assert_eq(acc_program_num_outputs(p), 1);
    acc_program_free(p);
}

Test(scans, tuple_elements_componentwise)
{
    /* scanl over (i32, f32) pairs of a 2x4 matrix, f = (+, max) */
    int32_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float b[8] = {0.5f, -3.0f, 2.0f, 1.0f, -1.0f, 4.5f, 4.0f, 9.0f};
    int64_t ext[2] = {2, 4};
    const acc_type *fields[2] = {ts_sc(ACC_I32), ts_sc(ACC_F32)};
    const acc_type *pair = acc_type_tuple(ctx, 2, fields);
    acc_node *x = acc_param(g, pair), *y = acc_param(g, pair);
    acc_node *items[2] = {
        acc_binop(g, ACC_OP_ADD, acc_get(g, x, 0), acc_get(g, y, 0)),
        acc_binop(g, ACC_OP_MAX, acc_get(g, x, 1), acc_get(g, y, 1))};
    acc_node *f = ts_lam2(g, x, y, acc_tuple(g, 2, items));
    acc_node *zi[2] = {ts_i32(g, 10), ts_f32(g, 0.0f)};
    acc_node *xs = acc_input(g, pair, 2);
    acc_node *rs[2] = {acc_scan(g, ACC_SCANL, f, acc_tuple(g, 2, zi), xs),
                       acc_scan(g, ACC_SCANR1, f, NULL, xs)};
    void *bufs[2] = {a, b};
    acc_array in = ts_host_array(pair, 2, ext, bufs), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 2, rs, 1, &in, out));
    cr_assert_eq(out[0].extents[1], 5);
    cr_assert_eq(out[1].extents[1], 4);
    for (int row = 0; row < 2; row++) {
        int32_t s = 10;
        float m = 0.0f;
        for (int i = 0; i <= 4; i++) {
            if (i > 0) {
                s += a[row * 4 + i - 1];
                m = b[row * 4 + i - 1] > m ? b[row * 4 + i - 1] : m;
            }
            cr_assert_eq(((const int32_t *)out[0].data[0])[row * 5 + i], s);
            cr_assert_eq(((const float *)out[0].data[1])[row * 5 + i], m);
        }
        s = 0;
        m = -1e30f;
        for (int i = 3; i >= 0; i--) {
            s += a[row * 4 + i];
            m = b[row * 4 + i] > m ? b[row * 4 + i] : m;
            cr_assert_eq(((const int32_t *)out[1].data[0])[row * 4 + i], s);
            cr_assert_eq(((const float *)out[1].data[1])[row * 4 + i], m);
        }
    }
    acc_array_release(&out[0]);
    acc_array_release(&out[1]);
}

/* ---- empty rows ------------------------------------------------------------------------ */

Test(scans, seeded_kinds_on_an_empty_vector)
{
    /* scanl gives [z], scanl' ([], z), the others [] */
    for (int i = 0; i < 10; i++) {
        acc_scan_kind kind = all_kinds[i];
        if (!seeded(kind))
            continue;
        acc_array out[2];
        run_vector(kind, ACC_OP_SUB, 100, NULL, 0, out);
        int full = kind == ACC_SCANL || kind == ACC_SCANR;
        int64_t want = 100;
        expect_vector(&out[0], &want, full ? 1 : 0);
        acc_array_release(&out[0]);
        if (primed(kind)) {
            cr_assert_eq(*(const int64_t *)out[1].data[0], 100);
            acc_array_release(&out[1]);
        }
        acc_graph_free(g);
        g = ts_graph(ctx);
    }
}

static void check_scan1_empty(acc_scan_kind kind, const char *name)
{
    int64_t ext[2] = {2, 0}, x[6] = {1, 2, 3, 4, 5, 6};
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *a = acc_param(g, ts_sc(ACC_I64)),
             *b = acc_param(g, ts_sc(ACC_I64));
    acc_node *r = acc_scan(g, kind,
                           ts_lam2(g, a, b, acc_binop(g, ACC_OP_ADD, a, b)),
                           NULL, xs);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    acc_array in = ts_host(ACC_I64, 2, ext, x), out;
    ts_expect_error(ts_run_program(p, 1, &in, 1, &out), ACC_ERR_RUNTIME, name);
    cr_assert_null(out.data[0]);
    ext[1] = 3;
    in = ts_host(ACC_I64, 2, ext, x);
    ts_expect_ok(g, ts_run_program(p, 1, &in, 1, &out));
    /* row 1 is [4, 5, 6]: its total ends scanl1 and starts scanr1 */
    cr_assert_eq(((const int64_t *)out.data[0])[kind == ACC_SCANL1 ? 5 : 3],
                 15);
    acc_array_release(&out);
    acc_program_free(p);
}

Test(scans, scanl1_of_an_empty_row_is_a_runtime_error)
{
    check_scan1_empty(ACC_SCANL1, "scanl1");
}

Test(scans, scanr1_of_an_empty_row_is_a_runtime_error)
{
    check_scan1_empty(ACC_SCANR1, "scanr1");
}

Test(scans, scan1_of_no_rows_is_empty)
{
    int64_t ext[2] = {0, 0};
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *a = acc_param(g, ts_sc(ACC_I64)),
             *b = acc_param(g, ts_sc(ACC_I64));
    acc_node *r = acc_scan(g, ACC_SCANL1,
                           ts_lam2(g, a, b, acc_binop(g, ACC_OP_ADD, a, b)),
                           NULL, xs);
    acc_array in = ts_host(ACC_I64, 2, ext, NULL), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    cr_assert_eq(acc_array_size(&out), 0);
    acc_array_release(&out);
}

/* ---- segment errors --------------------------------------------------------------------- */

static void check_bad_segments(acc_scan_kind kind, const int64_t *bad,
                               int64_t nb, acc_status want, const char *name)
{
    int64_t x[5] = {1, 2, 3, 4, 5}, n = 5, good[2] = {2, 3}, ng = 2;
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *a = acc_param(g, ts_sc(ACC_I64)),
             *b = acc_param(g, ts_sc(ACC_I64));
    acc_node *r = acc_scan_seg(g, kind,
                               ts_lam2(g, a, b, acc_binop(g, ACC_OP_ADD, a, b)),
                               seeded(kind) ? ts_i64(g, 0) : NULL, xs, sn);
    acc_program *p = NULL;
    ts_expect_ok(g, acc_compile(ctx, g, 1, &r, &p));
    size_t n_out = primed(kind) ? 2 : 1;
    acc_array in[2] = {ts_host(ACC_I64, 1, &n, x),
                       ts_host(ACC_I64, 1, &nb, (int64_t *)bad)};
    acc_array out[2];
    ts_expect_error(ts_run_program(p, 2, in, n_out, out), want, name);
    cr_assert_null(out[0].data[0]);
    in[1] = ts_host(ACC_I64, 1, &ng, good);
    ts_expect_ok(g, ts_run_program(p, 2, in, n_out, out));
    int full = kind == ACC_SCANL || kind == ACC_SCANR;
    cr_assert_eq(out[0].extents[0], full ? 7 : 5);
    for (size_t i = 0; i < n_out; i++)
        acc_array_release(&out[i]);
    acc_program_free(p);
}

Test(scans, segments_beyond_the_row_are_a_shape_error)
{
    int64_t bad[2] = {4, 2};
    check_bad_segments(ACC_SCANL, bad, 2, ACC_ERR_SHAPE, "scanlSeg");
}

Test(scans, negative_segment_length_is_a_runtime_error)
{
    int64_t bad[3] = {1, -2, 1};
    check_bad_segments(ACC_SCANR_PRIME, bad, 3, ACC_ERR_RUNTIME, "scanr'Seg");
}

Test(scans, segment_errors_name_every_kind)
{
    int64_t bad[1] = {6};
    for (int i = 0; i < 10; i++) {
        char name[32];
        snprintf(name, sizeof name, "%sSeg", kind_names[all_kinds[i]]);
        check_bad_segments(all_kinds[i], bad, 1, ACC_ERR_SHAPE, name);
        acc_graph_free(g);
        g = ts_graph(ctx);
    }
}

/* ---- builder errors --------------------------------------------------------------------- */

static acc_node *add_fn(acc_scalar s)
{
    acc_node *a = acc_param(g, ts_sc(s)), *b = acc_param(g, ts_sc(s));
    return ts_lam2(g, a, b, acc_binop(g, ACC_OP_ADD, a, b));
}

Test(scans, scan1_kinds_take_no_seed)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    ts_expect_refused(ctx, g,
                      acc_scan(g, ACC_SCANR1, add_fn(ACC_I64), ts_i64(g, 0),
                               xs),
                      ACC_ERR_INVALID_ARGUMENT, "scanr1");
}

Test(scans, seeded_kinds_need_a_seed)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    ts_expect_refused(ctx, g,
                      acc_scan(g, ACC_POSTSCANL, add_fn(ACC_I64), NULL, xs),
                      ACC_ERR_INVALID_ARGUMENT, "postscanl");
}

Test(scans, unknown_kind)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    ts_expect_refused(ctx, g,
                      acc_scan(g, (acc_scan_kind)11, add_fn(ACC_I64),
                               ts_i64(g, 0), xs),
                      ACC_ERR_INVALID_ARGUMENT, "scan");
}

Test(scans, unknown_kind_zero_segmented)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *sn = acc_input(g, ts_sc(ACC_I64), 1);
    ts_expect_refused(ctx, g,
                      acc_scan_seg(g, (acc_scan_kind)0, add_fn(ACC_I64),
                                   ts_i64(g, 0), xs, sn),
                      ACC_ERR_INVALID_ARGUMENT, "scan");
}

Test(scans, rank0_array_is_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 0);
    ts_expect_refused(ctx, g,
                      acc_scan(g, ACC_SCANL, add_fn(ACC_I64), ts_i64(g, 0), xs),
                      ACC_ERR_SHAPE, "scanl");
}

Test(scans, seed_of_the_wrong_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    ts_expect_refused(ctx, g,
                      acc_scan(g, ACC_PRESCANR, add_fn(ACC_I64), ts_f64(g, 0),
                               xs),
                      ACC_ERR_TYPE, "prescanr");
}

Test(scans, function_of_the_wrong_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I32), 1);
    ts_expect_refused(ctx, g,
                      acc_scan(g, ACC_SCANL1, add_fn(ACC_I64), NULL, xs),
                      ACC_ERR_TYPE, "scanl1");
}

/* Segments of any integer type are accepted (test_segment_types.c);
 * others are refused. */
Test(scans, segments_must_be_a_vector_of_an_integer_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    acc_node *sn = acc_input(g, ts_sc(ACC_F64), 1);
    ts_expect_refused(ctx, g,
                      acc_scan_seg(g, ACC_SCANL_PRIME, add_fn(ACC_I64),
                                   ts_i64(g, 0), xs, sn),
                      ACC_ERR_TYPE, "scanl'Seg");
}

Test(scans, missing_segments)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    ts_expect_refused(ctx, g,
                      acc_scan_seg(g, ACC_SCANR, add_fn(ACC_I64), ts_i64(g, 0),
                                   xs, NULL),
                      ACC_ERR_INVALID_ARGUMENT, "scanrSeg");
}

Test(scans, builder_error_leaves_the_context_usable)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    cr_assert_null(acc_scan(g, ACC_SCANL1, add_fn(ACC_I64), ts_i64(g, 1),
                            xs));
    cr_assert_null(acc_scan(g, ACC_SCANL, add_fn(ACC_I64), ts_i64(g, 1), xs),
                   "builder errors are sticky");
    cr_assert(ts_contains_ci(acc_graph_last_error(g), "scanl1"));
    acc_graph_free(g);
    g = ts_graph(ctx);
    int64_t x[3] = {1, 2, 3}, want[3] = {1, 3, 6};
    acc_array out;
    run_vector(ACC_SCANL1, ACC_OP_ADD, 0, x, 3, &out);
    expect_vector(&out, want, 3);
    acc_array_release(&out);
}
