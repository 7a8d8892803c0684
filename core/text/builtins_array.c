/*
 * builtins_array.c — the array operations of LANGUAGE.md §3 in the text
 * syntax.  Each handler checks its arguments' sorts, turns function
 * arguments into core lambdas over parameters of the element types
 * (text_arg_fun), unifies what must agree and builds one core term.  The
 * builder checks everything again when the term is emitted.
 */
#include "core/text/text_builtins.h"

#include <stdio.h>
#include <string.h>

static text_val *generate(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    text_core *sh;
    int r = text_arg_shape(el, b, args, 0, &sh, pos);
    if (b->op == BA_FILL) {
        text_core *x = text_arg(el, b, args, 1, pos);
        return text_ret(el, text_mk(el, CK_FILL,
                                    text_ty_array(el->st, x->type, r), pos, 2,
                                    sh, x));
    }
    text_type *ix = text_ty_shape(el->st, r);
    text_core *f = text_arg_fun(el, b, args, 1, 1, &ix, NULL, pos);
    return text_ret(el, text_mk(el, CK_GENERATE,
                                text_ty_array(el->st, f->type, r), pos, 2, sh,
                                f));
}

static text_val *backpermute(text_elab *el, const text_builtin *b,
                             text_val **args, text_pos pos)
{
    text_core *sh;
    int r = text_arg_shape(el, b, args, 0, &sh, pos);
    text_core *xs = text_arg_array(el, b, args, 2, pos);
    text_type *ix = text_ty_shape(el->st, r);
    text_core *p = text_arg_fun(el, b, args, 1, 1, &ix,
                                text_ty_shape(el->st, text_rank(xs)), pos);
    return text_ret(el, text_mk(el, CK_BACKPERMUTE,
                                text_ty_array(el->st, text_elem(xs), r), pos, 3,
                                sh, p, xs));
}

static text_val *expand(text_elab *el, const text_builtin *b, text_val **args,
                        text_pos pos)
{
    text_core *xs = text_arg_array(el, b, args, 2, pos);
    text_type *e = text_elem(xs);
    text_core *size = text_arg_fun(el, b, args, 0, 1, &e, text_i64(el), pos);
    text_type *ps[2] = {e, text_i64(el)};
    text_core *get = text_arg_fun(el, b, args, 1, 2, ps, NULL, pos);
    return text_ret(el, text_mk(el, CK_EXPAND,
                                text_ty_array(el->st, get->type, 1), pos, 3,
                                size, get, xs));
}

text_val *text_bi_array(text_elab *el, const text_builtin *b,
                        text_val **args, text_pos pos)
{
    switch (b->op) {
    case BA_GENERATE:
    case BA_FILL:
        return generate(el, b, args, pos);
    case BA_BACKPERMUTE:
        return backpermute(el, b, args, pos);
    case BA_EXPAND:
        return expand(el, b, args, pos);
    case BA_RESHAPE: {
        text_core *sh;
        int r = text_arg_shape(el, b, args, 0, &sh, pos);
        text_core *xs = text_arg_array(el, b, args, 1, pos);
        return text_ret(el, text_mk(el, CK_RESHAPE,
                                    text_ty_array(el->st, text_elem(xs), r),
                                    pos, 2, sh, xs));
    }
    default: { /* map */
        text_core *xs = text_arg_array(el, b, args, 1, pos);
        text_type *e = text_elem(xs);
        text_core *f = text_arg_fun(el, b, args, 0, 1, &e, NULL, pos);
        return text_ret(el, text_mk(el, CK_MAP,
                                    text_ty_array(el->st, f->type,
                                                  text_rank(xs)),
                                    pos, 2, f, xs));
    }
    }
}

text_val *text_bi_zipwith(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    size_t n = (size_t)b->op;
    text_core *items[10];
    text_type *es[9];
    for (size_t i = 0; i < n; i++) {
        items[i + 1] = text_arg_array(el, b, args, (int)i + 1, pos);
        es[i] = text_elem(items[i + 1]);
        if (text_rank(items[i + 1]) != text_rank(items[1]))
            text_type_error(el, pos, "%s has rank %d, expected rank %d like "
                            "the first array", text_arg_name(el, b, (int)i + 1),
                            text_rank(items[i + 1]), text_rank(items[1]));
    }
    items[0] = text_arg_fun(el, b, args, 0, n, es, NULL, pos);
    text_type *t = text_ty_array(el->st, items[0]->type, text_rank(items[1]));
    return text_ret(el, text_core_new(el, CK_ZIPWITH, t, pos, n + 1, items));
}

/* The combining function f : e -> e -> e of a fold or scan. */
static text_core *combiner(text_elab *el, const text_builtin *b,
                           text_val **args, text_type *e, text_pos pos)
{
    text_type *ps[2] = {e, e};
    return text_arg_fun(el, b, args, 0, 2, ps, e, pos);
}

/* A segment descriptor: a vector of any integer type (i64 when nothing
 * decides, as for a vector of literals). */
static text_core *segments(text_elab *el, const text_builtin *b,
                           text_val **args, int i, text_pos pos)
{
    text_core *seg = text_arg(el, b, args, i, pos);
    text_type *t = text_ty_prune(seg->type);
    if (t->kind != TT_ARRAY || t->rank != 1 ||
        !text_ty_unify(t->elem, text_ty_var(el->st, TC_INT)))
        text_type_error(el, pos, "%s has type %s, expected a vector of an "
                        "integer type (the segments)", text_arg_name(el, b, i),
                        text_ty_name(el->st, seg->type));
    return seg;
}

text_val *text_bi_fold(text_elab *el, const text_builtin *b,
                       text_val **args, text_pos pos)
{
    int seeded = b->op == BF_FOLD || b->op == BF_FOLD_SEG ||
                 b->op == BF_FOLD_SEG_OFFSETS;
    int xi = seeded ? 2 : 1;
    text_core *xs = text_arg_array(el, b, args, xi, pos);
    text_need_rank(el, b, xs, xi, 1, pos);
    text_type *e = text_elem(xs);
    text_core *f = combiner(el, b, args, e, pos);
    text_core *z = seeded ? text_arg_typed(el, b, args, 1, e, pos) : NULL;
    int r = text_rank(xs);
    text_type *t = text_ty_array(el->st, e, r);
    switch (b->op) {
    case BF_FOLD:
        return text_ret(el, text_mk(el, CK_FOLD, text_ty_array(el->st, e, r - 1),
                                    pos, 3, f, z, xs));
    case BF_FOLD1:
        return text_ret(el, text_mk(el, CK_FOLD1,
                                    text_ty_array(el->st, e, r - 1), pos, 2, f,
                                    xs));
    case BF_FOLD1_SEG:
        return text_ret(el, text_mk(el, CK_FOLD1_SEG, t, pos, 3, f, xs,
                                    segments(el, b, args, 2, pos)));
    default:
        return text_ret(el, text_mk(el, b->op == BF_FOLD_SEG ? CK_FOLD_SEG
                                                              : CK_FOLD_SEG_OFFSETS,
                                    t, pos, 4, f, z, xs,
                                    segments(el, b, args, 3, pos)));
    }
}

text_val *text_bi_scan(text_elab *el, const text_builtin *b,
                       text_val **args, text_pos pos)
{
    int seg = b->op >= B_SEGMENTED;
    acc_scan_kind kind = (acc_scan_kind)(seg ? b->op - B_SEGMENTED : b->op);
    int seeded = kind != ACC_SCANL1 && kind != ACC_SCANR1;
    int xi = seeded ? 2 : 1;
    text_core *xs = text_arg_array(el, b, args, xi, pos);
    text_need_rank(el, b, xs, xi, 1, pos);
    text_type *e = text_elem(xs);
    int r = text_rank(xs);
    text_core *f = combiner(el, b, args, e, pos);
    text_core *z = seeded ? text_arg_typed(el, b, args, 1, e, pos) : NULL;
    text_core *sg = seg ? segments(el, b, args, xi + 1, pos) : NULL;
    text_type *t = text_ty_array(el->st, e, r);
    if (kind == ACC_SCANL_PRIME || kind == ACC_SCANR_PRIME) {
        text_type *fs[2] = {t, text_ty_array(el->st, e, seg ? r : r - 1)};
        t = text_ty_tuple(el->st, 2, fs);
    }
    text_core *c = text_mk(el, seg ? CK_SCAN_SEG : CK_SCAN, t, pos, 4, f, z, xs,
                           sg);
    c->op = (int)kind;
    return text_ret(el, c);
}

/* replicate spec xs / slice xs spec: the spec's entries are All (NULL in
 * the core term) or i64 terms. */
static text_core **spec_entries(text_elab *el, text_val *spec, size_t *n,
                                size_t *n_all, text_pos pos)
{
    text_core **items;
    *n_all = 0;
    if (spec->kind == VK_SPEC) {
        *n = spec->n;
        items = text_alloc(el->st, (*n ? *n : 1) * sizeof *items);
        for (size_t k = 0; k < *n; k++) {
            if (spec->items[k]->kind == VK_ALL) {
                (*n_all)++;
                continue;
            }
            items[k] = text_want_core(el, spec->items[k], "a spec entry", pos);
            text_expect_type(el, items[k]->type, text_i64(el), "a spec entry",
                             pos);
        }
        return items;
    }
    /* a plain shape: every entry is an extent (replicate) or an index */
    text_core *sh = text_want_core(el, spec, "the spec", pos);
    text_type *t = text_ty_prune(sh->type);
    if (t->kind != TT_SHAPE)
        text_type_error(el, pos, "the spec has type %s, expected [n, All, ...]",
                        text_ty_name(el->st, t));
    *n = (size_t)t->rank;
    items = text_alloc(el->st, (*n ? *n : 1) * sizeof *items);
    for (size_t k = 0; k < *n; k++) {
        if (sh->kind == CK_INDEX) {
            items[k] = sh->args[k];
        } else {
            items[k] = text_mk(el, CK_GET, text_i64(el), pos, 1, sh);
            items[k]->op = (int)k;
        }
    }
    return items;
}

text_val *text_bi_spec(text_elab *el, const text_builtin *b,
                       text_val **args, text_pos pos)
{
    int rep = b->op == BS_REPLICATE;
    text_core *xs = text_arg_array(el, b, args, rep ? 1 : 0, pos);
    size_t n, n_all;
    text_core **items = spec_entries(el, args[rep ? 0 : 1], &n, &n_all, pos);
    int r = text_rank(xs);
    if (rep ? n_all != (size_t)r : n != (size_t)r)
        text_type_error(el, pos, rep ? "the spec of 'replicate' has %zu All "
                        "entries, expected one per dimension of the array "
                        "(%d)" : "the spec of 'slice' has %zu entries, "
                        "expected one per dimension of the array (%d)",
                        rep ? n_all : n, r);
    text_core **all = text_alloc(el->st, (n + 1) * sizeof *all);
    all[0] = xs;
    memcpy(all + 1, items, n * sizeof *items);
    text_type *t = text_ty_array(el->st, text_elem(xs),
                                 rep ? (int)n : (int)n_all);
    return text_ret(el, text_core_new(el, rep ? CK_REPLICATE : CK_SLICE, t, pos,
                                      n + 1, all));
}

text_val *text_bi_permute(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    text_core *def = text_arg_array(el, b, args, 1, pos);
    text_type *e = text_elem(def);
    text_core *f = combiner(el, b, args, e, pos);
    text_type *target = text_ty_shape(el->st, text_rank(def));
    if (b->op == BP_PERMUTE_PAIRS) {
        text_type *fs[2] = {target, e};
        text_core *xs = text_arg_array(el, b, args, 2, pos);
        text_expect_type(el, text_elem(xs), text_ty_tuple(el->st, 2, fs),
                         "the elements of the third argument of 'permute''",
                         pos);
        return text_ret(el, text_mk(el, CK_PERMUTE_PAIRS, def->type, pos, 3, f,
                                    def, xs));
    }
    text_core *xs = text_arg_array(el, b, args, 3, pos);
    text_expect_type(el, text_elem(xs), e, "the elements of the fourth "
                     "argument of 'permute'", pos);
    text_type *ix = text_ty_shape(el->st, text_rank(xs));
    text_core *p = text_arg_fun(el, b, args, 2, 1, &ix, target, pos);
    return text_ret(el, text_mk(el, CK_PERMUTE, def->type, pos, 4, f, def, p,
                                xs));
}

text_val *text_bi_boundary(text_elab *el, const text_builtin *b,
                           text_val **args, text_pos pos)
{
    static const acc_boundary kinds[] = {
        ACC_BOUNDARY_CLAMP, ACC_BOUNDARY_MIRROR, ACC_BOUNDARY_WRAP,
        ACC_BOUNDARY_FUNCTION, ACC_BOUNDARY_CONSTANT};
    text_val *v = text_alloc(el->st, sizeof *v);
    v->kind = VK_BOUNDARY;
    v->boundary = kinds[b->op - BB_CLAMP];
    v->arg = b->arity ? args[0] : NULL;
    (void)pos;
    return v;
}

text_val *text_bi_control(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    if (b->op == BC_ACOND) {
        text_core *c = text_arg_typed(el, b, args, 0, text_bool(el), pos);
        text_core *x = text_arg(el, b, args, 1, pos);
        text_core *y = text_arg_typed(el, b, args, 2, x->type, pos);
        if (!text_ty_is_array_sort(x->type))
            text_type_error(el, pos, "the branches of 'acond' have type %s, "
                            "expected arrays", text_ty_name(el->st, x->type));
        return text_ret(el, text_mk(el, CK_ACOND, x->type, pos, 3, c, x, y));
    }
    text_core *init = text_arg(el, b, args, 2, pos);
    text_type *t = init->type;
    if (!text_ty_is_array_sort(t))
        text_type_error(el, pos, "the initial value of 'awhile' has type %s, "
                        "expected an array or a tuple of arrays",
                        text_ty_name(el->st, t));
    text_core *cond = text_arg_fun(el, b, args, 0, 1, &t,
                                   text_ty_array(el->st, text_bool(el), 0), pos);
    text_core *body = text_arg_fun(el, b, args, 1, 1, &t, t, pos);
    return text_ret(el, text_mk(el, CK_AWHILE, t, pos, 3, cond, body, init));
}
