/*
 * gen_produce.c — the producers (LANGUAGE.md §3.1): map, conversions,
 * n-ary zipWith, generate, fill, backpermute (reverse, transpose, shifted
 * and so possibly out of range), gathers through the index input,
 * replicate, slice, reshape, unit; reads of a fused producer at an index
 * that may be outside it (bug (b) of issue 14); extents that may be near
 * 2^63 (bug (c)).
 *
 * Where failing is not allowed (dz_gen.no_fail: in a strict program, so
 * that the runner can demand that an error of the unfused program is an
 * error of the fused one too, and when bug (b) is avoided, since the cpu
 * backend drops the checks of values nothing uses), no producer may fail:
 * gathers and shifts wrap their indices into range and slices are left
 * out.
 */
#include "gen.h"

#define ANY_RANK 0xfu
#define RANKS_1_UP 0xeu

/* A shape of rank r: a pool term's, or built from the size input (the
 * innermost extent) and small constants. */
static acc_node *some_shape(dz_gen *s, int r, unsigned *flags)
{
    const dz_term *t = dz_chance(&s->rng, 3, 5) ? dz_pick(s, 1u << r) : NULL;
    if (t) {
        *flags = t->flags & DZ_T_INNER;
        return acc_shape(s->g, t->n);
    }
    acc_node *c[3];
    for (int d = 0; d + 1 < r; d++)
        c[d] = dz_i64(s, (int64_t)dz_rnd(&s->rng, 4));
    if (r >= 1)
        c[r - 1] = acc_the(s->g, s->size);
    *flags = r >= 1 ? DZ_T_INNER : 0;
    if (r >= 1)
        dz_may_fail(s); /* a negative size */
    return acc_index(s->g, (size_t)r, c);
}

static int op_map(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, ANY_RANK);
    const acc_type *e = dz_elem(x->n);
    const acc_type *r = dz_chance(&s->rng, 1, 2) ? e : dz_any_elem(s, 4);
    acc_node *f = dz_fun(s, 1, &e, r, 3);
    *out = (dz_term){acc_map(s->g, f, x->n), x->rank,
                     DZ_T_PRODUCER | (x->flags & DZ_T_INNER)};
    return 1;
}

/* map (\x -> convert x t) over a scalar array: every pair of types comes
 * up.  The result is marked narrow when it widens a 1-byte type. */
static int op_convert(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, ANY_RANK);
    const acc_type *e = dz_elem(x->n);
    if (acc_type_get_kind(e) != ACC_TYPE_SCALAR)
        return 0;
    acc_scalar from = acc_type_get_scalar(e), to = dz_any_scalar(&s->rng);
    int widen = acc_scalar_size(from) == 1 && acc_scalar_size(to) > 1;
    if (widen && (s->opt->avoid & DZ_AVOID_WIDEN))
        return 0;
    acc_node *p = dz_param(s, e);
    acc_node *f = dz_lam1(s, p, acc_convert(s->g, p, to));
    dz_feature(s, DZ_F_CONVERT + 11 * ((int)from - 1) + (int)to - 1);
    *out = (dz_term){acc_map(s->g, f, x->n), x->rank,
                     DZ_T_PRODUCER | (x->flags & DZ_T_INNER) |
                         (widen ? DZ_T_NARROW : 0)};
    return 1;
}

static int op_zipwith(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, ANY_RANK);
    acc_node *arrays[4] = {x->n};
    const acc_type *elems[4] = {dz_elem(x->n)};
    size_t n = 1, want = 2 + dz_rnd(&s->rng, 3);
    unsigned flags = x->flags & DZ_T_INNER;
    for (int tries = 0; n < want && tries < 8; tries++) {
        const dz_term *y = dz_pick(s, 1u << x->rank);
        arrays[n] = y->n;
        elems[n++] = dz_elem(y->n);
        flags &= y->flags;
    }
    const acc_type *r = dz_any_elem(s, 4);
    acc_node *f = dz_fun(s, n, elems, r, 3);
    *out = (dz_term){acc_zipwith(s->g, f, n, arrays), x->rank,
                     DZ_T_PRODUCER | flags};
    return 1;
}

static int op_generate(dz_gen *s, dz_term *out)
{
    int r = (int)dz_rnd(&s->rng, 4);
    unsigned flags;
    acc_node *sh = some_shape(s, r, &flags);
    const acc_type *ix = acc_type_shape(r);
    acc_node *f = dz_fun(s, 1, &ix, dz_any_elem(s, 4), 3);
    *out = (dz_term){acc_generate(s->g, sh, f), r, DZ_T_PRODUCER | flags};
    return 1;
}

static int op_fill(dz_gen *s, dz_term *out)
{
    int r = (int)dz_rnd(&s->rng, 4);
    unsigned flags;
    acc_node *sh = some_shape(s, r, &flags);
    acc_node *v = dz_closed(s, dz_any_elem(s, 4), 2);
    *out = (dz_term){acc_fill(s->g, sh, v), r, DZ_T_PRODUCER | flags};
    return 1;
}

/* The index ix with its innermost component replaced by j. */
static acc_node *with_inner(dz_gen *s, acc_node *ix, int rank, acc_node *j)
{
    acc_node *c[ACC_MAX_RANK];
    for (int d = 0; d + 1 < rank; d++)
        c[d] = acc_get(s->g, ix, (size_t)d);
    c[rank - 1] = j;
    return acc_index(s->g, (size_t)rank, c);
}

/* backpermute: the innermost dimension reversed, or shifted by -2..2 (out
 * of range at the ends, or wrapped around where failing is not allowed),
 * or a matrix transposed. */
static int op_backpermute(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, RANKS_1_UP);
    if (!x)
        return 0;
    int r = x->rank, how = (int)dz_rnd(&s->rng, 3);
    acc_node *ix = dz_param(s, acc_type_shape(r));
    acc_node *sh = acc_shape(s->g, x->n), *to = sh, *from;
    acc_node *last = acc_get(s->g, sh, (size_t)r - 1);
    acc_node *j = acc_get(s->g, ix, (size_t)r - 1);
    if (how == 1 && r == 2) {
        acc_node *t[2] = {acc_get(s->g, sh, 1), acc_get(s->g, sh, 0)};
        acc_node *f[2] = {acc_get(s->g, ix, 1), acc_get(s->g, ix, 0)};
        to = acc_index(s->g, 2, t);
        from = acc_index(s->g, 2, f);
    } else if (how == 2) {
        acc_node *k = dz_i64(s, (int64_t)dz_rnd(&s->rng, 5) - 2);
        acc_node *jk = acc_binop(s->g, ACC_OP_ADD, j, k);
        if (s->no_fail) /* ix exists, so last >= 1 */
            jk = dz_wrap_index(s, jk, last);
        else
            dz_may_fail(s);
        from = with_inner(s, ix, r, jk);
    } else {
        acc_node *back = acc_binop(s->g, ACC_OP_SUB, last, dz_i64(s, 1));
        from = with_inner(s, ix, r, acc_binop(s->g, ACC_OP_SUB, back, j));
    }
    *out = (dz_term){acc_backpermute(s->g, to, dz_lam1(s, ix, from), x->n), r,
                     DZ_T_PRODUCER | (to == sh ? x->flags & DZ_T_INNER : 0)};
    return 1;
}

static int gather_wrapped(dz_gen *s, const dz_term *x, dz_term *out)
{
    int r = x->rank;
    acc_node *ix = dz_param(s, acc_type_shape(r));
    acc_node *i = acc_get(s->g, ix, (size_t)r - 1);
    acc_node *sh = acc_shape(s->g, x->n), *c[2];
    acc_node *ext = acc_get(s->g, sh, (size_t)r - 1);
    acc_node *k = acc_read(s->g, s->indices, acc_index(s->g, 1, &i));
    acc_node *nonempty = acc_binop(s->g, ACC_OP_GT, ext, dz_i64(s, 0));
    c[r - 1] = acc_cond(s->g, nonempty,
                        acc_get(s->g, acc_shape(s->g, s->indices), 0),
                        dz_i64(s, 0));
    if (r == 2)
        c[0] = acc_get(s->g, sh, 0);
    acc_node *to = acc_index(s->g, (size_t)r, c);
    acc_node *p = dz_lam1(s, ix, with_inner(s, ix, r, dz_wrap_index(s, k, ext)));
    *out = (dz_term){acc_backpermute(s->g, to, p, x->n), r, DZ_T_PRODUCER};
    return 1;
}

/* Through the index input: `gather indices xs` of a vector, or the rows'
 * elements picked by it; out-of-range indices (in some data sets) fail.
 * Where failing is not allowed the index is wrapped into range (and the
 * result is empty when the source is). */
static int op_gather(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, 0x6u);
    if (!x)
        return 0;
    if (s->no_fail)
        return gather_wrapped(s, x, out);
    dz_may_fail(s);
    if (x->rank == 1 && dz_chance(&s->rng, 1, 2)) {
        *out = (dz_term){acc_gather(s->g, s->indices, x->n), 1, DZ_T_PRODUCER};
        return 1;
    }
    acc_node *ix = dz_param(s, acc_type_shape(x->rank));
    acc_node *i = acc_get(s->g, ix, (size_t)x->rank - 1);
    acc_node *k = acc_read(s->g, s->indices, acc_index(s->g, 1, &i));
    acc_node *sh = acc_shape(s->g, x->n), *c[2];
    c[x->rank - 1] = acc_get(s->g, acc_shape(s->g, s->indices), 0);
    if (x->rank == 2)
        c[0] = acc_get(s->g, sh, 0);
    acc_node *to = acc_index(s->g, (size_t)x->rank, c);
    acc_node *p = dz_lam1(s, ix, with_inner(s, ix, x->rank, k));
    *out = (dz_term){acc_backpermute(s->g, to, p, x->n), x->rank,
                     DZ_T_PRODUCER};
    return 1;
}

static int op_replicate(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, 0x7u);
    if (!x)
        return 0;
    int add = 1 + (int)dz_rnd(&s->rng, (uint32_t)(3 - x->rank));
    int n = x->rank + add, alls = 0;
    acc_node *spec[3];
    for (int d = 0; d < n; d++) {
        int left = n - d, need = x->rank - alls;
        if (need > 0 && (left == need || dz_chance(&s->rng, 1, 2))) {
            spec[d] = acc_all(s->g);
            alls++;
        } else {
            spec[d] = dz_i64(s, (int64_t)dz_rnd(&s->rng, 4));
        }
    }
    *out = (dz_term){acc_replicate(s->g, (size_t)n, spec, x->n), n,
                     DZ_T_PRODUCER};
    return 1;
}

/* slice: some dimensions fixed at 0..2 (out of range for short ones). */
static int op_slice(dz_gen *s, dz_term *out)
{
    const dz_term *x = s->no_fail ? NULL : dz_pick(s, RANKS_1_UP);
    if (!x)
        return 0;
    dz_may_fail(s);
    acc_node *spec[3];
    int alls = 0;
    for (int d = 0; d < x->rank; d++) {
        if (dz_chance(&s->rng, 1, 2)) {
            spec[d] = acc_all(s->g);
            alls++;
        } else {
            spec[d] = dz_i64(s, (int64_t)dz_rnd(&s->rng, 3));
        }
    }
    *out = (dz_term){acc_slice(s->g, x->n, (size_t)x->rank, spec), alls,
                     DZ_T_PRODUCER};
    return 1;
}

/* reshape to [size], [size, 1] or [2, size / 2] (a run-time error for an
 * odd size). */
static int op_reshape(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, ANY_RANK);
    acc_node *n = acc_size(s->g, x->n), *c[2];
    dz_may_fail(s);
    int how = (int)dz_rnd(&s->rng, 3), r = how == 0 ? 1 : 2;
    if (how == 0) {
        c[0] = n;
    } else if (how == 1) {
        c[0] = n;
        c[1] = dz_i64(s, 1);
    } else {
        c[0] = dz_i64(s, 2);
        c[1] = acc_binop(s->g, ACC_OP_QUOT, n, dz_i64(s, 2));
    }
    *out = (dz_term){acc_reshape(s->g, acc_index(s->g, (size_t)r, c), x->n),
                     r, 0};
    return 1;
}

static int op_unit(dz_gen *s, dz_term *out)
{
    *out = (dz_term){acc_unit(s->g, dz_closed(s, dz_any_elem(s, 4), 3)), 0, 0};
    return 1;
}

/* map f xs as an output of its own, f's result a raw division, shift or
 * read of guarded operands: every element is demanded and the operation
 * that may fail is the value itself, so no dead-code elimination may drop
 * its check, and runtime errors are compared even where bug (b)'s
 * patterns are left out. */
static int op_checked(dz_gen *s, dz_term *out)
{
    static const acc_primop div[4] = {ACC_OP_QUOT, ACC_OP_REM, ACC_OP_DIV,
                                      ACC_OP_MOD};
    const dz_term *x = dz_pick(s, ANY_RANK);
    const acc_type *e = dz_elem(x->n);
    acc_node *p = dz_param(s, e), *v;
    dz_env env = {.n = 0, .reads = 1};
    dz_env_push(&env, p);
    int no_fail = s->no_fail;
    s->no_fail = 1;
    acc_scalar sc;
    do
        sc = dz_any_scalar(&s->rng);
    while (!dz_is_int(sc));
    const acc_type *st = dz_scalar_type(sc);
    const dz_term *t = NULL;
    switch (dz_rnd(&s->rng, 3)) {
    case 0:
        v = acc_binop(s->g, div[dz_rnd(&s->rng, 4)], dz_expr(s, &env, st, 2),
                      dz_expr(s, &env, st, 2));
        dz_mark(s, DZ_C_DIVISION);
        break;
    case 1:
        v = acc_binop(s->g, dz_chance(&s->rng, 1, 2) ? ACC_OP_SHIFTL : ACC_OP_SHIFTR,
                      dz_expr(s, &env, st, 2), dz_expr(s, &env, st, 2));
        dz_mark(s, DZ_C_SHIFT);
        break;
    default:
        /* a read of a fused producer is bug (b)'s pattern */
        for (int tries = 0; tries < 4; tries++) {
            t = dz_readable(s, 0);
            if (t && !((t->flags & DZ_T_PRODUCER) &&
                       (s->opt->avoid & DZ_AVOID_UNCHECKED)))
                break;
            t = NULL;
        }
        if (!t || t->rank == 0) {
            v = acc_binop(s->g, ACC_OP_QUOT, dz_expr(s, &env, st, 2),
                          dz_expr(s, &env, st, 2));
            break;
        }
        acc_node *c[ACC_MAX_RANK];
        for (int d = 0; d < t->rank; d++)
            c[d] = dz_expr(s, &env, dz_scalar_type(ACC_I64), 2);
        v = acc_read(s->g, t->n, acc_index(s->g, (size_t)t->rank, c));
        dz_mark(s, DZ_C_READ);
        break;
    }
    s->no_fail = no_fail;
    dz_add_output(s, acc_map(s->g, dz_lam1(s, p, v), x->n), DZ_CMP_EXACT, NULL);
    dz_mark(s, DZ_C_CHECKED);
    out->n = NULL;
    return 1;
}

/* ---- known bugs' patterns ------------------------------------------------------ */

/* let ys = <producer> in generate sh (\ix -> h (ys ! f ix)), f ix possibly
 * outside ys (bug (b): fusion drops the check).  An output of its own, so
 * every element is demanded. */
static int op_fused_read(dz_gen *s, dz_term *out)
{
    const dz_term *x = dz_pick(s, RANKS_1_UP);
    if (!x || (s->opt->avoid & DZ_AVOID_UNCHECKED))
        return 0;
    int r = x->rank;
    const acc_type *e = dz_elem(x->n), *ixt = acc_type_shape(r);
    acc_node *ys, *sh = acc_shape(s->g, x->n);
    switch (dz_rnd(&s->rng, 4)) {
    case 0: ys = acc_map(s->g, dz_fun(s, 1, &e, e, 2), x->n); break;
    case 1: {
        /* a shorter innermost extent */
        acc_node *d = acc_binop(s->g, ACC_OP_SUB,
                                acc_get(s->g, sh, (size_t)r - 1), dz_i64(s, 1));
        acc_node *ix = dz_param(s, ixt);
        acc_node *c[3];
        for (int k = 0; k < r; k++)
            c[k] = k == r - 1 ? d : acc_get(s->g, sh, (size_t)k);
        ys = acc_backpermute(s->g, acc_index(s->g, (size_t)r, c),
                             dz_lam1(s, ix, ix), x->n);
        break;
    }
    case 2: ys = acc_fill(s->g, sh, dz_closed(s, e, 1)); break;
    default: ys = acc_generate(s->g, sh, dz_fun(s, 1, &ixt, e, 2)); break;
    }
    acc_node *ix = dz_param(s, ixt);
    acc_node *j = acc_binop(s->g, ACC_OP_ADD, acc_get(s->g, ix, (size_t)r - 1),
                            dz_i64(s, (int64_t)dz_rnd(&s->rng, 4) - 1));
    acc_node *v = acc_read(s->g, ys, with_inner(s, ix, r, j));
    acc_node *gen = acc_generate(s->g, sh, dz_lam1(s, ix, v));
    dz_mark(s, DZ_C_FUSED_READ);
    dz_add_output(s, gen, DZ_CMP_EXACT, NULL);
    out->n = NULL;
    return 1;
}

/* An extent from the huge input: near 2^63 in some data sets, so every
 * result must fail to allocate (or be refused) cleanly; an output of its
 * own (nothing may loop over it). */
static int op_extent(dz_gen *s, dz_term *out)
{
    if (!s->huge)
        return 0;
    acc_node *n = acc_the(s->g, s->huge), *r;
    const dz_term *x = dz_pick(s, 0x2u);
    int how = (int)dz_rnd(&s->rng, 5);
    if (how == 4 && (s->opt->avoid & DZ_AVOID_HUGE))
        how = 0;
    acc_node *ix = dz_param(s, acc_type_shape(1));
    acc_node *i = acc_get(s->g, ix, 0);
    switch (how) {
    case 0:
        r = acc_generate(s->g, acc_index(s->g, 1, &n),
                         dz_lam1(s, ix, acc_binop(s->g, ACC_OP_MUL, i, i)));
        break;
    case 1: {
        acc_node *c[2] = {dz_i64(s, 2), n};
        r = acc_fill(s->g, acc_index(s->g, 2, c), dz_closed(s, dz_any_elem(s, 2), 1));
        break;
    }
    case 2: {
        if (!x)
            return 0;
        acc_node *spec[2] = {n, acc_all(s->g)};
        r = acc_replicate(s->g, 2, spec, x->n);
        break;
    }
    case 3: {
        acc_node *spec[2] = {acc_all(s->g), n};
        r = acc_replicate(s->g, 2, spec,
                          acc_fill(s->g, acc_index(s->g, 1, &n), dz_i64(s, 7)));
        break;
    }
    default: {
        /* a scan over n elements gives n + 1 (bug (c)) */
        acc_node *a = dz_param(s, dz_scalar_type(ACC_I64));
        acc_node *b = dz_param(s, dz_scalar_type(ACC_I64));
        acc_node *f = dz_lam2(s, a, b, acc_binop(s->g, ACC_OP_ADD, a, b));
        acc_node *g = acc_generate(s->g, acc_index(s->g, 1, &n),
                                   dz_lam1(s, ix, i));
        r = acc_scan(s->g, dz_chance(&s->rng, 1, 2) ? ACC_SCANL : ACC_SCANR, f,
                     dz_i64(s, 0), g);
        break;
    }
    }
    dz_mark(s, DZ_C_EXTENT);
    dz_add_output(s, r, DZ_CMP_EXACT, NULL);
    out->n = NULL;
    return 1;
}

const dz_op dz_producers[] = {
    {DZ_C_MAP, 6, op_map},
    {DZ_C_CONVERT, 3, op_convert},
    {DZ_C_ZIPWITH, 5, op_zipwith},
    {DZ_C_GENERATE, 4, op_generate},
    {DZ_C_FILL, 1, op_fill},
    {DZ_C_BACKPERMUTE, 3, op_backpermute},
    {DZ_C_GATHER, 2, op_gather},
    {DZ_C_REPLICATE, 2, op_replicate},
    {DZ_C_SLICE, 2, op_slice},
    {DZ_C_RESHAPE, 2, op_reshape},
    {DZ_C_UNIT, 1, op_unit},
    {DZ_C_FUSED_READ, 2, op_fused_read},
    {DZ_C_EXTENT, 3, op_extent},
    {DZ_C_CHECKED, 2, op_checked},
};
const size_t dz_n_producers = sizeof dz_producers / sizeof *dz_producers;
