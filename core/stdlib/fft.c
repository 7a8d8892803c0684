/*
 * fft.c — fft and ifft (LANGUAGE.md §3.8.1): foreign nodes named
 * "fft.forward" and "fft.inverse" whose fallback is written in the array
 * language.
 *
 * The fallback transforms one dimension at a time: the innermost one, then
 * it rotates the axes (the innermost becomes the outermost) and repeats,
 * rank times, so every dimension is transformed once and the axes end in
 * their original order.  A dimension whose length n is a power of two
 * uses the radix-2 Stockham autosort FFT (Cooley-Tukey without the
 * bit-reversal pass; out of place, log2 n stages in an awhile, each one
 * generate over the array); any other length uses the direct O(n^2) DFT
 * (a fold over a generated [.., n, n] array, which fusion computes without
 * storing it).  Stage with half-length m (m = 1, 2, 4, .. n/2), output
 * position p = k + 2jm + sm (k < m, s in {0, 1}):
 *   c0 = x[k + jm], c1 = x[k + jm + n/2], w = e^(sign 2 pi i jm / n)
 *   y[p] = c0 + c1 (s = 0),  w (c0 - c1) (s = 1).
 * Twiddle angles are computed in f64 and converted to the element type.
 */
#include "core/stdlib/stdlib_util.h"

typedef struct fft_ctx {
    acc_graph *g;
    acc_scalar e;  /* the component type, f32 or f64 */
    int sign;      /* -1 forward, +1 inverse */
    int32_t rank;
} fft_ctx;

static acc_node *i64c(acc_graph *g, int64_t v)
{
    return acc_const_i64(g, ACC_I64, v);
}

static acc_node *op2(acc_graph *g, acc_primop op, acc_node *a, acc_node *b)
{
    return acc_binop(g, op, a, b);
}

static acc_node *cpx(acc_graph *g, acc_node *re, acc_node *im)
{
    acc_node *items[2] = {re, im};
    return acc_tuple(g, 2, items);
}

static acc_node *re_of(acc_graph *g, acc_node *c) { return acc_get(g, c, 0); }
static acc_node *im_of(acc_graph *g, acc_node *c) { return acc_get(g, c, 1); }

/* a + b or a - b on (re, im) pairs. */
static acc_node *c_addsub(acc_graph *g, acc_primop op, acc_node *a,
                          acc_node *b)
{
    return cpx(g, op2(g, op, re_of(g, a), re_of(g, b)),
               op2(g, op, im_of(g, a), im_of(g, b)));
}

static acc_node *c_mul(acc_graph *g, acc_node *a, acc_node *b)
{
    acc_node *ar = re_of(g, a), *ai = im_of(g, a);
    acc_node *br = re_of(g, b), *bi = im_of(g, b);
    return cpx(g,
               op2(g, ACC_OP_SUB, op2(g, ACC_OP_MUL, ar, br),
                   op2(g, ACC_OP_MUL, ai, bi)),
               op2(g, ACC_OP_ADD, op2(g, ACC_OP_MUL, ar, bi),
                   op2(g, ACC_OP_MUL, ai, br)));
}

/* e^(sign 2 pi i num / n) for i64 terms num, n. */
static acc_node *twiddle(const fft_ctx *c, acc_node *num, acc_node *n)
{
    acc_graph *g = c->g;
    acc_node *scale = acc_const_f64(g, ACC_F64, c->sign * 6.283185307179586);
    acc_node *angle = op2(g, ACC_OP_FDIV,
                          op2(g, ACC_OP_MUL, scale, acc_convert(g, num, ACC_F64)),
                          acc_convert(g, n, ACC_F64));
    return cpx(g, acc_convert(g, acc_unop(g, ACC_OP_COS, angle), c->e),
               acc_convert(g, acc_unop(g, ACC_OP_SIN, angle), c->e));
}

/* One Stockham stage of half-length m over the innermost dimension. */
static acc_node *stage(const fft_ctx *c, acc_node *x, acc_node *m)
{
    acc_graph *g = c->g;
    int32_t r = c->rank;
    acc_node *ix = acc_param(g, acc_type_shape(r));
    acc_node *p = acc_get(g, ix, (size_t)r - 1);
    acc_node *n = sl_extent(g, x, r - 1);
    acc_node *k = op2(g, ACC_OP_REM, p, m);
    acc_node *s = op2(g, ACC_OP_REM, op2(g, ACC_OP_QUOT, p, m), i64c(g, 2));
    acc_node *j = op2(g, ACC_OP_QUOT, p, op2(g, ACC_OP_MUL, i64c(g, 2), m));
    acc_node *jm = op2(g, ACC_OP_MUL, j, m);
    acc_node *i0 = op2(g, ACC_OP_ADD, k, jm);
    acc_node *i1 = op2(g, ACC_OP_ADD, i0, op2(g, ACC_OP_QUOT, n, i64c(g, 2)));
    acc_node *c0 = acc_read(g, x, sl_with_last(g, ix, r, i0));
    acc_node *c1 = acc_read(g, x, sl_with_last(g, ix, r, i1));
    acc_node *y = acc_cond(g, op2(g, ACC_OP_EQ, s, i64c(g, 0)),
                           c_addsub(g, ACC_OP_ADD, c0, c1),
                           c_mul(g, twiddle(c, jm, n),
                                 c_addsub(g, ACC_OP_SUB, c0, c1)));
    return acc_generate(g, acc_shape(g, x), sl_lambda1(g, ix, y));
}

/* awhile (\(x, m) -> m < n) (\(x, m) -> (stage x m, 2m)) (x, 1). */
static acc_node *stockham(const fft_ctx *c, acc_node *x)
{
    acc_graph *g = c->g;
    acc_node *items[2] = {x, acc_unit(g, i64c(g, 1))};
    acc_node *init = acc_tuple(g, 2, items);
    const acc_type *t = acc_node_type(init);
    acc_node *sc = acc_param(g, t), *sb = acc_param(g, t);
    acc_node *cond = acc_unit(g, op2(g, ACC_OP_LT,
                                     acc_the(g, acc_get(g, sc, 1)),
                                     sl_extent(g, acc_get(g, sc, 0),
                                               c->rank - 1)));
    acc_node *m = acc_the(g, acc_get(g, sb, 1));
    acc_node *next[2] = {stage(c, acc_get(g, sb, 0), m),
                         acc_unit(g, op2(g, ACC_OP_MUL, m, i64c(g, 2)))};
    acc_node *loop = acc_awhile(g, sl_lambda1(g, sc, cond),
                                sl_lambda1(g, sb, acc_tuple(g, 2, next)),
                                init);
    return acc_get(g, loop, 0);
}

/* X[.., k] = sum_j x[.., j] w^(jk): a fold over [.., n (k), n (j)]. */
static acc_node *direct(const fft_ctx *c, acc_node *x)
{
    acc_graph *g = c->g;
    int32_t r = c->rank;
    acc_node *n = sl_extent(g, x, r - 1);
    acc_node *ext[ACC_MAX_RANK];
    for (int32_t d = 0; d < r; d++)
        ext[d] = sl_extent(g, x, d);
    ext[r] = n;
    acc_node *ix = acc_param(g, acc_type_shape(r + 1));
    acc_node *k = acc_get(g, ix, (size_t)r - 1);
    acc_node *j = acc_get(g, ix, (size_t)r);
    acc_node *xj = acc_read(g, x, sl_with_last(g, sl_outer(g, ix, r + 1), r,
                                               j));
    acc_node *jk = op2(g, ACC_OP_REM, op2(g, ACC_OP_MUL, j, k), n);
    acc_node *term = c_mul(g, xj, twiddle(c, jk, n));
    acc_node *a = acc_param(g, acc_node_type(term));
    acc_node *b = acc_param(g, acc_node_type(term));
    acc_node *zero = acc_const_f64(g, c->e, 0.0);
    return acc_fold(g, sl_lambda2(g, a, b, c_addsub(g, ACC_OP_ADD, a, b)),
                    cpx(g, zero, zero),
                    acc_generate(g, acc_index(g, (size_t)r + 1, ext),
                                 sl_lambda1(g, ix, term)));
}

/* The transform of the innermost dimension: Stockham when its length is
 * a power of two (n band (n - 1) == 0), the direct DFT otherwise. */
static acc_node *innermost(const fft_ctx *c, acc_node *x)
{
    acc_graph *g = c->g;
    acc_node *n = sl_extent(g, x, c->rank - 1);
    acc_node *pow2 = op2(g, ACC_OP_EQ,
                         op2(g, ACC_OP_BAND, n,
                             op2(g, ACC_OP_SUB, n, i64c(g, 1))),
                         i64c(g, 0));
    return acc_acond(g, pow2, stockham(c, x), direct(c, x));
}

/* The axes rotated: [e0, .., e(r-1)] -> [e(r-1), e0, .., e(r-2)]. */
static acc_node *rotate(const fft_ctx *c, acc_node *x)
{
    acc_graph *g = c->g;
    int32_t r = c->rank;
    acc_node *sh[ACC_MAX_RANK], *src[ACC_MAX_RANK];
    acc_node *ix = acc_param(g, acc_type_shape(r));
    for (int32_t d = 0; d < r; d++) {
        sh[d] = sl_extent(g, x, (d + r - 1) % r);
        src[d] = acc_get(g, ix, (size_t)((d + 1) % r));
    }
    return acc_backpermute(g, acc_index(g, (size_t)r, sh),
                           sl_lambda1(g, ix, acc_index(g, (size_t)r, src)),
                           x);
}

/* Every element divided by the number of elements. */
static acc_node *scale_down(const fft_ctx *c, acc_node *x)
{
    acc_graph *g = c->g;
    acc_node *total = acc_convert(g, acc_size(g, x), c->e);
    acc_node *v = acc_param(g, acc_type_get_elem(acc_node_type(x)));
    acc_node *y = cpx(g, op2(g, ACC_OP_FDIV, re_of(g, v), total),
                      op2(g, ACC_OP_FDIV, im_of(g, v), total));
    return acc_map(g, sl_lambda1(g, v, y), x);
}

static acc_node *transform(const fft_ctx *c, acc_node *x)
{
    for (int32_t d = 0; d < c->rank; d++) {
        x = innermost(c, x);
        if (c->rank > 1)
            x = rotate(c, x);
    }
    return c->sign > 0 ? scale_down(c, x) : x;
}

static acc_node *fft_node(acc_graph *g, acc_node *xs, int sign)
{
    fft_ctx c = {g, ACC_F64, sign, sl_rank(g, xs, 1)};
    const acc_type *e = sl_elem(g, xs);
    if (c.rank < 1 || !e)
        return NULL;
    if (c.rank >= ACC_MAX_RANK) /* the direct DFT needs one more dimension */
        return acc_replicate(g, 0, NULL, xs); /* refuses: rank mismatch */
    if (acc_type_get_arity(e) != 2) /* "get: ..." names the element type */
        return acc_get(g, acc_param(g, e), 1);
    c.e = acc_type_get_scalar(acc_type_get_field(e, 0));
    acc_node *p = acc_param(g, acc_node_type(xs));
    acc_node *fallback = sl_lambda1(g, p, transform(&c, p));
    return acc_foreign(g, sign < 0 ? "fft.forward" : "fft.inverse", fallback,
                       xs);
}

acc_node *acc_fft(acc_graph *g, acc_node *xs)
{
    return fft_node(g, xs, -1);
}

acc_node *acc_ifft(acc_graph *g, acc_node *xs)
{
    return fft_node(g, xs, +1);
}
