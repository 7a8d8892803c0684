/*
 * workloads.c — the shared benchmark set-ups of workloads.h.
 */
#include "bench/workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wl_blackscholes_init(const bench *b, wl_blackscholes *w)
{
    int64_t n = (int64_t)(20e6 * b->scale);
    n = n < 1 ? 1 : n;
    size_t bytes = (size_t)n * 4;
    memset(w, 0, sizeof *w);
    w->threads = b->threads;
    w->n = n;
    w->price = bench_alloc(b, bytes);
    w->strike = bench_alloc(b, bytes);
    w->years = bench_alloc(b, bytes);
    for (int64_t i = 0; i < n; i++) {
        w->price[i] = 5.0f + (float)(i % 100) * 0.3f;
        w->strike[i] = 1.0f + (float)(i % 17) * 0.9f;
        w->years[i] = 0.25f + (float)(i % 9) * 0.5f;
    }
    w->call = bench_touched(b, bytes);
    w->put = bench_touched(b, bytes);
    /* Like the baseline, accel writes into buffers the caller allocated
     * (and touched) once: a fresh 80 MB result per run would time the
     * kernel's page faults, not its arithmetic. */
    w->acall = bench_touched(b, bytes);
    w->aput = bench_touched(b, bytes);
    w->p = bench_compile(b, "blackscholes");
    const acc_type *elem = NULL, *oelem = NULL;
    acc_program_input(w->p, 0, &elem, NULL);
    acc_program_output(w->p, 0, &oelem, NULL);
    acc_array_init(&w->in, elem, 1, &n);
    w->in.data[0] = w->price;
    w->in.data[1] = w->strike;
    w->in.data[2] = w->years;
    acc_array_init(&w->out, oelem, 1, &n);
    w->out.data[0] = w->acall;
    w->out.data[1] = w->aput;
    snprintf(w->size, sizeof w->size, "%lld options", (long long)n);
}

int wl_blackscholes_agree(const wl_blackscholes *w)
{
    int agree = 1;
    for (int64_t i = 0; i < w->n; i += 1 + w->n / 1000)
        agree &= fabsf(w->acall[i] - w->call[i]) <=
                     1e-3f * (1 + fabsf(w->call[i])) &&
                 fabsf(w->aput[i] - w->put[i]) <=
                     1e-3f * (1 + fabsf(w->put[i]));
    return agree;
}

void wl_blackscholes_free(wl_blackscholes *w)
{
    acc_program_free(w->p);
    free(w->price);
    free(w->strike);
    free(w->years);
    free(w->call);
    free(w->put);
    free(w->acall);
    free(w->aput);
}

void wl_mandelbrot_init(const bench *b, wl_mandelbrot *m)
{
    double side = sqrt(b->scale);
    memset(m, 0, sizeof *m);
    m->threads = b->threads;
    m->w = (int64_t)(1920 * side);
    m->h = (int64_t)(1080 * side);
    m->w = m->w < 1 ? 1 : m->w;
    m->h = m->h < 1 ? 1 : m->h;
    m->limit = 255;
    size_t bytes = (size_t)(m->w * m->h) * 4;
    m->mine = bench_touched(b, bytes);
    m->got = bench_touched(b, bytes);
    m->p = bench_compile(b, "mandelbrot");
    m->in[0] = bench_scalar(ACC_I64, &m->w);
    m->in[1] = bench_scalar(ACC_I64, &m->h);
    m->in[2] = bench_scalar(ACC_I32, &m->limit);
    m->out = bench_array(ACC_I32, 2, (int64_t[]){m->h, m->w}, m->got);
    snprintf(m->size, sizeof m->size, "%lldx%lld/255", (long long)m->w,
             (long long)m->h);
}

int wl_mandelbrot_agree(const wl_mandelbrot *m)
{
    return memcmp(m->got, m->mine, (size_t)(m->w * m->h) * 4) == 0;
}

void wl_mandelbrot_free(wl_mandelbrot *m)
{
    acc_program_free(m->p);
    free(m->got);
    free(m->mine);
}
