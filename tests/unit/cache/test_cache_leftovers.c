/*
 * test_cache_leftovers.c — what a process killed in the middle of a
 * compile leaves in the cache folder (a private compile folder, a
 * half-written temporary file) is harmless: other processes compile and
 * run as usual and never mistake it for a kernel; leftovers are kept
 * while they may still belong to a compile in progress, and removed when
 * a folder is opened once they are older than CACHE_STALE_SECONDS.
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "core/cache/cache_folder.h"
#include "cpu_support.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

TestSuite(cache_leftovers, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir, .timeout = 120);

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* Sets the modification time of `name` in the cache folder `age` seconds
 * back. */
static void age(const char *name, long seconds)
{
    char path[500];
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= seconds;
    t[1] = t[0];
    snprintf(path, sizeof path, "%s/%s", ts_cpu_cache_dir, name);
    cr_assert_eq(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0);
}

static int exists(const char *name)
{
    char path[500];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", ts_cpu_cache_dir, name);
    return lstat(path, &st) == 0;
}

static void expect_compiles(int64_t k)
{
    acc_context *ctx = cs_context(ts_cpu_cache_dir);
    char *json = cs_run(ctx, k); /* checks the results */
    cr_expect_eq(cs_figure(json, "compiled"), 1, "%s", json);
    acc_free(json);
    acc_context_destroy(ctx);
}

Test(cache_leftovers, planted_leftovers_are_harmless_then_swept)
{
    char path[500];
    acc_context_destroy(cs_context(ts_cpu_cache_dir)); /* makes the folder */
    snprintf(path, sizeof path, "%s/tmp-00112233deadbeef.d", ts_cpu_cache_dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/tmp-00112233deadbeef.d/kernel.c",
             ts_cpu_cache_dir);
    write_file(path, "int half_written(void) {");
    snprintf(path, sizeof path, "%s/tmp-00112233deadbeef.d/kernel.so",
             ts_cpu_cache_dir);
    write_file(path, "\177ELF garbage");
    snprintf(path, sizeof path, "%s/tmp-0a0b0c0d0e0f1011.part",
             ts_cpu_cache_dir);
    write_file(path, "\177ELF half a kernel");

    expect_compiles(41);
    cr_expect(exists("tmp-00112233deadbeef.d") &&
              exists("tmp-0a0b0c0d0e0f1011.part"),
              "recent leftovers may belong to a compile in progress");
    age("tmp-00112233deadbeef.d", CACHE_STALE_SECONDS + 60);
    age("tmp-0a0b0c0d0e0f1011.part", CACHE_STALE_SECONDS + 60);
    expect_compiles(42);
    cr_expect(!exists("tmp-00112233deadbeef.d"), "stale folder removed");
    cr_expect(!exists("tmp-0a0b0c0d0e0f1011.part"), "stale file removed");
}

/* A C compiler that never finishes a kernel (the probe goes through). */
static void slow_compiler(char *path, size_t size)
{
    snprintf(path, size, "%s.slowcc", ts_cpu_cache_dir);
    write_file(path, "#!/bin/sh\n"
                     "case \"$*\" in *kernel.so*) sleep 60;; esac\n"
                     "exec cc \"$@\"\n");
    cr_assert_eq(chmod(path, 0700), 0);
}

/* The name of the one compile folder in the cache folder, once its
 * source is written (waits up to 30 s). */
static void wait_for_compile(char *name, size_t size)
{
    char names[8][64], source[600];
    for (int tries = 0; tries < 300; tries++) {
        size_t n = cs_names(ts_cpu_cache_dir, ".d", names, 8);
        for (size_t i = 0; i < n; i++) {
            snprintf(source, sizeof source, "%s/%s/kernel.c", ts_cpu_cache_dir,
                     names[i]);
            if (access(source, F_OK) == 0) {
                snprintf(name, size, "%s", names[i]);
                return;
            }
        }
        usleep(100000);
    }
    cr_assert_fail("no compile started in %s", ts_cpu_cache_dir);
}

Test(cache_leftovers, killed_compile_leaves_a_working_cache)
{
    char cc[400], leftover[64];
    slow_compiler(cc, sizeof cc);
    acc_context_destroy(cs_context(ts_cpu_cache_dir));
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char *json = NULL;
        setpgid(0, 0);
        setenv("ACC_CC", cc, 1);
        acc_context_options o;
        acc_context *ctx = NULL;
        acc_context_options_init(&o);
        o.backend = ACC_BACKEND_CPU;
        o.cache_dir = ts_cpu_cache_dir;
        if (acc_context_create(&o, &ctx) == ACC_OK)
            cs_try(ctx, 43, &json); /* killed in there */
        _exit(1);
    }
    wait_for_compile(leftover, sizeof leftover);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status), "the compile was killed");

    expect_compiles(43);
    cr_expect(exists(leftover), "the fresh leftover is left alone");
    age(leftover, CACHE_STALE_SECONDS + 60);
    expect_compiles(44);
    cr_expect(!exists(leftover), "and swept once stale");
}
