/*
 * cache_store.c — keys, the cache folder, atomic publication and
 * verification helpers shared by the kernel caches (see cache_store.h).
 */
#include "core/cache/cache_store.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static atomic_uint file_counter;

/* ---- keys ----------------------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void cache_hash_init(cache_hash *h)
{
    h->h1 = 0xcbf29ce484222325u;
    h->h2 = 0x2545f4914f6cdd1du;
}

void cache_hash_text(cache_hash *h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h->h1 = (h->h1 ^ *p) * 0x100000001b3u;
        h->h2 = ((h->h2 + *p) * 0x9e3779b97f4a7c15u);
        h->h2 = (h->h2 << 27) | (h->h2 >> 37);
    }
    h->h1 = (h->h1 ^ 0xff) * 0x100000001b3u; /* separator between texts */
    h->h2 = (h->h2 + 0xff) * 0x9e3779b97f4a7c15u;
}

void cache_hash_key(const cache_hash *h, char key[CACHE_KEY_LEN + 1])
{
    snprintf(key, CACHE_KEY_LEN + 1, "%016" PRIx64 "%016" PRIx64, h->h1,
             mix64(h->h2));
}

/* ---- the folder ------------------------------------------------------------------- */

int cache_folder_init(cache_folder *f, const char *option)
{
    memset(f, 0, sizeof *f);
    return !option || (f->option = strdup(option)) != NULL;
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

void cache_folder_free(cache_folder *f)
{
    if (f->temporary && f->dir)
        remove_folder(f->dir);
    free(f->dir);
    free(f->option);
    memset(f, 0, sizeof *f);
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

int cache_folder_resolve(cache_folder *f, diag *d)
{
    if (f->dir)
        return 1;
    char *want = f->option ? strdup(f->option) : default_folder();
    if (want && make_folder(want)) {
        f->dir = want;
        return 1;
    }
    free(want);
    const char *tmp = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/accel-cache-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(buf) || !(f->dir = strdup(buf))) {
        diag_fail(d, ACC_ERR_COMPILE, "kernel cache: cannot create the folder "
                  "%s nor a temporary one: %s",
                  f->option ? f->option : "~/.cache/accel", strerror(errno));
        return 0;
    }
    f->temporary = 1;
    return 1;
}

/* ---- publication ------------------------------------------------------------------ */

void cache_temp_path(const cache_folder *f, const char *key,
                     const char *suffix, char *buf, size_t size)
{
    unsigned n = atomic_fetch_add(&file_counter, 1);
    snprintf(buf, size, "%s/%s.%ld.%u.%s", f->dir, key, (long)getpid(), n,
             suffix);
}

int cache_publish(const char *tmp, const char *path, diag *d)
{
    if (rename(tmp, path) == 0)
        return 1;
    diag_fail(d, ACC_ERR_COMPILE, "kernel cache: cannot rename %s to %s: %s",
              tmp, path, strerror(errno));
    return 0;
}

int cache_write_atomic(const cache_folder *f, const char *key,
                       const char *path, const void *bytes, size_t n,
                       diag *d)
{
    char tmp[4200];
    cache_temp_path(f, key, "tmp", tmp, sizeof tmp);
    FILE *out = fopen(tmp, "wb");
    int ok = out && fwrite(bytes, 1, n, out) == n;
    if (out && fclose(out) != 0)
        ok = 0;
    if (!ok)
        diag_fail(d, ACC_ERR_COMPILE, "kernel cache: cannot write %s: %s",
                  tmp, strerror(errno));
    ok = ok && cache_publish(tmp, path, d);
    if (!ok)
        unlink(tmp);
    return ok;
}

int cache_read_file(const char *path, unsigned char **bytes, size_t *n)
{
    struct stat st;
    *bytes = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int ok = fstat(fileno(f), &st) == 0 && st.st_size >= 0 &&
             (uint64_t)st.st_size < SIZE_MAX &&
             (*bytes = malloc((size_t)st.st_size + 1)) != NULL &&
             fread(*bytes, 1, (size_t)st.st_size, f) == (size_t)st.st_size;
    fclose(f);
    if (!ok) {
        free(*bytes);
        *bytes = NULL;
        return 0;
    }
    (*bytes)[st.st_size] = '\0';
    *n = (size_t)st.st_size;
    return 1;
}

int cache_elf_complete(const unsigned char *h, size_t n, uint64_t file_size)
{
    if (n < 52 || memcmp(h, "\177ELF", 4) != 0)
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
    return shoff + shentsize * shnum <= file_size;
}

void cache_describe(strbuf *b, const char *backend, size_t kernels,
                    size_t host_steps, size_t interpreted, const cache_stats *s, int json)
{
    if (json) {
        if (b->len > 0 && b->text[b->len - 1] == '}')
            b->text[--b->len] = '\0';
        sb_printf(b, ",\"%s\":{\"kernels\":%zu,\"host_steps\":%zu,"
                  "\"interpreted\":%zu,\"memory_hits\":%llu,\"disk_hits\":%llu,"
                  "\"compiled\":%llu,\"compile_seconds\":%.6f}}", backend,
                  kernels, host_steps, interpreted,
                  (unsigned long long)s->memory_hits,
                  (unsigned long long)s->disk_hits,
                  (unsigned long long)s->compiled, s->compile_seconds);
        return;
    }
    sb_printf(b, "%s: %zu kernels compiled, %zu host steps, %zu steps "
              "interpreted; cache: %llu memory hits, %llu disk hits, %llu "
              "compiled in %.3f s\n", backend, kernels, host_steps, interpreted,
              (unsigned long long)s->memory_hits,
              (unsigned long long)s->disk_hits,
              (unsigned long long)s->compiled, s->compile_seconds);
}

double cache_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
