/*
 * cpu_backend.c — the per-context part of the CPU backend (see
 * cpu_backend.h).
 */
#include "core/backend/cpu/cpu_backend.h"

#include "core/backend/cpu/probe.h"
#include "core/base/mem.h"

#include <stdio.h>
#include <stdlib.h>

acc_status cpu_backend_probe(const char *cache_dir, char *about,
                             size_t about_size, diag *d)
{
    cpu_toolchain tc;
    char report[1024];
    if (!cpu_toolchain_init(&tc))
        return diag_oom(d, "not available");
    int ok = cpu_toolchain_probe(&tc, cache_dir, report, sizeof report);
    if (ok > 0)
        snprintf(about, about_size, "available: C kernels compiled by '%s'; "
                 "%s", tc.desc, report);
    else if (ok < 0)
        diag_fail(d, ACC_ERR_UNSUPPORTED, "not available: the C compiler '%s' "
                  "miscompiles the kernels' loops (set ACC_CC or CC to "
                  "another compiler): %s", tc.argv[0], report);
    else
        diag_fail(d, ACC_ERR_UNSUPPORTED, "not available: the C compiler '%s' "
                  "does not work (set ACC_CC or CC to one that does): %s",
                  tc.argv[0], report);
    cpu_toolchain_free(&tc);
    return ok > 0 ? ACC_OK : d->status;
}

cpu_backend *cpu_backend_create(const char *cache_dir, int32_t threads,
                                int fp_contract, diag *d)
{
    cpu_backend *b = mem_calloc(1, sizeof *b);
    if (!b) {
        diag_oom(d, "cpu backend");
        return NULL;
    }
    b->base.ops = &cpu_ops;
    char report[1024];
    /* the toolchain the probe chose (remembered: this compiles nothing) */
    if (!cpu_toolchain_init(&b->tc) ||
        cpu_toolchain_probe(&b->tc, cache_dir, report, sizeof report) <= 0 ||
        !(b->cache = cache_create(cache_dir, d)) ||
        !(b->pool = pool_create(threads > 0 ? threads
                                            : pool_default_threads()))) {
        cpu_backend_destroy(b);
        diag_oom(d, "cpu backend");
        return NULL;
    }
    if (fp_contract)
        cpu_toolchain_contract(&b->tc);
    return b;
}

void cpu_backend_destroy(cpu_backend *b)
{
    if (!b)
        return;
    pool_destroy(b->pool);
    cache_destroy(b->cache);
    cpu_toolchain_free(&b->tc);
    free(b);
}
