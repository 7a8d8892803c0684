/*
 * kernel_fill.c — what the CPU and CUDA kernel generators share when they
 * fill a skeleton's holes: the hole table, generate bodies, the elements,
 * combination and store of folds (see kernel_fill.h).
 */
#include "core/codegen/kernel_fill.h"

#include "core/ir/types.h"

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

int cg_fill_failed(cg_inst *in)
{
    snprintf(in->why, sizeof in->why, "%s", cg_error(in->e));
    return 0;
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

int cg_fill_generate(cg_inst *in, const ir_node *n)
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
    return 1;
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

int cg_fold_element(cg_inst *in, const ir_node *xs)
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
    return 1;
}


/* Locals holding the demanded leaves of a struct parameter (the copies
 * make aliasing of parameters and result harmless). */
const char **cg_param_locals(cg_inst *in, strbuf *b, const ir_node *param,
                             const char *prefix, const char *from,
                             cg_name_buf *bufs, const char **names)
{
    const acc_type *t = param->type;
    const uint8_t *d = cg_param_demand(in->e, param);
    for (size_t l = 0; l < t->n_leaves && l < ACC_MAX_COMPONENTS; l++) {
        snprintf(bufs[l], sizeof bufs[l], "%s%zu", prefix, l);
        names[l] = bufs[l];
        if (d && d[l])
            sb_printf(b, "    const %s %s = %s->l%zu;\n",
                      cg_ctype(t->leaves[l]), names[l], from, l);
    }
    return names;
}

int cg_fold_combine(cg_inst *in, const ir_node *f)
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
    return 1;
}

/* The result written: v itself, or map's g applied to it. */
int cg_fold_store(cg_inst *in, const ir_node *n)
{
    cg_name_buf vb[ACC_MAX_COMPONENTS];
    const char *vn[ACC_MAX_COMPONENTS], *out[TY_MAX_LEAVES];
    strbuf *body = cg_fill_hole(in, "STORE_BODY");
    strbuf decls = {0};
    cg_begin_function(in->e, 1);
    if (n->op == IR_MAP) {
        const ir_node *g = n->args[0];
        if (!cg_analyse(in->e, g, NULL))
            return cg_fill_failed(in);
        const char *const *args[1] = {
            cg_param_locals(in, body, ir_lambda_param(g, 0), "cv", "v", vb, vn)};
        if (!cg_emit_lambda(in->e, body, g, args, NULL, out))
            return cg_fill_failed(in);
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
    sb_free(&decls);
    return 1;
}

int cg_fill_arrays(const cg_emitter *e, cg_kernel *k)
{
    k->n_arrays = cg_n_arrays(e);
    k->checks = cg_check_sites(e);
    k->arrays = malloc((k->n_arrays ? k->n_arrays : 1) * sizeof *k->arrays);
    for (size_t i = 0; k->arrays && i < k->n_arrays; i++)
        k->arrays[i] = cg_array_node(e, i);
    return k->arrays != NULL;
}
