/*
 * kernel_load.c — loading verified shared objects by descriptor (see
 * kernel_load.h).  One process-wide list under one mutex: loads happen at
 * compile time, a handful per program, next to a compiler run.
 */
#include "core/backend/cpu/kernel_load.h"
#include "core/base/mem.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cache_dl {
    dev_t dev;
    ino_t ino;
    void *handle;
    int number, spelling; /* the name it was loaded by (name_of) */
    unsigned refs;
    struct cache_dl *next;
};

enum { MAX_SPELLINGS = 32, NAME_MAX_LEN = 64 + 6 * MAX_SPELLINGS };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cache_dl *loaded;
static size_t n_loaded;

/* "/proc/self" + spelling times "/fd/.." + "/fd/<number>". */
static void name_of(int number, int spelling, char *buf, size_t n)
{
    size_t at = (size_t)snprintf(buf, n, "/proc/self");
    for (int i = 0; i < spelling && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "/fd/..");
    if (at < n)
        snprintf(buf + at, n - at, "/fd/%d", number);
}

/* Whether a live object is known to glibc by that name: one of ours, or
 * one glibc answers for without loading. */
static int name_taken(int number, int spelling)
{
    char name[NAME_MAX_LEN];
    for (const cache_dl *h = loaded; h; h = h->next)
        if (h->number == number && h->spelling == spelling)
            return 1;
    name_of(number, spelling, name, sizeof name);
    void *other = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (other)
        dlclose(other);
    return other != NULL;
}

/* dlopen of fd's inode under a name no live object has. */
static void *load_by_descriptor(int fd, cache_dl *h, diag *d)
{
    char name[NAME_MAX_LEN];
    int number = fd, extra = -1;
    void *handle = NULL;
    for (;;) {
        int s = 0;
        while (s < MAX_SPELLINGS && name_taken(number, s))
            s++;
        if (s < MAX_SPELLINGS) {
            name_of(number, s, name, sizeof name);
            if (!(handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
                diag_fail(d, ACC_ERR_COMPILE, "%s", dlerror());
            h->number = number;
            h->spelling = s;
            break;
        }
        /* every spelling of this number is live: another number */
        int next = fcntl(fd, F_DUPFD_CLOEXEC, number + 1);
        if (extra >= 0)
            close(extra);
        extra = next;
        if (next < 0) {
            diag_fail(d, ACC_ERR_COMPILE, "no free descriptor to load a "
                      "kernel through: %s", strerror(errno));
            break;
        }
        number = next;
    }
    if (extra >= 0)
        close(extra);
    return handle;
}

static int have_proc(void)
{
    return access("/proc/self/fd", X_OK) == 0;
}

cache_dl *cache_dl_open(int fd, const char *path, diag *d)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        diag_fail(d, ACC_ERR_COMPILE, "fstat: %s", strerror(errno));
        return NULL;
    }
    pthread_mutex_lock(&lock);
    cache_dl *h = loaded;
    while (h && !(h->dev == st.st_dev && h->ino == st.st_ino))
        h = h->next;
    if (h) {
        h->refs++;
    } else if ((h = mem_calloc(1, sizeof *h)) == NULL) {
        diag_oom(d, "loading a kernel");
    } else {
        h->dev = st.st_dev;
        h->ino = st.st_ino;
        h->number = -1;
        if (have_proc())
            h->handle = load_by_descriptor(fd, h, d);
        else if (!(h->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
            diag_fail(d, ACC_ERR_COMPILE, "%s", dlerror());
        if (h->handle) {
            h->refs = 1;
            h->next = loaded;
            loaded = h;
            n_loaded++;
        } else {
            free(h);
            h = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return h;
}

void *cache_dl_symbol(const cache_dl *h, const char *name)
{
    return dlsym(h->handle, name);
}

void cache_dl_close(cache_dl *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&lock);
    int last = --h->refs == 0;
    if (last) {
        cache_dl **p = &loaded;
        while (*p != h)
            p = &(*p)->next;
        *p = h->next;
        n_loaded--;
        dlclose(h->handle);
    }
    pthread_mutex_unlock(&lock);
    if (last)
        free(h);
}

size_t cache_dl_loaded(void)
{
    pthread_mutex_lock(&lock);
    size_t n = n_loaded;
    pthread_mutex_unlock(&lock);
    return n;
}
