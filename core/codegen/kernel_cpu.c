/*
 * kernel_cpu.c — filling the CPU skeletons' holes (see kernel_cpu.h).
 * The source of a kernel is the prelude followed by its skeleton.
 */
#include "core/codegen/kernel_cpu.h"

#include "core/codegen/kernel_fill.h"
#include "core/codegen/kernel_permute.h"
#include "core/codegen/kernel_stencil.h"
#include "core/codegen/tile.h"
#include "core/ir/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Interleaved accumulators for a fold by a commutative primitive: 128
 * bytes of them, two of the widest vectors (AVX-512) or four AVX2 ones,
 * so that the loop has independent dependency chains enough to hide the
 * latency of a vector add (one accumulator vector waits for each add).
 * 1 (strictly in order) for any other combiner. */
static int fold_lanes(const cg_kernel *k)
{
    if (!cg_commutative_primitive(k->fold->args[0]))
        return 1;
    size_t bytes = acc_scalar_size(k->src->type->elem->leaves[0]);
    size_t lanes = 128 / (bytes ? bytes : 1);
    return lanes > 64 ? 64 : (int)lanes;
}

/* The width in bytes of the narrowest scalar that scalar term n, or any
 * term inside it, computes (at most `min`).  Array terms are kernel
 * arguments, computed elsewhere: only the element types read from them
 * (the reads' own types) count. */
static size_t narrowest_scalar(const ir_node *n, size_t min)
{
    if (n->op != IR_LAMBDA && n->type->array_sort)
        return min;
    for (size_t l = 0; l < n->type->n_leaves && min > 1; l++) {
        size_t s = acc_scalar_size(n->type->leaves[l]);
        min = s && s < min ? s : min;
    }
    for (uint32_t i = 0; i < n->n_args && min > 1; i++)
        min = narrowest_scalar(n->args[i], min);
    return min;
}

/* Whether the lanes are fed from a buffer (STAGE, fold.c.in): when the
 * element's code has a scalar narrower than the accumulator, so that the
 * lanes loop holds accumulator-width values only.  gcc 12's loop
 * vectoriser miscompiles an interleaved-lane reduction whose lanes, in
 * the narrowest type of the loop, fill less than a vector (48 bools
 * counted into i64 lanes gave 17; docs/CPU_BACKEND.md). */
static int fold_stage(const cg_kernel *k, int lanes)
{
    if (lanes <= 1 || k->src->op != IR_GENERATE)
        return 0; /* in order, or a manifest array of the accumulator type */
    size_t acc = acc_scalar_size(k->src->type->elem->leaves[0]);
    return narrowest_scalar(k->src->args[1], acc) < acc;
}

/* fold.c.in and fold_seg.c.in: the shared holes, the lanes and whether
 * they are fed from a buffer. */
static acc_status build_fold(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    if (cg_fill_stop(in, cg_fill_fold(in, n, k)))
        return in->d->status;
    int lanes = fold_lanes(k);
    sb_printf(cg_fill_hole(in, "LANES"), "%d", lanes);
    cg_fill_value(in, "STAGE", fold_stage(k, lanes) ? "1" : "0");
    return ACC_OK;
}

/* scan.c.in's vector path (VEC: lanes of 64 bytes) for a scan by + of one
 * f32 or f64 leaf, whose regrouping LANGUAGE.md allows; 0 otherwise
 * (integer scans stay in order: exact either way, and the in-order loop
 * is what the canaries check). */
static int scan_lanes(const cg_kernel *k, const char **ctype)
{
    const ir_node *f = k->fold->args[0];
    const acc_type *e = k->src->type->elem;
    if (!cg_commutative_primitive(f) || ir_lambda_body(f)->u.prim != ACC_OP_ADD ||
        e->n_leaves != 1 || !ty_is_floating(e->leaves[0]))
        return 0;
    *ctype = cg_ctype(e->leaves[0]);
    return (int)(64 / acc_scalar_size(e->leaves[0]));
}

static acc_status build_scan(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    if (cg_fill_stop(in, cg_fill_scan(in, n, k)))
        return in->d->status;
    const char *ctype = "float";
    sb_printf(cg_fill_hole(in, "VEC"), "%d", scan_lanes(k, &ctype));
    cg_fill_value(in, "VEC_T", ctype);
    return ACC_OK;
}

/* ---- the kernel ---------------------------------------------------------------- */

/* generate.c.in walks the output in tiles (TILE) when the index function
 * reads another array across its rows (a transpose): row by row, each
 * element of such a read was on a cache line of its own. */
/* Scalar terms under n (a walk, shared terms counted each time they are
 * reached), at most `cap`. */
static int count_terms(const ir_node *n, int cap)
{
    int c = 1;
    for (uint32_t i = 0; i < n->n_args && c < cap; i++)
        if (n->args[i]->op == IR_LAMBDA || !n->args[i]->type->array_sort)
            c += count_terms(n->args[i], cap - c);
    return c;
}

/* The lanes of a generate whose element runs a loop in lockstep (emit_c.h,
 * cg_set_lanes), 1 for none.  Each 16 lanes are one 512-bit vector of f32
 * state per round; more of them are independent chains that hide the
 * latency of a round through its state arrays.  Mandelbrot, one thread,
 * the kernel alone: on the Intel Xeon 16 lanes ran at 0.46x of the
 * 16-lane AVX-512 C, 32 at 0.6-0.7x, 64 at 0.86x, 128 no better (its
 * blocks wait longer for their slowest pixel); on the AMD EPYC (Zen 5)
 * 16 lanes took 75 ms, 32 44, 64 38, 128 31.5, 192 and 256 29.5
 * (bench/README.md).  So 128 for a small element (Mandelbrot's has 80
 * terms), 64 for a larger one.  Every temporary outside the loop is an
 * array of that many elements on the stack: a large element gets fewer
 * lanes (terms x lanes x 8 bytes at most about 96 KB; the temporaries
 * are fewer than the terms: Mandelbrot's 22 arrays take 15 KB at 128
 * lanes), a very large one none. */
static int generate_lanes(cg_inst *in, const ir_node *n)
{
    if (!cg_lockstep_candidate(in->e, n->args[1]))
        return 1;
    int terms = count_terms(n->args[1], 1024);
    return terms <= 96 ? 128 : terms <= 128 ? 64 : terms <= 512 ? 16 : 1;
}

static acc_status build_generate(cg_inst *in, const ir_node *n,
                                 cg_kernel *k)
{
    (void)k;
    int lanes = generate_lanes(in, n);
    if (lanes > 1)
        cg_set_lanes(in->e, lanes, cg_fill_hole(in, "LANE_DECLS"));
    else
        cg_fill_value(in, "LANE_DECLS", "");
    acc_status s = cg_fill_generate(in, n);
    cg_set_lanes(in->e, 0, NULL);
    if (cg_fill_stop(in, s))
        return s;
    sb_printf(cg_fill_hole(in, "LANES"), "%d", lanes);
    cg_fill_value(in, "TILE", lanes == 1 &&
                  cg_reads_across(cg_program(in->e), n) ? "1" : "0");
    return ACC_OK;
}

static acc_status build_map_over(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    if (cg_fill_stop(in, cg_build_map_over(in, n, k)))
        return in->d->status;
    cg_fill_value(in, "TILE", "0");
    cg_fill_value(in, "LANES", "1");
    cg_fill_value(in, "LANE_DECLS", "");
    return ACC_OK;
}

static const cg_builder generate_builder = {
    CG_KERNEL_GENERATE, "cpu/generate.c.in", build_generate};
static const cg_builder map_over_builder = {
    CG_KERNEL_GENERATE, "cpu/generate.c.in", build_map_over};
static const cg_builder fold_builder = {
    CG_KERNEL_FOLD, "cpu/fold.c.in", build_fold};
static const cg_builder fold_seg_builder = {
    CG_KERNEL_FOLD_SEG, "cpu/fold_seg.c.in", build_fold};
static const cg_builder scan_builder = {
    CG_KERNEL_SCAN, "cpu/scan.c.in", build_scan};
static const cg_builder scan_seg_builder = {
    CG_KERNEL_SCAN_SEG, "cpu/scan.c.in", build_scan};
static const cg_builder stencil_builder = {
    CG_KERNEL_STENCIL, "cpu/stencil.c.in", cg_fill_stencil};
static const cg_builder permute_builder = {
    CG_KERNEL_PERMUTE, "cpu/permute.c.in", cg_build_permute};
static const cg_builder expand_builder = {
    CG_KERNEL_EXPAND, "cpu/expand.c.in", cg_build_expand};

/* The skeleton of step n (maps over a consumer: the consumer's; maps over
 * any other array: a generate reading it), or NULL when it has none. */
static const cg_builder *builder_of(const ir_node *n)
{
    int post_map = n->op == IR_MAP;
    const ir_node *c = cg_post_map_base(n);
    switch (c->op) {
    case IR_GENERATE: return post_map ? &map_over_builder : &generate_builder;
    case IR_FOLD:
    case IR_FOLD1: return &fold_builder;
    case IR_FOLD_SEG: return &fold_seg_builder;
    case IR_SCAN:
    case IR_SCAN_SEG:
        if (post_map && !cg_maps_into(c))
            return NULL;
        return c->op == IR_SCAN ? &scan_builder : &scan_seg_builder;
    case IR_STENCIL:
    case IR_STENCIL2: return post_map ? &map_over_builder : &stencil_builder;
    case IR_PERMUTE:
    case IR_PERMUTE_PAIRS: return &permute_builder;
    case IR_EXPAND: return &expand_builder;
    default: return post_map ? &map_over_builder : NULL;
    }
}

int cg_cpu_has_skeleton(const ir_node *n)
{
    return builder_of(n) != NULL;
}

/* The prelude, the user functions called, then the skeleton. */
static acc_status assemble(cg_inst *in, const char *skeleton, cg_kernel *k)
{
    strbuf src = {0};
    sb_puts(&src, cg_skeleton("cpu/prelude.h.in"));
    cg_user_sources(in->e, &src);
    acc_status s = cg_fill_template(in, &src, skeleton); /* src.failed too */
    if (!cg_fill_stop(in, s))
        k->source = src.text;
    else
        sb_free(&src);
    return s;
}

acc_status cg_cpu_kernel(const ir_program *p, const ir_node *n,
                         cg_kernel *out, cg_outcome *o, diag *d)
{
    const cg_builder *b = builder_of(n);
    if (!b) {
        memset(out, 0, sizeof *out);
        o->built = 0;
        snprintf(o->why_not, sizeof o->why_not, "%s has no CPU skeleton",
                 ir_op_name(n->op));
        return ACC_OK;
    }
    return cg_fill_kernel(p, n, b, assemble, out, o, d);
}

void cg_kernel_free(cg_kernel *k)
{
    free(k->source);
    free(k->arrays);
    memset(k, 0, sizeof *k);
}
