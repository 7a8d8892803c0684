/*
 * kernel_cache.c — see kernel_cache.h.  One mutex per cache serialises
 * lookups and compiles, so two threads asking for one kernel compile it
 * once; different processes race only on rename(), which is atomic.
 */
#include "core/cache/kernel_cache.h"

#include "core/backend/cpu/kernel_abi.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct kcache {
    pthread_mutex_t lock;
    cache_folder folder;
    cache_entry *entries;
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

kcache *cache_create(const char *dir)
{
    kcache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (!cache_folder_init(&c->folder, dir)) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    return c;
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
    cache_folder_free(&c->folder);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

const char *cache_dir(const kcache *c)
{
    return c->folder.dir ? c->folder.dir : "";
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
    return ok && cache_elf_complete(h, n, (uint64_t)st.st_size);
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
    cache_temp_path(&c->folder, key, "c", src, sizeof src);
    snprintf(tmp, sizeof tmp, "%.*s.so.tmp", (int)(strlen(src) - 2), src);
    int ok = write_source(src, source, key);
    if (!ok)
        diag_fail(d, ACC_ERR_COMPILE, "kernel cache: cannot write %s: %s", src,
                  strerror(errno));
    else if (!(ok = cpu_compile(tc, src, tmp, err, sizeof err)))
        diag_fail(d, ACC_ERR_COMPILE, "compiling a CPU kernel: %s", err);
    else
        ok = cache_publish(tmp, path, d);
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
    snprintf(path, sizeof path, "%s/%s.so", c->folder.dir, key);
    cache_entry *e = load(path, key);
    if (e) {
        how->disk_hits++;
        return e;
    }
    double start = cache_now();
    if (!build(c, tc, source, key, path, d))
        return NULL;
    how->compiled++;
    how->compile_seconds += cache_now() - start;
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
    } else if (cache_folder_resolve(&c->folder, d) &&
               (e = from_disk_or_compiler(c, tc, source, key, how, d))) {
        e->next = c->entries;
        c->entries = e;
    }
    pthread_mutex_unlock(&c->lock);
    *out = e;
    return e ? ACC_OK : d->status;
}
