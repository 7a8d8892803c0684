/*
 * kernel_cache.c — see kernel_cache.h.  One mutex per cache serialises
 * lookups and compiles, so two threads asking for one kernel compile it
 * once; different processes race only on rename(), which is atomic, and
 * each compiles in a folder of its own.
 */
#include "core/backend/cpu/kernel_cache.h"

#include "core/backend/cpu/kernel_abi.h"
#include "core/base/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct kcache {
    pthread_mutex_t lock;
    cache_folder folder;
    cache_entry *entries; /* in use and recently released */
    size_t idle;          /* entries no program uses */
    uint64_t clock;       /* counts releases: the LRU order */
};

void cache_key(const char *source, const cpu_toolchain *tc,
               char key[CACHE_KEY_LEN + 1])
{
    cache_hash h;
    cache_hash_init(&h);
    cache_hash_text(&h, CPU_KERNEL_ABI);
    cache_hash_text(&h, tc->desc);
    cache_hash_text(&h, source);
    cache_hash_key(&h, key);
}

/* ---- the cache object ----------------------------------------------------------- */

kcache *cache_create(const char *dir, diag *d)
{
    kcache *c = mem_calloc(1, sizeof *c);
    if (!c) {
        diag_oom(d, "the kernel cache");
        return NULL;
    }
    if (cache_folder_init(&c->folder, dir, d) != ACC_OK) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void unload(cache_entry *e)
{
    cache_dl_close(e->dl);
    free(e);
}

void cache_destroy(kcache *c)
{
    if (!c)
        return;
    while (c->entries) {
        cache_entry *e = c->entries;
        c->entries = e->next;
        unload(e);
    }
    cache_folder_free(&c->folder);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

void cache_note(kcache *c, char *buf, size_t size)
{
    pthread_mutex_lock(&c->lock);
    snprintf(buf, size, "%s", c->folder.note);
    pthread_mutex_unlock(&c->lock);
}

acc_status cache_report(kcache *c, char **dir, char **note, diag *d)
{
    pthread_mutex_lock(&c->lock);
    cache_folder_report(&c->folder, dir, note, d);
    pthread_mutex_unlock(&c->lock);
    return d->status;
}

size_t cache_loaded(kcache *c)
{
    size_t n = 0;
    pthread_mutex_lock(&c->lock);
    for (const cache_entry *e = c->entries; e; e = e->next)
        n++;
    pthread_mutex_unlock(&c->lock);
    return n;
}

/* ---- loading ---------------------------------------------------------------------- */

static void (*symbol(const cache_dl *h, const char *name))(void)
{
    void (*fn)(void) = NULL;
    void *sym = cache_dl_symbol(h, name);
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

/* Loads the verified object open on fd and checks its exported key;
 * NULL after recording why it does not load on d (ACC_ERR_COMPILE, or out
 * of host memory). */
static cache_entry *load(int fd, const char *path, const char *key, diag *d)
{
    char want[128];
    cache_dl *h = cache_dl_open(fd, path, d);
    if (!h)
        return NULL;
    const char *abi = cache_dl_symbol(h, "accel_kernel_abi");
    snprintf(want, sizeof want, "%s:%s", CPU_KERNEL_ABI, key);
    cache_entry *e = NULL;
    if (!abi || strcmp(abi, want) != 0)
        diag_fail(d, ACC_ERR_COMPILE, "it does not export accel_kernel_abi "
                  "\"%s\"", want);
    else if (!(e = mem_calloc(1, sizeof *e)))
        diag_oom(d, "kernel cache");
    else {
        snprintf(e->key, sizeof e->key, "%s", key);
        e->dl = h;
        e->run = symbol(h, "accel_kernel_run");
        e->part = symbol(h, "accel_kernel_part");
        e->finish = symbol(h, "accel_kernel_finish");
        e->block = symbol(h, "accel_kernel_block");
        if (!e->run)
            diag_fail(d, ACC_ERR_COMPILE, "it does not export "
                      "accel_kernel_run");
    }
    if (!e || !e->run) {
        free(e);
        cache_dl_close(h);
        return NULL;
    }
    return e;
}

/* The kernel from its sealed file, when one verifies and loads (one that
 * does not is compiled again: not an error). */
static cache_entry *from_disk(kcache *c, const char *name, const char *key)
{
    char path[4200];
    unsigned char *image = NULL;
    size_t n = 0;
    int fd = -1;
    diag ignored;
    diag_clear(&ignored);
    if (!cache_file_open(&c->folder, name, key, &image, &n, &fd))
        return NULL;
    int complete = cache_elf_complete(image, n, n);
    free(image);
    snprintf(path, sizeof path, "%s/%s", cache_folder_write_dir(&c->folder),
             name);
    cache_entry *e = complete ? load(fd, path, key, &ignored) : NULL;
    close(fd);
    return e;
}

/* ---- compiling ---------------------------------------------------------------------- */

/* The source with the exported key appended, as file `name` of folder
 * dfd (a new file: never one planted there). */
static int write_source(int dfd, const char *name, const char *source,
                        const char *key)
{
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                    O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    int ok = fputs(source, f) >= 0 &&
             fprintf(f, "\nACC_EXPORT const char accel_kernel_abi[] = "
                     "\"%s:%s\";\n", CPU_KERNEL_ABI, key) > 0;
    int err = errno;
    if (fclose(f) != 0)
        return 0;
    errno = err;
    return ok;
}

/* The object the compiler wrote as `name` in folder dfd: a regular file
 * of ours, read whole.  NULL when it is anything else. */
static unsigned char *read_object(int dfd, const char *name, size_t *n)
{
    struct stat st;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    unsigned char *buf = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid() && st.st_size > 0 &&
        st.st_size <= CACHE_FILE_MAX &&
        (buf = mem_alloc((size_t)st.st_size + 1)) != NULL) {
        size_t got = 0;
        ssize_t r = 1;
        while (got < (size_t)st.st_size && r > 0)
            if ((r = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
                got += (size_t)r;
        *n = got;
        if (got != (size_t)st.st_size || !cache_elf_complete(buf, got, got)) {
            free(buf);
            buf = NULL;
        }
    }
    if (fd >= 0)
        close(fd);
    return buf;
}

/* Whether the folder at `path` has no free blocks (a compiler that
 * failed there may have failed for that). */
static int folder_full(const char *path)
{
    struct statvfs s;
    return statvfs(path, &s) == 0 && s.f_bavail == 0;
}

/* Compiles in private folder `sub` (descriptor dfd) of the write folder:
 * 1 with the object in *image; 0 after recording the compiler's failure;
 * -1 when the folder could not take the files (*err). */
static int compile_there(kcache *c, const cpu_toolchain *tc,
                         const char *source, const char *key, const char *sub,
                         int dfd, unsigned char **image, size_t *n, int *err,
                         diag *d)
{
    char src[4200], so[4200];
    diag cc; /* the compiler's failure, dropped when the folder is full */
    const char *dir = cache_folder_write_dir(&c->folder);
    snprintf(src, sizeof src, "%s/%s/kernel.c", dir, sub);
    snprintf(so, sizeof so, "%s/%s/kernel.so", dir, sub);
    if (!write_source(dfd, "kernel.c", source, key)) {
        *err = errno;
        return -1;
    }
    diag_clear(&cc);
    if (cpu_compile(tc, src, so, &cc) != ACC_OK) {
        if (folder_full(dir)) {
            *err = ENOSPC;
            return -1;
        }
        diag_fail(d, cc.status, "compiling a CPU kernel: %s", cc.message);
        return 0;
    }
    if (!(*image = read_object(dfd, "kernel.so", n)))
        diag_fail(d, ACC_ERR_COMPILE, "compiling a CPU kernel: the C compiler "
                  "did not leave a complete shared object in %s", so);
    return *image ? 1 : 0;
}

/* One attempt in the current write folder (see compile_there). */
static int compile_once(kcache *c, const cpu_toolchain *tc,
                        const char *source, const char *key,
                        unsigned char **image, size_t *n, int *err, diag *d)
{
    char sub[CACHE_TEMP_NAME_MAX];
    int dfd, at = cache_folder_write_fd(&c->folder);
    if (!cache_folder_mkdtemp(&c->folder, sub, &dfd)) {
        *err = errno;
        return -1;
    }
    int r = compile_there(c, tc, source, key, sub, dfd, image, n, err, d);
    close(dfd);
    cache_folder_remove(at, sub);
    return r;
}

/* The compiled object, from the cache folder or, when that cannot take
 * the files, from a private temporary one. */
static int compile(kcache *c, const cpu_toolchain *tc, const char *source,
                   const char *key, unsigned char **image, size_t *n, diag *d)
{
    int err = 0;
    *image = NULL;
    int r = compile_once(c, tc, source, key, image, n, &err, d);
    if (r < 0 && cache_folder_write_error(err) &&
        cache_folder_fallback(&c->folder, err))
        r = compile_once(c, tc, source, key, image, n, &err, d);
    if (r < 0)
        diag_fail(d, ACC_ERR_COMPILE, "kernel cache: cannot write in %s: %s",
                  cache_folder_write_dir(&c->folder), strerror(err));
    return r > 0;
}

static cache_entry *from_compiler(kcache *c, const cpu_toolchain *tc,
                                  const char *source, const char *name,
                                  const char *key, cache_stats *how, diag *d)
{
    char path[4200];
    unsigned char *image = NULL;
    size_t n = 0;
    int fd = -1;
    diag why;
    diag_clear(&why);
    double start = cache_now();
    if (!compile(c, tc, source, key, &image, &n, d))
        return NULL;
    int ok = cache_file_publish(&c->folder, name, key, image, n, &fd, d);
    free(image);
    if (!ok)
        return NULL;
    how->compiled++;
    how->compile_seconds += cache_now() - start;
    snprintf(path, sizeof path, "%s/%s", cache_folder_write_dir(&c->folder),
             name);
    cache_entry *e = load(fd, path, key, &why);
    close(fd);
    if (!e && why.status == ACC_ERR_OUT_OF_HOST_MEMORY)
        diag_oom(d, "kernel cache");
    else if (!e)
        diag_fail(d, ACC_ERR_COMPILE, "kernel cache: %s was compiled but does "
                  "not load: %s", path, why.message);
    return e;
}

/* ---- the table in memory ------------------------------------------------------------ */

static cache_entry *find(const kcache *c, const char *key)
{
    cache_entry *e = c->entries;
    while (e && strcmp(e->key, key) != 0)
        e = e->next;
    return e;
}

/* Unloads the least recently released kernels beyond CACHE_IDLE_MAX. */
static void trim(kcache *c)
{
    while (c->idle > CACHE_IDLE_MAX) {
        cache_entry **oldest = NULL;
        for (cache_entry **p = &c->entries; *p; p = &(*p)->next)
            if ((*p)->refs == 0 &&
                (!oldest || (*p)->released < (*oldest)->released))
                oldest = p;
        cache_entry *e = *oldest;
        *oldest = e->next;
        c->idle--;
        unload(e);
    }
}

acc_status cache_get(kcache *c, const cpu_toolchain *tc, const char *source,
                     const cache_entry **out, cache_stats *how, diag *d)
{
    char key[CACHE_KEY_LEN + 1], name[CACHE_KEY_LEN + 4];
    cache_stats ignored = {0, 0, 0, 0.0};
    if (!how)
        how = &ignored;
    *out = NULL;
    cache_key(source, tc, key);
    snprintf(name, sizeof name, "%s.so", key);
    pthread_mutex_lock(&c->lock);
    cache_entry *e = find(c, key);
    if (e) {
        how->memory_hits++;
        c->idle -= e->refs == 0;
    } else if (cache_folder_resolve(&c->folder, d) == ACC_OK) {
        if ((e = from_disk(c, name, key)) != NULL)
            how->disk_hits++;
        else
            e = from_compiler(c, tc, source, name, key, how, d);
        if (e) {
            e->next = c->entries;
            c->entries = e;
        }
    }
    if (e)
        e->refs++;
    pthread_mutex_unlock(&c->lock);
    *out = e;
    return e ? ACC_OK : d->status;
}

void *cache_entry_symbol(const cache_entry *e, const char *name)
{
    return cache_dl_symbol(e->dl, name);
}

void cache_release(kcache *c, const cache_entry *entry)
{
    if (!entry)
        return;
    pthread_mutex_lock(&c->lock);
    cache_entry *e = c->entries;
    while (e && e != entry)
        e = e->next;
    if (e && e->refs > 0 && --e->refs == 0) {
        e->released = ++c->clock;
        c->idle++;
        trim(c);
    }
    pthread_mutex_unlock(&c->lock);
}
