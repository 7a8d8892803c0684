/*
 * cache_store.h — what every kernel cache shares, whatever the files hold
 * (CPU shared objects: kernel_cache.c; CUDA cubins and PTX:
 * core/backend/cuda/modules.c).
 *
 *  - Keys: 128 bits, two independent 64-bit hashes (FNV-1a, and a
 *    multiply-rotate hash finished by the splitmix64 mixer) of a sequence
 *    of texts (each followed by a separator), written as 32 hex digits.
 *    A key names a file; it proves nothing about it (anyone can compute
 *    it): what a file holds is trusted only through its seal.
 *  - The folder and its checks: cache_folder.h; sealed files:
 *    cache_file.h.
 *  - In memory, loaded kernels are counted by the programs that use
 *    them; the last program freed moves a kernel to a list of at most
 *    CACHE_IDLE_MAX recently freed ones (least recently used first out,
 *    unloaded), so the memory a context keeps is bounded by what its live
 *    programs use.
 *  - Verification helpers: an ELF file whose section header table lies
 *    beyond its end is truncated.
 */
#ifndef ACC_CORE_CACHE_CACHE_STORE_H
#define ACC_CORE_CACHE_CACHE_STORE_H

#include "core/base/diag.h"
#include "core/base/strbuf.h"
#include "core/cache/cache_file.h"
#include "core/cache/cache_folder.h"

#include <stddef.h>
#include <stdint.h>

enum { CACHE_KEY_LEN = 32, CACHE_IDLE_MAX = 16 };

typedef struct cache_stats {
    uint64_t memory_hits, disk_hits, compiled;
    double compile_seconds;
} cache_stats;

typedef struct cache_hash {
    uint64_t h1, h2;
} cache_hash;

void cache_hash_init(cache_hash *h);
/* Adds one text (and a separator, so "ab","c" differs from "a","bc"). */
void cache_hash_text(cache_hash *h, const char *text);
void cache_hash_key(const cache_hash *h, char key[CACHE_KEY_LEN + 1]);

/* Whether an ELF image of file_size bytes, whose first n bytes are
 * `head`, holds its whole section header table. */
int cache_elf_complete(const unsigned char *head, size_t n,
                       uint64_t file_size);

/* A program's kernels and cache figures appended to its plan's
 * description: a line "BACKEND: N kernels compiled, ..." or (json) a
 * member "BACKEND":{...} added to the object in b.  A non-empty note
 * (the cache folder's, cache_folder.h) follows: a line "BACKEND: NOTE",
 * or a member "cache_note" in the backend's object.  json_extra (NULL:
 * none) is more members of the backend's object, already JSON ("a":1). */
void cache_describe(strbuf *b, const char *backend, size_t kernels,
                    size_t host_steps, size_t interpreted,
                    const cache_stats *s, const char *note, int json,
                    const char *json_extra);

/* Seconds on the monotonic clock (compile timings). */
double cache_now(void);

#endif
