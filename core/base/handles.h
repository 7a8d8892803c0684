/*
 * handles.h — the registry of live handles and the per-handle error slot.
 *
 * Every context, graph, program and execution handle is registered while
 * it lives.  An API
 * function checks a pointer against the registry before it dereferences it,
 * so a freed (or never created) handle is reported as ACC_ERR_INVALID_HANDLE
 * instead of being read.  The check cannot tell a freed handle from a new
 * one that happens to reuse its address; that limit is documented.
 */
#ifndef ACC_CORE_BASE_HANDLES_H
#define ACC_CORE_BASE_HANDLES_H

#include "accel.h"
#include "core/base/diag.h"

#include <pthread.h>

typedef enum handle_kind {
    HANDLE_CONTEXT = 1,
    HANDLE_GRAPH = 2,
    HANDLE_PROGRAM = 3,
    HANDLE_EXEC = 4
} handle_kind;

int handle_register(const void *p, handle_kind kind);
void handle_unregister(const void *p);
int handle_is_live(const void *p, handle_kind kind);
/* The registry's slots (for tests: it stays proportional to the handles
 * alive at once, however many came and went). */
size_t handle_registry_capacity(void);

/* The message slot of a handle: the last failing call on it. */
typedef struct error_slot {
    pthread_mutex_t lock;
    char message[DIAG_MESSAGE_MAX];
} error_slot;

void error_slot_init(error_slot *s);
void error_slot_destroy(error_slot *s);

/* Records an error for the calling thread (acc_last_error) and, when `slot`
 * is not NULL, on the handle.  Returns `status`. */
acc_status api_fail(error_slot *slot, acc_status status, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));
/* The same for a diag already filled by a pass. */
acc_status api_fail_diag(error_slot *slot, const diag *d);
/* A message for a pointer that is not a live handle of `kind`. */
acc_status api_bad_handle(const void *p, handle_kind kind, const char *fn);

#endif
