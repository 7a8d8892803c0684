/*
 * emit_support.h — helpers of the tests that read the C the CPU code
 * generator emits (tests/unit/test_emit_c.c, tests/unit/test_emit_loops.c).
 * Unlike the other support files these use internal functions
 * (cg_cpu_kernel, the program's plan): only tests that link accel_internal
 * (tests/unit/) may call them.
 */
#ifndef ACCEL_TESTS_EMIT_SUPPORT_H
#define ACCEL_TESTS_EMIT_SUPPORT_H

#include "accel.h"

/* The CPU kernel source of p's last plan step (p compiled on any backend:
 * the interpreter plans the same steps); frees p.  malloc'd. */
char *ts_last_step_source(acc_program *p);

/* The CPU kernel source of the last plan step of entry `entry` of text
 * program `text`, compiled in ctx.  malloc'd. */
char *ts_text_kernel_source(acc_context *ctx, const char *text,
                            const char *entry);

/* Asserts that src compiles without a warning (-std=c11 -O2 -Wall -Wextra
 * -Werror -fsyntax-only) with each of the NULL-terminated `compilers`
 * installed; skips the test when none is. */
void ts_expect_clean_compile(const char *src, const char *const *compilers);

#endif
