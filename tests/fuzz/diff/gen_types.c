/*
 * gen_types.c — the scalar types the generator draws from, random element
 * types (scalars and nested tuples), and random values biased towards the
 * edges of each type: the integer limits, -0.0, NaN, the infinities,
 * denormals, halves (rounding), values just beyond the integer ranges
 * (saturating conversions).
 */
#include "gen.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const acc_scalar all_scalars[] = {
    ACC_BOOL, ACC_I8, ACC_I16, ACC_I32, ACC_I64, ACC_U8,
    ACC_U16, ACC_U32, ACC_U64, ACC_F32, ACC_F64};

int dz_is_int(acc_scalar s) { return s >= ACC_I8 && s <= ACC_U64; }
int dz_is_signed(acc_scalar s) { return s >= ACC_I8 && s <= ACC_I64; }
int dz_is_float(acc_scalar s) { return s == ACC_F32 || s == ACC_F64; }
int dz_bits(acc_scalar s) { return (int)acc_scalar_size(s) * 8; }

acc_scalar dz_any_scalar(uint64_t *rng)
{
    return all_scalars[dz_rnd(rng, sizeof all_scalars / sizeof *all_scalars)];
}

const acc_type *dz_scalar_type(acc_scalar s)
{
    return acc_type_scalar(s);
}

const acc_type *dz_tuple_type(dz_gen *s, size_t n, const acc_type *const *f)
{
    return acc_type_tuple(s->ctx, n, f);
}

/* Mostly scalars; a quarter tuples of 2 or 3 fields, a field sometimes a
 * pair itself. */
const acc_type *dz_any_elem(dz_gen *s, int max_leaves)
{
    if (max_leaves < 2 || !dz_chance(&s->rng, 1, 4))
        return dz_scalar_type(dz_any_scalar(&s->rng));
    const acc_type *f[3];
    size_t n = 2 + (max_leaves >= 3 && dz_chance(&s->rng, 1, 3));
    int left = max_leaves - (int)n;
    for (size_t i = 0; i < n; i++) {
        if (left >= 1 && dz_chance(&s->rng, 1, 5)) {
            const acc_type *pair[2] = {
                dz_scalar_type(dz_any_scalar(&s->rng)),
                dz_scalar_type(dz_any_scalar(&s->rng))};
            f[i] = dz_tuple_type(s, 2, pair);
            left--;
        } else {
            f[i] = dz_scalar_type(dz_any_scalar(&s->rng));
        }
    }
    return dz_tuple_type(s, n, f);
}

/* ---- values --------------------------------------------------------------------- */

static int64_t int_min(acc_scalar s)
{
    return dz_is_signed(s) ? -(int64_t)((1ull << (dz_bits(s) - 1)) - 1) - 1 : 0;
}

static uint64_t uint_max(acc_scalar s)
{
    int b = dz_bits(s);
    return b == 64 ? UINT64_MAX : (1ull << b) - 1;
}

static int64_t int_max(acc_scalar s)
{
    return (int64_t)(uint_max(s) >> (dz_is_signed(s) ? 1 : 0));
}

/* An edge value of integer type s (as a 64-bit pattern: sign-extended for
 * signed types, wrapped by the store). */
static uint64_t int_edge(uint64_t *rng, acc_scalar s)
{
    switch (dz_rnd(rng, 10)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return (uint64_t)-1;
    case 3: return (uint64_t)int_min(s);
    case 4: return (uint64_t)int_max(s);
    case 5: return (uint64_t)int_min(s) + 1;
    case 6: return (uint64_t)int_max(s) - 1;
    case 7: return 1ull << (dz_bits(s) - 1);
    case 8: return (uint64_t)dz_rnd(rng, 70) - 3; /* shift amounts */
    default: return dz_next(rng);
    }
}

static double float_edge(uint64_t *rng, acc_scalar s)
{
    int f32 = s == ACC_F32;
    static const double fixed[] = {0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5,
                                   -2.5, 3.5, 1e10, -1e10, 2147483648.0,
                                   -2147483649.0, 9223372036854775808.0,
                                   18446744073709551616.0, 255.5, -128.5,
                                   65535.5, 0.1, 1.0 / 3.0};
    switch (dz_rnd(rng, 12)) {
    case 0: return -0.0;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return NAN;
    case 4: return f32 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
    case 5: return -(f32 ? FLT_MIN : DBL_MIN) / 2; /* a denormal */
    case 6: return f32 ? FLT_MIN : DBL_MIN;
    case 7: return f32 ? FLT_MAX : DBL_MAX;
    case 8: return f32 ? -FLT_MAX : -DBL_MAX;
    default: return fixed[dz_rnd(rng, sizeof fixed / sizeof *fixed)];
    }
}

static double float_plain(uint64_t *rng)
{
    double v = ((double)dz_rnd(rng, 20001) - 10000) / 100.0;
    return dz_chance(rng, 1, 8) ? v * 1e-3 : v;
}

static void store_int(acc_scalar s, uint64_t v, void *out)
{
    size_t w = acc_scalar_size(s);
    if (s == ACC_BOOL)
        v = v & 1;
    memcpy(out, &v, w); /* little-endian: the low bytes */
}

void dz_random_value(uint64_t *rng, acc_scalar s, int edge_pct, void *out)
{
    int edge = (int)dz_rnd(rng, 100) < edge_pct;
    if (s == ACC_BOOL) {
        store_int(s, dz_next(rng), out);
    } else if (dz_is_int(s)) {
        uint64_t v = edge ? int_edge(rng, s)
                          : dz_is_signed(s) ? (uint64_t)((int64_t)dz_rnd(rng, 201) - 100)
                                            : dz_rnd(rng, 201);
        store_int(s, v, out);
    } else {
        double v = edge ? float_edge(rng, s) : float_plain(rng);
        if (s == ACC_F32) {
            float f = (float)v;
            memcpy(out, &f, sizeof f);
        } else {
            memcpy(out, &v, sizeof v);
        }
    }
}

acc_node *dz_const(dz_gen *s, acc_scalar sc, int no_nan)
{
    union {
        uint64_t u;
        int64_t i;
        float f;
        double d;
        unsigned char b[8];
    } v = {0};
    do {
        v.u = 0;
        dz_random_value(&s->rng, sc, 30, &v);
    } while (no_nan && dz_is_float(sc) &&
             isnan(sc == ACC_F32 ? (double)v.f : v.d));
    if (sc == ACC_BOOL)
        return acc_const_bool(s->g, v.b[0]);
    if (sc == ACC_F32)
        return acc_const_f64(s->g, sc, (double)v.f);
    if (sc == ACC_F64)
        return acc_const_f64(s->g, sc, v.d);
    /* sign-extend signed narrow values: the constant wraps to sc */
    int b = dz_bits(sc);
    if (dz_is_signed(sc) && b < 64 && (v.u >> (b - 1)) & 1)
        v.u |= ~0ull << b;
    return acc_const_u64(s->g, sc, v.u);
}

acc_node *dz_zero(dz_gen *s, acc_scalar sc)
{
    if (sc == ACC_BOOL)
        return acc_const_bool(s->g, 0);
    return dz_is_float(sc) ? acc_const_f64(s->g, sc, 0.0)
                           : acc_const_i64(s->g, sc, 0);
}

acc_node *dz_one(dz_gen *s, acc_scalar sc)
{
    if (sc == ACC_BOOL)
        return acc_const_bool(s->g, 1);
    return dz_is_float(sc) ? acc_const_f64(s->g, sc, 1.0)
                           : acc_const_i64(s->g, sc, 1);
}

acc_node *dz_i64(dz_gen *s, int64_t v)
{
    return acc_const_i64(s->g, ACC_I64, v);
}
