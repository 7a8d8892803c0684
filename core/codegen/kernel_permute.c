/*
 * kernel_permute.c — filling the holes of permute.c.in and expand.c.in,
 * and of their CUDA twins permute.cu.in and expand.cu.in (see
 * kernel_permute.h).  Every function of a skeleton that runs scalar
 * code gets its own cg_begin_function and array declarations; the source
 * of permute' over an expand and a standalone expand share the holes of
 * the expansion (X_*, SIZE_*, GET_*).
 */
#include "core/codegen/kernel_permute.h"

#include "core/codegen/expand_affine.h"
#include "core/ir/types.h"

#include <stdio.h>

/* Struct fields l0, l1, ... for the leaves of t. */
static void leaf_fields(strbuf *b, const acc_type *t)
{
    for (size_t l = 0; l < t->n_leaves; l++)
        sb_printf(b, "    %s l%zu;\n", cg_ctype(t->leaves[l]), l);
}

/* Refuses element types the kernel ABI cannot carry (cg_fill_refuse). */
static acc_status bad_leaves(cg_inst *in, const ir_node *op,
                             const acc_type *t)
{
    if (t->n_leaves > 0 && t->n_leaves <= ACC_MAX_COMPONENTS)
        return ACC_OK;
    return cg_fill_refuse(in, "%s of elements with %zu leaves",
                          ir_op_name(op->op), t->n_leaves);
}

/* The leaves of array term a at linear position pos (index ix) into out:
 * a load from a manifest array, or an embedded producer's function
 * applied to ix; *reads_ix says whether that code reads ix. */
static acc_status element_at(cg_inst *in, strbuf *b, const ir_node *a,
                             const char *pos, const char *const *ix,
                             const char **out, int *reads_ix)
{
    *reads_ix = 0;
    if (a->op != IR_GENERATE)
        return cg_emit_load(in->e, b, a, pos, out) ? ACC_OK
                                                   : cg_fill_failed(in);
    const ir_node *lam = a->args[1];
    const char *const *args[1] = {ix};
    if (!cg_analyse(in->e, lam, NULL))
        return cg_fill_failed(in);
    *reads_ix = cg_any_leaf(cg_param_demand(in->e, ir_lambda_param(lam, 0)),
                            (size_t)a->type->rank);
    return cg_emit_lambda(in->e, b, lam, args, NULL, out) ? ACC_OK
                                                         : cg_fill_failed(in);
}

static void copy_leaves(strbuf *b, const char *to, const char *const *x,
                        size_t n)
{
    for (size_t l = 0; l < n; l++)
        sb_printf(b, "    %s->l%zu = %s;\n", to, l, x[l]);
}

/* ---- the expansion: X_*, SIZE_*, GET_* ----------------------------------- */

/* Element acc_i of the expand's source, and its size. */
static acc_status fill_expand_source(cg_inst *in, const ir_node *ex)
{
    const ir_node *ys = ex->args[2], *size = ex->args[0];
    static const char *const ix[1] = {"acc_i"};
    const char *x[TY_MAX_LEAVES], *s[1];
    cg_name_buf xb[ACC_MAX_COMPONENTS];
    const char *xn[ACC_MAX_COMPONENTS];
    int reads_ix;
    strbuf *body = cg_fill_hole(in, "X_BODY");
    cg_begin_function(in->e, 1);
    if (cg_fill_stop(in, element_at(in, body, ys, "acc_i", ix, x, &reads_ix)))
        return in->d->status;
    copy_leaves(body, "out", x, ys->type->elem->n_leaves);
    cg_array_decls(in->e, cg_fill_hole(in, "X_ARRAYS"));
    leaf_fields(cg_fill_hole(in, "X_FIELDS"), ys->type->elem);

    body = cg_fill_hole(in, "SIZE_BODY");
    cg_begin_function(in->e, 1);
    if (!cg_analyse(in->e, size, NULL))
        return cg_fill_failed(in);
    const char *const *args[1] = {
        cg_param_locals(in, body, ir_lambda_param(size, 0), "sx", "x", xb, xn)};
    if (!cg_emit_lambda(in->e, body, size, args, NULL, s))
        return cg_fill_failed(in);
    sb_printf(body, "    *acc_size = %s;\n", s[0]);
    cg_array_decls(in->e, cg_fill_hole(in, "SIZE_ARRAYS"));
    return ACC_OK;
}

/* get *x acc_k into hole GET_BODY; its leaves' expressions into out
 * (GET_ARRAYS is left to the caller, who writes the leaves).  An
 * expression may be the name of one of x's leaves (get returning a
 * component of x), held in the caller's xb, which must outlive out. */
static acc_status emit_get(cg_inst *in, const ir_node *ex, strbuf *body,
                           cg_name_buf *xb, const char **out)
{
    const ir_node *get = ex->args[1];
    static const char *const k[1] = {"acc_k"};
    const char *xn[ACC_MAX_COMPONENTS];
    cg_begin_function(in->e, 1);
    if (!cg_analyse(in->e, get, NULL))
        return cg_fill_failed(in);
    const char *const *args[2] = {
        cg_param_locals(in, body, ir_lambda_param(get, 0), "gx", "x", xb, xn),
        k};
    return cg_emit_lambda(in->e, body, get, args, NULL, out)
               ? ACC_OK : cg_fill_failed(in);
}

static void no_holes(cg_inst *in, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cg_fill_value(in, names[i], "");
}

/* ---- permute, permute' ---------------------------------------------------- */

/* A source element's target index (rank leaves t) into acc_t, its value
 * (n leaves v) into *v. */
static void place_leaves(strbuf *b, int32_t rank, const char *const *t,
                         const char *const *v, size_t n)
{
    for (int32_t d = 0; d < rank; d++)
        sb_printf(b, "    acc_t[%d] = %s;\n", (int)d, t[d]);
    copy_leaves(b, "v", v, n);
}

static acc_status fill_defaults(cg_inst *in, const ir_node *defs)
{
    const char *x[TY_MAX_LEAVES];
    int reads_ix;
    strbuf *body = cg_fill_hole(in, "DEF_BODY");
    cg_begin_function(in->e, 1);
    if (cg_fill_stop(in, element_at(in, body, defs, "acc_pos",
                                    cg_index_names[0], x, &reads_ix)))
        return in->d->status;
    cg_fill_stores(cg_fill_hole(in, "DEF_OUTPUTS"), body, defs->type->elem, x);
    cg_array_decls(in->e, cg_fill_hole(in, "DEF_ARRAYS"));
    cg_fill_value(in, "DEF_INDEX", reads_ix ? "1" : "0");
    return ACC_OK;
}

/* A manifest or producer source: permute's value is the element and its
 * target p ix; permute''s element is the pair (target, value). */
static acc_status fill_source(cg_inst *in, const ir_node *pm,
                              const ir_node *xs)
{
    const char *x[TY_MAX_LEAVES], *t[TY_MAX_LEAVES];
    int32_t rank = pm->type->rank;
    int reads_ix, p_reads = 0;
    strbuf *body = cg_fill_hole(in, "SRC_BODY");
    cg_begin_function(in->e, 1);
    if (cg_fill_stop(in, element_at(in, body, xs, "acc_pos",
                                    cg_index_names[0], x, &reads_ix)))
        return in->d->status;
    const char *const *target = x, *const *value = x + rank;
    if (pm->op == IR_PERMUTE) {
        const ir_node *p = pm->args[2];
        const char *const *args[1] = {cg_index_names[0]};
        if (!cg_analyse(in->e, p, NULL))
            return cg_fill_failed(in);
        p_reads = cg_any_leaf(cg_param_demand(in->e, ir_lambda_param(p, 0)),
                              (size_t)xs->type->rank);
        if (!cg_emit_lambda(in->e, body, p, args, NULL, t))
            return cg_fill_failed(in);
        target = t;
        value = x;
    }
    place_leaves(body, rank, target, value, pm->type->elem->n_leaves);
    cg_array_decls(in->e, cg_fill_hole(in, "SRC_ARRAYS"));
    cg_fill_value(in, "SRC_INDEX", reads_ix || p_reads ? "1" : "0");
    cg_fill_value(in, "RANGED", "0");
    sb_printf(cg_fill_hole(in, "SRC_RANK"), "%d", (int)xs->type->rank);
    static const char *const unused[] = {"X_FIELDS", "X_ARRAYS", "X_BODY",
        "SIZE_ARRAYS", "SIZE_BODY", "GET_ARRAYS", "GET_BODY", "CAND_ARRAYS",
        "CAND_BODY"};
    no_holes(in, unused, sizeof unused / sizeof *unused);
    return ACC_OK;
}

/* The candidate target of get *x acc_k (ignore's alternatives taken,
 * cg_set_ignore_collapse) into holes CAND_ARRAYS, CAND_BODY, when the
 * targets are affine in acc_k (cg_expand_affine): RANGED 1, the ranged
 * pass is there (permute.c.in).  Else RANGED 0 and empty holes. */
static acc_status fill_candidate(cg_inst *in, const ir_node *pm,
                                 const ir_node *ex, cg_kernel *k)
{
    const char *t[TY_MAX_LEAVES];
    cg_name_buf xb[ACC_MAX_COMPONENTS];
    k->ranged = pm->type->rank == 1 && cg_expand_affine(cg_program(in->e), ex);
    cg_fill_value(in, "RANGED", k->ranged ? "1" : "0");
    if (!k->ranged) {
        static const char *const unused[] = {"CAND_ARRAYS", "CAND_BODY"};
        no_holes(in, unused, sizeof unused / sizeof *unused);
        return ACC_OK;
    }
    strbuf *body = cg_fill_hole(in, "CAND_BODY");
    cg_set_ignore_collapse(in->e, 1);
    acc_status s = emit_get(in, ex, body, xb, t);
    cg_set_ignore_collapse(in->e, 0);
    if (cg_fill_stop(in, s))
        return s;
    sb_printf(body, "    *acc_t = %s;\n", t[0]);
    cg_array_decls(in->e, cg_fill_hole(in, "CAND_ARRAYS"));
    return ACC_OK;
}

/* permute' over an embedded expand: get's pairs are the source. */
static acc_status fill_expanded(cg_inst *in, const ir_node *pm,
                                const ir_node *ex, cg_kernel *k)
{
    const char *x[TY_MAX_LEAVES];
    cg_name_buf xb[ACC_MAX_COMPONENTS];
    int32_t rank = pm->type->rank;
    if (cg_fill_stop(in, fill_expand_source(in, ex)))
        return in->d->status;
    strbuf *body = cg_fill_hole(in, "GET_BODY");
    if (cg_fill_stop(in, emit_get(in, ex, body, xb, x)))
        return in->d->status;
    place_leaves(body, rank, x, x + rank, pm->type->elem->n_leaves);
    cg_array_decls(in->e, cg_fill_hole(in, "GET_ARRAYS"));
    if (cg_fill_stop(in, fill_candidate(in, pm, ex, k)))
        return in->d->status;
    static const char *const unused[] = {"SRC_ARRAYS", "SRC_BODY"};
    no_holes(in, unused, sizeof unused / sizeof *unused);
    cg_fill_value(in, "SRC_INDEX", "0");
    cg_fill_value(in, "SRC_RANK", "1");
    return ACC_OK;
}

/* Element i of leaf buffers b[] into *e, and back, through the
 * skeleton's ACC_CELL qualifier (empty on the CPU; volatile on CUDA, where
 * cells read under a lock must bypass the incoherent L1 cache). */
static void element_access(cg_inst *in, const acc_type *elem)
{
    strbuf *ld = cg_fill_hole(in, "ELEM_LOAD"), *st = cg_fill_hole(in, "ELEM_SAVE");
    for (size_t l = 0; l < elem->n_leaves; l++) {
        const char *t = cg_ctype(elem->leaves[l]);
        sb_printf(ld, "    e->l%zu = ((ACC_CELL const %s *)b[%zu])[i];\n", l,
                  t, l);
        sb_printf(st, "    ((ACC_CELL %s *)b[%zu])[i] = e->l%zu;\n", t, l, l);
    }
    sb_printf(cg_fill_hole(in, "LEAVES"), "%zu", elem->n_leaves);
}

/* 32 or 64 for one leaf of that width (compare-and-swap), else 0 (locks). */
static int atomic_width(const acc_type *elem)
{
    size_t w = elem->n_leaves == 1 ? acc_scalar_size(elem->leaves[0]) : 0;
    return w == 4 || w == 8 ? (int)(8 * w) : 0;
}

int cg_permute_fetch(const ir_node *pm)
{
    const ir_node *f = pm->args[0];
    const acc_type *elem = pm->type->elem;
    if (!atomic_width(elem) || ty_is_floating(elem->leaves[0]) ||
        !cg_commutative_primitive(f))
        return 0;
    switch (ir_lambda_body(f)->u.prim) {
    case ACC_OP_ADD: return 1;
    case ACC_OP_BAND: return 2;
    case ACC_OP_BOR: return 3;
    case ACC_OP_BXOR: return 4;
    default: return 0;
    }
}

const char *cg_permute_identity(const ir_node *pm)
{
    const ir_node *f = pm->args[0];
    const acc_type *elem = pm->type->elem;
    if (elem->n_leaves != 1 || !cg_commutative_primitive(f))
        return NULL;
    int fl = ty_is_floating(elem->leaves[0]);
    switch (ir_lambda_body(f)->u.prim) {
    case ACC_OP_ADD:
        return fl ? "-0.0" : "0";
    case ACC_OP_MUL: case ACC_OP_LAND:
        return "1";
    case ACC_OP_BOR: case ACC_OP_BXOR: case ACC_OP_LOR:
        return "0";
    case ACC_OP_BAND:
        return "-1"; /* all bits, in the leaf's type */
    default:
        return NULL;
    }
}

int cg_permute_expanded(const ir_node *pm)
{
    return pm->op == IR_PERMUTE_PAIRS && pm->args[2]->op == IR_EXPAND;
}

acc_status cg_build_permute(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    const ir_node *pm = cg_post_map_base(n);
    int pairs = pm->op == IR_PERMUTE_PAIRS;
    const ir_node *f = pm->args[0], *defs = pm->args[1];
    const ir_node *xs = pm->args[pairs ? 2 : 3];
    int expanded = cg_permute_expanded(pm);
    const acc_type *elem = pm->type->elem;
    if (cg_fill_stop(in, bad_leaves(in, pm, elem)) ||
        cg_fill_stop(in, bad_leaves(in, pm, (expanded ? xs->args[2] : xs)
                                                ->type->elem)))
        return in->d->status;
    k->fold = pm;
    k->src = xs;
    if (cg_fill_stop(in, fill_defaults(in, defs)) ||
        cg_fill_stop(in, expanded ? fill_expanded(in, pm, xs, k)
                                  : fill_source(in, pm, xs)) ||
        cg_fill_stop(in, cg_fold_combine(in, f)) ||
        cg_fill_stop(in, cg_fold_store(in, n)))
        return in->d->status;
    leaf_fields(cg_fill_hole(in, "FIELDS"), elem);
    element_access(in, elem);
    sb_printf(cg_fill_hole(in, "TGT_RANK"), "%d", (int)pm->type->rank);
    sb_printf(cg_fill_hole(in, "ATOMIC"), "%d", atomic_width(elem));
    sb_printf(cg_fill_hole(in, "FETCH"), "%d", cg_permute_fetch(pm));
    cg_fill_value(in, "EXPANDED", expanded ? "1" : "0");
    const char *id = cg_permute_identity(pm);
    cg_fill_value(in, "IDENT", id ? "1" : "0");
    cg_fill_value(in, "IDENT_VALUE", id ? id : "0");
    return ACC_OK;
}

/* ---- expand ------------------------------------------------------------- */

acc_status cg_build_expand(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    const ir_node *ex = cg_post_map_base(n);
    const acc_type *elem = ex->type->elem;
    const char *v[TY_MAX_LEAVES];
    cg_name_buf xb[ACC_MAX_COMPONENTS];
    if (cg_fill_stop(in, bad_leaves(in, ex, elem)) ||
        cg_fill_stop(in, bad_leaves(in, ex, ex->args[2]->type->elem)))
        return in->d->status;
    k->fold = ex;
    k->src = ex->args[2];
    if (cg_fill_stop(in, fill_expand_source(in, ex)))
        return in->d->status;
    strbuf *body = cg_fill_hole(in, "GET_BODY");
    if (cg_fill_stop(in, emit_get(in, ex, body, xb, v)))
        return in->d->status;
    copy_leaves(body, "out", v, elem->n_leaves);
    cg_array_decls(in->e, cg_fill_hole(in, "GET_ARRAYS"));
    leaf_fields(cg_fill_hole(in, "FIELDS"), elem);
    return cg_fold_store(in, n);
}
