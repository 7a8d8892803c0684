/*
 * cpu_program.c — a program's CPU kernels: compiling them at acc_compile
 * time, and the interpreter hook that hands each compiled step to its
 * driver (drive_*.c) when the interpreter, as host scheduler, reaches it
 * (see cpu_backend.h).
 */
#include "core/backend/cpu/cpu_backend.h"

#include "core/backend/cpu/cpu_launch.h"
#include "core/ir/dump.h"

#include <stdlib.h>
#include <string.h>

struct cpu_program {
    cpu_backend *be;
    uint32_t n_nodes;
    cpu_node **by_id;
    size_t kernels, host_steps, interpreted;
    cache_stats stats;
    char cache_note[CACHE_NOTE_MAX]; /* the cache folder's, when built */
    interp_hook hook;
};

/* The driver of each kernel kind (cg_kind). */
static const cpu_driver_fn drivers[] = {
    [CG_KERNEL_GENERATE] = cpu_drive_generate,
    [CG_KERNEL_FOLD] = cpu_drive_fold,
    [CG_KERNEL_FOLD_SEG] = cpu_drive_fold_seg,
    [CG_KERNEL_SCAN] = cpu_drive_scan,
    [CG_KERNEL_SCAN_SEG] = cpu_drive_scan_seg,
    [CG_KERNEL_STENCIL] = cpu_drive_stencil,
    [CG_KERNEL_PERMUTE] = cpu_drive_permute,
    [CG_KERNEL_EXPAND] = cpu_drive_expand,
};

static int eval_hook(void *state, interp *st, const ir_node *n,
                     rt_array **out)
{
    cpu_program *cp = state;
    const cpu_node *kn = n->id < cp->n_nodes ? cp->by_id[n->id] : NULL;
    if (!kn || (size_t)kn->k.kind >= sizeof drivers / sizeof *drivers ||
        !drivers[kn->k.kind])
        return -1;
    return drivers[kn->k.kind](cp->be->pool, kn, st, n, out);
}

/* ---- compiling ---------------------------------------------------------------------- */

/* Steps that need no kernel: the host does what compiled code would, a
 * reshape checking the sizes and copying the data, a unit storing one
 * element.  They are not interpreted element by element, so they are
 * counted apart (the interpreter's own routines run them, with its exact
 * errors). */
static int is_host_step(const ir_node *n)
{
    return n->op == IR_RESHAPE || n->op == IR_UNIT;
}

static acc_status compile_step(cpu_program *cp, const ir_program *ir,
                               const ir_node *n, diag *d)
{
    char why[256];
    cpu_node *kn = calloc(1, sizeof *kn);
    int r = kn ? cg_cpu_kernel(ir, n, &kn->k, why, sizeof why) : -1;
    if (r <= 0) {
        free(kn);
        cp->host_steps += (size_t)(r == 0 && is_host_step(n));
        cp->interpreted += (size_t)(r == 0 && !is_host_step(n));
        return r == 0 ? ACC_OK
                      : diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_compile: "
                                  "out of host memory");
    }
    cp->by_id[n->id] = kn;
    dump_kernel("cpu", n, kn->k.source);
    if (cache_get(cp->be->cache, &cp->be->tc, kn->k.source, &kn->entry,
                  &cp->stats, d) != ACC_OK)
        return d->status;
    free(kn->k.source); /* the cache has it; the program keeps the rest */
    kn->k.source = NULL;
    cp->kernels++;
    return ACC_OK;
}

acc_status cpu_program_build(cpu_backend *be, const ir_program *ir,
                             const plan *pl, cpu_program **out, diag *d)
{
    *out = NULL;
    cpu_program *cp = calloc(1, sizeof *cp);
    if (!cp || !(cp->by_id = calloc(ir->n_nodes + 1, sizeof *cp->by_id))) {
        free(cp);
        return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_compile: out of "
                         "host memory");
    }
    cp->be = be;
    cp->n_nodes = ir->n_nodes;
    cp->hook = (interp_hook){eval_hook, cp, NULL};
    for (size_t i = 0; i < pl->n_steps && diag_ok(d); i++)
        if (pl->steps[i].kernel)
            compile_step(cp, ir, pl->steps[i].node, d);
    if (!diag_ok(d)) {
        cpu_program_free(cp);
        return d->status;
    }
    cache_note(be->cache, cp->cache_note, sizeof cp->cache_note);
    *out = cp;
    return ACC_OK;
}

void cpu_program_free(cpu_program *cp)
{
    if (!cp)
        return;
    /* the last program using a kernel lets the cache unload it */
    for (uint32_t i = 0; i < cp->n_nodes; i++)
        if (cp->by_id[i]) {
            cache_release(cp->be->cache, cp->by_id[i]->entry);
            cg_kernel_free(&cp->by_id[i]->k);
            free(cp->by_id[i]);
        }
    free(cp->by_id);
    free(cp);
}

const interp_hook *cpu_program_hook(const cpu_program *cp)
{
    return cp ? &cp->hook : NULL;
}

void cpu_program_describe(strbuf *b, const cpu_program *cp, int json)
{
    if (cp)
        cache_describe(b, "cpu", cp->kernels, cp->host_steps, cp->interpreted,
                       &cp->stats, cp->cache_note, json);
}
