/*
 * kernel_cache.h — compiled kernels: in memory per context, on disk across
 * processes, compiled when neither has them.
 *
 * Key (cache_store.h): the kernel source, the kernel ABI and the compiler
 * command with its flags.  Disk layout: DIR/KEY.so in the cache folder
 * (cache_store.h).  A kernel is compiled to a temporary name and
 * rename()d into place, so readers never see half a file.  Each object
 * exports `accel_kernel_abi` = "<ABI>:<KEY>", checked after dlopen; a
 * truncated, corrupt or foreign file is ignored and rebuilt.
 */
#ifndef ACC_CORE_CACHE_KERNEL_CACHE_H
#define ACC_CORE_CACHE_KERNEL_CACHE_H

#include "core/backend/cpu/toolchain.h"
#include "core/cache/cache_store.h"

typedef struct cache_entry {
    char key[CACHE_KEY_LEN + 1];
    void *handle; /* dlopen */
    void (*run)(void);    /* accel_kernel_run */
    void (*part)(void);   /* accel_kernel_part, when exported */
    void (*finish)(void); /* accel_kernel_finish, when exported */
    void (*block)(void);  /* accel_kernel_block, when exported */
    struct cache_entry *next;
} cache_entry;

typedef struct kcache kcache;

/* A cache over folder `dir` (NULL: the default); NULL when out of memory. */
kcache *cache_create(const char *dir);
/* Unloads every kernel (no program may use them any more). */
void cache_destroy(kcache *c);

/* The key of a kernel source compiled by toolchain `tc`. */
void cache_key(const char *source, const cpu_toolchain *tc,
               char key[CACHE_KEY_LEN + 1]);

/* The loaded kernel for `source`: from memory, else disk, else compiled.
 * `how` (may be NULL) is incremented for the way it was found.  Entries
 * live as long as the cache.  Thread-safe.  Errors are ACC_ERR_COMPILE. */
acc_status cache_get(kcache *c, const cpu_toolchain *tc, const char *source,
                     const cache_entry **out, cache_stats *how, diag *d);

/* The folder in use ("" before the first compile). */
const char *cache_dir(const kcache *c);

#endif
