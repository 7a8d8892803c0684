/*
 * emit.c — core terms to builder calls, after type inference.
 *
 * Each core term is emitted once (its node is memoised), so a term shared
 * by a `let` is one builder node used several times.  Type variables that
 * inference left open get their defaults here (i64 for integer literals,
 * f64 for float literals); one that has no default (the rank of an
 * `ignore` nothing constrains) is an error.  A builder call that refuses
 * its arguments fails the parse with the builder's message, prefixed by
 * the position of the text that made the term.
 */
#include "core/text/text_elab.h"

#include <math.h>
#include <stdint.h>

static acc_scalar default_scalar(text_elab *el, text_type *v, text_pos pos)
{
    switch (v->cls) {
    case TC_NUM:
    case TC_INT:
    case TC_BOUNDED: return ACC_I64;
    case TC_FLOAT: return ACC_F64;
    case TC_SHAPE:
        text_fail(el->st, ACC_ERR_TYPE, pos, "cannot tell the rank of "
                  "'ignore' here; expected it next to an index of known "
                  "rank (if c then [i] else ignore)");
    default:
        text_fail(el->st, ACC_ERR_TYPE, pos, "cannot tell the type of this "
                  "expression; expected a type annotation (e : f32)");
    }
}

static const acc_type *checked(text_elab *el, const acc_type *t,
                               text_pos pos)
{
    if (!t)
        text_fail(el->st, ACC_ERR_TYPE, pos, "%s",
                  acc_context_last_error(el->ctx));
    return t;
}

const acc_type *text_acc_type(text_elab *el, text_type *t, text_pos pos)
{
    t = text_ty_prune(t);
    switch (t->kind) {
    case TT_VAR: {
        acc_scalar s = default_scalar(el, t, pos);
        t->link = text_ty_scalar(el->st, s);
        return acc_type_scalar(s);
    }
    case TT_SCALAR: return acc_type_scalar(t->scalar);
    case TT_SHAPE: return acc_type_shape(t->rank);
    case TT_ARRAY:
        return checked(el, acc_type_array(el->ctx,
                                          text_acc_type(el, t->elem, pos),
                                          t->rank), pos);
    case TT_TUPLE: {
        const acc_type **fs = text_alloc(el->st, (t->n ? t->n : 1) * sizeof *fs);
        for (size_t i = 0; i < t->n; i++)
            fs[i] = text_acc_type(el, t->fields[i], pos);
        return checked(el, acc_type_tuple(el->ctx, t->n, fs), pos);
    }
    }
    return NULL;
}

static acc_scalar scalar_of(text_elab *el, text_type *t, text_pos pos)
{
    const acc_type *a = text_acc_type(el, t, pos);
    if (acc_type_get_kind(a) != ACC_TYPE_SCALAR)
        text_fail(el->st, ACC_ERR_TYPE, pos, "this expression has a non-scalar "
                  "type where a scalar is expected");
    return acc_type_get_scalar(a);
}

/* ---- literals ---------------------------------------------------------------- */

static int fits(acc_scalar s, const text_core *c)
{
    static const int64_t smin[] = {0, 0, INT8_MIN, INT16_MIN, INT32_MIN,
                                   INT64_MIN};
    static const int64_t smax[] = {0, 0, INT8_MAX, INT16_MAX, INT32_MAX,
                                   INT64_MAX};
    static const uint64_t umax[] = {UINT8_MAX, UINT16_MAX, UINT32_MAX,
                                    UINT64_MAX};
    uint64_t u = (uint64_t)c->ival;
    if (s >= ACC_U8 && s <= ACC_U64)
        return !c->neg && u <= umax[s - ACC_U8];
    if (!c->neg && u > (uint64_t)INT64_MAX)
        return 0;
    if (c->neg && c->ival > 0)
        return 0; /* the magnitude was beyond 2^63 */
    return c->ival >= smin[s] && c->ival <= smax[s];
}

/* The smallest magnitude that rounds to infinity as f32: FLT_MAX plus half
 * an ulp (2^128 - 2^103). */
#define F32_OVERFLOW 0x1.ffffffp127

/* A float literal must be finite in its final type.  One beyond f64 reached
 * here as an infinity (lexer.c), so 1e39 and 1e999 as f32, or 1e309 and
 * 1e999 as f64, get the same message; a magnitude below the smallest
 * subnormal rounds to zero, as IEEE 754 rounding does. */
static acc_node *float_literal(text_elab *el, text_core *c)
{
    acc_scalar s = scalar_of(el, c->type, c->pos);
    if (isinf(c->fval) || (s == ACC_F32 && fabs(c->fval) >= F32_OVERFLOW))
        text_fail(el->st, ACC_ERR_TYPE, c->pos, "float literal out of range: "
                  "it does not fit in %s (the largest finite %s is %s)",
                  acc_scalar_name(s), acc_scalar_name(s),
                  s == ACC_F32 ? "3.4028235e38" : "1.7976931348623157e308");
    return acc_const_f64(el->g, s, c->fval);
}

/* minBound / maxBound of the (now known) integer or bool type. */
static acc_node *bound(text_elab *el, text_core *c)
{
    static const int64_t smin[] = {0, 0, INT8_MIN, INT16_MIN, INT32_MIN,
                                   INT64_MIN};
    static const int64_t smax[] = {0, 1, INT8_MAX, INT16_MAX, INT32_MAX,
                                   INT64_MAX};
    static const uint64_t umax[] = {UINT8_MAX, UINT16_MAX, UINT32_MAX,
                                    UINT64_MAX};
    acc_scalar s = scalar_of(el, c->type, c->pos);
    if (s == ACC_BOOL)
        return acc_const_bool(el->g, c->op);
    if (s >= ACC_U8 && s <= ACC_U64)
        return acc_const_u64(el->g, s, c->op ? umax[s - ACC_U8] : 0);
    return acc_const_i64(el->g, s, c->op ? smax[s] : smin[s]);
}

static acc_node *int_literal(text_elab *el, text_core *c)
{
    acc_scalar s = scalar_of(el, c->type, c->pos);
    if (s == ACC_F32 || s == ACC_F64)
        return acc_const_f64(el->g, s, c->fval);
    if (!fits(s, c))
        text_fail(el->st, ACC_ERR_TYPE, c->pos, "the literal %s%llu does not "
                  "fit in %s", c->neg ? "-" : "",
                  (unsigned long long)(c->neg ? 0 - (uint64_t)c->ival
                                              : (uint64_t)c->ival),
                  acc_scalar_name(s));
    if (s >= ACC_U8 && s <= ACC_U64)
        return acc_const_u64(el->g, s, (uint64_t)c->ival);
    return acc_const_i64(el->g, s, c->ival);
}

/* ---- the big switch ------------------------------------------------------------- */

static acc_node *lambda(text_elab *el, text_core *c)
{
    size_t n = c->n - 1;
    acc_node **ps = text_alloc(el->st, (n ? n : 1) * sizeof *ps);
    for (size_t i = 0; i < n; i++) {
        text_core *p = c->args[i];
        p->node = acc_param(el->g, text_acc_type(el, p->type, p->pos));
        ps[i] = p->node;
    }
    acc_node *body = text_emit(el, c->args[n]);
    return acc_lambda(el->g, n, ps, body);
}

static acc_node *stencil(text_elab *el, text_core *c, acc_node **a)
{
    const text_stencil_info *s = c->stencil;
    if (c->kind == CK_STENCIL)
        return acc_stencil(el->g, a[0], s->widths[0], s->boundary[0], a[2],
                           a[1]);
    return acc_stencil2(el->g, a[0], s->widths[0], s->boundary[0], a[3], a[1],
                        s->widths[1], s->boundary[1], a[4], a[2]);
}

static acc_node *spec(text_elab *el, text_core *c, acc_node **a)
{
    size_t n = c->n - 1;
    acc_node **items = text_alloc(el->st, (n ? n : 1) * sizeof *items);
    for (size_t i = 0; i < n; i++)
        items[i] = c->args[i + 1] ? a[i + 1] : acc_all(el->g);
    if (c->kind == CK_REPLICATE)
        return acc_replicate(el->g, n, items, a[0]);
    return acc_slice(el->g, a[0], n, items);
}

static acc_node *std(text_elab *el, text_core *c, acc_node **a)
{
    acc_graph *g = el->g;
    switch ((text_std)c->op) {
    case STD_SUM: return acc_sum(g, a[0]);
    case STD_PRODUCT: return acc_product(g, a[0]);
    case STD_MAXIMUM: return acc_maximum(g, a[0]);
    case STD_MINIMUM: return acc_minimum(g, a[0]);
    case STD_AND: return acc_and(g, a[0]);
    case STD_OR: return acc_or(g, a[0]);
    case STD_ALL: return acc_all_of(g, a[0], a[1]);
    case STD_ANY: return acc_any(g, a[0], a[1]);
    case STD_FOLD_ALL: return acc_fold_all(g, a[0], a[1], a[2]);
    case STD_FOLD1_ALL: return acc_fold1_all(g, a[0], a[1]);
    case STD_EVEN: return acc_even(g, a[0]);
    case STD_ODD: return acc_odd(g, a[0]);
    case STD_ZIP: return acc_zip(g, a[0], a[1]);
    case STD_ZIP_N: return acc_zip_n(g, c->n, a);
    case STD_UNZIP:
    case STD_UNZIP_N: return acc_unzip(g, a[0]);
    case STD_LENGTH: return acc_length(g, a[0]);
    case STD_INDEXED: return acc_indexed(g, a[0]);
    case STD_ENUM_N: return acc_enum_from_n(g, a[0], a[1]);
    case STD_ENUM_STEP_N: return acc_enum_from_step_n(g, a[0], a[1], a[2]);
    case STD_REVERSE: return acc_reverse(g, a[0]);
    case STD_TRANSPOSE: return acc_transpose(g, a[0]);
    case STD_FLATTEN: return acc_flatten(g, a[0]);
    case STD_TAKE: return acc_take(g, a[0], a[1]);
    case STD_DROP: return acc_drop(g, a[0], a[1]);
    case STD_INIT: return acc_init(g, a[0]);
    case STD_TAIL: return acc_tail(g, a[0]);
    case STD_SLIT: return acc_slit(g, a[0], a[1], a[2]);
    case STD_CONCAT: return acc_concat(g, a[0], a[1]);
    case STD_GATHER: return acc_gather(g, a[0], a[1]);
    case STD_SCATTER: return acc_scatter(g, a[0], a[1], a[2]);
    case STD_FILTER: return acc_filter(g, a[0], a[1]);
    case STD_COMPACT: return acc_compact(g, a[0], a[1]);
    }
    return NULL;
}

static acc_node *build(text_elab *el, text_core *c, acc_node **a)
{
    acc_graph *g = el->g;
    switch (c->kind) {
    case CK_INT: return int_literal(el, c);
    case CK_FLOAT: return float_literal(el, c);
    case CK_BOOL: return acc_const_bool(g, (int)c->ival);
    case CK_INPUT:
    case CK_PARAM:
        /* its node was not made (the builder ran out of memory: that is
         * the error), or it is used outside its function */
        if (acc_graph_status(g) != ACC_OK)
            text_fail(el->st, acc_graph_status(g), c->pos, "%s",
                      acc_graph_last_error(g));
        text_fail(el->st, ACC_ERR_INTERNAL, c->pos, "a function parameter is "
                  "used outside its function");
    case CK_LAMBDA: return lambda(el, c);
    case CK_UNOP: return acc_unop(g, (acc_primop)c->op, a[0]);
    case CK_BINOP: return acc_binop(g, (acc_primop)c->op, a[0], a[1]);
    case CK_ROUND:
        return acc_round_to(g, (acc_primop)c->op, a[0],
                            scalar_of(el, c->type, c->pos));
    case CK_CONVERT:
        return acc_convert(g, a[0], scalar_of(el, c->type, c->pos));
    case CK_COND:
        return text_ty_is_array_sort(c->type) ? acc_acond(g, a[0], a[1], a[2])
                                              : acc_cond(g, a[0], a[1], a[2]);
    case CK_TUPLE: return acc_tuple(g, c->n, a);
    case CK_GET: return acc_get(g, a[0], (size_t)c->op);
    case CK_INDEX: return acc_index(g, c->n, a);
    case CK_IGNORE:
        return acc_ignore(g, acc_type_get_rank(text_acc_type(el, c->type,
                                                             c->pos)));
    case CK_WHILE: return acc_while(g, a[0], a[1], a[2]);
    case CK_READ: return acc_read(g, a[0], a[1]);
    case CK_READ_LINEAR: return acc_read_linear(g, a[0], a[1]);
    case CK_SHAPE: return acc_shape(g, a[0]);
    case CK_SIZE: return acc_size(g, a[0]);
    case CK_THE: return acc_the(g, a[0]);
    case CK_UNIT: return acc_unit(g, a[0]);
    case CK_GENERATE: return acc_generate(g, a[0], a[1]);
    case CK_FILL: return acc_fill(g, a[0], a[1]);
    case CK_MAP: return acc_map(g, a[0], a[1]);
    case CK_ZIPWITH: return acc_zipwith(g, a[0], c->n - 1, a + 1);
    case CK_BACKPERMUTE: return acc_backpermute(g, a[0], a[1], a[2]);
    case CK_RESHAPE: return acc_reshape(g, a[0], a[1]);
    case CK_FOLD: return acc_fold(g, a[0], a[1], a[2]);
    case CK_FOLD1: return acc_fold1(g, a[0], a[1]);
    case CK_REPLICATE:
    case CK_SLICE: return spec(el, c, a);
    case CK_FOLD_SEG: return acc_fold_seg(g, a[0], a[1], a[2], a[3]);
    case CK_FOLD_SEG_OFFSETS:
        return acc_fold_seg_offsets(g, a[0], a[1], a[2], a[3]);
    case CK_FOLD1_SEG: return acc_fold1_seg(g, a[0], a[1], a[2]);
    case CK_SCAN: return acc_scan(g, (acc_scan_kind)c->op, a[0], a[1], a[2]);
    case CK_SCAN_SEG:
        return acc_scan_seg(g, (acc_scan_kind)c->op, a[0], a[1], a[2], a[3]);
    case CK_PERMUTE: return acc_permute(g, a[0], a[1], a[2], a[3]);
    case CK_PERMUTE_PAIRS: return acc_permute_pairs(g, a[0], a[1], a[2]);
    case CK_STENCIL:
    case CK_STENCIL2: return stencil(el, c, a);
    case CK_EXPAND: return acc_expand(g, a[0], a[1], a[2]);
    case CK_ACOND: return acc_acond(g, a[0], a[1], a[2]);
    case CK_AWHILE: return acc_awhile(g, a[0], a[1], a[2]);
    case CK_STD: return std(el, c, a);
    case CK_FOREIGN: return acc_foreign(g, c->name, a[0], a[1]);
    case CK_FOREIGN_EXP: return acc_foreign_exp(g, c->name, a[0], a[1]);
    case CK_BOUND: return bound(el, c);
    }
    return NULL;
}

acc_node *text_emit(text_elab *el, text_core *c)
{
    if (c->node)
        return c->node;
    acc_node **a = text_alloc(el->st, (c->n ? c->n : 1) * sizeof *a);
    if (c->kind != CK_LAMBDA)
        for (size_t i = 0; i < c->n; i++)
            a[i] = c->args[i] ? text_emit(el, c->args[i]) : NULL;
    acc_node *node = build(el, c, a);
    if (!node) {
        acc_status st = acc_graph_status(el->g);
        text_fail(el->st, st == ACC_OK ? ACC_ERR_INTERNAL : st, c->pos, "%s",
                  acc_graph_last_error(el->g));
    }
    c->node = node;
    return node;
}
