/*
 * rt_array.h — arrays at run time: host buffers (one per scalar leaf of the
 * element type), extents, and a reference count.  Executors produce them;
 * the program's run function turns them into the caller's descriptors.
 */
#ifndef ACC_CORE_EXEC_RT_ARRAY_H
#define ACC_CORE_EXEC_RT_ARRAY_H

#include "core/ir/ir.h"

typedef struct rt_array {
    const acc_type *elem;
    int32_t rank;
    int64_t extents[ACC_MAX_RANK];
    int64_t size;
    void *data[ACC_MAX_COMPONENTS];
    int owns_data; /* data was allocated by accel and is freed with it */
    unsigned refs;
} rt_array;

/* The number of elements of a shape; -1 for a negative extent or overflow. */
int64_t rt_shape_size(int32_t rank, const int64_t *extents);
/* Writes "[3, 4]" into buf. */
const char *rt_format_shape(int32_t rank, const int64_t *extents, char *buf,
                            size_t size);
/* A new array with uninitialised buffers (refs = 1).  Errors (negative
 * extents, overflow, no memory) are recorded on d with `op` named. */
rt_array *rt_alloc(const acc_type *elem, int32_t rank, const int64_t *extents,
                   const char *op, diag *d);
/* A borrowed view of a caller's descriptor (refs = 1). */
rt_array *rt_wrap(const acc_array *desc, diag *d);
void rt_retain(rt_array *a);
void rt_release(rt_array *a);

/* Linear position of index ix in an array of the given extents, and back. */
static inline int64_t rt_ravel(int32_t rank, const int64_t *extents,
                               const int64_t *ix)
{
    int64_t k = 0;
    for (int32_t d = 0; d < rank; d++)
        k = k * extents[d] + ix[d];
    return k;
}

static inline void rt_unravel(int32_t rank, const int64_t *extents, int64_t k,
                              int64_t *ix)
{
    for (int32_t d = rank - 1; d >= 0; d--) {
        int64_t e = extents[d];
        ix[d] = e ? k % e : 0;
        k = e ? k / e : 0;
    }
}

#endif
