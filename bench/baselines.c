/*
 * baselines.c — hand-written C for the benchmarks, written the way a
 * careful C programmer would on this machine: several accumulators so
 * reductions vectorise without -ffast-math, libmvec's vector exp/log
 * declared with the simd attribute so the Black-Scholes loop vectorises
 * while keeping IEEE semantics, and the work split over threads.
 */
#include "bench/baselines.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* glibc's libmvec has vector variants of these; declaring them lets gcc
 * call them from vectorised loops (only -fno-math-errno is needed).  clang
 * has no such attribute: its baseline uses scalar calls, and the table says
 * which compiler built it. */
#if defined(__GNUC__) && !defined(__clang__)
extern float expf(float) __attribute__((simd("notinbranch")));
extern float logf(float) __attribute__((simd("notinbranch")));
#endif

/* ---- a tiny parallel-for over [0, n) ---------------------------------- */

typedef struct slice {
    bl_body body;
    void *ctx;
    int part;
    int64_t lo, hi;
} slice;

static void *run_slice(void *p)
{
    slice *s = p;
    s->body(s->ctx, s->part, s->lo, s->hi);
    return NULL;
}

void bl_parallel_for(int threads, int64_t n, void *ctx, bl_body body)
{
    enum { MAX_THREADS = 64 };
    pthread_t ids[MAX_THREADS];
    slice parts[MAX_THREADS];
    if (threads < 1)
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    for (int t = 0; t < threads; t++)
        parts[t] = (slice){body, ctx, t, n * t / threads,
                           n * (t + 1) / threads};
    for (int t = 1; t < threads; t++)
        if (pthread_create(&ids[t], NULL, run_slice, &parts[t]) != 0)
            parts[t].body = NULL;
    run_slice(&parts[0]);
    for (int t = 1; t < threads; t++) {
        if (parts[t].body)
            pthread_join(ids[t], NULL);
        else
            run_slice(&parts[t]);
    }
}

/* ---- dot product ---------------------------------------------------------- */

typedef struct dot_ctx {
    const float *x, *y;
    double partial[64];
} dot_ctx;

/* 16 independent lanes: the lane loop vectorises without reassociating. */
static float dot_range(const float *x, const float *y, int64_t lo, int64_t hi)
{
    float lanes[16] = {0};
    int64_t i = lo;
    for (; i + 16 <= hi; i += 16)
        for (int k = 0; k < 16; k++)
            lanes[k] += x[i + k] * y[i + k];
    float sum = 0;
    for (int k = 0; k < 16; k++)
        sum += lanes[k];
    for (; i < hi; i++)
        sum += x[i] * y[i];
    return sum;
}

static void dot_body(void *p, int part, int64_t lo, int64_t hi)
{
    dot_ctx *c = p;
    c->partial[part] = dot_range(c->x, c->y, lo, hi);
}

float bl_sdot(int threads, int64_t n, const float *x, const float *y)
{
    dot_ctx c = {x, y, {0}};
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    bl_parallel_for(threads, n, &c, dot_body);
    float sum = 0; /* partials combined in order, like a parallel fold */
    for (int t = 0; t < threads; t++)
        sum += (float)c.partial[t];
    return sum;
}

/* ---- Black-Scholes ------------------------------------------------------ */

#include "bench/blackscholes_body.h"

void bl_blackscholes(int threads, int64_t n, const float *price,
                     const float *strike, const float *years, float *call,
                     float *put)
{
    bs_run(threads, n, price, strike, years, call, put);
}

/* ---- Mandelbrot ------------------------------------------------------------- */

typedef struct mandel_ctx {
    int64_t width, height;
    int32_t limit;
    int32_t *out;
} mandel_ctx;

static void mandel_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    mandel_ctx *m = p;
    for (int64_t k = lo; k < hi; k++) {
        int64_t y = k / m->width, x = k % m->width;
        float cx = -2.0f + 3.0f * (float)x / (float)m->width;
        float cy = -1.2f + 2.4f * (float)y / (float)m->height;
        float zx = 0, zy = 0;
        int32_t n = 0;
        while (n < m->limit && zx * zx + zy * zy < 4.0f) {
            float t = zx * zx - zy * zy + cx;
            zy = 2.0f * zx * zy + cy;
            zx = t;
            n++;
        }
        m->out[k] = n;
    }
}

void bl_mandelbrot(int threads, int64_t width, int64_t height, int32_t limit,
                   int32_t *out)
{
    mandel_ctx m = {width, height, limit, out};
    bl_parallel_for(threads, width * height, &m, mandel_body);
}

/* ---- sparse matrix times vector (CSR) ------------------------------------ */

typedef struct smvm_ctx {
    const int64_t *row_start, *cols;
    const float *vals, *vec;
    float *out;
} smvm_ctx;

static void smvm_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    smvm_ctx *s = p;
    for (int64_t r = lo; r < hi; r++) {
        float sum = 0;
        for (int64_t j = s->row_start[r]; j < s->row_start[r + 1]; j++)
            sum += s->vals[j] * s->vec[s->cols[j]];
        s->out[r] = sum;
    }
}

typedef struct smvm_checked_ctx {
    smvm_ctx s;
    int64_t n_vec;
    atomic_int bad;
} smvm_checked_ctx;

static void smvm_checked_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    smvm_checked_ctx *c = p;
    const smvm_ctx *s = &c->s;
    for (int64_t r = lo; r < hi; r++) {
        float sum = 0;
        for (int64_t j = s->row_start[r]; j < s->row_start[r + 1]; j++) {
            int64_t col = s->cols[j];
            if ((uint64_t)col >= (uint64_t)c->n_vec) {
                atomic_store(&c->bad, 1);
                return;
            }
            sum += s->vals[j] * s->vec[col];
        }
        s->out[r] = sum;
    }
}

int bl_smvm_checked(int threads, int64_t rows, const int64_t *row_start,
                    const int64_t *cols, const float *vals, const float *vec,
                    int64_t n_vec, float *out)
{
    smvm_checked_ctx c = {{row_start, cols, vals, vec, out}, n_vec, 0};
    bl_parallel_for(threads, rows, &c, smvm_checked_body);
    return !atomic_load(&c.bad);
}

void bl_smvm(int threads, int64_t rows, const int64_t *row_start,
             const int64_t *cols, const float *vals, const float *vec,
             float *out)
{
    smvm_ctx s = {row_start, cols, vals, vec, out};
    bl_parallel_for(threads, rows, &s, smvm_body);
}

/* ---- 3x3 blur with clamped borders ---------------------------------------- */

typedef struct blur_ctx {
    int64_t height, width;
    const float *img;
    float *out;
} blur_ctx;

/* The sum in the order LANGUAGE.md writes it, so the results are equal. */
static inline float blur_px(const float *u, const float *m, const float *d,
                            int64_t l, int64_t x, int64_t r)
{
    return (u[l] + 2.0f * u[x] + u[r] + 2.0f * m[l] + 4.0f * m[x] +
            2.0f * m[r] + d[l] + 2.0f * d[x] + d[r]) / 16.0f;
}

static void blur_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    const blur_ctx *c = p;
    int64_t h = c->height, w = c->width;
    for (int64_t y = lo; y < hi; y++) {
        const float *u = c->img + (y > 0 ? y - 1 : 0) * w;
        const float *m = c->img + y * w;
        const float *d = c->img + (y + 1 < h ? y + 1 : h - 1) * w;
        float *o = c->out + y * w;
        o[0] = blur_px(u, m, d, 0, 0, w > 1 ? 1 : 0);
        for (int64_t x = 1; x < w - 1; x++)
            o[x] = blur_px(u, m, d, x - 1, x, x + 1);
        if (w > 1)
            o[w - 1] = blur_px(u, m, d, w - 2, w - 1, w - 1);
    }
}

void bl_blur(int threads, int64_t height, int64_t width, const float *img,
             float *out)
{
    blur_ctx c = {height, width, img, out};
    bl_parallel_for(threads, height, &c, blur_body);
}

/* ---- histogram (atomics) ------------------------------------------------- */

typedef struct hist_ctx {
    const int32_t *xs;
    atomic_int *bins;
} hist_ctx;

static void hist_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    hist_ctx *h = p;
    for (int64_t i = lo; i < hi; i++)
        atomic_fetch_add_explicit(&h->bins[h->xs[i]], 1, memory_order_relaxed);
}

void bl_histogram(int threads, int64_t n, const int32_t *xs, int64_t k,
                  int32_t *out)
{
    atomic_int *bins = malloc((size_t)(k ? k : 1) * sizeof *bins);
    if (!bins)
        abort();
    for (int64_t b = 0; b < k; b++)
        atomic_init(&bins[b], 0);
    hist_ctx h = {xs, bins};
    bl_parallel_for(threads, n, &h, hist_body);
    for (int64_t b = 0; b < k; b++)
        out[b] = atomic_load_explicit(&bins[b], memory_order_relaxed);
    free(bins);
}

/* ---- histogram (per-thread tables) --------------------------------------- */

typedef struct hist_private_ctx {
    const int32_t *xs;
    int64_t k;
    int32_t *tables; /* one table of k bins per thread, zeroed */
} hist_private_ctx;

static void hist_private_body(void *p, int part, int64_t lo, int64_t hi)
{
    hist_private_ctx *h = p;
    int32_t *t = h->tables + (int64_t)part * h->k;
    for (int64_t i = lo; i < hi; i++)
        t[h->xs[i]]++;
}

typedef struct hist_merge_ctx {
    const int32_t *tables;
    int threads;
    int64_t k;
    int32_t *out;
} hist_merge_ctx;

static void hist_merge_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    hist_merge_ctx *m = p;
    for (int64_t b = lo; b < hi; b++) {
        int32_t s = 0;
        for (int t = 0; t < m->threads; t++)
            s += m->tables[(int64_t)t * m->k + b];
        m->out[b] = s;
    }
}

void bl_histogram_private(int threads, int64_t n, const int32_t *xs,
                          int64_t k, int32_t *out)
{
    int t = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    int32_t *tables = calloc((size_t)t * (size_t)(k ? k : 1), sizeof *tables);
    if (!tables)
        abort();
    hist_private_ctx h = {xs, k, tables};
    bl_parallel_for(t, n, &h, hist_private_body);
    hist_merge_ctx m = {tables, t, k, out};
    bl_parallel_for(t, k, &m, hist_merge_body);
    free(tables);
}

/* ---- sieve marks (target range split over the threads) ------------------- */

typedef struct sieve_ctx {
    const int64_t *ps;
    int64_t n_ps;
    int32_t *marks;
} sieve_ctx;

/* Target cells [lo, hi): zeroed, then every multiple m = (k+2) p of each
 * prime p in the range counted, as sieveMarks does. */
static void sieve_body(void *p, int part, int64_t lo, int64_t hi)
{
    (void)part;
    sieve_ctx *s = p;
    int32_t *marks = s->marks;
    for (int64_t m = lo; m < hi; m++)
        marks[m] = 0;
    for (int64_t j = 0; j < s->n_ps; j++) {
        int64_t q = s->ps[j], m = (lo + q - 1) / q * q;
        if (m < 2 * q)
            m = 2 * q;
        for (; m < hi; m += q)
            marks[m]++;
    }
}

void bl_sieve_marks(int threads, const int64_t *ps, int64_t n_ps, int64_t n,
                    int32_t *marks)
{
    sieve_ctx s = {ps, n_ps, marks};
    bl_parallel_for(threads, n, &s, sieve_body);
}
