/*
 * cache_mac.c — SipHash-2-4-128 (see cache_mac.h), written from the
 * paper's specification; tests/unit/cache/test_cache_mac.c checks it
 * against the reference implementation's test vectors.
 */
#include "core/cache/cache_mac.h"

#include <string.h>

static uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

static uint64_t load_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void sip_round(cache_mac *m)
{
    m->v0 += m->v1;
    m->v1 = rotl(m->v1, 13) ^ m->v0;
    m->v0 = rotl(m->v0, 32);
    m->v2 += m->v3;
    m->v3 = rotl(m->v3, 16) ^ m->v2;
    m->v0 += m->v3;
    m->v3 = rotl(m->v3, 21) ^ m->v0;
    m->v2 += m->v1;
    m->v1 = rotl(m->v1, 17) ^ m->v2;
    m->v2 = rotl(m->v2, 32);
}

/* Two compression rounds over one 64-bit word of the message. */
static void absorb(cache_mac *m, uint64_t word)
{
    m->v3 ^= word;
    sip_round(m);
    sip_round(m);
    m->v0 ^= word;
}

void cache_mac_init(cache_mac *m, const unsigned char key[CACHE_MAC_KEY_LEN])
{
    uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
    memset(m, 0, sizeof *m);
    m->v0 = k0 ^ 0x736f6d6570736575u;
    m->v1 = k1 ^ 0x646f72616e646f6du ^ 0xee; /* 0xee: the 128-bit variant */
    m->v2 = k0 ^ 0x6c7967656e657261u;
    m->v3 = k1 ^ 0x7465646279746573u;
}

void cache_mac_add(cache_mac *m, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    m->total += n;
    while (n > 0 && m->n_tail > 0 && m->n_tail < 8) {
        m->tail[m->n_tail++] = *p++;
        n--;
    }
    if (m->n_tail == 8) {
        absorb(m, load_le64(m->tail));
        m->n_tail = 0;
    }
    for (; n >= 8; p += 8, n -= 8)
        absorb(m, load_le64(p));
    memcpy(m->tail + m->n_tail, p, n);
    m->n_tail += n;
}

static void store_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

void cache_mac_finish(cache_mac *m, unsigned char out[CACHE_MAC_LEN])
{
    uint64_t last = (m->total & 0xff) << 56;
    for (size_t i = 0; i < m->n_tail; i++)
        last |= (uint64_t)m->tail[i] << (8 * i);
    absorb(m, last);
    m->v2 ^= 0xee;
    for (int i = 0; i < 4; i++)
        sip_round(m);
    store_le64(out, m->v0 ^ m->v1 ^ m->v2 ^ m->v3);
    m->v1 ^= 0xdd;
    for (int i = 0; i < 4; i++)
        sip_round(m);
    store_le64(out + 8, m->v0 ^ m->v1 ^ m->v2 ^ m->v3);
}
