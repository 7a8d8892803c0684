/*
 * cache_store.c — keys, verification helpers and the figures shared by
 * the kernel caches (see cache_store.h).
 */
#include "core/cache/cache_store.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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
                    size_t host_steps, size_t interpreted,
                    const cache_stats *s, const char *note, int json,
                    const char *json_extra)
{
    if (json) {
        if (b->len > 0 && b->text[b->len - 1] == '}')
            b->text[--b->len] = '\0';
        sb_printf(b, ",\"%s\":{\"kernels\":%zu,\"host_steps\":%zu,"
                  "\"interpreted\":%zu,\"memory_hits\":%llu,\"disk_hits\":%llu,"
                  "\"compiled\":%llu,\"compile_seconds\":%.6f", backend,
                  kernels, host_steps, interpreted,
                  (unsigned long long)s->memory_hits,
                  (unsigned long long)s->disk_hits,
                  (unsigned long long)s->compiled, s->compile_seconds);
        if (note && *note) {
            sb_puts(b, ",\"cache_note\":");
            sb_json_string(b, note);
        }
        if (json_extra && *json_extra)
            sb_printf(b, ",%s", json_extra);
        sb_puts(b, "}}");
        return;
    }
    sb_printf(b, "%s: %zu kernels compiled, %zu host steps, %zu steps "
              "interpreted; cache: %llu memory hits, %llu disk hits, %llu "
              "compiled in %.3f s\n", backend, kernels, host_steps, interpreted,
              (unsigned long long)s->memory_hits,
              (unsigned long long)s->disk_hits,
              (unsigned long long)s->compiled, s->compile_seconds);
    if (note && *note)
        sb_printf(b, "%s: %s\n", backend, note);
}

double cache_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
