/*
 * test_toolchain.c — the CPU toolchain's description, which is part of
 * every kernel's cache key: it names -march=native and the target's digest
 * when the compiler accepts the flag, is the same for the same compiler in
 * one process, and drops the flag with ACC_CPU_NATIVE=0 (portable
 * objects), so objects for different targets never share a key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "core/backend/cpu/probe.h"
#include "core/backend/cpu/toolchain.h"

/* A folder for the probe's stamp files (not the user's cache). */
static char stamp_dir[256];

static void make_dir(void)
{
    snprintf(stamp_dir, sizeof stamp_dir, "%s/accel-toolchain-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(stamp_dir));
}

static void remove_dir(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", stamp_dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(toolchain, .init = make_dir, .fini = remove_dir);

static void describe(const char *native, cpu_toolchain *tc)
{
    if (native)
        setenv("ACC_CPU_NATIVE", native, 1);
    else
        unsetenv("ACC_CPU_NATIVE");
    cr_assert(cpu_toolchain_init(tc));
}

Test(toolchain, native_target_is_part_of_the_description)
{
    cpu_toolchain a, b, portable;
    describe(NULL, &a);
    char why[512];
    if (cpu_toolchain_probe(&a, stamp_dir, why, sizeof why) <= 0)
        cr_skip_test("no working C compiler: %s", why);
    describe(NULL, &b);
    describe("0", &portable);
    cr_expect_str_eq(a.desc, b.desc, "one compiler, one description");
    cr_expect_null(strstr(portable.desc, "-march=native"), "%s",
                   portable.desc);
    cr_expect_eq(portable.native, 0);
    if (a.native) {
        cr_expect_not_null(strstr(a.desc, "-march=native (target "), "%s",
                           a.desc);
        cr_expect_str_neq(a.desc, portable.desc);
    }
    /* the portable toolchain builds working kernels too */
    cr_expect_gt(cpu_toolchain_probe(&portable, stamp_dir, why, sizeof why), 0, "%s",
                 why);
    cpu_toolchain_free(&a);
    cpu_toolchain_free(&b);
    cpu_toolchain_free(&portable);
}

Test(toolchain, gcc_accepts_march_native)
{
    cpu_toolchain tc;
    setenv("ACC_CC", "gcc", 1);
    describe(NULL, &tc);
    char why[512];
    if (cpu_toolchain_probe(&tc, stamp_dir, why, sizeof why) <= 0)
        cr_skip_test("gcc does not work here: %s", why);
#if defined(__x86_64__)
    /* gcc on x86-64 always knows -march=native */
    cr_expect_eq(tc.native, 1, "%s", tc.desc);
#endif
    cpu_toolchain_free(&tc);
}
