/*
 * test_cpu_scan_seg.c — the CPU backend's segmented scans (scanlSeg,
 * scanl'Seg, ... : core/skeletons/cpu/scan.c.in with SEGMENTED), the maps
 * applied in a consumer's store, maps over arrays without kernels of their
 * own, and the host steps (reshape, unit), against the reference
 * interpreter.
 *
 * Every program is built on both backends, run on the same inputs and
 * the outputs compared bit for bit (ts_differ: integers only here, so the
 * sequential order of the segments shows); every step must be compiled
 * ("interpreted":0).  Runtime errors and refused descriptors must give the
 * interpreter's status and message.  Every test skips when there is no
 * working C compiler.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

TestSuite(cpu_scan_seg, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

static const acc_scan_kind all_kinds[10] = {
    ACC_SCANL, ACC_SCANL_PRIME, ACC_SCANL1, ACC_SCANR, ACC_SCANR_PRIME,
    ACC_SCANR1, ACC_PRESCANL, ACC_POSTSCANL, ACC_PRESCANR, ACC_POSTSCANR};

enum source { MANIFEST, EMBEDDED, DIGITS };
enum combiner { ADD, SUB };

typedef struct case_t {
    acc_scan_kind kind;
    int rank;
    int64_t ext[3];
    enum source source;  /* MANIFEST: xs itself; EMBEDDED: a generate
                            reading xs reversed along the row; DIGITS:
                            (d, 10) pairs of the digits of xs under
                            ts_cat_fn (associative, not commutative) */
    enum combiner f;     /* on i64 elements: (+), or (-) (neither
                            associative nor commutative: order shows) */
    int mapped;          /* 1: map (\v -> v * 3 + 1) after the scan;
                            2: then map (\(a, b) -> a - 2 * b) after
                            map (\v -> (v * 3 + 1, v)) */
    int divide_at;       /* > 0: the producer divides by zero at innermost
                            j = divide_at - 1 (EMBEDDED) */
    size_t n_seg;
    int64_t seg[16];
    int plain;           /* the plain scan (no segments) */
} case_t;

/* The element at ix of an EMBEDDED source: xs at the mirrored innermost
 * position, minus j (so that it is not xs itself). */
static acc_node *embedded_elem(acc_graph *g, const case_t *c, acc_node *xs,
                               acc_node *ix)
{
    int r = c->rank;
    acc_node *comps[3], *j = acc_get(g, ix, (size_t)r - 1);
    for (int d = 0; d < r - 1; d++)
        comps[d] = acc_get(g, ix, (size_t)d);
    acc_node *n = acc_get(g, acc_shape(g, xs), (size_t)r - 1);
    comps[r - 1] = acc_binop(g, ACC_OP_SUB, acc_binop(g, ACC_OP_SUB, n,
                                                      ts_i64(g, 1)), j);
    acc_node *x = acc_binop(g, ACC_OP_SUB,
                            acc_read(g, xs, acc_index(g, (size_t)r, comps)), j);
    if (c->divide_at > 0)
        x = acc_binop(g, ACC_OP_ADD, x, acc_binop(g, ACC_OP_QUOT,
                      ts_i64(g, 1000), acc_binop(g, ACC_OP_SUB, j,
                                                 ts_i64(g, c->divide_at - 1))));
    return x;
}

/* (|x| rem 10, 10): one decimal digit and its weight. */
static acc_node *digit_elem(acc_graph *g, acc_node *xs, acc_node *ix)
{
    acc_node *d = acc_binop(g, ACC_OP_REM, acc_unop(g, ACC_OP_ABS,
                            acc_read(g, xs, ix)), ts_i64(g, 10));
    return acc_tuple(g, 2, (acc_node *[]){d, ts_i64(g, 10)});
}

static acc_node *source_of(acc_graph *g, const case_t *c, acc_node *xs)
{
    if (c->source == MANIFEST)
        return xs;
    acc_node *ix = acc_param(g, acc_type_shape(c->rank));
    acc_node *e = c->source == EMBEDDED ? embedded_elem(g, c, xs, ix)
                                        : digit_elem(g, xs, ix);
    return acc_generate(g, acc_shape(g, xs), acc_lambda(g, 1, &ix, e));
}

/* map (\v -> v * 3 + 1) r, or (chain) map (\(a, b) -> a - 2 * b)
 * (map (\v -> (v * 3 + 1, v)) r): fusion keeps both maps after the
 * consumer, and the kernel applies them as it writes. */
static acc_node *post_maps(acc_graph *g, int chain, acc_node *r)
{
    acc_node *v = acc_param(g, acc_type_scalar(ACC_I64));
    acc_node *w = acc_binop(g, ACC_OP_ADD, acc_binop(g, ACC_OP_MUL, v,
                            ts_i64(g, 3)), ts_i64(g, 1));
    if (chain < 2)
        return acc_map(g, ts_lam1(g, v, w), r);
    r = acc_map(g, ts_lam1(g, v, acc_tuple(g, 2, (acc_node *[]){w, v})), r);
    acc_node *p = acc_param(g, acc_type_get_elem(acc_node_type(r)));
    acc_node *d = acc_binop(g, ACC_OP_SUB, acc_get(g, p, 0), acc_binop(g,
                            ACC_OP_MUL, ts_i64(g, 2), acc_get(g, p, 1)));
    return acc_map(g, ts_lam1(g, p, d), r);
}

static acc_node *build_case(acc_graph *g, const void *arg)
{
    const case_t *c = arg;
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), c->rank);
    acc_node *seg = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *arr = source_of(g, c, xs);
    acc_node *f, *z;
    if (c->source == DIGITS) {
        f = ts_cat_fn(g, acc_type_get_elem(acc_node_type(arr)), 1000000007);
        z = acc_tuple(g, 2, (acc_node *[]){ts_i64(g, 7), ts_i64(g, 10)});
    } else {
        f = ts_binop_fn(g, ACC_I64, c->f == ADD ? ACC_OP_ADD : ACC_OP_SUB);
        z = ts_i64(g, 42);
    }
    int unseeded = c->kind == ACC_SCANL1 || c->kind == ACC_SCANR1;
    acc_node *r = c->plain
        ? acc_scan(g, c->kind, f, unseeded ? NULL : z, arr)
        : acc_scan_seg(g, c->kind, f, unseeded ? NULL : z, arr, seg);
    return c->mapped ? post_maps(g, c->mapped, r) : r;
}

static acc_status check(const case_t *c)
{
    return ts_differ_segmented(build_case, c, c->rank, c->ext, c->seg,
                               (int64_t)c->n_seg, 0);
}

static int is_primed(acc_scan_kind k)
{
    return k == ACC_SCANL_PRIME || k == ACC_SCANR_PRIME;
}

/* ------------------------------------------------------------------------
 * Every kind, ranks 1 to 3, each source
 * ------------------------------------------------------------------------ */

Test(cpu_scan_seg, every_kind_ranks_1_to_3)
{
    static const int64_t shapes[3][3] = {{40, 0, 0}, {5, 37, 0},
                                         {3, 2, 30}};
    /* empty segments first, inside and last; a segment of one; the last
     * elements of each row left out */
    static const int64_t lens[] = {0, 7, 1, 0, 12, 9, 0};
    /* every kind at every rank, and from every source (a kernel each: the
     * sources rotate over the ranks) */
    for (int k = 0; k < 10; k++)
        for (int rank = 1; rank <= 3; rank++) {
            int source = (k + rank) % 3;
            case_t c = {.kind = all_kinds[k], .rank = rank,
                        .source = (enum source)source, .n_seg = 7};
            memcpy(c.ext, shapes[rank - 1], sizeof c.ext);
            memcpy(c.seg, lens, sizeof lens);
            cr_expect_eq(check(&c), ACC_OK, "kind %d rank %d source %d",
                         (int)all_kinds[k], rank, source);
        }
}

Test(cpu_scan_seg, not_commutative_nor_associative_and_mapped)
{
    static const int64_t lens[] = {3000, 0, 1, 4999, 2000};
    for (int k = 0; k < 10; k++) {
        case_t sub = {.kind = all_kinds[k], .rank = 2, .ext = {3, 10000},
                      .f = SUB, .n_seg = 5};
        case_t sub_embedded = sub;
        sub_embedded.source = EMBEDDED;
        sub_embedded.rank = 1;
        sub_embedded.ext[0] = 10000;
        sub_embedded.mapped = !is_primed(all_kinds[k]);
        case_t *cases[] = {&sub, &sub_embedded};
        for (size_t i = 0; i < 2; i++) {
            memcpy(cases[i]->seg, lens, sizeof lens);
            cr_expect_eq(check(cases[i]), ACC_OK, "kind %d case %zu",
                         (int)all_kinds[k], i);
        }
    }
}

/* fold (+) 0 xs followed by one map or a chain of two. */
static acc_node *build_fold_mapped(acc_graph *g, const void *arg)
{
    const int *chain = arg;
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), 2);
    return post_maps(g, *chain, acc_fold(g, ts_binop_fn(g, ACC_I64,
                                         ACC_OP_ADD), ts_i64(g, 0), xs));
}

Test(cpu_scan_seg, maps_after_scans_and_folds)
{
    static const int64_t lens[] = {5, 0, 9, 1};
    for (int k = 0; k < 10; k++) {
        if (is_primed(all_kinds[k]))
            continue; /* a tuple of arrays: a map cannot follow it */
        /* plain and segmented; one map and a chain, manifest and
         * embedded sources, alternating over the kinds */
        for (int plain = 0; plain <= 1; plain++) {
            case_t c = {.kind = all_kinds[k], .rank = 2, .ext = {4, 17},
                        .source = (k / 2 + plain) % 2 ? EMBEDDED : MANIFEST,
                        .f = SUB, .mapped = 1 + (k + plain) % 2,
                        .plain = plain, .n_seg = 4};
            memcpy(c.seg, lens, sizeof lens);
            cr_expect_eq(check(&c), ACC_OK, "kind %d plain %d",
                         (int)all_kinds[k], plain);
        }
    }
    int64_t ext[2] = {3, 50}, xs[150];
    for (int i = 0; i < 150; i++)
        xs[i] = i * 37 % 101 - 50;
    acc_array in = ts_host_array(acc_type_scalar(ACC_I64), 2, ext,
                                 (void *[]){xs});
    for (int chain = 1; chain <= 2; chain++)
        cr_expect_eq(ts_differ(build_fold_mapped, &chain, 1, &in, 0, 0),
                     ACC_OK);
}

/* ------------------------------------------------------------------------
 * Empty arrays, no segments, descriptor errors, producer errors
 * ------------------------------------------------------------------------ */

Test(cpu_scan_seg, empty_rows_no_rows_no_segments)
{
    for (int k = 0; k < 10; k++) {
        acc_scan_kind kind = all_kinds[k];
        /* empty rows, empty segments only */
        case_t a = {kind, 2, {4, 0, 0}, EMBEDDED, ADD, 0, 0, 2, {0, 0}, 0};
        cr_expect_eq(check(&a), ACC_OK, "kind %d", (int)kind);
        /* no rows */
        case_t b = {kind, 3, {0, 3, 5}, DIGITS, ADD, 0, 0, 3, {2, 0, 3}, 0};
        cr_expect_eq(check(&b), ACC_OK, "kind %d", (int)kind);
        /* no segments: empty results; the producer still runs */
        case_t c = {kind, 2, {3, 5, 0}, MANIFEST, SUB, 0, 0, 0, {0}, 0};
        cr_expect_eq(check(&c), ACC_OK, "kind %d", (int)kind);
        case_t d = {kind, 2, {2, 6, 0}, EMBEDDED, ADD, 0, 0, 0, {0}, 0};
        cr_expect_eq(check(&d), ACC_OK, "kind %d", (int)kind);
        case_t e = d;
        e.divide_at = 4;
        cr_expect_eq(check(&e), ACC_ERR_RUNTIME, "kind %d", (int)kind);
    }
}

Test(cpu_scan_seg, descriptor_and_producer_errors)
{
    for (int k = 0; k < 10; k++) {
        acc_scan_kind kind = all_kinds[k];
        /* a negative length; a segment ending beyond the row */
        case_t neg = {kind, 2, {3, 10, 0}, MANIFEST, ADD, 0, 0, 3, {2, -1, 3},
                      0};
        cr_expect_eq(check(&neg), ACC_ERR_RUNTIME, "kind %d", (int)kind);
        case_t longer = {kind, 2, {3, 10, 0}, EMBEDDED, SUB, 0, 0, 3,
                         {2, 5, 4}, 0};
        cr_expect_eq(check(&longer), ACC_ERR_SHAPE, "kind %d", (int)kind);
        /* a segment beyond the row when there are no rows at all */
        case_t no_rows = {kind, 2, {0, 10, 0}, MANIFEST, ADD, 0, 0, 1, {11},
                          0};
        cr_expect_eq(check(&no_rows), ACC_ERR_SHAPE, "kind %d", (int)kind);
        /* division by zero in the producer: inside a segment, and past the
         * last segment (the interpreter computes the whole producer) */
        case_t inside = {kind, 2, {3, 10, 0}, EMBEDDED, ADD, 0, 3, 2, {4, 2},
                         0};
        cr_expect_eq(check(&inside), ACC_ERR_RUNTIME, "kind %d", (int)kind);
        case_t tail = {kind, 2, {3, 10, 0}, EMBEDDED, ADD, 0, 3, 2, {1, 1},
                       0};
        cr_expect_eq(check(&tail), ACC_ERR_RUNTIME, "kind %d", (int)kind);
    }
}

/* ------------------------------------------------------------------------
 * A random differential test of segmented scans
 * ------------------------------------------------------------------------ */

Test(cpu_scan_seg, random_lengths_and_data)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 60; round++) {
        /* the program from the kind and the source (30 kernels at most),
         * the data and the segments at random */
        int k = (int)ts_rnd(&rng, 10), source = (int)ts_rnd(&rng, 3);
        case_t c = {.kind = all_kinds[k], .rank = 1 + (k + source) % 2,
                    .source = (enum source)source,
                    .f = (enum combiner)((k / 2 + source) % 2)};
        c.mapped = !is_primed(c.kind) && c.source != DIGITS && k % 2;
        c.ext[0] = 1 + ts_rnd(&rng, 4);
        c.n_seg = ts_rnd(&rng, 17);
        int64_t used = 0;
        for (size_t s = 0; s < c.n_seg; s++)
            used += c.seg[s] = ts_rnd(&rng, 3) ? ts_rnd(&rng, 300) : 0;
        c.ext[c.rank - 1] = used + ts_rnd(&rng, 3) * ts_rnd(&rng, 100);
        cr_expect_eq(check(&c), ACC_OK, "round %d", round);
    }
}

/* ------------------------------------------------------------------------
 * What the plan says: kernels, host steps, nothing interpreted
 * ------------------------------------------------------------------------ */

/* The CPU section of acc_program_explain's JSON for the program of
 * `build`; malloc'd. */
static char *cpu_plan(ts_build_fn build, const void *arg)
{
    acc_context *ctx = ts_cpu_context();
    acc_graph *g = ts_graph(ctx);
    acc_node *r = build(g, arg);
    acc_program *p = NULL;
    char *json = NULL;
    cr_assert_eq(acc_compile(ctx, g, 1, &r, &p), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    const char *cpu = strstr(json, "\"cpu\":");
    cr_assert_not_null(cpu, "%s", json);
    char *copy = strdup(cpu);
    acc_free(json);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
    return copy;
}

static void expect_in(const char *json, const char *what)
{
    cr_expect(strstr(json, what) != NULL, "expected %s in %s", what, json);
}

Test(cpu_scan_seg, the_plan_reports_the_scan_compiled)
{
    case_t c = {ACC_SCANL, 2, {2, 6, 0}, EMBEDDED, SUB, 1, 0, 2, {2, 3}, 0};
    char *cpu = cpu_plan(build_case, &c);
    expect_in(cpu, "\"kernels\":1,\"host_steps\":0,\"interpreted\":0,");
    free(cpu);
}

/* reshape [rows * n] (scanl1Seg (+) xs seg) and unit (the (fold1 (+)
 * (reshape [rows * n] ...))), as a tuple of arrays; `extent` replaces the
 * reshape's extent when nonzero (a size mismatch). */
typedef struct host_case {
    int64_t rows, n, extent;
} host_case;

static acc_node *build_host_steps(acc_graph *g, const void *arg)
{
    const host_case *h = arg;
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), 2);
    acc_node *seg = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *s = acc_scan_seg(g, ACC_SCANL1, ts_binop_fn(g, ACC_I64,
                               ACC_OP_ADD), NULL, xs, seg);
    acc_node *flat = acc_reshape(g, ts_shape1(g, h->extent ? h->extent
                                              : h->rows * h->n), s);
    acc_node *total = acc_fold1(g, ts_binop_fn(g, ACC_I64, ACC_OP_MAX), flat);
    acc_node *u = acc_unit(g, acc_binop(g, ACC_OP_MUL, acc_the(g, total),
                                        ts_i64(g, 2)));
    return acc_tuple(g, 2, (acc_node *[]){flat, u});
}

static acc_status check_host(const host_case *h, const int64_t *lens,
                             int64_t k)
{
    int64_t ext[2] = {h->rows, 0};
    for (int64_t s = 0; s < k; s++)
        ext[1] += lens[s];
    int64_t *xs = malloc((size_t)(ext[0] * ext[1] + 1) * sizeof *xs);
    for (int64_t i = 0; i < ext[0] * ext[1]; i++)
        xs[i] = (i * 31) % 17 - 8;
    acc_array in[2] = {
        ts_host_array(acc_type_scalar(ACC_I64), 2, ext, (void *[]){xs}),
        ts_host_array(acc_type_scalar(ACC_I64), 1, &k,
                      (void *[]){(void *)lens})};
    acc_status st = ts_differ(build_host_steps, h, 2, in, 0, 0);
    free(xs);
    return st;
}

Test(cpu_scan_seg, reshape_and_unit_are_host_steps)
{
    static const int64_t lens[] = {3, 0, 4};
    host_case ok = {5, 7, 0};
    char *cpu = cpu_plan(build_host_steps, &ok);
    /* the segmented scan and the fold are kernels; the reshape and the
     * unit are done by the host */
    expect_in(cpu, "\"kernels\":2,\"host_steps\":2,\"interpreted\":0,");
    free(cpu);
    cr_expect_eq(check_host(&ok, lens, 3), ACC_OK);
    /* a reshape to the wrong size: the interpreter's error and message */
    host_case bad = {5, 7, 36};
    cr_expect_eq(check_host(&bad, lens, 3), ACC_ERR_SHAPE);
}

/* ------------------------------------------------------------------------
 * Maps over arrays the host makes
 * ------------------------------------------------------------------------ */

enum { OVER_SCANNED, OVER_TOTALS, OVER_RESHAPE, OVER_BAD_RESHAPE, OVER_UNIT,
       OVER_ACOND, N_OVER };

/* map (\v -> v * 3 + 1) over: the scanned part of scanl' (+) 0 xs, the
 * totals of scanr'Seg (-) 0 xs seg, reshape [rows * n] xs (or to 7
 * elements), unit (the (fold1 max (flatten xs))), acond (sum > 0)
 * (scanl1 (+) xs) (scanr1 max xs). */
static acc_node *build_map_over(acc_graph *g, const void *arg)
{
    int which = *(const int *)arg;
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I64), 2);
    acc_node *seg = acc_input(g, acc_type_scalar(ACC_I64), 1);
    acc_node *add = ts_binop_fn(g, ACC_I64, ACC_OP_ADD);
    acc_node *a = NULL;
    switch (which) {
    case OVER_SCANNED:
        a = acc_get(g, acc_scan(g, ACC_SCANL_PRIME, add, ts_i64(g, 0), xs), 0);
        break;
    case OVER_TOTALS:
        a = acc_get(g, acc_scan_seg(g, ACC_SCANR_PRIME, ts_binop_fn(g, ACC_I64,
                    ACC_OP_SUB), ts_i64(g, 0), xs, seg), 1);
        break;
    case OVER_RESHAPE:
    case OVER_BAD_RESHAPE: {
        acc_node *size = which == OVER_RESHAPE ? acc_size(g, xs) : ts_i64(g, 7);
        a = acc_reshape(g, acc_index(g, 1, &size), xs);
        break;
    }
    case OVER_UNIT:
        a = acc_unit(g, acc_the(g, acc_fold1(g, ts_binop_fn(g, ACC_I64,
                     ACC_OP_MAX), acc_flatten(g, xs))));
        break;
    default: {
        acc_node *sum = acc_the(g, acc_fold(g, add, ts_i64(g, 0),
                                            acc_flatten(g, xs)));
        a = acc_acond(g, acc_binop(g, ACC_OP_GT, sum, ts_i64(g, 0)),
                      acc_scan(g, ACC_SCANL1, add, NULL, xs),
                      acc_scan(g, ACC_SCANR1, ts_binop_fn(g, ACC_I64,
                               ACC_OP_MAX), NULL, xs));
        break;
    }
    }
    return post_maps(g, 1, a);
}

Test(cpu_scan_seg, maps_over_arrays_without_kernels)
{
    static const int64_t lens[] = {2, 0, 5};
    for (int sign = -1; sign <= 1; sign += 2) {
        int64_t ext[2] = {3, 8}, k = 3, xs[24];
        for (int i = 0; i < 24; i++)
            xs[i] = sign * (i * 13 % 29 - 5);
        acc_array in[2] = {
            ts_host_array(acc_type_scalar(ACC_I64), 2, ext, (void *[]){xs}),
            ts_host_array(acc_type_scalar(ACC_I64), 1, &k,
                          (void *[]){(void *)lens})};
        for (int which = 0; which < N_OVER; which++)
            cr_expect_eq(ts_differ(build_map_over, &which, 2, in, 0, 0),
                         which == OVER_BAD_RESHAPE ? ACC_ERR_SHAPE : ACC_OK,
                         "case %d", which);
    }
}
