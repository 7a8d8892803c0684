/*
 * blackscholes_body.h — the Black-Scholes baseline's loop, included by
 * baselines.c (the kernels' flags) and loop_baselines.c (the same with
 * 512-bit vectors), so both time the same source.  The includer declares
 * libmvec's vector expf/logf and includes baselines.h and math.h.
 */
#ifndef ACC_BENCH_BLACKSCHOLES_BODY_H
#define ACC_BENCH_BLACKSCHOLES_BODY_H

static inline float cnd(float d)
{
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float poly = k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f +
                 k * (-1.821255978f + k * 1.330274429f))));
    float c = 0.3989422804014327f * expf(-0.5f * d * d) * poly;
    return d > 0 ? 1.0f - c : c;
}

typedef struct bs_ctx {
    const float *price, *strike, *years;
    float *call, *put;
} bs_ctx;

static void bs_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    bs_ctx *c = p;
    const float r = 0.02f, v = 0.30f;
    for (int64_t i = lo; i < hi; i++) {
        float vst = v * sqrtf(c->years[i]);
        float d1 = (logf(c->price[i] / c->strike[i]) +
                    (r + 0.5f * v * v) * c->years[i]) / vst;
        float d2 = d1 - vst;
        float c1 = cnd(d1), c2 = cnd(d2);
        float x = c->strike[i] * expf(-r * c->years[i]);
        c->call[i] = c->price[i] * c1 - x * c2;
        c->put[i] = x * (1.0f - c2) - c->price[i] * (1.0f - c1);
    }
}

static void bs_run(int threads, int64_t n, const float *price,
                   const float *strike, const float *years, float *call,
                   float *put)
{
    bs_ctx c = {price, strike, years, call, put};
    bl_parallel_for(threads, n, &c, bs_body);
}

#endif
