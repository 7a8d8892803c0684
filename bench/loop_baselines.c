/*
 * loop_baselines.c — the hand-written C of issue 22's loop benchmarks
 * (bench/loop_bench.c): Mandelbrot with 16 pixels in lockstep (AVX-512
 * masks), a tiled transpose, a two-pass parallel scan, and Black-Scholes
 * with 512-bit vectors.  Compiled with the baseline flags plus
 * -mprefer-vector-width=512 where the compiler has it (AccelBench.cmake),
 * so each is what a careful C programmer would write for this machine.
 */
#include "bench/loop_baselines.h"

#include "bench/baselines.h"

#include <math.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
extern float expf(float) __attribute__((simd("notinbranch")));
extern float logf(float) __attribute__((simd("notinbranch")));
#endif
#include "bench/blackscholes_body.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

/* ---- Mandelbrot, 16 pixels in lockstep ------------------------------------ */

typedef struct mandel16_ctx {
    int64_t width, height;
    int32_t limit;
    int32_t *out;
} mandel16_ctx;

#if defined(__AVX512F__)
/* Pixels [x0, x0 + 16) of row y (those below width): each lane iterates
 * while it is active (its own n < limit && |z|^2 < 4, as the scalar loop),
 * the block until no lane is; the operations and their order are the
 * scalar loop's, so the counts are equal. */
static void mandel16_block(const mandel16_ctx *m, int64_t y, int64_t x0)
{
    const __mmask16 lanes = m->width - x0 >= 16
        ? (__mmask16)0xffff
        : (__mmask16)((1u << (m->width - x0)) - 1);
    const __m512i xi = _mm512_add_epi32(
        _mm512_set1_epi32((int32_t)x0),
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                          15));
    const __m512 cx = _mm512_add_ps(
        _mm512_set1_ps(-2.0f),
        _mm512_div_ps(_mm512_mul_ps(_mm512_set1_ps(3.0f),
                                    _mm512_cvtepi32_ps(xi)),
                      _mm512_set1_ps((float)m->width)));
    const __m512 cy = _mm512_set1_ps(-1.2f + 2.4f * (float)y /
                                     (float)m->height);
    const __m512 two = _mm512_set1_ps(2.0f), four = _mm512_set1_ps(4.0f);
    __m512 zx = _mm512_setzero_ps(), zy = _mm512_setzero_ps();
    __m512i n = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi32(1);
    __mmask16 act = lanes;
    for (int32_t it = 0; it < m->limit && act; it++) {
        const __m512 zx2 = _mm512_mul_ps(zx, zx), zy2 = _mm512_mul_ps(zy, zy);
        act = _mm512_mask_cmp_ps_mask(act, _mm512_add_ps(zx2, zy2), four,
                                      _CMP_LT_OQ);
        n = _mm512_mask_add_epi32(n, act, n, one);
        const __m512 t = _mm512_add_ps(_mm512_sub_ps(zx2, zy2), cx);
        zy = _mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(two, zx), zy), cy);
        zx = t;
    }
    _mm512_mask_storeu_epi32(m->out + y * m->width + x0, lanes, n);
}

static void mandel16_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    const mandel16_ctx *m = p;
    for (int64_t y = lo; y < hi; y++)
        for (int64_t x0 = 0; x0 < m->width; x0 += 16)
            mandel16_block(m, y, x0);
}
#endif

int bl_mandelbrot_lockstep(int threads, int64_t width, int64_t height,
                           int32_t limit, int32_t *out)
{
#if defined(__AVX512F__)
    mandel16_ctx m = {width, height, limit, out};
    bl_parallel_for(threads, height, &m, mandel16_body);
    return 1;
#else
    (void)threads, (void)width, (void)height, (void)limit, (void)out;
    return 0;
#endif
}

/* ---- transpose, tiled ---------------------------------------------------- */

typedef struct transpose_ctx {
    int64_t rows, cols; /* of the input */
    const float *in;
    float *out;
} transpose_ctx;

/* Output rows [lo, hi) (input columns), 32x32 tiles: a tile's reads and
 * writes each touch 32 cache lines. */
static void transpose_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    const transpose_ctx *t = p;
    enum { T = 32 };
    for (int64_t i0 = lo; i0 < hi; i0 += T)
        for (int64_t j0 = 0; j0 < t->rows; j0 += T) {
            const int64_t i1 = i0 + T < hi ? i0 + T : hi;
            const int64_t j1 = j0 + T < t->rows ? j0 + T : t->rows;
            for (int64_t i = i0; i < i1; i++)
                for (int64_t j = j0; j < j1; j++)
                    t->out[i * t->rows + j] = t->in[j * t->cols + i];
        }
}

void bl_transpose(int threads, int64_t rows, int64_t cols, const float *in,
                  float *out)
{
    transpose_ctx t = {rows, cols, in, out};
    bl_parallel_for(threads, cols, &t, transpose_body);
}

/* ---- inclusive + scan, two passes ----------------------------------------- */

typedef struct scan_ctx {
    const float *x;
    float *out;
    float total[64]; /* of each part, then the value before it */
} scan_ctx;

static void scan_sum_body(void *p, int part, int64_t lo, int64_t hi)
{
    scan_ctx *s = p;
    float lanes[16] = {0};
    int64_t i = lo;
    for (; i + 16 <= hi; i += 16)
        for (int k = 0; k < 16; k++)
            lanes[k] += s->x[i + k];
    float sum = 0;
    for (int k = 0; k < 16; k++)
        sum += lanes[k];
    for (; i < hi; i++)
        sum += s->x[i];
    s->total[part] = sum;
}

static void scan_body(void *p, int part, int64_t lo, int64_t hi)
{
    scan_ctx *s = p;
    float run = s->total[part];
    for (int64_t i = lo; i < hi; i++) {
        run += s->x[i];
        s->out[i] = run;
    }
}

/* Each thread sums its part (16 lanes), the part totals are scanned in
 * order, each thread scans its part from the value before it: the usual
 * parallel scan, its per-element chain one add long. */
void bl_scan(int threads, int64_t n, const float *x, float *out)
{
    scan_ctx s;
    memset(&s, 0, sizeof s);
    s.x = x;
    s.out = out;
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    bl_parallel_for(threads, n, &s, scan_sum_body);
    float run = 0;
    for (int t = 0; t < threads; t++) {
        float total = s.total[t];
        s.total[t] = run;
        run += total;
    }
    bl_parallel_for(threads, n, &s, scan_body);
}

/* ---- Black-Scholes, 512-bit vectors --------------------------------------- */

void bl_blackscholes_wide(int threads, int64_t n, const float *price,
                          const float *strike, const float *years,
                          float *call, float *put)
{
    /* bl_blackscholes' loop, compiled with this file's flags */
    bs_run(threads, n, price, strike, years, call, put);
}
