/*
 * gen_consume.c — the consumers (LANGUAGE.md §3.2-§3.7): fold, fold1,
 * foldAll, foldSeg, foldSeg', fold1Seg, the ten scans plain and
 * segmented, permute and permute' (with ignore, with targets out of
 * range), stencil and stencil2 with every boundary, expand and permute'
 * over expand, acond, awhile, filter; and folds of 1-byte values widened
 * to a wider type (bug (a) of issue 14).
 */
#include "gen_reduce.h"

#define RANKS_1_UP 0xeu

/* A term of rank >= 1, preferring those whose innermost extent fits the
 * segment descriptors. */
static const dz_term *pick_inner(dz_gen *s)
{
    for (int tries = 0; tries < 4; tries++) {
        const dz_term *t = dz_pick(s, RANKS_1_UP);
        if (t && (t->flags & DZ_T_INNER))
            return t;
    }
    return dz_pick(s, RANKS_1_UP);
}

/* A reduction of kind `kind` of x by f (a random combining function
 * when f is NULL). */
static int fold_with(dz_gen *s, dz_term *out, const dz_term *x,
                     dz_red_kind kind, const dz_comb *f)
{
    dz_comb c;
    if (!x)
        return 0;
    if (f)
        c = *f;
    else
        dz_combiner(s, dz_elem(x->n), 0, 0, &c);
    dz_recipe r = {.kind = kind};
    if (kind == R_FOLD1 || kind == R_FOLD1_ALL)
        dz_mark(s, DZ_C_FOLD1);
    if (kind != R_FOLD && kind != R_FOLD_ALL)
        dz_may_fail(s); /* an empty row, a bad segment descriptor */
    dz_feature_leaves(s, DZ_F_FOLD_LEAF, dz_elem(x->n));
    int rank = kind == R_FOLD || kind == R_FOLD1 ? x->rank - 1
               : kind == R_FOLD_ALL || kind == R_FOLD1_ALL ? 0 : x->rank;
    if (kind == R_FOLD_SEG || kind == R_FOLD1_SEG)
        r.seg = s->segments;
    if (kind == R_FOLD_SEG_OFFSETS)
        r.seg = s->offsets;
    dz_emit_reduction(s, &r, &c, c.z, dz_prepare(s, &c, x->n), out, rank);
    return 1;
}

static int fold_like(dz_gen *s, dz_term *out, const dz_term *x,
                     dz_red_kind kind)
{
    return fold_with(s, out, x, kind, NULL);
}

static int op_fold(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, RANKS_1_UP);
    return x && fold_like(s, out, x, dz_chance(&s->rng, 2, 3) ? R_FOLD : R_FOLD1);
}

static int op_fold_all(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, RANKS_1_UP);
    return x && fold_like(s, out, x, dz_chance(&s->rng, 2, 3) ? R_FOLD_ALL
                                                             : R_FOLD1_ALL);
}

static int op_fold_seg(dz_gen *s, dz_term *out)
{
    return fold_like(s, out, pick_inner(s), R_FOLD_SEG);
}

static int op_fold_seg_offsets(dz_gen *s, dz_term *out)
{
    return fold_like(s, out, pick_inner(s), R_FOLD_SEG_OFFSETS);
}

static int op_fold1_seg(dz_gen *s, dz_term *out)
{
    return fold_like(s, out, pick_inner(s), R_FOLD1_SEG);
}

static int scan_with(dz_gen *s, dz_term *out, const dz_term *x, int seg,
                     const dz_comb *f)
{
    dz_comb c;
    if (!x)
        return 0;
    if (f)
        c = *f;
    else
        dz_combiner(s, dz_elem(x->n), 0, 1, &c);
    dz_recipe r = {.kind = seg ? R_SCAN_SEG : R_SCAN,
                   .scan = (acc_scan_kind)(ACC_SCANL + (int)dz_rnd(&s->rng, 10)),
                   .seg = s->segments};
    int rank = x->rank;
    if (seg || r.scan == ACC_SCANL1 || r.scan == ACC_SCANR1)
        dz_may_fail(s);
    dz_feature_leaves(s, DZ_F_SCAN_LEAF, dz_elem(x->n));
    dz_feature(s, (seg ? DZ_F_SEG_SCAN_KIND : DZ_F_SCAN_KIND) + (int)r.scan - 1);
    if (r.scan == ACC_SCANL_PRIME || r.scan == ACC_SCANR_PRIME) {
        r.component = (int)dz_rnd(&s->rng, 2);
        rank -= r.component && !seg;
    }
    dz_emit_reduction(s, &r, &c, c.z, dz_prepare(s, &c, x->n), out, rank);
    return 1;
}

static int scan_like(dz_gen *s, dz_term *out, const dz_term *x, int seg)
{
    return scan_with(s, out, x, seg, NULL);
}

static int op_scan(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, RANKS_1_UP);
    return x && scan_like(s, out, x, 0);
}

static int op_scan_seg(dz_gen *s, dz_term *out)
{
    return scan_like(s, out, pick_inner(s), 1);
}

/* ---- permutations ------------------------------------------------------------- */

/* Defaults of rank rt (0..2) holding z: a fill of a small shape, the
 * outermost extent sometimes data-sized (never two: N^2 cells for N =
 * 65537 would not fit in memory). */
static acc_node *defaults(dz_gen *s, int rt, acc_node *z)
{
    acc_node *c[2];
    for (int d = 0; d < rt; d++)
        c[d] = dz_chance(&s->rng, 1, 3) && d == 0
                   ? acc_get(s->g, acc_shape(s->g, s->indices), 0)
                   : dz_i64(s, 1 + (int64_t)dz_rnd(&s->rng, 9));
    return acc_fill(s->g, acc_index(s->g, (size_t)rt, c), z);
}

/* A target index of defaults `d` (rank rt) from the values in env: raw
 * (out of range at times: a run-time error), through the index input
 * (whose data may lie outside d), wrapped into range, or ignore. */
static acc_node *target(dz_gen *s, dz_env *env, acc_node *d, int rt)
{
    if (rt == 0)
        return acc_index(s->g, 0, NULL);
    dz_may_fail(s);
    acc_node *c[2], *sh = acc_shape(s->g, d);
    const acc_type *i64 = dz_scalar_type(ACC_I64);
    int how = (int)dz_rnd(&s->rng, 4);
    if (how == 0) {
        for (int k = 0; k < rt; k++)
            c[k] = acc_binop(s->g, ACC_OP_SUB,
                             acc_binop(s->g, ACC_OP_BAND, dz_expr(s, env, i64, 2),
                                       dz_i64(s, 15)),
                             dz_i64(s, 1));
        return acc_index(s->g, (size_t)rt, c);
    }
    if (how == 1 && rt == 1) {
        acc_node *n = acc_get(s->g, acc_shape(s->g, s->indices), 0);
        acc_node *i = dz_wrap_index(s, dz_expr(s, env, i64, 2), n);
        c[0] = acc_cond(s->g, acc_binop(s->g, ACC_OP_GT, n, dz_i64(s, 0)),
                        acc_read(s->g, s->indices, acc_index(s->g, 1, &i)),
                        dz_i64(s, -1));
        return acc_index(s->g, 1, c);
    }
    for (int k = 0; k < rt; k++)
        c[k] = dz_wrap_index(s, dz_expr(s, env, i64, 2),
                             acc_get(s->g, sh, (size_t)k));
    acc_node *nonempty = acc_binop(s->g, ACC_OP_GT, acc_size(s->g, d),
                                   dz_i64(s, 0));
    acc_node *safe = acc_cond(s->g, nonempty, acc_index(s->g, (size_t)rt, c),
                              acc_ignore(s->g, rt));
    if (how == 3)
        return acc_cond(s->g, dz_expr(s, env, dz_scalar_type(ACC_BOOL), 2),
                        safe, acc_ignore(s->g, rt));
    return safe;
}

/* What both permute forms draw first, in this order: a source x of rank
 * >= 1 (NULL when there is none), a combiner of its elements, the rank rt
 * of the result and its defaults d. */
static const dz_term *permute_start(dz_gen *s, dz_comb *c, int *rt,
                                    acc_node **d)
{
    const dz_term *x = dz_pick(s, RANKS_1_UP);
    if (!x)
        return NULL;
    dz_combiner(s, dz_elem(x->n), 1, 0, c);
    *rt = (int)dz_rnd(&s->rng, 3);
    *d = defaults(s, *rt, c->z);
    return x;
}

static int op_permute(dz_gen *s, dz_term *out)
{
    dz_comb c;
    int rt;
    acc_node *d;
    const dz_term *x = permute_start(s, &c, &rt, &d);
    if (!x)
        return 0;
    acc_node *ix = dz_param(s, acc_type_shape(x->rank));
    dz_env env = {.n = 0, .reads = 1};
    dz_env_push(&env, ix);
    dz_recipe r = {.kind = R_PERMUTE,
                   .index = dz_lam1(s, ix, target(s, &env, d, rt))};
    dz_emit_reduction(s, &r, &c, d, dz_prepare(s, &c, x->n), out, rt);
    return 1;
}

/* permute' over generate (shape x) (\ix -> (target, x ! ix)). */
static int op_permute_pairs(dz_gen *s, dz_term *out)
{
    dz_comb c;
    int rt;
    acc_node *d;
    const dz_term *x = permute_start(s, &c, &rt, &d);
    if (!x)
        return 0;
    acc_node *vals = dz_prepare(s, &c, x->n);
    acc_node *ix = dz_param(s, acc_type_shape(x->rank));
    dz_env env = {.n = 0, .reads = 1};
    dz_env_push(&env, ix);
    acc_node *pair[2] = {target(s, &env, d, rt), acc_read(s->g, vals, ix)};
    acc_node *src = acc_generate(s->g, acc_shape(s->g, vals),
                                 dz_lam1(s, ix, acc_tuple(s->g, 2, pair)));
    dz_recipe r = {.kind = R_PERMUTE_PAIRS};
    dz_emit_reduction(s, &r, &c, d, src, out, rt);
    return 1;
}

/* ---- stencils -------------------------------------------------------------------- */

/* Widths for rank r and `leaves` leaves per element: the neighbourhood
 * holds at most 256 scalars. */
static void widths(dz_gen *s, int r, size_t leaves, int32_t *w)
{
    size_t count;
    do {
        count = leaves;
        for (int d = 0; d < r; d++) {
            w[d] = 3 + 2 * (int32_t)dz_rnd(&s->rng, r == 3 ? 2 : 4);
            count *= (size_t)w[d];
        }
    } while (count > 256);
}

static const acc_type *neighbourhood(dz_gen *s, const acc_type *e, int r,
                                     const int32_t *w)
{
    const acc_type *t = e, *f[9];
    for (int d = r - 1; d >= 0; d--) {
        for (int i = 0; i < w[d]; i++)
            f[i] = t;
        t = dz_tuple_type(s, (size_t)w[d], f);
    }
    return t;
}

static acc_boundary boundary(dz_gen *s, const acc_node *xs, acc_node **arg)
{
    acc_boundary b = (acc_boundary)(1 + dz_rnd(&s->rng, 5));
    dz_feature(s, DZ_F_BOUNDARY + (int)b - 1);
    const acc_type *e = dz_elem(xs), *ix = acc_type_shape(dz_rank(xs));
    *arg = b == ACC_BOUNDARY_FUNCTION   ? dz_fun(s, 1, &ix, e, 2)
           : b == ACC_BOUNDARY_CONSTANT ? dz_closed(s, e, 1)
                                        : NULL;
    return b;
}

static int op_stencil(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, RANKS_1_UP);
    if (!x)
        return 0;
    int32_t w[3];
    const acc_type *e = dz_elem(x->n);
    widths(s, x->rank, acc_type_leaf_count(e), w);
    const acc_type *nb = neighbourhood(s, e, x->rank, w);
    acc_node *f = dz_fun(s, 1, &nb, dz_any_elem(s, 3), 3), *barg;
    acc_boundary b = boundary(s, x->n, &barg);
    *out = (dz_term){acc_stencil(s->g, f, w, b, barg, x->n), x->rank,
                     x->flags & DZ_T_INNER};
    return 1;
}

static int op_stencil2(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, RANKS_1_UP);
    if (!x)
        return 0;
    const dz_term *y = dz_pick(s, 1u << x->rank);
    int32_t w1[3], w2[3];
    const acc_type *e1 = dz_elem(x->n), *e2 = dz_elem(y->n);
    widths(s, x->rank, acc_type_leaf_count(e1), w1);
    widths(s, x->rank, acc_type_leaf_count(e2), w2);
    const acc_type *nb[2] = {neighbourhood(s, e1, x->rank, w1),
                             neighbourhood(s, e2, x->rank, w2)};
    acc_node *f = dz_fun(s, 2, nb, dz_any_elem(s, 3), 3), *a1, *a2;
    acc_boundary b1 = boundary(s, x->n, &a1), b2 = boundary(s, y->n, &a2);
    *out = (dz_term){acc_stencil2(s->g, f, w1, b1, a1, x->n, w2, b2, a2, y->n),
                     x->rank, x->flags & y->flags & DZ_T_INNER};
    return 1;
}

/* ---- expansion ------------------------------------------------------------------- */

/* \v -> a size in 0..3, or -1..3 when failing is allowed. */
static acc_node *size_fn(dz_gen *s, const acc_type *e)
{
    acc_node *v = dz_param(s, e);
    dz_env env = {.n = 0, .reads = 1};
    dz_env_push(&env, v);
    acc_node *h = dz_expr(s, &env, dz_scalar_type(ACC_I64), 2);
    if (!s->no_fail)
        dz_may_fail(s);
    acc_node *n = s->no_fail ? dz_wrap_index(s, h, dz_i64(s, 4))
                             : acc_binop(s->g, ACC_OP_SUB,
                                         dz_wrap_index(s, h, dz_i64(s, 5)),
                                         dz_i64(s, dz_chance(&s->rng, 1, 4)));
    return dz_lam1(s, v, n);
}

static int op_expand(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, 0x2u);
    if (!x)
        return 0;
    const acc_type *ps[2] = {dz_elem(x->n), dz_scalar_type(ACC_I64)};
    acc_node *get = dz_fun(s, 2, ps, dz_any_elem(s, 3), 3);
    *out = (dz_term){acc_expand(s->g, size_fn(s, ps[0]), get, x->n), 1, 0};
    return 1;
}

/* permute' f defaults (expand size (\v k -> (target, value)) xs): one
 * kernel (LANGUAGE.md §3.6). */
static int op_permute_expand(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, 0x2u);
    if (!x)
        return 0;
    const acc_type *e = NULL;
    dz_comb c;
    for (int tries = 0; tries < 8; tries++) {
        e = dz_any_elem(s, 2);
        dz_combiner(s, e, 1, 0, &c);
        if (!c.prep)
            break;
    }
    if (c.prep)
        return 0;
    int rt = 1 + (int)dz_rnd(&s->rng, 2);
    acc_node *d = defaults(s, rt, c.z);
    acc_node *v = dz_param(s, dz_elem(x->n));
    acc_node *k = dz_param(s, dz_scalar_type(ACC_I64));
    dz_env env = {.n = 0, .reads = 1};
    dz_env_push(&env, v);
    dz_env_push(&env, k);
    acc_node *pair[2] = {target(s, &env, d, rt), dz_expr(s, &env, e, 3)};
    acc_node *get = dz_lam2(s, v, k, acc_tuple(s->g, 2, pair));
    acc_node *xs = acc_expand(s->g, size_fn(s, dz_elem(x->n)), get, x->n);
    dz_recipe r = {.kind = R_PERMUTE_PAIRS};
    dz_emit_reduction(s, &r, &c, d, xs, out, rt);
    return 1;
}

/* ---- control ---------------------------------------------------------------------- */

static int op_acond(dz_gen *s, dz_term *out)
{
    const dz_term *a = dz_pick(s, 0xfu);
    const dz_term *b = dz_pick_same_type(s, a);
    acc_node *bn;
    if (b) {
        bn = b->n;
    } else {
        const acc_type *e = dz_elem(a->n);
        bn = acc_map(s->g, dz_fun(s, 1, &e, e, 2), a->n);
    }
    acc_node *c = dz_closed(s, dz_scalar_type(ACC_BOOL), 3);
    *out = (dz_term){acc_acond(s->g, c, a->n, bn), a->rank,
                     a->flags & DZ_T_INNER};
    return 1;
}

/* awhile over (xs, Scalar i64 counter): at most k applications of a map
 * or an inclusive scan. */
static int op_awhile(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, 0xfu);
    const acc_type *at = acc_node_type(x->n), *e = dz_elem(x->n);
    const acc_type *ct = acc_type_array(s->ctx, dz_scalar_type(ACC_I64), 0);
    const acc_type *f[2] = {at, ct};
    const acc_type *st = dz_tuple_type(s, 2, f);
    acc_node *pc = dz_param(s, st), *pb = dz_param(s, st);
    acc_node *k = dz_i64(s, (int64_t)dz_rnd(&s->rng, 4));
    acc_node *count = acc_the(s->g, acc_get(s->g, pc, 1));
    acc_node *cond = dz_lam1(s, pc, acc_unit(s->g, acc_binop(s->g, ACC_OP_LT,
                                                               count, k)));
    acc_node *cur = acc_get(s->g, pb, 0), *next;
    if (x->rank >= 1 && dz_chance(&s->rng, 1, 3)) {
        dz_comb c;
        dz_combiner(s, e, 0, 1, &c);
        next = c.cmp == DZ_CMP_EXACT && !c.prep
                   ? acc_scan(s->g, ACC_SCANL1, c.f, NULL, cur)
                   : acc_map(s->g, dz_fun(s, 1, &e, e, 2), cur);
    } else {
        next = acc_map(s->g, dz_fun(s, 1, &e, e, 2), cur);
    }
    acc_node *inc = acc_unit(s->g, acc_binop(s->g, ACC_OP_ADD,
                                             acc_the(s->g, acc_get(s->g, pb, 1)),
                                             dz_i64(s, 1)));
    acc_node *body_items[2] = {next, inc};
    acc_node *body = dz_lam1(s, pb, acc_tuple(s->g, 2, body_items));
    acc_node *init_items[2] = {x->n, acc_unit(s->g, dz_i64(s, 0))};
    acc_node *w = acc_awhile(s->g, cond, body, acc_tuple(s->g, 2, init_items));
    *out = (dz_term){acc_get(s->g, w, 0), x->rank, x->flags & DZ_T_INNER};
    return 1;
}

static int op_filter(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, RANKS_1_UP);
    if (!x)
        return 0;
    const acc_type *e = dz_elem(x->n);
    acc_node *p = dz_fun(s, 1, &e, dz_scalar_type(ACC_BOOL), 2);
    size_t which = dz_rnd(&s->rng, 2);
    *out = (dz_term){acc_get(s->g, acc_filter(s->g, p, x->n), which),
                     which == 0 ? 1 : x->rank - 1, 0};
    return 1;
}

/* ---- known bug (a): 1-byte values widened, then reduced ------------------------ */

/* A term of rank >= 1 whose elements are bool, i8 or u8 in memory. */
static const dz_term *narrow_term(dz_gen *s)
{
    for (int i = s->n_pool - 1; i >= 0; i--) {
        const dz_term *t = &s->pool[i];
        const acc_type *e = dz_elem(t->n);
        if (t->rank >= 1 && !(t->flags & DZ_T_PRODUCER) &&
            acc_type_get_kind(e) == ACC_TYPE_SCALAR &&
            acc_scalar_size(acc_type_get_scalar(e)) == 1) {
            s->taint |= t->flags & DZ_T_MAYFAIL;
            return t;
        }
    }
    return NULL;
}

/* fold/foldSeg/scan/scanSeg of map (convert w) xs, xs of a 1-byte type in
 * memory (else a 1-byte value computed from a term), mostly folds by (+):
 * the pattern gcc's vectoriser miscompiled. */
static int op_widen_fold(dz_gen *s, dz_term *out)
{
    static const acc_scalar narrow[3] = {ACC_BOOL, ACC_U8, ACC_I8};
    static const acc_scalar wide[8] = {ACC_I16, ACC_I32, ACC_I64, ACC_U16,
                                       ACC_U32, ACC_U64, ACC_F32, ACC_F64};
    if (s->opt->avoid & DZ_AVOID_WIDEN)
        return 0;
    const dz_term *x = narrow_term(s);
    if (!x)
        x = pick_inner(s);
    if (!x)
        return 0;
    acc_scalar w = wide[dz_rnd(&s->rng, 8)];
    const acc_type *e = dz_elem(x->n);
    acc_node *p = dz_param(s, e), *v;
    if (acc_type_get_kind(e) == ACC_TYPE_SCALAR &&
        acc_scalar_size(acc_type_get_scalar(e)) == 1) {
        v = acc_convert(s->g, p, w);
    } else {
        dz_env env = {.n = 0, .reads = 0};
        dz_env_push(&env, p);
        v = acc_convert(s->g, dz_expr(s, &env,
                                      dz_scalar_type(narrow[dz_rnd(&s->rng, 3)]), 1),
                        w);
    }
    dz_term widened = {acc_map(s->g, dz_lam1(s, p, v), x->n), x->rank,
                       DZ_T_PRODUCER | DZ_T_NARROW | (x->flags & DZ_T_INNER)};
    dz_comb plus, *f = NULL;
    if (dz_chance(&s->rng, 2, 3)) {
        dz_plus(s, w, &plus);
        f = &plus;
    }
    switch (dz_rnd(&s->rng, 6)) {
    case 0: dz_mark(s, DZ_C_FOLD_SEG); return fold_with(s, out, &widened, R_FOLD_SEG, f);
    case 1: dz_mark(s, DZ_C_SCAN); return scan_with(s, out, &widened, 0, f);
    case 2: dz_mark(s, DZ_C_SCAN_SEG); return scan_with(s, out, &widened, 1, f);
    default: dz_mark(s, DZ_C_FOLD); return fold_with(s, out, &widened, R_FOLD, f);
    }
}

const dz_op dz_consumers[] = {
    {DZ_C_FOLD, 5, op_fold},
    {DZ_C_FOLD_ALL, 1, op_fold_all},
    {DZ_C_FOLD_SEG, 2, op_fold_seg},
    {DZ_C_FOLD_SEG_OFFSETS, 1, op_fold_seg_offsets},
    {DZ_C_FOLD1_SEG, 1, op_fold1_seg},
    {DZ_C_SCAN, 5, op_scan},
    {DZ_C_SCAN_SEG, 3, op_scan_seg},
    {DZ_C_PERMUTE, 3, op_permute},
    {DZ_C_PERMUTE_PAIRS, 2, op_permute_pairs},
    {DZ_C_STENCIL, 3, op_stencil},
    {DZ_C_STENCIL2, 2, op_stencil2},
    {DZ_C_EXPAND, 2, op_expand},
    {DZ_C_PERMUTE_EXPAND, 2, op_permute_expand},
    {DZ_C_ACOND, 1, op_acond},
    {DZ_C_AWHILE, 1, op_awhile},
    {DZ_C_FILTER, 1, op_filter},
    {DZ_C_WIDEN_FOLD, 2, op_widen_fold},
};
const size_t dz_n_consumers = sizeof dz_consumers / sizeof *dz_consumers;
