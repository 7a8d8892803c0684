/*
 * cache_file.h — sealed files in a kernel cache folder: how they are
 * written, and what is checked before their contents are used.
 *
 * A cached file is its payload (a shared object, a CUDA module record)
 * followed by a seal of CACHE_SEAL_LEN bytes:
 *     "\naccel-seal-v1 KEY LENGTH MAC\n"
 * KEY the 32 hex digits of the cache key, LENGTH the payload's bytes (16
 * hex digits), MAC (32 hex digits) the SipHash-2-4-128 (cache_mac.h),
 * keyed by the folder's secret (cache_folder.h), of "accel-seal-v1", the
 * key, the length and the payload.  A shared object keeps working with
 * the seal after it: the loader reads only what its headers point at.
 *
 * Writing: an exclusive temporary file (O_CREAT|O_EXCL|O_NOFOLLOW|
 * O_CLOEXEC, mode 0600, a random name) in the write folder, written
 * whole, fsync'ed, then renamed over its final name: readers see the old
 * file, no file, or the whole new one; a symbolic link planted anywhere
 * is never written through.  A folder that cannot take it (read-only,
 * full) makes the cache fall back to a private temporary folder
 * (cache_folder_fallback) and the file is written there.
 *
 * Reading: the entry is checked with fstatat (no link followed), opened
 * with O_NOFOLLOW|O_NONBLOCK (a FIFO or device named like a kernel never
 * blocks and is never read), and must be a regular file owned by this
 * user, not writable by others, at most CACHE_FILE_MAX bytes, whose seal
 * verifies.  The caller gets the payload read from that descriptor and,
 * if it asks, the descriptor itself, so what it uses is the inode that
 * was verified, not whatever the name points at a moment later.  An
 * entry that fails any check is removed (when it is still the same
 * inode), so the next compile replaces it.
 */
#ifndef ACC_CORE_CACHE_CACHE_FILE_H
#define ACC_CORE_CACHE_CACHE_FILE_H

#include "core/base/diag.h"
#include "core/cache/cache_folder.h"

#include <stddef.h>

enum {
    CACHE_SEAL_LEN = 98,
    CACHE_FILE_MAX = 256 << 20
};

/* Looks `name` up in the cache's folders (cache_folder_lookup_fds, in
 * order) and verifies it for `key` as described above.  1 with the
 * payload in *payload (malloc'd, a NUL after it) and *n, and, when fd is
 * not NULL, *fd open on the verified file (the caller closes it); 0 when
 * no valid file exists (rejected ones removed). */
int cache_file_open(const cache_folder *f, const char *name, const char *key,
                    unsigned char **payload, size_t *n, int *fd);

/* Seals n bytes of payload for `key` and publishes them as `name` in the
 * write folder, falling back to a private temporary folder when the
 * folder cannot take them.  1 on success, with *fd (when fd is not NULL)
 * open on the file written (usable even if a stubborn entry kept it
 * from its name); 0 after recording ACC_ERR_COMPILE on d. */
int cache_file_publish(cache_folder *f, const char *name, const char *key,
                       const void *payload, size_t n, int *fd, diag *d);

#endif
