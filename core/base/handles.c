/*
 * handles.c — live-handle registry (open addressing on pointer keys) and
 * error reporting shared by every API function.
 */
#include "core/base/handles.h"
#include "core/base/mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct registry_slot {
    const void *key; /* NULL: empty; TOMBSTONE: deleted */
    handle_kind kind;
} registry_slot;

static const char tombstone_byte;
#define TOMBSTONE ((const void *)&tombstone_byte)

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static registry_slot *table;
static size_t capacity, used; /* used counts live keys and tombstones */

static size_t hash_pointer(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static int registry_grow(void)
{
    size_t new_capacity = capacity ? capacity * 2 : 64;
    registry_slot *fresh = mem_calloc(new_capacity, sizeof(registry_slot));
    if (!fresh)
        return 0;
    size_t live = 0;
    for (size_t i = 0; i < capacity; i++) {
        if (!table[i].key || table[i].key == TOMBSTONE)
            continue;
        size_t j = hash_pointer(table[i].key) & (new_capacity - 1);
        while (fresh[j].key)
            j = (j + 1) & (new_capacity - 1);
        fresh[j] = table[i];
        live++;
    }
    free(table);
    table = fresh;
    capacity = new_capacity;
    used = live;
    return 1;
}

int handle_register(const void *p, handle_kind kind)
{
    pthread_mutex_lock(&registry_lock);
    int ok = 1;
    if ((used + 1) * 2 > capacity)
        ok = registry_grow();
    if (ok) {
        size_t j = hash_pointer(p) & (capacity - 1);
        while (table[j].key && table[j].key != TOMBSTONE)
            j = (j + 1) & (capacity - 1);
        if (!table[j].key)
            used++;
        table[j].key = p;
        table[j].kind = kind;
    }
    pthread_mutex_unlock(&registry_lock);
    return ok;
}

static registry_slot *registry_find(const void *p)
{
    if (!capacity)
        return NULL;
    size_t j = hash_pointer(p) & (capacity - 1);
    while (table[j].key) {
        if (table[j].key == p)
            return &table[j];
        j = (j + 1) & (capacity - 1);
    }
    return NULL;
}

void handle_unregister(const void *p)
{
    pthread_mutex_lock(&registry_lock);
    registry_slot *s = registry_find(p);
    if (s)
        s->key = TOMBSTONE;
    pthread_mutex_unlock(&registry_lock);
}

int handle_is_live(const void *p, handle_kind kind)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&registry_lock);
    registry_slot *s = registry_find(p);
    int live = s && s->kind == kind;
    pthread_mutex_unlock(&registry_lock);
    return live;
}

/* ---- error reporting ---------------------------------------------------- */

static _Thread_local char thread_message[DIAG_MESSAGE_MAX];

const char *acc_last_error(void)
{
    return thread_message;
}

void error_slot_init(error_slot *s)
{
    pthread_mutex_init(&s->lock, NULL);
    s->message[0] = '\0';
}

void error_slot_destroy(error_slot *s)
{
    pthread_mutex_destroy(&s->lock);
}

static acc_status record(error_slot *slot, acc_status status)
{
    if (slot) {
        pthread_mutex_lock(&slot->lock);
        memcpy(slot->message, thread_message, sizeof slot->message);
        pthread_mutex_unlock(&slot->lock);
    }
    return status;
}

acc_status api_fail(error_slot *slot, acc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(thread_message, sizeof thread_message, fmt, ap);
    va_end(ap);
    return record(slot, status);
}

acc_status api_fail_diag(error_slot *slot, const diag *d)
{
    snprintf(thread_message, sizeof thread_message, "%s", d->message);
    return record(slot, d->status);
}

static const char *handle_kind_name(handle_kind kind)
{
    switch (kind) {
    case HANDLE_CONTEXT: return "context";
    case HANDLE_GRAPH: return "graph";
    case HANDLE_PROGRAM: return "program";
    case HANDLE_EXEC: return "execution handle";
    }
    return "handle";
}

acc_status api_bad_handle(const void *p, handle_kind kind, const char *fn)
{
    if (!p)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT,
                        "%s: the %s is NULL", fn, handle_kind_name(kind));
    return api_fail(NULL, ACC_ERR_INVALID_HANDLE,
                    "%s: %p is not a live %s (already freed, or never "
                    "created by accel)",
                    fn, p, handle_kind_name(kind));
}
