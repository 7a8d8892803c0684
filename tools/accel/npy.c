/*
 * npy.c — the .npy reader and writer (see npy.h for what is accepted).
 *
 * The header is a Python dict literal; it is parsed by a small cursor over
 * exactly the literals NumPy writes there (strings, True/False, tuples of
 * integers), so that anything else is refused with a sentence saying what
 * was found.  The host is assumed little-endian, as every platform accel
 * builds on is.
 */
#include "npy.h"
#include "escape.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* Every message may quote bytes of the file (a dtype, a key, what the
 * parser found), so it is escaped for the terminal here, in one place. */
static int fail(char *err, size_t err_size, const char *fmt, ...)
{
    char raw[NPY_ERROR_SIZE];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    if (err && err_size >= 4)
        escape_text(raw, n < 0 ? 0 : (size_t)n < sizeof raw ? (size_t)n
                                                            : sizeof raw - 1,
                    err, err_size);
    else if (err && err_size)
        err[0] = '\0';
    return -1;
}

/* --- dtypes ------------------------------------------------------------- */

static const struct {
    acc_scalar scalar;
    char kind;
    int size;
} npy_types[] = {
    {ACC_BOOL, 'b', 1}, {ACC_I8, 'i', 1},  {ACC_I16, 'i', 2},
    {ACC_I32, 'i', 4},  {ACC_I64, 'i', 8}, {ACC_U8, 'u', 1},
    {ACC_U16, 'u', 2},  {ACC_U32, 'u', 4}, {ACC_U64, 'u', 8},
    {ACC_F32, 'f', 4},  {ACC_F64, 'f', 8},
};
#define NPY_NUM_TYPES (sizeof npy_types / sizeof npy_types[0])

const char *npy_descr(acc_scalar scalar)
{
    static const char *const names[] = {
        [ACC_BOOL] = "|b1", [ACC_I8] = "|i1",  [ACC_I16] = "<i2",
        [ACC_I32] = "<i4",  [ACC_I64] = "<i8", [ACC_U8] = "|u1",
        [ACC_U16] = "<u2",  [ACC_U32] = "<u4", [ACC_U64] = "<u8",
        [ACC_F32] = "<f4",  [ACC_F64] = "<f8",
    };
    if ((int)scalar < ACC_BOOL || (int)scalar > ACC_F64)
        return NULL;
    return names[scalar];
}

/* Maps a descr string ("<f4") to an accel scalar. */
static int parse_descr(const char *descr, acc_scalar *out, char *err,
                       size_t err_size)
{
    char order = descr[0], kind = descr[0] ? descr[1] : 0;
    char *end = NULL;
    long size = kind ? strtol(descr + 2, &end, 10) : 0;
    int known = kind && descr[2] >= '0' && descr[2] <= '9' && *end == '\0';
    for (size_t i = 0; known && i < NPY_NUM_TYPES; i++) {
        if (npy_types[i].kind != kind || npy_types[i].size != size)
            continue;
        if (order == '<' || (size == 1 && (order == '|' || order == '>'))) {
            *out = npy_types[i].scalar;
            return 0;
        }
        if (order == '>')
            return fail(err, err_size,
                        "big-endian dtype %s is not supported (convert "
                        "with .astype('<%c%ld'))",
                        descr, kind, size);
        if (order == '|')
            return fail(err, err_size,
                        "dtype %s: byte order '|' is only valid for "
                        "one-byte types",
                        descr);
        break;
    }
    return fail(err, err_size,
                "unsupported dtype '%s' (accel reads <f4 <f8 <i1 <i2 <i4 "
                "<i8 <u1 <u2 <u4 <u8 |b1 |i1 |u1)",
                descr);
}

/* --- the header dictionary ----------------------------------------------- */

typedef struct cursor {
    const char *p, *end;
    char *err;
    size_t err_size;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end &&
           (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Skips spaces, then consumes `ch` if it is next. */
static int accept(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A short quote of what the cursor is at, for messages. */
static const char *found(const cursor *c, char *buf, size_t size)
{
    if (c->p >= c->end)
        return "the end of the header";
    size_t n = (size_t)(c->end - c->p);
    if (n > 12)
        n = 12;
    snprintf(buf, size, "'%.*s'", (int)n, c->p);
    return buf;
}

static int expected(cursor *c, const char *what)
{
    char buf[24];
    skip_space(c);
    return fail(c->err, c->err_size, "malformed header: expected %s, found %s",
                what, found(c, buf, sizeof buf));
}

/* A quoted string without escapes, into buf. */
static int parse_string(cursor *c, char *buf, size_t size)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return expected(c, "a quoted string");
    char quote = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\' || n + 1 >= size)
            return fail(c->err, c->err_size,
                        "malformed header: unsupported string");
        buf[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return expected(c, "the end of a string");
    c->p++;
    buf[n] = '\0';
    return 0;
}

static int parse_bool(cursor *c, int *out)
{
    skip_space(c);
    size_t left = (size_t)(c->end - c->p);
    if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
        c->p += 4;
        *out = 1;
        return 0;
    }
    if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
        c->p += 5;
        *out = 0;
        return 0;
    }
    return expected(c, "True or False");
}

static int parse_extent(cursor *c, int64_t *out)
{
    skip_space(c);
    int64_t v = 0;
    const char *start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        int d = *c->p++ - '0';
        if (v > (INT64_MAX - d) / 10)
            return fail(c->err, c->err_size,
                        "malformed header: an extent is too large");
        v = v * 10 + d;
    }
    if (c->p == start)
        return expected(c, "a non-negative integer extent");
    if (c->p < c->end && *c->p == 'L') /* written by Python 2 */
        c->p++;
    *out = v;
    return 0;
}

/* A tuple of extents: "()", "(3,)", "(2, 3)". */
static int parse_shape(cursor *c, npy_info *out)
{
    if (!accept(c, '('))
        return expected(c, "a shape tuple");
    out->rank = 0;
    while (!accept(c, ')')) {
        int64_t extent = 0;
        if (parse_extent(c, &extent) != 0)
            return -1;
        if (out->rank == ACC_MAX_RANK)
            return fail(c->err, c->err_size,
                        "the shape has more than %d dimensions, accel's "
                        "largest rank",
                        ACC_MAX_RANK);
        out->extents[out->rank++] = extent;
        if (!accept(c, ',')) {
            if (!accept(c, ')'))
                return expected(c, "',' or ')' in the shape");
            break;
        }
    }
    return 0;
}

enum { KEY_DESCR = 1, KEY_ORDER = 2, KEY_SHAPE = 4 };

/* One "key: value" entry; *seen collects the keys read so far. */
static int parse_entry(cursor *c, npy_info *out, int *seen)
{
    char key[32];
    if (parse_string(c, key, sizeof key) != 0)
        return -1;
    if (!accept(c, ':'))
        return expected(c, "':' after a key");
    int bit = strcmp(key, "descr") == 0           ? KEY_DESCR
              : strcmp(key, "fortran_order") == 0 ? KEY_ORDER
              : strcmp(key, "shape") == 0         ? KEY_SHAPE
                                                  : 0;
    if (!bit)
        return fail(c->err, c->err_size,
                    "malformed header: unexpected key '%s'", key);
    if (*seen & bit)
        return fail(c->err, c->err_size,
                    "malformed header: key '%s' appears twice", key);
    *seen |= bit;
    if (bit == KEY_SHAPE)
        return parse_shape(c, out);
    if (bit == KEY_ORDER) {
        int fortran = 0;
        if (parse_bool(c, &fortran) != 0)
            return -1;
        if (fortran)
            return fail(c->err, c->err_size,
                        "Fortran-order arrays are not supported (save a "
                        "C-order copy: np.ascontiguousarray)");
        return 0;
    }
    skip_space(c);
    if (c->p < c->end && *c->p == '[')
        return fail(c->err, c->err_size,
                    "structured dtypes are not supported (save one array "
                    "per field)");
    if (parse_string(c, out->descr, sizeof out->descr) != 0)
        return -1;
    return parse_descr(out->descr, &out->scalar, c->err, c->err_size);
}

/* The element count and byte size, refusing overflow. */
static int compute_sizes(npy_info *out, char *err, size_t err_size)
{
    size_t elem = acc_scalar_size(out->scalar);
    int64_t count = 1;
    for (int32_t i = 0; i < out->rank; i++) {
        int64_t e = out->extents[i];
        if (e != 0 && count > INT64_MAX / e)
            return fail(err, err_size, "the shape's element count overflows");
        count *= e;
    }
    if ((uint64_t)count > SIZE_MAX / elem)
        return fail(err, err_size, "the array is too large for memory");
    out->count = count;
    out->nbytes = (size_t)count * elem;
    return 0;
}

int npy_parse_header(const char *text, size_t len, npy_info *out, char *err,
                     size_t err_size)
{
    cursor c = {text, text + len, err, err_size};
    int seen = 0;
    memset(out, 0, sizeof *out);
    if (!accept(&c, '{'))
        return expected(&c, "'{'");
    while (!accept(&c, '}')) {
        if (parse_entry(&c, out, &seen) != 0)
            return -1;
        if (!accept(&c, ',')) {
            if (!accept(&c, '}'))
                return expected(&c, "',' or '}'");
            break;
        }
    }
    skip_space(&c);
    if (c.p != c.end)
        return expected(&c, "the end of the header");
    if (seen != (KEY_DESCR | KEY_ORDER | KEY_SHAPE))
        return fail(err, err_size, "malformed header: missing key '%s'",
                    !(seen & KEY_DESCR)   ? "descr"
                    : !(seen & KEY_ORDER) ? "fortran_order"
                                          : "shape");
    return compute_sizes(out, err, err_size);
}

/* --- whole files ----------------------------------------------------------- */

int npy_decode(const unsigned char *bytes, size_t len, npy_info *out,
               size_t *data_offset, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    *data_offset = 0;
    if (len < sizeof npy_magic || memcmp(bytes, npy_magic, sizeof npy_magic))
        return fail(err, err_size, "not a .npy file (bad magic)");
    if (len < 8)
        return fail(err, err_size, "truncated header (no version)");
    unsigned major = bytes[6], minor = bytes[7];
    if (major < 1 || major > 3 || minor != 0)
        return fail(err, err_size,
                    "unsupported .npy format version %u.%u (accel reads "
                    "1.0, 2.0 and 3.0)",
                    major, minor);
    size_t preamble = major == 1 ? 10 : 12;
    if (len < preamble)
        return fail(err, err_size, "truncated header (no header length)");
    size_t header_len = (size_t)bytes[8] | (size_t)bytes[9] << 8;
    if (major > 1)
        header_len |= (size_t)bytes[10] << 16 | (size_t)bytes[11] << 24;
    if (len - preamble < header_len)
        return fail(err, err_size,
                    "truncated header (%zu bytes announced, %zu present)",
                    header_len, len - preamble);
    if (npy_parse_header((const char *)bytes + preamble, header_len, out, err,
                         err_size) != 0)
        return -1;
    size_t offset = preamble + header_len;
    if (len - offset < out->nbytes) {
        char shape[128];
        npy_format_shape(out->rank, out->extents, shape, sizeof shape);
        return fail(err, err_size,
                    "data is shorter than the shape says: %s of %s needs "
                    "%zu bytes, the file has %zu",
                    shape, out->descr, out->nbytes, len - offset);
    }
    *data_offset = offset;
    return 0;
}

/* Reads a whole stream into a malloc'd buffer. */
static int read_all(FILE *f, unsigned char **out, size_t *len, char *err,
                    size_t err_size)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2)
                                                    : NULL;
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (!buf)
        return fail(err, err_size, "out of memory reading the file");
    if (ferror(f)) {
        int e = errno;
        free(buf);
        return fail(err, err_size, "cannot read: %s", strerror(e));
    }
    *out = buf;
    *len = n;
    return 0;
}

/* Bool elements must be 0 or 1 for accel; NumPy writes exactly those, but
 * any non-zero byte means True. */
static void normalise_bools(npy_array *a)
{
    unsigned char *p = a->data;
    if (a->info.scalar != ACC_BOOL)
        return;
    for (size_t i = 0; i < a->info.nbytes; i++)
        p[i] = p[i] != 0;
}

int npy_load(const char *path, npy_array *out, char *err, size_t err_size)
{
    unsigned char *buf = NULL;
    size_t len = 0, offset = 0;
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, err_size, "cannot open: %s", strerror(errno));
    int rc = read_all(f, &buf, &len, err, err_size);
    fclose(f);
    if (rc != 0)
        return -1;
    if (npy_decode(buf, len, &out->info, &offset, err, err_size) != 0) {
        free(buf);
        memset(out, 0, sizeof *out);
        return -1;
    }
    /* Keep the one buffer: move the data to its start (malloc alignment
     * suits every element type). */
    memmove(buf, buf + offset, out->info.nbytes);
    out->data = buf;
    normalise_bools(out);
    return 0;
}

void npy_array_free(npy_array *array)
{
    if (!array)
        return;
    free(array->data);
    array->data = NULL;
}

/* --- writing ----------------------------------------------------------------- */

void npy_format_shape(int32_t rank, const int64_t *extents, char *buf,
                      size_t buf_size)
{
    size_t n = 0;
    if (!buf_size)
        return;
    buf[0] = '\0';
    n += (size_t)snprintf(buf, buf_size, "(");
    for (int32_t i = 0; i < rank && n < buf_size; i++)
        n += (size_t)snprintf(buf + n, buf_size - n, "%s%lld",
                              i ? ", " : "", (long long)extents[i]);
    if (n < buf_size)
        snprintf(buf + n, buf_size - n, rank == 1 ? ",)" : ")");
}

size_t npy_format_header(acc_scalar scalar, int32_t rank,
                         const int64_t *extents, unsigned char *buf,
                         size_t buf_size)
{
    char shape[8 + ACC_MAX_RANK * 22], dict[256];
    const char *descr = npy_descr(scalar);
    if (!descr || rank < 0 || rank > ACC_MAX_RANK)
        return 0;
    npy_format_shape(rank, extents, shape, sizeof shape);
    int dict_len = snprintf(dict, sizeof dict,
                            "{'descr': '%s', 'fortran_order': False, "
                            "'shape': %s, }",
                            descr, shape);
    if (dict_len < 0 || (size_t)dict_len >= sizeof dict)
        return 0;
    /* version 1.0 has a 2-byte length; 2.0 a 4-byte one */
    size_t preamble = (size_t)dict_len + 11 <= 65535 ? 10 : 12;
    size_t total = (preamble + (size_t)dict_len + 1 + 63) / 64 * 64;
    size_t header_len = total - preamble;
    if (total > buf_size)
        return 0;
    memcpy(buf, npy_magic, sizeof npy_magic);
    buf[6] = preamble == 10 ? 1 : 2;
    buf[7] = 0;
    for (size_t i = 0; i < preamble - 8; i++)
        buf[8 + i] = (unsigned char)(header_len >> (8 * i));
    memcpy(buf + preamble, dict, (size_t)dict_len);
    memset(buf + preamble + dict_len, ' ', header_len - (size_t)dict_len - 1);
    buf[total - 1] = '\n';
    return total;
}

int npy_stage(outfile *f, acc_scalar scalar, int32_t rank,
              const int64_t *extents, const void *data, char *err,
              size_t err_size)
{
    unsigned char header[512];
    npy_info info = {.scalar = scalar, .rank = rank};
    size_t header_len = npy_format_header(scalar, rank, extents, header,
                                          sizeof header);
    if (!header_len)
        return fail(err, err_size, "cannot describe this array in .npy");
    if (rank > 0)
        memcpy(info.extents, extents, (size_t)rank * sizeof *extents);
    if (compute_sizes(&info, err, err_size) != 0)
        return -1;
    const void *pieces[2] = {header, data};
    size_t lens[2] = {header_len, info.nbytes};
    return outfile_stage(f, pieces, lens, 2, err, err_size);
}

int npy_save(const char *path, acc_scalar scalar, int32_t rank,
             const int64_t *extents, const void *data, char *err,
             size_t err_size)
{
    outfile f;
    int rc = outfile_check(path, &f, err, err_size);
    if (rc == 0)
        rc = npy_stage(&f, scalar, rank, extents, data, err, err_size);
    if (rc == 0)
        rc = outfile_commit(&f, err, err_size);
    outfile_discard(&f);
    return rc;
}
