/*
 * struct_sizes.c — initialising a struct that crosses the ABI within the
 * size its caller states (struct_sizes.h).
 */
#include "abi/src/struct_sizes.h"

#include "core/base/handles.h"

#include <string.h>

acc_status abi_init_sized(void *o, size_t size, size_t v1_size,
                          const char *fn)
{
    if (!o)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: the struct is "
                        "NULL", fn);
    if (size < v1_size)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: size is %zu, "
                        "expected at least %zu (the first published struct; "
                        "pass sizeof the struct)", fn, size, v1_size);
    memset(o, 0, size);
    memcpy(o, &size, sizeof size); /* struct_size is the first member */
    return ACC_OK;
}
