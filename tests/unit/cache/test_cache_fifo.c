/*
 * test_cache_fifo.c — entries named like a kernel that are not regular
 * files: a FIFO (which a blocking open would wait on forever), a folder,
 * and a FIFO at the secret's name.  None is opened for reading; each is
 * removed and replaced, and the kernel compiles and runs.  The suite has
 * a timeout: a hang fails it.
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "cpu_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TestSuite(cache_fifo, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir,
          .timeout = 60);

/* The kernel file's path, from a first compile (then removed). */
static void kernel_path(char *path, size_t size)
{
    char names[4][64];
    acc_context *ctx = cs_context(ts_cpu_cache_dir);
    acc_free(cs_run(ctx, 13));
    acc_context_destroy(ctx);
    cr_assert_eq(cs_names(ts_cpu_cache_dir, ".so", names, 4), 1);
    snprintf(path, size, "%s/%s", ts_cpu_cache_dir, names[0]);
    cr_assert_eq(unlink(path), 0);
}

static void expect_replaced(const char *path)
{
    struct stat st;
    acc_context *ctx = cs_context(ts_cpu_cache_dir);
    char *json = cs_run(ctx, 13);
    cr_expect_eq(cs_figure(json, "compiled"), 1, "%s", json);
    acc_free(json);
    acc_context_destroy(ctx);
    cr_assert_eq(lstat(path, &st), 0);
    cr_expect(S_ISREG(st.st_mode), "%s is a sealed kernel file now", path);
}

Test(cache_fifo, fifo_named_like_a_kernel)
{
    char path[400];
    kernel_path(path, sizeof path);
    cr_assert_eq(mkfifo(path, 0600), 0);
    expect_replaced(path);
}

Test(cache_fifo, folder_named_like_a_kernel)
{
    char path[400], inner[500];
    kernel_path(path, sizeof path);
    cr_assert_eq(mkdir(path, 0700), 0);
    snprintf(inner, sizeof inner, "%s/x", path);
    FILE *f = fopen(inner, "w");
    cr_assert_not_null(f);
    fclose(f);
    expect_replaced(path);
}

Test(cache_fifo, fifo_named_like_the_secret)
{
    char path[400], secret[400];
    kernel_path(path, sizeof path);
    snprintf(secret, sizeof secret, "%s/secret.key", ts_cpu_cache_dir);
    cr_assert_eq(unlink(secret), 0);
    cr_assert_eq(mkfifo(secret, 0600), 0);
    expect_replaced(path);
    struct stat st;
    cr_assert_eq(lstat(secret, &st), 0);
    cr_expect(S_ISREG(st.st_mode) && st.st_size == 16);
}
