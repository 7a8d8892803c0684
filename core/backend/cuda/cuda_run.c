/*
 * cuda_run.c — one run on the CUDA backend (see cuda_backend.h): its
 * stream (the caller's, through an acc_exec, or an idle one of the
 * context's own), the device inputs it adopts, the interpreter hook that
 * hands steps to their launchers, and its end: a synchronous run waits
 * for its stream and gives its memory to the pool, an asynchronous one
 * leaves both to its execution handle's queue until acc_exec_wait.
 *
 * Every copy and launch of a run is queued on the run's stream, never on
 * the NULL stream: a caller's stream created non-blocking would not be
 * ordered with it.
 */
#include "core/backend/cuda/cuda_internal.h"
#include "core/base/mem.h"

#include <stdlib.h>

/* ---- streams of the context's own ------------------------------------------------ */

static cu_stream take_stream(cuda_backend *be, diag *d)
{
    cu_stream s = NULL;
    pthread_mutex_lock(&be->lock);
    int idle = be->n_streams > 0;
    if (idle)
        s = be->streams[--be->n_streams];
    pthread_mutex_unlock(&be->lock);
    if (idle)
        return s;
    cu_result r = be->drv.cuStreamCreate(&s, CU_STREAM_FLAG_NON_BLOCKING);
    if (r != CU_SUCCESS) {
        cuda_fail(be, d, r, "cuStreamCreate");
        return NULL;
    }
    return s;
}

static void give_stream(cuda_backend *be, cu_stream s)
{
    pthread_mutex_lock(&be->lock);
    if (be->n_streams == be->cap_streams) {
        size_t cap = be->cap_streams ? 2 * be->cap_streams : 4;
        cu_stream *grown = mem_realloc(be->streams, cap * sizeof *grown);
        if (grown) {
            be->streams = grown;
            be->cap_streams = cap;
        }
    }
    int kept = be->n_streams < be->cap_streams;
    if (kept)
        be->streams[be->n_streams++] = s;
    pthread_mutex_unlock(&be->lock);
    if (!kept)
        be->drv.cuStreamDestroy(s);
}

/* ---- the run ------------------------------------------------------------------------ */

acc_status cuda_run_step(cuda_run *run, const sched_step *s, int *replay)
{
    const cuda_node *kn = s->kernel;
    const cuda_launcher *l = cuda_launcher_of(kn->k.kind);
    const ir_node *n = s->node;
    rt_array *out[2] = {NULL, NULL};
    *replay = !l;
    if (*replay ||
        l->drive(run, kn, run->env->host, n, out, replay) != ACC_OK ||
        *replay)
        return run->env->d->status;
    values_set(run->env->values, n->id, out, n->type->n_leaves, run->env->d);
    return run->env->d->status;
}

static void run_free(cuda_run *run)
{
    free(run->freed.v);
    free(run);
}

cuda_run *cuda_run_begin(cuda_program *cp, run_env *env)
{
    diag *d = env->d;
    cuda_queue *q = env->queue;
    cuda_run *run = mem_calloc(1, sizeof *run);
    if (!run) {
        diag_oom(d, "acc_run");
        return NULL;
    }
    run->cp = cp;
    run->be = cp->be;
    if (cuda_enter(run->be, d)) {
        run_free(run);
        return NULL;
    }
    run->queue = q;
    run->async = q && q->async;
    run->own_stream = !q;
    run->stream = q ? q->stream : take_stream(run->be, d);
    if (!diag_ok(d)) {
        cuda_leave(run->be);
        run_free(run);
        return NULL;
    }
    for (size_t i = 0; i < env->n_inputs; i++) {
        rt_array *in = env->inputs[i];
        if ((in->valid & RT_ON_DEVICE) && !in->dev_ops) {
            in->dev_ops = &cuda_residency;
            in->dev_state = run;
        }
    }
    run->env = env;
    run->dests = env->dests;
    run->stop = env->stop;
    run->mem = cuda_foreign_memory(run);
    return run;
}

/* An asynchronous run's freed blocks wait for acc_exec_wait. */
static int hand_to_queue(cuda_run *run)
{
    cuda_blocks *to = &run->queue->pending, *from = &run->freed;
    while (from->n > 0) {
        cuda_block b = from->v[from->n - 1];
        if (!cuda_blocks_push(to, b.ptr, b.bytes))
            return 0;
        from->n--;
    }
    return 1;
}

acc_status cuda_run_end(cuda_run *run, diag *d)
{
    cuda_backend *be = run->be;
    if (!run->async || !diag_ok(d) || !hand_to_queue(run)) {
        cuda_sync(run, d);
        cuda_blocks_to_pool(be->pool, &run->freed);
    }
    if (run->own_stream)
        give_stream(be, run->stream);
    cuda_leave(be);
    run_free(run);
    return d->status;
}

/* ---- execution handles ---------------------------------------------------------- */

cuda_queue *cuda_queue_create(cuda_backend *be, void *stream, int async)
{
    cuda_queue *q = mem_calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->be = be;
    q->stream = (cu_stream)stream;
    q->async = async;
    cuda_backend_retain(be);
    return q;
}

acc_status cuda_queue_wait(cuda_queue *q, diag *d)
{
    if (cuda_enter(q->be, d))
        return d->status;
    cu_result r = q->be->drv.cuStreamSynchronize(q->stream);
    if (r != CU_SUCCESS)
        cuda_fail(q->be, d, r, "acc_exec_wait: the work queued on the "
                  "stream failed (cuStreamSynchronize)");
    cuda_blocks_to_pool(q->be->pool, &q->pending);
    cuda_leave(q->be);
    return d->status;
}

void cuda_queue_destroy(cuda_queue *q)
{
    diag ignored;
    diag_clear(&ignored);
    if (!q)
        return;
    cuda_queue_wait(q, &ignored);
    cuda_blocks_to_pool(q->be->pool, &q->pending); /* left by a failed wait */
    free(q->pending.v);
    cuda_backend_release(q->be);
    free(q);
}
