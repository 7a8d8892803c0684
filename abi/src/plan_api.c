/* plan_api.c — acc_program_plan, acc_program_explain, acc_program_last_run
 * and acc_free. */
#include "abi/src/program.h"
#include "core/base/clock.h"

#include <stdlib.h>
#include <string.h>

void acc_free(void *memory)
{
    free(memory);
}

/* Copies the first min(size, sizeof src) bytes, keeping the caller's size. */
static void copy_versioned(void *dst, size_t dst_size, const void *src,
                           size_t src_size)
{
    memcpy(dst, src, dst_size < src_size ? dst_size : src_size);
    memcpy(dst, &dst_size, sizeof dst_size);
}

acc_status acc_program_plan(const acc_program *p, acc_plan_summary *out)
{
    static const char fn[] = "acc_program_plan";
    if (!handle_is_live(p, HANDLE_PROGRAM))
        return api_bad_handle(p, HANDLE_PROGRAM, fn);
    if (!out || out->struct_size < sizeof(size_t))
        return api_fail((error_slot *)&p->error, ACC_ERR_INVALID_ARGUMENT,
                        "%s: out is NULL or its struct_size is not set", fn);
    const sched_program *sp = &p->c.sched;
    acc_plan_summary s = {sizeof s, p->c.be->ops->kind, sp->kernels,
                          sp->intermediates, sp->foreign_calls,
                          sp->duplicated};
    copy_versioned(out, out->struct_size, &s, sizeof s);
    return ACC_OK;
}

acc_status acc_program_explain(const acc_program *p, int json, char **text)
{
    static const char fn[] = "acc_program_explain";
    if (text)
        *text = NULL;
    if (!handle_is_live(p, HANDLE_PROGRAM))
        return api_bad_handle(p, HANDLE_PROGRAM, fn);
    if (!text)
        return api_fail((error_slot *)&p->error, ACC_ERR_INVALID_ARGUMENT,
                        "%s: text is NULL", fn);
    strbuf b = {0};
    const backend_ops *ops = p->c.be->ops;
    sched_describe(&b, &p->c.sched, ops->kind, json);
    if (ops->describe)
        ops->describe(&b, p->c.bprog, json);
    if (b.failed || !b.text) {
        sb_free(&b);
        return api_fail((error_slot *)&p->error, ACC_ERR_OUT_OF_HOST_MEMORY,
                        "%s: out of host memory", fn);
    }
    *text = b.text;
    return ACC_OK;
}

acc_status acc_program_last_run(const acc_program *p, acc_run_stats *out)
{
    static const char fn[] = "acc_program_last_run";
    if (!handle_is_live(p, HANDLE_PROGRAM))
        return api_bad_handle(p, HANDLE_PROGRAM, fn);
    if (!out || out->struct_size < sizeof(size_t))
        return api_fail((error_slot *)&p->error, ACC_ERR_INVALID_ARGUMENT,
                        "%s: out is NULL or its struct_size is not set", fn);
    acc_program *mutable_p = (acc_program *)p;
    spin_acquire(&mutable_p->stats_lock);
    acc_run_stats r = p->last_run;
    uint64_t ticks = p->last_ticks;
    spin_release(&mutable_p->stats_lock);
    r.seconds = ticks ? clock_ticks_seconds(ticks) : 0;
    r.struct_size = sizeof r;
    copy_versioned(out, out->struct_size, &r, sizeof r);
    return ACC_OK;
}
