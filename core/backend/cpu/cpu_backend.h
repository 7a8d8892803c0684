/*
 * cpu_backend.h — the CPU backend (backend.h: cpu_ops): a context's
 * compiler, kernel cache and thread pool; a program's kernels, compiled
 * at acc_compile time for the schedule's array steps that have a CPU
 * skeleton (core/codegen/kernel_cpu.h); and runs, in which each compiled
 * step's driver (drive_*.c) launches its kernel over the pool.  A step
 * without a kernel is run by the interpreter (the schedule says so, and
 * why).  A kernel that reports a runtime error hands its step back to
 * the interpreter (run_step's replay), which reports the error with its own
 * message.
 */
#ifndef ACC_CORE_BACKEND_CPU_CPU_BACKEND_H
#define ACC_CORE_BACKEND_CPU_CPU_BACKEND_H

#include "core/backend/backend.h"
#include "core/backend/cpu/kernel_cache.h"
#include "core/backend/cpu/toolchain.h"
#include "core/backend/host/pool.h"

extern const backend_ops cpu_ops;

typedef struct cpu_backend {
    backend base; /* &cpu_ops */
    cpu_toolchain tc;
    kcache *cache;
    pool *pool;
} cpu_backend;

/* Whether the CPU backend works here: a C compiler, with flags that pass
 * the canaries (probe.h; stamp files in cache folder `cache_dir`, NULL:
 * the default).  ACC_OK with "available: " and the compiler and flags,
 * the canaries and what they chose written into `about`; else the
 * sentence "not available: ..." recorded on d (ACC_ERR_UNSUPPORTED, or
 * out of host memory). */
acc_status cpu_backend_probe(const char *cache_dir, char *about,
                             size_t about_size, diag *d);
/* The backend of a context: cache folder (NULL: default) and threads
 * (0: pool_default_threads()), with the toolchain the probe chose (call
 * cpu_backend_probe first), and with fp_contract 1 floating-point
 * contraction (cpu_toolchain_contract).  NULL after recording out of host
 * memory on d (out of resources, or no toolchain works). */
cpu_backend *cpu_backend_create(const char *cache_dir, int32_t threads,
                                int fp_contract, diag *d);
void cpu_backend_destroy(cpu_backend *b);

#endif
