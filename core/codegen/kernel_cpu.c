/*
 * kernel_cpu.c — filling the CPU skeletons' holes (see kernel_cpu.h).
 * The source of a kernel is the prelude followed by its skeleton.
 */
#include "core/codegen/kernel_cpu.h"

#include "core/codegen/kernel_fill.h"
#include "core/codegen/kernel_permute.h"
#include "core/ir/scan_kind.h"
#include "core/ir/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields, seed, and the partial results' loads and stores. */
static void fold_leaves(cg_inst *in, const acc_type *elem, int seeded)
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

static int build_fold(cg_inst *in, const ir_node *n, cg_kernel *k)
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
    if (!cg_fold_element(in, xs) || !cg_fold_combine(in, f) || !cg_fold_store(in, n))
        return 0;
    fold_leaves(in, elem, seeded);
    sb_printf(cg_fill_hole(in, "SRC_RANK"), "%d", (int)xs->type->rank);
    cg_fill_value(in, "LANES", cg_commutative_primitive(f) ? "8" : "1");
    cg_fill_value(in, "SEEDED", seeded ? "1" : "0");
    return 1;
}

/* ---- segmented folds ------------------------------------------------------------ */

static int build_fold_seg(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    const ir_node *fold = n->op == IR_MAP ? n->args[1] : n;
    int seeded = fold->u.seg.seeded;
    const ir_node *f = fold->args[0], *xs = fold->args[seeded ? 2 : 1];
    const acc_type *elem = xs->type->elem;
    if (elem->n_leaves == 0 || elem->n_leaves > ACC_MAX_COMPONENTS) {
        snprintf(in->why, sizeof in->why, "%s of elements with %zu leaves",
                 ir_op_name(fold->op), elem->n_leaves);
        return 0;
    }
    k->fold = fold;
    k->src = xs;
    if (!cg_fold_element(in, xs) || !cg_fold_combine(in, f) || !cg_fold_store(in, n))
        return 0;
    fold_leaves(in, elem, seeded);
    sb_printf(cg_fill_hole(in, "SRC_RANK"), "%d", (int)xs->type->rank);
    cg_fill_value(in, "LANES", cg_commutative_primitive(f) ? "8" : "1");
    cg_fill_value(in, "SEEDED", seeded ? "1" : "0");
    /* the offsets follow the arrays the scalar code reads */
    sb_printf(cg_fill_hole(in, "SEG_ARG"), "%zu", cg_n_arrays(in->e));
    return 1;
}

/* ---- scans ---------------------------------------------------------------------- */

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

static int build_scan(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    acc_scan_kind kind = n->u.scan.kind;
    int seeded = ir_scan_seeded(kind);
    ir_scan_form form = ir_scan_form_of(kind);
    const ir_node *f = n->args[0], *xs = n->args[seeded ? 2 : 1];
    const acc_type *elem = xs->type->elem;
    if (elem->n_leaves == 0 || elem->n_leaves > ACC_MAX_COMPONENTS) {
        snprintf(in->why, sizeof in->why, "scan of elements with %zu leaves",
                 elem->n_leaves);
        return 0;
    }
    k->fold = n;
    k->src = xs;
    k->reassociable = cg_commutative_primitive(f);
    if (!cg_fold_element(in, xs) || !cg_fold_combine(in, f))
        return 0;
    scan_stores(in, elem, 0, "STORE_DECLS", "STORE_BODY");
    if (form == IR_SCAN_PRIMED)
        scan_stores(in, elem, 1, "TOTAL_DECLS", "TOTAL_BODY");
    else {
        cg_fill_value(in, "TOTAL_DECLS", "");
        cg_fill_value(in, "TOTAL_BODY", "");
    }
    fold_leaves(in, elem, seeded);
    sb_printf(cg_fill_hole(in, "SRC_RANK"), "%d", (int)xs->type->rank);
    cg_fill_value(in, "LEFT", ir_scan_left(kind) ? "1" : "0");
    sb_printf(cg_fill_hole(in, "FORM"), "%d", form == IR_SCAN_FULL ? 0
                                      : form == IR_SCAN_PRIMED ? 1
                                      : form == IR_SCAN_INCLUSIVE ? 2
                                      : form == IR_SCAN_EXCLUSIVE ? 3 : 4);
    return 1;
}

/* ---- the kernel ---------------------------------------------------------------- */

typedef struct cpu_builder {
    cg_kind kind;
    const char *skeleton;
    int (*build)(cg_inst *in, const ir_node *n, cg_kernel *k);
} cpu_builder;

static int build_generate(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    (void)k;
    return cg_fill_generate(in, n);
}

static const cpu_builder generate_builder = {
    CG_KERNEL_GENERATE, "cpu/generate.c.in", build_generate};
static const cpu_builder fold_builder = {
    CG_KERNEL_FOLD, "cpu/fold.c.in", build_fold};
static const cpu_builder fold_seg_builder = {
    CG_KERNEL_FOLD_SEG, "cpu/fold_seg.c.in", build_fold_seg};
static const cpu_builder scan_builder = {
    CG_KERNEL_SCAN, "cpu/scan.c.in", build_scan};
static const cpu_builder permute_builder = {
    CG_KERNEL_PERMUTE, "cpu/permute.c.in", cg_build_permute};
static const cpu_builder expand_builder = {
    CG_KERNEL_EXPAND, "cpu/expand.c.in", cg_build_expand};

/* The skeleton of step n (a map over a consumer: the consumer's), or
 * NULL when it has none. */
static const cpu_builder *builder_of(const ir_node *n)
{
    int post_map = n->op == IR_MAP;
    const ir_node *c = post_map ? n->args[1] : n;
    switch (c->op) {
    case IR_GENERATE: return post_map ? NULL : &generate_builder;
    case IR_FOLD:
    case IR_FOLD1: return &fold_builder;
    case IR_FOLD_SEG: return &fold_seg_builder;
    case IR_SCAN: return post_map ? NULL : &scan_builder;
    case IR_PERMUTE:
    case IR_PERMUTE_PAIRS: return &permute_builder;
    case IR_EXPAND: return &expand_builder;
    default: return NULL;
    }
}

int cg_cpu_has_skeleton(const ir_node *n)
{
    return builder_of(n) != NULL;
}

static int assemble(cg_inst *in, const char *skeleton, cg_kernel *k)
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
    if (in->text[CG_MAX_HOLES].failed)
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

int cg_cpu_kernel(const ir_program *p, const ir_node *n, cg_kernel *out,
                  char *why, size_t why_len)
{
    cg_inst in;
    memset(&in, 0, sizeof in);
    memset(out, 0, sizeof *out);
    const cpu_builder *b = builder_of(n);
    if (!b) {
        snprintf(why, why_len, "%s has no CPU skeleton", ir_op_name(n->op));
        return 0;
    }
    if (!(in.e = cg_emitter_create(p)))
        return -1;
    out->kind = b->kind;
    int r = b->build(&in, n, out);
    if (r == 1)
        r = assemble(&in, b->skeleton, out);
    if (r == 1 && !cg_fill_arrays(in.e, out))
        r = -1;
    if (r != 1) {
        snprintf(why, why_len, "%s", in.why);
        cg_kernel_free(out);
    }
    for (size_t i = 0; i <= CG_MAX_HOLES; i++)
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
