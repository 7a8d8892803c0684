/*
 * compare.c — the comparison rules (docs/TESTING.md, "Tolerance").
 *
 * Exact (every output but float (+)/(*) reductions): the same rank and
 * extents, integers and bools bit for bit, floats bit for bit (so -0.0 is
 * not 0.0) except that any NaN matches any NaN (LANGUAGE.md does not fix
 * NaN payloads).
 *
 * A float (+) reduction may be reassociated (LANGUAGE.md §3.2).  Each
 * result element r combines k terms (the seed included) whose magnitudes
 * sum to S over the finite ones; its shadow (gen_reduce.c) gives k, S and
 * the number of NaN, +inf and -inf terms.  Summed in any order with
 * rounding unit u (2^-24 for f32, 2^-53 for f64), every partial sum is
 * exact up to a relative (k-1)u of S, so two orders differ by at most
 * 2(k-1)u S; the rule is:
 *  - a NaN term, or both infinities: both results NaN;
 *  - else when S (1 + 2ku) reaches the largest finite value, a partial sum
 *    may overflow in one order only: not compared (counted as unbounded);
 *  - else +inf / -inf terms: both results that infinity;
 *  - else |a - b| <= 2 k u S + the smallest denormal.
 * A float (*) reduction runs over values in [0.992, 1.008] and a seed in
 * {1, -1, 0.5, 2, -0.75} (no overflow, underflow, zero or NaN can
 * happen), so |a - b| <= 2.02 k u max(|a|, |b|) (k from the shadow).
 * Both bounds are a few units in the last place of S for small k: an
 * element dropped, repeated or misplaced changes the result by a whole
 * term, far beyond them unless that term is below 2ku S.
 *
 * A libm output (gen_libm.c) is one libm function of arguments every
 * backend computes exactly alike.  LANGUAGE.md §2 names the functions
 * but does not fix their results (only the IEEE operations + - * / sqrt
 * are exact): the interpreter calls glibc's libm, the cpu backend the
 * same functions except where gcc calls libmvec's exp/log in a
 * vectorised loop or folds a call with constant arguments (correctly
 * rounded, by MPFR), and CUDA its own.  Each side is within the
 * documented maximum error of what computed it, so the two differ by at
 * most the sum (dz_libm_ulps), in units in the last place of the larger
 * result; NaN must match NaN, an infinity the same infinity (or the
 * largest finite value within the bound: an overflow threshold), and
 * both zeros the same zero.
 */
#include "diff.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

/* "[i, j]" of linear position p in a's extents. */
static void index_text(const acc_array *a, int64_t p, char *buf, size_t len)
{
    int64_t ix[ACC_MAX_RANK];
    for (int d = a->rank - 1; d >= 0; d--) {
        int64_t e = a->extents[d] ? a->extents[d] : 1;
        ix[d] = p % e;
        p /= e;
    }
    size_t at = (size_t)snprintf(buf, len, "[");
    for (int d = 0; d < a->rank && at < len; d++)
        at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, d ? ", " : "",
                               ix[d]);
    if (at < len)
        snprintf(buf + at, len - at, "]");
}

static double as_double(acc_scalar s, const void *p)
{
    if (s == ACC_F32) {
        float f;
        memcpy(&f, p, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, p, sizeof d);
    return d;
}

/* The scalar at p as text: integers in decimal, floats with all digits. */
static void value_text(acc_scalar s, const void *p, char *buf, size_t len)
{
    int64_t i = 0;
    uint64_t u = 0;
    switch (s) {
    case ACC_BOOL: snprintf(buf, len, "%s", *(const uint8_t *)p ? "true" : "false"); return;
    case ACC_I8: i = *(const int8_t *)p; break;
    case ACC_I16: { int16_t v; memcpy(&v, p, 2); i = v; break; }
    case ACC_I32: { int32_t v; memcpy(&v, p, 4); i = v; break; }
    case ACC_I64: memcpy(&i, p, 8); break;
    case ACC_U8: u = *(const uint8_t *)p; snprintf(buf, len, "%" PRIu64, u); return;
    case ACC_U16: { uint16_t v; memcpy(&v, p, 2); snprintf(buf, len, "%u", v); return; }
    case ACC_U32: { uint32_t v; memcpy(&v, p, 4); snprintf(buf, len, "%" PRIu32, v); return; }
    case ACC_U64: memcpy(&u, p, 8); snprintf(buf, len, "%" PRIu64, u); return;
    default:
        snprintf(buf, len, s == ACC_F32 ? "%.9g (%a)" : "%.17g (%a)",
                 as_double(s, p), as_double(s, p));
        return;
    }
    snprintf(buf, len, "%" PRId64, i);
}

static int exact_equal(acc_scalar s, const void *a, const void *b)
{
    if (s == ACC_F32 || s == ACC_F64) {
        double x = as_double(s, a), y = as_double(s, b);
        if (isnan(x) || isnan(y))
            return isnan(x) && isnan(y);
    }
    return memcmp(a, b, acc_scalar_size(s)) == 0;
}

/* The shadow's five f64 leaves at element i. */
static void shadow_at(const acc_array *sh, int64_t i, double v[5])
{
    for (size_t l = 0; l < 5; l++)
        memcpy(&v[l], (const char *)sh->data[l] + i * 8, 8);
}

/* Rule for a float (+) element; 1 when a and b agree.  *skip is set when
 * the element cannot be bounded. */
static int sum_agrees(int f32, double a, double b, const double sh[5],
                      int *skip)
{
    double u = f32 ? 0x1p-24 : 0x1p-53, big = f32 ? FLT_MAX : DBL_MAX;
    double tiny = f32 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
    double S = sh[0], k = sh[4];
    *skip = 0;
    if (sh[1] > 0 || (sh[2] > 0 && sh[3] > 0))
        return isnan(a) && isnan(b);
    if (S * (1 + 2 * k * u) >= big || isinf(S)) {
        *skip = 1;
        return 1;
    }
    if (sh[2] > 0)
        return a == INFINITY && b == INFINITY;
    if (sh[3] > 0)
        return a == -INFINITY && b == -INFINITY;
    if (!isfinite(a) || !isfinite(b))
        return 0;
    return fabs(a - b) <= 2 * k * u * S + tiny;
}

static int product_agrees(int f32, double a, double b, const double sh[5])
{
    double u = f32 ? 0x1p-24 : 0x1p-53;
    if (!isfinite(a) || !isfinite(b))
        return isnan(a) ? isnan(b) : a == b;
    return fabs(a - b) <= 2.02 * sh[4] * u * fmax(fabs(a), fabs(b));
}

/* glibc's documented maximum errors on x86_64 in round-to-nearest
 * (sysdeps/x86_64/fpu/libm-test-ulps, "Function:" entries; an entry
 * missing or 0 is taken as 1, the "less than 1 ulp" glibc promises for
 * these functions): {f32, f64} for the scalar functions the interpreter
 * calls, and for the libmvec vector variants (_vlenN, the largest N) the
 * cpu backend's vectorised loops call for exp and log.  A call gcc folds
 * is correctly rounded (0.5, counted as 1). */
typedef struct libm_err {
    acc_primop op;
    int scalar[2], vector[2];
} libm_err;

static const libm_err libm_errs[] = {
    {ACC_OP_EXP, {1, 1}, {1, 1}},   {ACC_OP_LOG, {1, 1}, {3, 1}},
    {ACC_OP_SIN, {1, 1}, {0, 0}},   {ACC_OP_COS, {1, 1}, {0, 0}},
    {ACC_OP_TAN, {1, 1}, {0, 0}},   {ACC_OP_ASIN, {1, 1}, {0, 0}},
    {ACC_OP_ACOS, {1, 1}, {0, 0}},  {ACC_OP_ATAN, {1, 1}, {0, 0}},
    {ACC_OP_SINH, {2, 2}, {0, 0}},  {ACC_OP_COSH, {2, 2}, {0, 0}},
    {ACC_OP_TANH, {2, 2}, {0, 0}},  {ACC_OP_ATAN2, {2, 1}, {0, 0}},
    {ACC_OP_POW, {1, 1}, {0, 0}},
};

int dz_libm_ulps(acc_primop op, acc_scalar t)
{
    int d = t == ACC_F64;
    if (op == ACC_OP_LOGBASE) {
        /* log y / log x: each log within e ulps, their quotient within
         * 2e before its rounding, and both quotients rounded (1) */
        return 2 * dz_libm_ulps(ACC_OP_LOG, t) + 1;
    }
    for (size_t i = 0; i < sizeof libm_errs / sizeof *libm_errs; i++)
        if (libm_errs[i].op == op) {
            int other = libm_errs[i].vector[d] > 1 ? libm_errs[i].vector[d] : 1;
            return libm_errs[i].scalar[d] + other;
        }
    return -1;
}

/* Rule for a libm element (see the file comment). */
static int libm_agrees(int f32, double a, double b, int ulps)
{
    double big = f32 ? FLT_MAX : DBL_MAX;
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (a == b)
        return a != 0 || signbit(a) == signbit(b);
    /* the spacing of the floats at the larger magnitude; at the largest
     * finite value, the last spacing below it */
    double top = big - (f32 ? (double)nextafterf(FLT_MAX, 0)
                            : nextafter(DBL_MAX, 0));
    if (isinf(a) || isinf(b)) {
        double f = isinf(a) ? b : a, inf = isinf(a) ? a : b;
        if (isinf(f) || signbit(f) != signbit(inf))
            return 0;
        /* one side overflowed: the other within the bound of the
         * largest finite value */
        return big - fabs(f) <= ulps * top;
    }
    double m = fmax(fabs(a), fabs(b));
    double ulp = f32 ? (double)(nextafterf((float)m, INFINITY) - (float)m)
                     : nextafter(m, INFINITY) - m;
    if (isinf(ulp))
        ulp = top;
    return fabs(a - b) <= ulps * ulp;
}

static int same_shape(const acc_array *got, const acc_array *want, char *why,
                      size_t len)
{
    if (got->rank != want->rank) {
        snprintf(why, len, "rank %d, the reference has rank %d",
                 (int)got->rank, (int)want->rank);
        return 0;
    }
    for (int d = 0; d < want->rank; d++)
        if (got->extents[d] != want->extents[d]) {
            snprintf(why, len, "extent %d is %" PRId64 ", the reference's is "
                     "%" PRId64, d, got->extents[d], want->extents[d]);
            return 0;
        }
    return 1;
}

static int element_differs(char *why, size_t len, const acc_array *want,
                           size_t leaf, int64_t i, const void *x,
                           const void *y, const char *rule)
{
    char ix[96], a[80], b[80];
    acc_scalar s = acc_type_leaf(want->type, leaf);
    index_text(want, i, ix, sizeof ix);
    value_text(s, x, a, sizeof a);
    value_text(s, y, b, sizeof b);
    snprintf(why, len, "element %s leaf %zu (%s): got %s, the reference has "
             "%s%s", ix, leaf, acc_scalar_name(s), a, b, rule);
    return 0;
}

int dz_compare_output(const acc_array *got, const acc_array *want,
                      dz_cmp cmp, int ulps, const acc_array *shadow,
                      char *why, size_t len, uint64_t *unbounded)
{
    if (!same_shape(got, want, why, len))
        return 0;
    int64_t n = acc_array_size(want);
    size_t leaves = acc_type_leaf_count(want->type);
    if (cmp == DZ_CMP_LIBM && (leaves != 1 || ulps < 1)) {
        snprintf(why, len, "a libm output is not one float with a bound "
                 "(a generator bug)");
        return 0;
    }
    if ((cmp == DZ_CMP_SUM || cmp == DZ_CMP_PRODUCT) && (!shadow || acc_array_size(shadow) != n ||
                                leaves != 1)) {
        snprintf(why, len, "the shadow of a float reduction does not match "
                 "its result (a generator bug)");
        return 0;
    }
    for (size_t l = 0; l < leaves; l++) {
        acc_scalar s = acc_type_leaf(want->type, l);
        size_t w = acc_scalar_size(s);
        for (int64_t i = 0; i < n; i++) {
            const char *x = (const char *)got->data[l] + i * (int64_t)w;
            const char *y = (const char *)want->data[l] + i * (int64_t)w;
            if (cmp == DZ_CMP_EXACT || (s != ACC_F32 && s != ACC_F64)) {
                if (!exact_equal(s, x, y))
                    return element_differs(why, len, want, l, i, x, y, "");
                continue;
            }
            double sh[5], a = as_double(s, x), b = as_double(s, y);
            int skip = 0;
            if (cmp == DZ_CMP_LIBM) {
                if (libm_agrees(s == ACC_F32, a, b, ulps))
                    continue;
                char rule[80];
                snprintf(rule, sizeof rule, " (more than %d ulps apart: the "
                         "libm bound)", ulps);
                return element_differs(why, len, want, l, i, x, y, rule);
            }
            shadow_at(shadow, i, sh);
            int ok = cmp == DZ_CMP_SUM ? sum_agrees(s == ACC_F32, a, b, sh, &skip)
                                       : product_agrees(s == ACC_F32, a, b, sh);
            *unbounded += (uint64_t)skip;
            if (!ok) {
                char rule[200];
                snprintf(rule, sizeof rule, " (beyond the reassociation bound: "
                         "%g terms, sum of magnitudes %g, %g NaN, %g +inf, %g "
                         "-inf)", sh[4], sh[0], sh[1], sh[2], sh[3]);
                return element_differs(why, len, want, l, i, x, y, rule);
            }
        }
    }
    return 1;
}
