/*
 * mpi_plugin.h — what the mpi plugin's files share (docs/DISTRIBUTED.md):
 * the per-context state (the communicator, whether MPI is usable), the
 * life cycle of MPI (mpi_comm.c), waiting with a time limit and the
 * ACC_MPI_CHECK agreement (mpi_sync.c), the collectives (mpi_ops.c) and
 * the cuda backend's device arrays (mpi_device.c).
 *
 * Every MPI call of the plugin is made under one process-wide lock, so the
 * plugin asks MPI for MPI_THREAD_SERIALIZED only.
 */
#ifndef ACC_MPI_PLUGIN_H
#define ACC_MPI_PLUGIN_H

#include "accel.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* One accel context's use of MPI: shared by every implementation the
 * plugin registered in that context (each holds a reference). */
typedef struct mpi_state {
    int refs;
    int ready;           /* comm is set (MPI is initialised) */
    int owns_comm;       /* comm is our duplicate of MPI_COMM_WORLD */
    int has_caller_comm; /* the context option mpi_comm gave caller_comm */
    MPI_Comm caller_comm;
    MPI_Comm comm;
    int rank, size;
    uint64_t seq;        /* collectives issued on comm so far */
    /* Set when a collective was abandoned (timed out): comm can no longer
     * be used, and every later collective fails at once with this. */
    char broken[256];
} mpi_state;

/* ---- life cycle (mpi_comm.c) ---------------------------------------------- */

/* Makes st ready: initialises MPI when nobody did and the process was
 * started by an MPI launcher (mpirun), then takes the communicator.
 * Returns 1, or 0 with why in `why` (the fallbacks run then). */
int mpi_state_ready(mpi_state *st, char *why, size_t size);
/* Frees the duplicate communicator (under the lock). */
void mpi_state_release(mpi_state *st);
/* The process-wide lock around every MPI call. */
void mpi_lock(void);
void mpi_unlock(void);

/* ---- waiting and agreement (mpi_sync.c) ----------------------------------- */

/* Waits for the requests, at most ACC_MPI_TIMEOUT seconds (default 300);
 * past it the communicator is marked broken and ACC_ERR_TIMEOUT returned
 * with a message naming `what`. */
acc_status mpi_wait(mpi_state *st, int n, MPI_Request *reqs, const char *what,
                    acc_foreign_call *c);
/* The largest number of elements one MPI message carries (2^31 - 1, or
 * ACC_MPI_CHUNK when set, so that tests can exercise the split). */
int64_t mpi_chunk_elems(void);
/* Before a collective: fails at once when comm is broken; with
 * ACC_MPI_CHECK=1, agrees with every rank that all are at the same
 * collective (sequence number, operation, element type, rank, the
 * extents that must match) and that none failed locally (`local` is not
 * ACC_OK): a disagreement is the same error on every rank. */
acc_status mpi_enter(mpi_state *st, const char *op, acc_foreign_call *c,
                     acc_status local);

/* ---- the collectives (mpi_ops.c) ------------------------------------------ */

typedef enum mpi_op_kind {
    MOP_RANK, MOP_SIZE,
    MOP_SUM, MOP_PRODUCT, MOP_MIN, MOP_MAX,
    MOP_ALLGATHER, MOP_BCAST, MOP_ALLTOALL,
    MOP_HALO_CHAIN, MOP_HALO_RING,
    MOP_COUNT
} mpi_op_kind;

typedef struct mpi_op_def {
    mpi_op_kind kind;
    const char *name;      /* the foreign name, "mpi.allreduce.sum"   */
    const char *impl_name; /* "mpi.allreduce.sum" as plans show it     */
    acc_status (*result_shape)(acc_foreign_call *c);
    acc_status (*execute)(acc_foreign_call *c);
} mpi_op_def;

/* The table of operations, MOP_COUNT entries. */
const mpi_op_def *mpi_ops(void);

/* Where an implementation's arrays live and how MPI reaches them: host
 * memory (the interp and cpu backends), or device memory of the cuda
 * backend, staged through host buffers or passed to a CUDA-aware MPI. */
typedef enum mpi_memory {
    MPI_MEM_HOST, MPI_MEM_STAGED, MPI_MEM_DIRECT, MPI_MEM_COUNT
} mpi_memory;

/* What every callback receives as `user`: the operation, the state and
 * the memory the implementation serves. */
typedef struct mpi_impl_user {
    const mpi_op_def *op;
    mpi_state *st;
    mpi_memory memory;
} mpi_impl_user;

/* The MPI datatype of an accel scalar type (MPI_DATATYPE_NULL for none). */
MPI_Datatype mpi_type_of(acc_scalar s);
/* Writes a message into the call's buffer and returns st. */
acc_status mpi_fail(acc_foreign_call *c, acc_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- device arrays (mpi_device.c) ------------------------------------------ */

/* Whether device pointers go to MPI directly: ACC_MPI_CUDA_AWARE=0|1 when
 * set, else what the MPI library reports at run time
 * (MPIX_Query_cuda_support, Open MPI); 0 for an MPI that cannot say.
 * `how` receives the sentence the plans show.  Call after MPI is ready. */
int mpi_cuda_aware(char *how, size_t size);
/* The execute of the cuda implementations: the device arguments are copied
 * to host buffers after the run's stream is synchronised, the host
 * collective runs, the results are copied back into accel's device
 * results (staged); or the stream is synchronised and the device pointers
 * go to MPI (direct). */
acc_status mpi_staged_execute(acc_foreign_call *c);
acc_status mpi_direct_execute(acc_foreign_call *c);
/* Copies inside one call's arrays, wherever they live (a device array's
 * descriptor says ACC_MEMORY_CUDA_DEVICE): dst and src are both in the
 * call's memory (copy), or one is a host variable (get: to the host, put:
 * from it).  Device copies are made on the call's stream and waited for,
 * so that MPI, which does not know the stream, sees them done. */
acc_status mpi_copy(acc_foreign_call *c, void *dst, const void *src,
                    size_t bytes);
acc_status mpi_get(acc_foreign_call *c, void *host, const void *src,
                   size_t bytes);
acc_status mpi_put(acc_foreign_call *c, void *dst, const void *host,
                   size_t bytes);

#endif
