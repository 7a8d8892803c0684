/*
 * test_emit_loops.c — the structure of issue 22's CPU kernels: a loop at
 * the top of a generate's element runs in lockstep over lanes (and not one
 * that can fail, nor one under a branch), loop-invariant terms are
 * computed before the loop, a transposing gather is traversed in tiles (a
 * plain map is not), float + scans take the vector path (other scans do
 * not), and the sources compile warning-free with gcc and clang.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "core/codegen/kernel_cpu.h"
#include "abi/src/program.h"
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

TestSuite(emit_loops, .init = setup, .fini = teardown);

/* The CPU kernel source of the last plan step of entry `entry` of `text`
 * (compiled on the interpreter, which plans the same steps).  malloc'd. */
static char *source_of(const char *text, const char *entry)
{
    return ts_text_kernel_source(ctx, text, entry);
}

/* The text of src from the first `from` on (the skeleton's part). */
static const char *after(const char *src, const char *from)
{
    const char *at = strstr(src, from);
    cr_assert_not_null(at, "no %s in\n%s", from, src);
    return at;
}

/* The text of src from the first `from` to the next `to` (malloc'd). */
static char *between(const char *src, const char *from, const char *to)
{
    const char *a = after(src, from), *b = strstr(a, to);
    cr_assert_not_null(b, "no %s after %s in\n%s", to, from, src);
    char *r = malloc((size_t)(b - a) + 1);
    cr_assert_not_null(r);
    memcpy(r, a, (size_t)(b - a));
    r[b - a] = '\0';
    return r;
}

static void expect_clean_compile(const char *src)
{
    static const char *const compilers[] = {"gcc", "clang", NULL};
    ts_expect_clean_compile(src, compilers);
}

static const char programs[] =
    "mandel (width : i64) (height : i64) (limit : i32) : Matrix i32 =\n"
    "  generate [height, width] (\\[y, x] ->\n"
    "    let cx = -2.0 + 3.0 * f32 x / f32 width;\n"
    "        cy = -1.2 + 2.4 * f32 y / f32 height;\n"
    "        (zx, zy, n) = while (\\(zx, zy, n) -> n < limit && zx*zx + zy*zy "
    "< 4.0)\n"
    "                            (\\(zx, zy, n) -> (zx*zx - zy*zy + cx, "
    "2.0*zx*zy + cy, n + 1))\n"
    "                            (0.0, 0.0, 0)\n"
    "    in n)\n"
    "failing (d : i64) : Vector i64 =\n"
    "  generate [100] (\\[i] -> fst (while (\\(a, c) -> c < i)\n"
    "                              (\\(a, c) -> (a + quot 7 d, c + 1)) (0, 0)))\n"
    "branch (d : i64) : Vector i64 =\n"
    "  generate [100] (\\[i] -> if i > 3 then fst (while (\\(a, c) -> c < i)\n"
    "                  (\\(a, c) -> (a + d * 3, c + 1)) (0, 0)) else 0)\n"
    "tr (xs : Matrix f32) : Matrix f32 =\n"
    "  let [h, w] = shape xs in backpermute [w, h] (\\[i, j] -> [j, i]) xs\n"
    "plain (xs : Matrix f32) : Matrix f32 = map (\\x -> x * 2.0) xs\n"
    "rows (xs : Matrix f32) : Matrix f32 =\n"
    "  generate (shape xs) (\\[i, j] -> xs ! [i, j] + xs ! [0, j])\n"
    "sf32 (xs : Vector f32) : Vector f32 = scanl1 (+) xs\n"
    "sf64 (xs : Vector f64) : Vector f64 = scanl (+) 0 xs\n"
    "si32 (xs : Vector i32) : Vector i32 = scanl1 (+) xs\n"
    "smax (xs : Vector f32) : Vector f32 = scanl1 max xs\n";

Test(emit_loops, mandelbrot_runs_in_lockstep_with_its_invariants_hoisted)
{
    char *src = source_of(programs, "mandel");
    const char *k = after(src, "BEGIN generate.c.in");
    cr_expect(strstr(k, "#define ACC_LANES 128") != NULL, "%s", k);
    cr_expect(strstr(k, "acc_act") != NULL, "an activity mask: %s", k);
    /* cx and cy (the index converted, divided by the extents) before the
     * rounds; the rounds compute no index and divide nothing */
    char *rounds = between(k, "for (;;)", "if (!acc_any");
    cr_expect(strstr(rounds, "acc_ix[") == NULL, "%s", rounds);
    cr_expect(strstr(rounds, " / ") == NULL, "%s", rounds);
    free(rounds);
    cr_expect(strstr(k, "(float)acc_ix[1]") != NULL, "%s", k);
    expect_clean_compile(src);
    free(src);
}

Test(emit_loops, no_lockstep_for_a_loop_that_can_fail_or_under_a_branch)
{
    char *src = source_of(programs, "failing");
    cr_expect(strstr(after(src, "BEGIN generate.c.in"), "#define ACC_LANES 1\n")
              != NULL, "%s", src);
    free(src);
    src = source_of(programs, "branch");
    const char *k = after(src, "BEGIN generate.c.in");
    cr_expect(strstr(k, "#define ACC_LANES 1\n") != NULL, "%s", k);
    /* still hoisted: d * 3 before the scalar loop */
    char *loop = between(k, "for (;;)", "acc_o0[");
    cr_expect(strstr(loop, "acc_mul_i64(") == NULL, "%s", loop);
    free(loop);
    cr_expect(strstr(k, "acc_mul_i64(") != NULL, "%s", k);
    expect_clean_compile(src);
    free(src);
}

Test(emit_loops, transposing_gathers_are_tiled)
{
    static const struct { const char *entry; int tiled; } cases[] = {
        {"tr", 1}, {"plain", 0}, {"rows", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *src = source_of(programs, cases[i].entry);
        cr_expect(strstr(src, cases[i].tiled ? "#define ACC_TILE (1 &&"
                                             : "#define ACC_TILE (0 &&")
                  != NULL, "%s: %s", cases[i].entry, src);
        if (cases[i].tiled)
            expect_clean_compile(src);
        free(src);
    }
}

Test(emit_loops, float_sums_scan_a_vector_at_a_time)
{
    static const struct { const char *entry; const char *vl; } cases[] = {
        {"sf32", "#define ACC_VL 16\n"}, {"sf64", "#define ACC_VL 8\n"},
        {"si32", "#define ACC_VL 0\n"}, {"smax", "#define ACC_VL 0\n"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *src = source_of(programs, cases[i].entry);
        cr_expect(strstr(src, cases[i].vl) != NULL, "%s: %s", cases[i].entry,
                  src);
        if (i < 2)
            expect_clean_compile(src);
        free(src);
    }
}
