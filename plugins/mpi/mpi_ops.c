/*
 * mpi_ops.c — the collectives behind the "mpi.*" foreign names
 * (docs/DISTRIBUTED.md): each agrees with its fallback (the one-process
 * result, core/stdlib/mpi.c) when the job has one process.
 *
 * Messages longer than mpi_chunk_elems() elements (2^31 - 1: MPI counts
 * are int) are split into several.  Every callback runs under the plugin's
 * lock; result_shape of allgather and bcast communicates (the extents come
 * from other ranks) and hands what execute needs over in thread-local
 * storage: accel calls the two back to back on one thread.
 *
 * The arrays are in host memory, or (the direct path of the cuda backend,
 * mpi_device.c) in device memory that MPI reads and writes itself: the
 * copies made here besides MPI's go through mpi_copy, mpi_get and mpi_put,
 * which copy on the device when the descriptors say so.
 */
#include "mpi_plugin.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static mpi_state *state_of(const acc_foreign_call *c)
{
    return ((const mpi_impl_user *)c->user)->st;
}

static const char *name_of(const acc_foreign_call *c)
{
    return ((const mpi_impl_user *)c->user)->op->name;
}

MPI_Datatype mpi_type_of(acc_scalar s)
{
    switch (s) {
    case ACC_I8: return MPI_INT8_T;
    case ACC_I16: return MPI_INT16_T;
    case ACC_I32: return MPI_INT32_T;
    case ACC_I64: return MPI_INT64_T;
    case ACC_U8: return MPI_UINT8_T;
    case ACC_U16: return MPI_UINT16_T;
    case ACC_U32: return MPI_UINT32_T;
    case ACC_U64: return MPI_UINT64_T;
    case ACC_F32: return MPI_FLOAT;
    case ACC_F64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

/* Moving (not combining) the elements of buffer `leaf` of a: an unsigned
 * type of their size. */
static MPI_Datatype move_type(const acc_array *a, size_t leaf, size_t *size)
{
    *size = acc_scalar_size(acc_type_leaf(a->type, leaf));
    switch (*size) {
    case 1: return MPI_UINT8_T;
    case 2: return MPI_UINT16_T;
    case 4: return MPI_UINT32_T;
    default: return MPI_UINT64_T;
    }
}

/* The buffers of an array: one per scalar of its element type. */
static size_t leaves(const acc_array *a)
{
    return acc_type_leaf_count(a->type);
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Elements per row: the product of the extents inside the outer one. */
static int64_t row_elems(const acc_array *a)
{
    int64_t n = 1;
    for (int32_t k = 1; k < a->rank; k++)
        n *= a->extents[k];
    return n;
}

static acc_status posted(int rc, const char *op, acc_foreign_call *c)
{
    return rc == MPI_SUCCESS ? ACC_OK
           : mpi_fail(c, ACC_ERR_PLUGIN, "%s: posting the MPI operation "
                      "failed", op);
}

/* ---- rank and size ------------------------------------------------------- */

static acc_status scalar_shape(acc_foreign_call *c)
{
    (void)c; /* a Scalar */
    return ACC_OK;
}

static acc_status rank_execute(acc_foreign_call *c)
{
    int32_t rank = state_of(c)->rank;
    return mpi_put(c, c->results[0].data[0], &rank, sizeof rank);
}

static acc_status size_execute(acc_foreign_call *c)
{
    int32_t size = state_of(c)->size;
    return mpi_put(c, c->results[0].data[0], &size, sizeof size);
}

/* ---- all-reduce --------------------------------------------------------- */

/* Every result (a tuple's leaves) takes the extents of result 0. */
static acc_status like_result0(acc_foreign_call *c)
{
    for (size_t i = 1; i < c->n_results; i++)
        memcpy(c->results[i].extents, c->results[0].extents,
               sizeof c->results[0].extents);
    return ACC_OK;
}

static acc_status same_shape(acc_foreign_call *c)
{
    memcpy(c->results[0].extents, c->args[c->n_args - 1].extents,
           sizeof c->results[0].extents);
    for (size_t i = 1; i < c->n_results; i++)
        memcpy(c->results[i].extents, c->results[0].extents,
               sizeof c->results[0].extents);
    return ACC_OK;
}

static MPI_Op reduce_op(mpi_op_kind k)
{
    return k == MOP_SUM ? MPI_SUM : k == MOP_PRODUCT ? MPI_PROD
           : k == MOP_MIN ? MPI_MIN : MPI_MAX;
}

static acc_status allreduce_execute(acc_foreign_call *c)
{
    mpi_state *st = state_of(c);
    const mpi_impl_user *u = c->user;
    const acc_array *a = &c->args[0];
    MPI_Datatype t = mpi_type_of(acc_type_get_scalar(a->type));
    size_t es = acc_scalar_size(acc_type_get_scalar(a->type));
    int64_t n = acc_array_size(a), chunk = mpi_chunk_elems();
    mpi_lock();
    acc_status s = mpi_enter(st, u->op->name, c, ACC_OK);
    for (int64_t at = 0; s == ACC_OK && at < n; at += chunk) {
        MPI_Request req;
        int cnt = (int)min64(chunk, n - at);
        s = posted(MPI_Iallreduce((const char *)a->data[0] + at * (int64_t)es,
                                  (char *)c->results[0].data[0] +
                                      at * (int64_t)es,
                                  cnt, t, reduce_op(u->op->kind), st->comm,
                                  &req), u->op->name, c);
        if (s == ACC_OK)
            s = mpi_wait(st, 1, &req, u->op->name, c);
    }
    mpi_unlock();
    return s;
}

/* ---- chunked broadcast and point-to-point, the building blocks ------------ */

static acc_status bcast_bytes(mpi_state *st, void *buf, int64_t n,
                              MPI_Datatype t, size_t es, int root,
                              acc_foreign_call *c)
{
    int64_t chunk = mpi_chunk_elems();
    acc_status s = ACC_OK;
    for (int64_t at = 0; s == ACC_OK && at < n; at += chunk) {
        MPI_Request req;
        s = posted(MPI_Ibcast((char *)buf + at * (int64_t)es,
                              (int)min64(chunk, n - at), t, root, st->comm,
                              &req), name_of(c), c);
        if (s == ACC_OK)
            s = mpi_wait(st, 1, &req, name_of(c), c);
    }
    return s;
}

/* Sends n elements to `to` and receives n into `in` from `from` (either may
 * be MPI_PROC_NULL), in chunks; messages of one tag arrive in order. */
static acc_status exchange(mpi_state *st, const void *out, int to, void *in,
                           int from, int64_t n, MPI_Datatype t, size_t es,
                           int tag, acc_foreign_call *c)
{
    int64_t chunk = mpi_chunk_elems();
    acc_status s = ACC_OK;
    for (int64_t at = 0; s == ACC_OK && at < n; at += chunk) {
        MPI_Request req[2];
        int cnt = (int)min64(chunk, n - at);
        s = posted(MPI_Irecv((char *)in + at * (int64_t)es, cnt, t, from, tag,
                             st->comm, &req[0]), name_of(c), c);
        if (s == ACC_OK &&
            (s = posted(MPI_Isend((const char *)out + at * (int64_t)es, cnt, t,
                                  to, tag, st->comm, &req[1]), name_of(c),
                        c)) != ACC_OK)
            MPI_Cancel(&req[0]);
        if (s == ACC_OK)
            s = mpi_wait(st, 2, req, name_of(c), c);
    }
    return s;
}

/* ---- what result_shape hands to execute ------------------------------------ */

typedef struct pending {
    int64_t *counts; /* allgather: the outer extent of every rank */
    size_t cap;
} pending;

static pthread_key_t pending_key;
static pthread_once_t pending_once = PTHREAD_ONCE_INIT;

static void pending_free(void *p)
{
    pending *q = p;
    free(q->counts);
    free(q);
}

static void pending_init(void)
{
    pthread_key_create(&pending_key, pending_free);
}

static pending *pending_get(size_t n)
{
    pthread_once(&pending_once, pending_init);
    pending *q = pthread_getspecific(pending_key);
    if (!q && (q = calloc(1, sizeof *q)) && pthread_setspecific(pending_key, q))
        q = (free(q), NULL);
    if (q && q->cap < n) {
        int64_t *grown = realloc(q->counts, n * sizeof *grown);
        if (!grown)
            return NULL;
        q->counts = grown;
        q->cap = n;
    }
    return q;
}

/* ---- all-gather along the outer dimension ------------------------------------ */

static acc_status allgather_shape(acc_foreign_call *c)
{
    mpi_state *st = state_of(c);
    const acc_array *a = &c->args[0];
    size_t words = (size_t)a->rank;
    pending *q = pending_get((size_t)st->size * words);
    int64_t *all = q ? q->counts : NULL;
    acc_status local = q ? ACC_OK
                       : mpi_fail(c, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of "
                                  "host memory", name_of(c));
    MPI_Request req;
    mpi_lock();
    acc_status s = mpi_enter(st, name_of(c), c, local);
    if (s == ACC_OK)
        s = posted(MPI_Iallgather(a->extents, (int)words, MPI_INT64_T, all,
                                  (int)words, MPI_INT64_T, st->comm, &req),
                   name_of(c), c);
    if (s == ACC_OK)
        s = mpi_wait(st, 1, &req, name_of(c), c);
    mpi_unlock();
    int64_t total = 0;
    for (int r = 0; s == ACC_OK && r < st->size; r++) {
        const int64_t *e = all + (size_t)r * words;
        if (memcmp(e + 1, a->extents + 1, (words - 1) * sizeof *e) != 0)
            return mpi_fail(c, ACC_ERR_SHAPE, "%s: rank %d's rows have other "
                            "extents than rank %d's", name_of(c), r,
                            st->rank);
        total += e[0];
    }
    if (s != ACC_OK)
        return s;
    /* execute needs the outer extents only: keep them in front */
    for (int r = 0; r < st->size; r++)
        all[r] = all[(size_t)r * words];
    memcpy(c->results[0].extents, a->extents, sizeof a->extents);
    c->results[0].extents[0] = total;
    return like_result0(c);
}

/* Places every rank's rows: one Iallgatherv when the counts fit an int,
 * else one (split) broadcast per rank. */
static acc_status gather_leaf(mpi_state *st, const acc_array *a,
                              acc_array *out, size_t leaf,
                              const int64_t *counts, acc_foreign_call *c)
{
    size_t es;
    MPI_Datatype t = move_type(a, leaf, &es);
    int64_t row = row_elems(a), total = out->extents[0] * row;
    int64_t mine = 0;
    for (int r = 0; r < st->rank; r++)
        mine += counts[r] * row;
    if (total > mpi_chunk_elems()) {
        acc_status s = mpi_copy(c, (char *)out->data[leaf] +
                                       mine * (int64_t)es, a->data[leaf],
                                (size_t)(counts[st->rank] * row) * es);
        for (int64_t r = 0, at = 0; s == ACC_OK && r < st->size;
             at += counts[r] * row, r++)
            s = bcast_bytes(st, (char *)out->data[leaf] + at * (int64_t)es,
                            counts[r] * row, t, es, (int)r, c);
        return s;
    }
    int *cnt = malloc(2 * (size_t)st->size * sizeof *cnt);
    if (!cnt)
        return mpi_fail(c, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                        "memory", name_of(c));
    for (int r = 0, at = 0; r < st->size; at += cnt[r], r++) {
        cnt[r] = (int)(counts[r] * row);
        cnt[st->size + r] = at;
    }
    MPI_Request req;
    acc_status s = posted(MPI_Iallgatherv(a->data[leaf], cnt[st->rank], t,
                                          out->data[leaf], cnt, cnt + st->size,
                                          t, st->comm, &req), name_of(c), c);
    if (s == ACC_OK)
        s = mpi_wait(st, 1, &req, name_of(c), c);
    free(cnt);
    return s;
}

static acc_status allgather_execute(acc_foreign_call *c)
{
    mpi_state *st = state_of(c);
    pending *q = pending_get(0); /* result_shape made it */
    acc_status s = q && q->counts ? ACC_OK
                   : mpi_fail(c, ACC_ERR_INTERNAL, "%s: the extents of "
                              "result_shape are missing", name_of(c));
    mpi_lock();
    for (size_t i = 0; s == ACC_OK && i < c->n_args; i++)
        for (size_t j = 0; s == ACC_OK && j < leaves(&c->args[i]); j++)
            s = gather_leaf(st, &c->args[i], &c->results[i], j, q->counts, c);
    mpi_unlock();
    return s;
}

/* ---- broadcast from a root: (Scalar i32 root, xs) -------------------------- */

/* The root argument (a Scalar i32, on the device on the cuda backend);
 * -1, not a rank, when it cannot be read (the message says why). */
static int root_of(acc_foreign_call *c)
{
    int32_t root = -1;
    if (mpi_get(c, &root, c->args[0].data[0], sizeof root) != ACC_OK)
        return -1;
    return root;
}

static acc_status bcast_shape(acc_foreign_call *c)
{
    mpi_state *st = state_of(c);
    int root = root_of(c);
    acc_status local = root >= 0 && root < st->size ? ACC_OK
                       : c->message[0] ? ACC_ERR_DEVICE /* root_of's */
                       : mpi_fail(c, ACC_ERR_RUNTIME, "%s: the root %d is not "
                                  "a rank of the communicator (0..%d)",
                                  name_of(c), root, st->size - 1);
    acc_array *res = &c->results[0];
    memcpy(res->extents, c->args[1].extents, sizeof res->extents);
    mpi_lock();
    acc_status s = mpi_enter(st, name_of(c), c, local);
    MPI_Request req;
    if (s == ACC_OK && res->rank > 0)
        s = posted(MPI_Ibcast(res->extents, (int)res->rank, MPI_INT64_T, root,
                              st->comm, &req), name_of(c), c);
    if (s == ACC_OK && res->rank > 0)
        s = mpi_wait(st, 1, &req, name_of(c), c);
    mpi_unlock();
    return s == ACC_OK ? like_result0(c) : s;
}

static acc_status bcast_execute(acc_foreign_call *c)
{
    mpi_state *st = state_of(c);
    int root = root_of(c); /* result_shape checked it is a rank */
    acc_status s = root >= 0 ? ACC_OK : ACC_ERR_DEVICE;
    mpi_lock();
    for (size_t i = 1; s == ACC_OK && i < c->n_args; i++)
        for (size_t j = 0; s == ACC_OK && j < leaves(&c->args[i]); j++) {
            acc_array *out = &c->results[i - 1];
            size_t es;
            MPI_Datatype t = move_type(out, j, &es);
            int64_t n = acc_array_size(out);
            if (st->rank == root)
                s = mpi_copy(c, out->data[j], c->args[i].data[j],
                             (size_t)n * es);
            if (s == ACC_OK)
                s = bcast_bytes(st, out->data[j], n, t, es, root, c);
        }
    mpi_unlock();
    return s;
}

/* ---- all-to-all: block r of the outer dimension goes to rank r ------------- */

static acc_status alltoall_leaf(mpi_state *st, const acc_array *a,
                                acc_array *out, size_t leaf,
                                acc_foreign_call *c)
{
    size_t es;
    MPI_Datatype t = move_type(a, leaf, &es);
    int64_t block = a->extents[0] / st->size * row_elems(a);
    if (block <= mpi_chunk_elems()) {
        MPI_Request req;
        acc_status s = posted(MPI_Ialltoall(a->data[leaf], (int)block, t,
                                            out->data[leaf], (int)block, t,
                                            st->comm, &req), name_of(c), c);
        return s == ACC_OK ? mpi_wait(st, 1, &req, name_of(c), c) : s;
    }
    /* step k: to rank + k, from rank - k (no two ranks wait on each other) */
    acc_status s = ACC_OK;
    for (int k = 0; s == ACC_OK && k < st->size; k++) {
        int to = (st->rank + k) % st->size;
        int from = (st->rank - k + st->size) % st->size;
        s = exchange(st,
                     (const char *)a->data[leaf] + to * block * (int64_t)es,
                     to, (char *)out->data[leaf] + from * block * (int64_t)es,
                     from, block, t, es, 2, c);
    }
    return s;
}

static acc_status alltoall_execute(acc_foreign_call *c)
{
    mpi_state *st = state_of(c);
    int64_t n = c->args[0].extents[0];
    acc_status local = n % st->size == 0 ? ACC_OK
                       : mpi_fail(c, ACC_ERR_SHAPE, "%s: the outer extent %lld "
                                  "is not a multiple of the %d processes",
                                  name_of(c), (long long)n, st->size);
    mpi_lock();
    acc_status s = mpi_enter(st, name_of(c), c, local);
    for (size_t i = 0; s == ACC_OK && i < c->n_args; i++)
        for (size_t j = 0; s == ACC_OK && j < leaves(&c->args[i]); j++)
            s = alltoall_leaf(st, &c->args[i], &c->results[i], j, c);
    mpi_unlock();
    return s;
}

/* ---- halo exchange: [prev's last row] ++ xs ++ [next's first row] ---------- */

static acc_status halo_shape(acc_foreign_call *c)
{
    memcpy(c->results[0].extents, c->args[0].extents,
           sizeof c->results[0].extents);
    c->results[0].extents[0] += 2;
    return like_result0(c);
}

/* Own rows in the middle; at the ends of a chain the own first and last
 * rows stand for the missing neighbours (as the fallback clamps). */
static acc_status halo_leaf(mpi_state *st, int ring, const acc_array *a,
                            acc_array *out, size_t leaf, acc_foreign_call *c)
{
    size_t es;
    MPI_Datatype t = move_type(a, leaf, &es);
    int64_t n = a->extents[0], row = row_elems(a);
    size_t rb = (size_t)row * es;
    char *o = out->data[leaf];
    const char *x = a->data[leaf];
    int p = st->rank, P = st->size;
    int prev = ring ? (p - 1 + P) % P : p > 0 ? p - 1 : MPI_PROC_NULL;
    int next = ring ? (p + 1) % P : p < P - 1 ? p + 1 : MPI_PROC_NULL;
    /* the copies are done (waited for) before MPI receives into o */
    acc_status s = mpi_copy(c, o + rb, x, (size_t)n * rb);
    if (s == ACC_OK)
        s = mpi_copy(c, o, x, rb);
    if (s == ACC_OK)
        s = mpi_copy(c, o + (size_t)(n + 1) * rb, x + (size_t)(n - 1) * rb,
                     rb);
    if (s == ACC_OK)
        s = exchange(st, x, prev, o + (size_t)(n + 1) * rb, next, row, t, es,
                     10, c);
    if (s == ACC_OK)
        s = exchange(st, x + (size_t)(n - 1) * rb, next, o, prev, row, t, es,
                     11, c);
    return s;
}

static acc_status halo_execute(acc_foreign_call *c)
{
    mpi_state *st = state_of(c);
    const mpi_impl_user *u = c->user;
    acc_status local = c->args[0].extents[0] > 0 ? ACC_OK
                       : mpi_fail(c, ACC_ERR_SHAPE, "%s: the array has no "
                                  "rows to send", name_of(c));
    mpi_lock();
    acc_status s = mpi_enter(st, name_of(c), c, local);
    for (size_t i = 0; s == ACC_OK && i < c->n_args; i++)
        for (size_t j = 0; s == ACC_OK && j < leaves(&c->args[i]); j++)
            s = halo_leaf(st, u->op->kind == MOP_HALO_RING, &c->args[i],
                          &c->results[i], j, c);
    mpi_unlock();
    return s;
}

/* ---- the table --------------------------------------------------------------- */

static const mpi_op_def ops[MOP_COUNT] = {
    {MOP_RANK, "mpi.rank", "mpi.rank", scalar_shape, rank_execute},
    {MOP_SIZE, "mpi.size", "mpi.size", scalar_shape, size_execute},
    {MOP_SUM, "mpi.allreduce.sum", "mpi.allreduce.sum", same_shape,
     allreduce_execute},
    {MOP_PRODUCT, "mpi.allreduce.product", "mpi.allreduce.product",
     same_shape, allreduce_execute},
    {MOP_MIN, "mpi.allreduce.min", "mpi.allreduce.min", same_shape,
     allreduce_execute},
    {MOP_MAX, "mpi.allreduce.max", "mpi.allreduce.max", same_shape,
     allreduce_execute},
    {MOP_ALLGATHER, "mpi.allgather", "mpi.allgather", allgather_shape,
     allgather_execute},
    {MOP_BCAST, "mpi.bcast", "mpi.bcast", bcast_shape, bcast_execute},
    {MOP_ALLTOALL, "mpi.alltoall", "mpi.alltoall", same_shape,
     alltoall_execute},
    {MOP_HALO_CHAIN, "mpi.halo.chain", "mpi.halo.chain", halo_shape,
     halo_execute},
    {MOP_HALO_RING, "mpi.halo.ring", "mpi.halo.ring", halo_shape,
     halo_execute},
};

const mpi_op_def *mpi_ops(void)
{
    return ops;
}
