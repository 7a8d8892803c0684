/*
 * kernel_stencil.c — filling the holes of core/skeletons/cpu/stencil.c.in
 * and core/skeletons/cuda/stencil.cu.in (see kernel_stencil.h).
 *
 * f's demand analysis says which leaves of each neighbourhood f uses; only
 * those are read.  Neighbour w of a side (row-major over the window, the
 * leaf order of the nested tuple) lies at offset rel[d] = (w unravelled
 * over the widths)[d] - width[d] / 2 from the focus.  In the interior, a
 * manifest side's leaf is read through a row pointer (one per leaf and
 * outer offset) at column acc_i + rel[rank - 1]; an embedded producer's
 * element is computed at the neighbour's index.  On the border every
 * neighbour goes through the skeleton's acc_read0/acc_read1, which resolve
 * the boundary.  f's code is emitted twice, once for each.  What both
 * skeletons share (rows, element reads, boundaries) is the template
 * shared/stencil_sides.in, filled here into the STENCIL_COMMON hole.
 */
#include "core/codegen/kernel_stencil.h"

#include "core/base/mem.h"
#include "core/ir/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One array of the stencil and what f uses of its neighbourhood. */
typedef struct st_side {
    int index;             /* 0 or 1 */
    const ir_node *xs;     /* manifest, or an embedded generate */
    const ir_node *barg;   /* the boundary function or constant, or NULL */
    acc_boundary b;
    int32_t rank;
    const int32_t *w;      /* widths */
    size_t k, window;      /* leaves of an element; neighbours */
    const uint8_t *d;      /* f's demand on the neighbourhood (NULL: none) */
    uint8_t u[ACC_MAX_COMPONENTS]; /* the leaves f uses of any neighbour */
    int used, focus;       /* f uses some leaf; of the focus */
    int g_fails;           /* the boundary function g can fail: g runs at
                              every neighbour out of range, used or not */
} st_side;

/* The C names of one side's neighbourhood leaves for one emission of f. */
typedef struct st_names {
    char buf[TY_MAX_LEAVES][64];
    const char *p[TY_MAX_LEAVES];
} st_names;

static const char *const at_names[ACC_MAX_RANK] = {
    "acc_at[0]", "acc_at[1]", "acc_at[2]", "acc_at[3]",
    "acc_at[4]", "acc_at[5]", "acc_at[6]", "acc_at[7]"};
static const char *const c_names[ACC_MAX_RANK] = {
    "acc_c[0]", "acc_c[1]", "acc_c[2]", "acc_c[3]",
    "acc_c[4]", "acc_c[5]", "acc_c[6]", "acc_c[7]"};

static int embedded(const st_side *s)
{
    return s->xs->op == IR_GENERATE;
}

static void rel_of(const st_side *s, size_t w, int64_t *rel)
{
    for (int32_t d = s->rank - 1; d >= 0; d--) {
        rel[d] = (int64_t)(w % (size_t)s->w[d]) - s->w[d] / 2;
        w /= (size_t)s->w[d];
    }
}

static int neighbour_used(const st_side *s, size_t w)
{
    return s->d && cg_any_leaf(s->d + w * s->k, s->k);
}

/* Side i of n, after f's analysis. */
static void side_setup(cg_inst *in, const ir_node *n, int i,
                       uint32_t *barg_at, st_side *s)
{
    memset(s, 0, sizeof *s);
    s->index = i;
    s->xs = n->args[1 + i];
    s->b = n->u.stencil.boundary[i];
    if (s->b == ACC_BOUNDARY_FUNCTION || s->b == ACC_BOUNDARY_CONSTANT)
        s->barg = n->args[(*barg_at)++];
    s->rank = s->xs->type->rank;
    s->w = n->u.stencil.widths[i];
    s->k = s->xs->type->elem->n_leaves;
    s->window = 1;
    for (int32_t d = 0; d < s->rank; d++)
        s->window *= (size_t)s->w[d];
    s->d = cg_param_demand(in->e, ir_lambda_param(n->args[0], (uint32_t)i));
    size_t centre = s->window / 2; /* odd widths: the focus is the middle */
    for (size_t w = 0; w < s->window; w++)
        for (size_t l = 0; s->d && l < s->k; l++)
            if (s->d[w * s->k + l]) {
                s->u[l] = 1;
                s->used = 1;
                s->focus |= w == centre;
            }
    s->g_fails = s->b == ACC_BOUNDARY_FUNCTION && cg_can_fail(in->e, s->barg);
}

/* ---- per side: reach, fields, element, outside ---------------------------- */

/* The REACH hole, and the same offsets in k->stencil_reach: those of the
 * neighbours f reads, or the whole window when g can fail (the border
 * then holds every position with a neighbour out of range). */
static void fill_reach(cg_inst *in, const st_side *s, const char *hole,
                       cg_kernel *k)
{
    int64_t lo[ACC_MAX_RANK] = {0}, hi[ACC_MAX_RANK] = {0}, rel[ACC_MAX_RANK];
    for (size_t w = 0; w < s->window; w++) {
        if (!neighbour_used(s, w) && !s->g_fails)
            continue;
        rel_of(s, w, rel);
        for (int32_t d = 0; d < s->rank; d++) {
            lo[d] = rel[d] < lo[d] ? rel[d] : lo[d];
            hi[d] = rel[d] > hi[d] ? rel[d] : hi[d];
        }
    }
    strbuf *b = cg_fill_hole(in, hole);
    for (int bound = 0; bound < 2; bound++) {
        sb_puts(b, bound ? ", {" : "{");
        for (int32_t d = 0; d < s->rank; d++) {
            int64_t r = bound ? hi[d] : lo[d]; /* |r| <= 4: widths <= 9 */
            k->stencil_reach[s->index][bound][d] = (int8_t)r;
            sb_printf(b, "%s%lld", d ? ", " : "", (long long)r);
        }
        sb_puts(b, "}");
    }
}

static void put_read(strbuf *b, acc_scalar t, const char *ptr, const char *at)
{
    if (t == ACC_BOOL)
        sb_printf(b, "(uint8_t)(%s[%s] != 0)", ptr, at);
    else
        sb_printf(b, "%s[%s]", ptr, at);
}

/* lam (a producer's function or the boundary function g) applied to the
 * index `ix`, the leaves in `demand` stored into *out.  With no leaf
 * demanded (f uses none of this side, or a check pass), only lam's
 * runtime checks: the interpreter computes the element anyway. */
static acc_status lambda_code(cg_inst *in, const st_side *s,
                              const ir_node *lam, const char *const *ix,
                              const uint8_t *demand, strbuf *b)
{
    const char *out[TY_MAX_LEAVES];
    const char *const *args[1] = {ix};
    strbuf body = {0};
    cg_begin_function(in->e, 1);
    int ok = cg_analyse(in->e, lam, demand) &&
             cg_emit_lambda(in->e, &body, lam, args, demand, out);
    for (size_t l = 0; ok && l < s->k; l++)
        if (demand[l])
            sb_printf(&body, "    out->l%zu = %s;\n", l, out[l]);
    cg_array_decls(in->e, b);
    sb_puts(b, body.text ? body.text : "");
    b->failed |= body.failed;
    sb_free(&body);
    return ok ? ACC_OK : cg_fill_failed(in);
}

/* The element at in-range index acc_at: the leaves f uses, loaded or
 * computed by the producer. */
static acc_status elem_code(cg_inst *in, const st_side *s, strbuf *b)
{
    const acc_type *e = s->xs->type->elem;
    if (!embedded(s)) {
        for (size_t l = 0; l < s->k; l++) {
            if (!s->u[l])
                continue;
            const char *t = cg_ctype(e->leaves[l]);
            char ptr[64];
            snprintf(ptr, sizeof ptr, "acc_s%d_%zu", s->index, l);
            sb_printf(b, "    const %s *const %s = (const %s *)A->in[ACC_SRC"
                      " + %d].data[%zu];\n    out->l%zu = ", t, ptr, t,
                      s->index, l, l);
            put_read(b, e->leaves[l], ptr, "acc_p");
            sb_puts(b, ";\n");
        }
        return ACC_OK;
    }
    return lambda_code(in, s, s->xs->args[1], at_names, s->u, b);
}

/* The element replacing an out-of-range index acc_c: g acc_c, or the
 * constant (host-evaluated, in A->seed). */
static acc_status outside_code(cg_inst *in, const st_side *s, strbuf *b)
{
    const acc_type *e = s->xs->type->elem;
    if (s->b == ACC_BOUNDARY_CONSTANT) {
        for (size_t l = 0; l < s->k; l++)
            if (s->u[l])
                sb_printf(b, "    out->l%zu = (%s)A->seed[ACC_MAX_COMPONENTS "
                          "* %d + %zu].%s;\n", l, cg_ctype(e->leaves[l]),
                          s->index, l, cg_kval_field(e->leaves[l]));
        return ACC_OK;
    }
    if (s->b != ACC_BOUNDARY_FUNCTION)
        return ACC_OK;
    return lambda_code(in, s, s->barg, c_names, s->u, b);
}

/* g at an out-of-range neighbour f does not use, for its checks only. */
static acc_status outside_checks_code(cg_inst *in, const st_side *s,
                                     strbuf *b)
{
    static const uint8_t none[ACC_MAX_COMPONENTS];
    if (!s->g_fails)
        return ACC_OK;
    return lambda_code(in, s, s->barg, c_names, none, b);
}

/* The holes of side i: boundary, reach, focus, fields, element, outside.
 * Side 1 of a stencil (one array) gets neutral values. */
static acc_status fill_side(cg_inst *in, const st_side *s, int i,
                            cg_kernel *k)
{
    static const char *const holes[2][7] = {
        {"BOUNDARY0", "REACH0", "FOCUS0", "FIELDS0", "ELEM0", "OUTSIDE0",
         "OUTSIDE_CHECKS0"},
        {"BOUNDARY1", "REACH1", "FOCUS1", "FIELDS1", "ELEM1", "OUTSIDE1",
         "OUTSIDE_CHECKS1"}};
    const char *const *h = holes[i];
    if (!s) {
        cg_fill_value(in, h[0], "1");
        cg_fill_value(in, h[1], "{0}, {0}");
        cg_fill_value(in, h[2], "0");
        for (int j = 3; j < 7; j++)
            cg_fill_value(in, h[j], "");
        return ACC_OK;
    }
    sb_printf(cg_fill_hole(in, h[0]), "%d", (int)s->b);
    fill_reach(in, s, h[1], k);
    cg_fill_value(in, h[2], s->focus ? "1" : "0");
    strbuf *fields = cg_fill_hole(in, h[3]);
    for (size_t l = 0; l < s->k; l++)
        sb_printf(fields, "    %s l%zu;\n",
                  cg_ctype(s->xs->type->elem->leaves[l]), l);
    strbuf *elem = cg_fill_hole(in, h[4]);
    /* g's checks first: the emitter's demand tables accumulate, and g's
     * full code demands all its checks need, not the other way round */
    if (cg_fill_stop(in, elem_code(in, s, elem)) ||
        cg_fill_stop(in, outside_checks_code(in, s, cg_fill_hole(in, h[6]))) ||
        cg_fill_stop(in, outside_code(in, s, cg_fill_hole(in, h[5]))))
        return in->d->status;
    /* the interpreter computes every element of an embedded producer:
     * those the kernel may not compute are computed again for their
     * runtime checks (accel_kernel_part) */
    if (embedded(s) && elem->text && strstr(elem->text, "ACC_FAIL("))
        k->stencil_checks[i] = (uint8_t)(s->focus ? 1 : 2);
    return ACC_OK;
}

/* ---- f: interior and border ------------------------------------------------ */

/* acc_c set to neighbour `rel` of column acc_i of row R. */
static void put_index(strbuf *b, const st_side *s, const int64_t *rel,
                      const char *indent)
{
    for (int32_t d = 0; d < s->rank - 1; d++)
        sb_printf(b, "%sacc_c[%d] = R->ix[%d] + (%lld);\n", indent, (int)d,
                  (int)d, (long long)rel[d]);
    sb_printf(b, "%sacc_c[%d] = acc_i + (%lld);\n", indent,
              (int)(s->rank - 1), (long long)rel[s->rank - 1]);
}

/* A manifest side's interior reads: row pointers into decls, one load per
 * leaf used. */
static void interior_loads(strbuf *decls, strbuf *body, const st_side *s,
                           st_names *nm)
{
    uint8_t declared[TY_MAX_LEAVES] = {0};
    const acc_type *e = s->xs->type->elem;
    size_t inner = (size_t)s->w[s->rank - 1];
    size_t rows = s->window / inner;
    int64_t rel[ACC_MAX_RANK];
    for (size_t w = 0; w < s->window; w++) {
        rel_of(s, w, rel);
        for (size_t l = 0; s->d && l < s->k; l++) {
            size_t leaf = w * s->k + l, q = w / inner;
            if (!s->d[leaf])
                continue;
            const char *t = cg_ctype(e->leaves[l]);
            char ptr[64], at[64];
            snprintf(ptr, sizeof ptr, "acc_r%d_%zu_%zu", s->index, l, q);
            if (!declared[l * rows + q]) {
                declared[l * rows + q] = 1;
                sb_printf(decls, "    const %s *const %s = (const %s *)A->in"
                          "[ACC_SRC + %d].data[%zu] + R->base[%d]", t, ptr, t,
                          s->index, l, s->index);
                for (int32_t d = 0; d < s->rank - 1; d++)
                    sb_printf(decls, " + (%lld) * R->st[%d][%d]",
                              (long long)rel[d], s->index, (int)d);
                sb_puts(decls, ";\n");
            }
            snprintf(nm->buf[leaf], sizeof nm->buf[leaf], "x%d_%zu_%zu",
                     s->index, w, l);
            nm->p[leaf] = nm->buf[leaf];
            snprintf(at, sizeof at, "acc_i + (%lld)",
                     (long long)rel[s->rank - 1]);
            sb_printf(body, "        const %s %s = ", t, nm->buf[leaf]);
            put_read(body, e->leaves[l], ptr, at);
            sb_puts(body, ";\n");
        }
    }
}

/* Whole neighbours into acc_n<side>_<w>: computed by the producer
 * (interior) or resolved by the boundary (border).  On the border, when
 * g can fail, the neighbours f does not use are resolved for g's checks
 * (acc_check_outside<side>: g where they are out of range). */
static void neighbour_calls(strbuf *body, const st_side *s, st_names *nm,
                            int interior)
{
    const char *indent = interior ? "        " : "    ";
    int64_t rel[ACC_MAX_RANK];
    for (size_t w = 0; w < s->window; w++) {
        if (!neighbour_used(s, w) && s->g_fails && !interior) {
            rel_of(s, w, rel);
            put_index(body, s, rel, indent);
            sb_printf(body, "%sif (!acc_check_outside%d(A, acc_pos, acc_c))\n"
                      "%s    return 0;\n", indent, s->index, indent);
        }
        if (!neighbour_used(s, w))
            continue;
        rel_of(s, w, rel);
        sb_printf(body, "%sacc_e%d acc_n%d_%zu;\n", indent, s->index,
                  s->index, w);
        put_index(body, s, rel, indent);
        sb_printf(body, "%sif (!acc_%s%d(A, acc_pos, acc_c, &acc_n%d_%zu))\n"
                  "%s    return 0;\n", indent, interior ? "elem" : "read",
                  s->index, s->index, w, indent);
        for (size_t l = 0; l < s->k; l++) {
            size_t leaf = w * s->k + l;
            snprintf(nm->buf[leaf], sizeof nm->buf[leaf], "acc_n%d_%zu.l%zu",
                     s->index, w, l);
            nm->p[leaf] = nm->buf[leaf];
        }
    }
}

/* f applied to the gathered neighbourhoods and stored: the holes
 * INTERIOR_DECLS/BODY or BORDER_DECLS/BODY. */
static acc_status fill_apply(cg_inst *in, const ir_node *n,
                             const st_side *sd, int m, int interior,
                             st_names *nm)
{
    const ir_node *f = n->args[0];
    const char *out[TY_MAX_LEAVES];
    const char *const *args[2];
    strbuf *decls = cg_fill_hole(in, interior ? "INTERIOR_DECLS" : "BORDER_DECLS");
    strbuf *body = cg_fill_hole(in, interior ? "INTERIOR_BODY" : "BORDER_BODY");
    strbuf stores = {0};
    cg_begin_function(in->e, interior ? 2 : 1);
    for (int i = 0; i < m; i++) {
        memset(nm[i].p, 0, sizeof nm[i].p);
        if (interior && !embedded(&sd[i]))
            interior_loads(decls, body, &sd[i], &nm[i]);
        else
            neighbour_calls(body, &sd[i], &nm[i], interior);
        args[i] = nm[i].p;
    }
    if (!cg_emit_lambda(in->e, body, f, args, NULL, out))
        return cg_fill_failed(in);
    cg_fill_stores(&stores, body, n->type->elem, out);
    cg_array_decls(in->e, decls);
    sb_puts(decls, stores.text ? stores.text : "");
    decls->failed |= stores.failed;
    sb_free(&stores);
    return ACC_OK;
}

/* ---- the kernel ------------------------------------------------------------ */

/* shared/stencil_sides.in filled with the holes so far, as the
 * STENCIL_COMMON hole. */
static acc_status fill_common(cg_inst *in)
{
    strbuf common = {0};
    acc_status r = cg_fill_template(in, &common, "shared/stencil_sides.in");
    if (!cg_fill_stop(in, r)) {
        strbuf *h = cg_fill_hole(in, "STENCIL_COMMON");
        sb_puts(h, common.text ? common.text : "");
        h->failed |= common.failed; /* reported as out of memory */
    }
    sb_free(&common);
    return r;
}

static acc_status refuse(cg_inst *in, const ir_node *n, const char *what,
                         size_t k)
{
    return cg_fill_refuse(in, "%s of %s with %zu leaves", ir_op_name(n->op),
                          what, k);
}

acc_status cg_fill_stencil(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    int m = n->op == IR_STENCIL2 ? 2 : 1;
    uint32_t barg_at = 1 + (uint32_t)m;
    st_side sd[2];
    const ir_node *f = n->args[0];
    for (int i = 0; i < m; i++) {
        size_t leaves = n->args[1 + i]->type->elem->n_leaves;
        if (leaves == 0 || leaves > ACC_MAX_COMPONENTS)
            return refuse(in, n, "elements", leaves);
    }
    if (n->type->elem->n_leaves > ACC_MAX_COMPONENTS)
        return refuse(in, n, "results", n->type->elem->n_leaves);
    if (!cg_analyse(in->e, f, NULL))
        return cg_fill_failed(in);
    for (int i = 0; i < m; i++)
        side_setup(in, n, i, &barg_at, &sd[i]);
    for (int i = 0; i < 2; i++)
        if (cg_fill_stop(in, fill_side(in, i < m ? &sd[i] : NULL, i, k)))
            return in->d->status;
    st_names *nm = mem_calloc(2, sizeof *nm);
    if (!nm)
        return diag_oom(in->d, "acc_compile");
    int stop = cg_fill_stop(in, fill_apply(in, n, sd, m, 1, nm)) ||
               cg_fill_stop(in, fill_apply(in, n, sd, m, 0, nm));
    free(nm);
    if (stop)
        return in->d->status;
    sb_printf(cg_fill_hole(in, "RANK"), "%d", (int)n->type->rank);
    sb_printf(cg_fill_hole(in, "SIDES"), "%d", m);
    /* the sides' descriptions follow the arrays the scalar code reads */
    sb_printf(cg_fill_hole(in, "SRC"), "%zu", cg_n_arrays(in->e));
    return fill_common(in);
}

int cg_stencil_needs_checks(const cg_kernel *k, int i, const int64_t *side_ext,
                            const int64_t *ext, int32_t rank)
{
    if (k->stencil_checks[i] == 2)
        return 1;
    for (int32_t d = 0; k->stencil_checks[i] == 1 && d < rank; d++)
        if (side_ext[d] != ext[d])
            return 1;
    return 0;
}
