/*
 * gen_scalar.c — random scalar expressions (LANGUAGE.md §2) of a wanted
 * type: every primitive from a table, conversions between every pair of
 * types, float-to-integer rounding, comparisons, if, let (a value used
 * twice), tuples and projections, bounded while loops, array reads
 * (wrapped into range, or raw and possibly out of range), shape and size.
 *
 * Operations that can fail at run time (integer division by zero, a
 * negative shift amount, an out-of-range read) appear raw only when the
 * generator may fail (dz_gen.no_fail == 0); otherwise they are guarded
 * (a zero divisor replaced by 1, the amount masked, the index wrapped).
 */
#include "gen.h"

#include <string.h>

/* ---- the primitive table ------------------------------------------------- */

typedef enum operands { O_NUM, O_INT, O_FLOAT, O_ORD, O_BOOL } operands;

typedef struct prim {
    acc_primop op;
    int arity;
    operands k;
    int libm;     /* a libm function: backends with another libm differ
                     (2: one the cpu backend vectorises with libmvec) */
    dz_class cls; /* DZ_N_CLASSES when it has no class of its own */
} prim;

/* The primitives whose result has the operands' type. */
static const prim prims[] = {
    {ACC_OP_ADD, 2, O_NUM, 0, DZ_N_CLASSES},
    {ACC_OP_SUB, 2, O_NUM, 0, DZ_N_CLASSES},
    {ACC_OP_MUL, 2, O_NUM, 0, DZ_N_CLASSES},
    {ACC_OP_NEG, 1, O_NUM, 0, DZ_N_CLASSES},
    {ACC_OP_ABS, 1, O_NUM, 0, DZ_N_CLASSES},
    {ACC_OP_SIGNUM, 1, O_NUM, 0, DZ_N_CLASSES},
    {ACC_OP_MIN, 2, O_ORD, 0, DZ_N_CLASSES},
    {ACC_OP_MAX, 2, O_ORD, 0, DZ_N_CLASSES},
    {ACC_OP_FDIV, 2, O_FLOAT, 0, DZ_N_CLASSES},
    {ACC_OP_QUOT, 2, O_INT, 0, DZ_C_DIVISION},
    {ACC_OP_REM, 2, O_INT, 0, DZ_C_DIVISION},
    {ACC_OP_DIV, 2, O_INT, 0, DZ_C_DIVISION},
    {ACC_OP_MOD, 2, O_INT, 0, DZ_C_DIVISION},
    {ACC_OP_BAND, 2, O_INT, 0, DZ_N_CLASSES},
    {ACC_OP_BOR, 2, O_INT, 0, DZ_N_CLASSES},
    {ACC_OP_BXOR, 2, O_INT, 0, DZ_N_CLASSES},
    {ACC_OP_COMPLEMENT, 1, O_INT, 0, DZ_N_CLASSES},
    {ACC_OP_SHIFTL, 2, O_INT, 0, DZ_C_SHIFT},
    {ACC_OP_SHIFTR, 2, O_INT, 0, DZ_C_SHIFT},
    {ACC_OP_LAND, 2, O_BOOL, 0, DZ_N_CLASSES},
    {ACC_OP_LOR, 2, O_BOOL, 0, DZ_N_CLASSES},
    {ACC_OP_NOT, 1, O_BOOL, 0, DZ_N_CLASSES},
    {ACC_OP_SQRT, 1, O_FLOAT, 0, DZ_C_FLOAT_FN},
    {ACC_OP_EXP, 1, O_FLOAT, 2, DZ_C_FLOAT_FN},
    {ACC_OP_LOG, 1, O_FLOAT, 2, DZ_C_FLOAT_FN},
    {ACC_OP_SIN, 1, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_COS, 1, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_TAN, 1, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_ASIN, 1, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_ACOS, 1, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_ATAN, 1, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_SINH, 1, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_COSH, 1, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_TANH, 1, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_ATAN2, 2, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_POW, 2, O_FLOAT, 1, DZ_C_FLOAT_FN},
    {ACC_OP_LOGBASE, 2, O_FLOAT, 2, DZ_C_FLOAT_FN},
};

static int accepts(operands k, acc_scalar s)
{
    switch (k) {
    case O_NUM: return dz_is_int(s) || dz_is_float(s);
    case O_INT: return dz_is_int(s);
    case O_FLOAT: return dz_is_float(s);
    case O_ORD: return 1;
    case O_BOOL: return s == ACC_BOOL;
    }
    return 0;
}

/* ---- environments and leaves -------------------------------------------------- */

void dz_env_push(dz_env *e, acc_node *n)
{
    if (n && e->n < DZ_ENV)
        e->var[e->n++] = n;
}

/* Leaves of scalar type sc inside a value of type t (a shape's
 * components are i64). */
static int count_leaves(const acc_type *t, acc_scalar sc)
{
    switch (acc_type_get_kind(t)) {
    case ACC_TYPE_SCALAR: return acc_type_get_scalar(t) == sc;
    case ACC_TYPE_SHAPE: return sc == ACC_I64 ? acc_type_get_rank(t) : 0;
    case ACC_TYPE_TUPLE: {
        int c = 0;
        for (size_t i = 0; i < acc_type_get_arity(t); i++)
            c += count_leaves(acc_type_get_field(t, i), sc);
        return c;
    }
    default: return 0;
    }
}

/* Leaf number k (of those count_leaves counts) of value n of type t. */
static acc_node *build_leaf(dz_gen *s, acc_node *n, const acc_type *t,
                            acc_scalar sc, int k)
{
    switch (acc_type_get_kind(t)) {
    case ACC_TYPE_SCALAR: return n;
    case ACC_TYPE_SHAPE: return acc_get(s->g, n, (size_t)k);
    default:
        for (size_t i = 0; i < acc_type_get_arity(t); i++) {
            const acc_type *f = acc_type_get_field(t, i);
            int c = count_leaves(f, sc);
            if (k < c)
                return build_leaf(s, acc_get(s->g, n, i), f, sc, k);
            k -= c;
        }
        return NULL;
    }
}

/* The leaves of type sc among the variables. */
static int count_env(const dz_env *e, acc_scalar sc)
{
    int total = 0;
    for (int i = 0; i < e->n; i++)
        total += count_leaves(acc_node_type(e->var[i]), sc);
    return total;
}

/* A random leaf of type sc among the variables; NULL when there is none. */
static acc_node *var_leaf(dz_gen *s, const dz_env *e, acc_scalar sc)
{
    int total = count_env(e, sc);
    if (total == 0)
        return NULL;
    int k = (int)dz_rnd(&s->rng, (uint32_t)total);
    for (int i = 0; i < e->n; i++) {
        const acc_type *t = acc_node_type(e->var[i]);
        int c = count_leaves(t, sc);
        if (k < c)
            return build_leaf(s, e->var[i], t, sc, k);
        k -= c;
    }
    return NULL;
}

/* A variable of exactly type t (a tuple or shape), or NULL. */
static acc_node *var_of_type(dz_gen *s, const dz_env *e, const acc_type *t)
{
    int at = e->n ? (int)dz_rnd(&s->rng, (uint32_t)e->n) : 0;
    for (int i = 0; i < e->n; i++) {
        acc_node *v = e->var[(at + i) % e->n];
        if (acc_type_equal(acc_node_type(v), t))
            return v;
    }
    return NULL;
}

/* ---- productions ------------------------------------------------------------------ */

static acc_node *scalar_expr(dz_gen *s, dz_env *e, acc_scalar sc, int depth);

static acc_node *sub(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    return scalar_expr(s, e, sc, depth - 1);
}

static acc_node *p_leaf(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    (void)depth;
    acc_node *v = dz_chance(&s->rng, 7, 8) ? var_leaf(s, e, sc) : NULL;
    return v ? v : dz_const(s, sc, 0);
}

/* d, or 1 where d is 0 */
static acc_node *nonzero(dz_gen *s, acc_node *d, acc_scalar sc)
{
    acc_node *is0 = acc_binop(s->g, ACC_OP_EQ, d, dz_zero(s, sc));
    return acc_cond(s->g, is0, dz_one(s, sc), d);
}

static acc_node *shift_amount(dz_gen *s, dz_env *e, int depth)
{
    acc_scalar t;
    do
        t = dz_any_scalar(&s->rng);
    while (!dz_is_int(t));
    acc_node *a = sub(s, e, t, depth);
    if (s->no_fail || dz_chance(&s->rng, 1, 2))
        a = acc_binop(s->g, ACC_OP_BAND, a, acc_const_i64(s->g, t, 63));
    return a;
}

static acc_node *p_prim(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    const prim *ok[sizeof prims / sizeof *prims];
    size_t n = 0;
    for (size_t i = 0; i < sizeof prims / sizeof *prims; i++)
        if (accepts(prims[i].k, sc) && !(prims[i].libm && s->opt->exact_math) &&
            !(prims[i].libm && (s->opt->avoid & DZ_AVOID_LIBM)))
            ok[n++] = &prims[i];
    if (n == 0)
        return NULL;
    const prim *p = ok[dz_rnd(&s->rng, (uint32_t)n)];
    if (p->cls != DZ_N_CLASSES)
        dz_mark(s, p->cls);
    acc_node *a = sub(s, e, sc, depth);
    if (p->arity == 1)
        return acc_unop(s->g, p->op, a);
    if (p->op == ACC_OP_SHIFTL || p->op == ACC_OP_SHIFTR)
        return acc_binop(s->g, p->op, a, shift_amount(s, e, depth));
    acc_node *b = sub(s, e, sc, depth);
    if (p->cls == DZ_C_DIVISION && (s->no_fail || dz_chance(&s->rng, 3, 4)))
        b = nonzero(s, b, sc);
    return acc_binop(s->g, p->op, a, b);
}

/* A conversion from another type.  Leaving out (a): no widening of the
 * 1-byte types, which the known miscompile is about. */
static acc_node *p_convert(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    acc_scalar from = dz_any_scalar(&s->rng);
    for (int tries = 0; tries < 4 && !count_env(e, from); tries++)
        from = dz_any_scalar(&s->rng); /* prefer a type the variables have */
    if ((s->opt->avoid & DZ_AVOID_WIDEN) && acc_scalar_size(from) == 1 &&
        acc_scalar_size(sc) > 1)
        return NULL;
    dz_mark(s, DZ_C_CONVERT);
    dz_feature(s, DZ_F_CONVERT + 11 * ((int)from - 1) + (int)sc - 1);
    return acc_convert(s->g, sub(s, e, from, depth), sc);
}

static acc_node *p_round(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    static const acc_primop ops[4] = {ACC_OP_TRUNCATE, ACC_OP_ROUND,
                                      ACC_OP_FLOOR, ACC_OP_CEILING};
    if (!dz_is_int(sc))
        return NULL;
    acc_scalar from = dz_chance(&s->rng, 1, 2) ? ACC_F32 : ACC_F64;
    return acc_round_to(s->g, ops[dz_rnd(&s->rng, 4)], sub(s, e, from, depth),
                        sc);
}

static acc_node *p_compare(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    if (sc != ACC_BOOL)
        return NULL;
    acc_scalar t = dz_any_scalar(&s->rng);
    acc_primop op = (acc_primop)(ACC_OP_EQ + (int)dz_rnd(&s->rng, 6));
    return acc_binop(s->g, op, sub(s, e, t, depth), sub(s, e, t, depth));
}

static acc_node *p_classify(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    if (sc != ACC_BOOL)
        return NULL;
    acc_scalar t = dz_chance(&s->rng, 1, 2) ? ACC_F32 : ACC_F64;
    return acc_unop(s->g, dz_chance(&s->rng, 1, 2) ? ACC_OP_ISNAN : ACC_OP_ISINF,
                    sub(s, e, t, depth));
}

static acc_node *p_bits(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    if (sc != ACC_I64)
        return NULL;
    acc_scalar t;
    do
        t = dz_any_scalar(&s->rng);
    while (!dz_is_int(t));
    return acc_unop(s->g, dz_chance(&s->rng, 1, 2) ? ACC_OP_POPCOUNT : ACC_OP_CLZ,
                    sub(s, e, t, depth));
}

static acc_node *p_cond(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    acc_node *c = sub(s, e, ACC_BOOL, depth);
    return acc_cond(s->g, c, sub(s, e, sc, depth), sub(s, e, sc, depth));
}

/* let x = .. in body: x joins the variables (a use or two of it). */
static acc_node *p_share(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    int n = e->n;
    acc_scalar t = dz_chance(&s->rng, 1, 2) ? sc : dz_any_scalar(&s->rng);
    dz_env_push(e, sub(s, e, t, depth));
    acc_node *r = sub(s, e, sc, depth + 1);
    e->n = n;
    return r;
}

/* A tuple built and one component taken: the others are computed (and
 * checked) by the interpreter, and dropped by the CPU's dead-code
 * elimination. */
static acc_node *p_project(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    acc_node *items[3];
    size_t n = 2 + dz_rnd(&s->rng, 2), at = dz_rnd(&s->rng, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        items[i] = sub(s, e, i == at ? sc : dz_any_scalar(&s->rng), depth);
    dz_mark(s, DZ_C_TUPLE);
    return acc_get(s->g, acc_tuple(s->g, n, items), at);
}

/* while (\(i, x) -> i < k) (\(i, x) -> (i + 1, f x)) (0, x0): at most k
 * iterations, k a small constant. */
static acc_node *p_while(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    const acc_type *f[2] = {dz_scalar_type(ACC_I64), dz_scalar_type(sc)};
    const acc_type *st = dz_tuple_type(s, 2, f);
    acc_node *pc = dz_param(s, st), *pb = dz_param(s, st);
    acc_node *k = dz_i64(s, (int64_t)dz_rnd(&s->rng, 6));
    acc_node *cond = dz_lam1(s, pc, acc_binop(s->g, ACC_OP_LT,
                                              acc_get(s->g, pc, 0), k));
    dz_env inner = *e;
    dz_env_push(&inner, acc_get(s->g, pb, 1));
    dz_env_push(&inner, acc_get(s->g, pb, 0));
    acc_node *next[2] = {
        acc_binop(s->g, ACC_OP_ADD, acc_get(s->g, pb, 0), dz_i64(s, 1)),
        sub(s, &inner, sc, depth)};
    acc_node *body = dz_lam1(s, pb, acc_tuple(s->g, 2, next));
    acc_node *init[2] = {dz_i64(s, 0), sub(s, e, sc, depth)};
    dz_mark(s, DZ_C_WHILE);
    return acc_get(s->g, acc_while(s->g, cond, body, acc_tuple(s->g, 2, init)),
                   1);
}

/* A pool term whose element type has a leaf of type sc (or any, sc = 0). */
const dz_term *dz_readable(dz_gen *s, acc_scalar sc)
{
    int at = s->n_pool ? (int)dz_rnd(&s->rng, (uint32_t)s->n_pool) : 0;
    for (int i = 0; i < s->n_pool; i++) {
        const dz_term *t = &s->pool[(at + i) % s->n_pool];
        if (s->no_fail && (t->flags & DZ_T_MAYFAIL))
            continue; /* reading it would fail, even where the value is dropped */
        if (!sc || count_leaves(dz_elem(t->n), sc) > 0) {
            s->taint |= t->flags & DZ_T_MAYFAIL;
            return t;
        }
    }
    return NULL;
}

acc_node *dz_wrap_index(dz_gen *s, acc_node *e, acc_node *ext)
{
    return acc_binop(s->g, ACC_OP_MOD, e, ext);
}

acc_node *dz_safe_read(dz_gen *s, dz_env *e, acc_node *xs, int rank,
                       int depth)
{
    acc_node *c[ACC_MAX_RANK], *sh = acc_shape(s->g, xs);
    for (int d = 0; d < rank; d++)
        c[d] = dz_wrap_index(s, sub(s, e, ACC_I64, depth),
                             acc_get(s->g, sh, (size_t)d));
    acc_node *read = acc_read(s->g, xs, acc_index(s->g, (size_t)rank, c));
    dz_env none = {.n = 0, .reads = 0};
    acc_node *fallback = dz_expr(s, &none, dz_elem(xs), 0);
    acc_node *nonempty = acc_binop(s->g, ACC_OP_GT, acc_size(s->g, xs),
                                   dz_i64(s, 0));
    return acc_cond(s->g, nonempty, read, fallback);
}

/* xs ! ix, xs !! k or the xs: wrapped into range, or (when failing is
 * allowed) raw, possibly out of range. */
static acc_node *p_read(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    const dz_term *t = e->reads ? dz_readable(s, sc) : NULL;
    if (!t)
        return NULL;
    const acc_type *el = dz_elem(t->n);
    acc_node *v;
    dz_mark(s, DZ_C_READ);
    if (t->rank == 0) {
        v = acc_the(s->g, t->n);
    } else if (!s->no_fail && dz_chance(&s->rng, 1, 4)) {
        if (t->flags & DZ_T_PRODUCER)
            dz_mark(s, DZ_C_FUSED_READ);
        if (dz_chance(&s->rng, 1, 3)) {
            v = acc_read_linear(s->g, t->n, sub(s, e, ACC_I64, depth));
        } else {
            acc_node *c[ACC_MAX_RANK];
            for (int d = 0; d < t->rank; d++)
                c[d] = sub(s, e, ACC_I64, depth);
            v = acc_read(s->g, t->n, acc_index(s->g, (size_t)t->rank, c));
        }
    } else {
        v = dz_safe_read(s, e, t->n, t->rank, depth);
    }
    int k = count_leaves(el, sc);
    return build_leaf(s, v, el, sc, (int)dz_rnd(&s->rng, (uint32_t)k));
}

static acc_node *p_size(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    (void)depth;
    const dz_term *t = sc == ACC_I64 && e->reads ? dz_readable(s, 0) : NULL;
    if (!t)
        return NULL;
    if (t->rank == 0 || dz_chance(&s->rng, 1, 3))
        return acc_size(s->g, t->n);
    return acc_get(s->g, acc_shape(s->g, t->n),
                   dz_rnd(&s->rng, (uint32_t)t->rank));
}

typedef acc_node *(*production)(dz_gen *, dz_env *, acc_scalar, int);

static const struct {
    production make;
    int weight;
} productions[] = {
    {p_leaf, 4},    {p_prim, 9},    {p_convert, 3}, {p_round, 1},
    {p_compare, 3}, {p_classify, 1},{p_bits, 1},    {p_cond, 2},
    {p_share, 2},   {p_project, 1}, {p_while, 1},   {p_read, 3},
    {p_size, 1},
};

static production pick_production(dz_gen *s)
{
    int total = 0;
    size_t n = sizeof productions / sizeof *productions;
    for (size_t i = 0; i < n; i++)
        total += productions[i].weight;
    int k = (int)dz_rnd(&s->rng, (uint32_t)total);
    for (size_t i = 0; i < n; i++) {
        if (k < productions[i].weight)
            return productions[i].make;
        k -= productions[i].weight;
    }
    return p_leaf;
}

static acc_node *scalar_expr(dz_gen *s, dz_env *e, acc_scalar sc, int depth)
{
    if (depth <= 0 || s->budget <= 0)
        return p_leaf(s, e, sc, 0);
    s->budget--;
    for (int tries = 0; tries < 6; tries++) {
        acc_node *r = pick_production(s)(s, e, sc, depth);
        if (r)
            return r;
    }
    return p_leaf(s, e, sc, 0);
}

/* ---- values of any type ----------------------------------------------------------- */

acc_node *dz_expr(dz_gen *s, dz_env *e, const acc_type *t, int depth)
{
    acc_node *v;
    switch (acc_type_get_kind(t)) {
    case ACC_TYPE_SCALAR:
        return scalar_expr(s, e, acc_type_get_scalar(t), depth);
    case ACC_TYPE_SHAPE: {
        if ((v = var_of_type(s, e, t)) && dz_chance(&s->rng, 1, 2))
            return v;
        acc_node *c[ACC_MAX_RANK];
        int r = acc_type_get_rank(t);
        for (int d = 0; d < r; d++)
            c[d] = scalar_expr(s, e, ACC_I64, depth - 1);
        return acc_index(s->g, (size_t)r, c);
    }
    default: {
        if ((v = var_of_type(s, e, t)) && dz_chance(&s->rng, 1, 2))
            return v;
        if (depth > 0 && dz_chance(&s->rng, 1, 6)) {
            acc_node *c = scalar_expr(s, e, ACC_BOOL, depth - 1);
            return acc_cond(s->g, c, dz_expr(s, e, t, depth - 1),
                            dz_expr(s, e, t, depth - 1));
        }
        acc_node *items[ACC_MAX_COMPONENTS];
        size_t n = acc_type_get_arity(t);
        for (size_t i = 0; i < n; i++)
            items[i] = dz_expr(s, e, acc_type_get_field(t, i), depth);
        return acc_tuple(s->g, n, items);
    }
    }
}

acc_node *dz_closed(dz_gen *s, const acc_type *t, int depth)
{
    dz_env e = {.n = 0, .reads = 1};
    int budget = s->budget;
    s->budget = 12;
    acc_node *r = dz_expr(s, &e, t, depth);
    s->budget = budget;
    return r;
}

acc_node *dz_fun(dz_gen *s, size_t n, const acc_type *const *params,
                 const acc_type *result, int depth)
{
    acc_node *p[8];
    dz_env e = {.n = 0, .reads = 1};
    for (size_t i = 0; i < n; i++) {
        p[i] = dz_param(s, params[i]);
        dz_env_push(&e, p[i]);
    }
    int budget = s->budget;
    s->budget = 30;
    acc_node *body = dz_expr(s, &e, result, depth);
    s->budget = budget;
    return acc_lambda(s->g, n, p, body);
}
