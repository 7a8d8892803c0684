/*
 * hash.h — FNV-1a, the 64-bit text hash used where accel needs a short,
 * stable digest of a text (the compiler's target description in the CPU
 * toolchain's cache-key text).  Not for security.
 */
#ifndef ACC_CORE_BASE_HASH_H
#define ACC_CORE_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Continues hash h (start with hash_fnv1a_init()) over n bytes at p. */
static inline uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3u;
    return h;
}

static inline uint64_t hash_fnv1a_init(void)
{
    return 0xcbf29ce484222325u;
}

#endif
