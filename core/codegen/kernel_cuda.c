/*
 * kernel_cuda.c — filling the CUDA skeletons' holes (see kernel_cuda.h).
 * The holes are those of the CPU skeletons, filled the same way from the
 * same emitter, plus the accumulator's warp shuffle; the source is the
 * CUDA prelude, the shared scalar helpers, then the skeleton.
 */
#include "core/codegen/kernel_cuda.h"

#include "core/codegen/kernel_fill.h"
#include "core/ir/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields, their shuffles, seed, and the partial results' loads and
 * stores.  __shfl_down_sync has overloads for int, unsigned, long long,
 * unsigned long long, float and double; 8- and 16-bit leaves promote to
 * int and are converted back. */
static void fold_leaves(cg_inst *in, const acc_type *elem, int seeded)
{
    strbuf *fields = cg_fill_hole(in, "FIELDS"), *seed = cg_fill_hole(in, "SEED_LOAD");
    strbuf *shfl = cg_fill_hole(in, "SHFL_BODY");
    strbuf *pst = cg_fill_hole(in, "PART_STORE"), *pld = cg_fill_hole(in, "PART_LOAD");
    if (!seeded)
        sb_puts(seed, "        memset(&z, 0, sizeof z);\n");
    for (size_t l = 0; l < elem->n_leaves; l++) {
        acc_scalar s = elem->leaves[l];
        const char *t = cg_ctype(s);
        sb_printf(fields, "    %s l%zu;\n", t, l);
        sb_printf(shfl, "    o.l%zu = (%s)__shfl_down_sync(ACC_FULL_MASK, "
                  "v->l%zu, off);\n", l, t, l);
        if (seeded)
            sb_printf(seed, "        z.l%zu = (%s)A->seed[%zu].%s;\n", l, t, l,
                      cg_kval_field(s));
        sb_printf(pst, "            ((%s *)A->part[%zu])[p] = acc.l%zu;\n", t,
                  l, l);
        sb_printf(pld, "            x.l%zu = ((const %s *)A->part[%zu])[p];\n",
                  l, t, l);
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
    cg_fill_value(in, "STRIDED", cg_commutative_primitive(f) ? "1" : "0");
    cg_fill_value(in, "SEEDED", seeded ? "1" : "0");
    return 1;
}

/* ---- the kernel ---------------------------------------------------------------- */

int cg_cuda_has_skeleton(const ir_node *n)
{
    if (n->op == IR_GENERATE || n->op == IR_FOLD || n->op == IR_FOLD1)
        return 1;
    if (n->op == IR_MAP) {
        const ir_node *a = n->args[1];
        return a->op == IR_FOLD || a->op == IR_FOLD1;
    }
    return 0;
}

/* The CPU prelude's shared part: from its "BEGIN scalar helpers" line to
 * the end of its "END scalar helpers" line. */
static int scalar_helpers(strbuf *out)
{
    const char *cpu = cg_skeleton("cpu/prelude.h.in");
    const char *b = cpu ? strstr(cpu, "/* ---- BEGIN scalar helpers") : NULL;
    const char *e = b ? strstr(b, "/* ---- END scalar helpers") : NULL;
    const char *nl = e ? strchr(e, '\n') : NULL;
    if (!nl)
        return 0;
    sb_printf(out, "%.*s", (int)(nl + 1 - b), b);
    return 1;
}

static int assemble(cg_inst *in, const char *skeleton, cg_kernel *k)
{
    char missing[CG_HOLE_NAME_MAX];
    strbuf src = {0};
    const char *prelude = cg_skeleton("cuda/prelude.cuh.in");
    const char *tmpl = cg_skeleton(skeleton);
    for (size_t i = 0; i < in->n_holes; i++) {
        in->holes[i].value = in->text[i].text ? in->text[i].text : "";
        if (in->text[i].failed)
            src.failed = 1;
    }
    if (in->text[CG_MAX_HOLES].failed)
        src.failed = 1;
    if (!prelude || !tmpl) {
        snprintf(in->why, sizeof in->why, "skeleton %s not embedded",
                 prelude ? skeleton : "cuda/prelude.cuh.in");
        sb_free(&src);
        return 0;
    }
    sb_puts(&src, prelude);
    if (!scalar_helpers(&src)) {
        snprintf(in->why, sizeof in->why, "cpu/prelude.h.in has no "
                 "\"BEGIN scalar helpers\" .. \"END scalar helpers\" part");
        sb_free(&src);
        return 0;
    }
    if (!cg_fill(&src, tmpl, in->holes, in->n_holes, missing)) {
        snprintf(in->why, sizeof in->why, "skeleton %s: hole %s has no value",
                 skeleton, missing);
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

int cg_cuda_kernel(const ir_program *p, const ir_node *n, cg_kernel *out,
                   char *why, size_t why_len)
{
    cg_inst in;
    memset(&in, 0, sizeof in);
    memset(out, 0, sizeof *out);
    int r = 0;
    if (!cg_cuda_has_skeleton(n)) {
        snprintf(why, why_len, "%s has no CUDA skeleton", ir_op_name(n->op));
        return 0;
    }
    if (!(in.e = cg_emitter_create(p)))
        return -1;
    out->kind = n->op == IR_GENERATE ? CG_KERNEL_GENERATE : CG_KERNEL_FOLD;
    r = out->kind == CG_KERNEL_GENERATE ? cg_fill_generate(&in, n)
                                        : build_fold(&in, n, out);
    if (r == 1)
        r = assemble(&in, out->kind == CG_KERNEL_GENERATE
                              ? "cuda/generate.cu.in" : "cuda/fold.cu.in",
                     out);
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
