/*
 * cache_folder.c — opening a kernel cache folder safely, its secret, the
 * fallback to a private temporary folder, temporary names and the sweep
 * of leftovers (see cache_folder.h).
 */
#include "core/cache/cache_folder.h"
#include "core/base/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static atomic_int fail_writes;

void cache_folder_fail_writes(int err)
{
    atomic_store(&fail_writes, err);
}

int cache_folder_writes_fail(const cache_folder *f, int fd)
{
    int err = atomic_load(&fail_writes);
    if (err == 0 || fd == f->tmp_fd)
        return 0;
    errno = err;
    return 1;
}

int cache_folder_write_error(int err)
{
    return err == EACCES || err == EPERM || err == EROFS || err == ENOSPC ||
           err == EDQUOT;
}

/* ---- random names --------------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* n bytes from the kernel's generator; should it fail (it does not on
 * Linux >= 3.17), a mix of the clock, the process and a counter: names
 * then stay unique (they are created with O_EXCL anyway), only less
 * unpredictable. */
static void random_bytes(unsigned char *buf, size_t n)
{
    static atomic_ulong counter;
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(buf + got, n - got, 0);
        if (r > 0)
            got += (size_t)r;
        else if (r < 0 && errno != EINTR)
            break;
    }
    if (got == n)
        return;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t s = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 30) ^
                 ((uint64_t)getpid() << 16) ^ atomic_fetch_add(&counter, 1);
    for (size_t i = 0; i < n; i++) {
        s = mix64(s + 0x9e3779b97f4a7c15u);
        buf[i] = (unsigned char)s;
    }
}

void cache_folder_temp_name(char *buf, const char *suffix)
{
    unsigned char r[8];
    random_bytes(r, sizeof r);
    snprintf(buf, CACHE_TEMP_NAME_MAX,
             CACHE_TEMP_PREFIX "%02x%02x%02x%02x%02x%02x%02x%02x%.8s", r[0],
             r[1], r[2], r[3], r[4], r[5], r[6], r[7], suffix);
}

/* ---- checking a path, one component at a time ------------------------------------ */

/* Why a folder is refused, recorded on a scratch diag: the caller makes
 * it the note, or the error when no folder is left (cache_folder_resolve). */
#define REFUSE(why, ...) diag_fail((why), ACC_ERR_COMPILE, __VA_ARGS__)

/* An ancestor of the cache folder: only root or this user may change it
 * (a folder others can write, like /tmp, is fine with the sticky bit:
 * they cannot rename or remove what is ours in it). */
static acc_status check_ancestor(const struct stat *st, const char *path,
                                 diag *why)
{
    uid_t me = geteuid();
    if (st->st_uid != 0 && st->st_uid != me)
        return REFUSE(why, "its parent folder %s is owned by uid %u, neither "
                      "root nor this user (uid %u)", path,
                      (unsigned)st->st_uid, (unsigned)me);
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
        return REFUSE(why, "its parent folder %s is writable by group or "
                      "others (mode %04o) without the sticky bit", path,
                      (unsigned)(st->st_mode & 07777));
    return ACC_OK;
}

/* The cache folder itself, or a component we created: ours and private. */
static acc_status check_own(const struct stat *st, const char *path,
                            diag *why)
{
    uid_t me = geteuid();
    if (!S_ISDIR(st->st_mode))
        return REFUSE(why, "%s is not a folder", path);
    if (st->st_uid != me)
        return REFUSE(why, "%s is owned by uid %u, not by this user (uid %u)",
                      path, (unsigned)st->st_uid, (unsigned)me);
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return REFUSE(why, "%s is writable by group or others (mode %04o)",
                      path, (unsigned)(st->st_mode & 07777));
    return ACC_OK;
}

/* Opens component `name` of folder `at` as a folder, creating it (0700)
 * when missing; never follows a symbolic link when nofollow.  -1 with
 * errno on failure. */
static int open_component(int at, const char *name, int nofollow,
                          int *created)
{
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
    int fd = openat(at, name, flags);
    *created = 0;
    if (fd >= 0 || errno != ENOENT)
        return fd;
    if (mkdirat(at, name, 0700) == 0)
        *created = 1;
    else if (errno != EEXIST)
        return -1;
    return openat(at, name, flags | O_NOFOLLOW);
}

/* Why component `name` of `at` could not be opened as a folder. */
static acc_status open_failure(int at, const char *name, const char *path,
                               int err, diag *why)
{
    struct stat st;
    if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode))
        return REFUSE(why, "%s is a symbolic link", path);
    if (err == ENOTDIR)
        return REFUSE(why, "%s is not a folder", path);
    return REFUSE(why, "%s cannot be opened or created: %s", path,
                  strerror(err));
}

/* The next component of *p (skipping slashes) into comp; 0 at the end. */
static int next_component(const char **p, char *comp, size_t size)
{
    while (**p == '/')
        ++*p;
    size_t len = strcspn(*p, "/");
    if (len == 0)
        return 0;
    snprintf(comp, size, "%.*s", (int)len, *p);
    *p += len;
    while (**p == '/')
        ++*p;
    return 1;
}

/* Opens folder `path` as described in cache_folder.h: ACC_OK with *out;
 * otherwise the refusal recorded on why. */
static acc_status open_private(const char *path, int *out, diag *why)
{
    char prefix[4096], comp[256];
    struct stat st;
    const char *p = path;
    int cur = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY |
                   O_CLOEXEC);
    snprintf(prefix, sizeof prefix, "%s", path[0] == '/' ? "" : ".");
    if (cur < 0 || fstat(cur, &st) != 0) {
        REFUSE(why, "cannot open %s: %s", path[0] == '/' ? "/" : ".",
               strerror(errno));
        if (cur >= 0)
            close(cur);
        return why->status;
    }
    int ok = 1, mine = 0, any = 0;
    while (ok && next_component(&p, comp, sizeof comp)) {
        int last = *p == '\0', created = 0;
        ok = check_ancestor(&st, prefix[0] ? prefix : "/", why) == ACC_OK;
        int shared = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
        size_t at = strlen(prefix);
        snprintf(prefix + at, sizeof prefix - at, "/%s", comp);
        int next = ok ? open_component(cur, comp, last || shared, &created)
                      : -1;
        if (ok && (next < 0 || fstat(next, &st) != 0)) {
            open_failure(cur, comp, prefix, errno, why);
            ok = 0;
        }
        close(cur);
        cur = next;
        mine = last || created;
        any = 1;
        if (ok && created && check_own(&st, prefix, why) != ACC_OK)
            ok = 0;
    }
    if (ok && (mine || !any))
        ok = check_own(&st, any ? prefix : path, why) == ACC_OK;
    if (!ok) {
        if (cur >= 0)
            close(cur);
        return why->status;
    }
    *out = cur;
    return ACC_OK;
}

/* ---- the secret -------------------------------------------------------------------- */

static int read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        got += (size_t)r;
    }
    return 1;
}

/* 1 read, 0 absent, -1 present but not a private regular file of ours
 * holding exactly a key. */
static int read_secret(int dirfd, unsigned char *secret)
{
    struct stat st;
    if (fstatat(dirfd, CACHE_SECRET_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISREG(st.st_mode))
        return -1;
    int fd = openat(dirfd, CACHE_SECRET_NAME, O_RDONLY | O_NOFOLLOW |
                    O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
             st.st_uid == geteuid() && !(st.st_mode & 077) &&
             st.st_size == CACHE_MAC_KEY_LEN &&
             read_full(fd, secret, CACHE_MAC_KEY_LEN);
    close(fd);
    return ok ? 1 : -1;
}

static int write_full(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, (const char *)buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return 0;
        done += (size_t)w;
    }
    return 1;
}

/* A new secret, written whole under a temporary name and linked to its
 * name, which fails when another process got there first: 1 created, 0
 * lost that race, -1 on an error (*err its errno). */
static int create_secret(int dirfd, unsigned char *secret, int *err)
{
    char tmp[CACHE_TEMP_NAME_MAX];
    random_bytes(secret, CACHE_MAC_KEY_LEN);
    cache_folder_temp_name(tmp, ".key");
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                    O_CLOEXEC, 0600);
    if (fd < 0) {
        *err = errno;
        return -1;
    }
    int r = write_full(fd, secret, CACHE_MAC_KEY_LEN) && fsync(fd) == 0 ? 1
                                                                         : -1;
    *err = r < 0 ? errno : 0;
    close(fd);
    if (r > 0 && linkat(dirfd, tmp, dirfd, CACHE_SECRET_NAME, 0) != 0) {
        r = errno == EEXIST ? 0 : -1;
        *err = errno;
    }
    unlinkat(dirfd, tmp, 0);
    return r;
}

static acc_status load_secret(int dirfd, unsigned char *secret, diag *why)
{
    int err = 0;
    for (int attempt = 0; attempt < 4; attempt++) {
        int r = read_secret(dirfd, secret);
        if (r > 0)
            return ACC_OK;
        if (r < 0) { /* damaged or planted: a new one seals from now on */
            unlinkat(dirfd, CACHE_SECRET_NAME, 0);
            continue;
        }
        r = create_secret(dirfd, secret, &err);
        if (r > 0)
            return ACC_OK;
        if (r < 0)
            return REFUSE(why, "its secret %s cannot be created: %s",
                          CACHE_SECRET_NAME, strerror(err));
    }
    return REFUSE(why, "its secret %s is not a private file of this user and "
                  "cannot be replaced", CACHE_SECRET_NAME);
}

/* ---- removing, and the sweep of leftovers -------------------------------------------- */

/* A listing of folder fd from its start (a duplicate descriptor shares
 * the offset, so it is rewound); NULL on failure. */
static DIR *open_listing(int fd)
{
    int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d && dup_fd >= 0)
        close(dup_fd);
    if (d)
        rewinddir(d);
    return d;
}

/* Removes the entries of folder fd; folders among them (to `depth`
 * levels) with their contents.  Links are removed, never followed. */
static void remove_entries(int fd, int depth)
{
    DIR *d = open_listing(fd);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (depth > 0 &&
            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(st.st_mode))
            cache_folder_remove(fd, e->d_name);
        else
            unlinkat(fd, e->d_name, 0);
    }
    closedir(d);
}

void cache_folder_remove(int dirfd, const char *name)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlinkat(dirfd, name, 0);
        return;
    }
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                    O_CLOEXEC);
    if (fd >= 0) {
        remove_entries(fd, 0);
        close(fd);
    }
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Temporary files and folders left by a process that died before it
 * renamed or removed them.  The age keeps a compile in progress in
 * another process safe. */
static void sweep_stale(int fd)
{
    DIR *d = open_listing(fd);
    if (!d)
        return;
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        struct stat st;
        if (strncmp(e->d_name, CACHE_TEMP_PREFIX,
                    sizeof CACHE_TEMP_PREFIX - 1) == 0 &&
            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            st.st_mtime < now - CACHE_STALE_SECONDS)
            cache_folder_remove(fd, e->d_name);
    }
    closedir(d);
}

/* ---- the folder ---------------------------------------------------------------------- */

acc_status cache_folder_init(cache_folder *f, const char *option, diag *d)
{
    memset(f, 0, sizeof *f);
    f->fd = f->tmp_fd = -1;
    if (option && !(f->option = mem_strdup(option)))
        return diag_oom(d, "the kernel cache");
    return ACC_OK;
}

void cache_folder_free(cache_folder *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->tmp_fd >= 0) {
        remove_entries(f->tmp_fd, 1);
        close(f->tmp_fd);
        rmdir(f->tmp);
    }
    free(f->tmp);
    free(f->dir);
    free(f->option);
    memset(f, 0, sizeof *f);
    f->fd = f->tmp_fd = -1;
}

/* The folder asked for into buf (4096 bytes), or NULL when there is
 * none to name: no option, and neither XDG_CACHE_HOME nor HOME. */
static const char *folder_asked(const cache_folder *f, char *buf)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (f->option)
        return f->option;
    if (xdg && *xdg == '/')
        snprintf(buf, 4096, "%s/accel", xdg);
    else if (home && *home)
        snprintf(buf, 4096, "%s/.cache/accel", home);
    else
        return NULL;
    return buf;
}

/* A private temporary folder in $TMPDIR, else /tmp: ACC_OK, or why not
 * recorded on why (the last base's reason; out of memory: diag_oom). */
static acc_status make_temporary(cache_folder *f, diag *why)
{
    const char *tmpdir = getenv("TMPDIR");
    const char *bases[2] = {tmpdir && *tmpdir == '/' ? tmpdir : "/tmp",
                            "/tmp"};
    for (int i = 0; i < 2; i++) {
        char path[4096];
        int fd;
        diag_clear(why); /* the last base's reason is the one reported */
        snprintf(path, sizeof path, "%s/accel-cache-XXXXXX", bases[i]);
        if (!mkdtemp(path)) {
            REFUSE(why, "cannot create a folder in %s: %s", bases[i],
                   strerror(errno));
            continue;
        }
        if (open_private(path, &fd, why) != ACC_OK) {
            rmdir(path);
            continue;
        }
        if ((f->tmp = mem_strdup(path)) != NULL) {
            f->tmp_fd = fd;
            return ACC_OK;
        }
        diag_oom(why, "the kernel cache's temporary folder");
        close(fd);
        rmdir(path);
    }
    return why->status;
}

acc_status cache_folder_resolve(cache_folder *f, diag *d)
{
    char buf[4096];
    diag why, tmp_why; /* refusals (REFUSE): a note unless nothing is left */
    if (f->resolved && f->fd < 0 && f->tmp_fd < 0) /* refused before */
        return diag_fail(d, ACC_ERR_COMPILE, "kernel cache: no folder can be "
                         "used (refused when first needed)");
    if (f->resolved)
        return ACC_OK;
    const char *named = folder_asked(f, buf);
    if (named && !(f->dir = mem_strdup(named)))
        return diag_oom(d, "the kernel cache"); /* resolved on a next try */
    f->resolved = 1;
    int fd = -1;
    diag_clear(&why);
    diag_clear(&tmp_why);
    if (!f->dir)
        REFUSE(&why, "neither XDG_CACHE_HOME nor HOME names a folder");
    else if (open_private(f->dir, &fd, &why) == ACC_OK) {
        if (load_secret(fd, f->secret, &why) == ACC_OK) {
            f->fd = fd;
            sweep_stale(fd);
            return ACC_OK;
        }
        close(fd);
    }
    random_bytes(f->secret, sizeof f->secret);
    const char *asked = f->dir ? f->dir : "the default kernel cache";
    if (make_temporary(f, &tmp_why) != ACC_OK)
        return diag_fail(d, ACC_ERR_COMPILE, "kernel cache: %s is refused "
                         "(%s), and no private temporary folder can be made: "
                         "%s", asked, why.message, tmp_why.message);
    snprintf(f->note, sizeof f->note, "kernel cache %s refused: %.600s; "
             "kernels are compiled in the private temporary folder %s for "
             "this context", asked, why.message, f->tmp);
    return ACC_OK;
}

int cache_folder_fallback(cache_folder *f, int err)
{
    diag why; /* no temporary folder: the write error stands */
    diag_clear(&why);
    if (f->tmp_fd >= 0 || make_temporary(f, &why) != ACC_OK)
        return 0;
    snprintf(f->note, sizeof f->note, "kernel cache %s cannot be written "
             "(%s); new kernels are compiled in the private temporary "
             "folder %s for this context", f->dir, strerror(err), f->tmp);
    return 1;
}

acc_status cache_folder_report(cache_folder *f, char **dir, char **note,
                               diag *d)
{
    *dir = *note = NULL;
    if (cache_folder_resolve(f, d) != ACC_OK)
        return d->status;
    if (!(*dir = mem_strdup(cache_folder_write_dir(f))) ||
        !(*note = mem_strdup(f->note))) {
        free(*dir);
        *dir = NULL;
        return diag_oom(d, "the cache folder");
    }
    return ACC_OK;
}

int cache_folder_write_fd(const cache_folder *f)
{
    return f->tmp_fd >= 0 ? f->tmp_fd : f->fd;
}

const char *cache_folder_write_dir(const cache_folder *f)
{
    return f->tmp_fd >= 0 ? f->tmp : f->dir;
}

int cache_folder_lookup_fds(const cache_folder *f, int fds[2])
{
    int n = 0;
    if (f->fd >= 0)
        fds[n++] = f->fd;
    if (f->tmp_fd >= 0)
        fds[n++] = f->tmp_fd;
    return n;
}

int cache_folder_mkdtemp(const cache_folder *f, char *name, int *fd)
{
    int at = cache_folder_write_fd(f);
    struct stat st;
    *fd = -1;
    if (cache_folder_writes_fail(f, at))
        return 0;
    int made = 0;
    for (int attempt = 0; !made && attempt < 16; attempt++) {
        cache_folder_temp_name(name, ".d");
        made = mkdirat(at, name, 0700) == 0;
        if (!made && errno != EEXIST)
            return 0;
    }
    if (!made)
        return 0;
    *fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*fd >= 0 && fstat(*fd, &st) == 0 && st.st_uid == geteuid() &&
        !(st.st_mode & 077))
        return 1;
    int err = *fd >= 0 ? EPERM : errno;
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    errno = err;
    return 0;
}
