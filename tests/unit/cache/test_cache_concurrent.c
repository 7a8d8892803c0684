/*
 * test_cache_concurrent.c — processes sharing one cache folder: several
 * compile the same kernels at the same moment (each in a private folder
 * of its own, publishing by rename), all succeed with right results, and
 * the cache is consistent afterwards: one sealed file per kernel, no
 * temporary file or folder left, and a new context finds every kernel on
 * disk.
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "cpu_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

TestSuite(cache_concurrent, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

enum { PROCESSES = 3, KERNELS = 4, FIRST_K = 31 };

/* A child: its context, then (once the parent closes the pipe) every
 * kernel compiled and checked. */
static int child(int start)
{
    char buf, *json = NULL;
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = ts_cpu_cache_dir;
    int ok = acc_context_create(&o, &ctx) == ACC_OK;
    ok = ok && read(start, &buf, 1) == 0; /* all start together */
    for (int k = FIRST_K; ok && k < FIRST_K + KERNELS; k++) {
        ok = cs_try(ctx, k, &json);
        acc_free(json);
    }
    acc_context_destroy(ctx);
    return ok;
}

Test(cache_concurrent, processes_compiling_the_same_kernels)
{
    int start[2];
    pid_t pid[PROCESSES];
    acc_context_destroy(cs_context(ts_cpu_cache_dir)); /* probe cc once */
    cr_assert_eq(pipe(start), 0);
    fflush(NULL);
    for (int i = 0; i < PROCESSES; i++) {
        pid[i] = fork();
        cr_assert_neq(pid[i], -1);
        if (pid[i] == 0) {
            close(start[1]);
            _exit(child(start[0]) ? 0 : 1);
        }
    }
    close(start[0]);
    close(start[1]);
    for (int i = 0; i < PROCESSES; i++) {
        int status = 0;
        cr_assert_eq(waitpid(pid[i], &status, 0), pid[i]);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "process %d failed (status %d)", i, status);
    }

    char names[16][64];
    cr_expect_eq(cs_names(ts_cpu_cache_dir, ".so", names, 16), KERNELS);
    cr_expect_eq(cs_names(ts_cpu_cache_dir, NULL, names, 16), KERNELS + 1,
                 "the kernels and the secret, nothing else");
    acc_context *ctx = cs_context(ts_cpu_cache_dir);
    for (int k = FIRST_K; k < FIRST_K + KERNELS; k++) {
        char *json = cs_run(ctx, k);
        cr_expect_eq(cs_figure(json, "disk_hits"), 1, "%s", json);
        acc_free(json);
    }
    acc_context_destroy(ctx);
}
