/*
 * test_expand_affine.c — which permute' kernels over an expansion get the
 * ranged pass (core/codegen/expand_affine.c, permute.c.in's ACC_RANGED):
 * those whose targets, where not ignore, are affine in get's position k;
 * every other form must be refused, since the ranged pass would then skip
 * positions (tests/e2e/test_cpu_permute_strategies.c runs both kinds
 * against the interpreter).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "emit_support.h"
#include "support.h"

static acc_context *ctx;

static void setup(void)
{
    ctx = ts_context(ACC_BACKEND_INTERP);
}

static void teardown(void)
{
    acc_context_destroy(ctx);
}

TestSuite(expand_affine, .init = setup, .fini = teardown);

/* permute' (+) (fill [n] 0) (expand (\p -> 40) GET ps), GET given. */
static int ranged(const char *get)
{
    char text[1024];
    snprintf(text, sizeof text,
             "marks (ps : Vector i64) (n : i64) : Vector i32 =\n"
             "  permute' (+) (fill [n] 0) (expand (\\p -> 40) (%s) ps)\n",
             get);
    char *src = ts_text_kernel_source(ctx, text, "marks");
    cr_assert(strstr(src, "#define ACC_EXPANDED 1") != NULL, "%s", src);
    int r = strstr(src, "#define ACC_RANGED 1") != NULL;
    cr_assert(r || strstr(src, "#define ACC_RANGED 0") != NULL, "%s", src);
    free(src);
    return r;
}

Test(expand_affine, affine_targets_get_the_ranged_pass)
{
    /* the sieve of LANGUAGE.md 3.6 */
    cr_expect(ranged("\\p k -> let m = (k + 2) * p in "
                     "(if m < n then [m] else ignore, 1)"));
    /* no condition; a constant factor on the left; subtraction */
    cr_expect(ranged("\\p k -> ([3 * k + p], 1)"));
    cr_expect(ranged("\\p k -> ([p - k * (p + 1)], 1)"));
    /* decreasing in k: affine (the kernel checks s >= 0 per element) */
    cr_expect(ranged("\\p k -> let m = n - 1 - k * p in "
                     "(if 0 <= m then [m] else ignore, 1)"));
    /* nested ignore-choosing conditions; a target not depending on k */
    cr_expect(ranged("\\p k -> (if k < p then (if p < n then [k + p] "
                     "else ignore) else ignore, 1)"));
    cr_expect(ranged("\\p k -> ([p], 1)"));
}

Test(expand_affine, other_targets_do_not)
{
    /* k * k, a remainder, a conversion, a condition between two targets,
     * a value read at k: none is affine in k */
    cr_expect(!ranged("\\p k -> let m = k * k in "
                      "(if m < n then [m] else ignore, 1)"));
    cr_expect(!ranged("\\p k -> ([rem (k * p) n], 1)"));
    cr_expect(!ranged("\\p k -> ([i64 (i32 k)], 1)"));
    cr_expect(!ranged("\\p k -> (if rem k 2 == 0 then [k] else [n - 1 - k], "
                      "1)"));
    cr_expect(!ranged("\\p k -> ([ps !! k], 1)"));
}
