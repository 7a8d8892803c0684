/*
 * mem.c — the library's allocator and its failure injection (see mem.h).
 */
#include "core/base/mem.h"

#include <stdlib.h>
#include <string.h>

#ifdef ACC_ALLOC_FAIL
#include <stdatomic.h>

static _Atomic uint64_t made;      /* allocations so far */
static _Atomic uint64_t made_bytes; /* the bytes they asked for */
static _Atomic uint64_t fail_at;   /* the one to fail, 0: none */
/* mem_record_sites: where the sites are written, from allocation base */
static void **_Atomic site_buf;
static _Atomic uint64_t site_base, site_cap;
/* Whether a failure is armed or sites are recorded: the one branch of
 * every allocation when neither is (the counts are all that is left;
 * read relaxed: a test arms it before the allocations it watches). */
static atomic_int watching;

static void set_watching(void)
{
    atomic_store(&watching, atomic_load(&fail_at) != 0 ||
                                atomic_load(&site_buf) != NULL);
}

/* The slow path of fails_at: allocation n, from `site`. */
static int fails_watched(uint64_t n, void *site)
{
    void **buf = atomic_load(&site_buf);
    uint64_t k = n - atomic_load(&site_base) - 1;
    if (buf && k < atomic_load(&site_cap))
        buf[k] = site; /* each k is one allocation's: one writer */
    uint64_t at = atomic_load(&fail_at);
    return at != 0 && n == at;
}

/* Counts an allocation made from `site` (the code that called the
 * allocator) and says whether it is to fail. */
static int fails_at(void *site)
{
    uint64_t n = atomic_fetch_add_explicit(&made, 1, memory_order_relaxed) + 1;
    if (__builtin_expect(atomic_load_explicit(&watching,
                                              memory_order_relaxed), 0))
        return fails_watched(n, site);
    return 0;
}

int mem_fails_at(void *site)
{
    return fails_at(site);
}

void mem_record_sites(void **sites, uint64_t cap)
{
    atomic_store(&site_buf, NULL);
    atomic_store(&site_base, atomic_load(&made));
    atomic_store(&site_cap, cap);
    atomic_store(&site_buf, sites);
    set_watching();
}

#define FAILS() fails_at(__builtin_return_address(0))

void mem_fail_after(uint64_t n)
{
    atomic_store(&fail_at, n ? atomic_load(&made) + n : 0);
    set_watching();
}

uint64_t mem_allocations(void)
{
    return atomic_load(&made);
}

uint64_t mem_allocated_bytes(void)
{
    return atomic_load(&made_bytes);
}

#define COUNT_BYTES(n) \
    atomic_fetch_add_explicit(&made_bytes, (uint64_t)(n), memory_order_relaxed)
#else
void mem_fail_after(uint64_t n)
{
    (void)n;
}

uint64_t mem_allocations(void)
{
    return 0;
}

void mem_record_sites(void **sites, uint64_t cap)
{
    (void)sites;
    (void)cap;
}

uint64_t mem_allocated_bytes(void)
{
    return 0;
}

#define FAILS() 0
#define COUNT_BYTES(n) ((void)(n))
#endif

void *mem_alloc(size_t size)
{
    COUNT_BYTES(size);
    return FAILS() ? NULL : malloc(size);
}

void *mem_calloc(size_t n, size_t size)
{
    COUNT_BYTES(n * size);
    return FAILS() ? NULL : calloc(n, size);
}

void *mem_realloc(void *p, size_t size)
{
    COUNT_BYTES(size);
    return FAILS() ? NULL : realloc(p, size);
}

char *mem_strdup(const char *s)
{
    COUNT_BYTES(strlen(s) + 1);
    return FAILS() ? NULL : strdup(s);
}
