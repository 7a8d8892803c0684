/*
 * emit_support.c — see emit_support.h.
 */
#include <criterion/criterion.h>

#include "emit_support.h"

#include "abi/src/program.h"
#include "core/codegen/kernel_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *ts_last_step_source(acc_program *p)
{
    cr_assert(p->c.sched.n_all > 0);
    cg_kernel k;
    cg_outcome o;
    diag d;
    diag_clear(&d);
    const ir_node *n = p->c.sched.all[p->c.sched.n_all - 1]->node;
    cr_assert_eq(cg_cpu_kernel(&p->c.ir, n, &k, &o, &d), ACC_OK, "%s",
                 d.message);
    cr_assert_eq(o.built, 1, "%s", o.why_not);
    char *src = k.source;
    k.source = NULL;
    cg_kernel_free(&k);
    acc_program_free(p);
    return src;
}

char *ts_text_kernel_source(acc_context *ctx, const char *text,
                            const char *entry)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, text, (size_t)-1, entry, &p), ACC_OK,
                 "%s", acc_last_error());
    return ts_last_step_source(p);
}

void ts_expect_clean_compile(const char *src, const char *const *compilers)
{
    char dir[] = "/tmp/accel-emit-XXXXXX", path[64], cmd[512];
    int tried = 0;
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/k.c", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(src, f);
    fclose(f);
    for (size_t i = 0; compilers[i]; i++) {
        snprintf(cmd, sizeof cmd, "%s --version > /dev/null 2>&1",
                 compilers[i]);
        if (system(cmd) != 0)
            continue;
        tried++;
        snprintf(cmd, sizeof cmd, "%s -std=c11 -O2 -Wall -Wextra -Werror "
                 "-fsyntax-only %s 2>&1", compilers[i], path);
        cr_expect_eq(system(cmd), 0, "%s: warnings in %s", compilers[i], path);
    }
    unlink(path);
    rmdir(dir);
    if (!tried)
        cr_skip_test("no C compiler");
}
