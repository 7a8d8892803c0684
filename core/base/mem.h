/*
 * mem.h — the library's allocator: every allocation accel makes goes
 * through these (malloc, calloc, realloc and strdup with the same
 * contracts; memory is released with free()), arena chunks and arena
 * allocations included, so that a test can make any one of them fail.
 *
 * Allocation-failure injection (as SQLite tests it): in a build
 * configured with -DACC_ALLOC_FAIL=ON, mem_fail_after(n) makes the n-th
 * allocation from then on return NULL (n = 0: none fails), and
 * mem_allocations() counts allocations, so a test can run a piece of
 * work once to count them and then once per n, checking that each
 * failure is reported as ACC_ERR_OUT_OF_HOST_MEMORY, leaks nothing and
 * leaves the handles usable (tests/unit/test_alloc_fail.c).  In other
 * builds the counting and the hook are compiled out.
 */
#ifndef ACC_CORE_BASE_MEM_H
#define ACC_CORE_BASE_MEM_H

#include <stddef.h>
#include <stdint.h>

void *mem_alloc(size_t size);
void *mem_calloc(size_t n, size_t size);
void *mem_realloc(void *p, size_t size);
char *mem_strdup(const char *s);
/* Whether the allocation being made is to fail (arena_alloc asks: its
 * allocations come from chunks, which mem_alloc would rarely see).  The
 * site recorded (mem_record_sites) is the caller of the function that
 * asks. */
#ifdef ACC_ALLOC_FAIL
int mem_fails_at(void *site);
#define mem_fails() mem_fails_at(__builtin_return_address(0))
#else
static inline int mem_fails(void)
{
    return 0;
}
#endif

/* Injection (ACC_ALLOC_FAIL builds; elsewhere they do nothing and
 * mem_allocations returns 0).  The counter and the target are process
 * wide and atomic. */
void mem_fail_after(uint64_t n);
uint64_t mem_allocations(void);
/* The bytes the allocations asked for so far (arena allocations: their
 * chunks'), so that a test can see what one run allocates. */
uint64_t mem_allocated_bytes(void);
/* Records, for each allocation from now on, its site (the return address
 * into the code that called the allocator, or arena_alloc's caller):
 * sites[k] for the k-th (from 0), while k < cap; NULL stops recording.
 * So a test can try the first allocation of every site, not only a
 * sample of the allocations (tests/unit/test_alloc_fail.c). */
void mem_record_sites(void **sites, uint64_t cap);

#endif
