/*
 * kernel_cpu.c — filling the CPU skeletons' holes (see kernel_cpu.h).
 * The source of a kernel is the prelude followed by its skeleton.
 */
#include "core/codegen/kernel_cpu.h"

#include "core/codegen/kernel_fill.h"
#include "core/ir/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fold.c.in and fold_seg.c.in: the shared holes, and lanes for a
 * commutative primitive. */
static int build_fold(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    if (!cg_fill_fold(in, n, k))
        return 0;
    cg_fill_value(in, "LANES",
                  cg_commutative_primitive(k->fold->args[0]) ? "8" : "1");
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
    CG_KERNEL_FOLD_SEG, "cpu/fold_seg.c.in", build_fold};
static const cpu_builder scan_builder = {
    CG_KERNEL_SCAN, "cpu/scan.c.in", cg_fill_scan};

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
