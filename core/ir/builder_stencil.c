/*
 * builder_stencil.c — the builder functions of stencils (LANGUAGE.md §3.5):
 * stencil and stencil2.
 *
 * The stencil function's parameter is the neighbourhood as nested tuples,
 * outermost dimension outermost: for widths [w0, w1] a tuple of w0 rows,
 * each a tuple of w1 elements.  The exact type is built here and the
 * function is checked against it.  Widths are odd, 3 to 9, per dimension,
 * for arrays of rank 1 to 3.  A neighbourhood's scalar leaves are bounded
 * by TY_MAX_LEAVES (a value type's limit), so very wide 3-D stencils of
 * wide elements are refused with ACC_ERR_UNSUPPORTED.
 */
#include "core/ir/builder_common.h"

/* One array argument of a stencil, as given to the builder call. */
typedef struct stencil_side {
    const char *what;        /* "the array", "the first array", ...       */
    const int32_t *widths;
    acc_boundary boundary;
    acc_node *barg;          /* FUNCTION / CONSTANT argument, else NULL    */
    acc_node *xs;
} stencil_side;

static int check_widths(acc_graph *g, const char *op, const stencil_side *s)
{
    int32_t rank = s->xs->type->rank;
    if (rank < 1 || rank > 3) {
        gr_fail(g, ACC_ERR_SHAPE, "%s: %s has rank %d; stencils work on "
                "arrays of rank 1 to 3", op, s->what, (int)rank);
        return 0;
    }
    if (!s->widths) {
        gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: the widths of %s are NULL",
                op, s->what);
        return 0;
    }
    for (int32_t d = 0; d < rank; d++) {
        int32_t w = s->widths[d];
        if (w < 3 || w > 9 || w % 2 == 0) {
            gr_fail(g, ACC_ERR_SHAPE, "%s: the width %d of dimension %d of %s "
                    "is not allowed; widths are odd: 3, 5, 7 or 9", op,
                    (int)w, (int)d, s->what);
            return 0;
        }
    }
    return 1;
}

/* The nested tuple type of a neighbourhood of elements of type e. */
static const acc_type *neighbourhood_type(acc_graph *g, const char *op,
                                          const stencil_side *s)
{
    char t[128];
    const acc_type *e = s->xs->type->elem;
    int32_t rank = s->xs->type->rank;
    size_t count = 1;
    for (int32_t d = 0; d < rank; d++)
        count *= (size_t)s->widths[d];
    if (count * e->n_leaves > TY_MAX_LEAVES) {
        gr_fail(g, ACC_ERR_UNSUPPORTED, "%s: the neighbourhood of %s holds "
                "%zu elements of type %s, %zu scalar values; at most %d are "
                "supported", op, s->what, count, GR_TYPE(e, t),
                count * e->n_leaves, TY_MAX_LEAVES);
        return NULL;
    }
    const acc_type *fields[9];
    const acc_type *type = e;
    for (int32_t d = rank - 1; type && d >= 0; d--) {
        for (int32_t i = 0; i < s->widths[d]; i++)
            fields[i] = type;
        type = gr_tuple_type(g, (size_t)s->widths[d], fields);
    }
    return type;
}

/* Checks the boundary and its argument against the array's element type. */
static int check_boundary(acc_graph *g, const char *op, const stencil_side *s)
{
    char t[128], u[128];
    const acc_type *e = s->xs->type->elem;
    switch (s->boundary) {
    case ACC_BOUNDARY_CLAMP:
    case ACC_BOUNDARY_MIRROR:
    case ACC_BOUNDARY_WRAP:
        if (s->barg)
            gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: the boundary of %s "
                    "takes no argument; pass NULL", op, s->what);
        return s->barg == NULL;
    case ACC_BOUNDARY_FUNCTION: {
        const acc_type *ix = ty_shape(s->xs->type->rank);
        const acc_type *r = gr_check_fun(g, op, "the boundary function",
                                         s->barg, 1, &ix);
        if (r && !ty_equal(r, e))
            gr_fail(g, ACC_ERR_TYPE, "%s: the boundary function of %s returns "
                    "%s, expected the element type %s", op, s->what,
                    GR_TYPE(r, t), GR_TYPE(e, u));
        return r && ty_equal(r, e);
    }
    case ACC_BOUNDARY_CONSTANT:
        if (!gr_want_value(g, op, "the boundary constant", s->barg))
            return 0;
        if (!ty_equal(s->barg->type, e))
            gr_fail(g, ACC_ERR_TYPE, "%s: the boundary constant of %s has type "
                    "%s, expected the element type %s", op, s->what,
                    GR_TYPE(s->barg->type, t), GR_TYPE(e, u));
        return ty_equal(s->barg->type, e);
    }
    gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "%s: %d is not an acc_boundary "
            "value", op, (int)s->boundary);
    return 0;
}

/* Checks one side completely; returns its neighbourhood type. */
static const acc_type *check_side(acc_graph *g, const char *op,
                                  const stencil_side *s)
{
    if (!gr_want_array(g, op, s->what, s->xs) || !check_widths(g, op, s) ||
        !check_boundary(g, op, s))
        return NULL;
    return neighbourhood_type(g, op, s);
}

static int has_barg(const stencil_side *s)
{
    return s->boundary == ACC_BOUNDARY_FUNCTION ||
           s->boundary == ACC_BOUNDARY_CONSTANT;
}

/* The stencil node: f, the arrays, then the boundary arguments that exist;
 * widths and boundaries in u.stencil. */
static acc_node *stencil_node(acc_graph *g, const char *op, ir_op kind,
                              acc_node *f, const acc_type *elem,
                              const stencil_side *sides, int n)
{
    acc_node *args[5];
    uint32_t at = 0;
    args[at++] = f;
    for (int i = 0; i < n; i++)
        args[at++] = sides[i].xs;
    for (int i = 0; i < n; i++)
        if (has_barg(&sides[i]))
            args[at++] = sides[i].barg;
    int32_t rank = sides[0].xs->type->rank;
    ir_node *node = gr_closed_node(g, op, kind, gr_array_type(g, elem, rank),
                                   at, args);
    if (!node)
        return NULL;
    for (int i = 0; i < n; i++) {
        for (int32_t d = 0; d < ACC_MAX_RANK; d++)
            node->u.stencil.widths[i][d] = d < rank ? sides[i].widths[d] : 0;
        node->u.stencil.boundary[i] = sides[i].boundary;
    }
    return node;
}

acc_node *acc_stencil(acc_graph *g, acc_node *f, const int32_t *widths,
                      acc_boundary boundary, acc_node *boundary_arg,
                      acc_node *xs)
{
    static const char op[] = "stencil";
    if (!gr_begin(g, op))
        return NULL;
    stencil_side s = {"the array", widths, boundary, boundary_arg, xs};
    const acc_type *nb = check_side(g, op, &s);
    if (!nb)
        return NULL;
    const acc_type *r = gr_check_fun(g, op, "the stencil function", f, 1, &nb);
    if (!r)
        return NULL;
    return stencil_node(g, op, IR_STENCIL, f, r, &s, 1);
}

acc_node *acc_stencil2(acc_graph *g, acc_node *f, const int32_t *widths1,
                       acc_boundary boundary1, acc_node *boundary_arg1,
                       acc_node *xs, const int32_t *widths2,
                       acc_boundary boundary2, acc_node *boundary_arg2,
                       acc_node *ys)
{
    static const char op[] = "stencil2";
    if (!gr_begin(g, op))
        return NULL;
    stencil_side s[2] = {
        {"the first array", widths1, boundary1, boundary_arg1, xs},
        {"the second array", widths2, boundary2, boundary_arg2, ys},
    };
    const acc_type *nb[2];
    if (!(nb[0] = check_side(g, op, &s[0])) ||
        !(nb[1] = check_side(g, op, &s[1])))
        return NULL;
    if (xs->type->rank != ys->type->rank)
        return gr_fail(g, ACC_ERR_SHAPE, "stencil2: the first array has rank "
                       "%d but the second has rank %d", (int)xs->type->rank,
                       (int)ys->type->rank);
    const acc_type *r = gr_check_fun(g, op, "the stencil function", f, 2, nb);
    if (!r)
        return NULL;
    return stencil_node(g, op, IR_STENCIL2, f, r, s, 2);
}
