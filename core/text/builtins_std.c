/*
 * builtins_std.c — the standard library names of LANGUAGE.md §3.1 and §3.2
 * (sum, zip, take, filter, ...).  Each is typed here and elaborated to one
 * call of the C standard library (acc_sum, acc_zip, ...; emit.c), so the
 * text and C forms are the same composition.
 */
#include "core/text/text_builtins.h"

static text_val *std(text_elab *el, const text_builtin *b, text_type *t,
                     text_pos pos, size_t n, text_core *a0, text_core *a1,
                     text_core *a2)
{
    text_core *c = text_mk(el, CK_STD, t, pos, n, a0, a1, a2);
    c->op = b->op;
    return text_ret(el, c);
}

/* sum, product, maximum, minimum, and, or: Array (r+1) e -> Array r e. */
static text_val *reduction(text_elab *el, const text_builtin *b,
                           text_val **args, text_pos pos)
{
    text_core *xs = text_arg_array(el, b, args, 0, pos);
    text_need_rank(el, b, xs, 0, 1, pos);
    text_type *e = text_elem(xs);
    if (b->op == STD_AND || b->op == STD_OR)
        text_expect_type(el, e, text_bool(el), "the elements", pos);
    if (b->op == STD_SUM || b->op == STD_PRODUCT)
        text_expect_type(el, e, text_ty_var(el->st, TC_NUM), "the elements",
                         pos);
    return std(el, b, text_ty_array(el->st, e, text_rank(xs) - 1), pos, 1, xs,
               NULL, NULL);
}

/* all p xs, any p xs, filter p xs: p : e -> bool. */
static text_val *predicate(text_elab *el, const text_builtin *b,
                           text_val **args, text_pos pos)
{
    text_core *xs = text_arg_array(el, b, args, 1, pos);
    text_need_rank(el, b, xs, 1, 1, pos);
    text_type *e = text_elem(xs);
    text_core *p = text_arg_fun(el, b, args, 0, 1, &e, text_bool(el), pos);
    int r = text_rank(xs);
    if (b->op != STD_FILTER)
        return std(el, b, text_ty_array(el->st, text_bool(el), r - 1), pos, 2,
                   p, xs, NULL);
    text_type *fs[2] = {text_ty_array(el->st, e, 1),
                        text_ty_array(el->st, text_i64(el), r - 1)};
    return std(el, b, text_ty_tuple(el->st, 2, fs), pos, 2, p, xs, NULL);
}

static text_val *fold_all(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    int seeded = b->op == STD_FOLD_ALL;
    text_core *xs = text_arg_array(el, b, args, seeded ? 2 : 1, pos);
    text_type *e = text_elem(xs);
    text_type *ps[2] = {e, e};
    text_core *f = text_arg_fun(el, b, args, 0, 2, ps, e, pos);
    text_type *t = text_ty_array(el->st, e, 0);
    if (!seeded)
        return std(el, b, t, pos, 2, f, xs, NULL);
    return std(el, b, t, pos, 3, f, text_arg_typed(el, b, args, 1, e, pos), xs);
}

static text_val *scalar_test(text_elab *el, const text_builtin *b,
                             text_val **args, text_pos pos)
{
    text_core *x = text_arg(el, b, args, 0, pos);
    if (!text_ty_unify(x->type, text_ty_var(el->st, TC_INT)))
        text_type_error(el, pos, "'%s' works on integers, but its argument "
                        "has type %s", b->name, text_ty_name(el->st, x->type));
    return std(el, b, text_bool(el), pos, 1, x, NULL, NULL);
}

/* zip xs ys, zip3 xs ys zs, ... zip9: one array per argument. */
static text_val *zip(text_elab *el, const text_builtin *b, text_val **args,
                     text_pos pos)
{
    size_t n = (size_t)b->arity;
    text_core *items[9];
    text_type *fs[9];
    for (size_t i = 0; i < n; i++) {
        items[i] = text_arg_array(el, b, args, (int)i, pos);
        fs[i] = text_elem(items[i]);
        if (text_rank(items[i]) != text_rank(items[0]))
            text_type_error(el, pos, "'%s' is given arrays of ranks %d and "
                            "%d, expected equal ranks", b->name,
                            text_rank(items[0]), text_rank(items[i]));
    }
    text_type *t = text_ty_array(el->st, text_ty_tuple(el->st, n, fs),
                                 text_rank(items[0]));
    text_core *c = text_core_new(el, CK_STD, t, pos, n, items);
    c->op = b->op;
    return text_ret(el, c);
}

static text_val *unzip(text_elab *el, const text_builtin *b, text_val **args,
                       text_pos pos)
{
    text_core *xs = text_arg_array(el, b, args, 0, pos);
    text_type *e = text_ty_prune(text_elem(xs));
    int r = text_rank(xs);
    size_t n = e->kind == TT_TUPLE ? e->n
               : e->kind == TT_SHAPE ? (size_t)e->rank : 0;
    if (n == 0)
        text_type_error(el, pos, "'%s' splits arrays of tuples, but its "
                        "argument has type %s", b->name,
                        text_ty_name(el->st, xs->type));
    if (b->op == STD_UNZIP_N && n != (size_t)(b->name[5] - '0'))
        text_type_error(el, pos, "'%s' splits arrays of %c-tuples, but its "
                        "argument has type %s (use unzip for any tuple)",
                        b->name, b->name[5], text_ty_name(el->st, xs->type));
    text_type **fs = text_alloc(el->st, n * sizeof *fs);
    for (size_t i = 0; i < n; i++)
        fs[i] = text_ty_array(el->st, e->kind == TT_TUPLE ? e->fields[i]
                                                          : text_i64(el), r);
    return std(el, b, text_ty_tuple(el->st, n, fs), pos, 1, xs, NULL, NULL);
}

static text_val *enumeration(text_elab *el, const text_builtin *b,
                             text_val **args, text_pos pos)
{
    text_core *sh;
    int r = text_arg_shape(el, b, args, 0, &sh, pos);
    text_core *x = text_arg_typed(el, b, args, 1, text_ty_var(el->st, TC_NUM),
                                  pos);
    text_type *t = text_ty_array(el->st, x->type, r);
    if (b->op == STD_ENUM_N)
        return std(el, b, t, pos, 2, sh, x, NULL);
    return std(el, b, t, pos, 3, sh, x,
               text_arg_typed(el, b, args, 2, x->type, pos));
}

/* reverse, transpose, flatten, init, tail, indexed: one array. */
static text_val *structural(text_elab *el, const text_builtin *b,
                            text_val **args, text_pos pos)
{
    text_core *xs = text_arg_array(el, b, args, 0, pos);
    int r = text_rank(xs);
    text_type *t = xs->type;
    if (b->op == STD_TRANSPOSE)
        text_need_rank(el, b, xs, 0, 2, pos);
    else if (b->op != STD_FLATTEN && b->op != STD_INDEXED)
        text_need_rank(el, b, xs, 0, 1, pos);
    if (b->op == STD_FLATTEN)
        t = text_ty_array(el->st, text_elem(xs), 1);
    if (b->op == STD_INDEXED) {
        text_type *fs[2] = {text_ty_shape(el->st, r), text_elem(xs)};
        t = text_ty_array(el->st, text_ty_tuple(el->st, 2, fs), r);
    }
    return std(el, b, t, pos, 1, xs, NULL, NULL);
}

/* take n xs, drop n xs, slit i n xs. */
static text_val *counted(text_elab *el, const text_builtin *b,
                         text_val **args, text_pos pos)
{
    int k = b->op == STD_SLIT ? 2 : 1;
    text_core *xs = text_arg_array(el, b, args, k, pos);
    text_need_rank(el, b, xs, k, 1, pos);
    text_core *n = text_arg_typed(el, b, args, 0, text_i64(el), pos);
    if (k == 1)
        return std(el, b, xs->type, pos, 2, n, xs, NULL);
    return std(el, b, xs->type, pos, 3, n,
               text_arg_typed(el, b, args, 1, text_i64(el), pos), xs);
}

static text_val *gather(text_elab *el, const text_builtin *b, text_val **args,
                        text_pos pos)
{
    text_core *idx = text_arg_array(el, b, args, 0, pos);
    text_core *xs = text_arg_array(el, b, args, 1, pos);
    text_type *ie = text_ty_prune(text_elem(idx));
    if (!(ie->kind == TT_SHAPE && ie->rank == text_rank(xs)))
        text_expect_type(el, ie, text_rank(xs) == 1 ? text_i64(el)
                                 : text_ty_shape(el->st, text_rank(xs)),
                         "the elements of the indices", pos);
    return std(el, b, text_ty_array(el->st, text_elem(xs), text_rank(idx)),
               pos, 2, idx, xs, NULL);
}

static text_val *scatter(text_elab *el, const text_builtin *b,
                         text_val **args, text_pos pos)
{
    text_core *to = text_arg_array(el, b, args, 0, pos);
    text_core *def = text_arg_array(el, b, args, 1, pos);
    text_core *xs = text_arg_array(el, b, args, 2, pos);
    text_type *te = text_ty_prune(text_elem(to));
    if (!(te->kind == TT_SHAPE && te->rank == text_rank(def)))
        text_expect_type(el, te, text_rank(def) == 1 ? text_i64(el)
                                 : text_ty_shape(el->st, text_rank(def)),
                         "the elements of the targets", pos);
    text_expect_type(el, text_elem(xs), text_elem(def), "the elements of the "
                     "third argument of 'scatter'", pos);
    return std(el, b, def->type, pos, 3, to, def, xs);
}

/* fft xs, ifft xs: foreign nodes "fft.forward" / "fft.inverse" (the fftw
 * plugin where it is loaded) whose fallback is the prelude's vector or
 * matrix transform, by rank. */
text_val *text_bi_fft(text_elab *el, const text_builtin *b, text_val **args,
                      text_pos pos)
{
    static const char *const names[2][2] = {{"fftVector", "fftMatrix"},
                                            {"ifftVector", "ifftMatrix"}};
    text_core *xs = text_arg_array(el, b, args, 0, pos);
    text_type *e = text_ty_prune(text_elem(xs));
    int r = text_rank(xs);
    if (r != 1 && r != 2)
        text_type_error(el, pos, "'%s' transforms vectors and matrices, but "
                        "its argument has type %s", b->name,
                        text_ty_name(el->st, xs->type));
    if (e->kind != TT_TUPLE || e->n != 2 ||
        !text_ty_unify(e->fields[0], text_ty_var(el->st, TC_FLOAT)) ||
        !text_ty_unify(e->fields[1], e->fields[0]))
        text_type_error(el, pos, "'%s' transforms (re, im) pairs of f32 or "
                        "f64, but its argument has type %s", b->name,
                        text_ty_name(el->st, xs->type));
    text_val *f = text_prelude_fn(el, names[b->op][r - 1], pos);
    text_type *t = xs->type;
    text_core *fallback = text_reify(el, f, 1, &t, "the transform", pos);
    text_core *c = text_mk(el, CK_FOREIGN, xs->type, pos, 2, fallback, xs);
    c->name = b->op ? "fft.inverse" : "fft.forward";
    return text_ret(el, c);
}

text_val *text_bi_std(text_elab *el, const text_builtin *b, text_val **args,
                      text_pos pos)
{
    switch ((text_std)b->op) {
    case STD_SUM: case STD_PRODUCT: case STD_MAXIMUM: case STD_MINIMUM:
    case STD_AND: case STD_OR:
        return reduction(el, b, args, pos);
    case STD_ALL: case STD_ANY: case STD_FILTER:
        return predicate(el, b, args, pos);
    case STD_FOLD_ALL: case STD_FOLD1_ALL:
        return fold_all(el, b, args, pos);
    case STD_EVEN: case STD_ODD:
        return scalar_test(el, b, args, pos);
    case STD_ZIP: case STD_ZIP_N: return zip(el, b, args, pos);
    case STD_UNZIP: case STD_UNZIP_N: return unzip(el, b, args, pos);
    case STD_LENGTH: {
        text_core *xs = text_arg_array(el, b, args, 0, pos);
        text_need_rank(el, b, xs, 0, 1, pos);
        return std(el, b, text_i64(el), pos, 1, xs, NULL, NULL);
    }
    case STD_ENUM_N: case STD_ENUM_STEP_N:
        return enumeration(el, b, args, pos);
    case STD_REVERSE: case STD_TRANSPOSE: case STD_FLATTEN: case STD_INIT:
    case STD_TAIL: case STD_INDEXED:
        return structural(el, b, args, pos);
    case STD_TAKE: case STD_DROP: case STD_SLIT:
        return counted(el, b, args, pos);
    case STD_CONCAT: {
        text_core *xs = text_arg_array(el, b, args, 0, pos);
        text_need_rank(el, b, xs, 0, 1, pos);
        text_core *ys = text_arg_typed(el, b, args, 1, xs->type, pos);
        return std(el, b, xs->type, pos, 2, xs, ys, NULL);
    }
    case STD_GATHER: return gather(el, b, args, pos);
    case STD_SCATTER: return scatter(el, b, args, pos);
    case STD_COMPACT: {
        text_core *keep = text_arg_array(el, b, args, 0, pos);
        text_core *xs = text_arg_array(el, b, args, 1, pos);
        text_need_rank(el, b, xs, 1, 1, pos);
        text_expect_type(el, text_elem(keep), text_bool(el),
                         "the elements of the first argument of 'compact'",
                         pos);
        text_type *fs[2] = {text_ty_array(el->st, text_elem(xs), 1),
                            text_ty_array(el->st, text_i64(el),
                                          text_rank(xs) - 1)};
        return std(el, b, text_ty_tuple(el->st, 2, fs), pos, 2, keep, xs,
                   NULL);
    }
    }
    return NULL;
}
