/*
 * cache_support.c — see cache_support.h.
 */
#include <criterion/criterion.h>

#include "cache_support.h"
#include "support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

acc_context *cs_context(const char *dir)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = dir;
    acc_status st = acc_context_create(&o, &ctx);
    if (st == ACC_ERR_UNSUPPORTED)
        cr_skip_test("no working C compiler: %s", acc_last_error());
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    return ctx;
}

acc_program *cs_compile(acc_context *ctx, int64_t k)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *body = acc_binop(g, ACC_OP_ADD,
                               acc_binop(g, ACC_OP_MUL, x, ts_i64(g, k)),
                               ts_i64(g, k));
    acc_node *r = acc_map(g, ts_lam1(g, x, body), xs);
    acc_program *p = NULL;
    acc_status st = acc_compile(ctx, g, 1, &r, &p);
    acc_graph_free(g);
    cr_assert_eq(st, ACC_OK, "k = %lld: %s", (long long)k, acc_last_error());
    return p;
}

void cs_check(acc_program *p, int64_t k)
{
    int64_t in[100];
    acc_array out = ts_empty_output();
    ts_iota(in, 100);
    cr_assert_eq(ts_run_vec(p, ACC_I64, in, 100, &out), ACC_OK, "%s",
                 acc_last_error());
    const int64_t *got = out.data[0];
    for (int64_t i = 0; i < 100; i++)
        cr_assert_eq(got[i], i * k + k, "k = %lld, element %lld: %lld",
                     (long long)k, (long long)i, (long long)got[i]);
    acc_array_release(&out);
}

char *cs_run(acc_context *ctx, int64_t k)
{
    acc_program *p = cs_compile(ctx, k);
    cs_check(p, k);
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    acc_program_free(p);
    return json;
}

int cs_try(acc_context *ctx, int64_t k, char **json)
{
    int64_t in[100];
    acc_graph *g = NULL;
    acc_program *p = NULL;
    acc_array out = ts_empty_output();
    *json = NULL;
    int ok = acc_graph_create(ctx, &g) == ACC_OK;
    if (ok) {
        acc_node *xs = acc_input(g, ts_sc(ACC_I64), 1);
        acc_node *x = acc_param(g, ts_sc(ACC_I64));
        acc_node *body = acc_binop(g, ACC_OP_ADD,
                                   acc_binop(g, ACC_OP_MUL, x, ts_i64(g, k)),
                                   ts_i64(g, k));
        acc_node *r = acc_map(g, acc_lambda(g, 1, &x, body), xs);
        ok = acc_compile(ctx, g, 1, &r, &p) == ACC_OK;
    }
    int64_t n = 100;
    for (int64_t i = 0; i < n; i++)
        in[i] = i;
    acc_array a;
    memset(&a, 0, sizeof a);
    ok = ok && acc_array_init(&a, ts_sc(ACC_I64), 1, &n) == ACC_OK;
    a.data[0] = in;
    ok = ok && acc_run(p, 1, &a, 1, &out) == ACC_OK;
    for (int64_t i = 0; ok && i < n; i++)
        ok = ((const int64_t *)out.data[0])[i] == i * k + k;
    ok = ok && acc_program_explain(p, 1, json) == ACC_OK;
    if (!ok)
        fprintf(stderr, "k = %lld failed: %s\n", (long long)k,
                acc_last_error());
    if (out.data[0])
        acc_array_release(&out);
    acc_program_free(p);
    acc_graph_free(g);
    return ok;
}

long cs_figure(const char *json, const char *name)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", name);
    const char *at = strstr(json, pat);
    return at ? strtol(at + strlen(pat), NULL, 10) : -1;
}

size_t cs_names(const char *dir, const char *suffix, char (*names)[64],
                size_t max)
{
    DIR *d = opendir(dir);
    size_t n = 0, ls = suffix ? strlen(suffix) : 0;
    cr_assert_not_null(d, "cannot list %s", dir);
    for (struct dirent *e; (e = readdir(d)) != NULL && n < max;) {
        size_t len = strlen(e->d_name);
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            len >= 64 || len < ls ||
            (suffix && strcmp(e->d_name + len - ls, suffix) != 0))
            continue;
        snprintf(names[n++], 64, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

char *cs_note(acc_context *ctx)
{
    char *dir = NULL, *note = NULL;
    cr_assert_eq(acc_context_kernel_cache(ctx, &dir, &note), ACC_OK, "%s",
                 acc_last_error());
    acc_free(dir);
    return note;
}

char *cs_folder(acc_context *ctx)
{
    char *dir = NULL, *note = NULL;
    cr_assert_eq(acc_context_kernel_cache(ctx, &dir, &note), ACC_OK, "%s",
                 acc_last_error());
    acc_free(note);
    return dir;
}
