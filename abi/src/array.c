/* array.c — array descriptors: initialisation, size, release. */
#include "accel.h"

#include "core/ir/types.h"

#include <string.h>

acc_status acc_array_init(acc_array *array, const acc_type *type,
                          int32_t rank, const int64_t *extents)
{
    if (!array || rank < 0 || rank > ACC_MAX_RANK || (rank > 0 && !extents))
        return ACC_ERR_INVALID_ARGUMENT;
    for (int32_t d = 0; d < rank; d++)
        if (extents[d] < 0)
            return ACC_ERR_INVALID_ARGUMENT;
    memset(array, 0, sizeof *array);
    array->struct_size = sizeof *array;
    array->type = type;
    array->rank = rank;
    for (int32_t d = 0; d < rank; d++)
        array->extents[d] = extents[d];
    array->memory = ACC_MEMORY_HOST;
    array->ownership = ACC_OWNERSHIP_BORROWED;
    return ACC_OK;
}

int64_t acc_array_size(const acc_array *array)
{
    if (!array || array->rank < 0 || array->rank > ACC_MAX_RANK)
        return 0;
    int64_t n = 1;
    for (int32_t d = 0; d < array->rank; d++)
        if (array->extents[d] < 0 ||
            __builtin_mul_overflow(n, array->extents[d], &n))
            return -1;
    return n;
}

void acc_array_release(acc_array *array)
{
    if (!array || array->ownership != ACC_OWNERSHIP_LIBRARY || !array->release)
        return;
    array->release(array);
    for (size_t i = 0; i < ACC_MAX_COMPONENTS; i++)
        array->data[i] = NULL;
    array->release = NULL;
    array->release_state = NULL;
    array->ownership = ACC_OWNERSHIP_BORROWED;
}
