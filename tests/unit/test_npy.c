/*
 * test_npy.c — the .npy module of the accel tool (tools/accel/npy.c): the
 * header parser's edge cases, every malformed-file error, the header it
 * writes, and a save/load round trip for every dtype; with the modules it
 * uses: how outputs are written (outfile.c: special files refused, a
 * failed write leaves the target as it was, modes and links) and the
 * escaping of file bytes in messages (escape.c).
 */
#include <criterion/criterion.h>

#include "tools/accel/escape.h"
#include "tools/accel/npy.h"
#include "tools/accel/outfile.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* --- escaping ------------------------------------------------------------ */

static const char *esc(const char *in, size_t len)
{
    static char out[256];
    return escape_text(in, len, out, sizeof out);
}

#define ESC(lit) esc(lit, sizeof lit - 1)

Test(escape, controls_become_hex_and_text_stays)
{
    cr_assert_str_eq(ESC("dtype <f4, shape (3,)"), "dtype <f4, shape (3,)");
    cr_assert_str_eq(ESC("a\x1b[31mb"), "a\\x1b[31mb");
    cr_assert_str_eq(ESC("\x07\x7f\t\n\r"), "\\x07\\x7f\\x09\\x0a\\x0d");
    cr_assert_str_eq(ESC("a\0b"), "a\\x00b");
    cr_assert_str_eq(ESC("back\\slash"), "back\\slash");
}

Test(escape, utf8_is_kept_only_when_well_formed_and_printable)
{
    cr_assert_str_eq(ESC("donn\xc3\xa9" "es \xe2\x82\xac \xf0\x9d\x84\x9e"),
                     "donn\xc3\xa9" "es \xe2\x82\xac \xf0\x9d\x84\x9e");
    cr_assert_str_eq(ESC("\xc2\x9b" "1m"), "\\xc2\\x9b1m"); /* C1 CSI */
    cr_assert_str_eq(ESC("\xe2\x80\xae"), "\\xe2\\x80\\xae"); /* RLO */
    cr_assert_str_eq(ESC("\xc0\xaf"), "\\xc0\\xaf");          /* overlong */
    cr_assert_str_eq(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80"); /* surrogate */
    cr_assert_str_eq(ESC("\xf4\x90\x80\x80"),
                     "\\xf4\\x90\\x80\\x80"); /* beyond U+10FFFF */
    cr_assert_str_eq(ESC("\xe2\x82"), "\\xe2\\x82");         /* truncated */
    cr_assert_str_eq(ESC("\xff\xfe"), "\\xff\\xfe");
}

Test(escape, the_length_is_bounded)
{
    char in[100], out[20];
    memset(in, 0x1b, sizeof in);
    escape_text(in, sizeof in, out, sizeof out);
    cr_assert_str_eq(out, "\\x1b\\x1b\\x1b\\x1b...");
    escape_text("abc", 3, out, 4);
    cr_assert_str_eq(out, "abc"); /* exactly fits: not cut */
    escape_text("abcd", 4, out, 4);
    cr_assert_str_eq(out, "...");
    /* a UTF-8 character is never cut in the middle */
    escape_text("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 9, out, 8);
    cr_assert_str_eq(out, "\xe2\x82\xac...");
}

Test(npy_header, file_bytes_in_messages_are_escaped)
{
    refused("{'descr': '\x1b[2J\x07', 'fortran_order': False, 'shape': (3,)}",
            "unsupported dtype '\\x1b[2J\\x07'");
    cr_assert_null(strchr(err, '\x1b'), "%s", err);
    refused("{'\x1b]0;x\x07': 1}", "unexpected key '\\x1b]0;x\\x07'");
    refused("{'descr': '<f4', 'fortran_order': \x1b\x1b\x1b\x1b\x1b\x1b\x1b"
            "\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b}",
            "found '\\x1b\\x1b\\x1b\\x1b\\x1b\\x1b\\x1b\\x1b\\x1b\\x1b\\x1b"
            "\\x1b'"); /* 12 bytes quoted, no more */
    cr_assert_null(strchr(err, '\x1b'), "%s", err);
}

/* --- writing outputs ------------------------------------------------------- */

/* A fresh folder for one test (Criterion runs each test in a process of
 * its own, so one static buffer is enough). */
static const char *scratch(void)
{
    static char dir[] = "/tmp/accel_test_out_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

static const char *in_dir(const char *dir, const char *name)
{
    static char buf[4][512];
    static int next;
    char *p = buf[next++ % 4];
    int n = snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    cr_assert(n > 0 && (size_t)n < sizeof buf[0], "path too long");
    return p;
}

/* The number of entries of a folder, and whether one is a temporary
 * file of outfile.c. */
static size_t entries(const char *dir, int *temporaries)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    cr_assert_not_null(d);
    *temporaries = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        *temporaries |= strstr(e->d_name, ".accel-") != NULL;
    }
    closedir(d);
    return n;
}

/* Removes the scratch folder and what the test made in it (one level). */
static void remove_scratch(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            if (unlink(in_dir(dir, e->d_name)) != 0)
                rmdir(in_dir(dir, e->d_name));
    if (d)
        closedir(d);
    rmdir(dir);
}

static size_t file_bytes(const char *path, unsigned char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    size_t n = fread(buf, 1, size, f);
    fclose(f);
    return n;
}

static int save_f32(const char *path, int64_t n, const float *data)
{
    err[0] = '\0';
    return npy_save(path, ACC_F32, 1, &n, data, err, sizeof err);
}

/* The FIFO case would block forever in open() if the target were opened:
 * the timeout turns that into a failure. */
Test(npy_save, special_files_are_refused_and_kept, .timeout = 20)
{
    const char *dir = scratch();
    float v[3] = {1, 2, 3};
    struct stat full, st;
    int tmps;
    /* a copy of /dev/full's device node, never the real one */
    const char *dev = in_dir(dir, "full");
    cr_assert_eq(stat("/dev/full", &full), 0);
    if (mknod(dev, S_IFCHR | 0666, full.st_rdev) == 0) {
        cr_assert_eq(save_f32(dev, 3, v), -1);
        cr_assert(strstr(err, "is a character device, not a regular file"),
                  "%s", err);
        cr_assert_eq(lstat(dev, &st), 0, "the device node was removed");
        cr_assert(S_ISCHR(st.st_mode) && st.st_rdev == full.st_rdev);
    } else {
        cr_log_warn("mknod refused: the device case is not run");
    }
    const char *fifo = in_dir(dir, "fifo");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(save_f32(fifo, 3, v), -1);
    cr_assert(strstr(err, "is a FIFO, not a regular file"), "%s", err);
    cr_assert(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    cr_assert_eq(save_f32(dir, 3, v), -1);
    cr_assert(strstr(err, "is a folder"), "%s", err);
    cr_assert_eq(symlink("fifo", in_dir(dir, "to_fifo")), 0);
    cr_assert_eq(save_f32(in_dir(dir, "to_fifo"), 3, v), -1);
    cr_assert(strstr(err, "symbolic link to a FIFO"), "%s", err);
    size_t n = entries(dir, &tmps);
    cr_assert(!tmps && n == (lstat(dev, &st) == 0 ? 3u : 2u), "%zu", n);
    remove_scratch(dir);
}

/* Runs npy_save of a 400 KB array in a child whose files may not grow
 * beyond 4 KiB (RLIMIT_FSIZE: EFBIG, as a full disk gives ENOSPC); returns
 * whether it failed with "File too large". */
static int save_beyond_limit(const char *path)
{
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        static float big[100000];
        struct rlimit lim = {4096, 4096};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(2);
        int rc = save_f32(path, 100000, big);
        _exit(rc == -1 && strstr(err, "cannot write: File too large") ? 0
                                                                        : 1);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

Test(npy_save, a_failed_write_leaves_the_target_as_it_was)
{
    const char *dir = scratch();
    const char *keep = in_dir(dir, "keep.npy");
    float v[5] = {1, 2, 3, 4, 5};
    unsigned char before[512], after[512];
    int tmps;
    cr_assert_eq(save_f32(keep, 5, v), 0, "%s", err);
    size_t n = file_bytes(keep, before, sizeof before);
    /* the old writer truncated keep.npy, failed, then removed it */
    cr_assert(save_beyond_limit(keep), "the write did not fail as expected");
    cr_assert_eq(file_bytes(keep, after, sizeof after), n);
    cr_assert_eq(memcmp(before, after, n), 0, "the target was changed");
    cr_assert(save_beyond_limit(in_dir(dir, "new.npy")));
    cr_assert_eq(entries(dir, &tmps), 1, "a file was left behind");
    cr_assert(!tmps);
    remove_scratch(dir);
}

Test(npy_save, replacing_keeps_the_mode_and_follows_links)
{
    const char *dir = scratch();
    const char *old = in_dir(dir, "old.npy");
    float v[2] = {1, 2}, w[3] = {7, 8, 9};
    struct stat st;
    npy_array a;
    int tmps;
    cr_assert_eq(save_f32(old, 2, v), 0, "%s", err);
    cr_assert_eq(chmod(old, 0604), 0);
    cr_assert_eq(save_f32(old, 3, w), 0, "%s", err);
    cr_assert(stat(old, &st) == 0 && (st.st_mode & 07777) == 0604, "%o",
              (unsigned)st.st_mode);
    cr_assert_eq(npy_load(old, &a, err, sizeof err), 0, "%s", err);
    cr_assert(a.info.count == 3 && memcmp(a.data, w, sizeof w) == 0);
    npy_array_free(&a);
    /* through a symbolic link: the file it names is replaced */
    cr_assert_eq(symlink("old.npy", in_dir(dir, "link.npy")), 0);
    cr_assert_eq(save_f32(in_dir(dir, "link.npy"), 2, v), 0, "%s", err);
    cr_assert(lstat(in_dir(dir, "link.npy"), &st) == 0 &&
              S_ISLNK(st.st_mode), "the link was replaced");
    cr_assert_eq(npy_load(old, &a, err, sizeof err), 0, "%s", err);
    cr_assert(a.info.count == 2 && memcmp(a.data, v, sizeof v) == 0);
    npy_array_free(&a);
    cr_assert_eq(entries(dir, &tmps), 2);
    cr_assert(!tmps);
    remove_scratch(dir);
}

Test(outfile, checks_and_identities)
{
    const char *dir = scratch();
    outfile a, b;
    char e2[NPY_ERROR_SIZE], name[300];
    cr_assert_eq(outfile_check("", &a, err, sizeof err), -1);
    cr_assert_str_eq(err, "empty file name");
    outfile_discard(&a);
    snprintf(name, sizeof name, "%s/", dir);
    cr_assert_eq(outfile_check(name, &a, err, sizeof err), -1);
    cr_assert(strstr(err, "ends with '/'"), "%s", err);
    outfile_discard(&a);
    cr_assert_eq(outfile_check(in_dir(dir, "no/x.npy"), &a, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "its folder does not exist"), "%s", err);
    outfile_discard(&a);
    /* new files: one folder and one name */
    snprintf(name, sizeof name, "%s/./a.npy", dir);
    cr_assert_eq(outfile_check(in_dir(dir, "a.npy"), &a, err, sizeof err), 0);
    cr_assert_eq(outfile_check(name, &b, e2, sizeof e2), 0, "%s", e2);
    cr_assert(outfile_same(&a, &b));
    outfile_discard(&b);
    cr_assert_eq(outfile_check(in_dir(dir, "b.npy"), &b, e2, sizeof e2), 0);
    cr_assert(!outfile_same(&a, &b));
    outfile_discard(&a);
    outfile_discard(&b);
    /* existing files: hard and symbolic links are the same file */
    float v = 1;
    cr_assert_eq(save_f32(in_dir(dir, "h1.npy"), 1, &v), 0, "%s", err);
    cr_assert_eq(link(in_dir(dir, "h1.npy"), in_dir(dir, "h2.npy")), 0);
    cr_assert_eq(symlink("h2.npy", in_dir(dir, "l.npy")), 0);
    cr_assert_eq(outfile_check(in_dir(dir, "h1.npy"), &a, err, sizeof err), 0);
    cr_assert_eq(outfile_check(in_dir(dir, "l.npy"), &b, e2, sizeof e2), 0);
    cr_assert(outfile_same(&a, &b));
    outfile_discard(&a);
    outfile_discard(&b);
    remove_scratch(dir);
}

Test(outfile, a_target_replaced_by_a_fifo_is_not_renamed_over)
{
    const char *dir = scratch();
    const char *t = in_dir(dir, "t.npy");
    const void *pieces[1] = {"data"};
    size_t lens[1] = {4};
    struct stat st;
    outfile f;
    int tmps;
    cr_assert_eq(outfile_check(t, &f, err, sizeof err), 0, "%s", err);
    cr_assert_eq(outfile_stage(&f, pieces, lens, 1, err, sizeof err), 0);
    cr_assert_eq(entries(dir, &tmps), 1);
    cr_assert(tmps, "no temporary file while staged");
    cr_assert_eq(mkfifo(t, 0600), 0); /* appears after the check */
    cr_assert_eq(outfile_commit(&f, err, sizeof err), -1);
    cr_assert(strstr(err, "it is now a FIFO"), "%s", err);
    cr_assert(lstat(t, &st) == 0 && S_ISFIFO(st.st_mode));
    outfile_discard(&f);
    cr_assert_eq(entries(dir, &tmps), 1);
    cr_assert(!tmps, "the temporary file was left behind");
    /* staged then discarded: nothing written, nothing left */
    cr_assert_eq(outfile_check(in_dir(dir, "u.npy"), &f, err, sizeof err), 0);
    cr_assert_eq(outfile_stage(&f, pieces, lens, 1, err, sizeof err), 0);
    outfile_discard(&f);
    cr_assert_eq(entries(dir, &tmps), 1);
    cr_assert(!tmps);
    remove_scratch(dir);
}
