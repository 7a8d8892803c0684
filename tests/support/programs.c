/*
 * programs.c — sample programs built with the public builder API, shared by
 * the tests that look at them from different angles (sharing, fusion,
 * backends), with independent C references.
 */
#include "support.h"

#include <math.h>

/* ---- sample programs ------------------------------------------------------ */

static acc_node *f32c(acc_graph *g, double v) { return ts_f32(g, (float)v); }
static acc_node *add(acc_graph *g, acc_node *a, acc_node *b)
{ return acc_binop(g, ACC_OP_ADD, a, b); }
static acc_node *sub(acc_graph *g, acc_node *a, acc_node *b)
{ return acc_binop(g, ACC_OP_SUB, a, b); }
static acc_node *mul(acc_graph *g, acc_node *a, acc_node *b)
{ return acc_binop(g, ACC_OP_MUL, a, b); }
static acc_node *dvd(acc_graph *g, acc_node *a, acc_node *b)
{ return acc_binop(g, ACC_OP_FDIV, a, b); }

/* cnd d, as in LANGUAGE.md §4; k and c are shared inside it. */
static acc_node *cnd(acc_graph *g, acc_node *d)
{
    acc_node *k = dvd(g, f32c(g, 1.0),
                      add(g, f32c(g, 1.0),
                          mul(g, f32c(g, 0.2316419), acc_unop(g, ACC_OP_ABS, d))));
    acc_node *poly = mul(g, k, add(g, f32c(g, 0.31938153),
        mul(g, k, add(g, f32c(g, -0.356563782),
        mul(g, k, add(g, f32c(g, 1.781477937),
        mul(g, k, add(g, f32c(g, -1.821255978),
        mul(g, k, f32c(g, 1.330274429))))))))));
    acc_node *c = mul(g, mul(g, f32c(g, 0.3989422804014327),
                             acc_unop(g, ACC_OP_EXP,
                                      mul(g, mul(g, f32c(g, -0.5), d), d))),
                      poly);
    return acc_cond(g, acc_binop(g, ACC_OP_GT, d, f32c(g, 0.0)),
                    sub(g, f32c(g, 1.0), c), c);
}

acc_node *ts_blackscholes(acc_context *ctx, acc_graph *g)
{
    const acc_type *f32 = acc_type_scalar(ACC_F32);
    const acc_type *three[3] = {f32, f32, f32};
    const acc_type *opt = acc_type_tuple(ctx, 3, three);
    acc_node *opts = acc_input(g, opt, 1);
    acc_node *o = acc_param(g, opt);
    acc_node *price = acc_get(g, o, 0), *strike = acc_get(g, o, 1);
    acc_node *years = acc_get(g, o, 2);
    acc_node *r = f32c(g, 0.02), *v = f32c(g, 0.30);
    acc_node *v_sqrt_t = mul(g, v, acc_unop(g, ACC_OP_SQRT, years));
    acc_node *d1 = dvd(g, add(g, acc_unop(g, ACC_OP_LOG, dvd(g, price, strike)),
                              mul(g, add(g, r, mul(g, mul(g, f32c(g, 0.5), v), v)),
                                  years)),
                       v_sqrt_t);
    acc_node *d2 = sub(g, d1, v_sqrt_t);
    acc_node *cnd_d1 = cnd(g, d1), *cnd_d2 = cnd(g, d2);
    acc_node *x_exp_rt = mul(g, strike, acc_unop(g, ACC_OP_EXP,
                                                 mul(g, acc_unop(g, ACC_OP_NEG, r),
                                                     years)));
    acc_node *call = sub(g, mul(g, price, cnd_d1), mul(g, x_exp_rt, cnd_d2));
    acc_node *put = sub(g, mul(g, x_exp_rt, sub(g, f32c(g, 1.0), cnd_d2)),
                        mul(g, price, sub(g, f32c(g, 1.0), cnd_d1)));
    acc_node *pair[2] = {call, put};
    return acc_map(g, acc_lambda(g, 1, &o, acc_tuple(g, 2, pair)), opts);
}

/* sieveMarks ps n =
 *   permute' (+) (fill [n] 0)
 *     (expand (\p -> quot (n - p) p)
 *             (\p k -> let m = (k + 2) * p
 *                      in (if m < n then [m] else ignore, 1)) ps) */
acc_node *ts_sieve_marks(acc_graph *g, acc_node *ps, acc_node *n_scalar)
{
    acc_node *n = acc_the(g, n_scalar);
    acc_node *p = acc_param(g, ts_sc(ACC_I64));
    acc_node *size = ts_lam1(g, p, acc_binop(g, ACC_OP_QUOT, sub(g, n, p), p));
    acc_node *q = acc_param(g, ts_sc(ACC_I64)),
             *k = acc_param(g, ts_sc(ACC_I64));
    acc_node *m = mul(g, add(g, k, ts_i64(g, 2)), q);
    acc_node *target = acc_cond(g, acc_binop(g, ACC_OP_LT, m, n), ts_idx1(g, m),
                                acc_ignore(g, 1));
    acc_node *pair[2] = {target, ts_i32(g, 1)};
    acc_node *get = ts_lam2(g, q, k, acc_tuple(g, 2, pair));
    acc_node *zeros = acc_fill(g, ts_idx1(g, n), ts_i32(g, 0));
    return acc_permute_pairs(g, ts_binop_fn(g, ACC_I32, ACC_OP_ADD), zeros,
                             acc_expand(g, size, get, ps));
}

acc_node *ts_sieve_program(acc_graph *g)
{
    acc_node *ps = acc_input(g, ts_sc(ACC_I64), 1);
    return ts_sieve_marks(g, ps, acc_input(g, ts_sc(ACC_I64), 0));
}

acc_node *ts_sieve_build(acc_graph *g, const void *arg)
{
    (void)arg;
    return ts_sieve_program(g);
}

int64_t ts_primes_below_root(int64_t n, int64_t *ps, int64_t room)
{
    int64_t k = 0;
    for (int64_t p = 2; p * p < n && k < room; p++) {
        int prime = 1;
        for (int64_t d = 2; d * d <= p && prime; d++)
            prime = p % d != 0;
        if (prime)
            ps[k++] = p;
    }
    return k;
}

static double cnd_ref(double d)
{
    double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
    double poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 +
                  k * (-1.821255978 + k * 1.330274429))));
    double c = 0.3989422804014327 * exp(-0.5 * d * d) * poly;
    return d > 0 ? 1.0 - c : c;
}

void ts_blackscholes_ref(double price, double strike, double years,
                         double *call, double *put)
{
    double vst = 0.3 * sqrt(years);
    double d1 = (log(price / strike) + (0.02 + 0.5 * 0.3 * 0.3) * years) / vst;
    double d2 = d1 - vst, xe = strike * exp(-0.02 * years);
    *call = price * cnd_ref(d1) - xe * cnd_ref(d2);
    *put = xe * (1.0 - cnd_ref(d2)) - price * (1.0 - cnd_ref(d1));
}
