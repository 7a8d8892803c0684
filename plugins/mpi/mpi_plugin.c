/*
 * mpi_plugin.c — the mpi plugin (docs/DISTRIBUTED.md): Open MPI behind
 * the foreign names "mpi.rank", "mpi.size", "mpi.allreduce.{sum,product,
 * min,max}", "mpi.allgather", "mpi.bcast", "mpi.alltoall", "mpi.halo.chain"
 * and "mpi.halo.ring": for each, a host implementation of priority 10
 * and two for the cuda backend (mpi_device.c): device arrays staged
 * through host memory (priority 10), or device pointers passed to a
 * CUDA-aware MPI (priority 11, accepted only when MPI is CUDA-aware, or
 * ACC_MPI_CUDA_AWARE=1 says so; the staged one is then refused), so that
 * the plan names the path.
 *
 * One mpi_state per accel context (the plugin's entry runs once per
 * context that loads it) holds the communicator; the implementations
 * share it and the last one released frees it.  The predicates refuse, so
 * that the one-process fallbacks run, when MPI cannot be used (the process
 * was not started by mpirun and nobody initialised MPI): a program runs
 * unchanged without MPI.
 */
#include "mpi_plugin.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void state_unref(mpi_state *st)
{
    mpi_lock();
    int last = --st->refs == 0;
    mpi_unlock();
    if (!last)
        return;
    mpi_state_release(st);
    free(st);
}

static void release(void *user)
{
    mpi_impl_user *u = user;
    state_unref(u->st);
    free(u);
}

static int refuse(acc_foreign_query *q, const char *why)
{
    snprintf(q->reason, q->reason_size, "%s", why);
    return 0;
}

static int is_numeric(const acc_type *t)
{
    return acc_type_get_kind(t) == ACC_TYPE_SCALAR &&
           mpi_type_of(acc_type_get_scalar(t)) != MPI_DATATYPE_NULL;
}

/* Scalars or tuples of scalars: arrays with one buffer per scalar. */
static int has_leaves(const acc_type *t)
{
    return acc_type_leaf_count(t) >= 1;
}

/* The argument and result arrays the operation takes (the standard
 * library builds exactly these; a hand-made node that differs gets its
 * fallback). */
static const char *shape_problem(const acc_foreign_query *q, mpi_op_kind k)
{
    size_t first = k == MOP_BCAST ? 1 : 0;
    if (k == MOP_RANK || k == MOP_SIZE)
        return q->n_results == 1 && q->result_ranks[0] == 0 &&
               acc_type_get_kind(q->result_elems[0]) == ACC_TYPE_SCALAR &&
               acc_type_get_scalar(q->result_elems[0]) == ACC_I32
               ? NULL : "the result is not a Scalar i32";
    if (k == MOP_BCAST && (q->n_args < 2 || q->arg_ranks[0] != 0 ||
                           acc_type_get_scalar(q->arg_elems[0]) != ACC_I32))
        return "the argument is not (Scalar i32 root, xs)";
    if (q->n_results != q->n_args - first)
        return "the result has another number of arrays than the argument";
    for (size_t i = first; i < q->n_args; i++) {
        if (!has_leaves(q->arg_elems[i]))
            return "an element type is not made of scalars";
        if (k >= MOP_SUM && k <= MOP_MAX && !is_numeric(q->arg_elems[i]))
            return "the elements are not numbers";
        if (k > MOP_MAX && q->arg_ranks[i] < 1)
            return "the array has no outer dimension";
    }
    if (k >= MOP_SUM && k <= MOP_MAX && q->n_args != 1)
        return "an all-reduce takes one array";
    return NULL;
}

/* The cuda implementations: the one of the path MPI takes. */
static int accepts_path(acc_foreign_query *q, mpi_memory memory)
{
    char how[256], why[400];
    int aware = mpi_cuda_aware(how, sizeof how);
    if (memory == MPI_MEM_DIRECT && !aware)
        snprintf(why, sizeof why, "MPI is not CUDA-aware (%s): device "
                 "arrays are staged through host memory", how);
    else if (memory == MPI_MEM_STAGED && aware)
        snprintf(why, sizeof why, "MPI is CUDA-aware (%s): device pointers "
                 "are passed directly", how);
    else
        return 1;
    return refuse(q, why);
}

static int accepts(acc_foreign_query *q)
{
    mpi_impl_user *u = q->user;
    const char *problem = shape_problem(q, u->op->kind);
    if (problem)
        return refuse(q, problem);
    if (!mpi_state_ready(u->st, q->reason, q->reason_size))
        return 0;
    return u->memory == MPI_MEM_HOST || accepts_path(q, u->memory);
}

#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)
#ifdef OMPI_MAJOR_VERSION
#define NOTE "MPI " TEXT(MPI_VERSION) "." TEXT(MPI_SUBVERSION) ", Open MPI " \
    TEXT(OMPI_MAJOR_VERSION) "." TEXT(OMPI_MINOR_VERSION) "." \
    TEXT(OMPI_RELEASE_VERSION) "; "
#else
#define NOTE "MPI " TEXT(MPI_VERSION) "." TEXT(MPI_SUBVERSION) "; "
#endif

/* Per memory: the note's end, what the plan's implementation name adds,
 * the backend, the priority and the execute (NULL: the operation's). */
static const struct {
    const char *note, *suffix;
    acc_backend backend;
    int32_t priority;
    acc_status (*execute)(acc_foreign_call *c);
} memories[MPI_MEM_COUNT] = {
    {NOTE "host memory", "", ACC_BACKEND_CPU, 10, NULL},
    {NOTE "device arrays staged through host memory",
     " [device, staged through host]", ACC_BACKEND_CUDA, 10,
     mpi_staged_execute},
    {NOTE "device pointers to a CUDA-aware MPI",
     " [device, CUDA-aware MPI]", ACC_BACKEND_CUDA, 11, mpi_direct_execute},
};

static acc_status add(acc_plugin_registrar *reg, mpi_state *st,
                      const mpi_op_def *op, mpi_memory memory)
{
    char impl_name[128];
    mpi_impl_user *u = malloc(sizeof *u);
    if (!u)
        return ACC_ERR_OUT_OF_HOST_MEMORY;
    u->op = op;
    u->st = st;
    u->memory = memory;
    st->refs++;
    snprintf(impl_name, sizeof impl_name, "%s%s", op->impl_name,
             memories[memory].suffix);
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = op->name;
    impl.impl_name = impl_name; /* copied by the registry */
    impl.backend = memories[memory].backend;
    impl.priority = memories[memory].priority;
    impl.accepts = accepts;
    impl.result_shape = op->result_shape; /* extents only, or mpi_get */
    impl.execute = memories[memory].execute ? memories[memory].execute
                                            : op->execute;
    impl.user = u;
    impl.release = release;
    impl.note = memories[memory].note;
    acc_status s = reg->add(reg, &impl);
    if (s != ACC_OK) /* not registered: nobody else releases it */
        release(u);
    return s;
}

/* The context's mpi_comm option, when this library hands it over. */
static void take_option(const acc_plugin_registrar *reg, mpi_state *st)
{
    size_t need = offsetof(acc_plugin_registrar, mpi_comm) +
                  sizeof reg->mpi_comm;
    if (reg->struct_size >= need && reg->mpi_comm) {
        st->caller_comm = *(const MPI_Comm *)reg->mpi_comm;
        st->has_caller_comm = 1;
    }
}

/* The plugin's entry (ACC_PLUGIN_ENTRY_SYMBOL). */
acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version);

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version)
{
    acc_status s = ACC_PLUGIN_DECLARE(reg, "mpi");
    (void)abi_version; /* the declaration checks it */
    if (s != ACC_OK)
        return s;
    mpi_state *st = calloc(1, sizeof *st);
    if (!st)
        return ACC_ERR_OUT_OF_HOST_MEMORY;
    take_option(reg, st);
    st->refs = 1; /* ours, while adding */
    for (int i = 0; s == ACC_OK && i < MOP_COUNT; i++)
        for (int m = 0; s == ACC_OK && m < MPI_MEM_COUNT; m++)
            s = add(reg, st, &mpi_ops()[i], (mpi_memory)m);
    state_unref(st);
    return s;
}
