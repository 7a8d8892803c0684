/*
 * print.c — NumPy-like printing of arrays (see print.h).
 *
 * Two passes over the elements that will be shown: the first finds the
 * widest, the second prints, so columns line up as in NumPy.
 */
#include "print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PRINT_THRESHOLD 1000 /* summarise arrays larger than this     */
#define PRINT_EDGE 3         /* entries kept at each end when summarised */
#define PRINT_WIDTH 75       /* line width                              */

/* The fewest significant digits (1..max) that read back as v. */
static int shortest_digits(double v, int is_f32)
{
    char buf[64];
    int max = is_f32 ? 9 : 17, prec = 1;
    for (; prec < max; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
        if (is_f32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            break;
    }
    return prec;
}

/* Like NumPy: positional for 1e-4 <= |v| < 1e16, scientific otherwise,
 * with the fewest digits that read back as the same value. */
static void format_float(double v, int is_f32, char *buf, size_t size)
{
    if (isnan(v) || isinf(v)) {
        snprintf(buf, size, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    int digits = shortest_digits(v, is_f32);
    double mag = fabs(v);
    if (v == 0 || (mag >= 1e-4 && mag < 1e16)) {
        int exp10 = v == 0 ? 0 : (int)floor(log10(mag));
        int decimals = digits - 1 - exp10;
        snprintf(buf, size, "%.*f", decimals > 0 ? decimals : 0, v);
        /* log10 can be off by one near powers of ten: keep it exact */
        if (is_f32 ? strtof(buf, NULL) != (float)v : strtod(buf, NULL) != v)
            snprintf(buf, size, "%.*f", decimals + 1 > 0 ? decimals + 1 : 0,
                     v);
    } else {
        snprintf(buf, size, "%.*e", digits - 1, v);
    }
    if (!strpbrk(buf, ".e") && strlen(buf) + 2 < size)
        strcat(buf, ".0");
}

void print_format_elem(acc_scalar scalar, const void *data, int64_t i,
                       char *buf, size_t size)
{
    switch (scalar) {
    case ACC_BOOL:
        snprintf(buf, size, "%s", ((const uint8_t *)data)[i] ? "True" : "False");
        break;
    case ACC_I8:
        snprintf(buf, size, "%d", ((const int8_t *)data)[i]);
        break;
    case ACC_I16:
        snprintf(buf, size, "%d", ((const int16_t *)data)[i]);
        break;
    case ACC_I32:
        snprintf(buf, size, "%ld", (long)((const int32_t *)data)[i]);
        break;
    case ACC_I64:
        snprintf(buf, size, "%lld", (long long)((const int64_t *)data)[i]);
        break;
    case ACC_U8:
        snprintf(buf, size, "%u", ((const uint8_t *)data)[i]);
        break;
    case ACC_U16:
        snprintf(buf, size, "%u", ((const uint16_t *)data)[i]);
        break;
    case ACC_U32:
        snprintf(buf, size, "%lu", (unsigned long)((const uint32_t *)data)[i]);
        break;
    case ACC_U64:
        snprintf(buf, size, "%llu",
                 (unsigned long long)((const uint64_t *)data)[i]);
        break;
    case ACC_F32:
        format_float(((const float *)data)[i], 1, buf, size);
        break;
    case ACC_F64:
        format_float(((const double *)data)[i], 0, buf, size);
        break;
    default:
        snprintf(buf, size, "?");
    }
}

/* What one printing pass needs. */
typedef struct printer {
    FILE *f;
    acc_scalar scalar;
    int32_t rank;
    const int64_t *extents;
    int64_t strides[ACC_MAX_RANK]; /* elements per step of each dimension */
    const void *data;
    int summarise;
    int width;  /* widest element shown                      */
    int column; /* current output column (printing pass)     */
    int measuring;
} printer;

/* Whether position k of dimension d is elided, and whether it is the one
 * position where "..." goes. */
static int skipped(const printer *p, int32_t d, int64_t k, int *ellipsis)
{
    int64_t n = p->extents[d];
    *ellipsis = 0;
    if (!p->summarise || n <= 2 * PRINT_EDGE)
        return 0;
    if (k < PRINT_EDGE || k >= n - PRINT_EDGE)
        return 0;
    *ellipsis = k == PRINT_EDGE;
    return 1;
}

static void put_text(printer *p, const char *s)
{
    if (!p->measuring)
        fputs(s, p->f);
    p->column += (int)strlen(s);
}

static void newline(printer *p, int blank_lines, int indent)
{
    for (int i = 0; i <= blank_lines; i++)
        if (!p->measuring)
            fputc('\n', p->f);
    if (!p->measuring)
        fprintf(p->f, "%*s", indent, "");
    p->column = indent;
}

/* One element, or "...", in a row of dimension d (innermost). */
static void put_item(printer *p, const char *text, int first, int32_t d)
{
    int len = (int)strlen(text), ellipsis = strcmp(text, "...") == 0;
    int w = ellipsis || len > p->width ? len : p->width;
    if (!first) {
        if (p->column + 1 + w + 1 > PRINT_WIDTH)
            newline(p, 0, d + 1);
        else
            put_text(p, " ");
    }
    if (p->measuring) {
        if (!ellipsis && len > p->width)
            p->width = len;
        return;
    }
    fprintf(p->f, "%*s", w, text);
    p->column += w;
}

static void print_dim(printer *p, int32_t d, int64_t offset)
{
    char buf[64];
    int ellipsis;
    put_text(p, "[");
    for (int64_t k = 0, first = 1; k < p->extents[d]; k++) {
        if (skipped(p, d, k, &ellipsis) && !ellipsis)
            continue;
        if (d == p->rank - 1) {
            if (!ellipsis)
                print_format_elem(p->scalar, p->data, offset + k, buf,
                                  sizeof buf);
            put_item(p, ellipsis ? "..." : buf, (int)first, d);
        } else {
            if (!first)
                newline(p, p->rank - d - 2, d + 1);
            if (ellipsis)
                put_text(p, "...");
            else
                print_dim(p, d + 1, offset + k * p->strides[d]);
        }
        first = 0;
    }
    put_text(p, "]");
}

void print_array(FILE *f, acc_scalar scalar, int32_t rank,
                 const int64_t *extents, const void *data)
{
    printer p = {f, scalar, rank, extents, {0}, data, 0, 0, 0, 0};
    int64_t count = 1;
    char buf[64];
    for (int32_t d = rank - 1; d >= 0; d--) {
        p.strides[d] = count;
        count *= extents[d];
    }
    if (rank == 0) {
        print_format_elem(scalar, data, 0, buf, sizeof buf);
        fprintf(f, "%s\n", buf);
        return;
    }
    if (count == 0) {
        fputs("[]\n", f);
        return;
    }
    p.summarise = count > PRINT_THRESHOLD;
    p.measuring = 1;
    print_dim(&p, 0, 0);
    p.measuring = 0;
    p.column = 0;
    print_dim(&p, 0, 0);
    fputc('\n', f);
}
