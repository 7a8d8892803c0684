/*
 * text_api.c — the public entry points of the text front end: acc_parse,
 * acc_parse_entries and acc_compile_text (accel.h, "Text programs").
 *
 * Each call owns one arena for all its tokens, trees, types and core
 * terms, destroyed before it returns.  Errors inside the front end unwind
 * to run_guarded (the only setjmp), so they leak nothing.  This file is
 * the glue between the front end, which only uses accel.h, and the handle
 * layer: it validates handles, reads a graph's context (the public API has
 * no accessor for it) and records a failure on the graph (sticky, like a
 * builder error: the graph may hold inputs of a half-elaborated program),
 * on the context for acc_compile_text, and on the calling thread.
 */
#include "abi/src/context.h"
#include "core/base/mem.h"
#include "core/ir/graph.h"
#include "core/ir/json.h"
#include "core/text/text_elab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parse_job {
    const char *src;
    size_t len;
    const char *entry;
    acc_graph *g;
    acc_node **results;
    size_t max_results, n_results;
    char *names; /* acc_parse_entries: malloc'd result */
} parse_job;

static acc_status run_guarded(text_state *st,
                              void (*fn)(text_state *, parse_job *),
                              parse_job *job)
{
    if (setjmp(st->fail))
        return st->status;
    fn(st, job);
    return ACC_OK;
}

/* Runs fn with a fresh state; copies the message out on failure. */
static acc_status run(void (*fn)(text_state *, parse_job *), parse_job *job,
                      char *message, size_t size)
{
    text_state *st = mem_calloc(1, sizeof *st);
    if (st)
        st->arena = arena_create();
    if (!st || !st->arena) {
        free(st);
        snprintf(message, size, "out of host memory");
        return ACC_ERR_OUT_OF_HOST_MEMORY;
    }
    acc_status s = run_guarded(st, fn, job);
    if (s != ACC_OK)
        snprintf(message, size, "%s", st->message);
    arena_destroy(st->arena);
    free(st);
    return s;
}

static size_t source_length(const char *src, size_t len)
{
    return len == (size_t)-1 ? strlen(src) : len;
}

/* ---- entry points ------------------------------------------------------------ */

/* The names of m's entry points separated by `sep`, in a buffer of
 * `size` bytes (at least the total length plus one).  Appends at the end
 * it keeps, not with strcat, which rescans the text: a program of many
 * entry points is listed in linear time. */
static void join_entries(const text_module *m, const char *sep, char *s)
{
    size_t at = 0, k = strlen(sep);
    for (size_t i = 0; i < m->n; i++)
        if (m->defs[i]->entry) {
            size_t len = strlen(m->defs[i]->name);
            if (at) {
                memcpy(s + at, sep, k);
                at += k;
            }
            memcpy(s + at, m->defs[i]->name, len);
            at += len;
        }
    s[at] = '\0';
}

static size_t names_size(const text_module *m, size_t sep)
{
    size_t n = 1;
    for (size_t i = 0; i < m->n; i++)
        n += strlen(m->defs[i]->name) + sep;
    return n;
}

static const char *entry_list(text_state *st, const text_module *m)
{
    char *s = text_alloc(st, names_size(m, 2));
    join_entries(m, ", ", s);
    return s;
}

static const text_def *pick_entry(text_state *st, const text_module *m,
                                  const char *entry)
{
    text_pos start = {1, 1, 0};
    if (entry) {
        const text_def *d = text_module_find(m, entry);
        if (d && d->entry)
            return d;
        text_fail(st, ACC_ERR_NOT_FOUND, d ? d->pos : start, d ? "'%s' is a "
                  "helper (not every parameter is annotated); expected an "
                  "entry point: %s" : "there is no entry point named '%s'; "
                  "expected one of: %s", entry, entry_list(st, m));
    }
    const text_def *found = NULL;
    for (size_t i = 0; i < m->n; i++)
        if (m->defs[i]->entry) {
            if (found)
                text_fail(st, ACC_ERR_NOT_FOUND, m->defs[i]->pos, "the "
                          "program has several entry points (%s); expected "
                          "the name of one of them", entry_list(st, m));
            found = m->defs[i];
        }
    if (!found)
        text_fail(st, ACC_ERR_NOT_FOUND, start, "the program has no entry "
                  "point; expected a definition whose parameters are all "
                  "annotated, such as f (xs : Vector f32) = ...");
    return found;
}

/* ---- results ----------------------------------------------------------------- */

static void add_result(text_elab *el, parse_job *job, text_core *c)
{
    text_type *t = text_ty_prune(c->type);
    if (t->kind == TT_TUPLE && text_ty_is_array_sort(t)) {
        for (size_t i = 0; i < t->n; i++) {
            text_core *f = c->kind == CK_TUPLE ? c->args[i] : NULL;
            if (!f) {
                f = text_core_new(el, CK_GET, t->fields[i], c->pos, 1, &c);
                f->op = (int)i;
            }
            add_result(el, job, f);
        }
        return;
    }
    if (t->kind != TT_ARRAY)
        text_fail(el->st, ACC_ERR_TYPE, c->pos, "the result has type %s; "
                  "expected arrays (or a tuple of arrays)",
                  text_ty_name(el->st, t));
    if (job->n_results >= job->max_results)
        text_fail(el->st, ACC_ERR_INVALID_ARGUMENT, c->pos, "the entry point "
                  "has more results than max_results (%zu)",
                  job->max_results);
    job->results[job->n_results++] = text_emit(el, c);
}

/* Names the graph's inputs from `first` on after the entry's parameters
 * (acc_program_signature_json reports them). */
static void name_inputs(text_elab *el, size_t first)
{
    text_pos none = {0, 0, 0};
    for (size_t i = 0; i < el->n_input_names; i++)
        if (el->input_names[i] &&
            !gr_name_input(el->g, first + i, el->input_names[i]))
            text_fail(el->st, ACC_ERR_OUT_OF_HOST_MEMORY, none, "out of host "
                      "memory");
}

static void parse_body(text_state *st, parse_job *job)
{
    text_module *user = text_parse(st, job->src, job->len, 0);
    text_module *prelude = text_parse(st, text_prelude_source,
                                      strlen(text_prelude_source), 1);
    const text_def *d = pick_entry(st, user, job->entry);
    text_elab el = {st, job->g, job->g->ctx, user, prelude, d->pos, 0,
                    NULL, 0, 0};
    size_t first = job->g->n_inputs;
    text_core *result = text_elab_entry(&el, d);
    name_inputs(&el, first);
    add_result(&el, job, result);
}

acc_status acc_parse(acc_graph *g, const char *source, size_t len,
                     const char *entry, acc_node **results,
                     size_t max_results, size_t *n_results)
{
    char message[TEXT_MESSAGE_MAX];
    if (n_results)
        *n_results = 0;
    if (!handle_is_live(g, HANDLE_GRAPH))
        return api_bad_handle(g, HANDLE_GRAPH, "acc_parse");
    if (!source || !n_results || (!results && max_results > 0))
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "acc_parse: %s is "
                        "NULL", !source ? "source" : !n_results ? "n_results"
                                                                : "results");
    if (!diag_ok(&g->diag))
        return api_fail_diag(NULL, &g->diag);
    parse_job job = {source, source_length(source, len), entry, g, results,
                     max_results, 0, NULL};
    acc_status s = run(parse_body, &job, message, sizeof message);
    if (s != ACC_OK) {
        for (size_t i = 0; i < max_results; i++)
            results[i] = NULL;
        gr_fail(g, s, "%s", message);
        return api_fail(NULL, s, "%s", message);
    }
    *n_results = job.n_results;
    return ACC_OK;
}

/* ---- acc_parse_entries ------------------------------------------------------------ */

static void entries_body(text_state *st, parse_job *job)
{
    text_module *m = text_parse(st, job->src, job->len, 0);
    job->names = mem_calloc(1, names_size(m, 1));
    if (!job->names) {
        text_pos none = {0, 0, 0};
        text_fail(st, ACC_ERR_OUT_OF_HOST_MEMORY, none, "out of host memory");
    }
    join_entries(m, "\n", job->names);
}

acc_status acc_parse_entries(const char *source, size_t len, char **names)
{
    char message[TEXT_MESSAGE_MAX];
    if (names)
        *names = NULL;
    if (!source || !names)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "acc_parse_entries: "
                        "%s is NULL", !source ? "source" : "names");
    parse_job job = {source, source_length(source, len), NULL, NULL, NULL, 0,
                     0, NULL};
    acc_status s = run(entries_body, &job, message, sizeof message);
    if (s != ACC_OK) {
        free(job.names);
        return api_fail(NULL, s, "%s", message);
    }
    *names = job.names;
    return ACC_OK;
}

/* ---- acc_parse_entries_json --------------------------------------------- */

enum { MAX_TEXT_RESULTS = 256 };

/* Appends entry `name`'s signature, elaborated in a fresh graph of ctx;
 * the acc_parse status. */
static acc_status entry_json(acc_context *ctx, const char *source,
                             size_t len, const char *name, acc_node **results,
                             strbuf *b)
{
    acc_graph *g = NULL;
    size_t n = 0;
    acc_status s = acc_graph_create(ctx, &g);
    if (s == ACC_OK)
        s = acc_parse(g, source, len, name, results, MAX_TEXT_RESULTS, &n);
    if (s == ACC_OK) {
        sb_puts(b, "{\"name\":");
        ir_json_string(b, name);
        sb_puts(b, ",\"inputs\":[");
        for (size_t i = 0; i < g->n_inputs; i++) {
            sb_puts(b, i ? "," : "");
            ir_json_signature_item(b, gr_input_name(g, i),
                                   g->inputs[i]->type->elem,
                                   g->inputs[i]->type->rank);
        }
        sb_puts(b, "],\"outputs\":[");
        for (size_t i = 0; i < n; i++) {
            sb_puts(b, i ? "," : "");
            ir_json_signature_item(b, NULL, results[i]->type->elem,
                                   results[i]->type->rank);
        }
        sb_puts(b, "]}");
    }
    acc_graph_free(g);
    return s;
}

acc_status acc_parse_entries_json(const char *source, size_t len, char **json)
{
    static const char fn[] = "acc_parse_entries_json";
    char *names = NULL;
    acc_context *ctx = NULL;
    acc_node **results = NULL;
    strbuf b = {0};
    if (json)
        *json = NULL;
    if (!source || !json)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        !source ? "source" : "json");
    len = source_length(source, len);
    acc_status s = acc_parse_entries(source, len, &names);
    if (s == ACC_OK && (!(ctx = ctx_create_scratch()) ||
                        !(results = mem_calloc(MAX_TEXT_RESULTS,
                                           sizeof *results))))
        s = api_fail(NULL, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                     "memory", fn);
    sb_puts(&b, "{\"entries\":[");
    for (char *name = names, *end; s == ACC_OK && name && *name;
         name = end ? end + 1 : NULL) {
        if ((end = strchr(name, '\n')) != NULL)
            *end = '\0';
        sb_puts(&b, name == names ? "" : ",");
        s = entry_json(ctx, source, len, name, results, &b);
    }
    sb_puts(&b, "]}");
    if (s == ACC_OK && b.failed) /* else acc_parse recorded the error */
        s = api_fail(NULL, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                     "memory", fn);
    if (s == ACC_OK)
        *json = b.text;
    else
        sb_free(&b);
    free(results);
    acc_context_destroy(ctx);
    acc_free(names);
    return s;
}

/* ---- acc_compile_text --------------------------------------------------------------- */

acc_status acc_compile_text(acc_context *ctx, const char *source, size_t len,
                            const char *entry, acc_program **out)
{
    if (out)
        *out = NULL;
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, "acc_compile_text");
    if (!source || !out)
        return api_fail(&ctx->error, ACC_ERR_INVALID_ARGUMENT,
                        "acc_compile_text: %s is NULL",
                        !source ? "source" : "out");
    char message[TEXT_MESSAGE_MAX];
    acc_graph *g = NULL;
    acc_status s = acc_graph_create(ctx, &g);
    if (s != ACC_OK) {
        snprintf(message, sizeof message, "%s", acc_last_error());
        return api_fail(&ctx->error, s, "%s", message);
    }
    acc_node **results = mem_calloc(MAX_TEXT_RESULTS, sizeof *results);
    size_t n = 0;
    if (!results) {
        s = api_fail(&ctx->error, ACC_ERR_OUT_OF_HOST_MEMORY,
                     "acc_compile_text: out of host memory");
    } else {
        s = acc_parse(g, source, len, entry, results, MAX_TEXT_RESULTS, &n);
        if (s != ACC_OK) {
            /* acc_last_error is the buffer api_fail writes: copy it. */
            snprintf(message, sizeof message, "%s", acc_last_error());
            s = api_fail(&ctx->error, s, "%s", message);
        } else {
            s = acc_compile(ctx, g, n, results, out);
        }
    }
    free(results);
    acc_graph_free(g);
    return s;
}
