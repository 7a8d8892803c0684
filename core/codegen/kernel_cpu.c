/*
 * kernel_cpu.c — filling the CPU skeletons' holes (see kernel_cpu.h).
 * The source of a kernel is the prelude followed by its skeleton.
 */
#include "core/codegen/kernel_cpu.h"

#include "core/codegen/emit_c.h"
#include "core/codegen/skeletons.h"
#include "core/ir/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_HOLES = 20 }; /* fold.c.in has 13 */

/* What one instantiation accumulates: its holes' values. */
typedef struct inst {
    cg_emitter *e;
    strbuf text[MAX_HOLES + 1]; /* the last one absorbs an overflow */
    cg_hole holes[MAX_HOLES];
    size_t n_holes;
    char why[256];
} inst;

static strbuf *hole(inst *in, const char *name)
{
    if (in->n_holes == MAX_HOLES) {
        in->text[MAX_HOLES].failed = 1; /* reported as out of memory */
        return &in->text[MAX_HOLES];
    }
    size_t i = in->n_holes++;
    in->holes[i].name = name;
    return &in->text[i];
}

static void hole_value(inst *in, const char *name, const char *value)
{
    sb_puts(hole(in, name), value);
}

static const char *const index_names[2][ACC_MAX_RANK] = {
    {"acc_ix[0]", "acc_ix[1]", "acc_ix[2]", "acc_ix[3]", "acc_ix[4]",
     "acc_ix[5]", "acc_ix[6]", "acc_ix[7]"},
    {"R->ix[0]", "R->ix[1]", "R->ix[2]", "R->ix[3]", "R->ix[4]",
     "R->ix[5]", "R->ix[6]", "R->ix[7]"}};

static int any_leaf(const uint8_t *d, size_t n)
{
    for (size_t i = 0; d && i < n; i++)
        if (d[i])
            return 1;
    return 0;
}

static int emit_failed(inst *in)
{
    snprintf(in->why, sizeof in->why, "%s", cg_error(in->e));
    return 0;
}

/* Output buffer declarations and stores of result leaves `x`. */
static void stores(strbuf *decls, strbuf *body, const acc_type *elem,
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

static int build_generate(inst *in, const ir_node *n)
{
    const ir_node *lam = n->args[1];
    int32_t rank = n->type->rank;
    const char *out[TY_MAX_LEAVES];
    const char *const *args[1] = {index_names[0]};
    if (!cg_analyse(in->e, lam, NULL))
        return emit_failed(in);
    int needs = any_leaf(cg_param_demand(in->e, ir_lambda_param(lam, 0)),
                         (size_t)rank);
    cg_begin_function(in->e, 1);
    strbuf *body = hole(in, "BODY");
    if (!cg_emit_lambda(in->e, body, lam, args, NULL, out))
        return emit_failed(in);
    stores(hole(in, "OUTPUTS"), body, n->type->elem, out);
    cg_array_decls(in->e, hole(in, "ARRAYS"));
    sb_printf(hole(in, "RANK"), "%d", (int)rank);
    hole_value(in, "NEEDS_INDEX", needs ? "1" : "0");
    return 1;
}

/* ---- fold ---------------------------------------------------------------------- */

/* f is a primitive that is commutative on its type, applied to its two
 * parameters: lanes may then take elements in any interleaving. */
static int commutative_primitive(const ir_node *f)
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

static int fold_element(inst *in, const ir_node *xs)
{
    const char *out[TY_MAX_LEAVES];
    strbuf *body = hole(in, "ELEM_BODY");
    cg_begin_function(in->e, 1);
    if (xs->op == IR_GENERATE) {
        const char *ix[ACC_MAX_RANK];
        const char *const *args[1] = {ix};
        int32_t r = xs->type->rank;
        for (int32_t d = 0; d < r; d++)
            ix[d] = d < r - 1 ? index_names[1][d] : "j";
        if (!cg_analyse(in->e, xs->args[1], NULL) ||
            !cg_emit_lambda(in->e, body, xs->args[1], args, NULL, out))
            return emit_failed(in);
    } else if (!cg_emit_load(in->e, body, xs, "acc_pos", out)) {
        return emit_failed(in);
    }
    for (size_t l = 0; l < xs->type->elem->n_leaves; l++)
        sb_printf(body, "    out->l%zu = %s;\n", l, out[l]);
    cg_array_decls(in->e, hole(in, "ELEM_ARRAYS"));
    return 1;
}

typedef char name_buf[24];

/* Locals holding the demanded leaves of a struct parameter (the copies
 * make aliasing of parameters and result harmless). */
static const char **param_locals(inst *in, strbuf *b, const ir_node *param,
                                 const char *prefix, const char *from,
                                 name_buf *bufs, const char **names)
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

static int fold_combine(inst *in, const ir_node *f)
{
    name_buf xb[ACC_MAX_COMPONENTS], yb[ACC_MAX_COMPONENTS];
    const char *xn[ACC_MAX_COMPONENTS], *yn[ACC_MAX_COMPONENTS];
    const char *out[TY_MAX_LEAVES];
    if (!cg_analyse(in->e, f, NULL))
        return emit_failed(in);
    cg_begin_function(in->e, 1);
    strbuf *body = hole(in, "COMBINE_BODY");
    const char *const *args[2] = {
        param_locals(in, body, ir_lambda_param(f, 0), "cx", "x", xb, xn),
        param_locals(in, body, ir_lambda_param(f, 1), "cy", "y", yb, yn)};
    if (!cg_emit_lambda(in->e, body, f, args, NULL, out))
        return emit_failed(in);
    for (size_t l = 0; l < ir_lambda_body(f)->type->n_leaves; l++)
        sb_printf(body, "    out->l%zu = %s;\n", l, out[l]);
    cg_array_decls(in->e, hole(in, "COMBINE_ARRAYS"));
    return 1;
}

/* The result written: v itself, or map's g applied to it. */
static int fold_store(inst *in, const ir_node *n)
{
    name_buf vb[ACC_MAX_COMPONENTS];
    const char *vn[ACC_MAX_COMPONENTS], *out[TY_MAX_LEAVES];
    strbuf *body = hole(in, "STORE_BODY");
    strbuf decls = {0};
    cg_begin_function(in->e, 1);
    if (n->op == IR_MAP) {
        const ir_node *g = n->args[0];
        if (!cg_analyse(in->e, g, NULL))
            return emit_failed(in);
        const char *const *args[1] = {
            param_locals(in, body, ir_lambda_param(g, 0), "cv", "v", vb, vn)};
        if (!cg_emit_lambda(in->e, body, g, args, NULL, out))
            return emit_failed(in);
    } else {
        for (size_t l = 0; l < n->type->elem->n_leaves; l++) {
            snprintf(vb[l], sizeof vb[l], "v->l%zu", l);
            out[l] = vb[l];
        }
    }
    stores(&decls, body, n->type->elem, out);
    strbuf *arrays = hole(in, "STORE_ARRAYS");
    cg_array_decls(in->e, arrays);
    sb_puts(arrays, decls.text ? decls.text : "");
    sb_free(&decls);
    return 1;
}

/* Fields, seed, and the partial results' loads and stores. */
static void fold_leaves(inst *in, const acc_type *elem, int seeded)
{
    strbuf *fields = hole(in, "FIELDS"), *seed = hole(in, "SEED_LOAD");
    strbuf *pst = hole(in, "PART_STORE"), *pld = hole(in, "PART_LOAD");
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

static int build_fold(inst *in, const ir_node *n, cg_kernel *k)
{
    const ir_node *fold = n->op == IR_MAP ? n->args[1] : n;
    int seeded = fold->op == IR_FOLD;
    const ir_node *f = fold->args[0], *xs = fold->args[seeded ? 2 : 1];
    const acc_type *elem = xs->type->elem;
    if (elem->n_leaves == 0 || elem->n_leaves > ACC_MAX_COMPONENTS) {
        snprintf(in->why, sizeof in->why, "fold of elements with %zu leaves",
                 elem->n_leaves);
        return 0;
    }
    k->fold = fold;
    k->src = xs;
    if (!fold_element(in, xs) || !fold_combine(in, f) || !fold_store(in, n))
        return 0;
    fold_leaves(in, elem, seeded);
    sb_printf(hole(in, "SRC_RANK"), "%d", (int)xs->type->rank);
    hole_value(in, "LANES", commutative_primitive(f) ? "8" : "1");
    hole_value(in, "SEEDED", seeded ? "1" : "0");
    return 1;
}

/* ---- the kernel ---------------------------------------------------------------- */

int cg_cpu_has_skeleton(const ir_node *n)
{
    if (n->op == IR_GENERATE)
        return 1;
    if (n->op == IR_FOLD || n->op == IR_FOLD1)
        return 1;
    if (n->op == IR_MAP) {
        const ir_node *a = n->args[1];
        return a->op == IR_FOLD || a->op == IR_FOLD1;
    }
    return 0;
}

static int assemble(inst *in, const char *skeleton, cg_kernel *k)
{
    char missing[CG_HOLE_NAME_MAX];
    strbuf src = {0};
    const char *prelude = cg_skeleton("cpu/prelude.h.in");
    const char *tmpl = cg_skeleton(skeleton);
    for (size_t i = 0; i < in->n_holes; i++) {
        in->holes[i].value = in->text[i].text ? in->text[i].text : "";
        if (in->text[i].failed)
            src.failed = 1;
    }
    if (in->text[MAX_HOLES].failed)
        src.failed = 1;
    sb_puts(&src, prelude);
    if (!tmpl || !cg_fill(&src, tmpl, in->holes, in->n_holes, missing)) {
        snprintf(in->why, sizeof in->why, "skeleton %s: %s", skeleton,
                 tmpl ? "a hole has no value" : "not embedded");
        sb_free(&src);
        return 0;
    }
    if (src.failed) {
        sb_free(&src);
        return -1;
    }
    k->source = src.text;
    return 1;
}

static int copy_arrays(const cg_emitter *e, cg_kernel *k)
{
    k->n_arrays = cg_n_arrays(e);
    k->arrays = malloc((k->n_arrays ? k->n_arrays : 1) * sizeof *k->arrays);
    for (size_t i = 0; k->arrays && i < k->n_arrays; i++)
        k->arrays[i] = cg_array_node(e, i);
    return k->arrays != NULL;
}

int cg_cpu_kernel(const ir_program *p, const ir_node *n, cg_kernel *out,
                  char *why, size_t why_len)
{
    inst in;
    memset(&in, 0, sizeof in);
    memset(out, 0, sizeof *out);
    int r = 0;
    if (!cg_cpu_has_skeleton(n)) {
        snprintf(why, why_len, "%s has no CPU skeleton", ir_op_name(n->op));
        return 0;
    }
    if (!(in.e = cg_emitter_create(p)))
        return -1;
    out->kind = n->op == IR_GENERATE ? CG_KERNEL_GENERATE : CG_KERNEL_FOLD;
    r = out->kind == CG_KERNEL_GENERATE ? build_generate(&in, n)
                                        : build_fold(&in, n, out);
    if (r == 1)
        r = assemble(&in, out->kind == CG_KERNEL_GENERATE ? "cpu/generate.c.in"
                                                          : "cpu/fold.c.in",
                     out);
    if (r == 1 && !copy_arrays(in.e, out))
        r = -1;
    if (r != 1) {
        snprintf(why, why_len, "%s", in.why);
        cg_kernel_free(out);
    }
    for (size_t i = 0; i <= MAX_HOLES; i++)
        sb_free(&in.text[i]);
    cg_emitter_free(in.e);
    return r;
}

void cg_kernel_free(cg_kernel *k)
{
    free(k->source);
    free(k->arrays);
    memset(k, 0, sizeof *k);
}
