/*
 * kernel_load.c — loading verified shared objects by descriptor (see
 * kernel_load.h).  One process-wide list under one mutex: loads happen at
 * compile time, a handful per program, next to a compiler run.
 */
/* dlinfo (a loaded object's link map: which file it is) is a GNU
 * extension. */
#define _GNU_SOURCE
#include "core/backend/cpu/kernel_load.h"
#include "core/base/mem.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct cache_dl {
    dev_t dev;
    ino_t ino;
    void *handle;
    int number, spelling; /* the name it was loaded by (name_of) */
    unsigned refs;
    struct cache_dl *next;
};

/* MAX_NUMBERS: descriptor numbers tried before a load gives up (only a
 * process that holds thousands of kernels live needs more than one). */
enum { MAX_SPELLINGS = 32, NAME_MAX_LEN = 64 + 6 * MAX_SPELLINGS,
       MAX_NUMBERS = 64 };

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

/* Whether loaded object `other` is the file (dev, ino): the mapping that
 * holds its dynamic section (always mapped from the file, wherever its
 * first segment's address puts the load base), as /proc/self/maps lists
 * it. */
static int object_is_file(void *other, dev_t dev, ino_t ino)
{
    struct link_map *lm = NULL;
    if (dlinfo(other, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_ld)
        return 0;
    unsigned long base = (unsigned long)(uintptr_t)lm->l_ld;
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int same = 0;
    while (getline(&line, &cap, f) > 0) {
        unsigned long lo, hi, inode;
        unsigned maj, min;
        if (sscanf(line, "%lx-%lx %*s %*x %x:%x %lu", &lo, &hi, &maj, &min,
                   &inode) == 5 &&
            base >= lo && base < hi) {
            same = inode == (unsigned long)ino && maj == major(dev) &&
                   min == minor(dev);
            break;
        }
    }
    free(line);
    fclose(f);
    return same;
}

/* What glibc answers for a name, without loading anything. */
typedef enum name_use {
    NAME_FREE,  /* no live object by that name: a load makes a new one */
    NAME_TAKEN, /* another object's name */
    NAME_OURS   /* *ours: this very file, loaded already (another copy of
                   this library in the process, or a dlopen by path:
                   glibc knows objects by their file too), one reference
                   kept for the caller */
} name_use;

static name_use name_use_of(int number, int spelling, dev_t dev, ino_t ino,
                            void **ours)
{
    char name[NAME_MAX_LEN];
    for (const cache_dl *h = loaded; h; h = h->next)
        if (h->number == number && h->spelling == spelling)
            return NAME_TAKEN;
    name_of(number, spelling, name, sizeof name);
    void *other = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (!other)
        return NAME_FREE;
    if (object_is_file(other, dev, ino)) {
        *ours = other;
        return NAME_OURS;
    }
    dlclose(other);
    return NAME_TAKEN;
}

/* dlopen of fd's inode (dev, ino) under a name no live object has, or
 * the object of that inode that glibc already has.  Without the second
 * answer, every name of a file another copy of this library had loaded
 * was "taken" (glibc matches the file behind a new name), and the search
 * ran through every descriptor number, adding a name to that object at
 * each try. */
static void *load_by_descriptor(int fd, dev_t dev, ino_t ino, cache_dl *h,
                                diag *d)
{
    char name[NAME_MAX_LEN];
    int number = fd, extra = -1;
    void *handle = NULL;
    for (int tries = 0;; tries++) {
        int s = 0;
        name_use use = NAME_TAKEN;
        while (s < MAX_SPELLINGS &&
               (use = name_use_of(number, s, dev, ino, &handle)) ==
                   NAME_TAKEN)
            s++;
        if (use == NAME_OURS) {
            h->number = number;
            h->spelling = s;
            break;
        }
        if (use == NAME_FREE) {
            name_of(number, s, name, sizeof name);
            if (!(handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
                diag_fail(d, ACC_ERR_COMPILE, "%s", dlerror());
            h->number = number;
            h->spelling = s;
            break;
        }
        /* every spelling of this number is live: another number */
        if (tries + 1 >= MAX_NUMBERS) {
            diag_fail(d, ACC_ERR_COMPILE, "no free name to load a kernel "
                      "through: %d descriptor numbers tried, each with %d "
                      "spellings, all in use", MAX_NUMBERS, MAX_SPELLINGS);
            break;
        }
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
            h->handle = load_by_descriptor(fd, st.st_dev, st.st_ino, h, d);
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
