/*
 * cache_folder.h — the folder of an on-disk kernel cache, and what makes
 * it safe to load code from it.
 *
 * The folder asked for is acc_context_options.cache_dir, else
 * $XDG_CACHE_HOME/accel, else ~/.cache/accel.  It is walked one component
 * at a time with openat (each one checked with fstat on the open
 * descriptor); missing components are created with mode 0700.  It is
 * used only when
 *   - every ancestor is owned by root or by this user, and is not
 *     writable by group or others unless it has the sticky bit (/tmp);
 *     below a folder others can write, no component may be a symbolic
 *     link;
 *   - the folder itself is not a symbolic link (O_NOFOLLOW), is owned by
 *     this user and is not writable by group or others;
 *   - its secret (below) can be read or created.
 * Otherwise it is refused: kernels are compiled in a private temporary
 * folder (mkdtemp: $TMPDIR or /tmp, mode 0700, checked the same way,
 * removed by cache_folder_free) and `note` says why.  A folder that turns
 * out read-only or full (EACCES, EPERM, EROFS, ENOSPC, EDQUOT) when a
 * file is written is kept for lookups while new files go to such a
 * temporary folder (cache_folder_fallback), with a note too.
 *
 * Every operation on the folder goes through its descriptor (openat,
 * mkdirat, renameat, unlinkat); only the C compiler is given paths, and
 * those lie in a fresh private folder inside it (cache_folder_mkdtemp).
 *
 * The secret: 16 random bytes in DIR/secret.key (mode 0600, created once
 * with an exclusive temporary file and link(), so concurrent processes
 * agree on one).  Every cached file is sealed with a MAC keyed by it
 * (cache_file.h): a file that someone without the secret wrote, even
 * under a valid key and with a valid layout, never verifies.  A
 * temporary folder's secret lives in memory only.
 *
 * Temporary names (files and folders) are "tmp-" and 16 random hex
 * digits; the ones left by a process that died mid-compile are removed,
 * once they are older than CACHE_STALE_SECONDS, when a folder is opened.
 */
#ifndef ACC_CORE_CACHE_CACHE_FOLDER_H
#define ACC_CORE_CACHE_CACHE_FOLDER_H

#include "core/base/diag.h"
#include "core/cache/cache_mac.h"

#include <stddef.h>

enum {
    CACHE_NOTE_MAX = 1024,
    CACHE_TEMP_NAME_MAX = 40,
    CACHE_STALE_SECONDS = 3600
};

#define CACHE_TEMP_PREFIX "tmp-"
#define CACHE_SECRET_NAME "secret.key"

typedef struct cache_folder {
    char *option;        /* the folder asked for, or NULL (the default) */
    char *dir;           /* the folder asked for, once resolved (or NULL
                            when it could not even be named) */
    int fd;              /* dir opened O_DIRECTORY, or -1 when refused */
    char *tmp;           /* the private temporary folder, once needed */
    int tmp_fd;          /* tmp opened O_DIRECTORY, or -1 */
    int resolved;
    unsigned char secret[CACHE_MAC_KEY_LEN];
    char note[CACHE_NOTE_MAX]; /* "" or why dir is not written to */
} cache_folder;

/* ACC_OK, or out of memory recorded on d (f can be freed either way). */
acc_status cache_folder_init(cache_folder *f, const char *option, diag *d);
/* Opens (creating, checking) the folder on first use, falling back to a
 * private temporary folder as described above: ACC_OK, or
 * ACC_ERR_COMPILE recorded on d when not even a temporary folder can be
 * made (out of memory naming the folder: diag_oom, and the next call
 * tries again).  A refused folder is a note, not an error. */
acc_status cache_folder_resolve(cache_folder *f, diag *d);
/* Closes the folders; removes the temporary one. */
void cache_folder_free(cache_folder *f);

/* The folder new kernels go to and the note ("" when none), both
 * malloc'd, for reports (acc_context_kernel_cache); resolves the folder
 * first.  ACC_OK, or the error recorded on d (out of memory, no
 * folder). */
acc_status cache_folder_report(cache_folder *f, char **dir, char **note,
                               diag *d);

/* Whether errno value err means "this folder cannot take new files":
 * read-only, not permitted, full or over quota. */
int cache_folder_write_error(int err);
/* After a write error err in the folder asked for: new files go to a
 * private temporary folder from now on, and the note says why.  0 when
 * they already did (nothing to fall back to) or no temporary folder can
 * be made. */
int cache_folder_fallback(cache_folder *f, int err);

/* The folder new files go to, as a descriptor and as a path. */
int cache_folder_write_fd(const cache_folder *f);
const char *cache_folder_write_dir(const cache_folder *f);
/* The folders looked in, in order (the one asked for, then the
 * temporary one): *fds gets up to two descriptors; returns how many. */
int cache_folder_lookup_fds(const cache_folder *f, int fds[2]);

/* A fresh name "tmp-<16 random hex digits><suffix>" (buf of at least
 * CACHE_TEMP_NAME_MAX bytes; suffix at most 8 characters). */
void cache_folder_temp_name(char *buf, const char *suffix);
/* Creates a private folder (0700, a fresh temporary name) inside the
 * write folder: *fd opened on it, its name in name (CACHE_TEMP_NAME_MAX
 * bytes).  0 with errno set on failure. */
int cache_folder_mkdtemp(const cache_folder *f, char *name, int *fd);
/* Removes entry `name` of folder dirfd (a folder: its files first, one
 * level; symbolic links are removed, never followed). */
void cache_folder_remove(int dirfd, const char *name);

/* Test hook: while err is not 0, creating a file or folder in a cache
 * folder that is not a temporary one fails with errno err (ENOSPC: a
 * full disk).  Process-wide. */
void cache_folder_fail_writes(int err);
/* Whether writes into fd must fail (the hook above); sets errno. */
int cache_folder_writes_fail(const cache_folder *f, int fd);

#endif
