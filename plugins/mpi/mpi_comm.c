/*
 * mpi_comm.c — the life cycle of MPI as the mpi plugin sees it
 * (docs/DISTRIBUTED.md, "Communicator and life cycle"):
 *
 *  - MPI is initialised by the plugin only when nobody did and the process
 *    was started by an MPI launcher; a process started alone, whose caller
 *    did not initialise MPI either, never touches MPI: the implementations
 *    refuse and the one-process fallbacks run.
 *  - The communicator is the caller's (context option mpi_comm) or a
 *    duplicate of MPI_COMM_WORLD, made when the context first compiles a
 *    program with a collective and freed when the context is destroyed.
 *  - What the plugin initialised it finalises, once, at process exit
 *    (contexts are destroyed by then, so accel's work has drained); MPI
 *    cannot be initialised twice in a process, so finalising earlier would
 *    leave later contexts without it.  The plugin pins itself in memory
 *    (RTLD_NODELETE) so that the exit handler outlives dlclose.
 */
#define _GNU_SOURCE
#include "mpi_plugin.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mpi_mutex = PTHREAD_MUTEX_INITIALIZER;
static int we_initialised;

void mpi_lock(void)
{
    pthread_mutex_lock(&mpi_mutex);
}

void mpi_unlock(void)
{
    pthread_mutex_unlock(&mpi_mutex);
}

/* Whether an MPI launcher started this process (Open MPI's mpirun, or a
 * PMI/PMIx launcher such as srun or MPICH's hydra). */
static int launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                       "PMI_RANK", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

static void finalize_at_exit(void)
{
    int finalized = 0;
    mpi_lock();
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
    mpi_unlock();
}

/* Keeps this plugin (and so libmpi and the exit handler) loaded for the
 * life of the process. */
static void pin_self(void)
{
    Dl_info info;
    if (dladdr((void *)(uintptr_t)finalize_at_exit, &info) && info.dli_fname)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static int refuse(char *why, size_t size, const char *fmt, const char *arg)
{
    snprintf(why, size, fmt, arg);
    return 0;
}

static int init_mpi(char *why, size_t size)
{
    int provided = 0;
    if (!launched())
        return refuse(why, size, "%s", "MPI is not initialised and this "
                      "process was not started by an MPI launcher (mpirun): "
                      "the one-process fallback runs");
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) !=
        MPI_SUCCESS)
        return refuse(why, size, "%s", "MPI_Init_thread failed");
    we_initialised = 1;
    pin_self();
    atexit(finalize_at_exit);
    return 1;
}

static int take_comm(mpi_state *st, char *why, size_t size)
{
    if (st->has_caller_comm) {
        st->comm = st->caller_comm;
    } else {
        if (MPI_Comm_dup(MPI_COMM_WORLD, &st->comm) != MPI_SUCCESS)
            return refuse(why, size, "%s", "MPI_Comm_dup of MPI_COMM_WORLD "
                          "failed");
        st->owns_comm = 1;
        /* errors come back as codes on our own communicator */
        MPI_Comm_set_errhandler(st->comm, MPI_ERRORS_RETURN);
    }
    if (MPI_Comm_rank(st->comm, &st->rank) != MPI_SUCCESS ||
        MPI_Comm_size(st->comm, &st->size) != MPI_SUCCESS)
        return refuse(why, size, "%s", "the communicator given in the "
                      "context option mpi_comm is not valid");
    return 1;
}

static int make_ready(mpi_state *st, char *why, size_t size)
{
    int initialised = 0, finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized)
        return refuse(why, size, "%s", "MPI was finalised already");
    MPI_Initialized(&initialised);
    if (!initialised && st->has_caller_comm)
        return refuse(why, size, "%s", "the context option mpi_comm is set "
                      "but MPI is not initialised");
    if (!initialised && !init_mpi(why, size))
        return 0;
    if (!take_comm(st, why, size))
        return 0;
    st->ready = 1;
    return 1;
}

int mpi_state_ready(mpi_state *st, char *why, size_t size)
{
    mpi_lock();
    int ok = st->ready || make_ready(st, why, size);
    mpi_unlock();
    return ok;
}

void mpi_state_release(mpi_state *st)
{
    int finalized = 0;
    mpi_lock();
    MPI_Finalized(&finalized);
    /* a broken communicator may still have a request posted: leave it */
    if (st->ready && st->owns_comm && !finalized && !st->broken[0])
        MPI_Comm_free(&st->comm);
    mpi_unlock();
}
