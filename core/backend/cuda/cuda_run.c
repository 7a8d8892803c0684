/*
 * cuda_run.c — one run on the CUDA backend (see cuda_backend.h): its
 * stream, the device side of its arrays (uploads, lazy downloads, device
 * memory that the run reuses in stream order), the caller's device
 * buffers written directly, results delivered into device descriptors,
 * foreign calls in device memory, and the queues of execution handles.
 *
 * Every copy and launch of a run is queued on the run's stream (the
 * caller's, through an acc_exec, or one of the context's own), never on
 * the NULL stream: a caller's stream created non-blocking would not be
 * ordered with it.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/ir/types.h"
#include "foreign/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lists of blocks ------------------------------------------------------------ */

static int blocks_push(cuda_blocks *b, cu_deviceptr ptr, size_t bytes)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        cuda_block *grown = realloc(b->v, cap * sizeof *grown);
        if (!grown)
            return 0;
        b->v = grown;
        b->cap = cap;
    }
    b->v[b->n++] = (cuda_block){ptr, bytes};
    return 1;
}

/* A block of the size class of `bytes`, most recently freed first. */
static int blocks_take(cuda_blocks *b, size_t bytes, cu_deviceptr *out)
{
    size_t want = cuda_pool_class(bytes);
    for (size_t i = b->n; i-- > 0;)
        if (cuda_pool_class(b->v[i].bytes) == want) {
            *out = b->v[i].ptr;
            b->v[i] = b->v[--b->n];
            return 1;
        }
    return 0;
}

static void blocks_to_pool(cuda_pool *pool, cuda_blocks *b)
{
    for (size_t i = 0; i < b->n; i++)
        cuda_pool_free(pool, b->v[i].ptr, b->v[i].bytes);
    b->n = 0;
}

/* ---- streams of the context's own ------------------------------------------------ */

static cu_stream take_stream(cuda_backend *be, diag *d)
{
    cu_stream s = NULL;
    pthread_mutex_lock(&be->lock);
    int idle = be->n_streams > 0;
    if (idle)
        s = be->streams[--be->n_streams];
    pthread_mutex_unlock(&be->lock);
    if (idle)
        return s;
    cu_result r = be->drv.cuStreamCreate(&s, CU_STREAM_FLAG_NON_BLOCKING);
    if (r != CU_SUCCESS) {
        cuda_fail(be, d, r, "cuStreamCreate");
        return NULL;
    }
    return s;
}

static void give_stream(cuda_backend *be, cu_stream s)
{
    pthread_mutex_lock(&be->lock);
    if (be->n_streams == be->cap_streams) {
        size_t cap = be->cap_streams ? 2 * be->cap_streams : 4;
        cu_stream *grown = realloc(be->streams, cap * sizeof *grown);
        if (grown) {
            be->streams = grown;
            be->cap_streams = cap;
        }
    }
    int kept = be->n_streams < be->cap_streams;
    if (kept)
        be->streams[be->n_streams++] = s;
    pthread_mutex_unlock(&be->lock);
    if (!kept)
        be->drv.cuStreamDestroy(s);
}

/* ---- device memory of a run ------------------------------------------------------- */

int cuda_sync(cuda_run *run, diag *d)
{
    cu_result r = run->be->drv.cuStreamSynchronize(run->stream);
    if (r == CU_SUCCESS)
        return 1;
    cuda_fail(run->be, d, r, "waiting for the CUDA stream "
              "(cuStreamSynchronize)");
    return 0;
}

int cuda_run_alloc(cuda_run *run, size_t bytes, cu_deviceptr *out,
                   const char *what, diag *d)
{
    if (blocks_take(&run->freed, bytes, out))
        return 1;
    cu_result r = cuda_pool_alloc(run->be->pool, bytes, out);
    if (r == CU_ERR_OUT_OF_MEMORY && run->freed.n > 0 &&
        run->be->drv.cuStreamSynchronize(run->stream) == CU_SUCCESS) {
        /* the run's freed blocks are idle now: the pool may trim them */
        blocks_to_pool(run->be->pool, &run->freed);
        r = cuda_pool_alloc(run->be->pool, bytes, out);
    }
    if (r == CU_SUCCESS)
        return 1;
    cuda_fail(run->be, d, r, "%s: cannot allocate %zu bytes on CUDA device "
              "%d (cuMemAlloc)", what, bytes, run->be->dev.ordinal);
    return 0;
}

void cuda_run_free(cuda_run *run, cu_deviceptr ptr, size_t bytes)
{
    if (!ptr)
        return;
    if (blocks_push(&run->freed, ptr, bytes))
        return;
    /* no room on the list: wait until the block is idle, then pool it */
    run->be->drv.cuStreamSynchronize(run->stream);
    cuda_pool_free(run->be->pool, ptr, bytes);
}

/* ---- residency ------------------------------------------------------------------- */

static int download(const rt_array *a, void *const *dst, diag *d)
{
    cuda_run *run = a->dev_state;
    char sh[160];
    for (size_t i = 0; i < a->elem->n_leaves; i++) {
        size_t bytes = rt_leaf_bytes(a, i);
        cu_result r = bytes ? run->be->drv.cuMemcpyDtoHAsync(
                                  dst[i], a->dev[i], bytes, run->stream)
                            : CU_SUCCESS;
        if (r != CU_SUCCESS) {
            cuda_fail(run->be, d, r, "downloading an array of shape %s "
                      "(cuMemcpyDtoHAsync)",
                      rt_format_shape(a->rank, a->extents, sh, sizeof sh));
            return 0;
        }
    }
    return cuda_sync(run, d);
}

static void release(rt_array *a)
{
    for (size_t i = 0; i < a->elem->n_leaves; i++)
        cuda_run_free(a->dev_state, a->dev[i], rt_leaf_bytes(a, i));
}

const rt_device_ops cuda_residency = {download, release};

int cuda_device_of(cuda_run *run, rt_array *a, diag *d)
{
    char sh[160];
    if (a->valid & RT_ON_DEVICE)
        return 1;
    a->dev_ops = &cuda_residency;
    a->dev_state = run;
    a->owns_dev = 1; /* what is allocated below is freed with a */
    for (size_t i = 0; i < a->elem->n_leaves; i++) {
        size_t bytes = rt_leaf_bytes(a, i);
        cu_deviceptr p = 0;
        if (!bytes)
            continue;
        if (!cuda_run_alloc(run, bytes, &p, "uploading an input", d))
            return 0;
        a->dev[i] = p;
        cu_result r = run->be->drv.cuMemcpyHtoDAsync(p, a->data[i], bytes,
                                                     run->stream);
        if (r != CU_SUCCESS) {
            cuda_fail(run->be, d, r, "uploading an array of shape %s "
                      "(cuMemcpyHtoDAsync)",
                      rt_format_shape(a->rank, a->extents, sh, sizeof sh));
            return 0;
        }
    }
    a->valid |= RT_ON_DEVICE;
    return 1;
}

/* Whether the caller's output descriptor can hold r's result directly. */
static int fits(const acc_array *out, const rt_array *r)
{
    if (!out->data[0] || out->memory != ACC_MEMORY_CUDA_DEVICE ||
        (out->type && !ty_equal(out->type, r->elem)) || out->rank != r->rank)
        return 0;
    for (int32_t k = 0; k < r->rank; k++)
        if (out->extents[k] != r->extents[k])
            return 0;
    for (size_t i = 0; i < r->elem->n_leaves; i++)
        if (!out->data[i])
            return 0;
    return 1;
}

/* The caller's buffers of an output that node n produces, when they fit. */
static int claim_output(cuda_run *run, const ir_node *n, rt_array *a)
{
    for (size_t i = 0; n && i < run->n_outputs; i++) {
        if (run->cp->out_nodes[i] != n || run->claimed[i] ||
            !fits(&run->outputs[i], a))
            continue;
        for (size_t k = 0; k < a->elem->n_leaves; k++)
            a->dev[k] = (uint64_t)(uintptr_t)run->outputs[i].data[k];
        run->claimed[i] = 1;
        return 1;
    }
    return 0;
}

rt_array *cuda_result(cuda_run *run, const ir_node *n, const acc_type *elem,
                      int32_t rank, const int64_t *ext, const char *op,
                      diag *d)
{
    rt_array *a = rt_shell(elem, rank, ext, op, d);
    if (!a)
        return NULL;
    a->dev_ops = &cuda_residency;
    a->dev_state = run;
    if (claim_output(run, n, a)) {
        a->valid = RT_ON_DEVICE;
        return a;
    }
    a->owns_dev = 1;
    for (size_t i = 0; i < elem->n_leaves; i++) {
        size_t bytes = rt_leaf_bytes(a, i);
        cu_deviceptr p = 0;
        if (bytes && !cuda_run_alloc(run, bytes, &p, op, d)) {
            rt_release(a);
            return NULL;
        }
        a->dev[i] = p;
    }
    a->valid = RT_ON_DEVICE;
    return a;
}

/* ---- delivering results into device descriptors ----------------------------------- */

/* r's leaves into the device buffers dst[] (nothing for a leaf already
 * there: a step wrote the caller's buffer directly). */
static int copy_to_device(cuda_run *run, void *const *dst, const rt_array *r,
                          diag *d)
{
    const cuda_driver *drv = &run->be->drv;
    for (size_t i = 0; i < r->elem->n_leaves; i++) {
        size_t bytes = rt_leaf_bytes(r, i);
        cu_deviceptr to = (cu_deviceptr)(uintptr_t)dst[i];
        cu_result res = CU_SUCCESS;
        if (!bytes || ((r->valid & RT_ON_DEVICE) && r->dev[i] == to))
            continue;
        if (r->valid & RT_ON_DEVICE)
            res = drv->cuMemcpyDtoDAsync(to, r->dev[i], bytes, run->stream);
        else
            res = drv->cuMemcpyHtoDAsync(to, r->data[i], bytes, run->stream);
        if (res != CU_SUCCESS) {
            cuda_fail(run->be, d, res, "acc_run: copying an output to device "
                      "memory");
            return 0;
        }
    }
    return 1;
}

/* acc_array.release of a library-owned device output. */
static void release_output(acc_array *a)
{
    cuda_backend *be = a->release_state;
    diag ignored;
    diag_clear(&ignored);
    int entered = cuda_enter(be, &ignored);
    for (size_t i = 0; i < acc_type_leaf_count(a->type); i++) {
        size_t bytes = (size_t)acc_array_size(a) *
                       acc_scalar_size(acc_type_leaf(a->type, i));
        if (bytes)
            cuda_pool_free(be->pool, (cu_deviceptr)(uintptr_t)a->data[i],
                           bytes);
    }
    if (entered)
        cuda_leave(be);
    cuda_backend_release(be);
}

/* New device buffers for r (its own when nothing else holds them). */
static int to_library(cuda_run *run, acc_array *out, rt_array *r, diag *d)
{
    acc_array fresh;
    acc_array_init(&fresh, r->elem, r->rank, r->extents);
    fresh.memory = ACC_MEMORY_CUDA_DEVICE;
    fresh.device = run->be->dev.ordinal;
    int steal = r->owns_dev && r->refs == 1 && (r->valid & RT_ON_DEVICE);
    for (size_t i = 0; i < r->elem->n_leaves; i++) {
        size_t bytes = rt_leaf_bytes(r, i);
        cu_deviceptr p = steal ? r->dev[i] : 0;
        if (!steal && bytes &&
            !cuda_run_alloc(run, bytes, &p, "acc_run: an output", d)) {
            for (size_t k = 0; k < i; k++)
                cuda_run_free(run, (cu_deviceptr)(uintptr_t)fresh.data[k],
                              rt_leaf_bytes(r, k));
            return 0;
        }
        fresh.data[i] = (void *)(uintptr_t)p;
    }
    if (steal)
        r->owns_dev = 0;
    else if (!copy_to_device(run, fresh.data, r, d)) {
        for (size_t k = 0; k < r->elem->n_leaves; k++)
            cuda_run_free(run, (cu_deviceptr)(uintptr_t)fresh.data[k],
                          rt_leaf_bytes(r, k));
        return 0;
    }
    fresh.ownership = ACC_OWNERSHIP_LIBRARY;
    fresh.release = release_output;
    fresh.release_state = run->be;
    cuda_backend_retain(run->be);
    *out = fresh;
    return 1;
}

int cuda_deliver_device(cuda_run *run, acc_array *out, rt_array *r, diag *d)
{
    if (out->data[0])
        return copy_to_device(run, out->data, r, d);
    return to_library(run, out, r, d);
}

/* ---- foreign calls ------------------------------------------------------------------ */

static int foreign_buffers(void *state, rt_array *r, void **data, diag *d)
{
    if (!cuda_device_of(state, r, d))
        return 0;
    for (size_t i = 0; i < r->elem->n_leaves; i++)
        data[i] = (void *)(uintptr_t)r->dev[i];
    return 1;
}

static rt_array *foreign_alloc(void *state, const acc_array *a,
                               const char *op, diag *d)
{
    return cuda_result(state, NULL, a->type, a->rank, a->extents, op, d);
}

static void *foreign_scratch(void *state, size_t bytes)
{
    cu_deviceptr p = 0;
    diag ignored;
    diag_clear(&ignored);
    if (!cuda_run_alloc(state, bytes, &p, "foreign workspace", &ignored))
        return NULL;
    return (void *)(uintptr_t)p;
}

static void foreign_scratch_free(void *state, void *p, size_t bytes)
{
    cuda_run_free(state, (cu_deviceptr)(uintptr_t)p, bytes);
}

/* A CUDA implementation gets device pointers and the stream; a host one
 * (none is chosen for CUDA programs today, see registry.c) host copies. */
static acc_status call_foreign(void *state, interp *st, const ir_node *n,
                               rt_array *const *args, rt_array **results)
{
    cuda_run *run = state;
    const reg_impl *e = n->u.foreign.impl;
    if (e->api.backend == ACC_BACKEND_CUDA)
        return reg_call_with(n, args, results, &run->mem, st->d);
    for (size_t i = 0; i < n->args[1]->type->n_leaves; i++)
        if (!rt_host(args[i], st->d))
            return st->d->status;
    return reg_call(n, args, results, st->d);
}

/* ---- the run ------------------------------------------------------------------------ */

static int eval_hook(void *state, interp *st, const ir_node *n,
                     rt_array **out)
{
    cuda_run *run = state;
    const cuda_launcher *l = NULL;
    const cuda_node *kn = cuda_program_node(run->cp, n, &l);
    return kn ? l->drive(run, kn, st, n, out) : -1;
}

const interp_hook *cuda_run_hook(cuda_run *run)
{
    return &run->hook;
}

static void run_free(cuda_run *run)
{
    free(run->freed.v);
    free(run->claimed);
    free(run);
}

cuda_run *cuda_run_begin(cuda_program *cp, cuda_queue *q,
                         rt_array *const *inputs, size_t n_inputs,
                         const acc_array *outputs, size_t n_outputs,
                         diag *d)
{
    cuda_run *run = calloc(1, sizeof *run);
    if (!run || !(run->claimed = calloc(n_outputs ? n_outputs : 1, 1))) {
        free(run);
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_run: out of host "
                  "memory");
        return NULL;
    }
    run->cp = cp;
    run->be = cp->be;
    if (!cuda_enter(run->be, d)) {
        run_free(run);
        return NULL;
    }
    run->queue = q;
    run->async = q && q->async;
    run->own_stream = !q;
    run->stream = q ? q->stream : take_stream(run->be, d);
    if (!diag_ok(d)) {
        cuda_leave(run->be);
        run_free(run);
        return NULL;
    }
    for (size_t i = 0; i < n_inputs; i++)
        if ((inputs[i]->valid & RT_ON_DEVICE) && !inputs[i]->dev_ops) {
            inputs[i]->dev_ops = &cuda_residency;
            inputs[i]->dev_state = run;
        }
    run->outputs = outputs;
    run->n_outputs = n_outputs;
    run->hook = (interp_hook){eval_hook, run, call_foreign};
    run->mem = (reg_memory){ACC_MEMORY_CUDA_DEVICE, run->be->dev.ordinal,
                            (void *)run->stream, run, foreign_buffers,
                            foreign_alloc, foreign_scratch,
                            foreign_scratch_free};
    return run;
}

/* An asynchronous run's freed blocks wait for acc_exec_wait. */
static int hand_to_queue(cuda_run *run)
{
    cuda_blocks *to = &run->queue->pending, *from = &run->freed;
    while (from->n > 0) {
        cuda_block b = from->v[from->n - 1];
        if (!blocks_push(to, b.ptr, b.bytes))
            return 0;
        from->n--;
    }
    return 1;
}

acc_status cuda_run_end(cuda_run *run, diag *d)
{
    cuda_backend *be = run->be;
    if (!run->async || !diag_ok(d) || !hand_to_queue(run)) {
        cuda_sync(run, d);
        blocks_to_pool(be->pool, &run->freed);
    }
    if (run->own_stream)
        give_stream(be, run->stream);
    cuda_leave(be);
    run_free(run);
    return d->status;
}

/* ---- execution handles ---------------------------------------------------------- */

cuda_queue *cuda_queue_create(cuda_backend *be, void *stream, int async)
{
    cuda_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->be = be;
    q->stream = (cu_stream)stream;
    q->async = async;
    cuda_backend_retain(be);
    return q;
}

acc_status cuda_queue_wait(cuda_queue *q, diag *d)
{
    if (!cuda_enter(q->be, d))
        return d->status;
    cu_result r = q->be->drv.cuStreamSynchronize(q->stream);
    if (r != CU_SUCCESS)
        cuda_fail(q->be, d, r, "acc_exec_wait: the work queued on the "
                  "stream failed (cuStreamSynchronize)");
    blocks_to_pool(q->be->pool, &q->pending);
    cuda_leave(q->be);
    return d->status;
}

void cuda_queue_destroy(cuda_queue *q)
{
    diag ignored;
    diag_clear(&ignored);
    if (!q)
        return;
    cuda_queue_wait(q, &ignored);
    blocks_to_pool(q->be->pool, &q->pending); /* left by a failed wait */
    free(q->pending.v);
    cuda_backend_release(q->be);
    free(q);
}
