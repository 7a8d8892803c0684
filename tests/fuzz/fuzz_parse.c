/*
 * fuzz_parse.c — libFuzzer target for the text front end (built when
 * ACC_FUZZ is ON, with clang; see cmake/AccelFuzz.cmake).  Every input is
 * handed to acc_parse_entries, then to acc_parse once per entry point
 * (at most four) and once with no entry; a parse that succeeds is also
 * compiled, never run (a text program may loop forever).  The sanitizers
 * catch crashes, overflows and leaks; acc_parse must return a status for
 * every input.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "accel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_RESULTS = 16 };

static acc_context *context(void)
{
    static acc_context *ctx;
    if (!ctx) {
        acc_context_options opts;
        acc_context_options_init(&opts);
        opts.backend = ACC_BACKEND_INTERP;
        acc_context_create(&opts, &ctx);
    }
    return ctx;
}

static void parse_one(const char *src, size_t size, const char *entry)
{
    acc_context *ctx = context();
    acc_graph *g = NULL;
    if (!ctx || acc_graph_create(ctx, &g) != ACC_OK)
        return;
    acc_node *results[MAX_RESULTS];
    size_t n = 0;
    if (acc_parse(g, src, size, entry, results, MAX_RESULTS, &n) == ACC_OK) {
        acc_program *p = NULL;
        if (acc_compile(ctx, g, n, results, &p) == ACC_OK)
            acc_program_free(p);
    }
    acc_graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *src = (const char *)data;
    char *names = NULL;
    parse_one(src, size, NULL);
    if (acc_parse_entries(src, size, &names) != ACC_OK)
        return 0;
    char *at = names;
    for (int i = 0; i < 4 && at && *at; i++) {
        char *nl = strchr(at, '\n');
        if (nl)
            *nl = '\0';
        parse_one(src, size, at);
        at = nl ? nl + 1 : NULL;
    }
    acc_free(names);
    return 0;
}
