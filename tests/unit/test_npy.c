/*
 * test_npy.c — the .npy module of the accel tool (tools/accel/npy.c): the
 * header parser's edge cases, every malformed-file error, the header it
 * writes, and a save/load round trip for every dtype.
 */
#include <criterion/criterion.h>

#include "tools/accel/npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static npy_info info;
static char err[NPY_ERROR_SIZE];

static int parse(const char *header)
{
    err[0] = '\0';
    return npy_parse_header(header, strlen(header), &info, err, sizeof err);
}

/* A complete file image of `version` with the given dictionary, padded to
 * 64 bytes, followed by `data_len` zero bytes; returns its length. */
static size_t image(unsigned char *buf, int version, const char *dict,
                    size_t data_len)
{
    size_t pre = version == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64, hl = total - pre;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)version;
    buf[7] = 0;
    buf[8] = (unsigned char)hl;
    buf[9] = (unsigned char)(hl >> 8);
    if (version > 1)
        buf[10] = buf[11] = 0;
    memcpy(buf + pre, dict, dl);
    memset(buf + pre + dl, ' ', hl - dl - 1);
    buf[total - 1] = '\n';
    memset(buf + total, 0, data_len);
    return total + data_len;
}

static int decode(const unsigned char *buf, size_t len)
{
    size_t offset;
    err[0] = '\0';
    return npy_decode(buf, len, &info, &offset, err, sizeof err);
}

Test(npy_header, numpy_style_vector)
{
    cr_assert_eq(parse("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (3,), }"), 0, "%s", err);
    cr_assert_eq(info.scalar, ACC_F32);
    cr_assert_eq(info.rank, 1);
    cr_assert_eq(info.extents[0], 3);
    cr_assert_eq(info.nbytes, 12);
    cr_assert_str_eq(info.descr, "<f4");
}

Test(npy_header, scalar_matrix_and_key_order)
{
    cr_assert_eq(parse("{'shape': (), 'fortran_order': False, 'descr': "
                       "'<i8'}"), 0, "%s", err);
    cr_assert_eq(info.rank, 0);
    cr_assert_eq(info.count, 1);
    cr_assert_eq(info.nbytes, 8);
    cr_assert_eq(parse("{\"descr\":\"|u1\",\"fortran_order\":False,"
                       "\"shape\":(2,3)}  \n"), 0, "%s", err);
    cr_assert_eq(info.scalar, ACC_U8);
    cr_assert_eq(info.rank, 2);
    cr_assert_eq(info.count, 6);
    cr_assert_eq(parse("{'descr': '<i4', 'fortran_order': False, "
                       "'shape': (4L, 0L), }"), 0, "%s", err);
    cr_assert_eq(info.count, 0);
    cr_assert_eq(info.nbytes, 0);
}

Test(npy_header, every_dtype)
{
    static const struct {
        const char *descr;
        acc_scalar scalar;
    } cases[] = {
        {"<f4", ACC_F32}, {"<f8", ACC_F64}, {"<i1", ACC_I8},
        {"<i2", ACC_I16}, {"<i4", ACC_I32}, {"<i8", ACC_I64},
        {"<u1", ACC_U8},  {"<u2", ACC_U16}, {"<u4", ACC_U32},
        {"<u8", ACC_U64}, {"|b1", ACC_BOOL}, {"|i1", ACC_I8},
        {"|u1", ACC_U8},
    };
    char h[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, "
                 "'shape': (2,), }", cases[i].descr);
        cr_assert_eq(parse(h), 0, "%s: %s", cases[i].descr, err);
        cr_assert_eq(info.scalar, cases[i].scalar, "%s", cases[i].descr);
    }
}

/* Each malformed header fails with a message containing `want`. */
static void refused(const char *header, const char *want)
{
    cr_assert_eq(parse(header), -1, "accepted: %s", header);
    cr_assert(strstr(err, want), "'%s' gave '%s', expected '%s'", header, err,
              want);
}

Test(npy_header, refusals)
{
    refused("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }",
            "big-endian");
    refused("{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }",
            "Fortran");
    refused("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
            "unsupported dtype '<c8'");
    refused("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }",
            "unsupported dtype");
    refused("{'descr': '|f4', 'fortran_order': False, 'shape': (3,), }",
            "one-byte");
    refused("{'descr': '<U5', 'fortran_order': False, 'shape': (3,), }",
            "unsupported dtype");
    refused("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': "
            "(3,), }", "structured");
    refused("{'descr': '<f4', 'shape': (3,), }", "missing key "
            "'fortran_order'");
    refused("{'descr': '<f4', 'fortran_order': False, }", "missing key "
            "'shape'");
    refused("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
            "'shape': (3,)}", "twice");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), "
            "'extra': 1}", "unexpected key 'extra'");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}",
            "extent");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': "
            "(1,1,1,1,1,1,1,1,1)}", "more than 8");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': "
            "(4294967296, 4294967296, 4294967296)}", "overflows");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)",
            "expected");
    refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} x",
            "expected the end of the header");
    refused("", "expected '{'");
    refused("{'descr': '<f4', 'fortran_order': maybe, 'shape': (3,)}",
            "True or False");
    refused("{'descr: '<f4'}", "expected");
}

Test(npy_decode, versions_1_2_3)
{
    unsigned char buf[256];
    const char *dict = "{'descr': '<i2', 'fortran_order': False, "
                       "'shape': (2, 2), }";
    for (int v = 1; v <= 3; v++) {
        size_t len = image(buf, v, dict, 8);
        cr_assert_eq(decode(buf, len), 0, "version %d: %s", v, err);
        cr_assert_eq(info.scalar, ACC_I16);
        cr_assert_eq(info.count, 4);
    }
}

Test(npy_decode, malformed_files)
{
    unsigned char buf[256];
    const char *dict = "{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (3,), }";
    size_t len = image(buf, 1, dict, 12);

    cr_assert_eq(decode(buf, len), 0, "%s", err);
    cr_assert_eq(decode((const unsigned char *)"PK\3\4 not npy", 13), -1);
    cr_assert(strstr(err, "bad magic"), "%s", err);
    cr_assert_eq(decode(buf, 4), -1);
    cr_assert(strstr(err, "bad magic"), "%s", err);
    cr_assert_eq(decode(buf, 7), -1);
    cr_assert(strstr(err, "truncated header"), "%s", err);
    cr_assert_eq(decode(buf, 9), -1);
    cr_assert(strstr(err, "truncated header"), "%s", err);
    cr_assert_eq(decode(buf, 40), -1);
    cr_assert(strstr(err, "truncated header"), "%s", err);
    cr_assert_eq(decode(buf, len - 1), -1);
    cr_assert(strstr(err, "shorter than the shape says"), "%s", err);
    cr_assert(strstr(err, "(3,)"), "%s", err);

    buf[6] = 4; /* version 4.0 */
    cr_assert_eq(decode(buf, len), -1);
    cr_assert(strstr(err, "version 4.0"), "%s", err);
    buf[6] = 1;
    buf[7] = 1; /* version 1.1 */
    cr_assert_eq(decode(buf, len), -1);
    cr_assert(strstr(err, "version 1.1"), "%s", err);
}

Test(npy_decode, trailing_data_is_ignored)
{
    unsigned char buf[256];
    size_t len = image(buf, 1, "{'descr': '|b1', 'fortran_order': False, "
                               "'shape': (2,), }", 10);
    cr_assert_eq(decode(buf, len), 0, "%s", err);
    cr_assert_eq(info.nbytes, 2);
}

Test(npy_write, header_layout)
{
    unsigned char h[512];
    int64_t ext[2] = {2, 3};
    size_t n = npy_format_header(ACC_F64, 2, ext, h, sizeof h);
    cr_assert_eq(n, 128); /* as NumPy: 10 + 117 + '\n' */
    cr_assert_eq(memcmp(h, "\x93NUMPY\x01\x00", 8), 0);
    cr_assert_eq(h[8] | h[9] << 8, 118);
    cr_assert_eq(h[127], '\n');
    const char *dict = "{'descr': '<f8', 'fortran_order': False, "
                       "'shape': (2, 3), }";
    cr_assert_eq(memcmp(h + 10, dict, strlen(dict)), 0);
    memset(h + n, 0, 48);
    cr_assert_eq(decode(h, n + 48), 0, "%s", err);
    cr_assert_eq(npy_format_header(ACC_F64, 2, ext, h, 100), 0);
    cr_assert_eq(npy_format_header((acc_scalar)99, 2, ext, h, sizeof h), 0);

    char shape[64];
    npy_format_shape(0, NULL, shape, sizeof shape);
    cr_assert_str_eq(shape, "()");
    npy_format_shape(1, ext, shape, sizeof shape);
    cr_assert_str_eq(shape, "(2,)");
    npy_format_shape(2, ext, shape, sizeof shape);
    cr_assert_str_eq(shape, "(2, 3)");
}

Test(npy_write, round_trip_every_dtype)
{
    static const acc_scalar all[] = {ACC_BOOL, ACC_I8,  ACC_I16, ACC_I32,
                                     ACC_I64,  ACC_U8,  ACC_U16, ACC_U32,
                                     ACC_U64,  ACC_F32, ACC_F64};
    char path[] = "/tmp/accel_test_npy_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    unsigned char data[6 * 8];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 37 + 1);
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        int64_t ext[2] = {2, 3};
        size_t nbytes = 6 * acc_scalar_size(all[k]);
        if (all[k] == ACC_BOOL)
            for (size_t i = 0; i < 6; i++)
                data[i] = (unsigned char)(i % 2);
        cr_assert_eq(npy_save(path, all[k], 2, ext, data, err, sizeof err),
                     0, "%s", err);
        npy_array a;
        cr_assert_eq(npy_load(path, &a, err, sizeof err), 0, "%s", err);
        cr_assert_eq(a.info.scalar, all[k]);
        cr_assert_eq(a.info.rank, 2);
        cr_assert_eq(a.info.extents[1], 3);
        cr_assert_str_eq(a.info.descr, npy_descr(all[k]));
        cr_assert_eq(memcmp(a.data, data, nbytes), 0, "%s",
                     acc_scalar_name(all[k]));
        npy_array_free(&a);
    }
    /* a rank-0 and an empty array */
    double d = 2.5;
    cr_assert_eq(npy_save(path, ACC_F64, 0, NULL, &d, err, sizeof err), 0);
    npy_array a;
    cr_assert_eq(npy_load(path, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(a.info.rank, 0);
    cr_assert_eq(*(double *)a.data, 2.5);
    npy_array_free(&a);
    int64_t zero = 0;
    cr_assert_eq(npy_save(path, ACC_I32, 1, &zero, NULL, err, sizeof err), 0);
    cr_assert_eq(npy_load(path, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(a.info.count, 0);
    cr_assert_not_null(a.data);
    npy_array_free(&a);
    remove(path);
}

Test(npy_load, bools_are_normalised_and_errors_name_the_cause)
{
    char path[] = "/tmp/accel_test_npy_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    unsigned char buf[256];
    size_t len = image(buf, 1, "{'descr': '|b1', 'fortran_order': False, "
                               "'shape': (3,), }", 3);
    buf[len - 3] = 0;
    buf[len - 2] = 7;
    buf[len - 1] = 1;
    cr_assert_eq(write(fd, buf, len), (ssize_t)len);
    close(fd);
    npy_array a;
    cr_assert_eq(npy_load(path, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(((unsigned char *)a.data)[1], 1);
    npy_array_free(&a);
    remove(path);

    cr_assert_eq(npy_load("/nonexistent/x.npy", &a, err, sizeof err), -1);
    cr_assert(strstr(err, "cannot open"), "%s", err);
    cr_assert_null(a.data);
    cr_assert_eq(npy_load("/tmp", &a, err, sizeof err), -1);
    cr_assert(strstr(err, "cannot"), "%s", err);
    cr_assert_eq(npy_save("/nonexistent/y.npy", ACC_F32, 0, NULL, buf, err,
                          sizeof err), -1);
    cr_assert(strstr(err, "cannot create"), "%s", err);
}
