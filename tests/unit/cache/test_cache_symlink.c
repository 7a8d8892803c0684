/*
 * test_cache_symlink.c — symbolic links planted in the cache folder, at a
 * kernel's final name, at its secret's name, and at every temporary name
 * the cache used to derive from the process id and a counter, never make
 * accel write through them: the file they point at is unchanged, the
 * links at the kernel's and the secret's names are replaced by files of
 * accel's own, and the kernel is compiled and runs.  (Temporary names are
 * now random and opened with O_EXCL|O_NOFOLLOW: core/cache/cache_file.h.)
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "cpu_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TestSuite(cache_symlink, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

static const char precious[] = "precious root-only data\n";

static void read_victim(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

Test(cache_symlink, links_at_kernel_secret_and_temporary_names)
{
    char scratch[400], dir[400], victim[400], link[600], names[4][64];
    snprintf(scratch, sizeof scratch, "%s/scratch", ts_cpu_cache_dir);
    snprintf(dir, sizeof dir, "%s/cache", ts_cpu_cache_dir);
    snprintf(victim, sizeof victim, "%s/victim", ts_cpu_cache_dir);
    FILE *f = fopen(victim, "w");
    cr_assert_not_null(f);
    fputs(precious, f);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(chmod(victim, 0600), 0);

    /* the kernel's name, learned from a first compile elsewhere */
    acc_context *ctx = cs_context(scratch);
    acc_free(cs_run(ctx, 9));
    acc_context_destroy(ctx);
    cr_assert_eq(cs_names(scratch, ".so", names, 4), 1);
    char key[33];
    snprintf(key, sizeof key, "%.32s", names[0]);

    cr_assert_eq(mkdir(dir, 0700), 0);
    snprintf(link, sizeof link, "%s/%s.so", dir, key);
    cr_assert_eq(symlink(victim, link), 0);
    snprintf(link, sizeof link, "%s/secret.key", dir);
    cr_assert_eq(symlink(victim, link), 0);
    for (unsigned n = 0; n < 64; n++) {
        static const char *const suffixes[] = {"c", "so.tmp", "tmp"};
        for (int s = 0; s < 3; s++) {
            snprintf(link, sizeof link, "%s/%s.%ld.%u.%s", dir, key,
                     (long)getpid(), n, suffixes[s]);
            cr_assert_eq(symlink(victim, link), 0);
        }
    }

    ctx = cs_context(dir);
    char *note = cs_note(ctx);
    cr_expect_str_empty(note, "the folder itself is fine: %s", note);
    acc_free(note);
    char *json = cs_run(ctx, 9); /* compiles and checks the results */
    cr_expect_eq(cs_figure(json, "compiled"), 1, "%s", json);
    acc_free(json);
    acc_context_destroy(ctx);

    char got[200];
    struct stat st;
    read_victim(victim, got, sizeof got);
    cr_expect_str_eq(got, precious, "the linked file was written");
    cr_assert_eq(stat(victim, &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0600);
    char own[2][600];
    snprintf(own[0], sizeof own[0], "%s/%s.so", dir, key);
    snprintf(own[1], sizeof own[1], "%s/secret.key", dir);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(lstat(own[i], &st), 0, "%s", own[i]);
        cr_expect(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600, "%s "
                  "is accel's own private file now", own[i]);
    }
}
