/*
 * test_cache_planted.c — a shared object planted in the cache folder under
 * a kernel's name is never loaded: its constructor (which would write a
 * marker file) never runs, the kernel is compiled again and the result is
 * right.  The planted object exports exactly what the cache used to check
 * after dlopen ("accel-cpu-kernel-v1:KEY"), so only the seal, verified
 * before anything maps the file, keeps it out (core/cache/cache_file.h).
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "core/backend/cpu/kernel_abi.h"
#include "cpu_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TestSuite(cache_planted, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

static char marker[300];

/* Compiles a shared object whose constructor writes `marker` and which
 * exports the kernel symbols for `key`, into `path`. */
static void plant(const char *path, const char *key)
{
    char src[400], cmd[1200];
    snprintf(src, sizeof src, "%s/planted.c", ts_cpu_cache_dir);
    FILE *f = fopen(src, "w");
    cr_assert_not_null(f);
    fprintf(f, "#include <stdio.h>\n"
            "__attribute__((constructor)) static void planted(void)\n"
            "{ FILE *m = fopen(\"%s\", \"w\"); if (m) fclose(m); }\n"
            "const char accel_kernel_abi[] = \"%s:%s\";\n"
            "void accel_kernel_run(void);\n"
            "void accel_kernel_run(void) {}\n", marker, CPU_KERNEL_ABI, key);
    cr_assert_eq(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s' '%s'", path, src);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    unlink(src);
}

/* The last `n` bytes of file `path` into buf. */
static void tail_of(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, -(long)n, SEEK_END), 0);
    cr_assert_eq(fread(buf, 1, n, f), n);
    fclose(f);
}

static void append(const char *path, const char *bytes, size_t n)
{
    FILE *f = fopen(path, "ab");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

/* Compiles the program once, then replaces its kernel file by a planted
 * object (with the real file's seal appended when replay is set), and
 * checks that a new context never runs it. */
static void expect_planted_object_ignored(int replay)
{
    char names[8][64], path[400], seal[98];
    snprintf(marker, sizeof marker, "%s.marker", ts_cpu_cache_dir);
    unlink(marker);
    acc_context *ctx = cs_context(ts_cpu_cache_dir);
    acc_free(cs_run(ctx, 3));
    acc_context_destroy(ctx);
    cr_assert_eq(cs_names(ts_cpu_cache_dir, ".so", names, 8), 1);
    snprintf(path, sizeof path, "%s/%s", ts_cpu_cache_dir, names[0]);
    tail_of(path, seal, sizeof seal);
    cr_assert_eq(memcmp(seal + 1, "accel-seal-v1 ", 14), 0,
                 "the cached kernel ends with its seal");
    char key[33];
    snprintf(key, sizeof key, "%.32s", names[0]);
    plant(path, key);
    if (replay)
        append(path, seal, sizeof seal);

    ctx = cs_context(ts_cpu_cache_dir);
    char *json = cs_run(ctx, 3); /* checks the results */
    cr_expect_eq(cs_figure(json, "compiled"), 1, "%s", json);
    cr_expect_eq(cs_figure(json, "disk_hits"), 0, "%s", json);
    acc_free(json);
    acc_context_destroy(ctx);
    cr_expect_neq(access(marker, F_OK), 0, "the planted constructor ran");
    char again[98];
    tail_of(path, again, sizeof again);
    cr_expect_eq(memcmp(again + 1, "accel-seal-v1 ", 14), 0,
                 "a sealed kernel replaced it");
}

Test(cache_planted, planted_object_is_never_loaded)
{
    expect_planted_object_ignored(0);
}

Test(cache_planted, planted_object_with_a_copied_seal_is_never_loaded)
{
    expect_planted_object_ignored(1);
}
