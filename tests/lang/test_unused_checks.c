/*
 * test_unused_checks.c — a runtime check belongs to the evaluation of its
 * expression (docs/LANGUAGE.md, "Runtime errors"): an out-of-bounds read,
 * a division by zero or a negative shift amount in an evaluated term fails
 * the run even when the value is not used (a tuple component projected
 * away, a shared value nobody reads, an unused element of a fused
 * producer, a loop whose result is dropped); only the operand or branch
 * that `&&`, `||` and `if` do not evaluate is exempt.
 *
 * The compiling backends remove unused values (dead code elimination,
 * core/codegen/emit_c.c) but keep their checks.  Each case runs with an
 * input that passes and one that fails, on the backend under test (the
 * interpreter here; the CPU and CUDA backends in the .cpu and .cuda runs
 * of this suite) and on the reference interpreter (with fusion, so that
 * the messages name the operations as the compiled backends' do): the
 * same outputs, or the same status and message; the reference must fail
 * exactly where the rule says.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "reference_support.h"
#include "support.h"

#include <stdio.h>
#include <string.h>

TestSuite(unused_checks);

enum { N = 4 };

/* The program's inputs: d (a Scalar i64) and xs (a Vector i64 of N). */
typedef struct inputs {
    acc_node *d, *xs;
} inputs;

static inputs inputs_of(acc_graph *g)
{
    const acc_type *i64 = ts_sc(ACC_I64);
    inputs in = {acc_input(g, i64, 0), NULL};
    in.xs = acc_input(g, i64, 1);
    return in;
}

static acc_node *d_of(acc_graph *g, const inputs *in)
{
    return acc_the(g, in->d);
}

/* A scalar term of element index i that may fail, given d. */
typedef acc_node *(*term_fn)(acc_graph *g, const inputs *in, acc_node *i);

/* generate [N] (\[i] -> snd (t i, i)): t's value is projected away. */
static acc_node *projected(acc_graph *g, const void *arg)
{
    term_fn t = *(const term_fn *)arg;
    inputs in = inputs_of(g);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *i = acc_get(g, ix, 0);
    acc_node *pair[2] = {t(g, &in, i), i};
    return acc_generate(g, ts_shape1(g, N),
                        ts_lam1(g, ix, acc_get(g, acc_tuple(g, 2, pair), 1)));
}

static acc_node *quot_by_d(acc_graph *g, const inputs *in, acc_node *i)
{
    return acc_binop(g, ACC_OP_QUOT, i, d_of(g, in));
}

static acc_node *shift_by_d(acc_graph *g, const inputs *in, acc_node *i)
{
    return acc_binop(g, ACC_OP_SHIFTL, i, d_of(g, in));
}

/* xs ! [i + d]: a read of an input array */
static acc_node *read_input(acc_graph *g, const inputs *in, acc_node *i)
{
    acc_node *at = acc_binop(g, ACC_OP_ADD, i, d_of(g, in));
    return acc_read(g, in->xs, ts_idx1(g, at));
}

/* map (+ 1) xs: a producer that fusion inlines into its one reader */
static acc_node *producer(acc_graph *g, const inputs *in)
{
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    return acc_map(g, ts_lam1(g, x, acc_binop(g, ACC_OP_ADD, x, ts_i64(g, 1))),
                   in->xs);
}

static acc_node *read_producer(acc_graph *g, const inputs *in, acc_node *i)
{
    acc_node *at = acc_binop(g, ACC_OP_ADD, i, d_of(g, in));
    return acc_read(g, producer(g, in), ts_idx1(g, at));
}

static acc_node *read_linear_producer(acc_graph *g, const inputs *in,
                                      acc_node *i)
{
    acc_node *at = acc_binop(g, ACC_OP_ADD, i, d_of(g, in));
    return acc_read_linear(g, producer(g, in), at);
}

/* (v, v) with v = quot i d: a value shared (a let) that nobody reads */
static acc_node *shared_quot(acc_graph *g, const inputs *in, acc_node *i)
{
    acc_node *v = quot_by_d(g, in, i);
    acc_node *pair[2] = {v, v};
    return acc_tuple(g, 2, pair);
}

/* if i >= 0 then quot 1 d else 0: the taken branch fails */
static acc_node *taken_branch(acc_graph *g, const inputs *in, acc_node *i)
{
    acc_node *c = acc_binop(g, ACC_OP_GE, i, ts_i64(g, 0));
    return acc_cond(g, c, quot_by_d(g, in, ts_i64(g, 1)), ts_i64(g, 0));
}

/* if i < 0 then quot 1 d else 0: the branch that fails never runs */
static acc_node *branch_not_taken(acc_graph *g, const inputs *in, acc_node *i)
{
    acc_node *c = acc_binop(g, ACC_OP_LT, i, ts_i64(g, 0));
    return acc_cond(g, c, quot_by_d(g, in, ts_i64(g, 1)), ts_i64(g, 0));
}

/* (i >= 0) && quot 1 d == 0: the right operand runs */
static acc_node *and_evaluated(acc_graph *g, const inputs *in, acc_node *i)
{
    acc_node *c = acc_binop(g, ACC_OP_GE, i, ts_i64(g, 0));
    acc_node *q = acc_binop(g, ACC_OP_EQ, quot_by_d(g, in, ts_i64(g, 1)),
                            ts_i64(g, 0));
    return acc_binop(g, ACC_OP_LAND, c, q);
}

/* (i < 0) && quot 1 d == 0, (i >= 0) || quot 1 d == 0: the right operands
 * never run */
static acc_node *short_circuits(acc_graph *g, const inputs *in, acc_node *i)
{
    acc_node *q = acc_binop(g, ACC_OP_EQ, quot_by_d(g, in, ts_i64(g, 1)),
                            ts_i64(g, 0));
    acc_node *pair[2] = {
        acc_binop(g, ACC_OP_LAND, acc_binop(g, ACC_OP_LT, i, ts_i64(g, 0)), q),
        acc_binop(g, ACC_OP_LOR, acc_binop(g, ACC_OP_GE, i, ts_i64(g, 0)), q)};
    return acc_tuple(g, 2, pair);
}

/* while (\j -> j < 3) (\j -> j + quot 1 d) 0, its result dropped */
static acc_node *loop_quot(acc_graph *g, const inputs *in, acc_node *i)
{
    (void)i;
    acc_node *j = acc_param(g, ts_sc(ACC_I64)), *k = acc_param(g, ts_sc(ACC_I64));
    acc_node *cond = ts_lam1(g, j, acc_binop(g, ACC_OP_LT, j, ts_i64(g, 3)));
    acc_node *body = ts_lam1(g, k, acc_binop(g, ACC_OP_ADD, k,
                                             quot_by_d(g, in, ts_i64(g, 1))));
    return acc_while(g, cond, body, ts_i64(g, 0));
}

/* generate [N] (\[i] -> snd (ys ! [i])) with ys = map (\x -> (quot x d,
 * x)) xs: the fused producer's first component is never used */
static acc_node *unused_producer_leaf(acc_graph *g, const void *arg)
{
    (void)arg;
    inputs in = inputs_of(g);
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *pair[2] = {acc_binop(g, ACC_OP_QUOT, x, d_of(g, &in)), x};
    acc_node *ys = acc_map(g, ts_lam1(g, x, acc_tuple(g, 2, pair)), in.xs);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    return acc_generate(g, ts_shape1(g, N),
                        ts_lam1(g, ix, acc_get(g, acc_read(g, ys, ix), 1)));
}

/* backpermute [N] (\[i] -> [i]) (fill [d] 5): no element of the source
 * is used (they are all 5), but each read of it is checked */
static acc_node *backpermute_fill(acc_graph *g, const void *arg)
{
    (void)arg;
    inputs in = inputs_of(g);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *src = acc_fill(g, ts_idx1(g, d_of(g, &in)), ts_i64(g, 5));
    return acc_backpermute(g, ts_shape1(g, N), ts_lam1(g, ix, ix), src);
}

/* fold (\a b -> snd (quot a d, a + b)) 0 xs: in a combining function */
static acc_node *fold_unused_quot(acc_graph *g, const void *arg)
{
    (void)arg;
    inputs in = inputs_of(g);
    acc_node *a = acc_param(g, ts_sc(ACC_I64)), *b = acc_param(g, ts_sc(ACC_I64));
    acc_node *pair[2] = {acc_binop(g, ACC_OP_QUOT, a, d_of(g, &in)),
                         acc_binop(g, ACC_OP_ADD, a, b)};
    return acc_fold(g, ts_lam2(g, a, b, acc_get(g, acc_tuple(g, 2, pair), 1)),
                    ts_i64(g, 0), in.xs);
}

/* Runs ref and p with d = pass (they succeed) and d = fail (they fail
 * with a message containing `fails`; NULL: they succeed too). */
static void check_programs(acc_program *ref, acc_program *p, int64_t pass,
                           int64_t fail, const char *fails, const char *name)
{
    static const int64_t xs[N] = {10, 20, 30, 40};
    int64_t n = N, d;
    acc_array in[2] = {ts_host(ACC_I64, 0, NULL, &d),
                       ts_host(ACC_I64, 1, &n, (void *)xs)};
    char what[128];
    ts_ref_expect_compiled(p);
    d = pass;
    snprintf(what, sizeof what, "%s, d = %lld", name, (long long)d);
    ts_ref_agree(ref, p, 2, in, 0, NULL, what);
    d = fail;
    snprintf(what, sizeof what, "%s, d = %lld", name, (long long)d);
    ts_ref_agree(ref, p, 2, in, 0, fails, what);
    acc_program_free(ref);
    acc_program_free(p);
}

static void check(ts_build_fn build, const void *arg, int64_t pass,
                  int64_t fail, const char *fails, const char *name)
{
    check_programs(ts_ref_compile(build, arg, TS_REF_FUSED),
                   ts_ref_compile(build, arg, TS_UNDER_TEST), pass, fail,
                   fails, name);
}

static void check_term(term_fn t, int64_t pass, int64_t fail,
                       const char *fails, const char *name)
{
    check(projected, &t, pass, fail, fails, name);
}

Test(unused_checks, division_by_zero)
{
    check_term(quot_by_d, 3, 0, "quot: division by zero", "quot i d");
}

Test(unused_checks, negative_shift_amount)
{
    check_term(shift_by_d, 3, -1, "shiftL: negative shift amount -1",
               "shiftL i d");
}

Test(unused_checks, read_of_an_input)
{
    check_term(read_input, 0, N, "read (!): index [4] is out of bounds",
               "xs ! [i + d]");
    check_term(read_input, 0, -1, "read (!): index [-1] is out of bounds",
               "xs ! [i + d]");
}

Test(unused_checks, read_of_a_fused_producer)
{
    check_term(read_producer, 0, 1, "read (!): index [4] is out of bounds",
               "ys ! [i + d]");
    check_term(read_linear_producer, 0, 100,
               "linear read (!!): position 100 is out of bounds",
               "ys !! (i + d)");
}

Test(unused_checks, shared_value_nobody_reads)
{
    check_term(shared_quot, 3, 0, "quot: division by zero", "(v, v)");
}

Test(unused_checks, branches_and_short_circuits)
{
    check_term(taken_branch, 3, 0, "quot: division by zero", "taken branch");
    check_term(and_evaluated, 3, 0, "quot: division by zero", "&& evaluated");
    check_term(branch_not_taken, 3, 0, NULL, "branch not taken");
    check_term(short_circuits, 3, 0, NULL, "&& and || short-circuit");
}

Test(unused_checks, dropped_loop)
{
    check_term(loop_quot, 1, 0, "quot: division by zero", "while");
}

Test(unused_checks, unused_leaf_of_a_fused_producer)
{
    check(unused_producer_leaf, NULL, 3, 0, "quot: division by zero",
          "snd (ys ! [i])");
}

Test(unused_checks, backpermute_of_an_empty_array)
{
    check(backpermute_fill, NULL, N, 0,
          "backpermute: index [0] is out of bounds for an array of shape [0]",
          "backpermute [N] id (fill [d] 5)");
}

Test(unused_checks, combining_function)
{
    check(fold_unused_quot, NULL, 3, 0, "quot: division by zero", "fold");
}

/* In the text syntax, `let` names a term and `fst`/`snd`/`prj` of a tuple
 * written in place take its component when the program is elaborated
 * (docs/LANGUAGE.md): a binding nobody uses and the other components are
 * not part of the program, so they cannot fail.  A tuple that reaches the
 * program (here an element of an array) is evaluated whole. */
static const char text_programs[] =
    "elaborated (d : i64) (xs : Vector i64) : Vector i64 =\n"
    "  map (\\x -> let u = quot x d in fst (x, quot 1 d)) xs\n"
    "\n"
    "kept (d : i64) (xs : Vector i64) : Vector i64 =\n"
    "  map (\\(q, x) -> x) (map (\\x -> (quot x d, x)) xs)\n";

static void check_text(const char *entry, const char *fails)
{
    check_programs(ts_ref_compile_text(text_programs, entry, TS_REF_FUSED),
                   ts_ref_compile_text(text_programs, entry, TS_UNDER_TEST),
                   3, 0, fails, entry);
}

Test(unused_checks, text_lets_and_projections_of_written_tuples)
{
    check_text("elaborated", NULL);
    check_text("kept", "quot: division by zero");
}
