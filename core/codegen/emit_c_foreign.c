/*
 * emit_c_foreign.c — foreignExp in scalar code (see emit_c_internal.h):
 * its demand analysis and its emission.  A user function registered with
 * acc_register_kernel is called from the kernel (its source goes into the
 * kernel's translation unit once, cg_user_sources); with no
 * implementation, the fallback is applied in place.
 */
#include "core/codegen/emit_c_internal.h"

void cg_user_sources(const cg_emitter *e, strbuf *b)
{
    for (size_t i = 0; i < e->n_sources; i++)
        sb_printf(b, "\n/* ---- a user function (acc_register_kernel) ---- */"
                  "\n%s\n/* ---- end of the user function ---- */\n",
                  e->sources[i]);
}

/* foreignExp (LANGUAGE.md §3.9): a user function put into the kernel
 * (u.foreign.source; its argument is read whole), or, when nothing
 * implements it, the fallback applied in place.  A C function of a
 * library (libffi) is not compiled: the step is left to the interpreter.
 * A call nobody uses that can fail is made for its checks. */
void cge_dm_foreign(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    if (n->u.foreign.impl && !n->u.foreign.source) {
        cge_fail(e, "foreignExp %s calls a C function of a library (libffi), "
                 "which generated code does not call", n->u.foreign.name);
        return;
    }
    if (!cge_any(dem, n->type->n_leaves)) {
        if (!cge_can_fail(e, n))
            return;
        dem = e->all;
    }
    if (n->u.foreign.source) {
        cge_dm(e, n->args[1], e->all);
        return;
    }
    const ir_node *lam = n->args[0];
    cge_dm(e, ir_lambda_body(lam), dem);
    const uint8_t *pd = e->param_dem[ir_lambda_param(lam, 0)->u.param.slot];
    cge_dm(e, n->args[1], pd ? pd : e->none);
}

/* The user function's source goes into the kernel once. */
static int note_source(cg_emitter *e, const char *source)
{
    for (size_t i = 0; i < e->n_sources; i++)
        if (e->sources[i] == source)
            return 1;
    if (e->n_sources == CG_MAX_USER_SOURCES)
        return cge_fail(e, "a kernel calls more than %d user functions",
                        CG_MAX_USER_SOURCES);
    e->sources[e->n_sources++] = source;
    return 1;
}

/* See dm_foreign. */
const char **cge_em_foreign(cg_emitter *e, strbuf *b, const ir_node *n,
                               const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    if (n->u.foreign.impl && !n->u.foreign.source) /* see dm_foreign */
        return cge_fail(e, "foreignExp %s calls a C function of a library",
                        n->u.foreign.name), NULL;
    if (!cge_any(dem, k)) {
        if (!cge_can_fail(e, n))
            return cge_exprs(e, k);
        dem = e->all;
    }
    if (n->u.foreign.source) {
        const char **x = cge_em(e, b, n->args[1], e->all);
        if (!x || !note_source(e, n->u.foreign.source))
            return NULL;
        strbuf call = {0};
        sb_printf(&call, "%s(", n->u.foreign.entry);
        for (size_t i = 0; i < n->args[1]->type->n_leaves; i++)
            sb_printf(&call, "%s%s", i ? ", " : "", x[i]);
        sb_puts(&call, ")");
        const char *r = call.failed ? NULL
                                    : cge_tmp(e, b, n->type->scalar, call.text);
        sb_free(&call);
        return r ? cge_em_one(e, r) : (cge_oom(e), NULL);
    }
    const ir_node *lam = n->args[0];
    uint32_t slot = ir_lambda_param(lam, 0)->u.param.slot;
    const uint8_t *pd = e->param_dem[slot];
    const char **x = cge_em(e, b, n->args[1], pd ? pd : e->none);
    if (!x)
        return NULL;
    e->param_x[slot] = x;
    return cge_em(e, b, ir_lambda_body(lam), dem);
}
