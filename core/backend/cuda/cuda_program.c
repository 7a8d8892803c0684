/*
 * cuda_program.c — a program's CUDA kernels: generated (core/codegen/
 * kernel_cuda.c), compiled and loaded (modules.c), their entry points
 * looked up and sized once, at acc_compile time; and the table of
 * launchers by kernel kind (see cuda_internal.h).
 */
#include "core/backend/cuda/cuda_internal.h"
#include "core/backend/step_compile.h"
#include "core/backend/step_fallback.h"

#include "core/base/mem.h"
#include "core/ir/dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How each kernel kind (cg_kind) is launched.  A kind without an entry
 * here (a skeleton the CUDA code generator has, with no launcher yet) is
 * left to the interpreter. */
static const cuda_launcher launchers[] = {
    [CG_KERNEL_GENERATE] = {{"accel_generate"}, cuda_drive_generate},
    [CG_KERNEL_FOLD] = {{"accel_fold_rows", "accel_fold_part",
                         "accel_fold_finish"}, cuda_drive_fold},
    [CG_KERNEL_STENCIL] = {{"accel_stencil_interior", "accel_stencil_border",
                            "accel_stencil_checks"}, cuda_drive_stencil},
    [CG_KERNEL_PERMUTE] = {{"accel_permute_defaults", "accel_permute_map",
                            "accel_permute_source", "accel_permute_private"},
                           cuda_drive_permute},
    [CG_KERNEL_EXPAND] = {{"accel_expand_sizes", "accel_expand_scan",
                           "accel_expand_offsets", "accel_expand_threads",
                           "accel_expand_blocks"}, cuda_drive_expand},
    [CG_KERNEL_PERMUTE_EXPAND] = {{"accel_permute_defaults",
                                   "accel_permute_map", "accel_expand_sizes",
                                   "accel_expand_scan", "accel_expand_offsets",
                                   "accel_expand_threads",
                                   "accel_expand_blocks"}, cuda_drive_permute},
    [CG_KERNEL_FOLD_SEG] = {{"accel_fold_seg_warp", "accel_fold_seg_thread",
                             "accel_fold_seg_tail"}, cuda_drive_fold_seg},
    [CG_KERNEL_SCAN] = {{"accel_scan_rows", "accel_scan_part",
                         "accel_scan_finish", "accel_scan_block",
                         "accel_scan_thread"}, cuda_drive_scan},
    [CG_KERNEL_SCAN_SEG] = {{"accel_scan_seg_warp", "accel_scan_seg_thread"},
                            cuda_drive_scan_seg},
};

const cuda_launcher *cuda_launcher_of(cg_kind kind)
{
    if ((size_t)kind >= sizeof launchers / sizeof *launchers ||
        !launchers[kind].drive)
        return NULL;
    return &launchers[kind];
}

const cuda_fn *cuda_fn_of(const cuda_node *kn, cg_cuda_entry_id id)
{
    const char *name = cg_cuda_entry_of(id)->name;
    for (size_t i = 0; i < CUDA_MAX_ENTRIES && kn->fn[i].name; i++)
        if (strcmp(kn->fn[i].name, name) == 0)
            return &kn->fn[i];
    return NULL;
}

/* ---- compiling ---------------------------------------------------------------------- */

/* The entry point `name` of module m, and its occupancy-derived block
 * (whole warps: the fold skeleton needs them). */
static int look_up(cuda_backend *be, cu_module m, const char *name,
                   cuda_fn *fn, diag *d)
{
    fn->name = name;
    cu_result r = be->drv.cuModuleGetFunction(&fn->f, m, name);
    if (r != CU_SUCCESS) {
        cuda_fail(be, d, r, "cuModuleGetFunction(%s)", name);
        return 0;
    }
    r = be->drv.cuOccupancyMaxPotentialBlockSize(&fn->min_grid, &fn->block,
                                                 fn->f, NULL, 0, 1024);
    if (r != CU_SUCCESS) {
        cuda_fail(be, d, r, "cuOccupancyMaxPotentialBlockSize(%s)", name);
        return 0;
    }
    fn->block = fn->block / 32 * 32;
    if (fn->block < 32)
        fn->block = 32;
    if (fn->min_grid < 1)
        fn->min_grid = 1;
    return 1;
}

static acc_status load_node(cuda_program *cp, cuda_node *kn,
                            const cuda_launcher *l, const ir_node *n, diag *d)
{
    char name[64];
    snprintf(name, sizeof name, "accel_%s_%u.cu", ir_op_name(n->op), n->id);
    if (cuda_module_get(cp->be, kn->k.source, name, &kn->module, &cp->stats,
                        d) != ACC_OK)
        return d->status;
    cu_module m = cuda_module_handle(kn->module);
    for (size_t i = 0; i < CUDA_MAX_ENTRIES && l->entries[i]; i++)
        if (!look_up(cp->be, m, l->entries[i], &kn->fn[i], d))
            return d->status;
    return ACC_OK;
}

/* A step the interpreter runs, with the reason (an error with
 * `strict`). */
static acc_status no_kernel(cuda_program *cp, sched_program *s,
                            sched_step *st, const char *why, int strict,
                            diag *d)
{
    if (step_interpreted(s, st, "cuda", why, strict, d) != ACC_OK)
        return d->status;
    cp->interpreted++;
    return ACC_OK;
}

static acc_status compile_step(cuda_program *cp, const ir_program *ir,
                               sched_program *s, sched_step *st, int strict,
                               diag *d)
{
    const ir_node *n = st->node;
    cg_outcome o = {0, ""};
    if (step_uncounted(st))
        return ACC_OK;
    if (!cg_cuda_has_skeleton(n)) {
        snprintf(o.why_not, sizeof o.why_not, "%s has no CUDA skeleton",
                 ir_op_name(n->op));
        return no_kernel(cp, s, st, o.why_not, strict, d);
    }
    cuda_node *kn = mem_calloc(1, sizeof *kn);
    if (!kn)
        return diag_oom(d, "acc_compile");
    if (cg_cuda_kernel(ir, n, &kn->k, &o, d) != ACC_OK) {
        free(kn);
        return d->status;
    }
    const cuda_launcher *l = o.built ? cuda_launcher_of(kn->k.kind) : NULL;
    if (o.built && !l)
        snprintf(o.why_not, sizeof o.why_not, "%s has no CUDA launcher",
                 ir_op_name(n->op));
    if (!l) {
        if (o.built)
            cg_kernel_free(&kn->k);
        free(kn);
        return no_kernel(cp, s, st, o.why_not, strict, d);
    }
    if (step_keep(&cp->nodes, kn, d) != ACC_OK) {
        cg_kernel_free(&kn->k);
        free(kn);
        return d->status;
    }
    dump_kernel("cuda", n, kn->k.source);
    if (load_node(cp, kn, l, n, d) != ACC_OK)
        return d->status;
    free(kn->k.source); /* the module has it; the program keeps the rest */
    kn->k.source = NULL;
    st->by = SCHED_BY_KERNEL;
    st->kernel = kn;
    cp->kernels++;
    return ACC_OK;
}

/* What compile_step needs besides the step (step_compile_all's ctx). */
typedef struct compile_ctx {
    cuda_program *cp;
    const ir_program *ir;
    sched_program *s;
    int strict;
} compile_ctx;

static acc_status compile_one(void *ctx, sched_step *st, diag *d)
{
    compile_ctx *c = ctx;
    return compile_step(c->cp, c->ir, c->s, st, c->strict, d);
}

acc_status cuda_program_build(cuda_backend *be, const ir_program *ir,
                              sched_program *s, int strict,
                              cuda_program **out, diag *d)
{
    *out = NULL;
    cuda_program *cp = mem_calloc(1, sizeof *cp);
    if (!cp)
        return diag_oom(d, "acc_compile");
    cp->be = be;
    if (cuda_enter(be, d)) {
        cuda_program_free(cp);
        return d->status;
    }
    compile_ctx c = {cp, ir, s, strict};
    step_compile_all(&s->root, compile_one, &c, d);
    cuda_leave(be);
    if (!diag_ok(d)) {
        cuda_program_free(cp);
        return d->status;
    }
    cuda_module_note(be, cp->cache_note, sizeof cp->cache_note);
    *out = cp;
    return ACC_OK;
}

void cuda_program_free(cuda_program *cp)
{
    if (!cp)
        return;
    /* the last program using a module lets the cache unload it */
    for (size_t i = 0; i < cp->nodes.n; i++) {
        cuda_node *kn = cp->nodes.items[i];
        if (kn->module)
            cuda_module_release(cp->be, kn->module);
        cg_kernel_free(&kn->k);
        free(kn);
    }
    step_kept_free(&cp->nodes);
    free(cp);
}

void cuda_program_describe(strbuf *b, const cuda_program *cp, int json)
{
    if (cp)
        cache_describe(b, "cuda", cp->kernels, 0, cp->interpreted, &cp->stats,
                       cp->cache_note, json, NULL);
}
