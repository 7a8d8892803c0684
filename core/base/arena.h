/*
 * arena.h — bump allocation for compile-time data.
 *
 * A graph and a compiled program each own one arena; everything they
 * allocate (nodes, argument vectors, free-variable sets) is released in one
 * go when the owner is freed.  Allocation failure returns NULL; callers turn
 * it into ACC_ERR_OUT_OF_HOST_MEMORY.
 */
#ifndef ACC_CORE_BASE_ARENA_H
#define ACC_CORE_BASE_ARENA_H

#include <stddef.h>

typedef struct arena arena;

arena *arena_create(void);
void arena_destroy(arena *a);
/* Zero-filled, 16-byte aligned memory; NULL when out of memory. */
void *arena_alloc(arena *a, size_t size);
/* Total bytes requested from the system so far (for statistics). */
size_t arena_footprint(const arena *a);

#endif
