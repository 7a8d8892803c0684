/*
 * rt_array.c — allocation, reference counting and host residency of
 * run-time arrays (see rt_array.h).
 */
#include "core/backend/rt_array.h"
#include "core/base/mem.h"

#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int64_t rt_shape_size(int32_t rank, const int64_t *extents)
{
    int64_t n = 1;
    for (int32_t d = 0; d < rank; d++)
        if (extents[d] < 0 || __builtin_mul_overflow(n, extents[d], &n))
            return -1;
    return n;
}

const char *rt_format_shape(int32_t rank, const int64_t *extents, char *buf,
                            size_t size)
{
    size_t at = 0;
    at += (size_t)snprintf(buf, size, "[");
    for (int32_t d = 0; d < rank && at < size; d++)
        at += (size_t)snprintf(buf + at, size - at, d ? ", %lld" : "%lld",
                               (long long)extents[d]);
    if (at < size)
        snprintf(buf + at, size - at, "]");
    return buf;
}

static void shape_error(const char *op, int32_t rank, const int64_t *ext,
                        diag *d)
{
    char sh[160];
    diag_fail(d, ACC_ERR_SHAPE, "%s: the shape %s has a negative extent or "
              "too many elements", op, rt_format_shape(rank, ext, sh,
                                                       sizeof sh));
}

static void host_oom(const char *op, const rt_array *a, diag *d)
{
    char sh[160];
    diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory for an "
              "array of shape %s", op,
              rt_format_shape(a->rank, a->extents, sh, sizeof sh));
}

rt_array *rt_shell(const acc_type *elem, int32_t rank, const int64_t *extents,
                   const char *op, diag *d)
{
    int64_t size = rt_shape_size(rank, extents);
    if (size < 0) {
        shape_error(op, rank, extents, d);
        return NULL;
    }
    rt_array *a = mem_calloc(1, sizeof *a);
    if (!a) {
        diag_oom(d, op);
        return NULL;
    }
    a->elem = elem;
    a->rank = rank;
    memcpy(a->extents, extents, (size_t)rank * sizeof *extents);
    a->size = size;
    a->refs = 1;
    return a;
}

size_t rt_leaf_bytes(const rt_array *a, size_t i)
{
    return (size_t)a->size * acc_scalar_size(a->elem->leaves[i]);
}

/* The host memory of arrays accel owns: what is live now, and the most
 * that was live at once since the last rt_reset_peak. */
static _Atomic uint64_t live_host_bytes, peak_host_bytes;

static void account(uint64_t add, uint64_t sub)
{
    uint64_t now = atomic_fetch_add(&live_host_bytes, add) + add;
    atomic_fetch_sub(&live_host_bytes, sub);
    uint64_t peak = atomic_load(&peak_host_bytes);
    while (now > peak &&
           !atomic_compare_exchange_weak(&peak_host_bytes, &peak, now))
        ;
}

uint64_t rt_live_bytes(void)
{
    return atomic_load(&live_host_bytes);
}

uint64_t rt_peak_bytes(void)
{
    return atomic_load(&peak_host_bytes);
}

void rt_reset_peak(void)
{
    atomic_store(&peak_host_bytes, atomic_load(&live_host_bytes));
}

/* Host buffers for every leaf of a shell (owned by it). */
static int host_buffers(rt_array *a)
{
    uint64_t total = 0;
    for (size_t i = 0; i < a->elem->n_leaves; i++) {
        size_t width = acc_scalar_size(a->elem->leaves[i]);
        if ((uint64_t)a->size > SIZE_MAX / width)
            return 0;
    }
    a->owns_data = 1;
    for (size_t i = 0; i < a->elem->n_leaves; i++) {
        if (!(a->data[i] = mem_alloc(a->size ? rt_leaf_bytes(a, i) : 1)))
            return 0;
        total += rt_leaf_bytes(a, i);
    }
    a->host_bytes = total;
    account(total, 0);
    return 1;
}

void rt_disown(rt_array *a)
{
    account(0, a->host_bytes);
    a->host_bytes = 0;
    a->owns_data = 0;
}

rt_array *rt_alloc(const acc_type *elem, int32_t rank, const int64_t *extents,
                   const char *op, diag *d)
{
    rt_array *a = rt_shell(elem, rank, extents, op, d);
    if (!a)
        return NULL;
    if (!host_buffers(a)) {
        host_oom(op, a, d);
        rt_release(a);
        return NULL;
    }
    a->valid = RT_ON_HOST;
    return a;
}

rt_array *rt_wrap_at(rt_array *a, const acc_array *desc)
{
    /* every field written once (a compound literal, not a memset and
     * stores: this is part of every run's fixed cost) */
    *a = (rt_array){.elem = desc->type, .rank = desc->rank,
                    .size = rt_shape_size(desc->rank, desc->extents),
                    .refs = 1, .kept_shell = 1};
    memcpy(a->extents, desc->extents, sizeof a->extents);
    if (desc->memory == ACC_MEMORY_HOST) {
        memcpy(a->data, desc->data, sizeof a->data);
        a->valid = RT_ON_HOST;
    } else {
        for (size_t i = 0; i < ACC_MAX_COMPONENTS; i++)
            a->dev[i] = (uint64_t)(uintptr_t)desc->data[i];
        a->valid = RT_ON_DEVICE;
    }
    return a;
}

rt_array *rt_wrap(const acc_array *desc, diag *d)
{
    rt_array *a = mem_alloc(sizeof *a);
    if (!a) {
        diag_oom(d, "wrapping an array");
        return NULL;
    }
    rt_wrap_at(a, desc);
    a->kept_shell = 0;
    return a;
}

int rt_copy_to_host(const rt_array *a, void *const *dst, diag *d)
{
    if (a->valid & RT_ON_HOST) {
        for (size_t i = 0; i < a->elem->n_leaves; i++)
            if (a->size && dst[i] != a->data[i])
                memmove(dst[i], a->data[i], rt_leaf_bytes(a, i));
        return 1;
    }
    if (!(a->valid & RT_ON_DEVICE) || !a->dev_ops) {
        diag_fail(d, ACC_ERR_INTERNAL, "run: an array has no valid contents");
        return 0;
    }
    return a->size == 0 || a->dev_ops->download(a, dst, d);
}

int rt_host(rt_array *a, diag *d)
{
    if (a->valid & RT_ON_HOST)
        return 1;
    if (!host_buffers(a)) {
        host_oom("download", a, d);
        return 0;
    }
    if (!rt_copy_to_host(a, a->data, d))
        return 0;
    a->valid |= RT_ON_HOST;
    return 1;
}

void rt_retain(rt_array *a)
{
    a->refs++;
}

void rt_release(rt_array *a)
{
    if (!a || --a->refs > 0)
        return;
    if (a->owns_data)
        for (size_t i = 0; i < ACC_MAX_COMPONENTS; i++)
            free(a->data[i]);
    if (a->host_bytes)
        account(0, a->host_bytes);
    if (a->owns_dev && a->dev_ops)
        a->dev_ops->release(a);
    if (!a->kept_shell)
        free(a);
}
