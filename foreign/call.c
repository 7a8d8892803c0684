/*
 * call.c — calling the implementation chosen for a foreign node at run
 * time (host memory): argument descriptors that borrow the run's arrays,
 * result arrays of the extents result_shape gives, a workspace freed
 * after the call.
 */
#include "foreign/cfunc.h"
#include "foreign/registry.h"
#include "foreign/resolve.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_ARRAYS = 64 };

typedef struct workspace {
    void **blocks;
    size_t n, cap;
} workspace;

static void *workspace_alloc(acc_foreign_call *call, size_t bytes)
{
    workspace *w = call->internal;
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 4;
        void **grown = realloc(w->blocks, cap * sizeof *grown);
        if (!grown)
            return NULL;
        w->blocks = grown;
        w->cap = cap;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        w->blocks[w->n++] = p;
    return p;
}

static void workspace_free(workspace *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->blocks[i]);
    free(w->blocks);
}

static void describe_array(acc_array *a, const rt_array *r)
{
    acc_array_init(a, r->elem, r->rank, r->extents);
    memcpy(a->data, r->data, sizeof a->data);
}

/* Allocates the results at the extents result_shape wrote. */
static int alloc_results(const ir_node *n, acc_foreign_call *call,
                         rt_array **results, diag *d)
{
    for (size_t i = 0; i < call->n_results; i++) {
        acc_array *a = &call->results[i];
        results[i] = rt_alloc(a->type, a->rank, a->extents, n->u.foreign.name,
                              d);
        if (!results[i])
            return 0;
        memcpy(a->data, results[i]->data, sizeof a->data);
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
                           rt_array **results, diag *d)
{
    const reg_impl *e = n->u.foreign.impl;
    acc_status st = e->api.result_shape(call);
    if (st != ACC_OK)
        return st == ACC_ERR_UNSUPPORTED ? st
                                         : call_failed(n, st, call->message, d);
    if (!alloc_results(n, call, results, d))
        return d->status;
    st = e->api.execute(call);
    if (st != ACC_OK && st != ACC_ERR_UNSUPPORTED)
        call_failed(n, st, call->message, d);
    return st;
}

acc_status reg_call(const ir_node *n, rt_array *const *args,
                    rt_array **results, diag *d)
{
    const reg_impl *e = n->u.foreign.impl;
    const acc_type *at = n->args[1]->type, *rt = n->type;
    acc_array in[MAX_ARRAYS], out[MAX_ARRAYS];
    char message[512] = "";
    workspace w = {NULL, 0, 0};
    for (size_t i = 0; i < at->n_leaves; i++)
        describe_array(&in[i], args[i]);
    for (size_t i = 0; i < rt->n_leaves; i++) {
        static const int64_t zeros[ACC_MAX_RANK];
        acc_array_init(&out[i], rt->array_leaves[i]->elem,
                       rt->array_leaves[i]->rank, zeros);
        results[i] = NULL;
    }
    acc_foreign_call call = {
        sizeof call, at->n_leaves, in, rt->n_leaves, out, NULL,
        workspace_alloc, n->u.foreign.state, e->api.user, message,
        sizeof message, &w};
    acc_status st = run_impl(n, &call, results, d);
    workspace_free(&w);
    if (st != ACC_OK)
        for (size_t i = 0; i < rt->n_leaves; i++) {
            rt_release(results[i]);
            results[i] = NULL;
        }
    return st;
}

void reg_call_scalar(const ir_node *n, const ir_value *in, ir_value *out)
{
    const reg_impl *e = n->u.foreign.impl;
    reg_cfn_call_scalar(e->cfn, n->args[1]->type->leaves, in,
                        n->type->scalar, out);
}
