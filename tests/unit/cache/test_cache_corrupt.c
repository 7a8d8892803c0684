/*
 * test_cache_corrupt.c — a damaged cached kernel whose ELF header is
 * intact (truncated, its middle overwritten, one byte changed, the seal
 * cut off) is detected before anything maps it, removed, and compiled
 * again: no crash, right results, and the next context finds the good
 * file.
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "cpu_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TestSuite(cache_corrupt, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

typedef void (*damage_fn)(const char *path, long size);

static void truncate_half(const char *path, long size)
{
    cr_assert_eq(truncate(path, size / 2), 0);
}

static void drop_seal(const char *path, long size)
{
    cr_assert_eq(truncate(path, size - 98), 0);
}

/* Bytes [from, to) set to `byte`. */
static void overwrite(const char *path, long from, long to, int byte)
{
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, from, SEEK_SET), 0);
    for (long i = from; i < to; i++)
        fputc(byte, f);
    cr_assert_eq(fclose(f), 0);
}

/* Everything after the ELF header but the last quarter (where the
 * section header table is): program headers, dynamic section, code. */
static void scramble_middle(const char *path, long size)
{
    overwrite(path, 64, size * 3 / 4, 0xa5);
}

static void flip_one_byte(const char *path, long size)
{
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, size / 2, SEEK_SET), 0);
    int c = fgetc(f);
    cr_assert_eq(fseek(f, size / 2, SEEK_SET), 0);
    fputc(c ^ 0x01, f);
    cr_assert_eq(fclose(f), 0);
}

static void expect_rebuilt_after(damage_fn damage)
{
    char names[4][64], path[400];
    struct stat st;
    acc_context *ctx = cs_context(ts_cpu_cache_dir);
    acc_free(cs_run(ctx, 11));
    acc_context_destroy(ctx);
    cr_assert_eq(cs_names(ts_cpu_cache_dir, ".so", names, 4), 1);
    snprintf(path, sizeof path, "%s/%s", ts_cpu_cache_dir, names[0]);
    cr_assert_eq(stat(path, &st), 0);
    damage(path, (long)st.st_size);
    unsigned char head[4];
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    cr_assert_eq(fread(head, 1, 4, f), 4);
    fclose(f);
    cr_assert_eq(memcmp(head, "\177ELF", 4), 0, "the ELF header is intact");

    ctx = cs_context(ts_cpu_cache_dir);
    char *json = cs_run(ctx, 11); /* compiles and checks the results */
    cr_expect_eq(cs_figure(json, "compiled"), 1, "%s", json);
    cr_expect_eq(cs_figure(json, "disk_hits"), 0, "%s", json);
    acc_free(json);
    acc_context_destroy(ctx);
    ctx = cs_context(ts_cpu_cache_dir);
    json = cs_run(ctx, 11);
    cr_expect_eq(cs_figure(json, "disk_hits"), 1, "rebuilt: %s", json);
    acc_free(json);
    acc_context_destroy(ctx);
}

Test(cache_corrupt, truncated)
{
    expect_rebuilt_after(truncate_half);
}

Test(cache_corrupt, middle_overwritten)
{
    expect_rebuilt_after(scramble_middle);
}

Test(cache_corrupt, one_byte_changed)
{
    expect_rebuilt_after(flip_one_byte);
}

Test(cache_corrupt, seal_cut_off)
{
    expect_rebuilt_after(drop_seal);
}
