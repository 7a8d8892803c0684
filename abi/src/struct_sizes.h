/*
 * struct_sizes.h — the sizes of the structs that cross the ABI
 * (accel.h: acc_context_options, acc_exec_options, acc_array).  A caller
 * states the size of its struct in struct_size; a caller compiled against
 * an older header has a smaller struct, so the library reads only the
 * fields within that size and writes nothing past it.  The first published
 * size is the least any caller has: smaller is refused, and the legacy
 * init symbols (which cannot know their caller's size) write only that.
 */
#ifndef ACC_ABI_STRUCT_SIZES_H
#define ACC_ABI_STRUCT_SIZES_H

#include "accel.h"

#include <stddef.h>

/* The first published structs (accel.h of the first release): fields
 * appended later are optional. */
#define ABI_CONTEXT_OPTIONS_V1_SIZE \
    (offsetof(acc_context_options, cache_dir) + sizeof(const char *))
#define ABI_EXEC_OPTIONS_V1_SIZE \
    (offsetof(acc_exec_options, async) + sizeof(int32_t))
/* acc_array has never grown: its first published size is the whole
 * struct (array.c asserts it; docs/ABI.md, "Versioning", says why it
 * must not grow). */
#define ABI_ARRAY_V1_SIZE \
    (offsetof(acc_array, release_state) + sizeof(void *))

/* Whether the caller's struct (its struct_size) contains `field`. */
#define ABI_HAS_FIELD(o, type, field) \
    ((o)->struct_size >= offsetof(type, field) + sizeof((o)->field))

/* The shared part of the *_init_sized functions: checks `o` and `size`
 * (at least `v1_size`, the first published size), zeroes `size` bytes
 * and stores `size` in struct_size, the first member of every such
 * struct.  `fn` names the API function in the message of a refusal
 * (ACC_ERR_INVALID_ARGUMENT, nothing written). */
acc_status abi_init_sized(void *o, size_t size, size_t v1_size,
                          const char *fn);

#endif
