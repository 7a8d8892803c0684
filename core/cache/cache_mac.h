/*
 * cache_mac.h — the message authentication code that seals cached kernel
 * files: SipHash-2-4 with its 128-bit output (Aumasson and Bernstein), a
 * pseudo-random function keyed by 128 secret bits.  Without the key
 * nobody can produce a tag that verifies, so a file accel did not write
 * under that key is never taken for a kernel (cache_file.h).
 *
 * Incremental: init with the key, add bytes in any pieces, finish.
 */
#ifndef ACC_CORE_CACHE_CACHE_MAC_H
#define ACC_CORE_CACHE_CACHE_MAC_H

#include <stddef.h>
#include <stdint.h>

enum { CACHE_MAC_KEY_LEN = 16, CACHE_MAC_LEN = 16 };

typedef struct cache_mac {
    uint64_t v0, v1, v2, v3;
    unsigned char tail[8]; /* bytes not yet absorbed */
    size_t n_tail;
    uint64_t total; /* bytes added */
} cache_mac;

void cache_mac_init(cache_mac *m, const unsigned char key[CACHE_MAC_KEY_LEN]);
void cache_mac_add(cache_mac *m, const void *bytes, size_t n);
void cache_mac_finish(cache_mac *m, unsigned char out[CACHE_MAC_LEN]);

#endif
