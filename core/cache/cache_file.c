/*
 * cache_file.c — sealing, publishing and verifying cached files (see
 * cache_file.h).
 */
#include "core/cache/cache_file.h"
#include "core/base/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEAL_MAGIC "accel-seal-v1"

/* The seal of payload[0..n) for key (CACHE_SEAL_LEN bytes and a NUL). */
static void make_seal(const cache_folder *f, const char *key,
                      const unsigned char *payload, size_t n,
                      char seal[CACHE_SEAL_LEN + 1])
{
    unsigned char len[8], mac[CACHE_MAC_LEN];
    cache_mac m;
    for (int i = 0; i < 8; i++)
        len[i] = (unsigned char)((uint64_t)n >> (8 * i));
    cache_mac_init(&m, f->secret);
    cache_mac_add(&m, SEAL_MAGIC, sizeof SEAL_MAGIC);
    cache_mac_add(&m, key, strlen(key) + 1);
    cache_mac_add(&m, len, sizeof len);
    cache_mac_add(&m, payload, n);
    cache_mac_finish(&m, mac);
    int at = snprintf(seal, CACHE_SEAL_LEN + 1, "\n" SEAL_MAGIC " %.32s %016"
                      PRIx64 " ", key, (uint64_t)n);
    for (int i = 0; i < CACHE_MAC_LEN; i++, at += 2)
        snprintf(seal + at, 3, "%02x", mac[i]);
    snprintf(seal + at, 2, "\n");
}

/* Whether file[0..size) is a payload followed by its valid seal; *n the
 * payload's length.  The comparison takes the same time wherever the
 * seals differ. */
static int verify(const cache_folder *f, const char *key,
                  const unsigned char *file, size_t size, size_t *n)
{
    char want[CACHE_SEAL_LEN + 1];
    if (size < CACHE_SEAL_LEN || strlen(key) != 32)
        return 0;
    *n = size - CACHE_SEAL_LEN;
    make_seal(f, key, file, *n, want);
    unsigned diff = 0;
    for (size_t i = 0; i < CACHE_SEAL_LEN; i++)
        diff |= (unsigned)(file[*n + i] ^ (unsigned char)want[i]);
    return diff == 0;
}

/* ---- reading ------------------------------------------------------------------------ */

static int read_all(int fd, unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        got += (size_t)r;
    }
    return 1;
}

/* Removes entry `name` if it is still the inode `was` describes (another
 * process may have renamed a good file over it meanwhile). */
static void remove_if_same(int at, const char *name, const struct stat *was)
{
    struct stat now;
    if (fstatat(at, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
        now.st_dev == was->st_dev && now.st_ino == was->st_ino)
        cache_folder_remove(at, name);
}

/* The whole of regular file fd (st its fstat) if it is ours, not writable
 * by others and not too large; NULL otherwise. */
static unsigned char *read_owned(int fd, const struct stat *st)
{
    if (!S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
        (st->st_mode & (S_IWGRP | S_IWOTH)) || st->st_size <= 0 ||
        st->st_size > CACHE_FILE_MAX)
        return NULL;
    unsigned char *buf = mem_alloc((size_t)st->st_size + 1);
    if (buf && !read_all(fd, buf, (size_t)st->st_size)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* 1 verified (see cache_file_open), 0 absent or rejected. */
static int open_in(const cache_folder *f, int at, const char *name,
                   const char *key, unsigned char **payload, size_t *n,
                   int *fd_out)
{
    struct stat lst, st;
    if (fstatat(at, name, &lst, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    int fd = -1;
    unsigned char *buf = NULL;
    if (S_ISREG(lst.st_mode)) /* never open a FIFO, device or link */
        fd = openat(at, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == lst.st_dev &&
        st.st_ino == lst.st_ino)
        buf = read_owned(fd, &st);
    if (buf && verify(f, key, buf, (size_t)st.st_size, n)) {
        buf[*n] = '\0';
        *payload = buf;
        if (fd_out)
            *fd_out = fd;
        else
            close(fd);
        return 1;
    }
    free(buf);
    if (fd >= 0)
        close(fd);
    remove_if_same(at, name, &lst);
    return 0;
}

int cache_file_open(const cache_folder *f, const char *name, const char *key,
                    unsigned char **payload, size_t *n, int *fd)
{
    int fds[2];
    int k = cache_folder_lookup_fds(f, fds);
    *payload = NULL;
    *n = 0;
    if (fd)
        *fd = -1;
    for (int i = 0; i < k; i++)
        if (open_in(f, fds[i], name, key, payload, n, fd))
            return 1;
    return 0;
}

/* ---- writing ------------------------------------------------------------------------ */

static int write_all(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, (const char *)buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return 0;
        }
        done += (size_t)w;
    }
    return 1;
}

/* An exclusive new file in folder `at`: its name in tmp. */
static int create_exclusive(int at, char *tmp)
{
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 16; attempt++) {
        cache_folder_temp_name(tmp, ".part");
        fd = openat(at, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

/* Renames tmp to name in `at`; an entry that is in the way and cannot be
 * replaced (a folder) is removed first. */
static int rename_into_place(int at, const char *tmp, const char *name)
{
    if (renameat(at, tmp, at, name) == 0)
        return 1;
    if (errno != EISDIR && errno != ENOTEMPTY && errno != EEXIST)
        return 0;
    cache_folder_remove(at, name);
    return renameat(at, tmp, at, name) == 0;
}

/* Writes the sealed file into folder `at`; 0 with *err on failure. */
static int write_sealed(const cache_folder *f, int at, const char *name,
                        const char *key, const void *payload, size_t n,
                        int *fd_out, int *err)
{
    char tmp[CACHE_TEMP_NAME_MAX], seal[CACHE_SEAL_LEN + 1];
    int fd = cache_folder_writes_fail(f, at) ? -1 : create_exclusive(at, tmp);
    if (fd < 0) {
        *err = errno;
        return 0;
    }
    make_seal(f, key, payload, n, seal);
    if (!write_all(fd, payload, n) || !write_all(fd, seal, CACHE_SEAL_LEN) ||
        fsync(fd) != 0) {
        *err = errno;
        close(fd);
        unlinkat(at, tmp, 0);
        return 0;
    }
    if (!rename_into_place(at, tmp, name))
        unlinkat(at, tmp, 0); /* still usable through fd */
    if (fd_out)
        *fd_out = fd;
    else
        close(fd);
    return 1;
}

int cache_file_publish(cache_folder *f, const char *name, const char *key,
                       const void *payload, size_t n, int *fd, diag *d)
{
    int err = 0;
    if (fd)
        *fd = -1;
    if (write_sealed(f, cache_folder_write_fd(f), name, key, payload, n, fd,
                     &err))
        return 1;
    if (cache_folder_write_error(err) && cache_folder_fallback(f, err) &&
        write_sealed(f, cache_folder_write_fd(f), name, key, payload, n, fd,
                     &err))
        return 1;
    diag_fail(d, ACC_ERR_COMPILE, "kernel cache: cannot write %s in %s: %s",
              name, cache_folder_write_dir(f), strerror(err));
    return 0;
}
