/*
 * backends.c — the list of backends and a context's choice (see
 * backends.h).
 */
#include "core/backend/all/backends.h"

#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cuda/cuda_backend.h"
#include "core/backend/interp/interp.h"

#include <stdio.h>
#include <string.h>

static const char cpu_unprobed[] =
    "not probed: the C compiler has not been tried yet";
static const char scratch_reason[] =
    "not available: not probed in a context that only builds graphs";
static const char auto_reason[] =
    "available: auto picks the best available backend";

const backend_ops *backends_ops(acc_backend kind)
{
    switch (kind) {
    case ACC_BACKEND_INTERP: return &interp_ops;
    case ACC_BACKEND_CPU: return &cpu_ops;
    case ACC_BACKEND_CUDA: return &cuda_ops;
    default: return NULL;
    }
}

void backends_probe(backends_state *s, acc_backend kind)
{
    const backend_ops *ops = backends_ops(kind);
    if (!ops || s->probed[kind])
        return;
    diag why;
    diag_clear(&why);
    s->available[kind] = ops->probe(&s->config, s->reasons[kind],
                                    sizeof s->reasons[kind], &why) == ACC_OK;
    if (!s->available[kind]) /* the answer is the sentence, whatever status */
        snprintf(s->reasons[kind], sizeof s->reasons[kind], "%s",
                 why.message);
    s->reason[kind] = s->reasons[kind];
    s->probed[kind] = 1;
}

void backends_init(backends_state *s, const backend_config *c, int probe)
{
    memset(s, 0, sizeof *s);
    s->config = *c;
    s->available[ACC_BACKEND_AUTO] = 1;
    s->reason[ACC_BACKEND_AUTO] = auto_reason;
    s->reason[ACC_BACKEND_CPU] = cpu_unprobed; /* probed when needed */
    backends_probe(s, ACC_BACKEND_INTERP);
    if (probe) {
        backends_probe(s, ACC_BACKEND_CUDA);
        return;
    }
    for (int k = ACC_BACKEND_CPU; k <= ACC_BACKEND_CUDA; k++) {
        s->probed[k] = 1;
        s->reason[k] = scratch_reason;
    }
}

static acc_backend best(const backends_state *s)
{
    if (s->available[ACC_BACKEND_CUDA])
        return ACC_BACKEND_CUDA;
    if (s->available[ACC_BACKEND_CPU])
        return ACC_BACKEND_CPU;
    return ACC_BACKEND_INTERP;
}

backend *backends_open(backends_state *s, acc_backend asked, diag *d)
{
    if (asked == ACC_BACKEND_AUTO || asked == ACC_BACKEND_CPU)
        backends_probe(s, ACC_BACKEND_CPU);
    if (asked != ACC_BACKEND_AUTO && !s->available[asked]) {
        diag_fail(d, ACC_ERR_UNSUPPORTED, "acc_context_create: backend '%s' "
                  "is %s", acc_backend_name(asked), s->reason[asked]);
        return NULL;
    }
    for (;;) {
        acc_backend kind = asked == ACC_BACKEND_AUTO ? best(s) : asked;
        diag why;
        diag_clear(&why);
        backend *be = backends_ops(kind)->create(&s->config, &why);
        if (be)
            return be;
        if (why.status == ACC_ERR_OUT_OF_HOST_MEMORY) {
            diag_oom(d, "acc_context_create");
            return NULL;
        }
        s->available[kind] = 0;
        snprintf(s->reasons[kind], sizeof s->reasons[kind],
                 "not available: %.900s", why.message);
        s->reason[kind] = s->reasons[kind];
        if (asked != ACC_BACKEND_AUTO || kind == ACC_BACKEND_INTERP) {
            diag_fail(d, why.status, "acc_context_create: backend '%s' is %s",
                      acc_backend_name(kind), s->reason[kind]);
            return NULL;
        }
    }
}
