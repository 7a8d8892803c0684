/*
 * call.c — calling the implementation chosen for a foreign node at run
 * time: argument descriptors that borrow the run's arrays, result arrays
 * of the extents result_shape gives, a workspace freed after the call.
 * The memory is the host's (reg_call) or a device backend's
 * (reg_call_with: device pointers, its stream, device scratch).
 */
#include "foreign/cfunc.h"
#include "foreign/registry.h"
#include "foreign/resolve.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_ARRAYS = 64 };

typedef struct scratch {
    void *p;
    size_t bytes;
} scratch;

typedef struct workspace {
    const reg_memory *m;
    scratch *blocks;
    size_t n, cap;
} workspace;

static void *workspace_alloc(acc_foreign_call *call, size_t bytes)
{
    workspace *w = call->internal;
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 4;
        scratch *grown = realloc(w->blocks, cap * sizeof *grown);
        if (!grown)
            return NULL;
        w->blocks = grown;
        w->cap = cap;
    }
    void *p = w->m->scratch(w->m->state, bytes ? bytes : 1);
    if (p)
        w->blocks[w->n++] = (scratch){p, bytes ? bytes : 1};
    return p;
}

static void workspace_free(workspace *w)
{
    for (size_t i = 0; i < w->n; i++)
        w->m->scratch_free(w->m->state, w->blocks[i].p, w->blocks[i].bytes);
    free(w->blocks);
}

/* ---- host memory ---------------------------------------------------------- */

static int host_buffers(void *state, rt_array *r, void **data, diag *d)
{
    (void)state;
    (void)d;
    memcpy(data, r->data, sizeof r->data);
    return 1;
}

static rt_array *host_alloc(void *state, const acc_array *a, const char *op,
                            diag *d)
{
    (void)state;
    return rt_alloc(a->type, a->rank, a->extents, op, d);
}

static void *host_scratch(void *state, size_t bytes)
{
    (void)state;
    return malloc(bytes);
}

static void host_scratch_free(void *state, void *p, size_t bytes)
{
    (void)state;
    (void)bytes;
    free(p);
}

static const reg_memory host_memory = {
    ACC_MEMORY_HOST, 0, NULL, NULL, host_buffers, host_alloc, host_scratch,
    host_scratch_free};

/* Allocates the results at the extents result_shape wrote. */
static int alloc_results(const ir_node *n, acc_foreign_call *call,
                         rt_array **results, const reg_memory *m, diag *d)
{
    for (size_t i = 0; i < call->n_results; i++) {
        acc_array *a = &call->results[i];
        results[i] = m->alloc(m->state, a, n->u.foreign.name, d);
        if (!results[i] || !m->buffers(m->state, results[i], a->data, d))
            return 0;
        a->memory = m->memory;
        a->device = m->device;
    }
    return 1;
}

static acc_status call_failed(const ir_node *n, acc_status st,
                              const char *message, diag *d)
{
    const reg_impl *e = n->u.foreign.impl;
    acc_status code = st == ACC_ERR_OUT_OF_HOST_MEMORY ||
                      st == ACC_ERR_RUNTIME || st == ACC_ERR_SHAPE
                          ? st : ACC_ERR_PLUGIN;
    return diag_fail(d, code, "foreign '%s' (%s) failed with %s%s%s",
                     n->u.foreign.name, e->api.impl_name,
                     acc_status_string(st), message[0] ? ": " : "", message);
}

static acc_status run_impl(const ir_node *n, acc_foreign_call *call,
                           rt_array **results, const reg_memory *m, diag *d)
{
    const reg_impl *e = n->u.foreign.impl;
    acc_status st = e->api.result_shape(call);
    if (st != ACC_OK)
        return st == ACC_ERR_UNSUPPORTED ? st
                                         : call_failed(n, st, call->message, d);
    if (!alloc_results(n, call, results, m, d))
        return d->status;
    st = e->api.execute(call);
    if (st != ACC_OK && st != ACC_ERR_UNSUPPORTED)
        call_failed(n, st, call->message, d);
    return st;
}

acc_status reg_call_with(const ir_node *n, rt_array *const *args,
                         rt_array **results, const reg_memory *m, diag *d)
{
    const reg_impl *e = n->u.foreign.impl;
    const acc_type *at = n->args[1]->type, *rt = n->type;
    acc_array in[MAX_ARRAYS], out[MAX_ARRAYS];
    char message[512] = "";
    workspace w = {m, NULL, 0, 0};
    for (size_t i = 0; i < rt->n_leaves; i++)
        results[i] = NULL;
    for (size_t i = 0; i < at->n_leaves; i++) {
        acc_array_init(&in[i], args[i]->elem, args[i]->rank,
                       args[i]->extents);
        in[i].memory = m->memory;
        in[i].device = m->device;
        if (!m->buffers(m->state, args[i], in[i].data, d))
            return d->status;
    }
    for (size_t i = 0; i < rt->n_leaves; i++) {
        static const int64_t zeros[ACC_MAX_RANK];
        acc_array_init(&out[i], rt->array_leaves[i]->elem,
                       rt->array_leaves[i]->rank, zeros);
    }
    acc_foreign_call call = {
        sizeof call, at->n_leaves, in, rt->n_leaves, out, m->stream,
        workspace_alloc, n->u.foreign.state, e->api.user, message,
        sizeof message, &w};
    acc_status st = run_impl(n, &call, results, m, d);
    workspace_free(&w);
    if (st != ACC_OK)
        for (size_t i = 0; i < rt->n_leaves; i++) {
            rt_release(results[i]);
            results[i] = NULL;
        }
    return st;
}

acc_status reg_call(const ir_node *n, rt_array *const *args,
                    rt_array **results, diag *d)
{
    return reg_call_with(n, args, results, &host_memory, d);
}

void reg_call_scalar(const ir_node *n, const ir_value *in, ir_value *out)
{
    const reg_impl *e = n->u.foreign.impl;
    reg_cfn_call_scalar(e->cfn, n->args[1]->type->leaves, in,
                        n->type->scalar, out);
}
