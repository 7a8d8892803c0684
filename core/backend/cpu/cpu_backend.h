/*
 * cpu_backend.h — the CPU backend of a context (its compiler, kernel cache
 * and thread pool) and of a program (its compiled kernels, and the hook
 * through which the interpreter, as host-side scheduler, runs them).
 *
 * Kernels are compiled at acc_compile time for the plan steps that have a
 * CPU skeleton (core/codegen/kernel_cpu.h); the program keeps them in a
 * table by node id, read-only afterwards, so runs from several threads
 * share it.  A step without a kernel is evaluated by the interpreter.  A
 * kernel that reports a runtime error (its error slot) leaves the step to
 * the interpreter, which reports the error with its own message.
 */
#ifndef ACC_CORE_BACKEND_CPU_CPU_BACKEND_H
#define ACC_CORE_BACKEND_CPU_CPU_BACKEND_H

#include "core/backend/host/pool.h"
#include "core/backend/cpu/toolchain.h"
#include "core/backend/interp/interp.h"
#include "core/base/strbuf.h"
#include "core/backend/cpu/kernel_cache.h"
#include "core/schedule/plan.h"

typedef struct cpu_backend {
    cpu_toolchain tc;
    kcache *cache;
    pool *pool;
} cpu_backend;

/* Whether the CPU backend works here: a C compiler, with flags that pass
 * the canaries (probe.h; stamp files in cache folder `cache_dir`, NULL:
 * the default).  `why` receives a sentence either way (when available:
 * the compiler and flags, the canaries and what they chose). */
int cpu_backend_probe(const char *cache_dir, char *why, size_t why_len);
/* The backend of a context: cache folder (NULL: default) and threads
 * (0: pool_default_threads()), with the toolchain the probe chose (call
 * cpu_backend_probe first).  NULL when out of resources or when no
 * toolchain works. */
cpu_backend *cpu_backend_create(const char *cache_dir, int32_t threads);
void cpu_backend_destroy(cpu_backend *b);

typedef struct cpu_program cpu_program;

/* Compiles the kernels of program ir (with plan pl).  Errors (compiler
 * failures, out of memory) are recorded on d. */
acc_status cpu_program_build(cpu_backend *be, const ir_program *ir,
                             const plan *pl, cpu_program **out, diag *d);
void cpu_program_free(cpu_program *cp);
/* The interpreter hook that runs cp's kernels (NULL for a NULL cp). */
const interp_hook *cpu_program_hook(const cpu_program *cp);
/* Kernels and cache figures, appended to the plan's description (JSON: a
 * "cpu" member added to the object in b). */
void cpu_program_describe(strbuf *b, const cpu_program *cp, int json);

#endif
