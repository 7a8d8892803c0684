/*
 * outfile.h — the files the accel tool writes, replaced atomically.
 *
 * An output is checked before anything runs (outfile_check), then written
 * into a temporary file created exclusively in the target's own folder
 * (outfile_stage: written completely and fsync'ed), and only then renamed
 * over the target (outfile_commit).  Until the rename the target is left
 * exactly as it was; on any failure the temporary file is removed
 * (outfile_discard).  The only paths this module ever removes are the
 * temporary files it created itself.
 *
 * Targets:
 *  - a missing file is created (its folder must exist), with the mode a new
 *    file gets (0666 & ~umask);
 *  - an existing regular file is replaced by a new file with the same
 *    permission bits (and, where the system allows it, owner and group);
 *    other hard links to it keep the old contents;
 *  - a symbolic link to a regular file is followed: the file it points to
 *    (at the end of the chain) is replaced, in that file's folder, and the
 *    link stays a link; a link to something missing or special is refused;
 *  - anything else (a folder, a device such as /dev/null, a FIFO, a
 *    socket) is refused: it is never opened, written or removed.
 */
#ifndef ACC_TOOLS_OUTFILE_H
#define ACC_TOOLS_OUTFILE_H

#include <stddef.h>
#include <sys/types.h>

typedef struct outfile {
    char *name;     /* the path as given, for messages                     */
    char *target;   /* the path replaced (name, or where its links lead)   */
    char *temp;     /* the staged temporary file, or NULL                  */
    int exists;     /* whether the target existed when it was checked      */
    dev_t dev;      /* identity: the target's, or when it does not exist   */
    ino_t ino;      /* yet, its folder's (then with the file name)         */
    mode_t mode;    /* an existing target's mode, owner and group          */
    uid_t uid;
    gid_t gid;
} outfile;

/* Checks that `name` can be written as an output and fills *out (free it
 * with outfile_discard).  Refused: an empty name, a name ending in '/', a
 * target that is not a regular file (also through symbolic links), a
 * missing folder, a folder that cannot be written.  Returns 0, or -1 with
 * a sentence in err (no file name at its start). */
int outfile_check(const char *name, outfile *out, char *err, size_t err_size);

/* Whether two checked outputs name the same file: the same device and
 * inode when it exists (hard links, symbolic links, "a.npy" and
 * "./a.npy"), the same folder and file name when it does not. */
int outfile_same(const outfile *a, const outfile *b);

/* Creates the temporary file (O_EXCL, in the target's folder) and writes
 * the n pieces (pieces[i] of lens[i] bytes) into it, then fsyncs it.
 * Returns 0, or -1 with a sentence in err and no temporary file left. */
int outfile_stage(outfile *f, const void *const *pieces, const size_t *lens,
                  size_t n, char *err, size_t err_size);

/* Renames the staged file over the target, after checking that the target
 * is still a regular file or absent; then syncs the folder.  Returns 0, or
 * -1 with a sentence in err (the temporary file removed, the target as it
 * was). */
int outfile_commit(outfile *f, char *err, size_t err_size);

/* Removes the staged temporary file if there is one and frees the
 * strings; NULL-safe, and safe to call twice. */
void outfile_discard(outfile *f);

#endif /* ACC_TOOLS_OUTFILE_H */
