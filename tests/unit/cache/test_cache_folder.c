/*
 * test_cache_folder.c — the cache folder is used only when it is safe
 * (core/cache/cache_folder.h): created private (0700); refused when owned
 * by another user, writable by group or others, a symbolic link, or below
 * a folder others can change; a refused folder is never written to, the
 * reason is reported (acc_context_kernel_cache, and the plan's
 * "cache_note"), and programs still compile and run from a private
 * temporary folder, removed with the context.
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "cpu_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TestSuite(cache_folder, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

static void path_in(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", ts_cpu_cache_dir, name);
}

/* A context over `dir` refuses it with a note containing `why`, compiles
 * and runs in a private temporary folder, writes nothing into `dir`, and
 * removes the temporary folder when destroyed. */
static void expect_refused(const char *dir, const char *why)
{
    char names[4][64];
    acc_context *ctx = cs_context(dir);
    char *note = cs_note(ctx), *folder = cs_folder(ctx);
    cr_expect(strstr(note, "refused") && strstr(note, why),
              "note: '%s', expected '%s'", note, why);
    cr_expect(strstr(note, folder), "the note names %s: %s", folder, note);
    cr_expect_str_neq(folder, dir);
    struct stat st;
    cr_assert_eq(lstat(folder, &st), 0);
    cr_expect(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700 &&
              st.st_uid == geteuid(), "%s is private", folder);
    char *json = cs_run(ctx, 5); /* compiles and checks the results */
    cr_expect_eq(cs_figure(json, "compiled"), 1, "%s", json);
    cr_expect(strstr(json, "\"cache_note\":\"kernel cache ") != NULL, "%s",
              json);
    acc_free(json);
    cr_expect_eq(cs_names(folder, ".so", names, 4), 1, "compiled in %s",
                 folder);
    acc_context_destroy(ctx);
    cr_expect_neq(lstat(folder, &st), 0, "%s removed with the context",
                  folder);
    acc_free(note);
    acc_free(folder);
}

static size_t entries(const char *dir)
{
    char names[16][64];
    return cs_names(dir, NULL, names, 16);
}

Test(cache_folder, created_private_with_every_missing_component)
{
    char dir[400], parent[400];
    path_in(parent, sizeof parent, "a");
    path_in(dir, sizeof dir, "a/b/accel");
    acc_context *ctx = cs_context(dir);
    char *note = cs_note(ctx), *folder = cs_folder(ctx);
    cr_expect_str_empty(note);
    cr_expect_str_eq(folder, dir);
    acc_free(cs_run(ctx, 1));
    acc_context_destroy(ctx);
    struct stat st;
    const char *made[] = {parent, dir};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(stat(made[i], &st), 0);
        cr_expect_eq(st.st_mode & 0777, 0700, "%s: %o", made[i],
                     st.st_mode & 0777);
    }
    char secret[500];
    snprintf(secret, sizeof secret, "%s/secret.key", dir);
    cr_assert_eq(lstat(secret, &st), 0);
    cr_expect(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600 &&
              st.st_size == 16);
    acc_free(note);
    acc_free(folder);
}

Test(cache_folder, writable_by_others_is_refused)
{
    char dir[400];
    path_in(dir, sizeof dir, "open");
    cr_assert_eq(mkdir(dir, 0700), 0);
    cr_assert_eq(chmod(dir, 0777), 0);
    expect_refused(dir, "is writable by group or others (mode 0777)");
    cr_expect_eq(entries(dir), 0, "nothing written into %s", dir);
    cr_assert_eq(chmod(dir, 0720), 0); /* group alone is enough */
    expect_refused(dir, "is writable by group or others (mode 0720)");
}

Test(cache_folder, owned_by_another_user_is_refused)
{
    char dir[400];
    if (geteuid() != 0)
        cr_skip_test("needs root to give a folder to another user");
    path_in(dir, sizeof dir, "theirs");
    cr_assert_eq(mkdir(dir, 0700), 0);
    cr_assert_eq(chown(dir, 65534, 65534), 0);
    expect_refused(dir, "is owned by uid 65534, not by this user (uid 0)");
    cr_expect_eq(entries(dir), 0, "nothing written into %s", dir);
}

Test(cache_folder, symbolic_link_is_refused)
{
    char dir[400], target[400];
    path_in(target, sizeof target, "target");
    path_in(dir, sizeof dir, "link");
    cr_assert_eq(mkdir(target, 0700), 0);
    cr_assert_eq(symlink(target, dir), 0);
    expect_refused(dir, "is a symbolic link");
    cr_expect_eq(entries(target), 0, "nothing written through the link");
}

Test(cache_folder, below_a_folder_others_can_change_is_refused)
{
    char parent[400], dir[500];
    path_in(parent, sizeof parent, "shared");
    cr_assert_eq(mkdir(parent, 0700), 0);
    cr_assert_eq(chmod(parent, 0777), 0); /* no sticky bit */
    snprintf(dir, sizeof dir, "%s/accel", parent);
    cr_assert_eq(mkdir(dir, 0700), 0);
    expect_refused(dir, "its parent folder");
    cr_expect_eq(entries(dir), 0);
    /* with the sticky bit (like /tmp) others cannot replace it: fine */
    cr_assert_eq(chmod(parent, 01777), 0);
    acc_context *ctx = cs_context(dir);
    char *note = cs_note(ctx);
    cr_expect_str_empty(note);
    acc_free(note);
    acc_context_destroy(ctx);
}

Test(cache_folder, kernel_cache_query_arguments_and_interpreter_contexts)
{
    char dir[400];
    char *got = (char *)dir, *note = (char *)dir;
    path_in(dir, sizeof dir, "for-interp");
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.cache_dir = dir;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK);
    cr_expect_eq(acc_context_kernel_cache(ctx, NULL, &note),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_expect_null(note, "out-pointers are reset on failure");
    cr_expect(strstr(acc_last_error(), "dir is NULL"), "%s",
              acc_last_error());
    cr_expect_eq(acc_context_kernel_cache(ctx, &got, NULL),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_expect_null(got);
    cr_expect_eq(acc_context_kernel_cache(NULL, &got, &note),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "the context is NULL"), "%s",
              acc_last_error());

    /* an interpreter context answers for a compiling one */
    cr_assert_eq(acc_context_kernel_cache(ctx, &got, &note), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_str_eq(got, dir);
    cr_expect_str_empty(note);
    struct stat st;
    cr_assert_eq(stat(dir, &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0700);
    acc_free(got);
    acc_free(note);
    cr_assert_eq(chmod(dir, 0777), 0);
    cr_assert_eq(acc_context_kernel_cache(ctx, &got, &note), ACC_OK);
    cr_expect(strstr(note, "refused"), "%s", note);
    struct stat tmp;
    cr_expect_neq(stat(got, &tmp), 0, "the temporary folder made for the "
                  "answer is gone: %s", got);
    acc_free(got);
    acc_free(note);
    acc_context_destroy(ctx);
}
