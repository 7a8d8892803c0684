/*
 * mpi.c — the distributed collectives of docs/DISTRIBUTED.md: foreign
 * nodes named "mpi.*" whose fallbacks are the one-process results (the
 * rank is 0, the size 1, an all-reduce, all-gather, broadcast or
 * all-to-all of one process is its argument, a halo exchange of one
 * process pads with its own rows).  The mpi plugin implements them with
 * MPI when the program runs under mpirun; they are ordered side effects
 * there (see the document), and foreign nodes are already barriers that
 * fusion never moves or merges.
 */
#include "core/stdlib/stdlib_util.h"

#include "core/ir/graph.h"

/* foreign name fallback arg, with the fallback \p -> body p. */
static acc_node *mpi_foreign(acc_graph *g, const char *name, acc_node *arg,
                             acc_node *(*body)(acc_graph *, acc_node *))
{
    if (!arg)
        return NULL;
    acc_node *p = acc_param(g, acc_node_type(arg));
    return acc_foreign(g, name, sl_lambda1(g, p, body(g, p)), arg);
}

static acc_node *identity(acc_graph *g, acc_node *p)
{
    (void)g;
    return p;
}

static acc_node *scalar_one(acc_graph *g, acc_node *p)
{
    (void)p;
    return acc_unit(g, acc_const_i64(g, ACC_I32, 1));
}

static acc_node *second(acc_graph *g, acc_node *p)
{
    return acc_get(g, p, 1);
}

acc_node *acc_mpi_rank(acc_graph *g)
{
    return mpi_foreign(g, "mpi.rank", acc_unit(g, acc_const_i64(g, ACC_I32, 0)),
                       identity);
}

acc_node *acc_mpi_size(acc_graph *g)
{
    return mpi_foreign(g, "mpi.size", acc_unit(g, acc_const_i64(g, ACC_I32, 0)),
                       scalar_one);
}

acc_node *acc_mpi_allreduce(acc_graph *g, acc_mpi_op op, acc_node *xs)
{
    static const char *const names[] = {NULL, "mpi.allreduce.sum",
                                        "mpi.allreduce.product",
                                        "mpi.allreduce.min",
                                        "mpi.allreduce.max"};
    const acc_type *e;
    if (op < ACC_MPI_SUM || op > ACC_MPI_MAX)
        return gr_fail(g, ACC_ERR_INVALID_ARGUMENT, "acc_mpi_allreduce: op "
                       "%d is not an acc_mpi_op", (int)op);
    if (!(e = sl_elem(g, xs)))
        return NULL;
    if (acc_type_get_kind(e) != ACC_TYPE_SCALAR ||
        acc_type_get_scalar(e) == ACC_BOOL)
        return gr_fail(g, ACC_ERR_TYPE, "acc_mpi_allreduce: the elements "
                       "are not numbers; it combines numbers");
    return mpi_foreign(g, names[op], xs, identity);
}

/* xs when it is an array with an outer dimension (else g fails). */
static acc_node *outer_array(acc_graph *g, acc_node *xs)
{
    return sl_rank(g, xs, 1) < 1 ? NULL : xs;
}

acc_node *acc_mpi_allgather(acc_graph *g, acc_node *xs)
{
    return mpi_foreign(g, "mpi.allgather",
                       outer_array(g, xs), identity);
}

acc_node *acc_mpi_alltoall(acc_graph *g, acc_node *xs)
{
    return mpi_foreign(g, "mpi.alltoall",
                       outer_array(g, xs), identity);
}

acc_node *acc_mpi_bcast(acc_graph *g, acc_node *root, acc_node *xs)
{
    if (!root || sl_rank(g, xs, 0) < 0)
        return NULL;
    acc_node *items[2] = {acc_unit(g, acc_convert(g, root, ACC_I32)), xs};
    return mpi_foreign(g, "mpi.bcast", acc_tuple(g, 2, items), second);
}

/* backpermute (n + 2, rest...) (\(i, rest...) -> (src (i - 1), rest...)) a
 * where src clamps into 0..n-1 (chain) or wraps around (ring). */
static acc_node *halo_body(acc_graph *g, acc_node *a, int ring)
{
    int32_t rank = sl_rank(g, a, 1);
    acc_node *n = sl_extent(g, a, 0), *sh[ACC_MAX_RANK], *ix_c[ACC_MAX_RANK];
    acc_node *one = acc_const_i64(g, ACC_I64, 1);
    acc_node *ix = acc_param(g, acc_type_shape(rank));
    sl_components(g, acc_shape(g, a), rank, sh);
    sl_components(g, ix, rank, ix_c);
    sh[0] = acc_binop(g, ACC_OP_ADD, n, acc_const_i64(g, ACC_I64, 2));
    acc_node *i = acc_binop(g, ACC_OP_SUB, ix_c[0], one);
    ix_c[0] = ring ? acc_binop(g, ACC_OP_MOD, i, n)
                   : sl_clamp(g, i, acc_const_i64(g, ACC_I64, 0),
                              acc_binop(g, ACC_OP_SUB, n, one));
    acc_node *p = sl_lambda1(g, ix, acc_index(g, (size_t)rank, ix_c));
    return acc_backpermute(g, acc_index(g, (size_t)rank, sh), p, a);
}

static acc_node *halo_chain(acc_graph *g, acc_node *p)
{
    return halo_body(g, p, 0);
}

static acc_node *halo_ring(acc_graph *g, acc_node *p)
{
    return halo_body(g, p, 1);
}

acc_node *acc_mpi_halo(acc_graph *g, int ring, acc_node *xs)
{
    return mpi_foreign(g, ring ? "mpi.halo.ring" : "mpi.halo.chain",
                       outer_array(g, xs),
                       ring ? halo_ring : halo_chain);
}
