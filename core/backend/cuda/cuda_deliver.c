/*
 * cuda_deliver.c — a run's results delivered into output descriptors in
 * device memory (see cuda_backend.h): the caller's buffers (unless a step
 * wrote them directly), or new library-owned device buffers, released by
 * acc_array_release back to the context's pool.
 */
#include "core/backend/cuda/cuda_internal.h"

/* r's leaves into the device buffers dst[] (nothing for a leaf already
 * there: a step wrote the caller's buffer directly). */
static acc_status copy_to_device(cuda_run *run, void *const *dst,
                                 const rt_array *r, diag *d)
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
        if (res != CU_SUCCESS)
            return cuda_fail(run->be, d, res, "acc_run: copying an output to "
                             "device memory");
    }
    return ACC_OK;
}

/* acc_array.release of a library-owned device output. */
static void release_output(acc_array *a)
{
    cuda_backend *be = a->release_state;
    diag ignored;
    diag_clear(&ignored);
    int entered = cuda_enter(be, &ignored) == ACC_OK;
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
static acc_status to_library(cuda_run *run, acc_array *out, rt_array *r,
                             diag *d)
{
    acc_status s = ACC_OK;
    acc_array fresh;
    acc_array_init(&fresh, r->elem, r->rank, r->extents);
    fresh.memory = ACC_MEMORY_CUDA_DEVICE;
    fresh.device = run->be->dev.ordinal;
    int steal = r->owns_dev && r->refs == 1 && (r->valid & RT_ON_DEVICE);
    for (size_t i = 0; i < r->elem->n_leaves; i++) {
        size_t bytes = rt_leaf_bytes(r, i);
        cu_deviceptr p = steal ? r->dev[i] : 0;
        if (!steal && bytes &&
            (s = cuda_run_alloc(run, bytes, &p, "acc_run: an output", d)) !=
                ACC_OK) {
            for (size_t k = 0; k < i; k++)
                cuda_run_free(run, (cu_deviceptr)(uintptr_t)fresh.data[k],
                              rt_leaf_bytes(r, k));
            return s;
        }
        fresh.data[i] = (void *)(uintptr_t)p;
    }
    if (steal)
        r->owns_dev = 0;
    else if ((s = copy_to_device(run, fresh.data, r, d)) != ACC_OK) {
        for (size_t k = 0; k < r->elem->n_leaves; k++)
            cuda_run_free(run, (cu_deviceptr)(uintptr_t)fresh.data[k],
                          rt_leaf_bytes(r, k));
        return s;
    }
    fresh.ownership = ACC_OWNERSHIP_LIBRARY;
    fresh.release = release_output;
    fresh.release_state = run->be;
    cuda_backend_retain(run->be);
    *out = fresh;
    return ACC_OK;
}

acc_status cuda_deliver_device(cuda_run *run, acc_array *out, rt_array *r, diag *d)
{
    if (out->data[0])
        return copy_to_device(run, out->data, r, d);
    return to_library(run, out, r, d);
}

