/*
 * describe.c — the schedule printed as the program's plan
 * (acc_program_explain), as text or JSON.  Each step shows what it
 * computes and what was fused into it, who runs it when that is not the
 * backend's kernel (the interpreter, and why), the values released after
 * it, and its bodies, indented under it.  Steps are labelled by their
 * position: "3" in the root schedule, "3a.2" the second step of the first
 * body of step 3 (then, or an awhile's condition), "3b.1" the first of
 * its second (else, or the loop's body), and so on.
 */
#include "core/schedule/schedule.h"

#include <stdio.h>
#include <string.h>

typedef struct printer {
    strbuf *b;
    const sched_program *s;
    int json;
    acc_backend backend;
} printer;

enum { LABEL_MAX = 64 };

/* out = prefix, the number i + 1, and `sep` ("", "a." or "b."); cut at
 * LABEL_MAX (schedules are not nested that deep). */
static void make_label(char *out, const char *prefix, size_t i,
                       const char *sep)
{
    int n = snprintf(out, LABEL_MAX, "%s%zu%s", prefix, i + 1, sep);
    if (n < 0)
        out[0] = '\0';
}

/* The label of the step computing value `id`, found by walking the
 * scopes (plans are small; printing is not a hot path). */
static int find_label(const schedule *s, const char *prefix, uint32_t id,
                      char *out)
{
    for (size_t i = 0; i < s->n_steps; i++) {
        if (s->steps[i].node->id == id) {
            make_label(out, prefix, i, "");
            return 1;
        }
        for (int k = 0; k < 2; k++) {
            char deeper[LABEL_MAX];
            make_label(deeper, prefix, i, k ? "b." : "a.");
            if (s->steps[i].body[k] &&
                find_label(s->steps[i].body[k], deeper, id, out))
                return 1;
        }
    }
    return 0;
}

/* The operations fused into a step, in IR order: "zipWith, fold". */
static void fused_list(strbuf *b, const ir_node *n, int json)
{
    uint64_t bits = n->fused | ((uint64_t)1 << n->op);
    int first = 1;
    for (int op = 0; op < IR_OP_COUNT; op++) {
        if (!(bits & ((uint64_t)1 << op)))
            continue;
        sb_printf(b, json ? "%s\"%s\"" : "%s%s", first ? "" : ", ",
                  ir_op_name((ir_op)op));
        first = 0;
    }
}

static const char *body_name(const sched_step *st, int k)
{
    switch (st->kind) {
    case SCHED_COND: return k ? "else" : "then";
    case SCHED_WHILE: return k ? "body" : "condition";
    case SCHED_FOREIGN: return "fallback";
    default: return "";
    }
}

static void describe_list(printer *p, const schedule *s, const char *prefix,
                          int depth);

/* Steps of a scope that runs only when a foreign implementation refuses
 * its arguments at run time, and of the scopes inside it. */
static size_t count_steps(const schedule *s)
{
    size_t n = s->n_steps;
    for (size_t i = 0; i < s->n_steps; i++)
        for (int k = 0; k < 2; k++)
            if (s->steps[i].body[k])
                n += count_steps(s->steps[i].body[k]);
    return n;
}

/* Such a fallback is not part of the plan: one line says how many steps
 * the interpreter would run. */
static void refusal_fallback(printer *p, const schedule *body, int any,
                             int depth)
{
    size_t n = count_steps(body);
    if (p->json)
        sb_printf(p->b, "%s{\"name\":\"fallback when refused\","
                  "\"interpreted_steps\":%zu}", any ? "," : ",\"bodies\":[",
                  n);
    else
        sb_printf(p->b, "%*sfallback, when the implementation refuses its "
                  "arguments: %zu step%s run by the interpreter\n",
                  2 + 5 * depth + 3, "", n, n == 1 ? "" : "s");
}

/* The values released after a step, by label. */
static void releases(printer *p, const sched_step *st)
{
    if (!st->n_release)
        return;
    sb_puts(p->b, p->json ? ",\"frees\":[" : "; frees ");
    for (uint32_t i = 0; i < st->n_release; i++) {
        char label[LABEL_MAX] = "?";
        find_label(&p->s->root, "", st->release[i], label);
        if (p->json)
            sb_printf(p->b, "%s\"%s\"", i ? "," : "", label);
        else
            sb_printf(p->b, "%s%s", i ? ", " : "", label);
    }
    if (p->json)
        sb_puts(p->b, "]");
}

/* Who runs an array step, when it is not the backend's own kernel. */
static void runner(printer *p, const sched_step *st)
{
    if (st->kind != SCHED_ARRAY)
        return;
    if (p->json) {
        sb_printf(p->b, ",\"by\":\"%s\"",
                  st->by == SCHED_BY_KERNEL ? "kernel"
                  : st->by == SCHED_BY_HOST ? "host" : "interpreter");
        if (st->why) {
            sb_puts(p->b, ",\"why\":");
            sb_json_string(p->b, st->why);
        }
        return;
    }
    if (st->by == SCHED_BY_HOST && p->backend != ACC_BACKEND_INTERP)
        sb_puts(p->b, "; host step");
    else if (st->why)
        sb_printf(p->b, "; interpreted: %s", st->why);
}

static void head_text(printer *p, const sched_step *st, const char *label,
                      int depth)
{
    char t[128];
    const ir_node *n = st->node;
    const char *role = st->output ? "output" : "intermediate";
    ty_format(n->type, t, sizeof t);
    sb_printf(p->b, "%*s%s. ", 2 + 5 * depth, "", label);
    if (st->kind == SCHED_FOREIGN) {
        sb_printf(p->b, "foreign %s -> %s (%s); uses: %s", n->u.foreign.name,
                  t, role, n->u.foreign.reason);
    } else {
        sb_printf(p->b, "%-6s %-12s -> %s (%s); contains: ",
                  st->kind == SCHED_ARRAY ? "kernel" : "host",
                  ir_op_name(n->op), t, role);
        fused_list(p->b, n, 0);
    }
}

static void head_json(printer *p, const sched_step *st, size_t i)
{
    char t[128];
    const ir_node *n = st->node;
    const char *role = st->output ? "output" : "intermediate";
    ty_format(n->type, t, sizeof t);
    if (st->kind == SCHED_FOREIGN) {
        sb_printf(p->b, "{\"step\":%zu,\"kind\":\"foreign\",\"op\":\"foreign\","
                  "\"name\":", i + 1);
        sb_json_string(p->b, n->u.foreign.name);
        sb_puts(p->b, ",\"implementation\":");
        if (n->u.foreign.impl)
            sb_json_string(p->b, n->u.foreign.reason);
        else
            sb_puts(p->b, "null");
        sb_puts(p->b, ",\"uses\":");
        sb_json_string(p->b, n->u.foreign.reason);
        sb_printf(p->b, ",\"fused\":[],\"type\":\"%s\",\"role\":\"%s\"", t,
                  role);
        return;
    }
    sb_printf(p->b, "{\"step\":%zu,\"kind\":\"%s\",\"op\":\"%s\",\"fused\":[",
              i + 1, st->kind == SCHED_ARRAY ? "kernel" : "host",
              ir_op_name(n->op));
    fused_list(p->b, n, 1);
    sb_printf(p->b, "],\"type\":\"%s\",\"role\":\"%s\"", t, role);
}

static void describe_step(printer *p, const sched_step *st, size_t i,
                          const char *prefix, int depth)
{
    char label[LABEL_MAX];
    make_label(label, prefix, i, "");
    if (p->json)
        head_json(p, st, i);
    else
        head_text(p, st, label, depth);
    runner(p, st);
    if (st->once)
        sb_puts(p->b, p->json ? ",\"once\":true" : "; once per loop");
    releases(p, st);
    if (!p->json)
        sb_puts(p->b, "\n");
    int any = 0;
    for (int k = 0; k < 2; k++) {
        const schedule *body = st->body[k];
        char deeper[LABEL_MAX];
        make_label(deeper, prefix, i, k ? "b." : "a.");
        if (!body)
            continue;
        if (!st->counted || (st->kind == SCHED_FOREIGN &&
                             st->node->u.foreign.impl)) {
            refusal_fallback(p, body, any, depth);
            any = 1;
            continue;
        }
        if (p->json) {
            sb_printf(p->b, "%s{\"name\":\"%s\",\"steps\":[",
                      any ? "," : ",\"bodies\":[", body_name(st, k));
            describe_list(p, body, deeper, depth + 1);
            sb_puts(p->b, "]}");
        } else {
            sb_printf(p->b, "%*s%s:%s\n", 2 + 5 * depth + 3, "",
                      body_name(st, k), body->n_steps ? "" : " no steps");
            describe_list(p, body, deeper, depth + 1);
        }
        any = 1;
    }
    if (p->json)
        sb_puts(p->b, any ? "]}" : "}");
}

static void describe_list(printer *p, const schedule *s, const char *prefix,
                          int depth)
{
    for (size_t i = 0; i < s->n_steps; i++) {
        if (p->json && i)
            sb_puts(p->b, ",");
        describe_step(p, &s->steps[i], i, prefix, depth);
    }
}

void sched_describe(strbuf *b, const sched_program *s, acc_backend backend,
                    int json)
{
    printer p = {b, s, json, backend};
    if (json)
        sb_printf(b, "{\"backend\":\"%s\",\"kernels\":%zu,"
                  "\"intermediates\":%zu,\"foreign_calls\":%zu,"
                  "\"duplicated\":%zu,\"steps\":[",
                  acc_backend_name(backend), s->kernels, s->intermediates,
                  s->foreign_calls, s->duplicated);
    else
        sb_printf(b, "backend: %s\nkernels: %zu, intermediate arrays: %zu, "
                  "foreign calls: %zu, duplicated producers: %zu\nsteps:\n",
                  acc_backend_name(backend), s->kernels, s->intermediates,
                  s->foreign_calls, s->duplicated);
    describe_list(&p, &s->root, "", 0);
    if (json)
        sb_puts(b, "]}");
}
