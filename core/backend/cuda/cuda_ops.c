/*
 * cuda_ops.c — the CUDA backend's table of operations (backend.h): each
 * entry adapts one function of cuda_backend.h.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/cuda/probe.h"

static acc_status ops_probe(const backend_config *c, char *about,
                            size_t about_size, diag *d)
{
    return cuda_probe(c->device, about, about_size, d);
}

static backend *ops_create(const backend_config *c, diag *d)
{
    cuda_backend *be = cuda_backend_create(c->device, c->cache_dir, d);
    return be ? &be->base : NULL;
}

static void ops_destroy(backend *be)
{
    cuda_backend_close((cuda_backend *)be);
}

static acc_status ops_cache_report(backend *be, char **dir, char **note,
                                   diag *d)
{
    return cuda_backend_cache_report((cuda_backend *)be, dir, note, d);
}

static acc_status ops_build(backend *be, const ir_program *ir,
                            sched_program *s, int strict,
                            backend_program **out, diag *d)
{
    return cuda_program_build((cuda_backend *)be, ir, s, strict,
                              (cuda_program **)out, d);
}

static void ops_program_free(backend_program *bp)
{
    cuda_program_free((cuda_program *)bp);
}

static void ops_describe(strbuf *b, const backend_program *bp, int json)
{
    cuda_program_describe(b, (const cuda_program *)bp, json);
}

static backend_run *ops_begin(backend *be, backend_program *bp, run_env *env)
{
    (void)be;
    return (backend_run *)cuda_run_begin((cuda_program *)bp, env);
}

static acc_status ops_step(backend_run *r, const sched_step *s, int *replay)
{
    return cuda_run_step((cuda_run *)r, s, replay);
}

static acc_status ops_foreign(backend_run *r, const ir_node *n,
                              rt_array *const *args, rt_array **results)
{
    return cuda_call_foreign((cuda_run *)r, n, args, results);
}

static acc_status ops_end(backend_run *r)
{
    cuda_run *run = (cuda_run *)r;
    return cuda_run_end(run, run->env->d);
}

static acc_status ops_deliver(backend_run *r, acc_array *out, rt_array *a)
{
    cuda_run *run = (cuda_run *)r;
    return cuda_deliver_device(run, out, a, run->env->d);
}

static void *ops_queue_create(backend *be, void *stream, int async)
{
    return cuda_queue_create((cuda_backend *)be, stream, async);
}

static acc_status ops_queue_wait(void *q, diag *d)
{
    return cuda_queue_wait(q, d);
}

static void ops_queue_destroy(void *q)
{
    cuda_queue_destroy(q);
}

/* Device memory: cuda_result (cuMemAlloc through the run's pool, or the
 * caller's device buffers), cuda_device_of (cuMemcpyHtoD), rt_host
 * (cuMemcpyDtoH through the arrays' dev_ops), and the release of the
 * device buffers through the dev_ops (cuMemFree via the pool). */
static rt_array *ops_alloc(backend_run *r, const ir_node *n,
                           const acc_type *elem, int32_t rank,
                           const int64_t *extents, const char *op, diag *d)
{
    return cuda_result((cuda_run *)r, n, elem, rank, extents, op, d);
}

static acc_status ops_copy(backend_run *r, rt_array *a, acc_memory to,
                           diag *d)
{
    if (to == ACC_MEMORY_HOST)
        rt_host(a, d);
    else if (to == ACC_MEMORY_CUDA_DEVICE)
        cuda_device_of((cuda_run *)r, a, d);
    else
        diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "the CUDA backend cannot copy "
                  "an array to memory kind %d", (int)to);
    return d->status;
}

static void ops_release(backend_run *r, rt_array *a)
{
    (void)r;
    if (a)
        rt_release(a);
}

const backend_ops cuda_ops = {
    ACC_BACKEND_CUDA, ACC_MEMORY_CUDA_DEVICE,
    ops_probe, ops_create, ops_destroy, ops_cache_report,
    ops_build, ops_program_free, ops_describe,
    ops_begin, ops_step, ops_foreign, ops_end, ops_deliver,
    ops_queue_create, ops_queue_wait, ops_queue_destroy,
    ops_alloc, ops_copy, ops_release,
    NULL,
};
