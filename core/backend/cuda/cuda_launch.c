/*
 * cuda_launch.c — what every CUDA launcher shares (see cuda_internal.h):
 * the argument block a kernel reads (its arrays, result pointers, seed,
 * partials, error slot and a segmented kernel's offsets) uploaded in one
 * copy, the launch itself, the error slot read back, the partials of
 * multi-pass kernels, and block and grid sizes.
 */
#include "core/backend/cuda/cuda_internal.h"
#include "core/backend/host/host_eval.h"
#include "core/base/mem.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_u64(unsigned char *at, uint64_t v)
{
    memcpy(at, &v, sizeof v);
}

/* The block's layout: the karrays (the kernel's, its extra ones, then
 * the offsets'), result pointers, seed, partial pointers, error slot,
 * then the offsets themselves (n_off of them). */
static void lay_out(cuda_launch *l, size_t n_in, size_t n_off)
{
    l->at_out = n_in * sizeof(cuda_karray);
    l->at_seed = l->at_out + l->out_leaves * 8;
    l->at_part = l->at_seed + l->acc_leaves * 8;
    l->at_err = l->at_part + l->acc_leaves * 8;
    l->block_bytes = l->at_err + sizeof(cuda_kerr);
    l->at_seg = n_off ? l->block_bytes : 0;
    l->block_bytes += n_off * sizeof(int64_t);
}

/* The kernel's arrays made valid on the device, `extra` arrays after them
 * (zeroed until cuda_launch_array describes them) and, when off is not
 * NULL, the n_seg + 1 offsets as the last array. */
static acc_status bind(cuda_run *run, const cg_kernel *k, interp *st,
                       size_t extra, size_t out_leaves, size_t acc_leaves,
                       const int64_t *off, int64_t n_seg, cuda_launch *l)
{
    size_t n_off = off ? (size_t)n_seg + 1 : 0;
    memset(l, 0, sizeof *l);
    l->n_arrays = k->n_arrays + extra;
    l->out_leaves = out_leaves;
    l->acc_leaves = acc_leaves;
    lay_out(l, l->n_arrays + (off != NULL), n_off);
    if (!(l->host = mem_calloc(1, l->block_bytes)))
        return diag_oom(st->d, "run");
    if (off) { /* data[0] is set once the block has its device address */
        cuda_karray ka;
        memset(&ka, 0, sizeof ka);
        ka.ext[0] = n_seg + 1;
        ka.size = n_seg;
        cuda_launch_array(l, l->n_arrays, &ka);
        memcpy(l->host + l->at_seg, off, n_off * sizeof *off);
    }
    for (size_t i = 0; i < k->n_arrays; i++) {
        rt_array *a = interp_array_raw(st, k->arrays[i]);
        if (!a)
            return host_recorded(st->d);
        if (cuda_device_of(run, a, st->d))
            return st->d->status;
        cuda_karray ka;
        memset(&ka, 0, sizeof ka);
        memcpy(ka.data, a->dev, sizeof ka.data);
        memcpy(ka.ext, a->extents, sizeof ka.ext);
        ka.size = a->size;
        cuda_launch_array(l, i, &ka);
    }
    return ACC_OK;
}

acc_status cuda_launch_bind(cuda_run *run, const cg_kernel *k, interp *st,
                     size_t out_leaves, size_t acc_leaves, cuda_launch *l)
{
    return bind(run, k, st, 0, out_leaves, acc_leaves, NULL, 0, l);
}

acc_status cuda_launch_bind_extra(cuda_run *run, const cg_kernel *k, interp *st,
                           size_t extra, size_t out_leaves, size_t acc_leaves,
                           cuda_launch *l)
{
    return bind(run, k, st, extra, out_leaves, acc_leaves, NULL, 0, l);
}

acc_status cuda_launch_bind_segments(cuda_run *run, const cg_kernel *k, interp *st,
                              size_t out_leaves, size_t acc_leaves,
                              const int64_t *off, int64_t n_seg,
                              cuda_launch *l)
{
    return bind(run, k, st, 0, out_leaves, acc_leaves, off, n_seg, l);
}

void cuda_launch_array(cuda_launch *l, size_t i, const cuda_karray *a)
{
    memcpy(l->host + i * sizeof *a, a, sizeof *a);
}

void cuda_launch_set_out(cuda_launch *l, size_t i, cu_deviceptr ptr)
{
    put_u64(l->host + l->at_out + 8 * i, ptr);
}

/* The result pointers (all 0 when out is NULL: none yet; else out's own
 * leaves, those after them left as cuda_launch_set_out set them: a primed
 * scan's totals) and partials (left as they are when parts is NULL) into
 * the host image, and A's view of the result's shape. */
static void set_targets(cuda_launch *l, const rt_array *out,
                        const cu_deviceptr *parts)
{
    size_t n = out ? out->elem->n_leaves : l->out_leaves;
    for (size_t i = 0; i < n && i < l->out_leaves; i++)
        cuda_launch_set_out(l, i, out ? out->dev[i] : 0);
    for (size_t i = 0; parts && i < l->acc_leaves; i++)
        put_u64(l->host + l->at_part + 8 * i, parts[i]);
    memset(l->A.out_ext, 0, sizeof l->A.out_ext);
    if (out)
        memcpy(l->A.out_ext, out->extents, sizeof l->A.out_ext);
    l->A.out_size = out ? out->size : 0;
}

acc_status cuda_launch_upload(cuda_run *run, cuda_launch *l,
                              const rt_array *out, const ir_value *seed,
                              const cu_deviceptr *parts,
                              cu_deviceptr part_has, diag *d)
{
    cuda_kerr armed = {0, 0, INT64_MAX};
    set_targets(l, out, parts);
    if (seed)
        memcpy(l->host + l->at_seed, seed, l->acc_leaves * sizeof *seed);
    memcpy(l->host + l->at_err, &armed, sizeof armed);
    if (cuda_run_alloc(run, l->block_bytes, &l->block, "a kernel's "
                       "arguments", d))
        return d->status;
    if (l->at_seg)
        put_u64(l->host + l->n_arrays * sizeof(cuda_karray) +
                    offsetof(cuda_karray, data),
                l->block + l->at_seg);
    cu_result r = run->be->drv.cuMemcpyHtoDAsync(l->block, l->host,
                                                 l->block_bytes, run->stream);
    if (r != CU_SUCCESS)
        return cuda_fail(run->be, d, r, "uploading a kernel's arguments "
                         "(cuMemcpyHtoDAsync)");
    l->A.in = l->at_out ? l->block : 0;
    l->A.out = l->block + l->at_out;
    l->A.seed = seed ? l->block + l->at_seed : 0;
    l->A.part = parts ? l->block + l->at_part : 0;
    l->A.part_has = part_has;
    l->A.err = l->block + l->at_err;
    return ACC_OK;
}

acc_status cuda_launch_run(cuda_run *run, cuda_launch *l, const cuda_fn *fn,
                           unsigned grid_x, unsigned grid_y, unsigned block,
                           int64_t *extra, diag *d)
{
    if (stop_check(run->stop) != ACC_OK) { /* between launches */
        char where[96];
        snprintf(where, sizeof where, "the launch of %s", fn->name);
        stop_fail(run->stop, d, where);
        return host_recorded(d);
    }
    void *params[2] = {&l->A, extra};
    cu_result r = run->be->drv.cuLaunchKernel(fn->f, grid_x, grid_y, 1, block,
                                              1, 1, 0, run->stream, params,
                                              NULL);
    if (r == CU_SUCCESS)
        return ACC_OK;
    return cuda_fail(run->be, d, r, "launching %s with %u x %u blocks of %u "
                     "threads (cuLaunchKernel)", fn->name, grid_x, grid_y,
                     block);
}

acc_status cuda_launch_retarget(cuda_run *run, cuda_launch *l, const rt_array *out,
                         const cu_deviceptr *parts, diag *d)
{
    set_targets(l, out, parts);
    cu_result r = run->be->drv.cuMemcpyHtoDAsync(l->block + l->at_out,
                                                 l->host + l->at_out,
                                                 l->at_err - l->at_out,
                                                 run->stream);
    if (r == CU_SUCCESS)
        return ACC_OK;
    return cuda_fail(run->be, d, r, "uploading a kernel's result pointers "
                     "(cuMemcpyHtoDAsync)");
}

acc_status cuda_launch_read(cuda_run *run, cuda_launch *l, void *dst,
                            cu_deviceptr src, size_t bytes, int *replay,
                            diag *d)
{
    cuda_kerr e;
    cu_result r = run->be->drv.cuMemcpyDtoHAsync(&e, l->block + l->at_err,
                                                 sizeof e, run->stream);
    if (r == CU_SUCCESS && bytes)
        r = run->be->drv.cuMemcpyDtoHAsync(dst, src, bytes, run->stream);
    if (r != CU_SUCCESS)
        return cuda_fail(run->be, d, r, "reading a kernel's error slot "
                         "(cuMemcpyDtoHAsync)");
    if (cuda_sync(run, d))
        return d->status;
    if (e.code != 0)
        *replay = 1;
    return ACC_OK;
}

acc_status cuda_launch_failed(cuda_run *run, const cuda_node *kn,
                              cuda_launch *l, int *replay, diag *d)
{
    if (kn->k.checks == 0)
        return ACC_OK; /* nothing can have written the slot */
    return cuda_launch_read(run, l, NULL, 0, 0, replay, d);
}

void cuda_launch_free(cuda_run *run, cuda_launch *l)
{
    cuda_run_free(run, l->block, l->block_bytes);
    free(l->host);
    memset(l, 0, sizeof *l);
}

acc_status cuda_launch_threads(cuda_run *run, cuda_launch *l,
                               const cuda_fn *fn, int64_t threads,
                               int64_t *extra, diag *d)
{
    unsigned block = cuda_block_for(fn, threads);
    return cuda_launch_run(run, l, fn, cuda_grid_for(run, fn, threads, block),
                           1, block, extra, d);
}

acc_status cuda_launch_parts(cuda_run *run, cuda_launch *l,
                             const cuda_fn *fn, int64_t parts, int64_t rows,
                             diag *d)
{
    int64_t grid_y = rows < run->be->dev.max_grid_y ? rows
                                                    : run->be->dev.max_grid_y;
    return cuda_launch_run(run, l, fn, (unsigned)parts, (unsigned)grid_y,
                           (unsigned)fn->block, NULL, d);
}

acc_status cuda_parts_alloc(cuda_run *run, const acc_type *acc, size_t n,
                            const char *what, cuda_parts *p, diag *d)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    acc_status s = cuda_run_alloc(run, n * sizeof(int), &p->has, what, d);
    for (size_t i = 0; s == ACC_OK && i < acc->n_leaves; i++)
        s = cuda_run_alloc(run, n * acc_scalar_size(acc->leaves[i]),
                           &p->leaf[i], what, d);
    return s;
}

void cuda_parts_free(cuda_run *run, const acc_type *acc, cuda_parts *p)
{
    for (size_t i = 0; i < acc->n_leaves; i++)
        cuda_run_free(run, p->leaf[i], p->n * acc_scalar_size(acc->leaves[i]));
    cuda_run_free(run, p->has, p->n * sizeof(int));
    memset(p, 0, sizeof *p);
}

unsigned cuda_block_for(const cuda_fn *fn, int64_t n)
{
    int64_t b = (n + 31) / 32 * 32;
    if (b < 32)
        b = 32;
    return (unsigned)(b < fn->block ? b : fn->block);
}

unsigned cuda_grid_for(const cuda_run *run, const cuda_fn *fn, int64_t n,
                       unsigned block)
{
    int64_t g = (n + block - 1) / block;
    int64_t cap = 4 * (int64_t)fn->min_grid;
    if (g > cap)
        g = cap;
    if (g > run->be->dev.max_grid_x)
        g = run->be->dev.max_grid_x;
    return (unsigned)(g < 1 ? 1 : g);
}
