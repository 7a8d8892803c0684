/*
 * arena.c — chunked bump allocator.  Chunks are never moved, so pointers
 * into an arena stay valid until arena_destroy.
 */
#include "core/base/arena.h"
#include "core/base/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ARENA_CHUNK = 64 * 1024, ARENA_ALIGN = 16 };

typedef struct chunk {
    struct chunk *next;
    size_t used, capacity;
    _Alignas(16) unsigned char bytes[];
} chunk;

struct arena {
    chunk *head;
    size_t footprint;
};

arena *arena_create(void)
{
    return mem_calloc(1, sizeof(arena));
}

void arena_destroy(arena *a)
{
    if (!a)
        return;
    chunk *c = a->head;
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

static chunk *arena_new_chunk(arena *a, size_t at_least)
{
    size_t capacity = at_least > ARENA_CHUNK ? at_least : ARENA_CHUNK;
    if (capacity > SIZE_MAX - sizeof(chunk))
        return NULL;
    chunk *c = mem_alloc(sizeof(chunk) + capacity);
    if (!c)
        return NULL;
    c->used = 0;
    c->capacity = capacity;
    c->next = a->head;
    a->head = c;
    a->footprint += sizeof(chunk) + capacity;
    return c;
}

void *arena_alloc(arena *a, size_t size)
{
    if (mem_fails()) /* each allocation can fail, not only a new chunk */
        return NULL;
    if (size > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (rounded == 0)
        rounded = ARENA_ALIGN;
    chunk *c = a->head;
    if (!c || c->capacity - c->used < rounded) {
        c = arena_new_chunk(a, rounded);
        if (!c)
            return NULL;
    }
    void *p = c->bytes + c->used;
    c->used += rounded;
    memset(p, 0, rounded);
    return p;
}

size_t arena_footprint(const arena *a)
{
    return a ? a->footprint : 0;
}
