/*
 * test_stencil.c — stencils (LANGUAGE.md §3.5) on the reference
 * interpreter: the 3x3 blur of LANGUAGE.md §4, every width (3, 5, 7, 9)
 * and boundary on ranks 1 to 3 (extents smaller than the window
 * included), tuple elements, stencil2 with the intersection of extents and
 * a boundary per array, and the builder errors.
 *
 * The reference is written here: a weighted sum over the window (the
 * weight tells positions apart, so the order of the nested tuple is
 * checked), with boundaries resolved by applying each rule of the
 * language reference repeatedly until the coordinate is in range.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
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

TestSuite(stencil, .init = setup, .fini = teardown);

/* ---- small builders --------------------------------------------------- */

/* The nested tuple type of a neighbourhood (outermost dimension
 * outermost). */
static const acc_type *nb_type(const acc_type *e, int32_t rank,
                               const int32_t *w)
{
    const acc_type *t = e;
    for (int32_t d = rank - 1; d >= 0; d--) {
        const acc_type *fs[9];
        for (int32_t i = 0; i < w[d]; i++)
            fs[i] = t;
        t = acc_type_tuple(ctx, (size_t)w[d], fs);
    }
    return t;
}

/* ---- the generic case: i64 elements, weighted sums -------------------- */

typedef struct side {
    int32_t rank;
    int64_t ext[3];
    int32_t w[3];
    acc_boundary b;
} side;

static int64_t weight(int64_t pos)
{
    return 7 * pos + 3;
}

static int64_t value_at(int64_t k)
{
    return (k * k) % 23 - 11;
}

static int64_t boundary_fn_value(int32_t rank, const int64_t *ix)
{
    int64_t v = 1000;
    for (int32_t d = 0; d < rank; d++)
        v += (d + 1) * 100 * ix[d];
    return v;
}

enum { CONSTANT_VALUE = -7 };

/* Applies a boundary rule to one coordinate until it is in range. */
static int64_t resolve(acc_boundary b, int64_t i, int64_t n)
{
    while (i < 0 || i >= n) {
        if (b == ACC_BOUNDARY_CLAMP)
            i = i < 0 ? 0 : n - 1;
        else if (b == ACC_BOUNDARY_WRAP)
            i = i < 0 ? n + i : i - n;
        else if (n == 1)
            i = 0;
        else
            i = i < 0 ? -i : 2 * n - 2 - i;
    }
    return i;
}

static int64_t ref_read(const side *s, const int64_t *src)
{
    int inside = 1;
    for (int32_t d = 0; d < s->rank; d++)
        inside &= src[d] >= 0 && src[d] < s->ext[d];
    if (!inside && s->b == ACC_BOUNDARY_CONSTANT)
        return CONSTANT_VALUE;
    if (!inside && s->b == ACC_BOUNDARY_FUNCTION)
        return boundary_fn_value(s->rank, src);
    int64_t k = 0;
    for (int32_t d = 0; d < s->rank; d++)
        k = k * s->ext[d] + resolve(s->b, src[d], s->ext[d]);
    return value_at(k);
}

/* The weighted sum of the neighbourhood of ix in side s. */
static int64_t ref_weighted(const side *s, const int64_t *ix)
{
    int64_t total = 0, window = 1;
    for (int32_t d = 0; d < s->rank; d++)
        window *= s->w[d];
    for (int64_t pos = 0; pos < window; pos++) {
        int64_t src[3], rest = pos;
        for (int32_t d = s->rank - 1; d >= 0; d--) {
            src[d] = ix[d] + rest % s->w[d] - s->w[d] / 2;
            rest /= s->w[d];
        }
        total += weight(pos) * ref_read(s, src);
    }
    return total;
}

/* Adds weight(pos) * leaf for every leaf of the nested tuple t (a
 * neighbourhood of i64), in leaf order. */
static acc_node *weighted_body(acc_node *t, const acc_type *type,
                               int64_t *pos, acc_node *acc)
{
    if (acc_type_get_kind(type) == ACC_TYPE_SCALAR) {
        acc_node *term = acc_binop(g, ACC_OP_MUL, t,
                                   ts_i64(g, weight((*pos)++)));
        return acc ? acc_binop(g, ACC_OP_ADD, acc, term) : term;
    }
    for (size_t i = 0; i < acc_type_get_arity(type); i++)
        acc = weighted_body(acc_get(g, t, i), acc_type_get_field(type, i),
                            pos, acc);
    return acc;
}

static acc_node *weighted(acc_node *p, const acc_type *type)
{
    int64_t pos = 0;
    return weighted_body(p, type, &pos, NULL);
}

static acc_node *boundary_arg(const side *s)
{
    if (s->b == ACC_BOUNDARY_CONSTANT)
        return ts_i64(g, CONSTANT_VALUE);
    if (s->b != ACC_BOUNDARY_FUNCTION)
        return NULL;
    acc_node *ix = acc_param(g, acc_type_shape(s->rank));
    acc_node *v = ts_index_weight(g, ix, s->rank);
    return ts_lam1(g, ix, v);
}

static int64_t *input_values(const side *s, int64_t *size)
{
    *size = 1;
    for (int32_t d = 0; d < s->rank; d++)
        *size *= s->ext[d];
    int64_t *x = malloc((size_t)(*size ? *size : 1) * sizeof *x);
    cr_assert_not_null(x);
    for (int64_t k = 0; k < *size; k++)
        x[k] = value_at(k);
    return x;
}

/* Builds, runs and checks stencil (one side) or stencil2 (two sides:
 * f nb1 nb2 = weighted nb1 + 1000003 * weighted nb2) in a fresh graph. */
static void check_case(const side *s, int n_sides)
{
    ts_fresh_graph(ctx, &g);
    acc_node *xs[2], *r;
    acc_array in[2];
    int64_t *data[2], sizes[2];
    const acc_type *nt[2];
    acc_node *ps[2];
    for (int i = 0; i < n_sides; i++) {
        xs[i] = acc_input(g, ts_sc(ACC_I64), s[i].rank);
        data[i] = input_values(&s[i], &sizes[i]);
        in[i] = ts_host(ACC_I64, s[i].rank, s[i].ext, data[i]);
        nt[i] = nb_type(ts_sc(ACC_I64), s[i].rank, s[i].w);
        ps[i] = acc_param(g, nt[i]);
    }
    if (n_sides == 1) {
        r = acc_stencil(g, ts_lam1(g, ps[0], weighted(ps[0], nt[0])), s[0].w,
                        s[0].b, boundary_arg(&s[0]), xs[0]);
    } else {
        acc_node *body = acc_binop(g, ACC_OP_ADD, weighted(ps[0], nt[0]),
                                   acc_binop(g, ACC_OP_MUL, ts_i64(g, 1000003),
                                             weighted(ps[1], nt[1])));
        r = acc_stencil2(g, ts_lam2(g, ps[0], ps[1], body), s[0].w, s[0].b,
                         boundary_arg(&s[0]), xs[0], s[1].w, s[1].b,
                         boundary_arg(&s[1]), xs[1]);
    }
    acc_array out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, (size_t)n_sides, in, &out));
    int64_t ext[3], size = 1;
    for (int32_t d = 0; d < s[0].rank; d++) {
        ext[d] = s[0].ext[d];
        if (n_sides == 2 && s[1].ext[d] < ext[d])
            ext[d] = s[1].ext[d];
        cr_assert_eq(out.extents[d], ext[d]);
        size *= ext[d];
    }
    const int64_t *o = out.data[0];
    for (int64_t k = 0; k < size; k++) {
        int64_t ix[3], rest = k;
        for (int32_t d = s[0].rank - 1; d >= 0; d--) {
            ix[d] = rest % ext[d];
            rest /= ext[d];
        }
        int64_t want = ref_weighted(&s[0], ix);
        if (n_sides == 2)
            want += 1000003 * ref_weighted(&s[1], ix);
        cr_assert_eq(o[k], want, "rank %d, boundary %d, widths %d/%d/%d, "
                     "element %lld: %lld, expected %lld", (int)s[0].rank,
                     (int)s[0].b, (int)s[0].w[0], (int)s[0].w[1],
                     (int)s[0].w[2], (long long)k, (long long)o[k],
                     (long long)want);
    }
    acc_array_release(&out);
    for (int i = 0; i < n_sides; i++)
        free(data[i]);
}

static const acc_boundary all_boundaries[5] = {
    ACC_BOUNDARY_CLAMP, ACC_BOUNDARY_MIRROR, ACC_BOUNDARY_WRAP,
    ACC_BOUNDARY_FUNCTION, ACC_BOUNDARY_CONSTANT};

/* ---- the blur of LANGUAGE.md §4 ---------------------------------------- */

Test(stencil, blur_3x3_with_clamp)
{
    enum { R = 5, C = 7 };
    float img[R * C];
    int64_t ext[2] = {R, C};
    for (int k = 0; k < R * C; k++)
        img[k] = (float)((k * 37) % 11) * 0.5f - 1.0f;
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 2);
    const int32_t w[2] = {3, 3};
    const acc_type *nt = nb_type(ts_sc(ACC_F32), 2, w);
    acc_node *p = acc_param(g, nt);
    acc_node *v[9];
    for (int i = 0; i < 9; i++)
        v[i] = acc_get(g, acc_get(g, p, (size_t)(i / 3)), (size_t)(i % 3));
    const float k[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    acc_node *s = v[0];
    for (int i = 1; i < 9; i++)
        s = acc_binop(g, ACC_OP_ADD, s,
                      k[i] == 1
                          ? v[i]
                          : acc_binop(g, ACC_OP_MUL, ts_f32(g, k[i]), v[i]));
    acc_node *f = ts_lam1(g, p, acc_binop(g, ACC_OP_FDIV, s, ts_f32(g, 16)));
    acc_node *r = acc_stencil(g, f, w, ACC_BOUNDARY_CLAMP, NULL, xs);
    void *buf = img;
    acc_array in = ts_host_array(ts_sc(ACC_F32), 2, ext, &buf), out;
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, &out));
    const float *o = out.data[0];
    for (int y = 0; y < R; y++)
        for (int x = 0; x < C; x++) {
            float e[9];
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int yy = y + dy < 0 ? 0 : y + dy >= R ? R - 1 : y + dy;
                    int xx = x + dx < 0 ? 0 : x + dx >= C ? C - 1 : x + dx;
                    e[(dy + 1) * 3 + dx + 1] = img[yy * C + xx];
                }
            float want = (e[0] + 2 * e[1] + e[2] + 2 * e[3] + 4 * e[4] +
                          2 * e[5] + e[6] + 2 * e[7] + e[8]) / 16;
            cr_assert_float_eq(o[y * C + x], want, 1e-6, "[%d, %d]: %g, "
                               "expected %g", y, x, (double)o[y * C + x],
                               (double)want);
        }
    acc_array_release(&out);
}

/* ---- every width and boundary ------------------------------------------ */

/* Extents 1 and 2 are narrower than every window: mirror and wrap apply
 * their rule repeatedly. */
Test(stencil, rank1_every_width_and_boundary)
{
    const int64_t extents[4] = {1, 2, 4, 11};
    for (int wi = 0; wi < 4; wi++)
        for (int bi = 0; bi < 5; bi++)
            for (int ei = 0; ei < 4; ei++) {
                side s = {1, {extents[ei]}, {3 + 2 * wi}, all_boundaries[bi]};
                check_case(&s, 1);
            }
}

Test(stencil, rank2_widths_per_dimension)
{
    const int32_t widths[5][2] = {{3, 3}, {3, 5}, {5, 9}, {9, 3}, {7, 7}};
    const int64_t extents[3][2] = {{4, 5}, {2, 1}, {1, 3}};
    for (int wi = 0; wi < 5; wi++)
        for (int bi = 0; bi < 5; bi++)
            for (int ei = 0; ei < 3; ei++) {
                side s = {2, {extents[ei][0], extents[ei][1]},
                          {widths[wi][0], widths[wi][1]}, all_boundaries[bi]};
                check_case(&s, 1);
            }
}

Test(stencil, rank3_widths_per_dimension)
{
    const int32_t widths[3][3] = {{3, 3, 3}, {3, 5, 3}, {5, 3, 5}};
    const int64_t extents[2][3] = {{3, 4, 2}, {1, 2, 3}};
    for (int wi = 0; wi < 3; wi++)
        for (int bi = 0; bi < 5; bi++)
            for (int ei = 0; ei < 2; ei++) {
                side s = {3, {extents[ei][0], extents[ei][1], extents[ei][2]},
                          {widths[wi][0], widths[wi][1], widths[wi][2]},
                          all_boundaries[bi]};
                check_case(&s, 1);
            }
}

/* An empty array gives an empty result (no neighbourhood is read). */
Test(stencil, empty_array)
{
    side s = {2, {0, 4}, {3, 3}, ACC_BOUNDARY_MIRROR};
    check_case(&s, 1);
}

/* ---- stencil2 ------------------------------------------------------------ */

Test(stencil, stencil2_rank1_intersection_and_two_boundaries)
{
    side s[2] = {{1, {5}, {3}, ACC_BOUNDARY_CLAMP},
                 {1, {3}, {5}, ACC_BOUNDARY_WRAP}};
    check_case(s, 2);
    side t[2] = {{1, {2}, {9}, ACC_BOUNDARY_MIRROR},
                 {1, {6}, {3}, ACC_BOUNDARY_FUNCTION}};
    check_case(t, 2);
}

Test(stencil, stencil2_rank2_intersection_in_both_dimensions)
{
    for (int bi = 0; bi < 5; bi++) {
        side s[2] = {{2, {4, 6}, {3, 5}, all_boundaries[bi]},
                     {2, {5, 3}, {5, 3}, all_boundaries[(bi + 2) % 5]}};
        check_case(s, 2);
    }
}

Test(stencil, stencil2_rank3)
{
    side s[2] = {{3, {2, 3, 4}, {3, 3, 3}, ACC_BOUNDARY_CONSTANT},
                 {3, {3, 2, 4}, {3, 3, 5}, ACC_BOUNDARY_MIRROR}};
    check_case(s, 2);
}

/* ---- tuple elements ------------------------------------------------------ */

/* (i32, f64) elements, width 3, constant boundary (-1, 0.5): the result
 * is (left.0 + focus.0 * 10 + right.0 * 100, left.1 - right.1). */
Test(stencil, tuple_elements_with_a_constant_boundary)
{
    int32_t a[4] = {1, 2, 3, 4};
    double b[4] = {0.25, 1.5, -2.0, 8.0};
    int64_t n = 4;
    const acc_type *fs[2] = {ts_sc(ACC_I32), ts_sc(ACC_F64)};
    const acc_type *e = acc_type_tuple(ctx, 2, fs);
    acc_node *xs = acc_input(g, e, 1);
    const int32_t w[1] = {3};
    acc_node *p = acc_param(g, nb_type(e, 1, w));
    acc_node *l = acc_get(g, p, 0), *c = acc_get(g, p, 1);
    acc_node *rt = acc_get(g, p, 2);
    acc_node *res[2] =
        {acc_binop(g, ACC_OP_ADD,
                   acc_binop(g, ACC_OP_ADD, acc_get(g, l, 0),
                             acc_binop(g, ACC_OP_MUL, acc_get(g, c, 0),
                                       ts_i32(g, 10))),
                   acc_binop(g, ACC_OP_MUL, acc_get(g, rt, 0), ts_i32(g, 100))),
         acc_binop(g, ACC_OP_SUB, acc_get(g, l, 1), acc_get(g, rt, 1))};
    acc_node *cv[2] = {ts_i32(g, -1), ts_f64(g, 0.5)};
    acc_node *r = acc_stencil(g, ts_lam1(g, p, acc_tuple(g, 2, res)), w,
                              ACC_BOUNDARY_CONSTANT, acc_tuple(g, 2, cv), xs);
    void *bufs[2] = {a, b};
    acc_array in = ts_host_array(e, 1, &n, bufs), out[2];
    ts_expect_ok(g, ts_run(ctx, g, 1, &r, 1, &in, out));
    const int32_t *oa = out[0].data[0];
    const double *ob = out[0].data[1];
    for (int i = 0; i < 4; i++) {
        int32_t la = i > 0 ? a[i - 1] : -1, ra = i < 3 ? a[i + 1] : -1;
        double lb = i > 0 ? b[i - 1] : 0.5, rb = i < 3 ? b[i + 1] : 0.5;
        cr_assert_eq(oa[i], la + a[i] * 10 + ra * 100);
        cr_assert_float_eq(ob[i], lb - rb, 1e-12);
    }
    acc_array_release(&out[0]);
}

/* ---- builder errors ---------------------------------------------------- */

static acc_node *sum3_fn(void)
{
    const int32_t w[1] = {3};
    acc_node *p = acc_param(g, nb_type(ts_sc(ACC_I64), 1, w));
    return ts_lam1(g, p, acc_get(g, p, 1));
}

Test(stencil, even_width_is_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    const int32_t w[1] = {4};
    cr_assert_null(acc_stencil(g, sum3_fn(), w, ACC_BOUNDARY_CLAMP, NULL,
                               xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "stencil");
}

Test(stencil, widths_outside_3_to_9_are_refused)
{
    const int32_t bad[3] = {1, 11, -3};
    for (int i = 0; i < 3; i++) {
        acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
        cr_assert_null(acc_stencil(g, sum3_fn(), &bad[i], ACC_BOUNDARY_CLAMP,
                                   NULL, xs));
        ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "stencil");
    }
}

Test(stencil, even_width_in_the_second_dimension_is_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    const int32_t w[2] = {3, 6};
    cr_assert_null(acc_stencil(g, sum3_fn(), w, ACC_BOUNDARY_CLAMP, NULL,
                               xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "stencil");
}

Test(stencil, stencil2_even_width_is_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    const int32_t w[1] = {3}, bad[1] = {8};
    cr_assert_null(acc_stencil2(g, sum3_fn(), w, ACC_BOUNDARY_CLAMP, NULL, xs,
                                bad, ACC_BOUNDARY_CLAMP, NULL, xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "stencil2");
}

Test(stencil, rank_0_and_rank_4_are_refused)
{
    const int32_t w[4] = {3, 3, 3, 3};
    acc_node *s0 = acc_input(g, ts_sc(ACC_I64), 0);
    cr_assert_null(acc_stencil(g, sum3_fn(), w, ACC_BOUNDARY_CLAMP, NULL, s0));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "stencil");
    acc_node *s4 = acc_input(g, ts_sc(ACC_I64), 4);
    cr_assert_null(acc_stencil(g, sum3_fn(), w, ACC_BOUNDARY_CLAMP, NULL, s4));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "stencil");
}

/* The parameter must be the nested tuple: a flat tuple of 9 for a 3x3
 * neighbourhood is refused. */
Test(stencil, function_must_take_the_nested_neighbourhood)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 2);
    const int32_t w[2] = {3, 3}, flat[1] = {9};
    acc_node *p = acc_param(g, nb_type(ts_sc(ACC_I64), 1, flat));
    cr_assert_null(acc_stencil(g, ts_lam1(g, p, acc_get(g, p, 4)), w,
                               ACC_BOUNDARY_CLAMP, NULL, xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "stencil");
}

Test(stencil, clamp_takes_no_argument)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    const int32_t w[1] = {3};
    cr_assert_null(acc_stencil(g, sum3_fn(), w, ACC_BOUNDARY_CLAMP,
                               ts_i64(g, 0), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_INVALID_ARGUMENT, "stencil");
}

Test(stencil, constant_must_have_the_element_type)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    const int32_t w[1] = {3};
    cr_assert_null(acc_stencil(g, sum3_fn(), w, ACC_BOUNDARY_CONSTANT,
                               ts_f64(g, 0), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "stencil");
}

Test(stencil, function_boundary_must_take_an_index)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    const int32_t w[1] = {3};
    acc_node *v = acc_param(g, ts_sc(ACC_I64));
    cr_assert_null(acc_stencil(g, sum3_fn(), w, ACC_BOUNDARY_FUNCTION,
                               ts_lam1(g, v, v), xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_TYPE, "stencil");
}

Test(stencil, unknown_boundary_is_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    const int32_t w[1] = {3};
    cr_assert_null(acc_stencil(g, sum3_fn(), w, (acc_boundary)42, NULL, xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_INVALID_ARGUMENT, "stencil");
}

Test(stencil, stencil2_ranks_must_agree)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *ys = acc_input(g, ts_sc(ACC_I64), 2);
    const int32_t w[2] = {3, 3};
    cr_assert_null(acc_stencil2(g, sum3_fn(), w, ACC_BOUNDARY_CLAMP, NULL, xs,
                                w, ACC_BOUNDARY_CLAMP, NULL, ys));
    ts_expect_builder_error(ctx, &g, ACC_ERR_SHAPE, "stencil2");
}

/* A 9x9x9 neighbourhood has more scalar leaves than a value type may. */
Test(stencil, too_large_neighbourhood_is_refused)
{
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 3);
    const int32_t w[3] = {9, 9, 9};
    cr_assert_null(acc_stencil(g, sum3_fn(), w, ACC_BOUNDARY_CLAMP, NULL,
                               xs));
    ts_expect_builder_error(ctx, &g, ACC_ERR_UNSUPPORTED, "stencil");
}
