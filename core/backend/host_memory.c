/*
 * host_memory.c — host memory for the backend interface (host_memory.h).
 */
#include "core/backend/host_memory.h"

#include "core/base/mem.h"

#include <stdlib.h>

rt_array *hostmem_alloc(exec_dests *dests, const ir_node *n,
                         const acc_type *elem, int32_t rank,
                         const int64_t *extents, const char *op, diag *d)
{
    rt_array *a = dests && n ? exec_dests_take(dests, n, elem, rank, extents)
                             : NULL;
    return a ? a : rt_alloc(elem, rank, extents, op, d);
}

acc_status hostmem_copy(rt_array *a, acc_memory to, diag *d)
{
    if (to != ACC_MEMORY_HOST)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "a host backend has "
                         "no device memory to copy an array to");
    rt_host(a, d);
    return d->status;
}

void hostmem_release(rt_array *a)
{
    if (a)
        rt_release(a);
}

void hostmem_output_free(acc_array *a)
{
    for (size_t i = 0; i < ACC_MAX_COMPONENTS; i++)
        free(a->data[i]);
}

int hostmem_output_new(acc_array *out, const acc_type *elem, int32_t rank,
                       const int64_t *extents, int64_t size)
{
    acc_array fresh;
    acc_array_init(&fresh, elem, rank, extents);
    for (size_t k = 0; k < elem->n_leaves; k++) {
        size_t bytes = (size_t)size * acc_scalar_size(elem->leaves[k]);
        if (!(fresh.data[k] = mem_alloc(bytes ? bytes : 1))) {
            hostmem_output_free(&fresh);
            return 0;
        }
    }
    fresh.ownership = ACC_OWNERSHIP_LIBRARY;
    fresh.release = hostmem_output_free;
    *out = fresh;
    return 1;
}
