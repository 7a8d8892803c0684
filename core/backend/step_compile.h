/*
 * step_compile.h — what every compiling backend (cpu, cuda) does around
 * its own kernel compiler: walk the schedule's array steps in order,
 * bodies of control steps included, and keep the kernels it built so the
 * program can free them.  The backend supplies the one step it compiles;
 * the walk and the list are the same for all.
 */
#ifndef ACC_CORE_BACKEND_STEP_COMPILE_H
#define ACC_CORE_BACKEND_STEP_COMPILE_H

#include "core/base/diag.h"
#include "core/schedule/schedule.h"

#include <stddef.h>

/* Compiles one array step; records its error in `d` and returns it. */
typedef acc_status (*step_compiler)(void *ctx, sched_step *st, diag *d);

/* Calls `compile` on every SCHED_ARRAY step of `sc` and of the bodies of
 * its control steps, in schedule order, stopping at the first error in
 * `d` (which may be set already: then nothing runs).  Returns d's
 * status. */
acc_status step_compile_all(const schedule *sc, step_compiler compile,
                            void *ctx, diag *d);

/* The kernels a program owns, as untyped pointers: the backend knows their
 * type and frees each before step_kept_free frees the list. */
typedef struct step_kept {
    void **items;
    size_t n, cap;
} step_kept;

/* Appends `item`; out of memory is recorded in `d` (acc_compile) and
 * `item` is not kept (the caller still owns it). */
acc_status step_keep(step_kept *k, void *item, diag *d);
void step_kept_free(step_kept *k);

#endif
