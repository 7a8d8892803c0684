/*
 * gen_data.c — the data sets a program runs on.  Each data set picks a
 * base innermost extent N around the vector widths (0, 1, 2, 3, 7, 8, 15,
 * 16, 17, ..., 47, 48, 63, 64, 65, ..., 1023, 1024, 1025, sometimes a few
 * thousand), the outer extents, how many values are edge values, whether
 * index data may be out of range, and whether the value inputs disagree
 * on their innermost extent (zipWith intersects; segment descriptors then
 * may not fit).  A program's kernels are compiled once and run on every
 * data set.
 */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

static const int64_t sizes[] = {
    0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64,
    65, 79, 80, 81, 95, 96, 127, 128, 129, 255, 256, 257, 511, 512, 1000,
    1023, 1024, 1025};
static const int64_t big_sizes[] = {4095, 4096, 4097, 16384, 65537};

static const int64_t huge_values[] = {
    INT64_MAX, INT64_MAX - 1, (int64_t)1 << 62, ((int64_t)1 << 62) + 1,
    (int64_t)1 << 61, INT64_MAX / 3, (int64_t)1 << 56, -1, INT64_MIN};

typedef struct plan {
    uint64_t rng;
    int64_t n, rows, outer[2];
    int edge, oob, ragged, bad_segments;
} plan;

static int64_t pick_n(plan *pl)
{
    if (dz_chance(&pl->rng, 1, 20))
        return big_sizes[dz_rnd(&pl->rng, sizeof big_sizes / sizeof *big_sizes)];
    return sizes[dz_rnd(&pl->rng, sizeof sizes / sizeof *sizes)];
}

static void *leaf_buffer(size_t count, size_t width)
{
    return calloc(count ? count : 1, width);
}

/* Extents of a value input of rank r. */
static void value_extents(plan *pl, int r, int64_t *ext)
{
    int64_t inner = pl->n;
    if (pl->ragged && dz_chance(&pl->rng, 1, 2))
        inner = inner + (int64_t)dz_rnd(&pl->rng, 5) - 1;
    if (inner < 0)
        inner = 0;
    if (r == 2)
        ext[0] = pl->rows;
    if (r == 3) {
        ext[0] = pl->outer[0];
        ext[1] = pl->outer[1];
    }
    if (r >= 1)
        ext[r - 1] = inner;
}

static void fill_values(plan *pl, dz_data *d, size_t i, const dz_input *in,
                        int64_t count)
{
    for (size_t l = 0; l < in->n_leaves; l++) {
        size_t w = acc_scalar_size(in->leaf[l]);
        char *b = leaf_buffer((size_t)count, w);
        for (int64_t k = 0; k < count; k++)
            dz_random_value(&pl->rng, in->leaf[l], pl->edge, b + k * (int64_t)w);
        d->buf[i][l] = b;
    }
}

static int64_t bad_index(plan *pl)
{
    const int64_t v[5] = {-1, pl->n, pl->n + 5, INT64_MIN, INT64_MAX};
    return v[dz_rnd(&pl->rng, 5)];
}

/* Segment lengths summing to at most N (some empty); with bad_segments,
 * one more than fits, or a negative length. */
static int64_t *lengths(plan *pl, int64_t *k)
{
    *k = dz_rnd(&pl->rng, pl->n > 64 ? 40 : 9);
    int64_t *seg = malloc((size_t)(*k + 1) * sizeof *seg), left = pl->n;
    for (int64_t s = 0; s < *k; s++) {
        int64_t len = dz_chance(&pl->rng, 1, 5) || left == 0
                          ? 0 : (int64_t)dz_rnd(&pl->rng, (uint32_t)(left + 1));
        if (s == *k - 1 && dz_chance(&pl->rng, 1, 2))
            len = left;
        seg[s] = len;
        left -= len;
    }
    if (pl->bad_segments && *k > 0)
        seg[dz_rnd(&pl->rng, (uint32_t)*k)] += dz_chance(&pl->rng, 1, 2)
                                                   ? left + 1 : -2;
    return seg;
}

static int64_t *offsets(plan *pl, int64_t *k)
{
    int64_t n, *len = lengths(pl, &n);
    int64_t *off = malloc((size_t)(n + 1) * sizeof *off);
    off[0] = 0;
    for (int64_t s = 0; s < n; s++)
        off[s + 1] = off[s] + len[s];
    free(len);
    *k = n + 1;
    return off;
}

static void fill_i64(plan *pl, dz_data *d, size_t i, const dz_input *in,
                     int64_t *ext)
{
    int64_t count = 1, *v = NULL;
    switch (in->role) {
    case DZ_INDICES:
        count = ext[0] = pl->n + (pl->ragged ? (int64_t)dz_rnd(&pl->rng, 3) : 0);
        v = leaf_buffer((size_t)count, sizeof *v);
        for (int64_t k = 0; k < count; k++)
            v[k] = pl->oob && dz_chance(&pl->rng, 1, 10) ? bad_index(pl)
                   : pl->n ? (int64_t)dz_rnd(&pl->rng, (uint32_t)pl->n) : 0;
        break;
    case DZ_SEGMENTS: v = lengths(pl, &ext[0]); break;
    case DZ_OFFSETS: v = offsets(pl, &ext[0]); break;
    case DZ_SIZE:
        v = malloc(sizeof *v);
        *v = dz_chance(&pl->rng, 7, 10) ? pl->n
             : dz_chance(&pl->rng, 2, 3) ? (int64_t)dz_rnd(&pl->rng, 6)
             : dz_chance(&pl->rng, 1, 3) ? -1 : pl->n + 1;
        break;
    default:
        v = malloc(sizeof *v);
        *v = dz_chance(&pl->rng, 1, 2)
                 ? huge_values[dz_rnd(&pl->rng, sizeof huge_values / sizeof *huge_values)]
                 : pl->n;
        break;
    }
    d->buf[i][0] = v;
}

static void describe(dz_data *d, const plan *pl)
{
    snprintf(d->desc, sizeof d->desc, "N=%lld rows=%lld outer=%lldx%lld "
             "edge=%d%%%s%s%s", (long long)pl->n, (long long)pl->rows,
             (long long)pl->outer[0], (long long)pl->outer[1], pl->edge,
             pl->oob ? " oob-indices" : "", pl->ragged ? " ragged" : "",
             pl->bad_segments ? " bad-segments" : "");
}

int dz_data_make(dz_data *d, uint64_t seed, int which, const dz_program *p,
                 const acc_program *typed)
{
    static const int edges[4] = {0, 2, 20, 60};
    memset(d, 0, sizeof *d);
    plan pl = {.rng = seed * 0x9e3779b97f4a7c15ull ^ (uint64_t)(which + 1) * 0xd1b54a32d192ed03ull};
    pl.n = pick_n(&pl);
    pl.rows = dz_chance(&pl.rng, 1, 12) ? 0 : 1 + (int64_t)dz_rnd(&pl.rng, 4);
    pl.outer[0] = 1 + (int64_t)dz_rnd(&pl.rng, 3);
    pl.outer[1] = dz_chance(&pl.rng, 1, 12) ? 0 : 1 + (int64_t)dz_rnd(&pl.rng, 3);
    if (pl.n > 1100)
        pl.rows = pl.outer[0] = pl.outer[1] = 1;
    pl.edge = edges[dz_rnd(&pl.rng, 4)];
    pl.oob = !p->strict && dz_chance(&pl.rng, 1, 5);
    pl.ragged = dz_chance(&pl.rng, 1, 8);
    pl.bad_segments = dz_chance(&pl.rng, 1, 12);
    d->n = pl.n;
    d->n_in = p->n_in;
    for (size_t i = 0; i < p->n_in; i++) {
        const acc_type *elem;
        int32_t rank;
        int64_t ext[ACC_MAX_RANK] = {0}, count = 1;
        if (acc_program_input(typed, i, &elem, &rank) != ACC_OK)
            return 0;
        const dz_input *in = &p->in[i];
        if (in->role == DZ_VALUES) {
            value_extents(&pl, rank, ext);
            for (int r = 0; r < rank; r++)
                count *= ext[r];
            fill_values(&pl, d, i, in, count);
        } else {
            fill_i64(&pl, d, i, in, ext);
        }
        if (acc_array_init(&d->in[i], elem, rank, ext) != ACC_OK)
            return 0;
        for (size_t l = 0; l < in->n_leaves; l++)
            d->in[i].data[l] = d->buf[i][l];
    }
    describe(d, &pl);
    return 1;
}

void dz_data_free(dz_data *d)
{
    for (size_t i = 0; i < DZ_MAX_INPUTS; i++)
        for (size_t l = 0; l < ACC_MAX_COMPONENTS; l++)
            free(d->buf[i][l]);
    memset(d, 0, sizeof *d);
}
