/*
 * cuda_foreign.c — foreign calls on the CUDA backend: an implementation
 * registered for ACC_BACKEND_CUDA gets descriptors of device memory, the
 * run's stream and a workspace from the run's device memory (through
 * foreign/call.c's reg_call_with); its results are device arrays.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "foreign/registry.h"

static int foreign_buffers(void *state, rt_array *r, void **data, diag *d)
{
    if (cuda_device_of(state, r, d) != ACC_OK)
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
    if (cuda_run_alloc(state, bytes, &p, "foreign workspace", &ignored) !=
        ACC_OK)
        return NULL;
    return (void *)(uintptr_t)p;
}

static void foreign_scratch_free(void *state, void *p, size_t bytes)
{
    cuda_run_free(state, (cu_deviceptr)(uintptr_t)p, bytes);
}

/* A CUDA implementation gets device pointers and the stream; a host one
 * (none is chosen for CUDA programs today, see registry.c) host copies. */
acc_status cuda_call_foreign(cuda_run *run, const ir_node *n,
                             rt_array *const *args, rt_array **results)
{
    const reg_impl *e = n->u.foreign.impl;
    if (e->api.backend == ACC_BACKEND_CUDA)
        return reg_call_with(n, args, results, &run->mem, run->env->d);
    return reg_call_on_host(n, args, results, run->env->d);
}

reg_memory cuda_foreign_memory(cuda_run *run)
{
    return (reg_memory){ACC_MEMORY_CUDA_DEVICE, run->be->dev.ordinal,
                        (void *)run->stream, run, foreign_buffers,
                        foreign_alloc, foreign_scratch, foreign_scratch_free};
}
