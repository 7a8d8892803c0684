/*
 * builtins_stencil.c — stencil and stencil2 in the text syntax.
 *
 * The builder needs the neighbourhood's width in every dimension; the
 * text syntax reads it off the stencil function's parameter: a nested
 * tuple pattern, \((a,b,c),(d,e,f),(g,h,i)) -> ..., gives 3x3 (the
 * outermost tuple is the outermost dimension), and so does a parameter
 * annotated with a nested tuple type, \(p : ((f32,f32,f32), ...)) -> ...
 * (the form the IR printer writes).  Any row may give the width of the
 * next dimension, so rows written `_` (Accelerate's Canny and fluid
 * solver: \(_, (a,b,c,d,e), _) is 3x5) or as names take it from the
 * others; rows that disagree are refused.  A pattern that leaves a width
 * unknown (a plain name, \(_, _, _) on a matrix) is refused with a
 * message saying so.
 */
#include "core/text/text_builtins.h"

#include <string.h>

static int odd_width(size_t n)
{
    return n == 3 || n == 5 || n == 7 || n == 9;
}

/* What the pattern tells about each dimension's width: 0 where nothing
 * says yet; a width that two rows (or a row and an annotation) give
 * differently is a conflict. */
typedef struct widths_found {
    int32_t w[ACC_MAX_RANK];
    int conflict, dim, first, second;
    size_t bad; /* a row of this many fields (not 3, 5, 7, 9), or 0 */
} widths_found;

static void found(widths_found *f, int d, int32_t w)
{
    if (f->w[d] == 0)
        f->w[d] = w;
    else if (f->w[d] != w && !f->conflict) {
        f->conflict = 1;
        f->dim = d;
        f->first = f->w[d];
        f->second = w;
    }
}

/* Widths from a nested tuple type annotation of dimensions d .. rank-1;
 * a type that is not such a tuple says nothing. */
static void widths_of_type(const text_tyexp *t, int d, int rank,
                           widths_found *f)
{
    for (; d < rank; d++) {
        if (!t || t->kind != TY_TUPLE || !odd_width(t->n))
            return;
        found(f, d, (int32_t)t->n);
        t = t->items[0];
    }
}

/* Widths from a tuple pattern of dimension d: every row that is itself a
 * tuple pattern (or annotated) gives the width of the next dimension, so
 * a row written `_` (a whole row ignored) or as a name leaves it to the
 * others: \(_, (_, x0, _), _) -> ... is 3x3.  At d == rank the patterns
 * are elements (which may be tuples of a tuple element type). */
static void widths_of_pattern(const text_pat *p, int d, int rank,
                              widths_found *f)
{
    if (!p || d >= rank)
        return;
    if (p->kind == TP_TYPED) {
        widths_of_type(p->type, d, rank, f);
        widths_of_pattern(p->items[0], d, rank, f);
        return;
    }
    if (p->kind != TP_TUPLE)
        return;
    if (!odd_width(p->n)) {
        f->bad = f->bad ? f->bad : p->n;
        return;
    }
    found(f, d, (int32_t)p->n);
    for (size_t i = 0; i < p->n; i++)
        widths_of_pattern(p->items[i], d + 1, rank, f);
}

/* The closure behind f (a partial application keeps its closure). */
static const text_val *closure_of(const text_val *f, size_t *skipped)
{
    *skipped = 0;
    while (f->kind == VK_PAP) {
        *skipped += f->n;
        f = f->fn;
    }
    return f->kind == VK_CLOSURE ? f : NULL;
}

static void widths_for(text_elab *el, const text_builtin *b, text_val *f,
                       size_t which, int rank, int32_t *widths, text_pos pos)
{
    size_t skipped;
    const text_val *c = closure_of(f, &skipped);
    widths_found wf = {{0}, 0, 0, 0, 0, 0};
    which += skipped;
    if (rank < 1 || rank > 3)
        text_type_error(el, pos, "'%s' works on arrays of rank 1 to 3, not %d",
                        b->name, rank);
    if (c && which < c->n_pats)
        widths_of_pattern(c->pats[which], 0, rank, &wf);
    if (wf.bad)
        text_type_error(el, pos, "'%s' is given a neighbourhood pattern with "
                        "a tuple of %zu fields; expected 3, 5, 7 or 9 fields "
                        "in every dimension", b->name, wf.bad);
    if (wf.conflict)
        text_type_error(el, pos, "'%s' is given a neighbourhood pattern whose "
                        "rows differ in width (%d and %d fields in dimension "
                        "%d, outermost first); expected rows of equal widths, "
                        "with _ for a whole row that is not used", b->name,
                        wf.first, wf.second, wf.dim + 1);
    int known = 1;
    for (int d = 0; d < rank; d++)
        known = known && wf.w[d] != 0;
    if (known) {
        memcpy(widths, wf.w, (size_t)rank * sizeof *widths);
        return;
    }
    text_type_error(el, pos, "'%s' cannot tell the size of the neighbourhood: "
                    "expected the stencil function's parameter to be a nested "
                    "tuple pattern of %d level%s with 3, 5, 7 or 9 fields each, "
                    "such as \\((a,b,c),(d,e,f),(g,h,i)) -> ... for 3x3 (a "
                    "row may be _ when another row gives the width), or a "
                    "parameter annotated with such a tuple type",
                    b->name, rank, rank == 1 ? "" : "s");
}

/* Nested tuples of widths[0] x ... x widths[rank-1] elements e. */
static text_type *neighbourhood(text_elab *el, const int32_t *widths,
                                int rank, text_type *e)
{
    if (rank == 0)
        return e;
    text_type *inner = neighbourhood(el, widths + 1, rank - 1, e);
    text_type *fs[9];
    for (int32_t i = 0; i < widths[0]; i++)
        fs[i] = inner;
    return text_ty_tuple(el->st, (size_t)widths[0], fs);
}

/* The boundary argument (i) of side s; its core term or NULL. */
static text_core *boundary(text_elab *el, const text_builtin *b,
                           text_val **args, int i, text_core *xs,
                           text_stencil_info *info, int s, text_pos pos)
{
    text_val *v = args[i];
    if (v->kind != VK_BOUNDARY)
        text_type_error(el, pos, "%s is %s, expected a boundary: clamp, "
                        "mirror, wrap, function g or constant v",
                        text_arg_name(el, b, i),
                        v->kind == VK_CORE ? "a value" : "not a boundary");
    info->boundary[s] = v->boundary;
    text_type *e = text_elem(xs);
    if (v->boundary == ACC_BOUNDARY_CONSTANT) {
        text_core *c = text_want_core(el, v->arg, "the boundary constant", pos);
        text_expect_type(el, c->type, e, "the boundary constant", pos);
        return c;
    }
    if (v->boundary != ACC_BOUNDARY_FUNCTION)
        return NULL;
    text_type *ix = text_ty_shape(el->st, text_rank(xs));
    text_core *g = text_reify(el, v->arg, 1, &ix, "the boundary function", pos);
    text_expect_type(el, g->type, e, "the result of the boundary function",
                     pos);
    return g;
}

text_val *text_bi_stencil(text_elab *el, const text_builtin *b,
                          text_val **args, text_pos pos)
{
    int two = b->op == BT_STENCIL2;
    text_stencil_info *info = text_alloc(el->st, sizeof *info);
    text_core *xs = text_arg_array(el, b, args, 2, pos);
    text_core *ys = two ? text_arg_array(el, b, args, 4, pos) : NULL;
    int r = text_rank(xs);
    text_core *bx = boundary(el, b, args, 1, xs, info, 0, pos);
    text_core *by = two ? boundary(el, b, args, 3, ys, info, 1, pos) : NULL;
    text_type *nb[2];
    widths_for(el, b, args[0], 0, r, info->widths[0], pos);
    nb[0] = neighbourhood(el, info->widths[0], r, text_elem(xs));
    if (two) {
        if (text_rank(ys) != r)
            text_type_error(el, pos, "the arrays of 'stencil2' have ranks %d "
                            "and %d, expected equal ranks", r, text_rank(ys));
        widths_for(el, b, args[0], 1, r, info->widths[1], pos);
        nb[1] = neighbourhood(el, info->widths[1], r, text_elem(ys));
    }
    text_core *f = text_reify(el, args[0], two ? 2 : 1, nb,
                              "the stencil function", pos);
    text_type *t = text_ty_array(el->st, f->type, r);
    text_core *c = two ? text_mk(el, CK_STENCIL2, t, pos, 5, f, xs, ys, bx, by)
                       : text_mk(el, CK_STENCIL, t, pos, 3, f, xs, bx);
    c->stencil = info;
    return text_ret(el, c);
}
