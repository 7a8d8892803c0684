/*
 * reference_support.c — the reference comparisons of reference_support.h.
 * Public API only.
 */
#include <criterion/criterion.h>

#include "reference_support.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The context of `target`; for the unfused reference, fusion is turned
 * off until the compile is done. */
static acc_context *context_for(ts_ref_target target)
{
    if (target == TS_UNDER_TEST)
        return ts_context(ACC_BACKEND_INTERP); /* or ACC_TEST_BACKEND's */
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s",
                 acc_last_error());
    if (target == TS_REF_UNFUSED)
        setenv("ACC_DISABLE", "simplify,fusion", 1);
    return ctx;
}

acc_program *ts_ref_compile_text(const char *src, const char *entry,
                                 ts_ref_target target)
{
    acc_context *ctx = context_for(target);
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, entry, &p);
    unsetenv("ACC_DISABLE");
    cr_assert_eq(st, ACC_OK, "%s: %s\n%s", entry, acc_last_error(), src);
    acc_context_destroy(ctx); /* freed with the program */
    return p;
}

acc_program *ts_ref_compile(ts_build_fn build, const void *arg,
                            ts_ref_target target)
{
    acc_context *ctx = context_for(target);
    acc_graph *g = ts_graph(ctx);
    acc_node *r = build(g, arg);
    acc_program *p = NULL;
    acc_status st = acc_compile(ctx, g, 1, &r, &p);
    unsetenv("ACC_DISABLE");
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    acc_graph_free(g);
    acc_context_destroy(ctx);
    return p;
}

void ts_ref_agree(acc_program *ref, acc_program *p, size_t n_in,
                  const acc_array *in, int ulps, const char *fails,
                  const char *what)
{
    ts_outcome r, o;
    ts_outcome_run(&r, ACC_OK, ref, n_in, in);
    ts_outcome_run(&o, ACC_OK, p, n_in, in);
    if (fails) {
        cr_assert_eq(r.st, ACC_ERR_RUNTIME, "%s: the reference: %s (%s)", what,
                     acc_status_string(r.st), r.message);
        cr_assert(strstr(r.message, fails) != NULL, "%s: the reference: %s",
                  what, r.message);
    } else {
        cr_assert_eq(r.st, ACC_OK, "%s: the reference: %s", what, r.message);
    }
    cr_assert_eq(o.st, r.st, "%s: %s (%s); the reference: %s (%s)", what,
                 acc_status_string(o.st), o.message, acc_status_string(r.st),
                 r.message);
    if (r.st == ACC_OK)
        ts_expect_same_outputs(o.out, r.out, r.n, ulps, 0);
    else
        cr_assert_str_eq(o.message, r.message, "%s", what);
    ts_outcome_release(&r);
    ts_outcome_release(&o);
}

void ts_ref_expect_compiled(const acc_program *p)
{
    if (acc_program_backend(p) != ACC_BACKEND_CPU)
        return;
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    cr_expect(strstr(json, "\"interpreted\":0,") != NULL, "%s", json);
    acc_free(json);
}
