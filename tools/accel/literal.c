/*
 * literal.c — scalar parameters given on the command line (`--in 3`,
 * `--in 2.5`, `--in true`), converted to the parameter's type with range
 * checks: a literal that does not fit is refused, never wrapped.
 */
#include "literal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bool_word(const char *text, int *value)
{
    if (strcmp(text, "true") == 0 || strcmp(text, "True") == 0) {
        *value = 1;
        return 1;
    }
    if (strcmp(text, "false") == 0 || strcmp(text, "False") == 0) {
        *value = 0;
        return 1;
    }
    return 0;
}

int literal_is(const char *text)
{
    int b;
    char *end = NULL;
    if (bool_word(text, &b))
        return 1;
    if (!*text || *text == ' ' || *text == '\t' || *text == '\n')
        return 0;
    (void)strtod(text, &end);
    return end && *end == '\0';
}

static int refuse(const char *text, acc_scalar s, const char *why, char *err,
                  size_t size)
{
    snprintf(err, size, "%s %s %s", text, why, acc_scalar_name(s));
    return -1;
}

/* Signed integers: the range of each width. */
static int store_signed(const char *text, acc_scalar s, void *out, char *err,
                        size_t size)
{
    static const long long lo[] = {[ACC_I8] = INT8_MIN, [ACC_I16] = INT16_MIN,
                                   [ACC_I32] = INT32_MIN,
                                   [ACC_I64] = INT64_MIN};
    static const long long hi[] = {[ACC_I8] = INT8_MAX, [ACC_I16] = INT16_MAX,
                                   [ACC_I32] = INT32_MAX,
                                   [ACC_I64] = INT64_MAX};
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (*end != '\0')
        return refuse(text, s, "is not an integer, the parameter is", err,
                      size);
    if (errno == ERANGE || v < lo[s] || v > hi[s])
        return refuse(text, s, "is out of range for", err, size);
    int8_t v8 = (int8_t)v;
    int16_t v16 = (int16_t)v;
    int32_t v32 = (int32_t)v;
    int64_t v64 = (int64_t)v;
    memcpy(out,
           s == ACC_I8    ? (void *)&v8
           : s == ACC_I16 ? (void *)&v16
           : s == ACC_I32 ? (void *)&v32
                          : (void *)&v64,
           acc_scalar_size(s));
    return 0;
}

static int store_unsigned(const char *text, acc_scalar s, void *out,
                          char *err, size_t size)
{
    static const unsigned long long hi[] = {
        [ACC_U8] = UINT8_MAX, [ACC_U16] = UINT16_MAX, [ACC_U32] = UINT32_MAX,
        [ACC_U64] = UINT64_MAX};
    char *end = NULL;
    const char *p = text + (*text == '+');
    if (*p < '0' || *p > '9') {
        int is_negative_integer = *text == '-';
        if (is_negative_integer) {
            (void)strtoll(text, &end, 10);
            if (*end == '\0')
                return refuse(text, s, "is out of range for", err, size);
        }
        return refuse(text, s, "is not an integer, the parameter is", err,
                      size);
    }
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (*end != '\0')
        return refuse(text, s, "is not an integer, the parameter is", err,
                      size);
    if (errno == ERANGE || v > hi[s])
        return refuse(text, s, "is out of range for", err, size);
    uint8_t v8 = (uint8_t)v;
    uint16_t v16 = (uint16_t)v;
    uint32_t v32 = (uint32_t)v;
    uint64_t v64 = (uint64_t)v;
    memcpy(out,
           s == ACC_U8    ? (void *)&v8
           : s == ACC_U16 ? (void *)&v16
           : s == ACC_U32 ? (void *)&v32
                          : (void *)&v64,
           acc_scalar_size(s));
    return 0;
}

/* The smallest magnitude that rounds to infinity as f32: FLT_MAX plus half
 * an ulp (2^128 - 2^103); anything below rounds to a finite f32. */
#define F32_OVERFLOW 0x1.ffffffp127

/* A float must be finite in its type: a number beyond the largest finite
 * value is refused whatever its exponent (1e39 and 1e999 for f32, 1e309
 * for f64), while one below the smallest subnormal rounds to zero, as
 * IEEE 754 rounding does; inf, -inf and nan are taken as themselves. */
static int store_float(const char *text, acc_scalar s, void *out, char *err,
                       size_t size)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (*end != '\0')
        return refuse(text, s, "is not a number, the parameter is", err,
                      size);
    int overflow = errno == ERANGE && fabs(v) > 1.0; /* v is +-HUGE_VAL */
    if (overflow || (s == ACC_F32 && fabs(v) >= F32_OVERFLOW && !isinf(v)))
        return refuse(text, s, "is out of range for", err, size);
    if (s == ACC_F64) {
        memcpy(out, &v, sizeof v);
        return 0;
    }
    float f = (float)v;
    memcpy(out, &f, sizeof f);
    return 0;
}

int literal_store(const char *text, acc_scalar scalar, void *out, char *err,
                  size_t err_size)
{
    int b = 0;
    if (scalar == ACC_BOOL) {
        if (bool_word(text, &b) || strcmp(text, "0") == 0 ||
            strcmp(text, "1") == 0) {
            *(uint8_t *)out = (uint8_t)(b || strcmp(text, "1") == 0);
            return 0;
        }
        return refuse(text, scalar, "is not true or false, the parameter is",
                      err, err_size);
    }
    if (bool_word(text, &b))
        return refuse(text, scalar, "is a bool, the parameter is", err,
                      err_size);
    switch (scalar) {
    case ACC_I8:
    case ACC_I16:
    case ACC_I32:
    case ACC_I64:
        return store_signed(text, scalar, out, err, err_size);
    case ACC_U8:
    case ACC_U16:
    case ACC_U32:
    case ACC_U64:
        return store_unsigned(text, scalar, out, err, err_size);
    case ACC_F32:
    case ACC_F64:
        return store_float(text, scalar, out, err, err_size);
    default:
        snprintf(err, err_size, "unknown scalar type");
        return -1;
    }
}
