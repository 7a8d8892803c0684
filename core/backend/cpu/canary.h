/*
 * canary.h — the canary kernels of the CPU backend's probe: the loop
 * shapes the skeletons rely on (core/skeletons/cpu/canary.c.in), built
 * with one toolchain exactly as kernels are, run over lengths that
 * straddle their lane groups and blocks, and compared with results
 * computed by the library in plain C.  probe.c runs them for each set of
 * flags it tries.
 */
#ifndef ACC_CORE_BACKEND_CPU_CANARY_H
#define ACC_CORE_BACKEND_CPU_CANARY_H

#include "core/backend/cpu/toolchain.h"
#include "core/base/diag.h"

typedef struct cpu_canary_report {
    int built;         /* the canaries compiled, loaded and ran */
    int passed, total; /* canaries that gave the library's results */
    char failed[256];  /* the names of those that did not, ", "-separated */
    diag d;            /* when not built, why: ACC_ERR_COMPILE (the
                          compiler's complaint, a probe that does not load
                          or run) or out of host memory */
} cpu_canary_report;

/* Builds and runs the canaries with toolchain tc.  `attempt` counts the
 * toolchains tried before this one in a probe (for the test hook
 * ACC_CPU_CANARY_BREAK, docs/CPU_BACKEND.md).  Returns 1 when every
 * canary passed; r says what happened either way (a verdict on the
 * toolchain, not an error of the caller's). */
int cpu_canaries_run(const cpu_toolchain *tc, int attempt,
                     cpu_canary_report *r);

/* The canaries' names, ", "-separated ("widening-fold, lane-folds, ..."),
 * and how many there are. */
const char *cpu_canary_names(void);
int cpu_canary_count(void);

#endif
