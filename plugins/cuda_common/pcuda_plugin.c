/*
 * pcuda_plugin.c — registration, availability and call checks shared by
 * the CUDA plugins (see pcuda_plugin.h).
 */
#include "pcuda_plugin.h"

#include <stdio.h>
#include <string.h>

void pcuda_plugin_init(pcuda_plugin *p)
{
    memset(p, 0, sizeof *p);
    pcuda_ctx_cache_init(&p->contexts);
}

void pcuda_plugin_unavailable(pcuda_plugin *p, const char *why)
{
    size_t at = strlen(p->reason);
    p->available = 0;
    if (at + 3 < sizeof p->reason)
        snprintf(p->reason + at, sizeof p->reason - at, "%s%s",
                 at ? "; " : "", why);
}

void pcuda_plugin_finish_note(pcuda_plugin *p, const char *found)
{
    if (p->available)
        snprintf(p->note, sizeof p->note, "%s", found);
    else
        snprintf(p->note, sizeof p->note, "unavailable: %s%s%s", p->reason,
                 found[0] ? "; " : "", found);
}

int pcuda_refuse(acc_foreign_query *q, const char *why)
{
    snprintf(q->reason, q->reason_size, "%s", why);
    return 0;
}

int pcuda_accepts_available(const pcuda_plugin *p, acc_foreign_query *q)
{
    return p->available ? 1 : pcuda_refuse(q, p->reason);
}

acc_status pcuda_plugin_add(acc_plugin_registrar *reg, pcuda_plugin *p,
                            acc_foreign_impl *impl)
{
    impl->struct_size = sizeof *impl;
    impl->backend = ACC_BACKEND_CUDA;
    impl->note = p->note;
    acc_status st = reg->add(reg, impl);
    if (st == ACC_OK)
        p->refs++;
    return st;
}

int pcuda_plugin_drop(pcuda_plugin *p)
{
    return --p->refs == 0;
}

acc_status pcuda_fail(acc_foreign_call *call, acc_status status,
                      const char *what, const char *detail)
{
    snprintf(call->message, call->message_size, "%s failed: %s", what,
             detail);
    return status;
}

static int on_device(const acc_array *a)
{
    return a->memory == ACC_MEMORY_CUDA_DEVICE;
}

acc_status pcuda_check_call(const pcuda_plugin *p, acc_foreign_call *call)
{
    if (!p->available) {
        snprintf(call->message, call->message_size, "the implementation is "
                 "unavailable: %s", p->reason);
        return ACC_ERR_PLUGIN;
    }
    for (size_t i = 0; i < call->n_args; i++)
        if (!on_device(&call->args[i]))
            return pcuda_fail(call, ACC_ERR_PLUGIN, "the call",
                              "an argument array is not in CUDA device "
                              "memory");
    for (size_t i = 0; i < call->n_results; i++)
        if (!on_device(&call->results[i]))
            return pcuda_fail(call, ACC_ERR_PLUGIN, "the call",
                              "a result array is not in CUDA device memory");
    return ACC_OK;
}
