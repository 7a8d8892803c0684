/*
 * probe.h — whether the CPU backend's C compiler works, and with which
 * flags.
 *
 * The probe builds the canary kernels (canary.h) with the configured
 * compiler and flags and checks their results.  When a canary fails, it
 * tries safer toolchains in order — the same flags plus
 * -fno-tree-loop-vectorize (clang's -fno-vectorize when the configured
 * compiler is clang); then also without -march=native; then clang
 * (when the configured compiler is not clang and clang runs), with and
 * without -march=native — and keeps the first whose canaries all pass.
 * When none does, the CPU backend is unavailable, with the failures as
 * the reason.  A configured compiler that does not build the canaries at
 * all makes the backend unavailable with its complaint (no fallback: that
 * is how ACC_CC=/bin/false turns the backend off).
 *
 * The outcome is remembered per process and configured toolchain, and in
 * a stamp file in the kernel cache folder (canaries-KEY.txt), keyed by
 * the configured toolchain, the compiler's identity (where PATH finds it,
 * its size and time, its version macros), the canary source and the test
 * hook: a new process then decides without compiling anything.
 */
#ifndef ACC_CORE_BACKEND_CPU_PROBE_H
#define ACC_CORE_BACKEND_CPU_PROBE_H

#include "core/backend/cpu/toolchain.h"

#include <stddef.h>

/* Probes configured toolchain *tc (cpu_toolchain_init), using stamp files
 * in `cache_dir` (NULL: the default kernel cache folder).  Returns 1 when
 * a toolchain works: *tc is then the chosen one (the configured one, or a
 * fallback) and `report` says which canaries ran, which failed with what,
 * and what was chosen.  Returns 0 when the configured compiler does not
 * build and run the canaries (`report`: its complaint), -1 when no
 * toolchain tried passes them (`report`: which failed with what). */
int cpu_toolchain_probe(cpu_toolchain *tc, const char *cache_dir,
                        char *report, size_t report_len);

/* Forgets the outcomes this process remembers, so that the next probe
 * decides again, from a stamp file or the compiler (for tests). */
void cpu_toolchain_probe_forget(void);

#endif
