/*
 * cpu_program.c — the CPU backend's programs and runs: compiling a
 * schedule's array steps at acc_compile time, and running each compiled
 * step through its driver (drive_*.c) when the executor reaches it (see
 * cpu_backend.h).
 */
#include "core/backend/cpu/cpu_backend.h"

#include "core/backend/cpu/cpu_direct.h"
#include "core/backend/cpu/cpu_launch.h"
#include "core/backend/foreign_call.h"
#include "core/backend/host_memory.h"
#include "core/backend/step_compile.h"
#include "core/backend/step_fallback.h"
#include "core/base/mem.h"
#include "core/ir/dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct backend_program {
    cpu_backend *be;
    step_kept nodes;           /* the compiled steps (cpu_node), freed with it */
    size_t kernels, host_steps, interpreted;
    cache_stats stats;
    char cache_note[CACHE_NOTE_MAX]; /* the cache folder's, when built */
    cpu_direct *direct;        /* one fold over the inputs: cpu_direct.h */
};

/* A run is its run_env (cpu_begin): the program is env->bprog. */
static run_env *run_of(backend_run *r)
{
    return (run_env *)(void *)r;
}

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

/* A step without a kernel: a host step, or one the interpreter runs (an
 * error with `strict`). */
static acc_status no_kernel(backend_program *cp, sched_program *s,
                            sched_step *st, const char *why, int strict,
                            diag *d)
{
    if (is_host_step(st->node)) {
        st->by = SCHED_BY_HOST;
        cp->host_steps++;
        return ACC_OK;
    }
    if (step_interpreted(s, st, "cpu", why, strict, d) != ACC_OK)
        return d->status;
    cp->interpreted++;
    return ACC_OK;
}

static acc_status compile_step(backend_program *cp, const ir_program *ir,
                               sched_program *s, sched_step *st, int strict,
                               diag *d)
{
    const ir_node *n = st->node;
    if (step_uncounted(st))
        return ACC_OK;
    cg_outcome o;
    cpu_node *kn = mem_calloc(1, sizeof *kn);
    if (!kn)
        return diag_oom(d, "acc_compile");
    if (cg_cpu_kernel(ir, n, &kn->k, &o, d) != ACC_OK || !o.built) {
        free(kn);
        return diag_ok(d) ? no_kernel(cp, s, st, o.why_not, strict, d)
                          : d->status;
    }
    if (step_keep(&cp->nodes, kn, d) != ACC_OK) {
        cg_kernel_free(&kn->k);
        free(kn);
        return d->status;
    }
    dump_kernel("cpu", n, kn->k.source);
    if (cache_get(cp->be->cache, &cp->be->tc, kn->k.source, &kn->entry,
                  &cp->stats, d) != ACC_OK)
        return d->status;
    free(kn->k.source); /* the cache has it; the program keeps the rest */
    kn->k.source = NULL;
    st->by = SCHED_BY_KERNEL;
    st->kernel = kn;
    cp->kernels++;
    return ACC_OK;
}

/* What compile_step needs besides the step (step_compile_all's ctx). */
typedef struct compile_ctx {
    backend_program *cp;
    const ir_program *ir;
    sched_program *s;
    int strict;
} compile_ctx;

static acc_status compile_one(void *ctx, sched_step *st, diag *d)
{
    compile_ctx *c = ctx;
    return compile_step(c->cp, c->ir, c->s, st, c->strict, d);
}

static void cpu_program_free(backend_program *cp)
{
    if (!cp)
        return;
    cpu_direct_free(cp->direct);
    /* the last program using a kernel lets the cache unload it */
    for (size_t i = 0; i < cp->nodes.n; i++) {
        cpu_node *kn = cp->nodes.items[i];
        if (kn->entry)
            cache_release(cp->be->cache, kn->entry);
        cg_kernel_free(&kn->k);
        free(kn);
    }
    step_kept_free(&cp->nodes);
    free(cp);
}

static acc_status cpu_build(backend *be, const ir_program *ir,
                            sched_program *s, int strict,
                            backend_program **out, diag *d)
{
    cpu_backend *cb = (cpu_backend *)be;
    *out = NULL;
    backend_program *cp = mem_calloc(1, sizeof *cp);
    if (!cp)
        return diag_oom(d, "acc_compile");
    cp->be = cb;
    compile_ctx c = {cp, ir, s, strict};
    if (step_compile_all(&s->root, compile_one, &c, d) != ACC_OK) {
        cpu_program_free(cp);
        return d->status;
    }
    cache_note(cb->cache, cp->cache_note, sizeof cp->cache_note);
    cp->direct = cpu_direct_mark(ir, s);
    *out = cp;
    return ACC_OK;
}

static void cpu_describe(strbuf *b, const backend_program *cp, int json)
{
    if (!cp)
        return;
    char direct[128] = "";
    if (json)
        cpu_direct_describe(cp->direct, 1, direct, sizeof direct);
    cache_describe(b, "cpu", cp->kernels, cp->host_steps, cp->interpreted,
                   &cp->stats, cp->cache_note, json, direct);
    if (!json && cpu_direct_describe(cp->direct, 0, direct, sizeof direct))
        sb_puts(b, direct);
}

/* ---- running ------------------------------------------------------------------------ */

static backend_run *cpu_begin(backend *be, backend_program *bp, run_env *env)
{
    (void)be;
    env->bprog = bp; /* the run state is the run_env: nothing allocated */
    return (backend_run *)(void *)env;
}

static acc_status cpu_step(backend_run *r, const sched_step *s, int *replay)
{
    run_env *env = run_of(r);
    const cpu_node *kn = s->kernel;
    const ir_node *n = s->node;
    rt_array *out[2] = {NULL, NULL};
    *replay = (size_t)kn->k.kind >= sizeof drivers / sizeof *drivers ||
              !drivers[kn->k.kind];
    if (*replay ||
        drivers[kn->k.kind](env->bprog->be->pool, kn, env->host, n, out,
                            replay) != ACC_OK ||
        *replay)
        return env->d->status;
    values_set(env->values, n->id, out, n->type->n_leaves, env->d);
    return env->d->status;
}

static int cpu_run_direct(backend *be, backend_program *bp,
                          size_t n_inputs, const acc_array *inputs,
                          size_t n_outputs, acc_array *outputs,
                          uint64_t *bytes)
{
    (void)be;
    return bp && bp->direct &&
           cpu_direct_run(bp->direct, bp->be->pool, n_inputs, inputs,
                          n_outputs, outputs, bytes);
}

static acc_status cpu_foreign(backend_run *r, const ir_node *n,
                              rt_array *const *args, rt_array **results)
{
    run_env *env = run_of(r);
    return reg_call_on_host_into(n, args, results, env->host->dests, env->d);
}

static acc_status cpu_end(backend_run *r)
{
    return run_of(r)->d->status;
}

/* Host memory, as the interpreter's (core/backend/host_memory.h). */
static rt_array *cpu_alloc(backend_run *r, const ir_node *n,
                           const acc_type *elem, int32_t rank,
                           const int64_t *extents, const char *op, diag *d)
{
    return hostmem_alloc(run_of(r)->dests, n, elem, rank, extents, op, d);
}

static acc_status cpu_copy(backend_run *r, rt_array *a, acc_memory to,
                           diag *d)
{
    (void)r;
    return hostmem_copy(a, to, d);
}

static void cpu_release(backend_run *r, rt_array *a)
{
    (void)r;
    hostmem_release(a);
}

/* ---- the context ------------------------------------------------------------------- */

static acc_status cpu_probe(const backend_config *c, char *about,
                            size_t about_size, diag *d)
{
    return cpu_backend_probe(c->cache_dir, about, about_size, d);
}

static backend *cpu_create(const backend_config *c, diag *d)
{
    cpu_backend *b = cpu_backend_create(c->cache_dir, c->threads,
                                        c->fp_contract, d);
    return b ? &b->base : NULL;
}

static void cpu_destroy(backend *be)
{
    cpu_backend_destroy((cpu_backend *)be);
}

static acc_status cpu_cache_report(backend *be, char **dir, char **note,
                                   diag *d)
{
    return cache_report(((cpu_backend *)be)->cache, dir, note, d);
}

const backend_ops cpu_ops = {
    ACC_BACKEND_CPU, ACC_MEMORY_HOST,
    cpu_probe, cpu_create, cpu_destroy, cpu_cache_report,
    cpu_build, cpu_program_free, cpu_describe,
    cpu_begin, cpu_step, cpu_foreign, cpu_end, NULL,
    NULL, NULL, NULL,
    cpu_alloc, cpu_copy, cpu_release,
    cpu_run_direct,
};
