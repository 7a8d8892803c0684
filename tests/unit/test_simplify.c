/*
 * test_simplify.c — the simplify pass (core/simplify): its rewrites are
 * asserted on the program's IR (which operations and constants remain),
 * and every program is also run on the interpreter with and without the
 * pass (ACC_DISABLE=simplify) on the same inputs, requiring the same
 * status, message and output bits: the unsimplified program is the
 * reference, so no expected value is written down here.
 *
 * Fusion is disabled while the IR is inspected (ACC_DISABLE=fusion), so
 * the compiled IR is the IR simplify leaves.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/src/program.h"
#include "ir_support.h"
#include "support.h"

static acc_context *ctx;

static void setup(void)
{
    ctx = ts_context(ACC_BACKEND_INTERP);
}

static void teardown(void)
{
    unsetenv("ACC_DISABLE");
    unsetenv("ACC_DUMP");
    acc_context_destroy(ctx);
    ctx = NULL;
}

TestSuite(simplify, .init = setup, .fini = teardown);

/* ---- compiling and inspecting ----------------------------------------- */

static acc_program *compile_with(const char *src, const char *disable)
{
    if (disable)
        setenv("ACC_DISABLE", disable, 1);
    else
        unsetenv("ACC_DISABLE");
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, NULL, &p);
    unsetenv("ACC_DISABLE");
    cr_assert_eq(st, ACC_OK, "%s\n%s", acc_last_error(), src);
    return p;
}

typedef struct census {
    uint32_t by_op[IR_OP_COUNT];
    uint32_t by_prim[128];
    uint32_t consts;
    int64_t const_i[64]; /* integer constants met, in walk order */
    double const_f[64];  /* float constants met */
    uint32_t n_i, n_f;
} census;

static void count(const ir_node *n, int again, void *arg)
{
    census *c = arg;
    if (again)
        return;
    c->by_op[n->op]++;
    if (n->op == IR_PRIM && (unsigned)n->u.prim < 128)
        c->by_prim[n->u.prim]++;
    if (n->op == IR_CONST) {
        c->consts++;
        if (ty_is_floating(n->type->scalar) && c->n_f < 64)
            c->const_f[c->n_f++] = n->u.lit.f;
        else if (!ty_is_floating(n->type->scalar) && c->n_i < 64)
            c->const_i[c->n_i++] = n->u.lit.i;
    }
}

static census take_census(const acc_program *p)
{
    census c;
    memset(&c, 0, sizeof c);
    ts_ir_walk(p, count, &c);
    return c;
}

/* The IR simplify leaves (fusion off). */
static census simplified(const char *src)
{
    acc_program *p = compile_with(src, "fusion");
    census c = take_census(p);
    acc_program_free(p);
    return c;
}

/* The IR as sharing leaves it (simplify and fusion off). */
static census unsimplified(const char *src)
{
    acc_program *p = compile_with(src, "simplify,fusion");
    census c = take_census(p);
    acc_program_free(p);
    return c;
}

static int has_int(const census *c, int64_t v)
{
    for (uint32_t i = 0; i < c->n_i; i++)
        if (c->const_i[i] == v)
            return 1;
    return 0;
}

/* ---- running with and without the pass ------------------------------- */

enum { N = 7 };

typedef struct outcome {
    acc_status st;
    char msg[512];
    acc_array out;
} outcome;

/* Runs src's entry on the vector in[0..N-1] of scalar type s. */
static outcome run_with(const char *src, const char *disable, acc_scalar s,
                        void *in)
{
    outcome o;
    memset(&o, 0, sizeof o);
    acc_program *p = compile_with(src, disable);
    o.out = ts_empty_output();
    o.st = ts_run_vec(p, s, in, N, &o.out);
    if (o.st != ACC_OK)
        snprintf(o.msg, sizeof o.msg, "%s", acc_last_error());
    acc_program_free(p);
    return o;
}

/* The same status, message and output bits with and without simplify
 * (fused both times, as programs are compiled). */
static void same_with_and_without(const char *src, acc_scalar s, void *in)
{
    outcome a = run_with(src, NULL, s, in);
    outcome b = run_with(src, "simplify", s, in);
    cr_assert_eq(a.st, b.st, "%s / %s\n%s", a.msg, b.msg, src);
    cr_assert_str_eq(a.msg, b.msg, "%s", src);
    if (a.st != ACC_OK)
        return;
    cr_assert_eq(a.out.rank, b.out.rank);
    cr_assert_eq(acc_array_size(&a.out), acc_array_size(&b.out));
    size_t leaves = acc_type_leaf_count(a.out.type);
    int64_t n = acc_array_size(&a.out);
    for (size_t l = 0; l < leaves; l++) {
        size_t bytes = acc_scalar_size(acc_type_leaf(a.out.type, l)) *
                       (size_t)n;
        cr_assert(memcmp(a.out.data[l], b.out.data[l], bytes) == 0,
                  "leaf %zu differs\n%s", l, src);
    }
    acc_array_release(&a.out);
    acc_array_release(&b.out);
}

static int32_t in_i32[N] = {0, 1, -1, 7, INT32_MIN, INT32_MAX, 100};
static float in_f32[N] = {0.0f, -0.0f, 1.5f, -2.25f, 1e30f, 3.0f, 0.1f};

/* ---- constant folding --------------------------------------------------- */

Test(simplify, integer_arithmetic_folds_with_wrap_around)
{
    const char *src =
        "f (xs : Vector u8) : Vector u8 = map (\\x -> x + (200 + 100)) xs\n";
    census before = unsimplified(src), after = simplified(src);
    cr_expect_eq(before.by_prim[ACC_OP_ADD], 2);
    cr_expect_eq(after.by_prim[ACC_OP_ADD], 1, "200 + 100 is folded");
    cr_expect(has_int(&after, 44), "u8: 200 + 100 wraps to 44");
    uint8_t in[N] = {0, 1, 2, 100, 211, 212, 255};
    same_with_and_without(src, ACC_U8, in);
}

Test(simplify, every_integer_operation_agrees_with_the_run)
{
    const char *src =
        "f (xs : Vector i32) : Vector i32 = map (\\x -> ((quot (-7) 2) "
        "+ rem (-7) 2 + div (-7) 2 + mod (-7) 2 + quot (-2147483648) (-1) "
        "+ shiftL 1 31 + shiftR (-8) 1 + i32 (popCount (i32 (-1))) "
        "+ complement 5 + (7 .&. 12) + (7 .|. 8) + xor 5 3 + abs (-3) "
        "+ signum (-9) + min 3 4 + max 3 4 + negate 6 - 10 * 3) + x) xs\n";
    census after = simplified(src);
    cr_expect_eq(after.by_op[IR_PRIM], 1, "one addition of x remains, "
                 "found %u primitives", after.by_op[IR_PRIM]);
    same_with_and_without(src, ACC_I32, in_i32);
}

Test(simplify, an_operation_that_fails_at_run_time_is_kept)
{
    const char *src =
        "f (xs : Vector i32) : Vector i32 = map (\\x -> x + quot 7 0) xs\n";
    census after = simplified(src);
    cr_expect_eq(after.by_prim[ACC_OP_QUOT], 1, "quot 7 0 is not folded");
    outcome a = run_with(src, NULL, ACC_I32, in_i32);
    cr_expect_eq(a.st, ACC_ERR_RUNTIME);
    cr_expect(strstr(a.msg, "division by zero"), "%s", a.msg);
    same_with_and_without(src, ACC_I32, in_i32);

    const char *shift =
        "f (xs : Vector i32) : Vector i32 = map (\\x -> x + shiftL 1 (-1))"
        " xs\n";
    after = simplified(shift);
    cr_expect_eq(after.by_prim[ACC_OP_SHIFTL], 1, "negative shift kept");
    same_with_and_without(shift, ACC_I32, in_i32);
}

Test(simplify, float_arithmetic_folds_bit_exactly_but_not_the_library)
{
    const char *src =
        "f (xs : Vector f32) : Vector f32 = map (\\x -> x * (0.1 + 0.2) "
        "+ sqrt 2.0 / 3.0 - exp 1.0 + f32 (truncate 2.5) "
        "+ f32 (round (-2.5))) xs\n";
    census before = unsimplified(src), after = simplified(src);
    cr_expect_eq(after.by_prim[ACC_OP_EXP], 1, "exp is not folded");
    cr_expect_eq(after.by_prim[ACC_OP_SQRT], 0, "sqrt is folded");
    cr_expect_lt(after.by_op[IR_PRIM], before.by_op[IR_PRIM]);
    same_with_and_without(src, ACC_F32, in_f32);
}

Test(simplify, comparisons_and_conditionals_on_constants)
{
    const char *src =
        "f (xs : Vector i32) : Vector i32 = map (\\x -> "
        "if 1 < 2 && not (3.0 == 4.0) then x + 1 else quot x 0) xs\n";
    census after = simplified(src);
    cr_expect_eq(after.by_op[IR_COND], 0, "the condition is decided");
    cr_expect_eq(after.by_prim[ACC_OP_QUOT], 0, "the branch not taken is "
                 "gone");
    cr_expect_eq(after.by_prim[ACC_OP_LT], 0);
    same_with_and_without(src, ACC_I32, in_i32);

    /* the right operand of && stays when the left one does not decide */
    const char *lazy =
        "f (xs : Vector i32) : Vector i32 = map (\\x -> "
        "if 1 < 2 && x > 0 then 1 else 0) xs\n";
    after = simplified(lazy);
    cr_expect_eq(after.by_prim[ACC_OP_LAND], 0);
    cr_expect_eq(after.by_prim[ACC_OP_GT], 1);
    same_with_and_without(lazy, ACC_I32, in_i32);
}

/* ---- shape-only uses ----------------------------------------------------- */

Test(simplify, shape_and_size_of_static_producers_are_constants)
{
    const char *src =
        "f (xs : Vector i64) : Vector i64 =\n"
        "  let zs = generate [3 * 4] (\\[i] -> i * 2)\n"
        "  in map (\\x -> x + size zs) (generate (shape zs) (\\[i] -> i))\n";
    census after = simplified(src);
    cr_expect_eq(after.by_op[IR_SIZE], 0);
    cr_expect_eq(after.by_op[IR_SHAPE], 0);
    cr_expect(has_int(&after, 12), "size zs is 12");
    int64_t in[N] = {0, 1, 2, 3, 4, 5, -6};
    same_with_and_without(src, ACC_I64, in);
}

Test(simplify, a_producer_used_through_its_shape_is_not_read)
{
    /* ys has one data use (the zipWith) and one shape use: after
     * simplify, the shape is xs's, so fusion makes one kernel */
    const char *src =
        "f (xs : Vector i32) : Vector i32 =\n"
        "  let ys = map (\\x -> x * 3) xs\n"
        "  in zipWith (+) ys (generate (shape ys) (\\[i] -> i32 i))\n";
    census after = simplified(src);
    cr_expect_eq(after.by_op[IR_SHAPE], 1);
    acc_program *p = compile_with(src, NULL);
    acc_plan_summary plan = {.struct_size = sizeof plan};
    cr_assert_eq(acc_program_plan(p, &plan), ACC_OK);
    cr_expect_eq(plan.kernels, 1, "%zu kernels", plan.kernels);
    cr_expect_eq(plan.intermediates, 0);
    acc_program_free(p);
    same_with_and_without(src, ACC_I32, in_i32);
}

Test(simplify, replicate_slice_and_zipwith_shapes)
{
    const char *prog =
        "f (xs : Vector i32) : Vector i64 =\n"
        "  let m = replicate [3, All] xs;\n"
        "      r = slice m [1, All];\n"
        "      z = zipWith (+) r (fill [5] 1)\n"
        "  in generate [size m + size r * 100 + size z * 10000]"
        " (\\[i] -> i)\n";
    census after = simplified(prog);
    cr_expect_eq(after.by_op[IR_SIZE], 0, "every size is a shape term");
    same_with_and_without(prog, ACC_I32, in_i32);
}

/* ---- the switches ------------------------------------------------------- */

Test(simplify, dump_prints_the_program_after_simplify, .init = setup)
{
    cr_redirect_stderr();
    setenv("ACC_DUMP", "simplify", 1);
    acc_program *p = compile_with(
        "f (xs : Vector i64) : Vector i64 = map (\\x -> x + 2 * 3) xs\n",
        NULL);
    unsetenv("ACC_DUMP");
    acc_program_free(p);
    fflush(stderr);
    cr_assert_stderr_eq_str(
        "== accel IR after simplify ==\n"
        "program (in0 : Array 1 i64) : Array 1 i64 =\n"
        "  map (\\p0 -> p0 + 6) in0\n\n");
}

Test(simplify, disabled_leaves_the_constants)
{
    census c = unsimplified(
        "f (xs : Vector i64) : Vector i64 = map (\\x -> x + 2 * 3) xs\n");
    cr_expect_eq(c.by_prim[ACC_OP_MUL], 1);
}
