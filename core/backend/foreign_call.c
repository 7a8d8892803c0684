/*
 * foreign_call.c — calling the implementation chosen for a foreign node
 * at run time (see foreign_call.h).  The memory is the host's (reg_call)
 * or a device backend's (reg_call_with: device pointers, its stream,
 * device scratch).
 */
#include "core/backend/foreign_call.h"

#include "core/base/mem.h"
#include "foreign/cfunc.h"
#include "foreign/registry.h"

#include <stdarg.h>
#include <stdio.h>
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
        scratch *grown = mem_realloc(w->blocks, cap * sizeof *grown);
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
    return mem_alloc(bytes);
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

/* One call of an implementation: what accel keeps of its own, apart
 * from the acc_foreign_call the implementation sees and may scribble on
 * (its pointers are never read back). */
typedef struct frame {
    const ir_node *n;
    const reg_impl *e;
    const reg_memory *m;
    acc_array *out;       /* the result descriptors */
    acc_array *given;     /* out as accel filled them, before execute */
    size_t n_out;
    char message[512];
} frame;

/* The implementation broke its contract: ACC_ERR_PLUGIN naming it. */
static acc_status impl_fault(const frame *f, diag *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static acc_status impl_fault(const frame *f, diag *d, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_fail(d, ACC_ERR_PLUGIN, "foreign '%s' (%s): %s",
                     f->n->u.foreign.name, f->e->api.impl_name, what);
}

/* What result_shape may change in result i is its extents: the element
 * type and rank stay the node's, and the extents must describe an array
 * (none negative, a size that fits int64). */
static acc_status check_shape(const frame *f, size_t i, diag *d)
{
    char got[128], want[128];
    acc_array *a = &f->out[i];
    const acc_type *t = f->n->type->array_leaves[i];
    if (!ty_equal(a->type, t->elem))
        return impl_fault(f, d, "result_shape changed the element type of "
                          "result %zu to %s; the foreign node's type says "
                          "%s", i, a->type ? ty_format(a->type, got,
                                                       sizeof got)
                                           : "NULL",
                          ty_format(t->elem, want, sizeof want));
    if (a->rank != t->rank)
        return impl_fault(f, d, "result_shape changed the rank of result %zu "
                          "to %d; the foreign node's type says rank %d", i,
                          (int)a->rank, (int)t->rank);
    for (int32_t k = 0; k < a->rank; k++)
        if (a->extents[k] < 0)
            return impl_fault(f, d, "result_shape gave result %zu the "
                              "negative extent %lld (dimension %d)", i,
                              (long long)a->extents[k], (int)k);
    if (rt_shape_size(a->rank, a->extents) < 0)
        return impl_fault(f, d, "result_shape gave result %zu extents whose "
                          "number of elements overflows int64", i);
    a->type = t->elem; /* an equal type of the implementation's: ours */
    return ACC_OK;
}

/* After execute, each result descriptor is still the one accel gave:
 * the buffers are accel's (an implementation writes into them; it
 * cannot hand back its own, or NULL), and so are the type, rank and
 * extents. */
static acc_status check_given(const frame *f, size_t i, diag *d)
{
    const acc_array *a = &f->out[i], *g = &f->given[i];
    size_t leaves = g->type->n_leaves;
    for (size_t k = 0; k < leaves; k++)
        if (a->data[k] != g->data[k])
            return impl_fault(f, d, "execute replaced the buffer data[%zu] "
                              "of result %zu (with %s); accel allocates the "
                              "results and the implementation writes into "
                              "them", k, i, a->data[k] ? "another pointer"
                                                       : "NULL");
    int same = ty_equal(a->type, g->type) && a->rank == g->rank;
    for (int32_t k = 0; same && k < g->rank; k++)
        same = a->extents[k] == g->extents[k];
    if (!same)
        return impl_fault(f, d, "execute changed the type, rank or extents "
                          "of result %zu; they are fixed once result_shape "
                          "returns", i);
    return ACC_OK;
}

/* Allocates the results at the extents result_shape wrote, and keeps a
 * copy of the descriptors for check_given. */
static int alloc_results(frame *f, rt_array **results, diag *d)
{
    for (size_t i = 0; i < f->n_out; i++) {
        acc_array *a = &f->out[i];
        if (check_shape(f, i, d) != ACC_OK)
            return 0;
        results[i] = f->m->alloc(f->m->state, a, f->n->u.foreign.name, d);
        if (!results[i] || !f->m->buffers(f->m->state, results[i], a->data,
                                          d))
            return 0;
        a->memory = f->m->memory;
        a->device = f->m->device;
    }
    f->given = mem_alloc((f->n_out ? f->n_out : 1) * sizeof *f->given);
    if (!f->given) {
        diag_oom(d, f->n->u.foreign.name);
        return 0;
    }
    memcpy(f->given, f->out, f->n_out * sizeof *f->given);
    return 1;
}

static acc_status call_failed(const frame *f, acc_status st, diag *d)
{
    acc_status code = st == ACC_ERR_OUT_OF_HOST_MEMORY ||
                      st == ACC_ERR_RUNTIME || st == ACC_ERR_SHAPE ||
                      st == ACC_ERR_TIMEOUT /* mpi: a peer never came */
                          ? st : ACC_ERR_PLUGIN;
    return diag_fail(d, code, "foreign '%s' (%s) failed with %s%s%s",
                     f->n->u.foreign.name, f->e->api.impl_name,
                     acc_status_string(st), f->message[0] ? ": " : "",
                     f->message);
}

/* Calls fn on a fresh copy of the call (an earlier callback cannot
 * redirect this one) and ends the message it may write. */
static acc_status invoke(frame *f, const acc_foreign_call *call,
                         acc_status (*fn)(acc_foreign_call *))
{
    acc_foreign_call c = *call;
    f->message[0] = '\0';
    acc_status st = fn(&c);
    reg_end_text(f->message, sizeof f->message);
    return st;
}

static acc_status run_impl(frame *f, const acc_foreign_call *call,
                           rt_array **results, diag *d)
{
    acc_status st = invoke(f, call, f->e->api.result_shape);
    if (st != ACC_OK)
        return st == ACC_ERR_UNSUPPORTED ? st : call_failed(f, st, d);
    if (!alloc_results(f, results, d))
        return d->status;
    st = invoke(f, call, f->e->api.execute);
    if (st != ACC_OK && st != ACC_ERR_UNSUPPORTED)
        return call_failed(f, st, d);
    for (size_t i = 0; st == ACC_OK && i < f->n_out; i++)
        if (check_given(f, i, d) != ACC_OK)
            return d->status;
    return st;
}

acc_status reg_call_with(const ir_node *n, rt_array *const *args,
                         rt_array **results, const reg_memory *m, diag *d)
{
    const acc_type *at = n->args[1]->type, *rt = n->type;
    acc_array in[MAX_ARRAYS], out[MAX_ARRAYS];
    frame f = {n, n->u.foreign.impl, m, out, NULL, rt->n_leaves, ""};
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
        workspace_alloc, n->u.foreign.state, f.e->api.user, f.message,
        sizeof f.message, &w};
    acc_status st = run_impl(&f, &call, results, d);
    workspace_free(&w);
    free(f.given);
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

/* Host memory whose results are the run's destinations for the node
 * called when it has them (destinations.h), else new arrays. */
typedef struct host_into {
    exec_dests *dests;
    const ir_node *n;
} host_into;

static rt_array *host_alloc_into(void *state, const acc_array *a,
                                 const char *op, diag *d)
{
    const host_into *h = state;
    rt_array *r = exec_dests_take(h->dests, h->n, a->type, a->rank,
                                  a->extents);
    return r ? r : rt_alloc(a->type, a->rank, a->extents, op, d);
}

acc_status reg_call_on_host_into(const ir_node *n, rt_array *const *args,
                                 rt_array **results, exec_dests *dests,
                                 diag *d)
{
    for (size_t i = 0; i < n->args[1]->type->n_leaves; i++)
        if (!rt_host(args[i], d))
            return d->status;
    host_into h = {dests, n};
    reg_memory m = host_memory;
    m.state = &h;
    m.alloc = host_alloc_into;
    return reg_call_with(n, args, results, &m, d);
}

acc_status reg_call_on_host(const ir_node *n, rt_array *const *args,
                            rt_array **results, diag *d)
{
    return reg_call_on_host_into(n, args, results, NULL, d);
}

int reg_scalar_callable(const ir_node *n)
{
    const reg_impl *e = n->u.foreign.impl;
    return e && e->cfn;
}

void reg_call_scalar(const ir_node *n, const ir_value *in, ir_value *out)
{
    const reg_impl *e = n->u.foreign.impl;
    reg_cfn_call_scalar(e->cfn, n->args[1]->type->leaves, in,
                        n->type->scalar, out);
}
