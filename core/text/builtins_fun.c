/*
 * builtins_fun.c — functions over functions and the loops the elaborator
 * builds for them, as Accelerate's Prelude offers them: composition `.`
 * and application `$` as functions (the parser turns `f $ x` into an
 * application itself; `(.)`, `($)`, `(f .)` and `($ x)` need these),
 * `iterate n f x` (f applied n times) and `sfoldl f z ix xs` (a
 * sequential left fold over row ix of xs, in scalar code).
 */
#include "core/text/text_builtins.h"

/* Array states with a literal count up to this are unrolled. */
#define TEXT_ITERATE_UNROLL 64

/* (.) f g x = f (g x) */
text_val *text_bi_compose(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    (void)b;
    text_val *gx = text_apply(el, args[1], 1, &args[2], pos);
    return text_apply(el, args[0], 1, &gx, pos);
}

/* ($) f x = f x */
text_val *text_bi_apply(text_elab *el, const text_builtin *b,
                        text_val **args, text_pos pos)
{
    (void)b;
    return text_apply(el, args[0], 1, &args[1], pos);
}

/* x, then f x, f (f x), ...: `count` applications inlined at the meta
 * level, each result of x's type. */
static text_val *unrolled(text_elab *el, text_val *f, text_val *x,
                          int64_t count, text_pos pos)
{
    text_type *t = x->core->type;
    for (int64_t i = 0; i < count; i++) {
        x = text_apply(el, f, 1, &x, pos);
        text_expect_type(el, text_want_core(el, x, "the result of the "
                                            "function of 'iterate'", pos)->type,
                         t, "the result of the function of 'iterate'", pos);
    }
    return x;
}

/* iterate n f x: f applied n times to x (x itself when n <= 0).  A scalar
 * x loops with `while`, as Accelerate's iterate does.  An array (or a
 * tuple of arrays) with n an integer literal up to TEXT_ITERATE_UNROLL is
 * unrolled: f is inlined n times, the meta-level repetition of Fluid.hs's
 * `foldl1 (.) (replicate n f)`, so fusion sees through the steps;
 * otherwise it loops with `awhile`.  The loops are the prelude's
 * iterateScalar and iterateArrays. */
text_val *text_bi_iterate(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    text_core *n = text_arg(el, b, args, 0, pos);
    text_core *x = text_arg(el, b, args, 2, pos);
    if (!text_ty_unify(n->type, text_ty_var(el->st, TC_INT)))
        text_type_error(el, pos, "'iterate' repeats a function a number of "
                        "times, but its first argument has type %s, expected "
                        "an integer", text_ty_name(el->st, n->type));
    int arrays = text_ty_is_array_sort(x->type);
    int literal = n->kind == CK_INT &&
                  (n->neg || (n->ival >= 0 && n->ival <= TEXT_ITERATE_UNROLL));
    if (arrays && literal)
        return unrolled(el, args[1], args[2], n->neg ? 0 : n->ival, pos);
    text_val *loop = text_prelude_fn(el, arrays ? "iterateArrays"
                                                : "iterateScalar", pos);
    return text_apply(el, loop, 3, args, pos);
}

/* ---- sfoldl ------------------------------------------------------------------ */

static text_core *get(text_elab *el, text_core *c, int i, text_type *t,
                      text_pos pos)
{
    if ((c->kind == CK_TUPLE || c->kind == CK_INDEX) && (size_t)i < c->n)
        return c->args[i];
    text_core *g = text_mk(el, CK_GET, t, pos, 1, c);
    g->op = i;
    return g;
}

static text_core *binop(text_elab *el, acc_primop op, text_type *t,
                        text_core *x, text_core *y, text_pos pos)
{
    text_core *c = text_mk(el, CK_BINOP, t, pos, 2, x, y);
    c->op = (int)op;
    return c;
}

static text_core *i64_const(text_elab *el, int64_t v, text_pos pos)
{
    text_core *c = text_mk(el, CK_INT, text_i64(el), pos, 0);
    c->ival = v;
    c->fval = (double)v;
    return c;
}

/* The parts of sfoldl's loop over the state (acc, k). */
typedef struct sfoldl_loop {
    text_type *state;
    text_core *ix, *xs, *n;
    int rank;
} sfoldl_loop;

/* \(acc, k) -> k < n */
static text_core *sfoldl_cond(text_elab *el, const sfoldl_loop *l,
                              text_pos pos)
{
    text_core *p = text_mk(el, CK_PARAM, l->state, pos, 0);
    text_core *k = get(el, p, 1, text_i64(el), pos);
    return text_mk(el, CK_LAMBDA, text_bool(el), pos, 2, p,
                   binop(el, ACC_OP_LT, text_bool(el), k, l->n, pos));
}

/* \(acc, k) -> (f acc (xs ! (ix ++ [k])), k + 1) */
static text_core *sfoldl_body(text_elab *el, const sfoldl_loop *l,
                              text_val *f, text_pos pos)
{
    text_core *p = text_mk(el, CK_PARAM, l->state, pos, 0);
    text_type *a = text_ty_prune(l->state)->fields[0];
    text_core *k = get(el, p, 1, text_i64(el), pos);
    text_core **comps = text_alloc(el->st, (size_t)l->rank * sizeof *comps);
    for (int d = 0; d + 1 < l->rank; d++)
        comps[d] = get(el, l->ix, d, text_i64(el), pos);
    comps[l->rank - 1] = k;
    text_core *at = text_core_new(el, CK_INDEX, text_ty_shape(el->st, l->rank),
                                  pos, (size_t)l->rank, comps);
    text_val *fargs[2] = {
        text_val_core(el, get(el, p, 0, a, pos)),
        text_val_core(el, text_mk(el, CK_READ, text_elem(l->xs), pos, 2, l->xs,
                                  at))};
    text_core *r = text_want_core(el, text_apply(el, f, 2, fargs, pos),
                                  "the result of the function of 'sfoldl'",
                                  pos);
    text_expect_type(el, r->type, a, "the result of the function of 'sfoldl'",
                     pos);
    text_core *next = text_mk(el, CK_TUPLE, l->state, pos, 2, r,
                              binop(el, ACC_OP_ADD, text_i64(el), k,
                                    i64_const(el, 1, pos), pos));
    return text_mk(el, CK_LAMBDA, l->state, pos, 2, p, next);
}

/* sfoldl f z ix xs: f (... (f (f z x0) x1) ...) x(n-1) over the row ix of
 * xs (an index of rank r-1 for an Array r; [] for a vector), left to
 * right, in scalar code: a `while` over (acc, k).  Accelerate's sfoldl. */
text_val *text_bi_sfoldl(text_elab *el, const text_builtin *b,
                         text_val **args, text_pos pos)
{
    sfoldl_loop l;
    l.xs = text_arg_array(el, b, args, 3, pos);
    text_need_rank(el, b, l.xs, 3, 1, pos);
    l.rank = text_rank(l.xs);
    l.ix = text_arg_typed(el, b, args, 2, text_ty_shape(el->st, l.rank - 1),
                          pos);
    text_core *z = text_arg(el, b, args, 1, pos);
    text_type *fs[2] = {z->type, text_i64(el)};
    l.state = text_ty_tuple(el->st, 2, fs);
    l.n = get(el, text_mk(el, CK_SHAPE, text_ty_shape(el->st, l.rank), pos, 1,
                          l.xs),
              l.rank - 1, text_i64(el), pos);
    text_core *cond = sfoldl_cond(el, &l, pos);
    text_core *body = sfoldl_body(el, &l, args[0], pos);
    text_core *init = text_mk(el, CK_TUPLE, l.state, pos, 2, z,
                              i64_const(el, 0, pos));
    text_core *w = text_mk(el, CK_WHILE, l.state, pos, 3, cond, body, init);
    return text_ret(el, get(el, w, 0, z->type, pos));
}
