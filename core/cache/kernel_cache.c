/*
 * kernel_cache.c — see kernel_cache.h.  One mutex per cache serialises
 * lookups and compiles, so two threads asking for one kernel compile it
 * once; different processes race only on rename(), which is atomic.
 */
#include "core/cache/kernel_cache.h"

#include "core/backend/cpu/kernel_abi.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct kcache {
    pthread_mutex_t lock;
    char *option;   /* the folder asked for, or NULL */
    char *dir;      /* the folder in use, once resolved */
    int temporary;  /* dir is ours: removed by cache_destroy */
    cache_entry *entries;
};

static atomic_uint file_counter;

/* ---- keys ----------------------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void hash_text(const char *s, uint64_t *h1, uint64_t *h2)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        *h1 = (*h1 ^ *p) * 0x100000001b3u;
        *h2 = ((*h2 + *p) * 0x9e3779b97f4a7c15u);
        *h2 = (*h2 << 27) | (*h2 >> 37);
    }
    *h1 = (*h1 ^ 0xff) * 0x100000001b3u; /* separator between texts */
    *h2 = (*h2 + 0xff) * 0x9e3779b97f4a7c15u;
}

void cache_key(const char *source, const cpu_toolchain *tc,
               char key[CACHE_KEY_LEN + 1])
{
    uint64_t h1 = 0xcbf29ce484222325u, h2 = 0x2545f4914f6cdd1du;
    hash_text(CPU_KERNEL_ABI, &h1, &h2);
    hash_text(tc->desc, &h1, &h2);
    hash_text(source, &h1, &h2);
    snprintf(key, CACHE_KEY_LEN + 1, "%016" PRIx64 "%016" PRIx64, h1,
             mix64(h2));
}

/* ---- the cache object ----------------------------------------------------------- */

kcache *cache_create(const char *dir)
{
    kcache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (dir && !(c->option = strdup(dir))) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    char path[4096];
    while (d && (ent = readdir(d)) != NULL) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

void cache_destroy(kcache *c)
{
    if (!c)
        return;
    while (c->entries) {
        cache_entry *e = c->entries;
        c->entries = e->next;
        dlclose(e->handle);
        free(e);
    }
    if (c->temporary)
        remove_folder(c->dir);
    free(c->dir);
    free(c->option);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

const char *cache_dir(const kcache *c)
{
    return c->dir ? c->dir : "";
}

/* mkdir -p */
static int make_folder(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return 0;
        *p = '/';
    }
    return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

static char *default_folder(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char buf[4096];
    if (xdg && *xdg == '/')
        snprintf(buf, sizeof buf, "%s/accel", xdg);
    else if (home && *home)
        snprintf(buf, sizeof buf, "%s/.cache/accel", home);
    else
        return NULL;
    return strdup(buf);
}

static int resolve_folder(kcache *c, diag *d)
{
    if (c->dir)
        return 1;
    char *want = c->option ? strdup(c->option) : default_folder();
    if (want && make_folder(want)) {
        c->dir = want;
        return 1;
    }
    free(want);
    const char *tmp = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/accel-cache-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(buf) || !(c->dir = strdup(buf))) {
        diag_fail(d, ACC_ERR_COMPILE, "kernel cache: cannot create the folder "
                  "%s nor a temporary one: %s",
                  c->option ? c->option : "~/.cache/accel", strerror(errno));
        return 0;
    }
    c->temporary = 1;
    return 1;
}

/* ---- loading ---------------------------------------------------------------------- */

/* A truncated object is refused before dlopen maps it: the ELF section
 * header table, which linkers put at the end, must lie inside the file. */
static int complete_elf(const char *path)
{
    unsigned char h[64];
    struct stat st;
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(h, 1, sizeof h, f) : 0;
    int ok = f && fstat(fileno(f), &st) == 0;
    if (f)
        fclose(f);
    if (!ok || n < 52 || memcmp(h, "\177ELF", 4) != 0)
        return 0;
    uint64_t shoff = 0, shentsize = 0, shnum = 0;
    int le = h[5] == 1;
    int is64 = h[4] == 2;
    size_t off = is64 ? 0x28 : 0x20, width = is64 ? 8 : 4;
    if (is64 && n < 64)
        return 0;
    for (size_t i = 0; i < width; i++)
        shoff |= (uint64_t)h[off + (le ? i : width - 1 - i)] << (8 * i);
    size_t es = is64 ? 0x3a : 0x2e;
    shentsize = le ? (uint64_t)(h[es] | h[es + 1] << 8)
                   : (uint64_t)(h[es] << 8 | h[es + 1]);
    shnum = le ? (uint64_t)(h[es + 2] | h[es + 3] << 8)
               : (uint64_t)(h[es + 2] << 8 | h[es + 3]);
    return shoff + shentsize * shnum <= (uint64_t)st.st_size;
}

static void (*symbol(void *h, const char *name))(void)
{
    void (*fn)(void) = NULL;
    void *sym = dlsym(h, name);
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

/* dlopen + verification of the exported key; NULL for anything else. */
static cache_entry *load(const char *path, const char *key)
{
    char want[128];
    if (access(path, R_OK) != 0 || !complete_elf(path))
        return NULL;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return NULL;
    const char *abi = dlsym(h, "accel_kernel_abi");
    snprintf(want, sizeof want, "%s:%s", CPU_KERNEL_ABI, key);
    cache_entry *e = NULL;
    if (abi && strcmp(abi, want) == 0 && (e = calloc(1, sizeof *e)) != NULL) {
        snprintf(e->key, sizeof e->key, "%s", key);
        e->handle = h;
        e->run = symbol(h, "accel_kernel_run");
        e->part = symbol(h, "accel_kernel_part");
        e->finish = symbol(h, "accel_kernel_finish");
        e->block = symbol(h, "accel_kernel_block");
    }
    if (!e || !e->run) {
        free(e);
        dlclose(h);
        return NULL;
    }
    return e;
}

/* ---- compiling ---------------------------------------------------------------------- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int write_source(const char *path, const char *source, const char *key)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    int ok = fputs(source, f) >= 0 &&
             fprintf(f, "\nACC_EXPORT const char accel_kernel_abi[] = "
                     "\"%s:%s\";\n", CPU_KERNEL_ABI, key) > 0;
    return fclose(f) == 0 && ok;
}

/* Compiles into a temporary name, then renames it to `path`. */
static int build(kcache *c, const cpu_toolchain *tc, const char *source,
                 const char *key, const char *path, diag *d)
{
    char src[4200], tmp[4200], err[1024];
    unsigned n = atomic_fetch_add(&file_counter, 1);
    snprintf(src, sizeof src, "%s/%s.%ld.%u.c", c->dir, key, (long)getpid(), n);
    snprintf(tmp, sizeof tmp, "%s/%s.%ld.%u.so.tmp", c->dir, key,
             (long)getpid(), n);
    int ok = write_source(src, source, key);
    if (!ok)
        diag_fail(d, ACC_ERR_COMPILE, "kernel cache: cannot write %s: %s", src,
                  strerror(errno));
    else if (!(ok = cpu_compile(tc, src, tmp, err, sizeof err)))
        diag_fail(d, ACC_ERR_COMPILE, "compiling a CPU kernel: %s", err);
    else if (!(ok = rename(tmp, path) == 0))
        diag_fail(d, ACC_ERR_COMPILE, "kernel cache: cannot rename %s to %s: "
                  "%s", tmp, path, strerror(errno));
    unlink(src);
    unlink(tmp);
    return ok;
}

static cache_entry *find(const kcache *c, const char *key)
{
    cache_entry *e = c->entries;
    while (e && strcmp(e->key, key) != 0)
        e = e->next;
    return e;
}

static cache_entry *from_disk_or_compiler(kcache *c, const cpu_toolchain *tc,
                                          const char *source, const char *key,
                                          cache_stats *how, diag *d)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.so", c->dir, key);
    cache_entry *e = load(path, key);
    if (e) {
        how->disk_hits++;
        return e;
    }
    double start = now();
    if (!build(c, tc, source, key, path, d))
        return NULL;
    how->compiled++;
    how->compile_seconds += now() - start;
    if (!(e = load(path, key)))
        diag_fail(d, ACC_ERR_COMPILE, "kernel cache: %s was compiled but "
                  "does not load: %s", path, dlerror());
    return e;
}

acc_status cache_get(kcache *c, const cpu_toolchain *tc, const char *source,
                     const cache_entry **out, cache_stats *how, diag *d)
{
    char key[CACHE_KEY_LEN + 1];
    cache_stats ignored = {0, 0, 0, 0.0};
    if (!how)
        how = &ignored;
    *out = NULL;
    cache_key(source, tc, key);
    pthread_mutex_lock(&c->lock);
    cache_entry *e = find(c, key);
    if (e) {
        how->memory_hits++;
    } else if (resolve_folder(c, d) &&
               (e = from_disk_or_compiler(c, tc, source, key, how, d))) {
        e->next = c->entries;
        c->entries = e;
    }
    pthread_mutex_unlock(&c->lock);
    *out = e;
    return e ? ACC_OK : d->status;
}
