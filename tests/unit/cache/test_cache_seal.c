/*
 * test_cache_seal.c — the MAC that seals cached files (SipHash-2-4-128,
 * core/cache/cache_mac.h) against the reference implementation's test
 * vectors, whatever the pieces the bytes come in; and the seal itself
 * (core/cache/cache_file.h): a published file verifies for its key in its
 * folder, and no longer verifies under another key, with a byte changed,
 * truncated, or under another folder's secret.
 */
#include <criterion/criterion.h>

#include "core/cache/cache_file.h"
#include "core/cache/cache_mac.h"
#include "cpu_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* vectors_sip128 of github.com/veorq/SipHash (vectors.h): key 00 .. 0f,
 * message 00 .. (len - 1). */
static const struct {
    size_t len;
    unsigned char tag[16];
} vectors[] = {
    {0, {0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6, 0x6d, 0xf6, 0x72,
         0x14, 0xc7, 0x55, 0x02, 0x93}},
    {7, {0xa1, 0xf1, 0xeb, 0xbe, 0xd8, 0xdb, 0xc1, 0x53, 0xc0, 0xb8, 0x4a,
         0xa6, 0x1f, 0xf0, 0x82, 0x39}},
    {8, {0x3b, 0x62, 0xa9, 0xba, 0x62, 0x58, 0xf5, 0x61, 0x0f, 0x83, 0xe2,
         0x64, 0xf3, 0x14, 0x97, 0xb4}},
    {15, {0x54, 0x93, 0xe9, 0x99, 0x33, 0xb0, 0xa8, 0x11, 0x7e, 0x08, 0xec,
          0x0f, 0x97, 0xcf, 0xc3, 0xd9}},
    {63, {0x51, 0x50, 0xd1, 0x77, 0x2f, 0x50, 0x83, 0x4a, 0x50, 0x3e, 0x06,
          0x9a, 0x97, 0x3f, 0xbd, 0x7c}},
};

Test(cache_seal, siphash_reference_vectors_in_any_pieces)
{
    unsigned char key[16], msg[64], tag[16];
    for (int i = 0; i < 16; i++)
        key[i] = (unsigned char)i;
    for (int i = 0; i < 64; i++)
        msg[i] = (unsigned char)i;
    for (size_t v = 0; v < sizeof vectors / sizeof *vectors; v++)
        for (size_t cut = 0; cut <= vectors[v].len; cut++) {
            cache_mac m;
            cache_mac_init(&m, key);
            cache_mac_add(&m, msg, cut);
            cache_mac_add(&m, msg + cut, vectors[v].len - cut);
            cache_mac_finish(&m, tag);
            cr_expect_arr_eq(tag, vectors[v].tag, 16, "length %zu cut at %zu",
                             vectors[v].len, cut);
        }
}

TestSuite(cache_seal, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

static const char key_a[] = "0123456789abcdef0123456789abcdef";
static const char key_b[] = "fedcba9876543210fedcba9876543210";
static const char payload[] = "a payload of a few bytes, with a NUL: \0 and "
                              "more";

static void open_folder(cache_folder *f, const char *dir)
{
    diag d;
    diag_clear(&d);
    cr_assert_eq(cache_folder_init(f, dir, &d), ACC_OK);
    cr_assert_eq(cache_folder_resolve(f, &d), ACC_OK, "%s", d.message);
    cr_assert_str_empty(f->note, "%s", f->note);
}

static int verifies(const cache_folder *f, const char *key)
{
    unsigned char *got = NULL;
    size_t n = 0;
    int ok = cache_file_open(f, "x.bin", key, &got, &n, NULL);
    if (ok)
        cr_expect(n == sizeof payload && memcmp(got, payload, n) == 0);
    free(got);
    return ok;
}

static void publish(cache_folder *f, const char *key)
{
    diag d;
    diag_clear(&d);
    cr_assert(cache_file_publish(f, "x.bin", key, payload, sizeof payload,
                                 NULL, &d), "%s", d.message);
}

static void edit(const char *path, long at, int byte)
{
    FILE *file = fopen(path, "r+b");
    cr_assert_not_null(file);
    cr_assert_eq(fseek(file, at, SEEK_SET), 0);
    fputc(byte, file);
    cr_assert_eq(fclose(file), 0);
}

Test(cache_seal, published_files_verify_only_as_written)
{
    char dir_b[400], path[400];
    cache_folder a, b;
    snprintf(dir_b, sizeof dir_b, "%s/other", ts_cpu_cache_dir);
    snprintf(path, sizeof path, "%s/x.bin", ts_cpu_cache_dir);
    open_folder(&a, ts_cpu_cache_dir);
    open_folder(&b, dir_b);

    publish(&a, key_a);
    cr_expect(verifies(&a, key_a));
    cr_expect(!verifies(&a, key_b), "another key");
    publish(&a, key_a);
    edit(path, 3, 'X');
    cr_expect(!verifies(&a, key_a), "a byte changed");
    cr_expect(!verifies(&a, key_a), "and the file was removed");
    publish(&a, key_a);
    cr_assert_eq(truncate(path, (off_t)sizeof payload + CACHE_SEAL_LEN - 1),
                 0);
    cr_expect(!verifies(&a, key_a), "truncated");

    /* the same bytes under another folder's secret */
    char other[500];
    publish(&a, key_a);
    snprintf(other, sizeof other, "%s/x.bin", dir_b);
    cr_assert_eq(rename(path, other), 0);
    cr_expect(!verifies(&b, key_a), "sealed with another secret");
    cache_folder_free(&a);
    cache_folder_free(&b);
}
