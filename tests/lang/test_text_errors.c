/*
 * test_text_errors.c — what the text front end says about wrong programs:
 * each case checks the status, that the message starts with the
 * "LINE:COL: " of the offending text and names what was found or
 * expected, and (under the sanitizer build) that nothing leaks.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "accel.h"
#include "support.h"
#include "text_sources.h"

TestSuite(text_errors, .init = ts_ctx_open, .fini = ts_ctx_close);

/* Compiles `src` (entry may be NULL) expecting `want`; the message must
 * start with "line:col: " and contain `word` (ignoring case). */
static void expect_error(const char *src, const char *entry, acc_status want,
                         int line, int col, const char *word)
{
    acc_program *p = (acc_program *)1;
    acc_status st = acc_compile_text(ts_ctx, src, (size_t)-1, entry, &p);
    const char *msg = acc_last_error();
    cr_assert_eq(st, want, "status %s, expected %s: %s",
                 acc_status_string(st), acc_status_string(want), msg);
    cr_assert_null(p, "the program must be NULL on failure");
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%d:%d: ", line, col);
    cr_assert(strncmp(msg, prefix, strlen(prefix)) == 0,
              "message \"%s\" should start with \"%s\"", msg, prefix);
    cr_assert(ts_contains_ci(msg, word), "message \"%s\" should mention "
              "\"%s\"", msg, word);
    cr_assert_str_eq(acc_context_last_error(ts_ctx), msg);
}

#define DOTP_HEAD "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"

Test(text_errors, unterminated_paren)
{
    expect_error(DOTP_HEAD "  fold (+) 0 (zipWith (*) xs ys\n", NULL,
                 ACC_ERR_PARSE, 3, 1, "expected ')' to close the '(' at 2:14");
}

Test(text_errors, unknown_name)
{
    expect_error(DOTP_HEAD "  fold (+) 0 (zipWith (*) xs zs)\n", NULL,
                 ACC_ERR_PARSE, 2, 30, "unknown name 'zs'");
}

Test(text_errors, wrong_arity_too_many_arguments)
{
    expect_error(DOTP_HEAD "  fold (+) 0 xs ys\n", NULL, ACC_ERR_TYPE, 2, 3,
                 "'fold' takes 3 arguments, but it is given 4");
}

Test(text_errors, wrong_arity_missing_argument)
{
    expect_error(DOTP_HEAD "  fold (+) 0\n", NULL, ACC_ERR_TYPE, 2, 3,
                 "function");
}

Test(text_errors, type_mismatch_of_operands)
{
    expect_error("f (xs : Vector f32) (n : i32) : Vector f32 =\n"
                 "  map (\\x -> x + n) xs\n", NULL, ACC_ERR_TYPE, 2, 16,
                 "have types f32 and i32");
}

Test(text_errors, type_mismatch_with_the_annotation)
{
    expect_error("f (xs : Vector f32) : Vector i32 = xs\n", NULL, ACC_ERR_TYPE,
                 1, 23, "has type Array 1 f32, expected Array 1 i32");
}

Test(text_errors, type_mismatch_of_an_operator)
{
    expect_error(DOTP_HEAD "  fold (+) 0 (zipWith (<) xs ys)\n", NULL,
                 ACC_ERR_TYPE, 2, 3, "'+' works on numbers");
}

Test(text_errors, float_literal_where_an_integer_is_needed)
{
    expect_error("f (xs : Vector i32) : Vector i32 =\n"
                 "  map (\\x -> x + 1.5) xs\n", NULL, ACC_ERR_TYPE, 2, 16,
                 "a floating type");
}

Test(text_errors, bad_number_literal)
{
    expect_error("f (xs : Vector f32) : Vector f32 =\n"
                 "  map (\\x -> x * 1.5e) xs\n", NULL, ACC_ERR_PARSE, 2, 18,
                 "malformed number literal '1.5e'");
}

Test(text_errors, literal_out_of_range)
{
    expect_error("f (xs : Vector i8) : Vector i8 =\n"
                 "  map (\\x -> x + 300) xs\n", NULL, ACC_ERR_TYPE, 2, 18,
                 "300 does not fit in i8");
}

Test(text_errors, integer_literal_too_large)
{
    expect_error("f (xs : Vector u64) : Vector u64 =\n"
                 "  map (\\x -> x + 18446744073709551616) xs\n", NULL,
                 ACC_ERR_PARSE, 2, 18, "does not fit in 64 bits");
}

Test(text_errors, missing_in)
{
    expect_error("f (xs : Vector f32) : Vector f32 =\n"
                 "  let ys = map (\\x -> x * 2) xs\n"
                 "      zs = ys\n"
                 "  in zs\n", NULL, ACC_ERR_PARSE, 3, 10,
                 "expected ';' or 'in'");
}

Test(text_errors, unknown_entry)
{
    expect_error(ts_language4_source(), "dotq", ACC_ERR_NOT_FOUND, 1, 1,
                 "no entry point named 'dotq'");
}

Test(text_errors, helper_is_not_an_entry)
{
    expect_error(ts_language4_source(), "cnd", ACC_ERR_NOT_FOUND, 12, 1,
                 "helper");
}

Test(text_errors, several_entries_with_null_entry)
{
    expect_error(ts_language4_source(), NULL, ACC_ERR_NOT_FOUND, 6, 1,
                 "several entry points (dotp, smvm, blackscholes");
}

Test(text_errors, no_entry)
{
    expect_error("twice x = x + x\n", NULL, ACC_ERR_NOT_FOUND, 1, 1,
                 "no entry point");
}

Test(text_errors, unexpected_character)
{
    expect_error("f (xs : Vector f32) : Vector f32 =\n  map {x} xs\n", NULL,
                 ACC_ERR_PARSE, 2, 7, "unexpected character '{'");
}

Test(text_errors, unterminated_string)
{
    expect_error("f (xs : Vector f32) : Scalar f32 =\n"
                 "  foreign \"blas.dot fallback (xs, xs)\n",
                 NULL, ACC_ERR_PARSE, 2, 11, "unterminated string");
}

Test(text_errors, unknown_type)
{
    expect_error("f (xs : Vector f16) : Vector f32 = xs\n", NULL, ACC_ERR_PARSE,
                 1, 16, "unknown type 'f16'");
}

Test(text_errors, comparisons_do_not_chain)
{
    expect_error("f (xs : Vector i32) : Vector bool =\n"
                 "  map (\\x -> 0 < x < 5) xs\n", NULL, ACC_ERR_PARSE, 2, 20,
                 "do not chain");
}

Test(text_errors, recursion_is_refused)
{
    expect_error("loop x = loop x\n"
                 "f (xs : Vector i32) : Vector i32 = map loop xs\n", NULL,
                 ACC_ERR_UNSUPPORTED, 1, 10, "calls itself");
}

Test(text_errors, tuple_pattern_against_a_scalar)
{
    expect_error("f (xs : Vector i32) : Vector i32 =\n"
                 "  map (\\(a, b) -> a) xs\n", NULL, ACC_ERR_TYPE, 2, 9,
                 "tuple pattern of 2 fields");
}

Test(text_errors, stencil_without_a_pattern)
{
    expect_error("f (xs : Vector f32) : Vector f32 =\n"
                 "  stencil (\\n -> n) clamp xs\n", NULL, ACC_ERR_TYPE, 2, 3,
                 "size of the neighbourhood");
}

Test(text_errors, builder_errors_carry_the_position)
{
    /* The scalar lambda refers to the array parameter in a way the builder
     * refuses (fold of a Scalar): the message is the builder's. */
    expect_error("f (s : Scalar f32) : Scalar f32 =\n"
                 "  fold (+) 0 s\n", NULL, ACC_ERR_TYPE, 2, 3, "rank");
}

Test(text_errors, definition_must_start_in_the_first_column)
{
    expect_error("f (xs : Vector f32) : Vector f32 = xs\n"
                 "  g (ys : Vector f32) : Vector f32 = ys\n",
                 NULL, ACC_ERR_PARSE, 2, 36,
                 "the next definition starts in column 1");
}

Test(text_errors, deep_nesting_is_refused)
{
    enum { DEPTH = 3000 };
    static char src[2 * DEPTH + 64];
    size_t at = (size_t)snprintf(src, sizeof src, "f (x : i64) : Scalar i64 = ");
    for (int i = 0; i < DEPTH; i++)
        src[at++] = '(';
    src[at++] = 'x';
    for (int i = 0; i < DEPTH; i++)
        src[at++] = ')';
    src[at] = '\0';
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ts_ctx, src, (size_t)-1, NULL, &p);
    cr_assert_eq(st, ACC_ERR_PARSE, "%s", acc_last_error());
    cr_assert(ts_contains_ci(acc_last_error(), "nested deeper"));
}

Test(text_errors, long_operator_chains_are_refused_not_crashed_on)
{
    enum { TERMS = 5000 };
    static char src[4 * TERMS + 64];
    size_t at = (size_t)snprintf(src, sizeof src, "f (x : i64) : Scalar i64 = x");
    for (int i = 0; i < TERMS; i++)
        at += (size_t)snprintf(src + at, sizeof src - at, " + x");
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ts_ctx, src, (size_t)-1, NULL, &p);
    cr_assert_eq(st, ACC_ERR_PARSE, "%s", acc_last_error());
}

Test(text_errors, parse_failure_poisons_the_graph)
{
    acc_graph *g = ts_graph(ts_ctx);
    acc_node *res[4];
    size_t n = 99;
    acc_status st = acc_parse(g, "f (xs : Vector f32) : Vector f32 = map\n",
                              (size_t)-1, NULL, res, 4, &n);
    cr_assert_eq(st, ACC_ERR_TYPE, "%s", acc_last_error());
    cr_assert_eq(n, 0);
    cr_assert_eq(acc_graph_status(g), ACC_ERR_TYPE);
    acc_graph_free(g);
}

Test(text_errors, bad_arguments)
{
    acc_graph *g = ts_graph(ts_ctx);
    acc_node *res[1];
    size_t n;
    char *names = NULL;
    cr_assert_eq(acc_parse(g, NULL, 0, NULL, res, 1, &n),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_parse(NULL, "x = 1", 5, NULL, res, 1, &n),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_parse_entries(NULL, 0, &names), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(names);
    cr_assert_eq(acc_compile_text(ts_ctx, "x", 1, NULL, NULL),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_graph_status(g), ACC_OK);
    acc_graph_free(g);
}

Test(text_errors, too_many_results)
{
    acc_graph *g = ts_graph(ts_ctx);
    acc_node *res[1];
    size_t n = 0;
    acc_status st = acc_parse(g, "f (xs : Vector f32) = (xs, xs)\n",
                              (size_t)-1, NULL, res, 1, &n);
    cr_assert_eq(st, ACC_ERR_INVALID_ARGUMENT, "%s", acc_last_error());
    acc_graph_free(g);
}

Test(text_errors, parse_entries_reports_syntax_errors)
{
    char *names = (char *)1;
    cr_assert_eq(acc_parse_entries("f (x : i64 = x\n", (size_t)-1, &names),
                 ACC_ERR_PARSE);
    cr_assert_null(names);
    cr_assert(strncmp(acc_last_error(), "1:12: ", 6) == 0, "%s",
              acc_last_error());
}

Test(text_errors, length_limits_the_source)
{
    /* Only the first len bytes are read: the text after them is ignored. */
    const char *src = DOTP_HEAD "  fold (+) 0 (zipWith (*) xs ys)\n)))garbage";
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ts_ctx, src, strlen(src) - 11, NULL, &p),
                 ACC_OK, "%s", acc_last_error());
    acc_program_free(p);
}

Test(text_errors, nul_bytes_are_reported)
{
    const char src[] = "f (x : i64) : Scalar i64 = x\0 + 1\n";
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ts_ctx, src, sizeof src - 1, NULL, &p),
                 ACC_ERR_PARSE);
    cr_assert(strncmp(acc_last_error(), "1:29: ", 6) == 0, "%s",
              acc_last_error());
}

/* ---- Accelerate's Prelude names, stencil rows, segments ------------------ */

#define MATRIX_HEAD "f (m : Matrix f32) : Matrix f32 =\n"
#define VECTOR_HEAD "f (v : Vector i64) : Vector i64 =\n"

Test(text_errors, stencil_patterns_that_leave_a_width_unknown)
{
    /* wildcard rows need one row that is a tuple */
    expect_error(MATRIX_HEAD "  stencil (\\(_, _, _) -> 1.0) clamp m\n", NULL,
                 ACC_ERR_TYPE, 2, 3, "cannot tell the size of the neighbourhood");
    expect_error(MATRIX_HEAD "  stencil (\\(a, b, c) -> 1.0) clamp m\n", NULL,
                 ACC_ERR_TYPE, 2, 3, "a row may be _ when another row");
}

Test(text_errors, stencil_rows_of_different_widths)
{
    expect_error(MATRIX_HEAD
                 "  stencil (\\((a, b, c), (d, e, f, g, h), _) -> a) clamp m\n",
                 NULL, ACC_ERR_TYPE, 2, 3, "rows differ in width (3 and 5");
}

Test(text_errors, stencil_rows_of_even_width)
{
    expect_error("f (v : Vector f32) : Vector f32 =\n"
                 "  stencil (\\(a, b) -> a) clamp v\n", NULL, ACC_ERR_TYPE, 2, 3,
                 "a tuple of 2 fields; expected 3, 5, 7 or 9");
}

Test(text_errors, unzip_n_of_another_arity)
{
    expect_error("f (v : Vector (i64, i64)) : Vector i64 =\n"
                 "  let (a, b, c) = unzip3 v in a\n", NULL, ACC_ERR_TYPE, 2, 19,
                 "'unzip3' splits arrays of 3-tuples");
}

Test(text_errors, bounds_are_not_floats)
{
    expect_error("f : Scalar f32 = unit maxBound\n", NULL, ACC_ERR_TYPE, 1, 5,
                 "an integer or bool type, expected Array 0 f32");
}

Test(text_errors, prelude_names_check_their_arguments)
{
    expect_error(VECTOR_HEAD "  iterate 2.5 (map negate) v\n", NULL,
                 ACC_ERR_TYPE, 2, 3, "'iterate' repeats a function");
    expect_error("f (v : Vector i64) : Scalar i64 =\n"
                 "  unit (sfoldl (+) 0 [0, 0] v)\n", NULL, ACC_ERR_TYPE, 2, 9,
                 "third argument of 'sfoldl' has type Shape 2, expected "
                 "Shape 0");
    expect_error("f (v : Vector f32) : Vector f32 =\n"
                 "  map fromIntegral v\n", NULL, ACC_ERR_TYPE, 2, 3,
                 "converts integers and bool");
    expect_error(VECTOR_HEAD "  map (1 . negate) v\n", NULL, ACC_ERR_TYPE, 2, 3,
                 "expected a function");
}

Test(text_errors, segments_of_a_float_type)
{
    expect_error("f (v : Vector i64) (s : Vector f32) : Vector i64 =\n"
                 "  foldSeg (+) 0 v s\n", NULL, ACC_ERR_TYPE, 2, 3,
                 "expected a vector of an integer type");
}

Test(text_errors, tuples_holding_functions_are_not_values)
{
    expect_error(VECTOR_HEAD "  map (\\x -> (x, negate)) v\n", NULL,
                 ACC_ERR_TYPE, 2, 3, "returns a tuple holding a function");
    expect_error(VECTOR_HEAD "  let (a, b) = (negate, abs, 1) in map a v\n",
                 NULL, ACC_ERR_TYPE, 2, 7,
                 "a tuple pattern of 2 fields is matched against a tuple of 3");
}
