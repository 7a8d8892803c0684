/* dump.c — printing the IR after chosen passes (ACC_DUMP). */
#include "core/ir/dump.h"

#include "core/ir/printer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the comma-separated list in variable `env` names `pass`. */
static int env_names(const char *env, const char *pass)
{
    const char *list = getenv(env);
    if (!list || !*list)
        return 0;
    size_t n = strlen(pass);
    for (const char *at = list; *at;) {
        size_t len = strcspn(at, ", ");
        if ((len == n && strncmp(at, pass, n) == 0) ||
            (len == 3 && strncmp(at, "all", 3) == 0))
            return 1;
        at += len;
        at += strspn(at, ", ");
    }
    return 0;
}

int dump_wanted(const char *pass)
{
    return env_names("ACC_DUMP", pass);
}

int pass_disabled(const char *pass)
{
    return env_names("ACC_DISABLE", pass);
}

void dump_after_pass(const ir_program *p, const char *pass)
{
    if (!dump_wanted(pass))
        return;
    strbuf b = {0};
    ir_print_program(&b, p);
    fprintf(stderr, "== accel IR after %s ==\n%s\n", pass,
            b.text ? b.text : "(out of memory while printing)");
    sb_free(&b);
}

void dump_kernel(const char *target, const ir_node *n, const char *source)
{
    if (dump_wanted("kernels"))
        fprintf(stderr, "== accel %s kernel of %s (node %u) ==\n%s\n", target,
                ir_op_name(n->op), n->id, source);
}
