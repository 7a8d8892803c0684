/*
 * outfile.c — checked, atomic replacement of output files (see outfile.h).
 *
 * The temporary file is ".NAME.accel-XXXXXXXX" in the target's folder, so
 * that the final rename never crosses a file system and a file left by a
 * killed process is hidden and recognisable.  It is created with O_EXCL:
 * this module never opens, truncates or removes a path it did not create.
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int fail(char *err, size_t err_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && err_size)
        vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

/* --- paths ------------------------------------------------------------------ */

/* The file name part of a path (after the last '/'). */
static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The folder part of a path, allocated: "." for "a.npy", "/" for "/a". */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(n ? n + 1 : 2);
    if (!dir)
        return NULL;
    if (n)
        memcpy(dir, path, n);
    else
        dir[n++] = '.';
    dir[n] = '\0';
    return dir;
}

/* "a folder", "a character device", ... for a mode that is not a regular
 * file. */
static const char *kind_of(mode_t mode)
{
    return S_ISDIR(mode)    ? "a folder"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISLNK(mode)  ? "a symbolic link"
                            : "not a regular file";
}

/* --- checking ----------------------------------------------------------------- */

/* The folder that will hold the temporary file must let us create it;
 * checked now so that a long run is not wasted. */
static int check_folder(const char *target, const char *what, char *err,
                        size_t err_size)
{
    char *dir = folder_of(target);
    struct stat st;
    int rc = 0;
    if (!dir)
        return fail(err, err_size, "out of memory");
    if (stat(dir, &st) != 0)
        rc = fail(err, err_size, "cannot %s: its folder does not exist (%s)",
                  what, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        rc = fail(err, err_size, "cannot %s: its folder is not a folder",
                  what);
    else if (access(dir, W_OK | X_OK) != 0)
        rc = fail(err, err_size, "cannot %s: cannot create files in its "
                  "folder (%s)", what, strerror(errno));
    free(dir);
    return rc;
}

static void remember(outfile *out, const struct stat *st)
{
    out->dev = st->st_dev;
    out->ino = st->st_ino;
    out->mode = st->st_mode;
    out->uid = st->st_uid;
    out->gid = st->st_gid;
}

/* An existing path: a regular file, or a symbolic link to one. */
static int check_existing(outfile *out, const struct stat *st, char *err,
                          size_t err_size)
{
    struct stat to = *st;
    if (S_ISLNK(st->st_mode)) {
        if (stat(out->name, &to) != 0)
            return fail(err, err_size, "is a symbolic link to a missing or "
                        "unreachable file (%s); outputs are written only to "
                        "regular files", strerror(errno));
        if (!S_ISREG(to.st_mode))
            return fail(err, err_size, "is a symbolic link to %s, not a "
                        "regular file; outputs are written only to regular "
                        "files", kind_of(to.st_mode));
        if (!(out->target = realpath(out->name, NULL)))
            return fail(err, err_size, "cannot follow the symbolic link: %s",
                        strerror(errno));
    } else if (!S_ISREG(st->st_mode)) {
        return fail(err, err_size, "is %s, not a regular file; outputs are "
                    "written only to regular files", kind_of(st->st_mode));
    } else if (!(out->target = strdup(out->name))) {
        return fail(err, err_size, "out of memory");
    }
    out->exists = 1;
    remember(out, &to);
    return check_folder(out->target, "replace it", err, err_size);
}

/* A path that does not exist yet: its folder must. */
static int check_new(outfile *out, char *err, size_t err_size)
{
    char *dir = folder_of(out->name);
    struct stat st;
    if (!dir || !(out->target = strdup(out->name))) {
        free(dir);
        return fail(err, err_size, "out of memory");
    }
    int rc = stat(dir, &st);
    free(dir);
    if (rc == 0)
        remember(out, &st); /* the folder's identity, with the name */
    return check_folder(out->target, "create", err, err_size);
}

int outfile_check(const char *name, outfile *out, char *err, size_t err_size)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    if (!*name)
        return fail(err, err_size, "empty file name");
    if (name[strlen(name) - 1] == '/')
        return fail(err, err_size, "names a folder (it ends with '/'), not "
                    "a file");
    if (!(out->name = strdup(name)))
        return fail(err, err_size, "out of memory");
    if (lstat(name, &st) == 0)
        return check_existing(out, &st, err, err_size);
    if (errno != ENOENT)
        return fail(err, err_size, "cannot create: %s", strerror(errno));
    return check_new(out, err, err_size);
}

int outfile_same(const outfile *a, const outfile *b)
{
    if (a->exists != b->exists || a->dev != b->dev || a->ino != b->ino)
        return 0;
    return a->exists || strcmp(base_of(a->target), base_of(b->target)) == 0;
}

/* --- staging -------------------------------------------------------------------- */

/* A fresh candidate name for the temporary file of `target`. */
static char *temp_name(const char *target, unsigned attempt)
{
    static unsigned long counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long r = (unsigned long)getpid() * 2654435761u ^
                      (unsigned long)ts.tv_nsec * 40503u ^
                      (unsigned long)ts.tv_sec ^ ++counter * 97u ^ attempt;
    char *dir = folder_of(target);
    const char *base = base_of(target);
    size_t keep = strlen(base);
    if (keep > 64) { /* stay far below NAME_MAX, on a UTF-8 boundary */
        keep = 64;
        while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80)
            keep--;
    }
    size_t size = (dir ? strlen(dir) : 0) + keep + 32;
    char *name = dir ? malloc(size) : NULL;
    if (name)
        snprintf(name, size, "%s/.%.*s.accel-%08lx", dir, (int)keep, base,
                 r & 0xFFFFFFFFul);
    free(dir);
    return name;
}

/* Creates the temporary file exclusively; its name goes to f->temp.
 * Returns the descriptor or -1 (errno set). */
static int create_temp(outfile *f)
{
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        char *name = temp_name(f->target, attempt);
        if (!name) {
            errno = ENOMEM;
            return -1;
        }
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            f->temp = name;
            return fd;
        }
        int e = errno;
        free(name);
        errno = e;
        if (e != EEXIST)
            return -1;
    }
    return -1; /* errno is EEXIST */
}

/* Removes the temporary file: the one path this module may remove, since
 * create_temp made it with O_EXCL. */
static void drop_temp(outfile *f)
{
    if (f->temp)
        unlink(f->temp);
    free(f->temp);
    f->temp = NULL;
}

static int write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len > (size_t)INT_MAX ? (size_t)INT_MAX
                                                       : len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* A replaced file keeps its permission bits and, where allowed (root, or
 * a group of ours), its owner and group: failing to keep the owner is not
 * an error, as when any program saves a file by renaming. */
static int keep_mode(int fd, const outfile *f)
{
    if ((f->uid != geteuid() || f->gid != getegid()) &&
        fchown(fd, f->uid, f->gid) != 0 && fchown(fd, (uid_t)-1, f->gid) != 0)
        errno = 0; /* the new file stays ours */
    return fchmod(fd, f->mode & 07777);
}

int outfile_stage(outfile *f, const void *const *pieces, const size_t *lens,
                  size_t n, char *err, size_t err_size)
{
    int e = 0;
    if (f->temp)
        return fail(err, err_size, "already staged");
    int fd = create_temp(f);
    if (fd < 0)
        return fail(err, err_size, "cannot create a temporary file next to "
                    "it: %s", strerror(errno));
    for (size_t i = 0; i < n && !e; i++)
        if (lens[i] && write_all(fd, pieces[i], lens[i]) != 0)
            e = errno;
    if (!e && f->exists && keep_mode(fd, f) != 0)
        e = errno;
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        drop_temp(f);
        return fail(err, err_size, "cannot write: %s", strerror(e));
    }
    return 0;
}

/* --- committing ------------------------------------------------------------------ */

/* Makes the rename durable; a folder that cannot be synced (some file
 * systems refuse) leaves the rename done, so errors are not reported. */
static void sync_folder(const char *target)
{
    char *dir = folder_of(target);
    int fd = dir ? open(dir, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        if (fsync(fd) != 0)
            errno = 0;
        close(fd);
    }
    free(dir);
}

int outfile_commit(outfile *f, char *err, size_t err_size)
{
    struct stat st;
    if (!f->temp)
        return fail(err, err_size, "nothing was staged");
    /* the target may have changed since it was checked: never rename over
     * a device, a folder or a link that has taken its place */
    if (lstat(f->target, &st) == 0 && !S_ISREG(st.st_mode)) {
        drop_temp(f);
        return fail(err, err_size, "not written: it is now %s, not a "
                    "regular file", kind_of(st.st_mode));
    }
    if (rename(f->temp, f->target) != 0) {
        int e = errno;
        drop_temp(f);
        return fail(err, err_size, "cannot replace it: %s", strerror(e));
    }
    free(f->temp);
    f->temp = NULL;
    sync_folder(f->target);
    return 0;
}

void outfile_discard(outfile *f)
{
    if (!f)
        return;
    drop_temp(f);
    free(f->target);
    free(f->name);
    memset(f, 0, sizeof *f);
}
