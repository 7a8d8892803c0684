/* rt_array.c — allocation and reference counting of run-time arrays. */
#include "core/exec/rt_array.h"

#include <stdio.h>
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

rt_array *rt_alloc(const acc_type *elem, int32_t rank, const int64_t *extents,
                   const char *op, diag *d)
{
    char sh[160];
    int64_t size = rt_shape_size(rank, extents);
    if (size < 0) {
        diag_fail(d, ACC_ERR_SHAPE, "%s: the shape %s has a negative extent "
                  "or too many elements", op,
                  rt_format_shape(rank, extents, sh, sizeof sh));
        return NULL;
    }
    rt_array *a = calloc(1, sizeof *a);
    if (!a)
        goto oom;
    a->elem = elem;
    a->rank = rank;
    memcpy(a->extents, extents, (size_t)rank * sizeof *extents);
    a->size = size;
    a->owns_data = 1;
    a->refs = 1;
    for (size_t i = 0; i < elem->n_leaves; i++) {
        size_t width = acc_scalar_size(elem->leaves[i]);
        if ((uint64_t)size > SIZE_MAX / width)
            goto oom;
        a->data[i] = malloc(size ? (size_t)size * width : 1);
        if (!a->data[i])
            goto oom;
    }
    return a;
oom:
    rt_release(a);
    diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory for an "
              "array of shape %s", op,
              rt_format_shape(rank, extents, sh, sizeof sh));
    return NULL;
}

rt_array *rt_wrap(const acc_array *desc, diag *d)
{
    rt_array *a = calloc(1, sizeof *a);
    if (!a) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
        return NULL;
    }
    a->elem = desc->type;
    a->rank = desc->rank;
    memcpy(a->extents, desc->extents, sizeof a->extents);
    a->size = rt_shape_size(desc->rank, desc->extents);
    memcpy(a->data, desc->data, sizeof a->data);
    a->owns_data = 0;
    a->refs = 1;
    return a;
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
    free(a);
}
