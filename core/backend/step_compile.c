/*
 * step_compile.c — the schedule walk and kernel list shared by the
 * compiling backends (step_compile.h).
 */
#include "core/backend/step_compile.h"

#include "core/base/mem.h"

#include <stdlib.h>

acc_status step_compile_all(const schedule *sc, step_compiler compile,
                            void *ctx, diag *d)
{
    for (size_t i = 0; i < sc->n_steps && diag_ok(d); i++) {
        sched_step *st = &sc->steps[i];
        if (st->kind == SCHED_ARRAY)
            compile(ctx, st, d);
        for (int k = 0; k < 2 && diag_ok(d); k++)
            if (st->body[k])
                step_compile_all(st->body[k], compile, ctx, d);
    }
    return d->status;
}

acc_status step_keep(step_kept *k, void *item, diag *d)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 8;
        void **grown = mem_realloc(k->items, cap * sizeof *grown);
        if (!grown)
            return diag_oom(d, "acc_compile");
        k->items = grown;
        k->cap = cap;
    }
    k->items[k->n++] = item;
    return ACC_OK;
}

void step_kept_free(step_kept *k)
{
    free(k->items);
    k->items = NULL;
    k->n = k->cap = 0;
}
