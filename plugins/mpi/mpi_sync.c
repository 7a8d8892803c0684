/*
 * mpi_sync.c — what keeps the ranks of a job from hanging or silently
 * disagreeing (docs/DISTRIBUTED.md, "Ordering" and "Failures"):
 *
 *  - every collective is nonblocking and waited for at most
 *    ACC_MPI_TIMEOUT seconds: a rank whose peer failed before reaching
 *    the collective (or never reaches it) returns ACC_ERR_TIMEOUT instead
 *    of waiting forever, and the communicator is marked broken, so every
 *    later collective of the context fails at once;
 *  - with ACC_MPI_CHECK=1, before each collective the ranks exchange what
 *    they are about to do (sequence number, operation, element type,
 *    rank, extents) and whether they failed locally; a difference is
 *    reported as the same error on every rank.
 */
#define _POSIX_C_SOURCE 200809L
#include "mpi_plugin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

acc_status mpi_fail(acc_foreign_call *c, acc_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, c->message_size, fmt, ap);
    va_end(ap);
    return st;
}

static double env_double(const char *name, double dflt)
{
    const char *v = getenv(name);
    char *end = NULL;
    double x = v && *v ? strtod(v, &end) : dflt;
    return v && *v && end && *end == '\0' && x >= 0 ? x : dflt;
}

int64_t mpi_chunk_elems(void)
{
    double n = env_double("ACC_MPI_CHUNK", 0);
    return n >= 1 && n < 2147483647.0 ? (int64_t)n : 2147483647;
}

static void pause_briefly(void)
{
    struct timespec ts = {0, 20000}; /* 20 us */
    nanosleep(&ts, NULL);
}

acc_status mpi_wait(mpi_state *st, int n, MPI_Request *reqs, const char *what,
                    acc_foreign_call *c)
{
    double limit = env_double("ACC_MPI_TIMEOUT", 300);
    double t0 = MPI_Wtime();
    for (long spins = 0;; spins++) {
        int done = 0;
        if (MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return mpi_fail(c, ACC_ERR_PLUGIN, "%s: MPI reported an error "
                            "on rank %d", what, st->rank);
        if (done)
            return ACC_OK;
        if (limit > 0 && MPI_Wtime() - t0 > limit) {
            snprintf(st->broken, sizeof st->broken, "%s (collective #%llu) "
                     "timed out on rank %d after %g s (ACC_MPI_TIMEOUT): "
                     "another rank failed or did not reach it", what,
                     (unsigned long long)st->seq, st->rank, limit);
            return mpi_fail(c, ACC_ERR_TIMEOUT, "%s", st->broken);
        }
        if (spins > 2000)
            pause_briefly();
    }
}

/* ---- ACC_MPI_CHECK ----------------------------------------------------------- */

enum { SIG_WORDS = 6 + ACC_MAX_RANK };

static int check_enabled(void)
{
    const char *v = getenv("ACC_MPI_CHECK");
    return v && *v && strcmp(v, "0") != 0;
}

/* What a rank is about to do: [ok, seq, op, scalar, rank, leaves,
 * extents...]; extents that may differ between ranks are -1. */
static void signature(const mpi_state *st, const char *op,
                      const acc_foreign_call *c, acc_status local,
                      int64_t *sig)
{
    const acc_array *a = &c->args[c->n_args - 1];
    uint64_t op_hash = 0;
    for (const char *p = op; *p; p++)
        op_hash = op_hash * 31 + (unsigned char)*p;
    memset(sig, 0xff, SIG_WORDS * sizeof *sig);
    sig[0] = local == ACC_OK;
    sig[1] = (int64_t)st->seq;
    sig[2] = (int64_t)(op_hash >> 1);
    sig[3] = acc_type_leaf(a->type, 0);
    sig[4] = a->rank;
    sig[5] = (int64_t)acc_type_leaf_count(a->type);
    for (int32_t k = 0; k < a->rank; k++)
        sig[6 + k] = a->extents[k];
    /* gathered, broadcast or padded along the outer dimension: its extent
     * may differ; the broadcast's source decides every extent */
    if (strstr(op, "allgather") || strstr(op, "halo") ||
        strstr(op, "bcast"))
        sig[6] = -1;
    if (strstr(op, "bcast"))
        for (int32_t k = 1; k < a->rank; k++)
            sig[6 + k] = -1;
}

static void describe(char *out, size_t size, const int64_t *sig,
                     const char *op_of_rank)
{
    int at = snprintf(out, size, "%s (collective #%lld, %s of rank %lld)",
                      op_of_rank, (long long)sig[1],
                      acc_scalar_name((acc_scalar)sig[3]), (long long)sig[4]);
    for (int64_t k = 0; k < sig[4] && k < ACC_MAX_RANK && at > 0 &&
                       (size_t)at < size; k++)
        at += snprintf(out + at, size - (size_t)at, "%s%lld", k ? " " : " [",
                       (long long)sig[6 + k]);
    if (sig[4] > 0 && at > 0 && (size_t)at < size)
        snprintf(out + at, size - (size_t)at, "]");
}

static acc_status compare(mpi_state *st, const char *op, const int64_t *all,
                          acc_foreign_call *c)
{
    for (int r = 0; r < st->size; r++) {
        const int64_t *s = all + (size_t)r * SIG_WORDS;
        if (!s[0])
            return mpi_fail(c, ACC_ERR_PLUGIN, "%s (collective #%llu): rank "
                            "%d failed before it; every rank stops here "
                            "(ACC_MPI_CHECK)", op,
                            (unsigned long long)st->seq, r);
    }
    for (int r = 1; r < st->size; r++) {
        const int64_t *s = all + (size_t)r * SIG_WORDS;
        if (memcmp(s + 1, all + 1, (SIG_WORDS - 1) * sizeof *s) == 0)
            continue;
        char mine[160], theirs[160];
        describe(mine, sizeof mine, all, s[2] == all[2] ? op : "its own");
        describe(theirs, sizeof theirs, s, s[2] == all[2] ? op
                                           : "another collective");
        return mpi_fail(c, ACC_ERR_PLUGIN, "ACC_MPI_CHECK: the ranks are not "
                        "at the same collective: rank 0 is at %s, rank %d at "
                        "%s", mine, r, theirs);
    }
    return ACC_OK;
}

acc_status mpi_enter(mpi_state *st, const char *op, acc_foreign_call *c,
                     acc_status local)
{
    if (st->broken[0])
        return mpi_fail(c, ACC_ERR_PLUGIN, "%s: the communicator is unusable "
                        "since %s", op, st->broken);
    st->seq++;
    if (!check_enabled())
        return local;
    int64_t sig[SIG_WORDS];
    int64_t *all = malloc((size_t)st->size * sizeof sig);
    if (!all)
        return mpi_fail(c, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                        "memory", op);
    signature(st, op, c, local, sig);
    MPI_Request req;
    acc_status s = ACC_ERR_PLUGIN;
    if (MPI_Iallgather(sig, SIG_WORDS, MPI_INT64_T, all, SIG_WORDS,
                       MPI_INT64_T, st->comm, &req) != MPI_SUCCESS)
        mpi_fail(c, s, "%s: MPI_Iallgather failed", op);
    else if ((s = mpi_wait(st, 1, &req, op, c)) == ACC_OK)
        s = local != ACC_OK ? local : compare(st, op, all, c);
    free(all);
    return s;
}
