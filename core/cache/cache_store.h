/*
 * cache_store.h — what every on-disk kernel cache shares, whatever the
 * files hold (CPU shared objects: kernel_cache.c; CUDA cubins and PTX:
 * core/backend/cuda/modules.c).
 *
 *  - Keys: 128 bits, two independent 64-bit hashes (FNV-1a, and a
 *    multiply-rotate hash finished by the splitmix64 mixer) of a sequence
 *    of texts (each followed by a separator), written as 32 hex digits.
 *  - The folder: acc_context_options.cache_dir, else $XDG_CACHE_HOME/accel,
 *    else ~/.cache/accel, created on first use; a private temporary folder,
 *    removed by cache_folder_free, when none of those can be created.
 *  - Atomic publication: a file is written (or compiled) under a name
 *    unique to the process and the call, then rename()d to its final name,
 *    so other processes see the old file, no file, or the whole new one.
 *  - Verification helpers: an ELF file whose section header table lies
 *    beyond its end is truncated.
 */
#ifndef ACC_CORE_CACHE_CACHE_STORE_H
#define ACC_CORE_CACHE_CACHE_STORE_H

#include "core/base/diag.h"
#include "core/base/strbuf.h"

#include <stddef.h>
#include <stdint.h>

enum { CACHE_KEY_LEN = 32 };

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

typedef struct cache_folder {
    char *option;  /* the folder asked for, or NULL */
    char *dir;     /* the folder in use, once resolved */
    int temporary; /* dir is ours: removed by cache_folder_free */
} cache_folder;

/* 0 when out of memory. */
int cache_folder_init(cache_folder *f, const char *option);
/* Creates the folder on first use; 0 after recording ACC_ERR_COMPILE. */
int cache_folder_resolve(cache_folder *f, diag *d);
void cache_folder_free(cache_folder *f);

/* DIR/KEY.<pid>.<n>.SUFFIX: a name no other process or call uses. */
void cache_temp_path(const cache_folder *f, const char *key,
                     const char *suffix, char *buf, size_t size);
/* rename(tmp, path); 0 after recording ACC_ERR_COMPILE. */
int cache_publish(const char *tmp, const char *path, diag *d);
/* Writes n bytes to a temporary name and publishes them as `path`. */
int cache_write_atomic(const cache_folder *f, const char *key,
                       const char *path, const void *bytes, size_t n,
                       diag *d);
/* The whole file, malloc'd (with a NUL after it); 0 when unreadable. */
int cache_read_file(const char *path, unsigned char **bytes, size_t *n);
/* Whether an ELF image of file_size bytes, whose first n bytes are
 * `head`, holds its whole section header table. */
int cache_elf_complete(const unsigned char *head, size_t n,
                       uint64_t file_size);

/* A program's kernels and cache figures appended to its plan's
 * description: a line "BACKEND: N kernels compiled, ..." or (json) a
 * member "BACKEND":{...} added to the object in b. */
void cache_describe(strbuf *b, const char *backend, size_t kernels,
                    size_t host_steps, size_t interpreted,
                    const cache_stats *s, int json);

/* Seconds on the monotonic clock (compile timings). */
double cache_now(void);

#endif
