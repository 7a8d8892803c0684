/*
 * test_canary.c — the CPU backend's canaries and the toolchain they choose
 * (core/backend/cpu/canary.c, probe.c; docs/CPU_BACKEND.md, "Canaries"):
 *  - the gcc 12 reproducer (tests/repro/lane_reduction.c): the shape the
 *    fold skeleton uses now is right under every flag set where the old
 *    one is wrong;
 *  - the canaries pass with the toolchain the probe chooses here;
 *  - a canary that fails (the test hook ACC_CPU_CANARY_BREAK, or a fake
 *    compiler that contracts a * b + c under -march=native) makes the probe
 *    choose the next safer flags and say so, remembers that in a stamp
 *    file, and, when no toolchain passes, leaves the CPU backend
 *    unavailable with the failures as the reason.
 * Every test skips when no C compiler works.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "core/backend/cpu/canary.h"
#include "core/backend/cpu/probe.h"
#include "core/backend/cpu/toolchain.h"

static char dir[256];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "%s/accel-canary-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(dir));
    unsetenv("ACC_CPU_CANARY_BREAK");
    unsetenv("ACC_CPU_NATIVE");
}

static void remove_dir(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(canary, .init = make_dir, .fini = remove_dir);

/* The configured compiler's command, as the CPU backend finds it. */
static const char *compiler(void)
{
    const char *v = getenv("ACC_CC");
    if (!v || !*v)
        v = getenv("CC");
    return v && *v ? v : "cc";
}

/* The flag that turns the loop vectoriser off for the configured
 * compiler (probe.c: clang refuses gcc's). */
static const char *no_loop_vectorize(void)
{
    const char *c = compiler(), *slash = strrchr(c, '/');
    return strncmp(slash ? slash + 1 : c, "clang", 5) == 0
               ? "-fno-vectorize" : "-fno-tree-loop-vectorize";
}

/* The probe of the configured toolchain into *tc, with the test's folder
 * for stamps; skips the test when no compiler works. */
static int probe(cpu_toolchain *tc, char *report, size_t len)
{
    cr_assert(cpu_toolchain_init(tc));
    int r = cpu_toolchain_probe(tc, dir, report, len);
    if (r == 0)
        cr_skip_test("no working C compiler: %s", report);
    return r;
}

/* The repository root, from this file's path (an absolute path in the
 * builds CMake drives). */
static void repo_root(char *buf, size_t size)
{
    snprintf(buf, size, "%s", __FILE__);
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(buf, '/');
        cr_assert_not_null(slash, "%s", __FILE__);
        *slash = '\0';
    }
}

Test(canary, reproducer_staged_shape_is_right_where_the_old_one_fails)
{
    static const char *const flag_sets[] = {"-O3 -march=native",
#if defined(__x86_64__)
                                            "-O3 -mavx2",
#endif
    };
    char root[4096], cmd[9000], line[256];
    repo_root(root, sizeof root);
    int ran = 0;
    for (size_t i = 0; i < sizeof flag_sets / sizeof *flag_sets; i++) {
        snprintf(cmd, sizeof cmd, "%s %s -std=c11 -I'%s' "
                 "'%s/tests/repro/lane_reduction.c' -o '%s/repro' -lm "
                 ">/dev/null 2>&1", compiler(), flag_sets[i], root, root, dir);
        if (system(cmd) != 0) {
            cr_log_info("%s %s: does not build the reproducer", compiler(),
                        flag_sets[i]);
            continue;
        }
        snprintf(cmd, sizeof cmd, "'%s/repro' > '%s/out'", dir, dir);
        int status = system(cmd);
        snprintf(cmd, sizeof cmd, "%s/out", dir);
        FILE *f = fopen(cmd, "r");
        cr_assert_not_null(f);
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "legacy shape wrong", 18) == 0)
                cr_log_info("%s %s: %s", compiler(), flag_sets[i], line);
        fclose(f);
        cr_expect_eq(status, 0, "%s %s: the staged shape is miscompiled",
                     compiler(), flag_sets[i]);
        ran++;
    }
    if (!ran)
        cr_skip_test("%s builds no reproducer", compiler());
}

Test(canary, pass_with_the_chosen_toolchain)
{
    cpu_toolchain tc;
    cpu_canary_report r;
    char report[1024];
    cr_assert_eq(probe(&tc, report, sizeof report), 1, "%s", report);
    cr_expect_not_null(strstr(report, "6 passed") ? report
                       : strstr(report, "6 canaries passed"), "%s", report);
    cr_expect(cpu_canaries_run(&tc, 0, &r), "%s %s", r.failed, r.d.message);
    cr_expect_eq(r.built, 1);
    cr_expect_eq(r.passed, 6);
    cr_expect_eq(r.total, cpu_canary_count());
    cpu_toolchain_free(&tc);
}

/* The stamp files in the test's folder. */
static int stamps(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '^canaries-.*\\.txt$'", dir);
    FILE *p = popen(cmd, "r");
    int n = 0;
    cr_assert_not_null(p);
    cr_assert_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

Test(canary, a_failing_canary_chooses_the_next_flags)
{
    cpu_toolchain tc;
    char report[1024];
    /* wrong in the first toolchain tried only: the configured flags */
    setenv("ACC_CPU_CANARY_BREAK", "widening-fold:1", 1);
    cr_assert_eq(probe(&tc, report, sizeof report), 1, "%s", report);
    char want[200];
    snprintf(want, sizeof want, "canary widening-fold failed with the "
             "configured flags; using %s: 6 canaries passed",
             no_loop_vectorize());
    cr_expect_not_null(strstr(report, want), "%s", report);
    cr_expect_str_eq(tc.extra, no_loop_vectorize());
    cr_expect_not_null(strstr(tc.desc, no_loop_vectorize()), "%s", tc.desc);
    cr_expect_eq(stamps(), 1);
    cpu_toolchain_free(&tc);

    /* a new process decides from the stamp, compiling nothing (its
     * report says where the choice was recorded) */
    cpu_toolchain_probe_forget();
    cr_assert_eq(probe(&tc, report, sizeof report), 1, "%s", report);
    cr_expect_not_null(strstr(report, "(recorded earlier in "), "%s", report);
    cr_expect_not_null(strstr(report, want), "%s", report);
    cr_expect_str_eq(tc.extra, no_loop_vectorize());
    cpu_toolchain_free(&tc);

    /* a stamp that is not one is ignored, decided again and replaced */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "for f in '%s'/canaries-*.txt; do "
             "echo garbage > \"$f\"; done", dir);
    cr_assert_eq(system(cmd), 0);
    cpu_toolchain_probe_forget();
    cr_assert_eq(probe(&tc, report, sizeof report), 1, "%s", report);
    cr_expect_null(strstr(report, "(recorded earlier in "), "%s", report);
    cr_expect_str_eq(tc.extra, no_loop_vectorize());
    cpu_toolchain_free(&tc);
    snprintf(cmd, sizeof cmd, "grep -q '^chosen 1$' '%s'/canaries-*.txt", dir);
    cr_expect_eq(system(cmd), 0, "the stamp was not rewritten");

    /* the public API reports the choice (the context's reason) */
    acc_context_options o;
    acc_context *ctx = NULL;
    int available = 0;
    const char *reason = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = dir;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s", acc_last_error());
    cr_assert_eq(acc_context_backend_available(ctx, ACC_BACKEND_CPU,
                                               &available, &reason), ACC_OK);
    cr_expect_eq(available, 1);
    cr_expect_not_null(strstr(reason, want), "%s", reason);
    acc_context_destroy(ctx);
}

Test(canary, no_toolchain_passing_leaves_the_backend_unavailable)
{
    cpu_toolchain tc;
    char report[1024];
    setenv("ACC_CPU_CANARY_BREAK", "lane-folds", 1); /* wrong everywhere */
    setenv("ACC_CPU_NATIVE", "0", 1); /* fewer distinct toolchains to try */
    cr_assert_eq(probe(&tc, report, sizeof report), -1, "%s", report);
    cr_expect_not_null(strstr(report, "no compiler and flags tried pass the "
                              "canaries: canary lane-folds failed with the "
                              "configured flags"), "%s", report);
    cpu_toolchain_free(&tc);
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = dir;
    cr_expect_eq(acc_context_create(&o, &ctx), ACC_ERR_UNSUPPORTED);
    cr_expect_null(ctx);
    cr_expect_not_null(strstr(acc_last_error(), "miscompiles"), "%s",
                       acc_last_error());
    cr_expect_not_null(strstr(acc_last_error(), "lane-folds"), "%s",
                       acc_last_error());
    /* auto falls back to the interpreter */
    acc_backend b = ACC_BACKEND_CPU;
    o.backend = ACC_BACKEND_AUTO;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s", acc_last_error());
    cr_assert_eq(acc_context_backend(ctx, &b), ACC_OK);
    cr_expect_neq(b, ACC_BACKEND_CPU);
    acc_context_destroy(ctx);
}

/* Whether the configured compiler targets FMA under -march=native. */
static int native_has_fma(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s -march=native -dM -E -x c /dev/null "
             "2>/dev/null | grep -q __FMA__", compiler());
    return system(cmd) == 0;
}

Test(canary, a_miscompiling_compiler_gets_safer_flags)
{
    if (!native_has_fma())
        cr_skip_test("%s -march=native targets no FMA: the fake compiler "
                     "would compile correctly", compiler());
    /* a compiler that fuses a * b + c whenever it may use the machine's
     * instructions (-march=native), whatever -ffp-contract said */
    char fake[400], line[600];
    /* named like the compiler it wraps, so the probe picks its flags */
    snprintf(fake, sizeof fake, "%s/%s-fake", dir,
             strcmp(no_loop_vectorize(), "-fno-vectorize") == 0 ? "clang"
                                                                : "cc");
    FILE *f = fopen(fake, "w");
    cr_assert_not_null(f);
    fprintf(f, "#!/bin/sh\ncase \" $* \" in\n"
               "*\" -march=native \"*) exec %s \"$@\" -ffp-contract=fast ;;\n"
               "esac\nexec %s \"$@\"\n", compiler(), compiler());
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(chmod(fake, 0755), 0);
    snprintf(line, sizeof line, "%s", fake);
    setenv("ACC_CC", line, 1);
    cpu_toolchain tc;
    char report[1024];
    cr_assert_eq(probe(&tc, report, sizeof report), 1, "%s", report);
    cr_expect_not_null(strstr(report, "canary fp-contract-off failed with the "
                              "configured flags"), "%s", report);
    char want[200];
    snprintf(want, sizeof want, "using %s without -march=native: 6 canaries "
             "passed", no_loop_vectorize());
    cr_expect_not_null(strstr(report, want), "%s", report);
    cr_expect_eq(tc.native, 0);
    cr_expect_null(strstr(tc.desc, "-march=native"), "%s", tc.desc);
    cpu_toolchain_free(&tc);
}
