/*
 * step_fallback.c — steps a compiling backend has no kernel for
 * (step_fallback.h).
 */
#include "core/backend/step_fallback.h"

#include "core/base/arena.h"
#include "core/ir/types.h"

#include <string.h>

static const char refusal_fallback[] =
    "a foreign node's fallback, run only when its implementation refuses "
    "the arguments";

int step_uncounted(sched_step *st)
{
    st->by = SCHED_BY_INTERP;
    if (st->counted)
        return 0;
    st->why = refusal_fallback;
    return 1;
}

acc_status step_interpreted(sched_program *s, sched_step *st,
                            const char *backend, const char *why, int strict,
                            diag *d)
{
    char t[128];
    if (strict)
        return diag_fail(d, ACC_ERR_UNSUPPORTED, "acc_compile: strict: the "
                         "%s backend has no kernel for the %s step (-> %s): "
                         "%s", backend, ir_op_name(st->node->op),
                         ty_format(st->node->type, t, sizeof t), why);
    size_t n = strlen(why);
    char *copy = arena_alloc(s->arena, n + 1);
    if (!copy)
        return diag_oom(d, "acc_compile");
    memcpy(copy, why, n + 1);
    st->by = SCHED_BY_INTERP;
    st->why = copy;
    return ACC_OK;
}
