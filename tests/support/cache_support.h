/*
 * cache_support.h — helpers of the kernel-cache tests (tests/unit/cache/):
 * a CPU context over a given cache folder, a small program per integer k
 * (each k gives a distinct kernel) compiled, run and checked against the
 * value computed here, the cache figures of its plan, and the files of a
 * folder.  Public API only.
 */
#ifndef ACCEL_TESTS_CACHE_SUPPORT_H
#define ACCEL_TESTS_CACHE_SUPPORT_H

#include "accel.h"

#include <stddef.h>
#include <stdint.h>

/* A CPU context whose kernel cache is `dir`; skips the test without a
 * working C compiler. */
acc_context *cs_context(const char *dir);

/* The program map (\x -> x * k + k) over a Vector i64, compiled in ctx;
 * fails the test unless it compiles. */
acc_program *cs_compile(acc_context *ctx, int64_t k);
/* Runs p (from cs_compile with the same k) on 0 .. 99 and checks every
 * result against i * k + k. */
void cs_check(acc_program *p, int64_t k);
/* cs_compile, cs_check, then the plan as JSON (release with acc_free);
 * the program is freed. */
char *cs_run(acc_context *ctx, int64_t k);

/* For child processes, where Criterion's assertions cannot be used:
 * cs_compile and cs_check without asserting, the plan into *json
 * (acc_free).  0 on any failure, with a line on stderr. */
int cs_try(acc_context *ctx, int64_t k, char **json);

/* The number after "\"name\":" in the JSON plan (-1 when absent). */
long cs_figure(const char *json, const char *name);

/* The names in folder dir that end with `suffix` (NULL: every name but
 * "." and ".."), at most max, into names[i] (64 bytes each); how many. */
size_t cs_names(const char *dir, const char *suffix, char (*names)[64],
                size_t max);

/* acc_context_kernel_cache's note (release with acc_free); asserted OK. */
char *cs_note(acc_context *ctx);
/* acc_context_kernel_cache's folder (release with acc_free). */
char *cs_folder(acc_context *ctx);

#endif
