/*
 * destinations.h — results computed straight into the caller's buffers.
 *
 * When the caller of acc_run gives buffers for an output, the step that
 * computes that output may write its result there instead of into new
 * memory that is then copied: for large results that saves an allocation
 * (whose pages would be faulted in as the kernel writes them) and a copy.
 * A run builds one table of destinations; the executors ask it for the
 * node they are about to allocate a result for (the interpreter's host
 * kernels through interp_result, the CUDA kernels through cuda_result).
 *
 * Promised: a buffer is offered only when it is in the memory the backend
 * writes (host memory for the host backends, device memory for CUDA), and
 * overlaps no input's buffers and no other output's (a kernel never writes
 * memory that it, or a later step, still reads).  A destination is taken
 * at most once, and only by a result of exactly its element type and
 * extents, so a result of another shape (the caller's mistake, reported
 * at delivery) still ends up in new memory.  When a run fails after a
 * step wrote a destination, the caller's output buffers hold partial
 * results; nothing else is touched.
 */
#ifndef ACC_CORE_BACKEND_DESTINATIONS_H
#define ACC_CORE_BACKEND_DESTINATIONS_H

#include "core/backend/rt_array.h"
#include "core/ir/program_ir.h"

/* One offered output: the node computing it and its buffers (NULL once
 * taken). */
typedef struct exec_dest {
    uint32_t node;
    rt_array *buf;
} exec_dest;

/* Outputs up to this many are offered without an allocation. */
enum { EXEC_DESTS_FEW = 2 };

/* A run's table, in storage of the caller's that outlives the run's
 * arrays (exec_run's frame): a small run's table and its wrappers live
 * in it, so offering them allocates nothing (bench/README.md, "Small
 * inputs, round four"). */
typedef struct exec_dests {
    size_t n;
    exec_dest *at;                    /* few, or an allocation */
    exec_dest few[EXEC_DESTS_FEW];
    rt_array shells[EXEC_DESTS_FEW];  /* few's wrappers (rt_wrap_at) */
} exec_dests;

/* The destinations of one run of p, for a backend writing `memory`
 * (ACC_MEMORY_HOST or ACC_MEMORY_CUDA_DEVICE), built in `room`.  The
 * descriptors have been checked by the caller.  *dests is room, or NULL
 * when no output qualifies.  Returns d's status (out of host memory
 * recorded through diag_oom).  The table has one entry per offered
 * output, not one per node: its size is the outputs'. */
acc_status exec_dests_create(const ir_program *p, acc_memory memory,
                             size_t n_in, const acc_array *in, size_t n_out,
                             const acc_array *out, exec_dests *room,
                             exec_dests **dests, diag *d);
/* The destination of node n's result (the reference is the caller's to
 * release; the buffers are acc_run's caller's: dev[] for device memory,
 * data[] for host memory), when n
 * computes an output whose buffers were offered, not yet taken, and of
 * element type elem and the given extents; else NULL.  dests and n may
 * be NULL. */
rt_array *exec_dests_take(exec_dests *dests, const ir_node *n,
                          const acc_type *elem, int32_t rank,
                          const int64_t *extents);
/* Releases the destinations not taken and what the table allocated (not
 * the room itself).  NULL-safe. */
void exec_dests_free(exec_dests *dests);

#endif
