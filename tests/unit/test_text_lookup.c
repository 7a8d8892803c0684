/*
 * test_text_lookup.c — definitions of a text program are found by name in
 * constant time (core/text/module.c): parsing and looking up n
 * definitions compares names O(n) times, not O(n^2) (a program of 80k
 * definitions used to take a minute to parse).  The work is asserted
 * through the front end's count of name comparisons, not with a clock;
 * a large program also goes through the public API (acc_parse,
 * acc_parse_entries) and runs.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "core/text/text_ast.h"
#include "support.h"

/* n one-line helpers d0 .. d(n-1), d_i x = x + i; with `entries`, each
 * is an entry point instead ((x : i64) annotated); then `main`, which
 * maps d(n-1) over its input. */
static char *many_defs(size_t n, int entries)
{
    size_t cap = 64 * (n + 2), at = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(s + at, cap - at, entries
                               ? "d%zu (x : i64) : i64 = x + %zu\n"
                               : "d%zu x = x + %zu\n", i, i);
    snprintf(s + at, cap - at, "main (xs : Vector i64) : Vector i64 = "
             "map d%zu xs\n", n - 1);
    return s;
}

/* Name comparisons made by parsing n definitions and finding each (and
 * one name that is not there). */
static uint64_t compares_for(size_t n)
{
    char *src = many_defs(n, 0);
    text_state *st = calloc(1, sizeof *st);
    cr_assert_not_null(st);
    st->arena = arena_create();
    cr_assert_not_null(st->arena);
    if (setjmp(st->fail))
        cr_assert_fail("parse failed: %s", st->message);
    text_module *m = text_parse(st, src, strlen(src), 0);
    cr_assert_eq(m->n, n + 1);
    for (size_t i = 0; i < m->n; i++)
        cr_assert_eq(text_module_find(m, m->defs[i]->name), m->defs[i],
                     "definition %zu", i);
    cr_assert_null(text_module_find(m, "nowhere"));
    uint64_t compares = st->name_compares;
    arena_destroy(st->arena);
    free(st);
    free(src);
    return compares;
}

Test(text_lookup, name_comparisons_grow_linearly)
{
    /* a scan of the definitions would make n^2/2 comparisons: 1.25e9 for
     * 50000; the index makes a few per definition */
    size_t sizes[] = {1000, 50000};
    for (size_t k = 0; k < 2; k++) {
        uint64_t c = compares_for(sizes[k]);
        cr_expect_leq(c, 8 * (uint64_t)sizes[k], "%zu definitions: %llu "
                      "name comparisons", sizes[k], (unsigned long long)c);
        cr_expect_geq(c, (uint64_t)sizes[k], "every find compares a name");
    }
}

Test(text_lookup, a_duplicate_is_still_found)
{
    const char *src = "a x = x\nb x = x\na y = y\n";
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = NULL;
    cr_assert_eq(acc_graph_create(ctx, &g), ACC_OK);
    acc_node *r[1];
    size_t n = 0;
    cr_expect_eq(acc_parse(g, src, (size_t)-1, NULL, r, 1, &n),
                 ACC_ERR_PARSE);
    cr_expect(strstr(acc_last_error(), "3:1: 'a' is defined twice"), "%s",
              acc_last_error());
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(text_lookup, fifty_thousand_definitions_parse_and_run)
{
    enum { N = 50000 };
    char *src = many_defs(N, 0);
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, src, (size_t)-1, NULL, &p), ACC_OK,
                 "%s", acc_last_error());
    int64_t xs[3] = {1, -5, 40};
    acc_array in, out;
    int64_t ext = 3;
    acc_array_init(&in, acc_type_scalar(ACC_I64), 1, &ext);
    in.data[0] = xs;
    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
    const int64_t *ys = out.data[0];
    for (int i = 0; i < 3; i++)
        cr_expect_eq(ys[i], xs[i] + (N - 1));
    acc_array_release(&out);
    acc_program_free(p);
    acc_context_destroy(ctx);
    free(src);
}

Test(text_lookup, many_entry_points_are_listed)
{
    enum { N = 20000 };
    char *src = many_defs(N, 1);
    char *names = NULL;
    cr_assert_eq(acc_parse_entries(src, (size_t)-1, &names), ACC_OK, "%s",
                 acc_last_error());
    size_t lines = 0;
    for (const char *c = names; *c; c++)
        lines += *c == '\n';
    cr_expect_eq(lines, N, "N + 1 names, N separators");
    cr_expect(strncmp(names, "d0\nd1\n", 6) == 0);
    cr_expect(strstr(names, "\nd19999\nmain") != NULL);
    size_t len = strlen(names);
    cr_expect_eq(strcmp(names + len - 4, "main"), 0);
    acc_free(names);
    free(src);
}
