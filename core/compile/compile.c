/*
 * compile.c — the pipeline driver (see compile.h): the passes in order,
 * each taking the IR and returning it, with the ACC_DUMP switch after
 * each and ACC_DISABLE for the optional ones.
 */
#include "core/compile/compile.h"

#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cuda/cuda_backend.h"
#include "core/check/check.h"
#include "core/fusion/fusion.h"
#include "core/ir/dump.h"
#include "core/sharing/sharing.h"
#include "foreign/resolve.h"

#include <string.h>

/* The passes on the copied IR, up to foreign resolution. */
static acc_status run_passes(const compile_target *t, ir_program *ir,
                             diag *d)
{
    if (!pass_disabled("sharing") && share_recover(ir, d) != ACC_OK)
        return d->status;
    dump_after_pass(ir, "sharing");
    if (check_program(ir, d) != ACC_OK)
        return d->status;
    fuse_options fo = {t->fusion_duplicate_max_ops};
    if (!pass_disabled("fusion") &&
        fuse_program(ir, &fo, &ir->duplicated, d) != ACC_OK)
        return d->status;
    dump_after_pass(ir, "fusion");
    if (check_program(ir, d) != ACC_OK)
        return d->status;
    if (reg_resolve_program(ir, t->foreign, t->backend, d) != ACC_OK)
        return d->status;
    dump_after_pass(ir, "foreign");
    if (!ir_program_layout(ir))
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "compile: out of host memory");
    return d->status;
}

/* The backend's kernels for the plan's steps. */
static acc_status build_backend(const compile_target *t, compiled *c, diag *d)
{
    if (t->backend == ACC_BACKEND_CPU)
        return cpu_program_build(t->cpu, &c->ir, &c->plan, &c->cpu, d);
    if (t->backend == ACC_BACKEND_CUDA)
        return cuda_program_build(t->cuda, &c->ir, &c->plan, &c->cuda, d);
    return ACC_OK;
}

acc_status compile_program(const compile_target *t, acc_graph *g,
                           size_t n_results, acc_node *const *results,
                           compiled *out, diag *d)
{
    memset(out, 0, sizeof *out);
    out->backend = t->backend;
    out->device = t->device;
    if (ir_program_copy(g, n_results, results, &out->ir, d) != ACC_OK)
        return d->status;
    if (run_passes(t, &out->ir, d) == ACC_OK && !plan_build(&out->ir, &out->plan))
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_compile: out of host "
                  "memory");
    if (diag_ok(d))
        build_backend(t, out, d);
    if (!diag_ok(d))
        compiled_free(out);
    return d->status;
}

void compiled_free(compiled *c)
{
    cpu_program_free(c->cpu);
    cuda_program_free(c->cuda);
    plan_free(&c->plan);
    if (c->ir.arena)
        reg_release_program(&c->ir);
    ir_program_free(&c->ir);
    memset(c, 0, sizeof *c);
}
