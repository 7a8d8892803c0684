/*
 * kernel_fill.c — what the CPU and CUDA kernel generators share when they
 * fill a skeleton's holes: the hole table, generate bodies, the elements,
 * combination and store of folds, and the holes every fold, segmented fold
 * and scan skeleton has on both targets (see kernel_fill.h).
 */
#include "core/codegen/kernel_fill.h"

#include "core/base/mem.h"
#include "core/ir/scan_kind.h"
#include "core/ir/types.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

strbuf *cg_fill_hole(cg_inst *in, const char *name)
{
    if (in->n_holes == CG_MAX_HOLES) {
        in->text[CG_MAX_HOLES].failed = 1; /* reported as out of memory */
        return &in->text[CG_MAX_HOLES];
    }
    size_t i = in->n_holes++;
    in->holes[i].name = name;
    return &in->text[i];
}

void cg_fill_value(cg_inst *in, const char *name, const char *value)
{
    sb_puts(cg_fill_hole(in, name), value);
}

const char *const cg_index_names[2][ACC_MAX_RANK] = {
    {"acc_ix[0]", "acc_ix[1]", "acc_ix[2]", "acc_ix[3]", "acc_ix[4]",
     "acc_ix[5]", "acc_ix[6]", "acc_ix[7]"},
    {"R->ix[0]", "R->ix[1]", "R->ix[2]", "R->ix[3]", "R->ix[4]",
     "R->ix[5]", "R->ix[6]", "R->ix[7]"}};

int cg_any_leaf(const uint8_t *d, size_t n)
{
    for (size_t i = 0; d && i < n; i++)
        if (d[i])
            return 1;
    return 0;
}

acc_status cg_fill_refuse(cg_inst *in, const char *fmt, ...)
{
    if (in->why[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(in->why, sizeof in->why, fmt, ap);
        va_end(ap);
    }
    return ACC_OK;
}

acc_status cg_fill_failed(cg_inst *in)
{
    if (cg_out_of_memory(in->e))
        return diag_oom(in->d, "acc_compile");
    return cg_fill_refuse(in, "%s", cg_error(in->e));
}

/* Output buffer declarations and stores of result leaves `x`. */
void cg_fill_stores(strbuf *decls, strbuf *body, const acc_type *elem,
                   const char *const *x)
{
    for (size_t l = 0; l < elem->n_leaves; l++) {
        const char *t = cg_ctype(elem->leaves[l]);
        sb_printf(decls, "    %s *const acc_o%zu = (%s *)A->out[%zu];\n", t, l,
                  t, l);
        sb_printf(body, "    acc_o%zu[acc_pos] = %s;\n", l, x[l]);
    }
}

/* ---- generate ------------------------------------------------------------------ */

acc_status cg_fill_generate(cg_inst *in, const ir_node *n)
{
    const ir_node *lam = n->args[1];
    int32_t rank = n->type->rank;
    const char *out[TY_MAX_LEAVES];
    const char *const *args[1] = {cg_index_names[0]};
    if (!cg_analyse(in->e, lam, NULL))
        return cg_fill_failed(in);
    int needs = cg_any_leaf(cg_param_demand(in->e, ir_lambda_param(lam, 0)),
                         (size_t)rank);
    cg_begin_function(in->e, 1);
    strbuf *body = cg_fill_hole(in, "BODY");
    if (!cg_emit_lambda(in->e, body, lam, args, NULL, out))
        return cg_fill_failed(in);
    cg_fill_stores(cg_fill_hole(in, "OUTPUTS"), body, n->type->elem, out);
    cg_array_decls(in->e, cg_fill_hole(in, "ARRAYS"));
    sb_printf(cg_fill_hole(in, "RANK"), "%d", (int)rank);
    cg_fill_value(in, "NEEDS_INDEX", needs ? "1" : "0");
    return ACC_OK;
}

/* ---- fold ---------------------------------------------------------------------- */

/* f is a primitive that is commutative on its type, applied to its two
 * parameters: lanes may then take elements in any interleaving. */
int cg_commutative_primitive(const ir_node *f)
{
    const ir_node *b = ir_lambda_body(f);
    if (f->u.lambda.n_params != 2 || b->op != IR_PRIM || b->n_args != 2)
        return 0;
    uint32_t s0 = ir_lambda_param(f, 0)->u.param.slot;
    uint32_t s1 = ir_lambda_param(f, 1)->u.param.slot;
    const ir_node *x = b->args[0], *y = b->args[1];
    if (x->op != IR_PARAM || y->op != IR_PARAM ||
        !((x->u.param.slot == s0 && y->u.param.slot == s1) ||
          (x->u.param.slot == s1 && y->u.param.slot == s0)))
        return 0;
    acc_scalar t = b->type->scalar;
    switch (b->u.prim) {
    case ACC_OP_ADD: case ACC_OP_MUL: return t != ACC_BOOL;
    case ACC_OP_MIN: case ACC_OP_MAX: case ACC_OP_BAND: case ACC_OP_BOR:
    case ACC_OP_BXOR: return !ty_is_floating(t);
    case ACC_OP_LAND: case ACC_OP_LOR: return 1;
    default: return 0;
    }
}

acc_status cg_fold_element(cg_inst *in, const ir_node *xs)
{
    const char *out[TY_MAX_LEAVES];
    strbuf *body = cg_fill_hole(in, "ELEM_BODY");
    cg_begin_function(in->e, 1);
    if (xs->op == IR_GENERATE) {
        const char *ix[ACC_MAX_RANK];
        const char *const *args[1] = {ix};
        int32_t r = xs->type->rank;
        for (int32_t d = 0; d < r; d++)
            ix[d] = d < r - 1 ? cg_index_names[1][d] : "j";
        if (!cg_analyse(in->e, xs->args[1], NULL) ||
            !cg_emit_lambda(in->e, body, xs->args[1], args, NULL, out))
            return cg_fill_failed(in);
    } else if (!cg_emit_load(in->e, body, xs, "acc_pos", out)) {
        return cg_fill_failed(in);
    }
    for (size_t l = 0; l < xs->type->elem->n_leaves; l++)
        sb_printf(body, "    out->l%zu = %s;\n", l, out[l]);
    cg_array_decls(in->e, cg_fill_hole(in, "ELEM_ARRAYS"));
    return ACC_OK;
}


/* Locals holding the demanded leaves of a struct parameter (the copies
 * make aliasing of parameters and result harmless).  A leaf nothing
 * demands has no local and no name (NULL): the emitter's loop hoisting
 * checks that a parameter's leaves are all named before it moves a term
 * over it out of a loop, and it walks dead code too (the first component
 * of prj 1 (u8 (prj 0 x), v) in a loop's body once used a leaf that was
 * named but never declared: the kernel did not compile; fuzz_diff
 * --single-fold seed 1122). */
const char **cg_param_locals(cg_inst *in, strbuf *b, const ir_node *param,
                             const char *prefix, const char *from,
                             cg_name_buf *bufs, const char **names)
{
    const acc_type *t = param->type;
    const uint8_t *d = cg_param_demand(in->e, param);
    for (size_t l = 0; l < t->n_leaves && l < ACC_MAX_COMPONENTS; l++) {
        snprintf(bufs[l], sizeof bufs[l], "%s%zu", prefix, l);
        names[l] = d && d[l] ? bufs[l] : NULL;
        if (names[l])
            sb_printf(b, "    const %s %s = %s->l%zu;\n",
                      cg_ctype(t->leaves[l]), names[l], from, l);
    }
    return names;
}

acc_status cg_fold_combine(cg_inst *in, const ir_node *f)
{
    cg_name_buf xb[ACC_MAX_COMPONENTS], yb[ACC_MAX_COMPONENTS];
    const char *xn[ACC_MAX_COMPONENTS], *yn[ACC_MAX_COMPONENTS];
    const char *out[TY_MAX_LEAVES];
    if (!cg_analyse(in->e, f, NULL))
        return cg_fill_failed(in);
    cg_begin_function(in->e, 1);
    strbuf *body = cg_fill_hole(in, "COMBINE_BODY");
    const char *const *args[2] = {
        cg_param_locals(in, body, ir_lambda_param(f, 0), "cx", "x", xb, xn),
        cg_param_locals(in, body, ir_lambda_param(f, 1), "cy", "y", yb, yn)};
    if (!cg_emit_lambda(in->e, body, f, args, NULL, out))
        return cg_fill_failed(in);
    for (size_t l = 0; l < ir_lambda_body(f)->type->n_leaves; l++)
        sb_printf(body, "    out->l%zu = %s;\n", l, out[l]);
    cg_array_decls(in->e, cg_fill_hole(in, "COMBINE_ARRAYS"));
    return ACC_OK;
}

const ir_node *cg_post_map_base(const ir_node *n)
{
    while (n->op == IR_MAP)
        n = n->args[1];
    return n;
}

int cg_maps_into(const ir_node *c)
{
    return !((c->op == IR_SCAN || c->op == IR_SCAN_SEG) &&
             ir_scan_form_of(c->u.scan.kind) == IR_SCAN_PRIMED);
}

/* The maps of step n (a chain of maps) applied, the innermost first, to
 * the leaves `base` of its argument's element (NULL: those of *v, copied
 * to locals), into out. */
static acc_status post_maps(cg_inst *in, strbuf *body, const ir_node *n,
                            const char *const *base, cg_name_buf *vb,
                            const char **out)
{
    const ir_node *g = n->args[0], *a = n->args[1];
    const char *x[TY_MAX_LEAVES], *vn[ACC_MAX_COMPONENTS];
    const char *const *args[1] = {x};
    if (a->op == IR_MAP &&
        cg_fill_stop(in, post_maps(in, body, a, base, vb, x)))
        return in->d->status;
    if (!cg_analyse(in->e, g, NULL))
        return cg_fill_failed(in);
    if (a->op != IR_MAP)
        args[0] = base ? base
                       : cg_param_locals(in, body, ir_lambda_param(g, 0), "cv",
                                         "v", vb, vn);
    if (!cg_emit_lambda(in->e, body, g, args, NULL, out))
        return cg_fill_failed(in);
    return ACC_OK;
}

acc_status cg_fill_map_over(cg_inst *in, const ir_node *n)
{
    cg_name_buf vb[ACC_MAX_COMPONENTS];
    const char *x[TY_MAX_LEAVES], *out[TY_MAX_LEAVES];
    strbuf *body = cg_fill_hole(in, "BODY");
    cg_begin_function(in->e, 1);
    if (!cg_emit_load(in->e, body, cg_post_map_base(n), "acc_pos", x))
        return cg_fill_failed(in);
    if (cg_fill_stop(in, post_maps(in, body, n, x, vb, out)))
        return in->d->status;
    cg_fill_stores(cg_fill_hole(in, "OUTPUTS"), body, n->type->elem, out);
    cg_array_decls(in->e, cg_fill_hole(in, "ARRAYS"));
    sb_printf(cg_fill_hole(in, "RANK"), "%d", (int)n->type->rank);
    cg_fill_value(in, "NEEDS_INDEX", "0");
    return ACC_OK;
}

acc_status cg_build_map_over(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    k->src = cg_post_map_base(n);
    return cg_fill_map_over(in, n);
}

/* The result written: v itself, or the maps' functions applied to it. */
acc_status cg_fold_store(cg_inst *in, const ir_node *n)
{
    cg_name_buf vb[ACC_MAX_COMPONENTS];
    const char *out[TY_MAX_LEAVES];
    strbuf *body = cg_fill_hole(in, "STORE_BODY");
    strbuf decls = {0};
    cg_begin_function(in->e, 1);
    if (n->op == IR_MAP) {
        if (cg_fill_stop(in, post_maps(in, body, n, NULL, vb, out)))
            return in->d->status;
    } else {
        for (size_t l = 0; l < n->type->elem->n_leaves; l++) {
            snprintf(vb[l], sizeof vb[l], "v->l%zu", l);
            out[l] = vb[l];
        }
    }
    cg_fill_stores(&decls, body, n->type->elem, out);
    strbuf *arrays = cg_fill_hole(in, "STORE_ARRAYS");
    cg_array_decls(in->e, arrays);
    sb_puts(arrays, decls.text ? decls.text : "");
    arrays->failed |= decls.failed; /* reported as out of memory */
    sb_free(&decls);
    return ACC_OK;
}

/* ---- the holes of fold and scan skeletons, both targets ------------------------- */

void cg_fill_leaves(cg_inst *in, const acc_type *elem, int seeded)
{
    strbuf *fields = cg_fill_hole(in, "FIELDS"), *seed = cg_fill_hole(in, "SEED_LOAD");
    strbuf *pst = cg_fill_hole(in, "PART_STORE"), *pld = cg_fill_hole(in, "PART_LOAD");
    if (!seeded)
        sb_puts(seed, "        memset(&z, 0, sizeof z);\n");
    for (size_t l = 0; l < elem->n_leaves; l++) {
        acc_scalar s = elem->leaves[l];
        const char *t = cg_ctype(s);
        sb_printf(fields, "    %s l%zu;\n", t, l);
        if (seeded)
            sb_printf(seed, "        z.l%zu = (%s)A->seed[%zu].%s;\n", l, t, l,
                      cg_kval_field(s));
        sb_printf(pst, "    ((%s *)A->part[%zu])[p] = acc.l%zu;\n", t, l, l);
        sb_printf(pld, "        x.l%zu = ((const %s *)A->part[%zu])[p];\n", l,
                  t, l);
    }
}

/* An accumulator holds at most ACC_MAX_COMPONENTS leaves (else refused). */
static acc_status leaves_fit(cg_inst *in, const char *op,
                             const acc_type *elem)
{
    if (elem->n_leaves > 0 && elem->n_leaves <= ACC_MAX_COMPONENTS)
        return ACC_OK;
    return cg_fill_refuse(in, "%s of elements with %zu leaves", op,
                          elem->n_leaves);
}

acc_status cg_fill_fold(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    const ir_node *fold = cg_post_map_base(n);
    int segmented = fold->op == IR_FOLD_SEG;
    int seeded = segmented ? fold->u.seg.seeded : fold->op == IR_FOLD;
    const ir_node *f = fold->args[0], *xs = fold->args[seeded ? 2 : 1];
    const acc_type *elem = xs->type->elem;
    if (cg_fill_stop(in, leaves_fit(in, segmented ? ir_fold_seg_name(fold)
                                                  : ir_op_name(fold->op),
                                    elem)))
        return in->d->status;
    k->fold = fold;
    k->src = xs;
    if (cg_fill_stop(in, cg_fold_element(in, xs)) ||
        cg_fill_stop(in, cg_fold_combine(in, f)) ||
        cg_fill_stop(in, cg_fold_store(in, n)))
        return in->d->status;
    cg_fill_leaves(in, elem, seeded);
    sb_printf(cg_fill_hole(in, "SRC_RANK"), "%d", (int)xs->type->rank);
    cg_fill_value(in, "SEEDED", seeded ? "1" : "0");
    /* the segment offsets follow the arrays the scalar code reads */
    if (segmented)
        sb_printf(cg_fill_hole(in, "SEG_ARG"), "%zu", cg_n_arrays(in->e));
    return ACC_OK;
}

/* Stores of *v into result `which` (0: the scan, 1: the primed totals). */
static void scan_stores(cg_inst *in, const acc_type *elem, int which,
                        const char *decls_hole, const char *body_hole)
{
    strbuf *decls = cg_fill_hole(in, decls_hole), *body = cg_fill_hole(in, body_hole);
    for (size_t l = 0; l < elem->n_leaves; l++) {
        const char *t = cg_ctype(elem->leaves[l]);
        sb_printf(decls, "    %s *const acc_o%zu = (%s *)A->out[%zu];\n", t,
                  l, t, (size_t)which * elem->n_leaves + l);
        sb_printf(body, "    acc_o%zu[acc_pos] = v->l%zu;\n", l, l);
    }
}

/* The scan's outputs: a primed scan's two results, or the one result with
 * the post-maps applied when n is a map over the scan. */
static acc_status scan_outputs(cg_inst *in, const ir_node *n,
                               const acc_type *elem, ir_scan_form form)
{
    if (form == IR_SCAN_PRIMED) {
        scan_stores(in, elem, 0, "STORE_ARRAYS", "STORE_BODY");
        scan_stores(in, elem, 1, "TOTAL_DECLS", "TOTAL_BODY");
        return ACC_OK;
    }
    cg_fill_value(in, "TOTAL_DECLS", "");
    cg_fill_value(in, "TOTAL_BODY", "");
    return cg_fold_store(in, n);
}

acc_status cg_fill_scan(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    const ir_node *scan = cg_post_map_base(n);
    acc_scan_kind kind = scan->u.scan.kind;
    int seeded = ir_scan_seeded(kind), segmented = scan->op == IR_SCAN_SEG;
    ir_scan_form form = ir_scan_form_of(kind);
    const ir_node *f = scan->args[0], *xs = scan->args[seeded ? 2 : 1];
    const acc_type *elem = xs->type->elem;
    if (cg_fill_stop(in, leaves_fit(in, ir_scan_name(kind, 0), elem)))
        return in->d->status;
    k->fold = scan;
    k->src = xs;
    k->reassociable = cg_commutative_primitive(f);
    if (cg_fill_stop(in, cg_fold_element(in, xs)) ||
        cg_fill_stop(in, cg_fold_combine(in, f)) ||
        cg_fill_stop(in, scan_outputs(in, n, elem, form)))
        return in->d->status;
    cg_fill_leaves(in, elem, seeded);
    sb_printf(cg_fill_hole(in, "SRC_RANK"), "%d", (int)xs->type->rank);
    cg_fill_value(in, "LEFT", ir_scan_left(kind) ? "1" : "0");
    sb_printf(cg_fill_hole(in, "FORM"), "%d", form == IR_SCAN_FULL ? 0
                                      : form == IR_SCAN_PRIMED ? 1
                                      : form == IR_SCAN_INCLUSIVE ? 2
                                      : form == IR_SCAN_EXCLUSIVE ? 3 : 4);
    /* segmented scans: the offsets follow the arrays the scalar code
     * reads; TAIL computes an embedded producer's elements past the last
     * segment for their checks */
    cg_fill_value(in, "SEGMENTED", segmented ? "1" : "0");
    sb_printf(cg_fill_hole(in, "SEG_ARG"), "%zu", cg_n_arrays(in->e));
    cg_fill_value(in, "TAIL", segmented && xs->op == IR_GENERATE ? "1" : "0");
    return ACC_OK;
}

/* ---- the kernel ----------------------------------------------------------------- */

acc_status cg_fill_template(cg_inst *in, strbuf *out, const char *name)
{
    char missing[CG_HOLE_NAME_MAX];
    const char *tmpl = cg_skeleton(name);
    int failed = in->text[CG_MAX_HOLES].failed;
    for (size_t i = 0; i < in->n_holes; i++) {
        in->holes[i].value = in->text[i].text ? in->text[i].text : "";
        failed |= in->text[i].failed;
    }
    if (!tmpl)
        return cg_fill_refuse(in, "skeleton %s is not embedded", name);
    if (!cg_fill(out, tmpl, in->holes, in->n_holes, missing))
        return cg_fill_refuse(in, "skeleton %s: hole %s has no value", name,
                              missing);
    return failed || out->failed ? diag_oom(in->d, "acc_compile") : ACC_OK;
}

/* The result leaves of step n: those of its array, or of each array of a
 * tuple of arrays (a primed scan's). */
static size_t result_leaves(const acc_type *t)
{
    if (t->kind == ACC_TYPE_ARRAY)
        return t->elem->n_leaves;
    size_t k = 0;
    for (size_t i = 0; i < t->n_leaves; i++)
        k += t->array_leaves[i]->elem->n_leaves;
    return k;
}

acc_status cg_fill_kernel(const ir_program *p, const ir_node *n,
                          const cg_builder *b, cg_assemble_fn assemble,
                          cg_kernel *out, cg_outcome *o, diag *d)
{
    cg_inst in;
    memset(&in, 0, sizeof in);
    memset(out, 0, sizeof *out);
    o->built = 0;
    o->why_not[0] = '\0';
    if (!(in.e = cg_emitter_create(p)))
        return diag_oom(d, "acc_compile");
    in.d = d;
    out->kind = b->kind;
    if (!cg_fill_stop(&in, b->build(&in, n, out))) {
        /* every skeleton may use them: the arrays the scalar code reads,
         * and the result pointers (A->in and A->out's lengths, without
         * a skeleton's extra arguments) */
        sb_printf(cg_fill_hole(&in, "N_ARRAYS"), "%zu", cg_n_arrays(in.e));
        sb_printf(cg_fill_hole(&in, "N_OUT"), "%zu", result_leaves(n->type));
        if (!cg_fill_stop(&in, assemble(&in, b->skeleton, out)))
            cg_fill_arrays(in.e, out, d);
    }
    /* a failed text or the emitter out of memory is never a reason, also
     * where a builder stopped before the texts were joined */
    int oom = cg_out_of_memory(in.e);
    for (size_t i = 0; i <= CG_MAX_HOLES; i++)
        oom |= in.text[i].failed;
    if (oom)
        diag_oom(d, "acc_compile");
    o->built = diag_ok(d) && in.why[0] == '\0';
    if (diag_ok(d) && !o->built)
        snprintf(o->why_not, sizeof o->why_not, "%s", in.why);
    if (!o->built)
        cg_kernel_free(out);
    for (size_t i = 0; i <= CG_MAX_HOLES; i++)
        sb_free(&in.text[i]);
    cg_emitter_free(in.e);
    return d->status;
}

acc_status cg_fill_arrays(const cg_emitter *e, cg_kernel *k, diag *d)
{
    k->n_arrays = cg_n_arrays(e);
    k->checks = cg_check_sites(e);
    k->arrays = mem_alloc((k->n_arrays ? k->n_arrays : 1) * sizeof *k->arrays);
    if (!k->arrays)
        return diag_oom(d, "acc_compile");
    for (size_t i = 0; i < k->n_arrays; i++)
        k->arrays[i] = cg_array_node(e, i);
    return ACC_OK;
}
