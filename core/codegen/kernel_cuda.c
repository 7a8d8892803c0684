/*
 * kernel_cuda.c — filling the CUDA skeletons' holes (see kernel_cuda.h).
 * The holes are those of the CPU skeletons, filled the same way from the
 * same emitter (kernel_fill.c, kernel_permute.c), plus the accumulator's
 * warp shuffles and group.cuh.in, or expansion.cuh.in; the source is the
 * CUDA prelude, the shared scalar helpers, then the skeleton.  Also the
 * table of entry points the launcher reads, and the launch choices that
 * depend only on sizes.
 */
#include "core/codegen/kernel_cuda.h"

#include "core/codegen/kernel_fill.h"
#include "core/codegen/kernel_stencil.h"
#include "core/ir/scan_kind.h"
#include "core/codegen/kernel_permute.h"
#include "core/ir/types.h"

#include <stdio.h>
#include <string.h>

/* The accumulator's fields moved across lanes (group.cuh.in's holes).
 * The __shfl_*_sync functions have overloads for int, unsigned, long
 * long, unsigned long long, float and double; 8- and 16-bit leaves
 * promote to int and are converted back. */
static void shuffle_holes(cg_inst *in, const acc_type *elem)
{
    static const char *const holes[3] = {"SHFL_DOWN_BODY", "SHFL_UP_BODY",
                                         "SHFL_IDX_BODY"};
    static const char *const fns[3] = {"__shfl_down_sync", "__shfl_up_sync",
                                       "__shfl_sync"};
    for (int h = 0; h < 3; h++) {
        strbuf *b = cg_fill_hole(in, holes[h]);
        for (size_t l = 0; l < elem->n_leaves; l++)
            sb_printf(b, "    o.l%zu = (%s)%s(ACC_FULL_MASK, v->l%zu, off);\n",
                      l, cg_ctype(elem->leaves[l]), fns[h], l);
    }
}

/* Hole `hole` filled with template `name` (itself filled with the holes
 * so far), or with nothing when name is NULL. */
static acc_status sub_template(cg_inst *in, const char *hole,
                               const char *name)
{
    strbuf text = {0};
    acc_status s = name ? cg_fill_template(in, &text, name) : ACC_OK;
    if (!cg_fill_stop(in, s)) {
        strbuf *h = cg_fill_hole(in, hole);
        sb_puts(h, text.text ? text.text : "");
        h->failed |= text.failed; /* reported as out of memory */
    }
    sb_free(&text);
    return s;
}

/* The holes every skeleton with a GROUP hole adds to the shared ones:
 * STRIDED, the shuffles, and group.cuh.in filled with them. */
static acc_status group_holes(cg_inst *in, const cg_kernel *k, int strided)
{
    cg_fill_value(in, "STRIDED", strided ? "1" : "0");
    shuffle_holes(in, k->src->type->elem);
    return sub_template(in, "GROUP", "cuda/group.cuh.in");
}

/* fold.cu.in and fold_seg.cu.in. */
static acc_status build_fold(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    if (cg_fill_stop(in, cg_fill_fold(in, n, k)))
        return in->d->status;
    return group_holes(in, k, cg_commutative_primitive(k->fold->args[0]));
}

/* Elements a thread holds per scan tile: about 32 bytes of them, in
 * registers. */
int64_t cg_cuda_scan_items(const acc_type *elem)
{
    size_t bytes = 0;
    for (size_t l = 0; l < elem->n_leaves; l++)
        bytes += acc_scalar_size(elem->leaves[l]);
    return bytes >= 32 ? 1 : bytes >= 16 ? 2 : bytes >= 8 ? 4 : 8;
}

/* scan.cu.in, plain and segmented. */
static acc_status build_scan(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    if (cg_fill_stop(in, cg_fill_scan(in, n, k)))
        return in->d->status;
    sb_printf(cg_fill_hole(in, "ITEMS"), "%lld",
              (long long)cg_cuda_scan_items(k->src->type->elem));
    return group_holes(in, k, k->reassociable);
}

static acc_status build_generate(cg_inst *in, const ir_node *n,
                                 cg_kernel *k)
{
    (void)k;
    return cg_fill_generate(in, n);
}

/* permute.cu.in: the CPU's holes, and for permute' over an expand the
 * expansion (and the kind whose entry points it has). */
static acc_status build_permute(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    if (cg_fill_stop(in, cg_build_permute(in, n, k)))
        return in->d->status;
    int expanded = cg_permute_expanded(k->fold);
    if (expanded)
        k->kind = CG_KERNEL_PERMUTE_EXPAND;
    return sub_template(in, "EXPANSION",
                        expanded ? "cuda/expansion.cuh.in" : NULL);
}

/* expand.cu.in: the CPU's holes and the expansion. */
static acc_status build_expand(cg_inst *in, const ir_node *n, cg_kernel *k)
{
    if (cg_fill_stop(in, cg_build_expand(in, n, k)))
        return in->d->status;
    return sub_template(in, "EXPANSION", "cuda/expansion.cuh.in");
}

/* ---- the kernel ---------------------------------------------------------------- */

/* The steps with a skeleton: the consumer, and whether a map over it (a
 * chain of maps) is applied by its skeleton as results are stored (1), or
 * is a generate reading the consumer's result, which the host evaluates
 * (0). */
typedef struct cuda_step {
    ir_op op;
    int post_map;
    cg_builder builder;
} cuda_step;

static const cuda_step steps[] = {
    {IR_GENERATE, 0, {CG_KERNEL_GENERATE, "cuda/generate.cu.in", build_generate}},
    {IR_FOLD, 1, {CG_KERNEL_FOLD, "cuda/fold.cu.in", build_fold}},
    {IR_FOLD1, 1, {CG_KERNEL_FOLD, "cuda/fold.cu.in", build_fold}},
    {IR_FOLD_SEG, 1, {CG_KERNEL_FOLD_SEG, "cuda/fold_seg.cu.in", build_fold}},
    {IR_SCAN, 1, {CG_KERNEL_SCAN, "cuda/scan.cu.in", build_scan}},
    {IR_SCAN_SEG, 1, {CG_KERNEL_SCAN_SEG, "cuda/scan.cu.in", build_scan}},
    {IR_STENCIL, 0, {CG_KERNEL_STENCIL, "cuda/stencil.cu.in", cg_fill_stencil}},
    {IR_STENCIL2, 0, {CG_KERNEL_STENCIL, "cuda/stencil.cu.in", cg_fill_stencil}},
    {IR_PERMUTE, 1, {CG_KERNEL_PERMUTE, "cuda/permute.cu.in", build_permute}},
    {IR_PERMUTE_PAIRS, 1,
     {CG_KERNEL_PERMUTE, "cuda/permute.cu.in", build_permute}},
    {IR_EXPAND, 1, {CG_KERNEL_EXPAND, "cuda/expand.cu.in", build_expand}},
};

static const cg_builder map_over_builder = {
    CG_KERNEL_GENERATE, "cuda/generate.cu.in", cg_build_map_over};

/* The skeleton of step n (kernel_cpu.c's choices): a consumer's, a map
 * (or a chain of maps) over a consumer applied by its skeleton, or a
 * generate mapping any other array (a component of a tuple of arrays, a
 * reshape, a unit, a control node, a consumer without such a skeleton);
 * NULL when it has none. */
static const cg_builder *builder_of(const ir_node *n)
{
    int post_map = n->op == IR_MAP;
    const ir_node *c = cg_post_map_base(n);
    if (post_map && !cg_maps_into(c))
        return NULL; /* a map over a primed scan's tuple cannot type */
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i].op == c->op)
            return !post_map || steps[i].post_map ? &steps[i].builder
                                                  : &map_over_builder;
    return post_map ? &map_over_builder : NULL;
}

int cg_cuda_has_skeleton(const ir_node *n)
{
    return builder_of(n) != NULL;
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

static acc_status assemble(cg_inst *in, const char *skeleton, cg_kernel *k)
{
    strbuf src = {0};
    const char *prelude = cg_skeleton("cuda/prelude.cuh.in");
    acc_status s = ACC_OK;
    if (prelude)
        sb_puts(&src, prelude);
    if (!prelude)
        cg_fill_refuse(in, "skeleton cuda/prelude.cuh.in is not embedded");
    else if (!scalar_helpers(&src))
        cg_fill_refuse(in, "cpu/prelude.h.in has no \"BEGIN scalar "
                       "helpers\" .. \"END scalar helpers\" part");
    else {
        cg_user_sources(in->e, &src);
        s = cg_fill_template(in, &src, skeleton); /* src.failed too */
    }
    if (!cg_fill_stop(in, s))
        k->source = src.text;
    else
        sb_free(&src);
    return s;
}

acc_status cg_cuda_kernel(const ir_program *p, const ir_node *n,
                          cg_kernel *out, cg_outcome *o, diag *d)
{
    const cg_builder *b = builder_of(n);
    if (!b) {
        memset(out, 0, sizeof *out);
        o->built = 0;
        snprintf(o->why_not, sizeof o->why_not, "%s has no CUDA skeleton",
                 ir_op_name(n->op));
        return ACC_OK;
    }
    return cg_fill_kernel(p, n, b, assemble, out, o, d);
}

/* ---- the launch contract --------------------------------------------------------- */

static const cg_cuda_entry entries[CG_CUDA_N_ENTRIES] = {
    [CG_CUDA_GENERATE] = {"accel_generate", CG_KERNEL_GENERATE, NULL,
                          CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_FOLD_ROWS] = {"accel_fold_rows", CG_KERNEL_FOLD, NULL,
                           CG_CUDA_GRID_BLOCKS, 1, 0},
    [CG_CUDA_FOLD_PART] = {"accel_fold_part", CG_KERNEL_FOLD, NULL,
                           CG_CUDA_GRID_PARTS, 1, 1},
    [CG_CUDA_FOLD_FINISH] = {"accel_fold_finish", CG_KERNEL_FOLD, "n",
                             CG_CUDA_GRID_BLOCKS, 1, 1},
    [CG_CUDA_SEG_WARP] = {"accel_fold_seg_warp", CG_KERNEL_FOLD_SEG, NULL,
                          CG_CUDA_GRID_WARPS, 1, 0},
    [CG_CUDA_SEG_THREAD] = {"accel_fold_seg_thread", CG_KERNEL_FOLD_SEG,
                            NULL, CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_SEG_TAIL] = {"accel_fold_seg_tail", CG_KERNEL_FOLD_SEG, "lo",
                          CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_SCAN_ROWS] = {"accel_scan_rows", CG_KERNEL_SCAN, NULL,
                           CG_CUDA_GRID_WARPS, 1, 0},
    [CG_CUDA_SCAN_PART] = {"accel_scan_part", CG_KERNEL_SCAN, NULL,
                           CG_CUDA_GRID_PARTS, 1, 1},
    [CG_CUDA_SCAN_FINISH] = {"accel_scan_finish", CG_KERNEL_SCAN, "n",
                             CG_CUDA_GRID_THREADS, 0, 1},
    [CG_CUDA_SCAN_BLOCK] = {"accel_scan_block", CG_KERNEL_SCAN, NULL,
                            CG_CUDA_GRID_PARTS, 1, 1},
    [CG_CUDA_STENCIL_INTERIOR] = {"accel_stencil_interior", CG_KERNEL_STENCIL,
                                  NULL, CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_STENCIL_BORDER] = {"accel_stencil_border", CG_KERNEL_STENCIL,
                                NULL, CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_STENCIL_CHECKS] = {"accel_stencil_checks", CG_KERNEL_STENCIL,
                                "side", CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_PERMUTE_DEFAULTS] = {"accel_permute_defaults", CG_KERNEL_PERMUTE,
                                  NULL, CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_PERMUTE_MAP] = {"accel_permute_map", CG_KERNEL_PERMUTE, NULL,
                             CG_CUDA_GRID_THREADS, 0, 1},
    [CG_CUDA_PERMUTE_SOURCE] = {"accel_permute_source", CG_KERNEL_PERMUTE,
                                NULL, CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_PERMUTE_PRIVATE] = {"accel_permute_private", CG_KERNEL_PERMUTE,
                                 NULL, CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_PERMUTE_X_DEFAULTS] = {"accel_permute_defaults",
                                    CG_KERNEL_PERMUTE_EXPAND, NULL,
                                    CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_PERMUTE_X_MAP] = {"accel_permute_map", CG_KERNEL_PERMUTE_EXPAND,
                               NULL, CG_CUDA_GRID_THREADS, 0, 1},
    [CG_CUDA_PERMUTE_X_SIZES] = {"accel_expand_sizes",
                                 CG_KERNEL_PERMUTE_EXPAND, "parts",
                                 CG_CUDA_GRID_WARPS, 1, 1},
    [CG_CUDA_PERMUTE_X_SCAN] = {"accel_expand_scan", CG_KERNEL_PERMUTE_EXPAND,
                                "parts", CG_CUDA_GRID_ONE_WARP, 1, 1},
    [CG_CUDA_PERMUTE_X_OFFSETS] = {"accel_expand_offsets",
                                   CG_KERNEL_PERMUTE_EXPAND, "parts",
                                   CG_CUDA_GRID_WARPS, 1, 1},
    [CG_CUDA_PERMUTE_X_THREADS] = {"accel_expand_threads",
                                   CG_KERNEL_PERMUTE_EXPAND, NULL,
                                   CG_CUDA_GRID_THREADS, 0, 1},
    [CG_CUDA_PERMUTE_X_BLOCKS] = {"accel_expand_blocks",
                                  CG_KERNEL_PERMUTE_EXPAND, NULL,
                                  CG_CUDA_GRID_BLOCKS, 0, 1},
    [CG_CUDA_EXPAND_SIZES] = {"accel_expand_sizes", CG_KERNEL_EXPAND,
                              "parts", CG_CUDA_GRID_WARPS, 1, 1},
    [CG_CUDA_EXPAND_SCAN] = {"accel_expand_scan", CG_KERNEL_EXPAND, "parts",
                             CG_CUDA_GRID_ONE_WARP, 1, 1},
    [CG_CUDA_EXPAND_OFFSETS] = {"accel_expand_offsets", CG_KERNEL_EXPAND,
                                "parts", CG_CUDA_GRID_WARPS, 1, 1},
    [CG_CUDA_EXPAND_THREADS] = {"accel_expand_threads", CG_KERNEL_EXPAND,
                                NULL, CG_CUDA_GRID_THREADS, 0, 1},
    [CG_CUDA_EXPAND_BLOCKS] = {"accel_expand_blocks", CG_KERNEL_EXPAND, NULL,
                               CG_CUDA_GRID_BLOCKS, 0, 1},
    [CG_CUDA_SCAN_SEG_WARP] = {"accel_scan_seg_warp", CG_KERNEL_SCAN_SEG,
                               NULL, CG_CUDA_GRID_WARPS, 1, 0},
    [CG_CUDA_SCAN_SEG_THREAD] = {"accel_scan_seg_thread", CG_KERNEL_SCAN_SEG,
                                 NULL, CG_CUDA_GRID_THREADS, 0, 0},
    [CG_CUDA_SCAN_THREAD] = {"accel_scan_thread", CG_KERNEL_SCAN, NULL,
                             CG_CUDA_GRID_THREADS, 0, 0},
};

const cg_cuda_entry *cg_cuda_entry_of(cg_cuda_entry_id id)
{
    return (int)id >= 0 && id < CG_CUDA_N_ENTRIES ? &entries[id] : NULL;
}

/* Whether k segments of `elems` elements in all average fewer than
 * `least` elements (without overflowing least * k). */
static int short_segments(int64_t elems, int64_t k, int64_t least)
{
    return k > 0 && elems / k < least;
}

cg_cuda_entry_id cg_cuda_fold_seg_entry(int64_t elems, int64_t k)
{
    return short_segments(elems, k, CG_CUDA_SEG_WARP_MIN_AVG)
               ? CG_CUDA_SEG_THREAD : CG_CUDA_SEG_WARP;
}

cg_cuda_entry_id cg_cuda_scan_seg_entry(int regroup, int64_t elems,
                                        int64_t pairs)
{
    return !regroup ||
                   short_segments(elems, pairs, CG_CUDA_SCAN_SEG_WARP_MIN_AVG)
               ? CG_CUDA_SCAN_SEG_THREAD : CG_CUDA_SCAN_SEG_WARP;
}

int64_t cg_cuda_expand_parts(int64_t n)
{
    int64_t parts = (n + 31) / 32;
    return parts < 1 ? 1 : parts > CG_CUDA_EXPAND_MAX_PARTS
                               ? CG_CUDA_EXPAND_MAX_PARTS : parts;
}

int cg_cuda_expand_per_thread(int64_t n, int64_t total, int64_t largest)
{
    if (largest > CG_CUDA_EXPAND_THREAD_MAX)
        return 0;
    /* largest * n <= SPREAD * total, without overflow: largest <= 64 */
    return total > INT64_MAX / CG_CUDA_EXPAND_THREAD_SPREAD ||
           largest * n <= CG_CUDA_EXPAND_THREAD_SPREAD * total;
}

int64_t cg_cuda_permute_private_blocks(int64_t cells, int64_t n,
                                       size_t leaf_bytes)
{
    int64_t per_block = CG_CUDA_PERMUTE_PRIVATE_PER_CELL * cells;
    if (leaf_bytes == 0 ||
        cells > (int64_t)(CG_CUDA_PERMUTE_PRIVATE_BYTES / leaf_bytes) ||
        per_block == 0 || n < per_block)
        return 0;
    return n / per_block;
}
