/*
 * test_cpu_stencil.c — the CPU backend's stencil kernels
 * (core/skeletons/cpu/stencil.c.in) against the reference interpreter:
 * the blur of LANGUAGE.md §4, every boundary on ranks 1 to 3 with widths
 * 3, 5, 7 and 9, arrays narrower than the window (extents 1, 2 and 3, where
 * mirror and wrap apply repeatedly), stencil2 with different extents,
 * boundaries and element types, tuple elements of which f reads only some
 * leaves, embedded producers, and runtime errors inside f, the boundary
 * function and the producer.
 *
 * Every program is built on the interpreter and on the CPU backend, run on
 * the same inputs, and the outputs compared bit for bit, floats included:
 * the kernel evaluates f's operations in the interpreter's order with the
 * same rounding (FLT_EVAL_METHOD 0, no contraction, no reassociation), on
 * the interior and on the border alike.  Every step must be compiled
 * ("interpreted":0 in acc_program_explain's JSON).  Runtime errors must
 * agree in status and message.  Every test skips when there is no working
 * C compiler (the CPU backend is then unavailable).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

TestSuite(cpu_stencil, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

/* ------------------------------------------------------------------------
 * The generic case: weighted sums over the neighbourhood
 * ------------------------------------------------------------------------ */

typedef struct side_case {
    int32_t rank;
    int64_t ext[3];
    int32_t w[3];
    acc_boundary b;
    acc_scalar s;  /* the element type (a tuple's first leaf) */
    int tuple;     /* elements (s, i32, bool) */
    int producer;  /* the array is map h xs: an embedded producer */
} side_case;

typedef struct st_case {
    int sides;
    side_case side[2];
    int sparse;    /* f reads only the neighbours w with w % 3 == 0 */
} st_case;

static int is_float(acc_scalar s)
{
    return s == ACC_F32 || s == ACC_F64;
}

static acc_node *num(acc_graph *g, acc_scalar s, double v)
{
    return is_float(s) ? acc_const_f64(g, s, v) : ts_int(g, s, (int64_t)v);
}

/* A value of the element type (for types only). */
static acc_node *elem_dummy(acc_graph *g, const side_case *s)
{
    if (!s->tuple)
        return num(g, s->s, 0);
    return acc_tuple(g, 3, (acc_node *[]){num(g, s->s, 0), ts_i32(g, 0),
                                          ts_bool(g, 0)});
}

/* The nested tuple type of a neighbourhood, from values of that type. */
static const acc_type *nb_type(acc_graph *g, const side_case *s)
{
    acc_node *v = elem_dummy(g, s);
    for (int32_t d = s->rank - 1; d >= 0; d--) {
        acc_node *fs[9];
        for (int32_t i = 0; i < s->w[d]; i++)
            fs[i] = v;
        v = acc_tuple(g, (size_t)s->w[d], fs);
    }
    return acc_node_type(v);
}

static int64_t window_of(const side_case *s)
{
    int64_t n = 1;
    for (int32_t d = 0; d < s->rank; d++)
        n *= s->w[d];
    return n;
}

/* Neighbour w (row-major over the window) of neighbourhood p. */
static acc_node *neighbour(acc_graph *g, acc_node *p, const side_case *s,
                           int64_t w)
{
    size_t at[3];
    for (int32_t d = s->rank - 1; d >= 0; d--) {
        at[d] = (size_t)(w % s->w[d]);
        w /= s->w[d];
    }
    for (int32_t d = 0; d < s->rank; d++)
        p = acc_get(g, p, at[d]);
    return p;
}

/* A neighbour's term: a scalar element itself; of a tuple (x, n, b) the
 * first leaf, plus at the focus (if b then n else -n): the other leaves of
 * the other neighbours are never read. */
static acc_node *term(acc_graph *g, acc_node *e, const side_case *s, int focus)
{
    if (!s->tuple)
        return e;
    acc_node *x = acc_get(g, e, 0);
    if (!focus)
        return x;
    acc_node *n = acc_get(g, e, 1);
    acc_node *pick = acc_cond(g, acc_get(g, e, 2), n,
                              acc_unop(g, ACC_OP_NEG, n));
    return acc_binop(g, ACC_OP_ADD, x, acc_convert(g, pick, s->s));
}

/* sum over the neighbours f reads of weight(w) * term(w), left to right */
static acc_node *weighted(acc_graph *g, acc_node *p, const side_case *s,
                          int sparse)
{
    int64_t window = window_of(s), centre = window / 2;
    acc_node *acc = NULL;
    for (int64_t w = 0; w < window; w++) {
        if (sparse && w % 3 != 0)
            continue;
        double weight = is_float(s->s) ? (double)(7 * w + 3) * 0.0625
                                       : (double)(7 * w + 3);
        acc_node *t = acc_binop(g, ACC_OP_MUL, num(g, s->s, weight),
                                term(g, neighbour(g, p, s, w), s, w == centre));
        acc = acc ? acc_binop(g, ACC_OP_ADD, acc, t) : t;
    }
    return acc;
}

/* constant: -7 (tuple: (-7, 5, True)); function: g ix = 1000 + sum over d
 * of (d + 1) * 100 * ix[d] (tuple: (that, i32 ix[0], ix[0] > 0)). */
static acc_node *boundary_arg(acc_graph *g, const side_case *s)
{
    if (s->b == ACC_BOUNDARY_CONSTANT)
        return s->tuple ? acc_tuple(g, 3, (acc_node *[]){num(g, s->s, -7),
                                        ts_i32(g, 5), ts_bool(g, 1)})
                        : num(g, s->s, -7);
    if (s->b != ACC_BOUNDARY_FUNCTION)
        return NULL;
    acc_node *ix = acc_param(g, acc_type_shape(s->rank));
    acc_node *v = ts_index_weight(g, ix, s->rank);
    v = acc_convert(g, v, s->s);
    if (s->tuple) {
        acc_node *i0 = acc_get(g, ix, 0);
        v = acc_tuple(g, 3, (acc_node *[]){v, acc_convert(g, i0, ACC_I32),
                      acc_binop(g, ACC_OP_GT, i0, ts_i64(g, 0))});
    }
    return ts_lam1(g, ix, v);
}

/* The array of side s: the input, or the producer map h over it
 * (h x = x * 3 + 1; of a tuple, the first leaf so and the bool negated). */
static acc_node *source(acc_graph *g, const side_case *s)
{
    const acc_type *elem = acc_node_type(elem_dummy(g, s));
    acc_node *xs = acc_input(g, elem, s->rank);
    if (!s->producer)
        return xs;
    acc_node *x = acc_param(g, elem);
    acc_node *v = s->tuple ? acc_get(g, x, 0) : x;
    v = acc_binop(g, ACC_OP_ADD, acc_binop(g, ACC_OP_MUL, v, num(g, s->s, 3)),
                  num(g, s->s, 1));
    if (s->tuple)
        v = acc_tuple(g, 3, (acc_node *[]){v, acc_get(g, x, 1),
                      acc_unop(g, ACC_OP_NOT, acc_get(g, x, 2))});
    return acc_map(g, ts_lam1(g, x, v), xs);
}

static acc_node *build_case(acc_graph *g, const void *arg)
{
    const st_case *c = arg;
    const side_case *s = c->side;
    acc_node *xs[2], *ps[2];
    for (int i = 0; i < c->sides; i++) {
        xs[i] = source(g, &s[i]);
        ps[i] = acc_param(g, nb_type(g, &s[i]));
    }
    acc_node *body = weighted(g, ps[0], &s[0], c->sparse);
    if (c->sides == 1)
        return acc_stencil(g, ts_lam1(g, ps[0], body), s[0].w, s[0].b,
                           boundary_arg(g, &s[0]), xs[0]);
    acc_node *other = acc_convert(g, weighted(g, ps[1], &s[1], c->sparse),
                                  s[0].s);
    body = acc_binop(g, ACC_OP_ADD, body,
                     acc_binop(g, ACC_OP_MUL, num(g, s[0].s, 3), other));
    return acc_stencil2(g, ts_lam2(g, ps[0], ps[1], body), s[0].w, s[0].b,
                        boundary_arg(g, &s[0]), xs[0], s[1].w, s[1].b,
                        boundary_arg(g, &s[1]), xs[1]);
}

/* Input buffers of one side: leaf 0 of type s, then i32 and bool. */
typedef struct side_data {
    void *leaf[3];
} side_data;

static void fill_side(const side_case *s, side_data *d, int64_t n)
{
    size_t bytes = (size_t)(n > 0 ? n : 1);
    memset(d, 0, sizeof *d);
    d->leaf[0] = calloc(bytes, 8);
    d->leaf[1] = calloc(bytes, 4);
    d->leaf[2] = calloc(bytes, 1);
    cr_assert(d->leaf[0] && d->leaf[1] && d->leaf[2]);
    for (int64_t k = 0; k < n; k++) {
        double f = (double)((k * 37) % 101) * 0.173 - 5.1;
        int64_t i = (k * k) % 23 - 11;
        switch (s->s) {
        case ACC_F32: ((float *)d->leaf[0])[k] = (float)f; break;
        case ACC_F64: ((double *)d->leaf[0])[k] = f; break;
        case ACC_I32: ((int32_t *)d->leaf[0])[k] = (int32_t)i; break;
        default: ((int64_t *)d->leaf[0])[k] = i; break;
        }
        ((int32_t *)d->leaf[1])[k] = (int32_t)(k % 7) - 3;
        ((uint8_t *)d->leaf[2])[k] = k % 3 == 0;
    }
}

/* Runs case c on both backends with the given extents (ext[i] for side i)
 * and expects equal outputs. */
static void check_extents(const st_case *c, const int64_t ext[2][3])
{
    acc_context *types = ts_context(ACC_BACKEND_INTERP);
    acc_array in[2];
    side_data data[2];
    for (int i = 0; i < c->sides; i++) {
        const side_case *s = &c->side[i];
        int64_t n = 1;
        for (int32_t d = 0; d < s->rank; d++)
            n *= ext[i][d];
        fill_side(s, &data[i], n);
        const acc_type *f[3] = {acc_type_scalar(s->s),
                                acc_type_scalar(ACC_I32),
                                acc_type_scalar(ACC_BOOL)};
        const acc_type *elem = s->tuple ? acc_type_tuple(types, 3, f) : f[0];
        in[i] = ts_host_array(elem, s->rank, ext[i], data[i].leaf);
    }
    acc_status st = ts_differ(build_case, c, (size_t)c->sides, in, 0, 0);
    cr_expect_eq(st, ACC_OK, "rank %d, boundary %d, widths %d/%d/%d, extents "
                 "%lld/%lld/%lld", (int)c->side[0].rank, (int)c->side[0].b,
                 (int)c->side[0].w[0], (int)c->side[0].w[1],
                 (int)c->side[0].w[2], (long long)ext[0][0],
                 (long long)ext[0][1], (long long)ext[0][2]);
    for (int i = 0; i < c->sides; i++)
        for (int l = 0; l < 3; l++)
            free(data[i].leaf[l]);
    acc_context_destroy(types);
}

/* Case c at its own extents, then with every array of extent 1, 2 and 3
 * in every dimension (narrower than any window but 3), and mixed. */
static void check_case(const st_case *c)
{
    int64_t ext[2][3];
    for (int i = 0; i < 2; i++)
        memcpy(ext[i], c->side[i].ext, sizeof ext[i]);
    check_extents(c, (const int64_t(*)[3])ext);
    static const int64_t small[4][3] = {{1, 1, 1}, {2, 2, 2}, {3, 3, 3},
                                        {2, 1, 3}};
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 2; i++)
            memcpy(ext[i], small[(k + i) % 4], sizeof ext[i]);
        check_extents(c, (const int64_t(*)[3])ext);
    }
}

static const acc_boundary all_boundaries[5] = {
    ACC_BOUNDARY_CLAMP, ACC_BOUNDARY_MIRROR, ACC_BOUNDARY_WRAP,
    ACC_BOUNDARY_FUNCTION, ACC_BOUNDARY_CONSTANT};

/* Widths per case and dimension: every width occurs in every rank (a
 * 3-D neighbourhood is bounded to 256 scalars, so no 9x9x9). */
static const int32_t widths[3][5][3] = {
    {{3}, {5}, {7}, {9}, {5}},
    {{3, 9}, {5, 7}, {7, 5}, {9, 3}, {9, 9}},
    {{3, 5, 9}, {5, 9, 5}, {7, 3, 3}, {9, 3, 7}, {3, 7, 5}}};

static const int64_t extents[3][3] = {{41}, {13, 17}, {6, 11, 12}};

Test(cpu_stencil, every_boundary_rank_and_width)
{
    static const acc_scalar types[4] = {ACC_I64, ACC_F32, ACC_F64, ACC_I32};
    for (int32_t rank = 1; rank <= 3; rank++)
        for (int b = 0; b < 5; b++) {
            st_case c = {.sides = 1};
            side_case *s = &c.side[0];
            s->rank = rank;
            memcpy(s->ext, extents[rank - 1], sizeof s->ext);
            memcpy(s->w, widths[rank - 1][b], sizeof s->w);
            s->b = all_boundaries[b];
            s->s = types[(rank + b) % 4];
            c.sparse = b == 2; /* wrap: only some neighbours */
            check_case(&c);
        }
}

Test(cpu_stencil, tuple_elements_and_partial_demand)
{
    for (int b = 0; b < 5; b++) {
        st_case c = {.sides = 1};
        side_case *s = &c.side[0];
        s->rank = 2;
        s->ext[0] = 9;
        s->ext[1] = 14;
        s->w[0] = b == 4 ? 5 : 3;
        s->w[1] = b == 3 ? 7 : 3;
        s->b = all_boundaries[b];
        s->s = b % 2 ? ACC_F64 : ACC_I64;
        s->tuple = 1;
        s->producer = b == 1;
        check_case(&c);
    }
}

Test(cpu_stencil, stencil2_different_extents_boundaries_and_types)
{
    static const side_case pairs[4][2] = {
        {{1, {30}, {3}, ACC_BOUNDARY_CLAMP, ACC_F32, 0, 0},
         {1, {17}, {9}, ACC_BOUNDARY_FUNCTION, ACC_I32, 0, 0}},
        {{2, {9, 14}, {3, 5}, ACC_BOUNDARY_MIRROR, ACC_I64, 0, 0},
         {2, {12, 5}, {7, 3}, ACC_BOUNDARY_CONSTANT, ACC_I64, 1, 0}},
        {{3, {4, 6, 5}, {3, 3, 5}, ACC_BOUNDARY_WRAP, ACC_F64, 0, 1},
         {3, {5, 3, 7}, {5, 3, 3}, ACC_BOUNDARY_CLAMP, ACC_F32, 0, 0}},
        {{2, {20, 3}, {5, 3}, ACC_BOUNDARY_CONSTANT, ACC_F32, 0, 0},
         {2, {7, 31}, {3, 9}, ACC_BOUNDARY_WRAP, ACC_I32, 0, 1}}};
    for (int k = 0; k < 4; k++) {
        st_case c = {.sides = 2};
        memcpy(c.side, pairs[k], sizeof c.side);
        c.sparse = k == 3;
        check_case(&c);
    }
}

/* Enough positions for several chunks of the pool: rank 1 (one row split
 * between chunks) and rank 2 (chunks of whole rows). */
Test(cpu_stencil, large_arrays_over_the_pool)
{
    st_case c = {.sides = 1};
    side_case *s = &c.side[0];
    *s = (side_case){1, {100003}, {7}, ACC_BOUNDARY_MIRROR, ACC_F32, 0, 0};
    int64_t ext[2][3] = {{100003}};
    check_extents(&c, (const int64_t(*)[3])ext);
    *s = (side_case){2, {301, 211}, {5, 3}, ACC_BOUNDARY_FUNCTION, ACC_I32,
                     0, 1};
    int64_t ext2[2][3] = {{301, 211}};
    check_extents(&c, (const int64_t(*)[3])ext2);
}

/* ------------------------------------------------------------------------
 * LANGUAGE.md's blur, from its text, and the plan
 * ------------------------------------------------------------------------ */

static const char blur_text[] =
    "blur (img : Matrix f32) : Matrix f32 =\n"
    "  stencil (\\((a, b, c), (d, e, f), (g, h, i)) ->\n"
    "             (a + 2*b + c + 2*d + 4*e + 2*f + g + 2*h + i) / 16) clamp "
    "img\n";

/* The blur of an r x c image on ctx (the output owned by the caller). */
static acc_array run_blur(acc_context *ctx, const float *img, int64_t r,
                          int64_t c, char **json)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, blur_text, (size_t)-1, "blur", &p),
                 ACC_OK, "%s", acc_last_error());
    int64_t ext[2] = {r, c};
    acc_array in = ts_host(ACC_F32, 2, ext, (void *)img), out;
    cr_assert_eq(ts_run_program(p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    if (json)
        cr_assert_eq(acc_program_explain(p, 1, json), ACC_OK);
    acc_program_free(p);
    return out;
}

Test(cpu_stencil, blur_of_the_language_reference)
{
    static const int64_t sizes[5][2] = {{67, 45}, {1, 1}, {2, 3}, {3, 200},
                                        {130, 2}};
    acc_context *cpu = ts_cpu_context();
    acc_context *ref = ts_context(ACC_BACKEND_INTERP);
    for (int k = 0; k < 5; k++) {
        int64_t r = sizes[k][0], c = sizes[k][1];
        float *img = malloc((size_t)(r * c) * sizeof *img);
        cr_assert_not_null(img);
        for (int64_t i = 0; i < r * c; i++)
            img[i] = (float)((i * 37) % 251) * 0.37f - 11.3f;
        char *json = NULL;
        acc_array got = run_blur(cpu, img, r, c, &json);
        acc_array want = run_blur(ref, img, r, c, NULL);
        /* one step, compiled: the stencil kernel */
        cr_expect(strstr(json, "\"cpu\":{\"kernels\":1,\"host_steps\":0,\"interpreted\":0,")
                  != NULL, "%s", json);
        cr_expect(strstr(json, "stencil") != NULL, "%s", json);
        cr_assert_eq(got.extents[0], r);
        cr_assert_eq(got.extents[1], c);
        cr_expect(memcmp(got.data[0], want.data[0], (size_t)(r * c) * 4) == 0,
                  "%lldx%lld: the blur differs from the interpreter's",
                  (long long)r, (long long)c);
        acc_free(json);
        acc_array_release(&got);
        acc_array_release(&want);
        free(img);
    }
    acc_context_destroy(cpu);
    acc_context_destroy(ref);
}

/* ------------------------------------------------------------------------
 * Embedded producers
 * ------------------------------------------------------------------------ */

/* stencil2 over two producers (maps of the inputs) fuses into one kernel:
 * the plan has one step, compiled. */
Test(cpu_stencil, embedded_producers_make_one_kernel)
{
    st_case c = {.sides = 2};
    c.side[0] = (side_case){2, {23, 19}, {3, 5}, ACC_BOUNDARY_MIRROR, ACC_F32,
                            0, 1};
    c.side[1] = (side_case){2, {21, 25}, {3, 3}, ACC_BOUNDARY_FUNCTION,
                            ACC_F32, 0, 1};
    int64_t ext[2][3] = {{23, 19}, {21, 25}};
    check_extents(&c, (const int64_t(*)[3])ext);
    acc_context *ctx = ts_cpu_context();
    acc_graph *g = ts_graph(ctx);
    acc_node *r = build_case(g, &c);
    acc_program *p = NULL;
    cr_assert_eq(acc_compile(ctx, g, 1, &r, &p), ACC_OK, "%s",
                 acc_last_error());
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    cr_expect(strstr(json, "\"cpu\":{\"kernels\":1,\"host_steps\":0,\"interpreted\":0,") != NULL,
              "%s", json);
    acc_free(json);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* ------------------------------------------------------------------------
 * Runtime errors: the interpreter's status and message
 * ------------------------------------------------------------------------ */

enum {
    ERR_F_INTERIOR,   /* f divides by (b - 7): 7 in the middle */
    ERR_F_BORDER,     /* the same with 7 first */
    ERR_G,            /* boundary g [i] = quot 100 (i + 1): i = -1 */
    ERR_PRODUCER,     /* producer quot 100 (x - 7), f reads the left
                         neighbour only: the last element (7) is never read */
    ERR_PRODUCER2,    /* stencil2: the first producer is longer than the
                         result and its last element (7) is never read */
    ERR_MATRIX,       /* 2-D: f divides by the focus minus 7 */
    ERR_KINDS
};

typedef struct err_case {
    int kind;
    int clean; /* no 7 in the input: no error at all */
} err_case;

static acc_node *divide_by(acc_graph *g, acc_node *x)
{
    return acc_binop(g, ACC_OP_QUOT, ts_i32(g, 100),
                     acc_binop(g, ACC_OP_SUB, x, ts_i32(g, 7)));
}

static acc_node *build_error(acc_graph *g, const void *arg)
{
    const err_case *ec = arg;
    int rank = ec->kind == ERR_MATRIX ? 2 : 1;
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I32), rank);
    side_case s = {rank, {0}, {3, 3}, ACC_BOUNDARY_CLAMP, ACC_I32, 0, 0};
    acc_node *p = acc_param(g, nb_type(g, &s));
    acc_node *left = neighbour(g, p, &s, 0), *focus = neighbour(g, p, &s, 1);
    if (rank == 2)
        focus = neighbour(g, p, &s, 4);
    if (ec->kind == ERR_PRODUCER || ec->kind == ERR_PRODUCER2) {
        acc_node *x = acc_param(g, acc_type_scalar(ACC_I32));
        xs = acc_map(g, ts_lam1(g, x, divide_by(g, x)), xs);
    }
    if (ec->kind == ERR_PRODUCER2) {
        acc_node *ys = acc_input(g, acc_type_scalar(ACC_I32), 1);
        acc_node *q = acc_param(g, nb_type(g, &s));
        acc_node *body = acc_binop(g, ACC_OP_ADD, focus,
                                   neighbour(g, q, &s, 1));
        return acc_stencil2(g, ts_lam2(g, p, q, body), s.w, s.b, NULL, xs,
                            s.w, s.b, NULL, ys);
    }
    acc_node *body = ec->kind == ERR_PRODUCER ? left
                   : ec->kind == ERR_G ? acc_binop(g, ACC_OP_ADD, left, focus)
                   : divide_by(g, focus);
    acc_node *barg = NULL;
    if (ec->kind == ERR_G) {
        acc_node *ix = acc_param(g, acc_type_shape(1));
        acc_node *i = acc_convert(g, acc_get(g, ix, 0), ACC_I32);
        barg = ts_lam1(g, ix, divide_by(g, acc_binop(g, ACC_OP_ADD, i,
                                                     ts_i32(g, 8))));
        s.b = ACC_BOUNDARY_FUNCTION;
    }
    return acc_stencil(g, ts_lam1(g, p, body), s.w, s.b, barg, xs);
}

Test(cpu_stencil, runtime_errors_report_the_interpreters_message)
{
    enum { N = 5000 };
    int32_t *xs = malloc(N * sizeof *xs), ys[N / 2];
    cr_assert_not_null(xs);
    for (int i = 0; i < N / 2; i++)
        ys[i] = i % 5;
    for (int kind = 0; kind < ERR_KINDS; kind++)
        for (int clean = 1; clean >= 0; clean--) {
            int64_t n = N, ext2[2] = {50, N / 50}, half = N / 2;
            for (int i = 0; i < N; i++)
                xs[i] = 10 + i % 13;
            int at = kind == ERR_F_BORDER ? 0
                   : kind == ERR_PRODUCER || kind == ERR_PRODUCER2 ? N - 1
                   : kind == ERR_MATRIX ? 17 * 100 + 31 : N / 2;
            if (!clean && kind != ERR_G)
                xs[at] = 7;
            acc_array in[2] = {
                kind == ERR_MATRIX ? ts_host(ACC_I32, 2, ext2, xs)
                                   : ts_host(ACC_I32, 1, &n, xs),
                ts_host(ACC_I32, 1, &half, ys)};
            err_case ec = {kind, clean};
            acc_status want = clean && kind != ERR_G ? ACC_OK : ACC_ERR_RUNTIME;
            cr_expect_eq(ts_differ(build_error, &ec,
                                   kind == ERR_PRODUCER2 ? 2 : 1, in, 0, 0),
                         want, "case %d, clean %d", kind, clean);
        }
    free(xs);
}
