/*
 * destinations.c — the caller's output buffers offered to the steps that
 * compute the outputs (see destinations.h).
 */
#include "core/backend/destinations.h"

#include "core/base/mem.h"
#include "core/ir/types.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether [a, a + an) and [b, b + bn) share a byte. */
static int overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return an && bn && x < y + bn && y < x + an;
}

/* Whether any leaf buffer of descriptor d, of element type elem (the
 * program's: a caller's output descriptor need not name one), in `memory`,
 * overlaps `bytes` bytes at buf.  A descriptor without buffers (an output
 * the library is to allocate) overlaps nothing. */
static int overlaps_any_leaf(const acc_array *d, const acc_type *elem,
                             acc_memory memory, const void *buf, size_t bytes)
{
    if (d->memory != memory || !d->data[0])
        return 0;
    int64_t n = acc_array_size(d);
    for (size_t k = 0; n > 0 && k < elem->n_leaves; k++)
        if (overlap(d->data[k], (size_t)n * acc_scalar_size(elem->leaves[k]),
                    buf, bytes))
            return 1;
    return 0;
}

/* Whether output i's buffers may receive its result directly: given, in
 * `memory`, and overlapping no input and no other output. */
static int offerable(const ir_program *p, acc_memory memory, size_t n_in,
                     const acc_array *in, size_t n_out, const acc_array *out,
                     size_t i)
{
    const acc_array *o = &out[i];
    const acc_type *elem = p->outputs[i]->elem;
    int64_t n = acc_array_size(o);
    if (o->memory != memory || n <= 0)
        return 0;
    for (size_t k = 0; k < elem->n_leaves; k++) {
        size_t bytes = (size_t)n * acc_scalar_size(elem->leaves[k]);
        if (!o->data[k])
            return 0;
        for (size_t j = 0; j < n_in; j++)
            if (overlaps_any_leaf(&in[j], p->inputs[j]->type->elem, memory,
                                  o->data[k], bytes))
                return 0;
        for (size_t j = 0; j < n_out; j++)
            if (j != i && overlaps_any_leaf(&out[j], p->outputs[j]->elem,
                                            memory, o->data[k], bytes))
                return 0;
    }
    return 1;
}

static exec_dest *find(exec_dests *t, uint32_t node)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (t->at[i].node == node)
            return &t->at[i];
    return NULL;
}

/* Offers output i's buffers to the node computing it: 0 when out of
 * memory.  The first few wrappers are the table's own (no allocation:
 * every reference to them is released before the run ends). */
static int offer(exec_dests *t, const ir_program *p, const acc_array *o,
                 size_t i, diag *d)
{
    const ir_node *n = ir_program_output_node(p, i);
    if (!n || n->op == IR_INPUT || find(t, n->id))
        return 1; /* nothing computes it, or an earlier output has it */
    acc_array typed = *o;
    typed.type = p->outputs[i]->elem;
    rt_array *buf = t->n < EXEC_DESTS_FEW ? rt_wrap_at(&t->shells[t->n], &typed)
                                          : rt_wrap(&typed, d);
    if (buf)
        t->at[t->n++] = (exec_dest){n->id, buf};
    return buf != NULL;
}

acc_status exec_dests_create(const ir_program *p, acc_memory memory,
                             size_t n_in, const acc_array *in, size_t n_out,
                             const acc_array *out, exec_dests *room,
                             exec_dests **dests, diag *d)
{
    exec_dests *t = NULL;
    *dests = NULL;
    for (size_t i = 0; i < n_out; i++) {
        if (!offerable(p, memory, n_in, in, n_out, out, i))
            continue;
        if (!t) {
            t = room;
            t->n = 0;
            t->at = n_out <= EXEC_DESTS_FEW
                        ? t->few : mem_alloc(n_out * sizeof *t->at);
            if (!t->at)
                return diag_oom(d, "acc_run");
        }
        if (!offer(t, p, &out[i], i, d)) {
            exec_dests_free(t);
            return d->status;
        }
    }
    *dests = t;
    return d->status;
}

rt_array *exec_dests_take(exec_dests *dests, const ir_node *n,
                          const acc_type *elem, int32_t rank,
                          const int64_t *extents)
{
    /* n is NULL for a result no node names (a foreign call's, on CUDA) */
    exec_dest *e = dests && n ? find(dests, n->id) : NULL;
    rt_array *a = e ? e->buf : NULL;
    if (!a || a->rank != rank || !ty_equal(a->elem, elem) ||
        memcmp(a->extents, extents, (size_t)rank * sizeof *extents) != 0)
        return NULL;
    e->buf = NULL; /* one result per destination */
    return a;
}

void exec_dests_free(exec_dests *dests)
{
    if (!dests)
        return;
    for (size_t i = 0; i < dests->n; i++)
        rt_release(dests->at[i].buf);
    if (dests->at != dests->few)
        free(dests->at);
    dests->n = 0;
    dests->at = NULL;
}
