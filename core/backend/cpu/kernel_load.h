/*
 * kernel_load.h — dlopen of a verified shared object through its open
 * descriptor, never through its path.
 *
 * The cache verifies a kernel's file from a descriptor (cache_file.h);
 * loading the same path again would load whatever the name points at by
 * then.  So the loader opens "/proc/self/fd/N", which is the verified
 * inode.  glibc knows loaded objects by the name they were opened with
 * and returns an already loaded object for a name it knows, and
 * descriptor numbers are reused; so this module, process-wide:
 *   - loads each inode (device, inode number) once, with a reference
 *     count (kernel caches of several contexts share it);
 *   - gives every live object its own name: "/proc/self/fd/N" or an
 *     equivalent spelling "/proc/self/fd/../fd/N" (K times "/fd/..") that
 *     no live object has, with N moved to another descriptor number (a
 *     dup) when those run out, and asks glibc first (RTLD_NOLOAD) that
 *     it knows no object by that name;
 *   - shares the object glibc answers with when that object is the very
 *     file (its mapping in /proc/self/maps: device and inode): glibc
 *     knows objects by their file too, so a file that another copy of
 *     this library in the process loaded, or that anyone dlopen'ed by
 *     path, has no free name at all (tests/unit/cache/test_cache_load.c);
 *   - gives up with an error after MAX_NUMBERS descriptor numbers.
 * Without /proc (not Linux, or not mounted) the caller's path is loaded
 * instead, and the gap between verification and loading is back; the
 * folder is private, so only this user could use it.
 */
#ifndef ACC_CORE_BACKEND_CPU_KERNEL_LOAD_H
#define ACC_CORE_BACKEND_CPU_KERNEL_LOAD_H

#include "core/base/diag.h"

#include <stddef.h>

typedef struct cache_dl cache_dl;

/* Loads (RTLD_NOW | RTLD_LOCAL) the shared object open on fd; `path` is
 * only the fallback described above.  NULL after recording why on d:
 * ACC_ERR_COMPILE with dlerror's text, or out of host memory. */
cache_dl *cache_dl_open(int fd, const char *path, diag *d);
/* dlsym in the object. */
void *cache_dl_symbol(const cache_dl *h, const char *name);
/* Drops one reference; the last one dlclose's the object.  NULL-safe. */
void cache_dl_close(cache_dl *h);
/* Objects loaded now, process-wide (tests). */
size_t cache_dl_loaded(void);

#endif
