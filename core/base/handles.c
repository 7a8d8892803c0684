/*
 * handles.c — live-handle registry (open addressing on pointer keys) and
 * error reporting shared by every API function.
 */
#include "core/base/handles.h"
#include "core/base/mem.h"
#include "core/base/spin.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct registry_slot {
    const void *key; /* NULL: empty */
    handle_kind kind;
} registry_slot;

/* every run looks its program up: a spin lock, not a mutex (spin.h) */
static spin_lock registry_lock = SPIN_LOCK_INIT;
static registry_slot *table;
static size_t capacity, used; /* used: live keys */

static size_t hash_pointer(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

/* Twice the table, for one more live key.  Deletion leaves no tombstones
 * (handle_unregister shifts the probe chain back), so the table grows
 * only with the handles alive at once: handles created and freed one
 * after another, millions of times, neither grow it nor make it rebuild
 * (before, tombstones filled it and it doubled at every rebuild; and a
 * rebuild's allocation at some runs and not others made a run's
 * allocations differ from the next's). */
static int registry_grow(void)
{
    size_t new_capacity = capacity ? capacity * 2 : 64;
    registry_slot *fresh = mem_calloc(new_capacity, sizeof(registry_slot));
    if (!fresh)
        return 0;
    for (size_t i = 0; i < capacity; i++) {
        if (!table[i].key)
            continue;
        size_t j = hash_pointer(table[i].key) & (new_capacity - 1);
        while (fresh[j].key)
            j = (j + 1) & (new_capacity - 1);
        fresh[j] = table[i];
    }
    free(table);
    table = fresh;
    capacity = new_capacity;
    return 1;
}

int handle_register(const void *p, handle_kind kind)
{
    spin_acquire(&registry_lock);
    int ok = 1;
    if ((used + 1) * 2 > capacity)
        ok = registry_grow();
    if (ok) {
        size_t j = hash_pointer(p) & (capacity - 1);
        while (table[j].key)
            j = (j + 1) & (capacity - 1);
        used++;
        table[j].key = p;
        table[j].kind = kind;
    }
    spin_release(&registry_lock);
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

/* Empties slot s and moves back the keys after it in its probe chain
 * that would no longer be found (their home slot is not cyclically in
 * (s, their slot]), so that every chain stays unbroken without a
 * tombstone. */
static void registry_remove(registry_slot *s)
{
    size_t mask = capacity - 1, i = (size_t)(s - table), j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!table[j].key)
            break;
        size_t home = hash_pointer(table[j].key) & mask;
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        table[i] = table[j];
        i = j;
    }
    table[i].key = NULL;
    used--;
}

/* Bumped by every unregistration.  A pointer found live while it read e
 * is still live while it reads e (registering kills no handle): each
 * thread remembers the last handle of each kind it found, so that a
 * thread running one program again and again looks it up once
 * (handle_is_live).  A free that happens before a call, as the API asks
 * (a free concurrent with a use of the same handle is the caller's
 * race, as it always was), bumps the epoch before that call reads it. */
static atomic_ulong registry_epoch;

typedef struct live_memo {
    const void *p;
    unsigned long epoch;
} live_memo;

static _Thread_local live_memo last_live[HANDLE_EXEC + 1];

void handle_unregister(const void *p)
{
    spin_acquire(&registry_lock);
    registry_slot *s = registry_find(p);
    if (s)
        registry_remove(s);
    atomic_fetch_add_explicit(&registry_epoch, 1, memory_order_relaxed);
    spin_release(&registry_lock);
}

size_t handle_registry_capacity(void)
{
    spin_acquire(&registry_lock);
    size_t c = capacity;
    spin_release(&registry_lock);
    return c;
}

int handle_is_live(const void *p, handle_kind kind)
{
    if (!p)
        return 0;
    unsigned long e = atomic_load_explicit(&registry_epoch,
                                           memory_order_relaxed);
    live_memo *memo = (unsigned)kind <= HANDLE_EXEC ? &last_live[kind] : NULL;
    if (memo && memo->p == p && memo->epoch == e)
        return 1;
    spin_acquire(&registry_lock);
    registry_slot *s = registry_find(p);
    int live = s && s->kind == kind;
    spin_release(&registry_lock);
    /* e was read before the lookup: an unregistration since then makes
     * this memo stale, never wrong */
    if (live && memo)
        *memo = (live_memo){p, e};
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
