/*
 * pcuda_ctx.h — per-CUDA-context state of a plugin (a cuBLAS handle, cuFFT
 * plans), kept in the plugin's `user` state for the accel context that
 * loaded it.
 *
 * accel's cuda runtime calls an implementation with the CUDA context of
 * the arrays' device current on the calling thread; library handles are
 * bound to the context they were made in, so entries are keyed by it.  An
 * entry is created on first use; when the context is its device's primary
 * context (the one accel's runtime uses), the entry holds a reference on
 * it, so the context outlives the handles made in it whatever the order in
 * which accel tears things down.  Calls in one context are serialised by
 * the entry's lock: library handles are not safe for concurrent use, and a
 * stream is set on them for each call.
 */
#ifndef ACC_PLUGINS_PCUDA_CTX_H
#define ACC_PLUGINS_PCUDA_CTX_H

#include "pcuda_api.h"

#include <pthread.h>

typedef struct pcuda_ctx_entry {
    pcu_context ctx;
    pcu_device dev;
    int retained;          /* holds a reference on dev's primary context */
    pthread_mutex_t lock;  /* held from pcuda_ctx_enter to pcuda_ctx_leave */
    void *payload;         /* the plugin's state for this context, or NULL */
    struct pcuda_ctx_entry *next;
} pcuda_ctx_entry;

typedef struct pcuda_ctx_cache {
    pthread_mutex_t lock;  /* guards the list */
    pcuda_ctx_entry *entries;
} pcuda_ctx_cache;

void pcuda_ctx_cache_init(pcuda_ctx_cache *c);

/* The entry of the calling thread's current context, created on first use,
 * returned locked.  NULL with why written when no context is current or
 * the driver fails. */
pcuda_ctx_entry *pcuda_ctx_enter(pcuda_ctx_cache *c, const pcuda_driver *d,
                                 char *why, size_t why_size);
void pcuda_ctx_leave(pcuda_ctx_entry *e);

/* Calls destroy(payload, arg) for every entry with a payload, with its
 * context pushed current (skipped when the context no longer exists: its
 * resources went with it), releases the context references and frees the
 * entries. */
void pcuda_ctx_cache_destroy(pcuda_ctx_cache *c, const pcuda_driver *d,
                             void (*destroy)(void *payload, void *arg),
                             void *arg);

#endif
