/*
 * diag.h — error records.
 *
 * A diag holds the first error of a compile, a builder session or a run:
 * a status code and a message a user can act on.  The first error wins;
 * later ones are dropped, so a cascade of failures reports its cause.
 */
#ifndef ACC_CORE_BASE_DIAG_H
#define ACC_CORE_BASE_DIAG_H

#include "accel.h"

enum { DIAG_MESSAGE_MAX = 1024 };

typedef struct diag {
    acc_status status;
    char message[DIAG_MESSAGE_MAX];
} diag;

void diag_clear(diag *d);
/* Records an error unless one is already recorded.  Returns the status of
 * the diag afterwards (the first error's), for `return diag_fail(...)`. */
acc_status diag_fail(diag *d, acc_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Out of host memory: the one place the internal code records it
 * (ACC_ERR_OUT_OF_HOST_MEMORY, "WHERE: out of host memory"; the first
 * error still wins).  Returns the diag's status afterwards. */
acc_status diag_oom(diag *d, const char *where);
static inline int diag_ok(const diag *d) { return d->status == ACC_OK; }

#endif
