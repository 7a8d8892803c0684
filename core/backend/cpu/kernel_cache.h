/*
 * kernel_cache.h — compiled CPU kernels: in memory per context, on disk
 * across processes, compiled when neither has them.
 *
 * Key (cache_store.h): the kernel source, the kernel ABI and the compiler
 * command with its flags.  Disk: DIR/KEY.so, sealed (cache_file.h) in the
 * cache folder (cache_folder.h).  A kernel is compiled in a fresh private
 * folder inside the cache folder (the compiler writes by path), read back
 * without following links, sealed, written to an exclusive temporary
 * file and renamed into place.  A cached file is verified from one open
 * descriptor before anything maps it, and that descriptor's inode is what
 * is loaded (kernel_load.h); after loading, the exported string
 * `accel_kernel_abi` must still be "<ABI>:<KEY>".  A file failing a check
 * is removed and the kernel compiled again.
 *
 * In memory: every cache_get takes a reference for the program; the
 * program's cache_release gives it back.  A kernel no program uses stays
 * loaded among the CACHE_IDLE_MAX most recently released, then is
 * unloaded (dlclose).
 */
#ifndef ACC_CORE_BACKEND_CPU_KERNEL_CACHE_H
#define ACC_CORE_BACKEND_CPU_KERNEL_CACHE_H

#include "core/backend/cpu/toolchain.h"
#include "core/cache/cache_store.h"
#include "core/backend/cpu/kernel_load.h"

typedef struct cache_entry {
    char key[CACHE_KEY_LEN + 1];
    void (*run)(void);    /* accel_kernel_run */
    void (*part)(void);   /* accel_kernel_part, when exported */
    void (*finish)(void); /* accel_kernel_finish, when exported */
    void (*block)(void);  /* accel_kernel_block, when exported */
    /* the cache's bookkeeping (under its lock) */
    cache_dl *dl;
    unsigned refs;       /* programs using it */
    uint64_t released;   /* when refs last dropped to 0 */
    struct cache_entry *next;
} cache_entry;

typedef struct kcache kcache;

/* A cache over folder `dir` (NULL: the default); NULL after recording
 * out of memory on d. */
kcache *cache_create(const char *dir, diag *d);
/* Unloads every kernel (no program may use them any more). */
void cache_destroy(kcache *c);

/* The key of a kernel source compiled by toolchain `tc`. */
void cache_key(const char *source, const cpu_toolchain *tc,
               char key[CACHE_KEY_LEN + 1]);

/* The loaded kernel for `source`: from memory, else disk, else compiled,
 * with a reference the caller gives back with cache_release.  `how` (may
 * be NULL) is incremented for the way it was found.  Thread-safe.  Errors
 * are ACC_ERR_COMPILE. */
acc_status cache_get(kcache *c, const cpu_toolchain *tc, const char *source,
                     const cache_entry **out, cache_stats *how, diag *d);
/* Another symbol of a loaded kernel (user kernels export a pointer to
 * their function; foreign/user_kernel.c), or NULL. */
void *cache_entry_symbol(const cache_entry *e, const char *name);
/* Gives back a reference of cache_get.  NULL-safe. */
void cache_release(kcache *c, const cache_entry *e);

/* The folder's note (cache_folder.h) into buf ("" when none). */
void cache_note(kcache *c, char *buf, size_t size);
/* The folder new kernels go to and its note, malloc'd
 * (cache_folder_report): ACC_OK or the error recorded on d. */
acc_status cache_report(kcache *c, char **dir, char **note, diag *d);
/* Kernels loaded in this cache now, used or recently released (tests). */
size_t cache_loaded(kcache *c);

#endif
