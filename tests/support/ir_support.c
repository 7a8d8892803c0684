/*
 * ir_support.c — see ir_support.h.
 */
#include <criterion/criterion.h>

#include "ir_support.h"

#include <stdint.h>
#include <stdlib.h>

static void walk(const ir_node *n, uint8_t *seen, ts_ir_visit_fn visit,
                 void *arg)
{
    int again = seen[n->id];
    seen[n->id] = 1;
    visit(n, again, arg);
    if (again)
        return;
    for (uint32_t i = 0; i < n->n_args; i++)
        walk(n->args[i], seen, visit, arg);
}

void ts_ir_walk(const acc_program *p, ts_ir_visit_fn visit, void *arg)
{
    uint8_t *seen = calloc(p->c.ir.n_nodes, 1);
    cr_assert(seen);
    walk(p->c.ir.root, seen, visit, arg);
    free(seen);
}
