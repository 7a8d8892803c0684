/*
 * test_cuda_kernels_stencil.c — the CUDA kernels of stencils, without a
 * device (kernels_support.h: each step generated and compiled by NVRTC):
 * LANGUAGE.md's blur, every boundary, window widths and ranks, stencil2's
 * two boundaries, the tuple leaves f reads, checks in a boundary function
 * and in an embedded producer, and maps over arrays the host evaluates
 * (a generate reading the array).
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "kernels_support.h"
#include "text_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(cuda_kernels, .init = kernels_setup, .fini = kernels_teardown);

/* ---- stencils ---------------------------------------------------------------- */

/* The CUDA kernel of the only step of program `entry` of `src`. */
static acc_program *one_step(const char *src, const char *entry, cg_kernel *k)
{
    acc_program *p = NULL;
    char why[256];
    cr_assert_eq(acc_compile_text(ctx, src, (size_t)-1, entry, &p), ACC_OK,
                 "%s: %s", entry, acc_last_error());
    cr_assert_eq(p->c.sched.n_all, 1, "%s: one step", entry);
    cr_assert_eq(cuda_kernel(&p->c.ir, p->c.sched.all[0]->node, k, why,
                                sizeof why), 1, "%s: %s", entry, why);
    return p;
}

/* The neighbourhood pattern of a window (names x0, x1, ... in row-major
 * order, the outermost dimension outermost) appended to b. */
static void window_pattern(char *b, size_t size, int rank, const int *w,
                           int *next)
{
    strncat(b, "(", size - strlen(b) - 1);
    for (int i = 0; i < w[0]; i++) {
        char name[16];
        if (i)
            strncat(b, ", ", size - strlen(b) - 1);
        if (rank > 1) {
            window_pattern(b, size, rank - 1, w + 1, next);
            continue;
        }
        snprintf(name, sizeof name, "x%d", (*next)++);
        strncat(b, name, size - strlen(b) - 1);
    }
    strncat(b, ")", size - strlen(b) - 1);
}

typedef struct stencil_case {
    const char *name, *type, *boundary;
    int rank, w[3];
    int column; /* f reads only the centre column of the innermost dimension */
    acc_boundary b;
} stencil_case;

/* Program c->name: stencil of a weighted sum of the neighbours f reads
 * (each weight a literal of the element type). */
static void stencil_text(const stencil_case *c, char *b, size_t size)
{
    int next = 0, window = 1;
    for (int d = 0; d < c->rank; d++)
        window *= c->w[d];
    snprintf(b, size, "%s (xs : Array %d %s) : Array %d %s =\n  stencil (\\",
             c->name, c->rank, c->type, c->rank, c->type);
    window_pattern(b, size, c->rank, c->w, &next);
    strncat(b, " ->\n    0", size - strlen(b) - 1);
    for (int k = 0; k < window; k++) {
        char term[48];
        int inner = c->w[c->rank - 1];
        if (c->column && k % inner != inner / 2)
            continue;
        snprintf(term, sizeof term, " + x%d * %s%d%s", k,
                 c->type[0] == 'f' ? "(" : "", k % 7 + 1,
                 c->type[0] == 'f' ? ".5)" : "");
        strncat(b, term, size - strlen(b) - 1);
    }
    snprintf(b + strlen(b), size - strlen(b), ") %s xs\n", c->boundary);
}

/* Stencil case c: one step, a stencil kernel compiled by NVRTC whose
 * interior has no boundary code; the boundary, rank and the offsets the
 * host will derive the interior box from. */
static void check_stencil_case(const stencil_case *c)
{
    static char src[16384];
    cg_kernel k;
    stencil_text(c, src, sizeof src);
    acc_program *p = one_step(src, c->name, &k);
    cr_expect_eq(k.kind, CG_KERNEL_STENCIL, "%s", c->name);
    expect_define(&k, "ACC_BOUNDARY0", (int)c->b, c->name);
    expect_define(&k, "ACC_RANK", c->rank, c->name);
    expect_define(&k, "ACC_SIDES", 1, c->name);
    for (int d = 0; d < c->rank; d++) {
        int r = c->column && d == c->rank - 1 ? 0 : c->w[d] / 2;
        cr_expect(k.stencil_reach[0][0][d] == -r && k.stencil_reach[0][1][d] == r,
                  "%s: dimension %d reaches %d..%d", c->name, d,
                  k.stencil_reach[0][0][d], k.stencil_reach[0][1][d]);
    }
    cg_kernel_free(&k);
    counts n = check_program(p, c->name);
    cr_expect_eq(n.stencil, 1, "%s", c->name);
    acc_program_free(p);
}

Test(cuda_kernels, blur_of_the_language_reference)
{
    cg_kernel k;
    acc_program *p = one_step(ts_language4_source(), "blur", &k);
    cr_expect_eq(k.kind, CG_KERNEL_STENCIL);
    expect_define(&k, "ACC_BOUNDARY0", ACC_BOUNDARY_CLAMP, "blur");
    /* the border reads all nine neighbours through the boundary; the
     * interior loads them from three row pointers */
    char *bo = body_of(k.source, "ACC_FN int acc_border(");
    char *in = body_of(k.source, "ACC_FN int acc_interior(");
    cr_assert(bo && in);
    cr_expect_eq(count_of(bo, "acc_read0(A, acc_pos"), 9, "%s", bo);
    cr_expect_eq(count_of(in, "const float *const acc_r0_0_"), 3, "%s", in);
    cr_expect_eq(count_of(in, "= acc_r0_0_"), 9, "%s", in);
    free(bo);
    free(in);
    cr_expect_eq(k.checks, 0, "no runtime checks: the slot is not read");
    cg_kernel_free(&k);
    counts c = check_program(p, "blur");
    cr_expect_eq(c.stencil, 1);
    acc_program_free(p);
}

Test(cuda_kernels, stencil_every_boundary)
{
    static const stencil_case cases[5] = {
        {"clamped", "f64", "clamp", 2, {3, 3}, 0, ACC_BOUNDARY_CLAMP},
        {"mirrored", "f64", "mirror", 2, {3, 3}, 0, ACC_BOUNDARY_MIRROR},
        {"wrapped", "f64", "wrap", 2, {3, 3}, 0, ACC_BOUNDARY_WRAP},
        {"byFunction", "f64",
         "(function (\\[i, j] -> f64 (i * 100 + j)))", 2, {3, 3}, 0,
         ACC_BOUNDARY_FUNCTION},
        {"byConstant", "f64", "(constant 0.5)", 2, {3, 3}, 0,
         ACC_BOUNDARY_CONSTANT}};
    for (int i = 0; i < 5; i++)
        check_stencil_case(&cases[i]);
}

Test(cuda_kernels, stencil_widths_and_ranks)
{
    static const stencil_case cases[4] = {
        {"wide5x5", "i32", "mirror", 2, {5, 5}, 0, ACC_BOUNDARY_MIRROR},
        /* 7x3 of which f reads the centre column: a 7x1 window */
        {"column7x1", "f32", "wrap", 2, {7, 3}, 1, ACC_BOUNDARY_WRAP},
        {"line9", "i64", "clamp", 1, {9}, 0, ACC_BOUNDARY_CLAMP},
        {"cube", "f32", "(constant 2.5)", 3, {3, 5, 3}, 0,
         ACC_BOUNDARY_CONSTANT}};
    for (int i = 0; i < 4; i++)
        check_stencil_case(&cases[i]);
}

Test(cuda_kernels, stencil2_with_two_boundaries)
{
    cg_kernel k;
    acc_program *p = one_step(ts_stencil_source(), "twoBoundaries", &k);
    expect_define(&k, "ACC_SIDES", 2, "twoBoundaries");
    expect_define(&k, "ACC_BOUNDARY0", ACC_BOUNDARY_MIRROR, "twoBoundaries");
    expect_define(&k, "ACC_BOUNDARY1", ACC_BOUNDARY_CONSTANT, "twoBoundaries");
    /* side 1's constant is leaf 0 of its seed block */
    cr_expect(strstr(k.source, "A->seed[ACC_MAX_COMPONENTS * 1 + 0].i") != NULL);
    cr_expect(strstr(k.source, "acc_read1(A, acc_pos") != NULL);
    cg_kernel_free(&k);
    counts c = check_program(p, "twoBoundaries");
    cr_expect_eq(c.stencil, 1);
    acc_program_free(p);
    p = one_step(ts_stencil_source(), "functionSide", &k);
    expect_define(&k, "ACC_BOUNDARY1", ACC_BOUNDARY_FUNCTION, "functionSide");
    /* side 1 is 5 wide; f reads its ends only */
    cr_expect(k.stencil_reach[1][0][0] == -2 && k.stencil_reach[1][1][0] == 2);
    cr_expect(k.stencil_reach[0][0][0] == -1 && k.stencil_reach[0][1][0] == 1);
    expect_define(&k, "ACC_FOCUS1", 0, "functionSide");
    cg_kernel_free(&k);
    c = check_program(p, "functionSide");
    cr_expect_eq(c.stencil, 1);
    acc_program_free(p);
}

/* f reads the bool leaf of the focus only: the neighbours' bool leaves
 * are never loaded. */
Test(cuda_kernels, stencil_tuple_elements_read_what_f_uses)
{
    cg_kernel k;
    acc_program *p = one_step(ts_stencil_source(), "tupleStencil", &k);
    cr_expect(strstr(k.source, "x0_1_2 = ") != NULL, "the focus's bool");
    cr_expect(strstr(k.source, "x0_0_2 = ") == NULL, "no other bool");
    cr_expect(strstr(k.source, "x0_2_2 = ") == NULL, "no other bool");
    cr_expect(strstr(k.source, "x0_0_0 = ") != NULL, "a's f32");
    cr_expect(strstr(k.source, "x0_0_1 = ") != NULL, "p's i32");
    cg_kernel_free(&k);
    counts c = check_program(p, "tupleStencil");
    cr_expect_eq(c.stencil, 1);
    acc_program_free(p);
}

Test(cuda_kernels, stencil_function_boundary_with_checks)
{
    cg_kernel k;
    acc_program *p = one_step(ts_stencil_source(), "checkedBoundary", &k);
    cr_expect_gt(k.checks, 0);
    char *in = body_of(k.source, "ACC_FN int acc_interior(");
    char *out = body_of(k.source, "ACC_FN int acc_outside0(");
    cr_assert(in && out);
    cr_expect(strstr(out, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL, "g's check");
    cr_expect(strstr(in, "ACC_FAIL(") == NULL, "no check in the interior");
    free(in);
    free(out);
    cr_expect_eq(k.stencil_checks[0], 0, "no producer");
    cg_kernel_free(&k);
    check_program(p, "checkedBoundary");
    acc_program_free(p);
}

/* The producer is computed inside the stencil (one kernel), with its
 * checks; the elements the stencil may skip get the check pass: all of
 * them when f does not read the focus, else those outside the result. */
Test(cuda_kernels, stencil_over_an_embedded_producer_with_checks)
{
    static const char *const entries[2] = {"producerChecks", "producerFocus"};
    for (int i = 0; i < 2; i++) {
        cg_kernel k;
        acc_program *p = one_step(ts_stencil_source(), entries[i], &k);
        cr_expect_eq(k.kind, CG_KERNEL_STENCIL);
        cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL);
        cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL);
        cr_expect_eq(k.stencil_checks[0], i == 0 ? 2 : 1, "%s", entries[i]);
        cr_expect_eq(k.n_arrays, 1, "ys, read by the producer");
        /* the interior computes the producer's elements, no boundary */
        char *in = body_of(k.source, "ACC_FN int acc_interior(");
        cr_assert_not_null(in);
        cr_expect(strstr(in, "acc_elem0(A, acc_pos, acc_c") != NULL, "%s", in);
        free(in);
        cg_kernel_free(&k);
        counts c = check_program(p, entries[i]);
        cr_expect_eq(c.stencil, 1);
        cr_expect_eq(c.generate, 0, "the producer is embedded");
        acc_program_free(p);
    }
}

/* Maps over arrays without a kernel of their own: a generate reading the
 * array the host evaluates (as on the CPU). */
Test(cuda_kernels, maps_over_host_arrays)
{
    static const struct {
        const char *entry;
        ir_op base;
    } cases[5] = {{"mapOverStencil", IR_STENCIL}, {"mapOverComponent", IR_GET},
                  {"mapOverReshape", IR_RESHAPE}, {"mapOverUnit", IR_UNIT},
                  {"mapOverAcond", IR_ACOND}};
    for (int i = 0; i < 5; i++) {
        acc_program *p = NULL;
        cr_assert_eq(acc_compile_text(ctx, ts_stencil_source(), (size_t)-1,
                                      cases[i].entry, &p), ACC_OK, "%s: %s",
                     cases[i].entry, acc_last_error());
        const ir_node *map = NULL;
        for (size_t s = 0; s < p->c.sched.n_all; s++)
            if (p->c.sched.all[s]->node->op == IR_MAP)
                map = p->c.sched.all[s]->node;
        cr_assert_not_null(map, "%s: a map step", cases[i].entry);
        cg_kernel k;
        char why[256];
        cr_assert_eq(cuda_kernel(&p->c.ir, map, &k, why, sizeof why), 1,
                     "%s: %s", cases[i].entry, why);
        cr_expect_eq(k.kind, CG_KERNEL_GENERATE);
        cr_assert_not_null(k.src);
        cr_expect_eq(k.src->op, cases[i].base, "%s maps over %s",
                     cases[i].entry, ir_op_name(k.src->op));
        cr_expect_eq(k.n_arrays, 1, "%s: the array is the argument",
                     cases[i].entry);
        cr_expect_eq(k.arrays[0], k.src);
        cg_kernel_free(&k);
        counts c = check_program(p, cases[i].entry);
        cr_expect_eq(c.map_over, 1, "%s", cases[i].entry);
        cr_expect_eq(c.stencil, 0, "%s: a stencil under a map is not a step",
                     cases[i].entry);
        acc_program_free(p);
    }
}
