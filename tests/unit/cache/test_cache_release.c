/*
 * test_cache_release.c — kernels are unloaded when the last program using
 * them is freed (core/backend/cpu/kernel_cache.h): compiling and freeing many
 * distinct programs in one context keeps the loaded kernels, and their
 * memory maps, bounded by CACHE_IDLE_MAX recently freed ones plus the
 * kernels of live programs; a kernel still used is never unloaded.
 * ACC_TEST_PROGRAMS=300 runs the figure of the issue (about a minute).
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "core/backend/cpu/kernel_load.h"
#include "core/cache/cache_store.h"
#include "cpu_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(cache_release, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

/* Lines of /proc/self/maps that map a file of folder dir. */
static size_t maps_in(const char *dir)
{
    char line[4600], prefix[300];
    size_t n = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    cr_assert_not_null(f);
    snprintf(prefix, sizeof prefix, " %s/", dir);
    while (fgets(line, sizeof line, f))
        n += strstr(line, prefix) != NULL;
    fclose(f);
    return n;
}

/* How many programs: ACC_TEST_PROGRAMS (the figure is 300), else
 * twice the recently-freed list, as each one costs a compiler run. */
static int64_t programs(void)
{
    const char *v = getenv("ACC_TEST_PROGRAMS");
    return v && atol(v) > 0 ? atol(v) : 2 * CACHE_IDLE_MAX;
}

Test(cache_release, freed_programs_unload_their_kernels, .timeout = 600)
{
    const int64_t PROGRAMS = programs();
    acc_context *ctx = cs_context(ts_cpu_cache_dir);
    size_t before = cache_dl_loaded();
    acc_program *keep = cs_compile(ctx, 100000); /* live throughout */
    size_t per_kernel = maps_in(ts_cpu_cache_dir);
    cr_assert_gt(per_kernel, 0, "the kernel's file is mapped");
    size_t most = 0, most_maps = 0;
    for (int64_t k = 0; k < PROGRAMS; k++) {
        acc_program *p = cs_compile(ctx, k);
        if (k % 50 == 0)
            cs_check(p, k);
        acc_program_free(p);
        size_t loaded = cache_dl_loaded() - before, maps = maps_in(ts_cpu_cache_dir);
        most = loaded > most ? loaded : most;
        most_maps = maps > most_maps ? maps : most_maps;
    }
    cr_expect_eq(most, CACHE_IDLE_MAX + 1, "at most the recently freed and "
                 "the live program's kernels were loaded (%zu)", most);
    cr_expect_leq(most_maps, (CACHE_IDLE_MAX + 1) * per_kernel,
                  "%zu maps of cached kernels, %zu per kernel", most_maps,
                  per_kernel);
    cs_check(keep, 100000); /* its kernel was never unloaded */

    /* the most recently freed kernel is still in memory; the first one was
     * unloaded and comes back from its file */
    char *json = cs_run(ctx, PROGRAMS - 1);
    cr_expect_eq(cs_figure(json, "memory_hits"), 1, "%s", json);
    acc_free(json);
    json = cs_run(ctx, 0);
    cr_expect_eq(cs_figure(json, "disk_hits"), 1, "%s", json);
    acc_free(json);

    acc_program_free(keep);
    acc_context_destroy(ctx);
    cr_expect_eq(cache_dl_loaded(), before, "the context unloaded the rest");
    cr_expect_eq(maps_in(ts_cpu_cache_dir), 0);
}
