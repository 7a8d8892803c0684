/*
 * test_cache_readonly.c — a cache folder that cannot take new files never
 * fails a compile: kernels already in it are still used, new ones are
 * compiled in a private temporary folder, and the note says why
 * (core/cache/cache_folder.h).
 *
 * Read-only: root bypasses permission checks, so a child process gives up
 * root for uid/gid 65534 (nobody) and uses a folder it owns, mode 0500:
 * the writes really fail with EACCES.  Full: the test hook
 * cache_folder_fail_writes makes every write into the folder fail with
 * ENOSPC.
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "core/cache/cache_folder.h"
#include "cpu_support.h"
#include "support.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TestSuite(cache_readonly, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

Test(cache_readonly, full_folder_falls_back)
{
    char names[8][64];
    acc_context *ctx = cs_context(ts_cpu_cache_dir);
    acc_free(cs_run(ctx, 21));
    acc_context_destroy(ctx);
    cr_assert_eq(cs_names(ts_cpu_cache_dir, ".so", names, 8), 1);

    cache_folder_fail_writes(ENOSPC);
    ctx = cs_context(ts_cpu_cache_dir);
    char *json = cs_run(ctx, 21);
    cr_expect_eq(cs_figure(json, "disk_hits"), 1, "still read: %s", json);
    acc_free(json);
    json = cs_run(ctx, 22); /* a new kernel: compiled elsewhere */
    cr_expect_eq(cs_figure(json, "compiled"), 1, "%s", json);
    cr_expect(strstr(json, "cannot be written (No space left on device); "
                     "new kernels are compiled in the private temporary "
                     "folder ") != NULL, "%s", json);
    acc_free(json);
    char *note = cs_note(ctx), *folder = cs_folder(ctx);
    cr_expect(strstr(note, ts_cpu_cache_dir) && strstr(note, folder),
              "%s", note);
    cr_expect_str_neq(folder, ts_cpu_cache_dir);
    cr_expect_eq(cs_names(folder, ".so", names, 8), 1);
    acc_free(note);
    acc_free(folder);
    acc_context_destroy(ctx);
    cache_folder_fail_writes(0);
    cr_expect_eq(cs_names(ts_cpu_cache_dir, ".so", names, 8), 1,
                 "nothing new in the full folder");
}

/* ---- a read-only folder, as an unprivileged user --------------------------------- */

enum { NOBODY = 65534 };

/* In the child: a context over dir, k compiled and run; the plan's
 * figure `figure` must be 1 and, when want_note is not NULL, the
 * context's note must contain it.  0 on failure. */
static int child_expect(const char *dir, int64_t k, const char *figure,
                        const char *want_note)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    char *json = NULL, *folder = NULL, *note = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = dir;
    int ok = acc_context_create(&o, &ctx) == ACC_OK && cs_try(ctx, k, &json);
    ok = ok && cs_figure(json, figure) == 1;
    ok = ok && acc_context_kernel_cache(ctx, &folder, &note) == ACC_OK &&
         (!want_note || strstr(note, want_note) != NULL);
    if (!ok)
        fprintf(stderr, "child: k = %lld in %s: plan %s, note '%s'\n",
                (long long)k, dir, json ? json : "-", note ? note : "-");
    acc_free(json);
    acc_free(folder);
    acc_free(note);
    acc_context_destroy(ctx);
    return ok;
}

/* Runs fn as uid/gid nobody in a child; asserts it succeeded. */
static void as_nobody(int (*fn)(const char *dir), const char *dir)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        int ok = setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 &&
                 setuid(NOBODY) == 0 && geteuid() == NOBODY;
        if (!ok)
            fprintf(stderr, "child: cannot become nobody: %s\n",
                    strerror(errno));
        _exit(ok && fn(dir) ? 0 : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the unprivileged child failed (status %d; its stderr says why)",
              status);
}

/* A folder for nobody: DIR/ro (DIR made traversable), owned by nobody. */
static void nobody_folder(char *dir, size_t size, mode_t mode)
{
    if (geteuid() != 0)
        cr_skip_test("needs root, to run a child as another user");
    acc_context_destroy(cs_context(ts_cpu_cache_dir)); /* probe cc here */
    cr_assert_eq(chmod(ts_cpu_cache_dir, 0755), 0);
    snprintf(dir, size, "%s/ro", ts_cpu_cache_dir);
    cr_assert_eq(mkdir(dir, 0700), 0);
    cr_assert_eq(chown(dir, NOBODY, NOBODY), 0);
    cr_assert_eq(chmod(dir, mode), 0);
}

static int read_only_from_the_start(const char *dir)
{
    return child_expect(dir, 23, "compiled", "refused: its secret secret.key "
                        "cannot be created: Permission denied");
}

Test(cache_readonly, read_only_empty_folder_falls_back)
{
    char dir[400], names[4][64];
    nobody_folder(dir, sizeof dir, 0500);
    as_nobody(read_only_from_the_start, dir);
    cr_expect_eq(cs_names(dir, NULL, names, 4), 0, "nothing written");
}

static int populate_then_read_only(const char *dir)
{
    if (!child_expect(dir, 24, "compiled", NULL) || chmod(dir, 0500) != 0)
        return 0;
    return child_expect(dir, 24, "disk_hits", NULL) &&
           child_expect(dir, 25, "compiled", "cannot be written (Permission "
                        "denied); new kernels are compiled in the private "
                        "temporary folder");
}

Test(cache_readonly, read_only_folder_still_serves_its_kernels)
{
    char dir[400], names[4][64];
    nobody_folder(dir, sizeof dir, 0700);
    as_nobody(populate_then_read_only, dir);
    cr_expect_eq(cs_names(dir, ".so", names, 4), 1, "only the first kernel");
}
