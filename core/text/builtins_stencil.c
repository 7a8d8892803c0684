/*
 * builtins_stencil.c — stencil and stencil2 in the text syntax.
 *
 * The builder needs the neighbourhood's width in every dimension; the
 * text syntax reads it off the stencil function's parameter: a nested
 * tuple pattern, \((a,b,c),(d,e,f),(g,h,i)) -> ..., gives 3x3 (the
 * outermost tuple is the outermost dimension), and so does a parameter
 * annotated with a nested tuple type, \(p : ((f32,f32,f32), ...)) -> ...
 * (the form the IR printer writes).  A function whose parameter is a plain
 * name has no size, and is refused with a message saying so.
 */
#include "core/text/text_builtins.h"

static int odd_width(size_t n)
{
    return n == 3 || n == 5 || n == 7 || n == 9;
}

/* Widths from a nested tuple type annotation. */
static int widths_of_type(const text_tyexp *t, int rank, int32_t *widths)
{
    for (int d = 0; d < rank; d++) {
        if (!t || t->kind != TY_TUPLE || !odd_width(t->n))
            return 0;
        widths[d] = (int32_t)t->n;
        t = t->items[0];
    }
    return 1;
}

/* Widths from a nested tuple pattern (annotations allowed anywhere). */
static int widths_of_pattern(const text_pat *p, int rank, int32_t *widths)
{
    for (int d = 0; d < rank; d++) {
        if (p && p->kind == TP_TYPED) {
            if (p->items[0]->kind != TP_TUPLE)
                return widths_of_type(p->type, rank - d, widths + d);
            p = p->items[0];
        }
        if (!p || p->kind != TP_TUPLE || !odd_width(p->n))
            return 0;
        widths[d] = (int32_t)p->n;
        p = p->items[0];
    }
    return 1;
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
    which += skipped;
    if (rank < 1 || rank > 3)
        text_type_error(el, pos, "'%s' works on arrays of rank 1 to 3, not %d",
                        b->name, rank);
    if (c && which < c->n_pats &&
        widths_of_pattern(c->pats[which], rank, widths))
        return;
    text_type_error(el, pos, "'%s' cannot tell the size of the neighbourhood: "
                    "expected the stencil function's parameter to be a nested "
                    "tuple pattern of %d level%s with 3, 5, 7 or 9 fields each, "
                    "such as \\((a,b,c),(d,e,f),(g,h,i)) -> ... for 3x3",
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
