/*
 * mem.c — the library's allocator and its failure injection (see mem.h).
 */
#include "core/base/mem.h"

#include <stdlib.h>
#include <string.h>

#ifdef ACC_ALLOC_FAIL
#include <stdatomic.h>

static _Atomic uint64_t made;      /* allocations so far */
static _Atomic uint64_t fail_at;   /* the one to fail, 0: none */

int mem_fails(void)
{
    uint64_t n = atomic_fetch_add(&made, 1) + 1;
    uint64_t at = atomic_load(&fail_at);
    return at != 0 && n == at;
}

void mem_fail_after(uint64_t n)
{
    atomic_store(&fail_at, n ? atomic_load(&made) + n : 0);
}

uint64_t mem_allocations(void)
{
    return atomic_load(&made);
}
#else
void mem_fail_after(uint64_t n)
{
    (void)n;
}

uint64_t mem_allocations(void)
{
    return 0;
}
#endif

void *mem_alloc(size_t size)
{
    return mem_fails() ? NULL : malloc(size);
}

void *mem_calloc(size_t n, size_t size)
{
    return mem_fails() ? NULL : calloc(n, size);
}

void *mem_realloc(void *p, size_t size)
{
    return mem_fails() ? NULL : realloc(p, size);
}

char *mem_strdup(const char *s)
{
    return mem_fails() ? NULL : strdup(s);
}
