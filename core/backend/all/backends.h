/*
 * backends.h — the list of backends (interp, cpu, cuda), which of them
 * work here and why, and the choice a context makes.  The only code that
 * names each backend; everything else holds a `backend *` and calls its
 * operations (core/backend/backend.h).
 *
 * Availability is probed when a context is created, except the CPU's:
 * its probe compiles and loads a kernel, so it runs only when its answer
 * is needed (a context asking for AUTO or CPU, or the first availability
 * query for CPU; the result is memoised per process and compiler, see
 * core/backend/cpu/toolchain.h).  The CUDA probe only loads libraries and
 * asks the driver about the device; a context that runs on CUDA then
 * opens the device, and when that fails AUTO falls back with the reason
 * recorded.
 */
#ifndef ACC_CORE_BACKEND_ALL_BACKENDS_H
#define ACC_CORE_BACKEND_ALL_BACKENDS_H

#include "core/backend/backend.h"

enum { BACKENDS_COUNT = 4, BACKENDS_REASON_MAX = 1024 };

/* What a context knows of the backends: per acc_backend value, whether
 * it is available and a sentence saying why or why not. */
typedef struct backends_state {
    backend_config config;
    int available[BACKENDS_COUNT];
    const char *reason[BACKENDS_COUNT]; /* static, or into reasons[] */
    char reasons[BACKENDS_COUNT][BACKENDS_REASON_MAX];
    int probed[BACKENDS_COUNT];
} backends_state;

/* The operations of backend `kind` (NULL for AUTO). */
const backend_ops *backends_ops(acc_backend kind);

/* Probes the backends that are probed at once (c is copied; its strings
 * must outlive the state).  `probe` 0 (a scratch context that only builds
 * graphs): the interpreter only, the others unavailable, never probed. */
void backends_init(backends_state *s, const backend_config *c, int probe);
/* Probes `kind` now unless it was (the caller serialises calls). */
void backends_probe(backends_state *s, acc_backend kind);
/* Chooses the backend for a context that asked for `asked` (AUTO: the
 * best available: CUDA, then CPU, then the interpreter) and opens it.
 * When opening fails for a reason other than memory, the backend becomes
 * unavailable with that reason and AUTO takes the next best.  On failure
 * records the status and a message naming the backend on d. */
backend *backends_open(backends_state *s, acc_backend asked, diag *d);

#endif
