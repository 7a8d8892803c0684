/*
 * hand_run.c — see hand_run.h.
 */
#include <criterion/criterion.h>

#include "hand_run.h"

#include "abi/src/context.h"
#include "abi/src/program.h"

#include <string.h>

const char ts_doubling_source[] =
    "twice (xs : Vector f32) : Vector f32 = map (\\x -> x * 2.0) xs\n";

void ts_hand_begin(ts_hand_run *h, acc_context *ctx, acc_program *p)
{
    memset(h, 0, sizeof *h);
    h->env.ir = &p->c.ir;
    h->env.sched = &p->c.sched;
    h->env.d = &h->d;
    h->ops = ctx->be->ops;
    cr_assert(h->ops->alloc && h->ops->copy && h->ops->release,
              "every backend has the memory operations");
    h->run = h->ops->run_begin(ctx->be, p->c.bprog, &h->env);
    cr_assert(h->run, "%s", h->d.message);
}

void ts_hand_end(ts_hand_run *h)
{
    cr_expect_eq(h->ops->run_end(h->run), ACC_OK, "%s", h->d.message);
}
