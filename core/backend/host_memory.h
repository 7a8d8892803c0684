/*
 * host_memory.h — the host side of the backend interface's memory operations
 * (backend.h: alloc, copy, release).  The host backends (interp, cpu) are
 * these functions; the CUDA backend's allocate device memory instead and
 * use them for its host side.
 */
#ifndef ACC_CORE_BACKEND_HOST_MEMORY_H
#define ACC_CORE_BACKEND_HOST_MEMORY_H

#include "core/backend/destinations.h"
#include "core/backend/rt_array.h"

/* A host array for node n's result (n may be NULL): the caller's buffers
 * when dests offers them for n (dests may be NULL), else new ones
 * (rt_alloc).  NULL after recording an error on d naming op. */
rt_array *hostmem_alloc(exec_dests *dests, const ir_node *n,
                         const acc_type *elem, int32_t rank,
                         const int64_t *extents, const char *op, diag *d);
/* Makes a's contents valid in memory `to`; a host backend only has host
 * memory (anything else is ACC_ERR_INVALID_ARGUMENT).  Returns d's
 * status. */
acc_status hostmem_copy(rt_array *a, acc_memory to, diag *d);
/* Drops a reference (NULL-safe); the last one frees the buffers a owns,
 * device buffers through their dev_ops. */
void hostmem_release(rt_array *a);

/* Library-owned outputs (acc_run's outputs without the caller's buffers):
 * the descriptor *out of elem and the given extents, with new host
 * buffers of `size` elements per leaf, ownership ACC_OWNERSHIP_LIBRARY
 * and hostmem_output_free as its release: 1, or 0 when out of memory
 * (nothing allocated, *out untouched). */
int hostmem_output_new(acc_array *out, const acc_type *elem, int32_t rank,
                       const int64_t *extents, int64_t size);
/* The release of such a descriptor (acc_array_release calls it): frees
 * every leaf buffer. */
void hostmem_output_free(acc_array *a);

#endif
