/*
 * step_fallback.h — what a compiling backend (cpu, cuda) does with a step
 * it has no kernel for: schedule it on the reference interpreter with the
 * reason, or, with the context's `strict` option, fail the compile naming
 * the backend, the step and the reason.  Also the reason given to the
 * fallback of a foreign node, whose steps run only when the foreign
 * implementation refuses its arguments.
 */
#ifndef ACC_CORE_BACKEND_STEP_FALLBACK_H
#define ACC_CORE_BACKEND_STEP_FALLBACK_H

#include "core/base/diag.h"
#include "core/schedule/schedule.h"

/* Starts compiling `st` as interpreted; returns 1 when the step is part of
 * a foreign node's fallback (not counted in the plan), which stays so with
 * that reason and needs no kernel. */
int step_uncounted(sched_step *st);

/* Schedules `st` on the interpreter with the reason `why` (copied into
 * the schedule's arena); with `strict`, ACC_ERR_UNSUPPORTED naming
 * `backend`, the step and `why` instead. */
acc_status step_interpreted(sched_program *s, sched_step *st,
                            const char *backend, const char *why, int strict,
                            diag *d);

#endif
