/* array.c — array descriptors: initialisation (within the caller's size,
 * struct_sizes.h), size, release. */
#include "accel.h"

#include "abi/src/struct_sizes.h"
#include "core/base/handles.h"
#include "core/ir/types.h"

#include <string.h>

/* acc_run takes arrays of descriptors indexed with the library's sizeof,
 * and writes whole descriptors (its outputs, DLPack imports): appending a
 * field to acc_array would make every older caller's array the wrong
 * stride.  It must not grow (docs/ABI.md, "Versioning"). */
_Static_assert(sizeof(acc_array) == ABI_ARRAY_V1_SIZE,
               "acc_array must not grow: see docs/ABI.md, Versioning");

acc_status acc_array_init_sized(acc_array *array, size_t size,
                                const acc_type *type, int32_t rank,
                                const int64_t *extents)
{
    static const char fn[] = "acc_array_init_sized";
    if (rank < 0 || rank > ACC_MAX_RANK)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: rank %d is out "
                        "of range 0..%d", fn, (int)rank, ACC_MAX_RANK);
    if (rank > 0 && !extents)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: extents is NULL "
                        "for rank %d", fn, (int)rank);
    for (int32_t d = 0; d < rank; d++)
        if (extents[d] < 0)
            return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: extent %d is "
                            "%lld; extents must not be negative", fn, (int)d,
                            (long long)extents[d]);
    acc_status st = abi_init_sized(array, size, ABI_ARRAY_V1_SIZE, fn);
    if (st != ACC_OK)
        return st;
    array->type = type;
    array->rank = rank;
    for (int32_t d = 0; d < rank; d++)
        array->extents[d] = extents[d];
    array->memory = ACC_MEMORY_HOST;
    array->ownership = ACC_OWNERSHIP_BORROWED;
    return ACC_OK;
}

/* The symbol binaries built before the macro of accel.h call: the first
 * published descriptor, which is the whole struct. */
acc_status(acc_array_init)(acc_array *array, const acc_type *type,
                           int32_t rank, const int64_t *extents)
{
    return acc_array_init_sized(array, ABI_ARRAY_V1_SIZE, type, rank, extents);
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
