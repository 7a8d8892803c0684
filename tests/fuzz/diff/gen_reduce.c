/*
 * gen_reduce.c — combining functions for folds, scans and permutes, and
 * the reductions built from them, with the shadow that bounds a float
 * reduction's reassociation error (compare.c).
 *
 * A combining function is chosen per scalar leaf of the element type and
 * applied componentwise: (+) (*) min max on numbers, the bitwise ones on
 * integers, && || xor xnor on bool, and `first`/`last` (\a b -> a,
 * \a b -> b: associative, not commutative, so they catch a reordering).
 * Scans may also get (-), which is not associative: the backends must
 * then scan in order.  Which results must agree exactly:
 *  - everything except a float (+) or (*) over a scalar element type;
 *  - float min/max are exact only without NaN (with NaN they are not
 *    associative), so their operand is mapped NaN -> 0 first;
 *  - a float (*) reduction's operand is mapped into [0.992, 1.008] and its
 *    seed is small, so no partial product can overflow or underflow and
 *    the relative bound holds.
 * A float (+)/(*) result is an output of its own (its error must not
 * reach a comparison or a conversion) and has a shadow: the same
 * reduction, in f64, of (|x| if finite else 0, isNaN x, x == +inf,
 * x == -inf, 1), componentwise (+), so that each result element knows
 * the sum of magnitudes, the specials and the number of terms it
 * combines.
 */
#include "gen_reduce.h"

typedef enum cop {
    C_ADD, C_MUL, C_MIN, C_MAX, C_BAND, C_BOR, C_BXOR, C_LAND, C_LOR,
    C_XOR, C_XNOR, C_FIRST, C_LAST, C_SUB
} cop;

/* The ops a leaf of type sc may get: commutative ones first. */
static cop pick_cop(dz_gen *s, acc_scalar sc, int commutative, int ordered)
{
    static const cop bools[] = {C_LAND, C_LOR, C_XOR, C_XNOR, C_MIN, C_MAX,
                                C_FIRST, C_LAST};
    static const cop ints[] = {C_ADD, C_MUL, C_MIN, C_MAX, C_BAND, C_BOR,
                               C_BXOR, C_FIRST, C_LAST, C_SUB};
    static const cop floats[] = {C_ADD, C_MUL, C_MIN, C_MAX, C_FIRST,
                                 C_LAST, C_SUB};
    const cop *tab = sc == ACC_BOOL ? bools : dz_is_float(sc) ? floats : ints;
    int n = sc == ACC_BOOL ? 8 : dz_is_float(sc) ? 7 : 10;
    int comm = sc == ACC_BOOL ? 6 : dz_is_float(sc) ? 4 : 7;
    if (commutative)
        n = comm;
    else if (!ordered && tab[n - 1] == C_SUB)
        n--;
    return tab[dz_rnd(&s->rng, (uint32_t)n)];
}

static acc_node *apply_cop(dz_gen *s, cop op, acc_node *a, acc_node *b)
{
    static const acc_primop prim[] = {
        [C_ADD] = ACC_OP_ADD, [C_MUL] = ACC_OP_MUL, [C_MIN] = ACC_OP_MIN,
        [C_MAX] = ACC_OP_MAX, [C_BAND] = ACC_OP_BAND, [C_BOR] = ACC_OP_BOR,
        [C_BXOR] = ACC_OP_BXOR, [C_LAND] = ACC_OP_LAND, [C_LOR] = ACC_OP_LOR,
        [C_XOR] = ACC_OP_NE, [C_XNOR] = ACC_OP_EQ, [C_SUB] = ACC_OP_SUB};
    if (op == C_FIRST)
        return a;
    if (op == C_LAST)
        return b;
    return acc_binop(s->g, prim[op], a, b);
}

/* Componentwise f over type t, the leaves' ops in ops[*k ...]. */
static acc_node *combine(dz_gen *s, const acc_type *t, const cop *ops,
                         size_t *k, acc_node *a, acc_node *b)
{
    if (acc_type_get_kind(t) == ACC_TYPE_SCALAR)
        return apply_cop(s, ops[(*k)++], a, b);
    acc_node *items[ACC_MAX_COMPONENTS];
    size_t n = acc_type_get_arity(t);
    for (size_t i = 0; i < n; i++)
        items[i] = combine(s, acc_type_get_field(t, i), ops, k,
                           acc_get(s->g, a, i), acc_get(s->g, b, i));
    return acc_tuple(s->g, n, items);
}

/* x with its float min/max leaves' NaNs made 0 and a float (*) leaf
 * tamed; `changed` says whether anything was done. */
static acc_node *sanitize(dz_gen *s, const acc_type *t, const cop *ops,
                          size_t *k, acc_node *x, int *changed)
{
    if (acc_type_get_kind(t) != ACC_TYPE_SCALAR) {
        acc_node *items[ACC_MAX_COMPONENTS];
        size_t n = acc_type_get_arity(t);
        for (size_t i = 0; i < n; i++)
            items[i] = sanitize(s, acc_type_get_field(t, i), ops, k,
                                acc_get(s->g, x, i), changed);
        return acc_tuple(s->g, n, items);
    }
    acc_scalar sc = acc_type_get_scalar(t);
    cop op = ops[(*k)++];
    if (!dz_is_float(sc) || (op != C_MIN && op != C_MAX && op != C_MUL))
        return x;
    *changed = 1;
    acc_node *nan = acc_unop(s->g, ACC_OP_ISNAN, x);
    acc_node *zero = acc_const_f64(s->g, sc, 0.0);
    acc_node *clean = acc_cond(s->g, nan, zero, x);
    if (op != C_MUL)
        return clean;
    /* 1 + max -1 (min 1 x) / 128 */
    acc_node *c = acc_binop(s->g, ACC_OP_MAX, acc_const_f64(s->g, sc, -1.0),
                            acc_binop(s->g, ACC_OP_MIN,
                                      acc_const_f64(s->g, sc, 1.0), clean));
    return acc_binop(s->g, ACC_OP_ADD, acc_const_f64(s->g, sc, 1.0),
                     acc_binop(s->g, ACC_OP_FDIV, c,
                               acc_const_f64(s->g, sc, 128.0)));
}

/* A seed of type t suiting the leaves' ops. */
static acc_node *seed(dz_gen *s, const acc_type *t, const cop *ops, size_t *k)
{
    if (acc_type_get_kind(t) != ACC_TYPE_SCALAR) {
        acc_node *items[ACC_MAX_COMPONENTS];
        size_t n = acc_type_get_arity(t);
        for (size_t i = 0; i < n; i++)
            items[i] = seed(s, acc_type_get_field(t, i), ops, k);
        return acc_tuple(s->g, n, items);
    }
    static const double tame[] = {1.0, -1.0, 0.5, 2.0, -0.75};
    acc_scalar sc = acc_type_get_scalar(t);
    cop op = ops[(*k)++];
    if (dz_is_float(sc) && op == C_MUL)
        return acc_const_f64(s->g, sc, tame[dz_rnd(&s->rng, 5)]);
    return dz_const(s, sc, dz_is_float(sc) && (op == C_MIN || op == C_MAX));
}

int dz_combiner(dz_gen *s, const acc_type *t, int commutative, int ordered,
                dz_comb *out)
{
    cop ops[ACC_MAX_COMPONENTS];
    size_t n = acc_type_leaf_count(t), k = 0;
    int scalar = acc_type_get_kind(t) == ACC_TYPE_SCALAR;
    out->cmp = DZ_CMP_EXACT;
    for (size_t i = 0; i < n; i++) {
        acc_scalar sc = acc_type_leaf(t, i);
        do
            ops[i] = pick_cop(s, sc, commutative, ordered);
        while (!scalar && dz_is_float(sc) && (ops[i] == C_ADD || ops[i] == C_MUL));
        if (scalar && dz_is_float(sc) && ops[i] == C_ADD)
            out->cmp = DZ_CMP_SUM;
        if (scalar && dz_is_float(sc) && ops[i] == C_MUL)
            out->cmp = DZ_CMP_PRODUCT;
    }
    acc_node *a = dz_param(s, t), *b = dz_param(s, t);
    out->f = dz_lam2(s, a, b, combine(s, t, ops, &k, a, b));
    k = 0;
    out->z = seed(s, t, ops, &k);
    acc_node *p = dz_param(s, t);
    int changed = 0;
    k = 0;
    acc_node *body = sanitize(s, t, ops, &k, p, &changed);
    out->prep = changed ? dz_lam1(s, p, body) : NULL;
    if (out->cmp != DZ_CMP_EXACT)
        dz_mark(s, DZ_C_REASSOC);
    return 1;
}

void dz_plus(dz_gen *s, acc_scalar sc, dz_comb *out)
{
    const acc_type *t = dz_scalar_type(sc);
    acc_node *a = dz_param(s, t), *b = dz_param(s, t);
    out->f = dz_lam2(s, a, b, acc_binop(s->g, ACC_OP_ADD, a, b));
    out->z = dz_zero(s, sc);
    out->prep = NULL;
    out->cmp = dz_is_float(sc) ? DZ_CMP_SUM : DZ_CMP_EXACT;
    if (out->cmp != DZ_CMP_EXACT)
        dz_mark(s, DZ_C_REASSOC);
}

acc_node *dz_prepare(dz_gen *s, const dz_comb *c, acc_node *xs)
{
    return c->prep ? acc_map(s->g, c->prep, xs) : xs;
}

/* ---- reductions ----------------------------------------------------------------- */

acc_node *dz_reduce(dz_gen *s, const dz_recipe *r, acc_node *f, acc_node *z,
                    acc_node *xs)
{
    acc_node *n;
    switch (r->kind) {
    case R_FOLD: return acc_fold(s->g, f, z, xs);
    case R_FOLD1: return acc_fold1(s->g, f, xs);
    case R_FOLD_ALL: return acc_fold_all(s->g, f, z, xs);
    case R_FOLD1_ALL: return acc_fold1_all(s->g, f, xs);
    case R_FOLD_SEG: return acc_fold_seg(s->g, f, z, xs, r->seg);
    case R_FOLD_SEG_OFFSETS: return acc_fold_seg_offsets(s->g, f, z, xs, r->seg);
    case R_FOLD1_SEG: return acc_fold1_seg(s->g, f, xs, r->seg);
    case R_SCAN:
    case R_SCAN_SEG:
        if (r->scan == ACC_SCANL1 || r->scan == ACC_SCANR1)
            z = NULL;
        n = r->kind == R_SCAN ? acc_scan(s->g, r->scan, f, z, xs)
                              : acc_scan_seg(s->g, r->scan, f, z, xs, r->seg);
        if (r->scan == ACC_SCANL_PRIME || r->scan == ACC_SCANR_PRIME)
            n = acc_get(s->g, n, (size_t)r->component);
        return n;
    case R_PERMUTE: return acc_permute(s->g, f, z, r->index, xs);
    case R_PERMUTE_PAIRS: return acc_permute_pairs(s->g, f, z, xs);
    }
    return NULL;
}

/* ---- shadows ---------------------------------------------------------------------- */

static const acc_type *shadow_type(dz_gen *s)
{
    const acc_type *f64 = dz_scalar_type(ACC_F64);
    const acc_type *f[5] = {f64, f64, f64, f64, f64};
    return dz_tuple_type(s, 5, f);
}

static acc_node *f64c(dz_gen *s, double v)
{
    return acc_const_f64(s->g, ACC_F64, v);
}

static acc_node *flag(dz_gen *s, acc_node *c)
{
    return acc_cond(s->g, c, f64c(s, 1.0), f64c(s, 0.0));
}

/* (|x| finite, isNaN x, x == +inf, x == -inf, 1) of a float scalar x */
static acc_node *tag(dz_gen *s, acc_node *x)
{
    acc_node *d = acc_convert(s->g, x, ACC_F64);
    acc_node *nan = acc_unop(s->g, ACC_OP_ISNAN, d);
    acc_node *inf = acc_unop(s->g, ACC_OP_ISINF, d);
    acc_node *pos = acc_binop(s->g, ACC_OP_GT, d, f64c(s, 0.0));
    acc_node *special = acc_binop(s->g, ACC_OP_LOR, nan, inf);
    acc_node *items[5] = {
        acc_cond(s->g, special, f64c(s, 0.0), acc_unop(s->g, ACC_OP_ABS, d)),
        flag(s, nan), flag(s, acc_binop(s->g, ACC_OP_LAND, inf, pos)),
        flag(s, acc_binop(s->g, ACC_OP_LAND, inf, acc_unop(s->g, ACC_OP_NOT, pos))),
        f64c(s, 1.0)};
    return acc_tuple(s->g, 5, items);
}

static acc_node *tag_fn(dz_gen *s, const acc_type *t, int pairs)
{
    acc_node *p = dz_param(s, t);
    if (!pairs)
        return dz_lam1(s, p, tag(s, p));
    acc_node *items[2] = {acc_get(s->g, p, 0), tag(s, acc_get(s->g, p, 1))};
    return dz_lam1(s, p, acc_tuple(s->g, 2, items));
}

acc_node *dz_shadow(dz_gen *s, const dz_recipe *r, acc_node *z, acc_node *xs)
{
    const acc_type *st = shadow_type(s);
    acc_node *a = dz_param(s, st), *b = dz_param(s, st), *sum[5];
    for (size_t i = 0; i < 5; i++)
        sum[i] = acc_binop(s->g, ACC_OP_ADD, acc_get(s->g, a, i),
                           acc_get(s->g, b, i));
    acc_node *f = dz_lam2(s, a, b, acc_tuple(s->g, 5, sum));
    acc_node *tz = NULL;
    if (r->kind == R_PERMUTE || r->kind == R_PERMUTE_PAIRS)
        tz = acc_map(s->g, tag_fn(s, dz_elem(z), 0), z);
    else if (z)
        tz = tag(s, z);
    acc_node *txs = acc_map(s->g, tag_fn(s, dz_elem(xs),
                                         r->kind == R_PERMUTE_PAIRS), xs);
    return dz_reduce(s, r, f, tz, txs);
}

void dz_emit_reduction(dz_gen *s, const dz_recipe *r, const dz_comb *c,
                       acc_node *z, acc_node *xs, dz_term *out, int rank)
{
    acc_node *n = dz_reduce(s, r, c->f, z, xs);
    if (c->cmp == DZ_CMP_EXACT) {
        *out = (dz_term){n, rank, 0};
        return;
    }
    dz_add_output(s, n, c->cmp, dz_shadow(s, r, z, xs));
    out->n = NULL;
}
