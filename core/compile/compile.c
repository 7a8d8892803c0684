/*
 * compile.c — the pipeline driver (see compile.h): the passes in order,
 * each taking the IR and returning it, with the ACC_DUMP switch after
 * each and ACC_DISABLE for the optional ones.
 */
#include "core/compile/compile.h"

#include "core/check/check.h"
#include "core/fusion/fusion.h"
#include "core/ir/dump.h"
#include "core/sharing/sharing.h"
#include "core/simplify/simplify.h"
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
    if (!pass_disabled("simplify") && simplify_program(ir, d) != ACC_OK)
        return d->status;
    dump_after_pass(ir, "simplify");
    fuse_options fo = {t->fusion_duplicate_max_ops};
    if (pass_disabled("fusion") ? fuse_separate(ir, d) != ACC_OK
                                : fuse_program(ir, &fo, &ir->duplicated, d) !=
                                      ACC_OK)
        return d->status;
    dump_after_pass(ir, "fusion");
    if (check_program(ir, d) != ACC_OK)
        return d->status;
    if (reg_resolve_program(ir, t->foreign, t->autoload, t->be->ops->kind,
                            d) != ACC_OK)
        return d->status;
    dump_after_pass(ir, "foreign");
    if (!ir_program_layout(ir))
        diag_oom(d, "compile");
    return d->status;
}

acc_status compile_program(const compile_target *t, acc_graph *g,
                           size_t n_results, acc_node *const *results,
                           compiled *out, diag *d)
{
    memset(out, 0, sizeof *out);
    out->be = t->be;
    out->device = t->device;
    if (ir_program_copy(g, n_results, results, &out->ir, d) != ACC_OK)
        return d->status;
    if (run_passes(t, &out->ir, d) == ACC_OK &&
        sched_build(&out->ir, &out->sched, d) == ACC_OK)
        t->be->ops->build(t->be, &out->ir, &out->sched, t->strict,
                          &out->bprog, d);
    if (!diag_ok(d))
        compiled_free(out);
    return d->status;
}

void compiled_free(compiled *c)
{
    values_cache_clear(&c->spare);
    if (c->be && c->be->ops->program_free)
        c->be->ops->program_free(c->bprog);
    sched_free(&c->sched);
    if (c->ir.arena)
        reg_release_program(&c->ir);
    ir_program_free(&c->ir);
    memset(c, 0, sizeof *c);
}
