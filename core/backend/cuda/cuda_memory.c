/*
 * cuda_memory.c — the device memory of a run (see cuda_internal.h): its
 * list of freed blocks, which the run takes back first (its work is
 * queued on one stream, so a later kernel or copy cannot overtake an
 * earlier reader) and which goes to the pool only once the stream has
 * been waited for; allocation with a retry when memory runs out; the
 * residency of arrays (uploads once per run, lazy downloads,
 * rt_device_ops); and result arrays, written into the caller's device
 * output buffers when a step produces an output they fit.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/base/mem.h"
#include "core/ir/types.h"

#include <stdlib.h>
#include <string.h>

/* ---- lists of blocks ------------------------------------------------------------ */

int cuda_blocks_push(cuda_blocks *b, cu_deviceptr ptr, size_t bytes)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        cuda_block *grown = mem_realloc(b->v, cap * sizeof *grown);
        if (!grown)
            return 0;
        b->v = grown;
        b->cap = cap;
    }
    b->v[b->n++] = (cuda_block){ptr, bytes};
    return 1;
}

/* A block of the size class of `bytes`, most recently freed first. */
int cuda_blocks_take(cuda_blocks *b, size_t bytes, cu_deviceptr *out)
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

void cuda_blocks_to_pool(cuda_pool *pool, cuda_blocks *b)
{
    for (size_t i = 0; i < b->n; i++)
        cuda_pool_free(pool, b->v[i].ptr, b->v[i].bytes);
    b->n = 0;
}

/* ---- device memory of a run ------------------------------------------------------- */

acc_status cuda_sync(cuda_run *run, diag *d)
{
    cu_result r = run->be->drv.cuStreamSynchronize(run->stream);
    if (r == CU_SUCCESS)
        return ACC_OK;
    return cuda_fail(run->be, d, r, "waiting for the CUDA stream "
                     "(cuStreamSynchronize)");
}

acc_status cuda_run_alloc(cuda_run *run, size_t bytes, cu_deviceptr *out,
                          const char *what, diag *d)
{
    if (cuda_blocks_take(&run->freed, bytes, out))
        return ACC_OK;
    cu_result r = cuda_pool_alloc(run->be->pool, bytes, out);
    if (r == CU_ERR_OUT_OF_MEMORY && run->freed.n > 0 &&
        run->be->drv.cuStreamSynchronize(run->stream) == CU_SUCCESS) {
        /* the run's freed blocks are idle now: the pool may trim them */
        cuda_blocks_to_pool(run->be->pool, &run->freed);
        r = cuda_pool_alloc(run->be->pool, bytes, out);
    }
    if (r == CU_SUCCESS)
        return ACC_OK;
    return cuda_fail(run->be, d, r, "%s: cannot allocate %zu bytes on CUDA "
                     "device %d (cuMemAlloc)", what, bytes,
                     run->be->dev.ordinal);
}

void cuda_run_free(cuda_run *run, cu_deviceptr ptr, size_t bytes)
{
    if (!ptr)
        return;
    if (cuda_blocks_push(&run->freed, ptr, bytes))
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
    return cuda_sync(run, d) == ACC_OK; /* rt_device_ops answers 1/0 */
}

static void release(rt_array *a)
{
    for (size_t i = 0; i < a->elem->n_leaves; i++)
        cuda_run_free(a->dev_state, a->dev[i], rt_leaf_bytes(a, i));
}

const rt_device_ops cuda_residency = {download, release};

acc_status cuda_device_of(cuda_run *run, rt_array *a, diag *d)
{
    char sh[160];
    if (a->valid & RT_ON_DEVICE)
        return ACC_OK;
    a->dev_ops = &cuda_residency;
    a->dev_state = run;
    a->owns_dev = 1; /* what is allocated below is freed with a */
    for (size_t i = 0; i < a->elem->n_leaves; i++) {
        size_t bytes = rt_leaf_bytes(a, i);
        cu_deviceptr p = 0;
        if (!bytes)
            continue;
        if (cuda_run_alloc(run, bytes, &p, "uploading an input", d))
            return d->status;
        a->dev[i] = p;
        cu_result r = run->be->drv.cuMemcpyHtoDAsync(p, a->data[i], bytes,
                                                     run->stream);
        if (r != CU_SUCCESS)
            return cuda_fail(run->be, d, r, "uploading an array of shape %s "
                             "(cuMemcpyHtoDAsync)",
                             rt_format_shape(a->rank, a->extents, sh,
                                             sizeof sh));
    }
    a->valid |= RT_ON_DEVICE;
    return ACC_OK;
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
    rt_array *dest = exec_dests_take(run->dests, n, elem, rank, ext);
    if (dest) { /* borrowed buffers: a does not own them */
        memcpy(a->dev, dest->dev, sizeof a->dev);
        rt_release(dest);
        a->valid = RT_ON_DEVICE;
        return a;
    }
    a->owns_dev = 1;
    for (size_t i = 0; i < elem->n_leaves; i++) {
        size_t bytes = rt_leaf_bytes(a, i);
        cu_deviceptr p = 0;
        if (bytes && cuda_run_alloc(run, bytes, &p, op, d) != ACC_OK) {
            rt_release(a);
            return NULL;
        }
        a->dev[i] = p;
    }
    a->valid = RT_ON_DEVICE;
    return a;
}

