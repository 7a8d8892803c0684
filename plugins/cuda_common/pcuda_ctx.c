/*
 * pcuda_ctx.c — the per-CUDA-context entries of a plugin (see pcuda_ctx.h).
 */
#include "pcuda_ctx.h"

#include "pcuda_lib.h"

#include <stdio.h>
#include <stdlib.h>

void pcuda_ctx_cache_init(pcuda_ctx_cache *c)
{
    pthread_mutex_init(&c->lock, NULL);
    c->entries = NULL;
}

/* Keeps a reference on the primary context when `ctx` is it. */
static void retain_if_primary(pcuda_ctx_entry *e, const pcuda_driver *d)
{
    pcu_context primary = NULL;
    if (d->cuDevicePrimaryCtxRetain(&primary, e->dev) != PCU_SUCCESS)
        return;
    if (primary == e->ctx)
        e->retained = 1;
    else
        d->cuDevicePrimaryCtxRelease(e->dev);
}

static pcuda_ctx_entry *new_entry(pcu_context ctx, const pcuda_driver *d,
                                  char *why, size_t why_size)
{
    char err[256];
    pcu_device dev = 0;
    pcu_result r = d->cuCtxGetDevice(&dev);
    if (r != PCU_SUCCESS) {
        pcuda_error_text(d, r, err, sizeof err);
        snprintf(why, why_size, "cuCtxGetDevice failed: %s", err);
        return NULL;
    }
    pcuda_ctx_entry *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(why, why_size, "out of host memory");
        return NULL;
    }
    e->ctx = ctx;
    e->dev = dev;
    pthread_mutex_init(&e->lock, NULL);
    retain_if_primary(e, d);
    return e;
}

pcuda_ctx_entry *pcuda_ctx_enter(pcuda_ctx_cache *c, const pcuda_driver *d,
                                 char *why, size_t why_size)
{
    pcu_context ctx = NULL;
    if (d->cuCtxGetCurrent(&ctx) != PCU_SUCCESS || !ctx) {
        snprintf(why, why_size, "no CUDA context is current on the calling "
                 "thread (accel's cuda runtime makes the arrays' context "
                 "current before it calls an implementation)");
        return NULL;
    }
    pthread_mutex_lock(&c->lock);
    pcuda_ctx_entry *e = c->entries;
    while (e && e->ctx != ctx)
        e = e->next;
    if (!e && (e = new_entry(ctx, d, why, why_size)) != NULL) {
        e->next = c->entries;
        c->entries = e;
    }
    pthread_mutex_unlock(&c->lock);
    if (e)
        pthread_mutex_lock(&e->lock);
    return e;
}

void pcuda_ctx_leave(pcuda_ctx_entry *e)
{
    pthread_mutex_unlock(&e->lock);
}

void pcuda_ctx_cache_destroy(pcuda_ctx_cache *c, const pcuda_driver *d,
                             void (*destroy)(void *payload, void *arg),
                             void *arg)
{
    pcuda_ctx_entry *e = c->entries, *next;
    for (; e; e = next) {
        next = e->next;
        pcu_context popped = NULL;
        if (e->payload && d->cuCtxPushCurrent(e->ctx) == PCU_SUCCESS) {
            destroy(e->payload, arg);
            d->cuCtxPopCurrent(&popped);
        }
        if (e->retained)
            d->cuDevicePrimaryCtxRelease(e->dev);
        pthread_mutex_destroy(&e->lock);
        free(e);
    }
    c->entries = NULL;
    pthread_mutex_destroy(&c->lock);
}
