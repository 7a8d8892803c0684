/*
 * cuda_launch.c — what every CUDA launcher shares (see cuda_internal.h):
 * the argument block a kernel reads (its arrays, result pointers, seed,
 * partials and error slot) uploaded in one copy, the launch itself, the
 * error slot read back, and block and grid sizes.
 */
#include "core/backend/cuda/cuda_internal.h"

#include <stdlib.h>
#include <string.h>

static void put_u64(unsigned char *at, uint64_t v)
{
    memcpy(at, &v, sizeof v);
}

int cuda_launch_bind(cuda_run *run, const cg_kernel *k, interp *st,
                     size_t out_leaves, size_t acc_leaves, cuda_launch *l)
{
    return cuda_launch_bind_extra(run, k, st, 0, out_leaves, acc_leaves, l);
}

int cuda_launch_bind_extra(cuda_run *run, const cg_kernel *k, interp *st,
                           size_t extra, size_t out_leaves, size_t acc_leaves,
                           cuda_launch *l)
{
    memset(l, 0, sizeof *l);
    l->n_arrays = k->n_arrays + extra;
    l->out_leaves = out_leaves;
    l->acc_leaves = acc_leaves;
    l->at_out = l->n_arrays * sizeof(cuda_karray);
    l->at_seed = l->at_out + out_leaves * 8;
    l->at_part = l->at_seed + acc_leaves * 8;
    l->at_err = l->at_part + acc_leaves * 8;
    l->block_bytes = l->at_err + sizeof(cuda_kerr);
    if (!(l->host = calloc(1, l->block_bytes))) {
        diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "run: out of host "
                  "memory");
        return 0;
    }
    for (size_t i = 0; i < k->n_arrays; i++) {
        rt_array *a = interp_array_raw(st, k->arrays[i]);
        if (!a || !cuda_device_of(run, a, st->d))
            return 0;
        cuda_karray ka;
        memset(&ka, 0, sizeof ka);
        memcpy(ka.data, a->dev, sizeof ka.data);
        memcpy(ka.ext, a->extents, sizeof ka.ext);
        ka.size = a->size;
        cuda_launch_array(l, i, &ka);
    }
    return 1;
}

/* The result pointers (none yet when out is NULL) and partials (left as
 * they are when parts is NULL) into the host image, and A's view of the
 * result's shape. */
static void set_targets(cuda_launch *l, const rt_array *out,
                        const cu_deviceptr *parts)
{
    for (size_t i = 0; i < l->out_leaves; i++)
        put_u64(l->host + l->at_out + 8 * i, out ? out->dev[i] : 0);
    for (size_t i = 0; parts && i < l->acc_leaves; i++)
        put_u64(l->host + l->at_part + 8 * i, parts[i]);
    memset(l->A.out_ext, 0, sizeof l->A.out_ext);
    if (out)
        memcpy(l->A.out_ext, out->extents, sizeof l->A.out_ext);
    l->A.out_size = out ? out->size : 0;
}

void cuda_launch_array(cuda_launch *l, size_t i, const cuda_karray *a)
{
    memcpy(l->host + i * sizeof *a, a, sizeof *a);
}

int cuda_launch_upload(cuda_run *run, cuda_launch *l, const rt_array *out,
                       const ir_value *seed, const cu_deviceptr *parts,
                       cu_deviceptr part_has, diag *d)
{
    cuda_kerr armed = {0, 0, INT64_MAX};
    set_targets(l, out, parts);
    if (seed)
        memcpy(l->host + l->at_seed, seed, l->acc_leaves * sizeof *seed);
    memcpy(l->host + l->at_err, &armed, sizeof armed);
    if (!cuda_run_alloc(run, l->block_bytes, &l->block, "a kernel's "
                        "arguments", d))
        return 0;
    cu_result r = run->be->drv.cuMemcpyHtoDAsync(l->block, l->host,
                                                 l->block_bytes, run->stream);
    if (r != CU_SUCCESS) {
        cuda_fail(run->be, d, r, "uploading a kernel's arguments "
                  "(cuMemcpyHtoDAsync)");
        return 0;
    }
    l->A.in = l->n_arrays ? l->block : 0;
    l->A.out = l->block + l->at_out;
    l->A.seed = seed ? l->block + l->at_seed : 0;
    l->A.part = parts ? l->block + l->at_part : 0;
    l->A.part_has = part_has;
    l->A.err = l->block + l->at_err;
    return 1;
}

int cuda_launch_run(cuda_run *run, cuda_launch *l, const cuda_fn *fn,
                    unsigned grid_x, unsigned grid_y, unsigned block,
                    int64_t *extra, diag *d)
{
    void *params[2] = {&l->A, extra};
    cu_result r = run->be->drv.cuLaunchKernel(fn->f, grid_x, grid_y, 1, block,
                                              1, 1, 0, run->stream, params,
                                              NULL);
    if (r == CU_SUCCESS)
        return 1;
    cuda_fail(run->be, d, r, "launching %s with %u x %u blocks of %u threads "
              "(cuLaunchKernel)", fn->name, grid_x, grid_y, block);
    return 0;
}

int cuda_launch_retarget(cuda_run *run, cuda_launch *l, const rt_array *out,
                         const cu_deviceptr *parts, diag *d)
{
    set_targets(l, out, parts);
    cu_result r = run->be->drv.cuMemcpyHtoDAsync(l->block + l->at_out,
                                                 l->host + l->at_out,
                                                 l->at_err - l->at_out,
                                                 run->stream);
    if (r == CU_SUCCESS)
        return 1;
    cuda_fail(run->be, d, r, "uploading a kernel's result pointers "
              "(cuMemcpyHtoDAsync)");
    return 0;
}

int cuda_launch_read(cuda_run *run, cuda_launch *l, void *dst,
                     cu_deviceptr src, size_t bytes, diag *d)
{
    cuda_kerr e;
    cu_result r = run->be->drv.cuMemcpyDtoHAsync(&e, l->block + l->at_err,
                                                 sizeof e, run->stream);
    if (r == CU_SUCCESS && bytes)
        r = run->be->drv.cuMemcpyDtoHAsync(dst, src, bytes, run->stream);
    if (r != CU_SUCCESS) {
        cuda_fail(run->be, d, r, "reading a kernel's error slot "
                  "(cuMemcpyDtoHAsync)");
        return -1;
    }
    if (!cuda_sync(run, d))
        return -1;
    return e.code != 0;
}

int cuda_launch_failed(cuda_run *run, const cuda_node *kn, cuda_launch *l,
                       diag *d)
{
    if (kn->k.checks == 0)
        return 0; /* nothing can have written the slot */
    return cuda_launch_read(run, l, NULL, 0, 0, d);
}

int cuda_launch_threads(cuda_run *run, cuda_launch *l, const cuda_fn *fn,
                        int64_t items, int64_t *extra, diag *d)
{
    unsigned block = cuda_block_for(fn, items);
    return cuda_launch_run(run, l, fn, cuda_grid_for(run, fn, items, block), 1,
                           block, extra, d);
}

void cuda_launch_free(cuda_run *run, cuda_launch *l)
{
    cuda_run_free(run, l->block, l->block_bytes);
    free(l->host);
    memset(l, 0, sizeof *l);
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
