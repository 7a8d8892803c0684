/*
 * test_cpu_loops.c — the CPU backend's loop shapes of issue 22 against the
 * interpreter: loops run in lockstep over lanes (lanes leaving at
 * different rounds, none, all at once; checks before and after the loop),
 * the tiled traversal of transposing gathers (sizes that are not multiples
 * of the tile, chunks that start and end inside rows, an out-of-range
 * read), and float + scans computed a vector at a time (lengths around
 * the vector width and the blocked scan's threshold; -0.0, NaN and
 * infinities), compared within the reassociation bound of
 * docs/TESTING.md ("Tolerance").
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

TestSuite(cpu_loops, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

static void run_text(acc_context *ctx, const char *text, const char *entry,
                     size_t n_in, const acc_array *in, ts_outcome *o)
{
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, text, (size_t)-1, entry, &p);
    ts_outcome_run(o, st, p, n_in, in);
    acc_program_free(p);
}

/* Entry `entry` of `text` on the CPU and the interpreter: the same status
 * and message, and outputs bit for bit. */
static acc_status same_as_interp(const char *text, const char *entry,
                                 size_t n_in, const acc_array *in)
{
    acc_context *cpu = ts_cpu_context(), *ref = ts_context(ACC_BACKEND_INTERP);
    ts_outcome c, r;
    run_text(cpu, text, entry, n_in, in, &c);
    run_text(ref, text, entry, n_in, in, &r);
    cr_assert_eq(c.st, r.st, "%s: cpu %s (%s), interp %s (%s)", entry,
                 acc_status_string(c.st), c.message, acc_status_string(r.st),
                 r.message);
    if (c.st != ACC_OK)
        cr_assert_str_eq(c.message, r.message);
    else
        for (size_t i = 0; i < r.n; i++) {
            cr_assert_eq(acc_array_size(&c.out[i]), acc_array_size(&r.out[i]));
            for (size_t l = 0; l < acc_type_leaf_count(r.out[i].type); l++)
                cr_assert(memcmp(c.out[i].data[l], r.out[i].data[l],
                                 (size_t)acc_array_size(&r.out[i]) *
                                 acc_scalar_size(acc_type_leaf(r.out[i].type, l)))
                          == 0, "%s: output %zu leaf %zu differs", entry, i, l);
        }
    acc_status st = c.st;
    ts_outcome_release(&c);
    ts_outcome_release(&r);
    acc_context_destroy(cpu);
    acc_context_destroy(ref);
    return st;
}

static acc_array scalar_in(acc_scalar s, void *v)
{
    return ts_host_array(acc_type_scalar(s), 0, NULL, (void *[]){v});
}

/* ---- lockstep loops ------------------------------------------------------------ */

static const char loop_programs[] =
    /* element i loops min(k, lim) times, k = (i * 7) % 23: 0 for some
     * lanes, different counts for the others, none when lim = 0 */
    "steps (n : i64) (lim : i32) : Vector i32 =\n"
    "  generate [n] (\\[i] ->\n"
    "    let k = i32 ((i * 7) `mod` 23);\n"
    "        (a, c) = while (\\(a, c) -> c < k && c < lim)\n"
    "                       (\\(a, c) -> (a * 3 + c, c + 1)) (i32 i, 0)\n"
    "    in a + c)\n"
    "\n"
    "mandel (width : i64) (height : i64) (limit : i32) : Matrix (i32, f32) =\n"
    "  generate [height, width] (\\[y, x] ->\n"
    "    let cx = -2.0 + 3.0 * f32 x / f32 width;\n"
    "        cy = -1.2 + 2.4 * f32 y / f32 height;\n"
    "        (zx, zy, n) = while (\\(zx, zy, n) -> n < limit && zx*zx + zy*zy "
    "< 4.0)\n"
    "                            (\\(zx, zy, n) -> (zx*zx - zy*zy + cx, "
    "2.0*zx*zy + cy, n + 1))\n"
    "                            (0.0, 0.0, 0)\n"
    "    in (n, zx))\n"
    "\n"
    /* a check before the loop (quot by i - d) and after it (a read at the
     * loop's result), and a loop under a branch (not in lockstep) */
    "checked (xs : Vector i64) (d : i64) : Vector i64 =\n"
    "  generate (shape xs) (\\[i] ->\n"
    "    let q = quot 1000 (i - d);\n"
    "        (a, c) = while (\\(a, c) -> c < i `mod` 5) (\\(a, c) -> (a + q, c + 1))"
    " (0, 0);\n"
    "        b = if i `mod` 3 == 0 then fst (while (\\(u, v) -> v < 3)"
    " (\\(u, v) -> (u * 2, v + 1)) (1, 0)) else 0\n"
    "    in xs ! [(a + i) `mod` 70] + b + c)\n"
    "\n"
    /* a loop in a loop: i * 2 is invariant in both, c + n in the inner
     * one only (computed before it, inside the outer one) */
    "nested (n : i64) : Vector i64 =\n"
    "  generate [n] (\\[i] -> fst (while (\\(a, c) -> c < i `mod` 4)\n"
    "    (\\(a, c) -> (a + fst (while (\\(u, v) -> v < c + n)\n"
    "                          (\\(u, v) -> (u + i * 2, v + 1)) (0, 0)),\n"
    "                c + 1)) (0, 0)))\n";

Test(cpu_loops, lanes_leave_at_different_rounds)
{
    const int64_t ns[] = {1, 23, 63, 64, 65, 130, 5000};
    const int32_t lims[] = {0, 1, 10, 100};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t b = 0; b < sizeof lims / sizeof *lims; b++) {
            int64_t n = ns[a];
            int32_t lim = lims[b];
            acc_array in[2] = {scalar_in(ACC_I64, &n), scalar_in(ACC_I32, &lim)};
            cr_expect_eq(same_as_interp(loop_programs, "steps", 2, in), ACC_OK,
                         "n %lld lim %d", (long long)n, (int)lim);
        }
}

Test(cpu_loops, mandelbrot_state_bit_for_bit)
{
    const int64_t sizes[][2] = {{1, 1}, {67, 45}, {64, 3}, {130, 9}};
    const int32_t limits[] = {0, 1, 255};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (size_t b = 0; b < sizeof limits / sizeof *limits; b++) {
            int64_t w = sizes[a][0], h = sizes[a][1];
            int32_t limit = limits[b];
            acc_array in[3] = {scalar_in(ACC_I64, &w), scalar_in(ACC_I64, &h),
                               scalar_in(ACC_I32, &limit)};
            cr_expect_eq(same_as_interp(loop_programs, "mandel", 3, in), ACC_OK,
                         "%lldx%lld limit %d", (long long)w, (long long)h,
                         (int)limit);
        }
}

/* d = -1: no division by zero, and reads in range for n = 70; d in range:
 * a division by zero before the loop; n = 40: a read past the end after
 * it.  Both backends report the same error. */
Test(cpu_loops, checks_before_and_after_a_lockstep_loop)
{
    int64_t xs[200];
    for (int64_t i = 0; i < 200; i++)
        xs[i] = i * 11 - 500;
    const int64_t cases[][2] = {{70, -1}, {70, 37}, {40, -1}, {5, 4}};
    acc_status want[] = {ACC_OK, ACC_ERR_RUNTIME, ACC_ERR_RUNTIME,
                         ACC_ERR_RUNTIME};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int64_t n = cases[c][0], d = cases[c][1];
        acc_array in[2] = {
            ts_host_array(acc_type_scalar(ACC_I64), 1, &n, (void *[]){xs}),
            scalar_in(ACC_I64, &d)};
        cr_expect_eq(same_as_interp(loop_programs, "checked", 2, in), want[c],
                     "n %lld d %lld", (long long)n, (long long)d);
    }
}

Test(cpu_loops, nested_loops_with_invariants_at_both_levels)
{
    const int64_t ns[] = {0, 1, 7, 65};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++) {
        int64_t n = ns[a];
        acc_array in = scalar_in(ACC_I64, &n);
        cr_expect_eq(same_as_interp(loop_programs, "nested", 1, &in), ACC_OK,
                     "n %lld", (long long)n);
    }
}

/* ---- tiled traversal ----------------------------------------------------------- */

static const char tile_programs[] =
    "tr (xs : Matrix f32) : Matrix f32 =\n"
    "  let [h, w] = shape xs in backpermute [w, h] (\\[i, j] -> [j, i]) xs\n"
    "\n"
    "past (xs : Matrix f32) : Matrix f32 =\n"
    "  let [h, w] = shape xs in generate [w + 1, h] (\\[i, j] -> xs ! [j, i])\n";

Test(cpu_loops, transposes_of_every_shape_around_the_tile)
{
    /* 70x130 and 130x70: 9100 elements, chunks of 4096 starting and
     * ending inside rows */
    const int64_t shapes[][2] = {{1, 1},  {31, 33}, {33, 31},  {64, 64},
                                 {70, 130}, {130, 70}, {1, 100}, {100, 1},
                                 {0, 5}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int64_t ext[2] = {shapes[s][0], shapes[s][1]};
        int64_t n = ext[0] * ext[1];
        float *x = malloc((size_t)(n ? n : 1) * sizeof *x);
        cr_assert_not_null(x);
        for (int64_t i = 0; i < n; i++)
            x[i] = (float)i * 0.5f - 7.0f;
        acc_array in = ts_host_array(acc_type_scalar(ACC_F32), 2, ext,
                                     (void *[]){x});
        cr_expect_eq(same_as_interp(tile_programs, "tr", 1, &in), ACC_OK,
                     "%lldx%lld", (long long)ext[0], (long long)ext[1]);
        if (n > 0)
            cr_expect_eq(same_as_interp(tile_programs, "past", 1, &in),
                         ACC_ERR_RUNTIME, "%lldx%lld", (long long)ext[0],
                         (long long)ext[1]);
        free(x);
    }
}

/* ---- floating-point contraction ------------------------------------------------ */

static const char fma_program[] =
    "g (xs : Vector f64) (zs : Vector f64) : Vector f64 =\n"
    "  zipWith (\\x z -> x * x + z) xs zs\n";

/* x * x + z with x = 1 + 2^-30, z = -(1 + 2^-29): rounded twice 0, fused
 * 2^-60.  Off by default (the interpreter's 0); with fp_contract, the
 * fused value where the machine has FMA; 2 is refused. */
Test(cpu_loops, fp_contract_is_opt_in)
{
    enum { N = 100 };
    double x[N], z[N];
    for (int i = 0; i < N; i++) {
        x[i] = 1 + 0x1p-30;
        z[i] = -(1 + 0x1p-29);
    }
    int64_t n = N;
    acc_array in[2] = {
        ts_host_array(acc_type_scalar(ACC_F64), 1, &n, (void *[]){x}),
        ts_host_array(acc_type_scalar(ACC_F64), 1, &n, (void *[]){z})};
    cr_expect_eq(same_as_interp(fma_program, "g", 2, in), ACC_OK);
    acc_context *probe = ts_cpu_context(); /* skips without a compiler */
    acc_context_destroy(probe);
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.cache_dir = ts_cpu_cache_dir;
    o.fp_contract = 2;
    acc_context *ctx = NULL;
    cr_expect_eq(acc_context_create(&o, &ctx), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "fp_contract is 2") != NULL, "%s",
              acc_last_error());
    o.fp_contract = 1;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s", acc_last_error());
    ts_outcome c;
    run_text(ctx, fma_program, "g", 2, in, &c);
    cr_assert_eq(c.st, ACC_OK, "%s", c.message);
    const double *got = c.out[0].data[0];
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("fma"))
        for (int i = 0; i < N; i++)
            cr_expect_eq(got[i], 0x1p-60, "[%d]: %a", i, got[i]);
#endif
    for (int i = 0; i < N; i++)
        cr_expect(got[i] == 0 || got[i] == 0x1p-60, "[%d]: %a", i, got[i]);
    ts_outcome_release(&c);
    acc_context_destroy(ctx);
}

/* ---- vector scans --------------------------------------------------------------- */

typedef struct scan_kind {
    const char *name;
    int seeded;
    int totals; /* a second result (the primed kinds) */
} scan_kind;

static const scan_kind kinds[] = {
    {"scanl1", 0, 0},   {"scanl", 1, 0},    {"scanl'", 1, 1},
    {"prescanl", 1, 0}, {"postscanl", 1, 0}, {"scanr1", 0, 0},
    {"scanr", 1, 0},    {"scanr'", 1, 1},   {"prescanr", 1, 0},
    {"postscanr", 1, 0}};

/* "p (z : T) (xs : Array r T) = kind (+) z xs" */
static void scan_program(char *buf, size_t len, const scan_kind *k,
                         const char *t, int rank)
{
    snprintf(buf, len, "p %s(xs : Array %d %s) = %s (+) %sxs\n",
             k->seeded ? (strcmp(t, "f32") == 0 ? "(z : f32) " : "(z : f64) ")
                       : "",
             rank, t, k->name, k->seeded ? "z " : "");
}

static double elem(const acc_array *a, size_t i)
{
    return acc_type_leaf(a->type, 0) == ACC_F32 ? ((const float *)a->data[0])[i]
                                                : ((const double *)a->data[0])[i];
}

/* Every output of the CPU within the bound of docs/TESTING.md: the
 * interpreter's NaN is NaN, its infinity the same infinity, two zeros the
 * same zero, and otherwise |a - b| <= 2 k u S + the smallest denormal,
 * S and k from the shadows (the same scan, in f64 on the interpreter, of
 * |x| with specials as 0, and of ones). */
static void expect_within(const ts_outcome *c, const ts_outcome *r,
                          const ts_outcome *mag, const ts_outcome *cnt,
                          int f32, const char *what)
{
    const double u = f32 ? 0x1p-24 : 0x1p-53;
    const double tiny = f32 ? 0x1p-149 : 0x1p-1074;
    for (size_t o = 0; o < r->n; o++) {
        int64_t n = acc_array_size(&r->out[o]);
        cr_assert_eq(acc_array_size(&c->out[o]), n);
        for (int64_t i = 0; i < n; i++) {
            double a = elem(&c->out[o], (size_t)i), b = elem(&r->out[o], (size_t)i);
            double s = elem(&mag->out[o], (size_t)i), k = elem(&cnt->out[o], (size_t)i);
            if (isnan(b))
                cr_assert(isnan(a), "%s out %zu [%lld]: %a, interp NaN", what,
                          o, (long long)i, a);
            else if (isinf(b) || (a == 0 && b == 0))
                cr_assert(a == b && signbit(a) == signbit(b),
                          "%s out %zu [%lld]: %a, interp %a", what, o,
                          (long long)i, a, b);
            else
                cr_assert(fabs(a - b) <= 2 * k * u * s + tiny,
                          "%s out %zu [%lld]: %a, interp %a (k %g S %g)", what,
                          o, (long long)i, a, b, k, s);
        }
    }
}

enum { PATTERN_RANDOM, PATTERN_NEG_ZERO, PATTERN_INF, PATTERN_NAN };

static double pattern(int kind, int64_t i)
{
    uint64_t h = (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull;
    double v = (double)(h >> 11) / 0x1p53 * 2 - 1;
    switch (kind) {
    case PATTERN_NEG_ZERO: return -0.0;
    case PATTERN_INF: return i == 5 ? INFINITY : v;
    case PATTERN_NAN: return i == 20 ? NAN : v;
    default: return i % 13 == 0 ? -0.0 : v;
    }
}

static void check_scan(const scan_kind *k, int f32, int rank,
                       const int64_t *ext, int pat)
{
    const char *t = f32 ? "f32" : "f64";
    char text[256], text64[256];
    scan_program(text, sizeof text, k, t, rank);
    scan_program(text64, sizeof text64, k, "f64", rank);
    int64_t n = rank == 1 ? ext[0] : ext[0] * ext[1];
    size_t w = f32 ? 4 : 8, m = (size_t)(n ? n : 1);
    char *x = malloc(m * w);
    double *mag = malloc(m * 8), *ones = malloc(m * 8);
    cr_assert(x && mag && ones);
    for (int64_t i = 0; i < n; i++) {
        double v = pattern(pat, i);
        if (f32)
            ((float *)x)[i] = (float)v;
        else
            ((double *)x)[i] = v;
        double stored = f32 ? (double)(float)v : v;
        mag[i] = isfinite(stored) ? fabs(stored) : 0;
        ones[i] = 1;
    }
    float z32 = pat == PATTERN_NEG_ZERO ? -0.0f : 0.25f;
    double z64 = z32, zmag = fabs(z64), one = 1;
    acc_array in[2] = {scalar_in(f32 ? ACC_F32 : ACC_F64,
                                 f32 ? (void *)&z32 : (void *)&z64),
                       ts_host_array(acc_type_scalar(f32 ? ACC_F32 : ACC_F64),
                                     rank, ext, (void *[]){x})};
    acc_array in_mag[2] = {scalar_in(ACC_F64, &zmag),
                           ts_host_array(acc_type_scalar(ACC_F64), rank, ext,
                                         (void *[]){mag})};
    acc_array in_cnt[2] = {scalar_in(ACC_F64, &one),
                           ts_host_array(acc_type_scalar(ACC_F64), rank, ext,
                                         (void *[]){ones})};
    size_t skip = k->seeded ? 0 : 1;
    acc_context *cpu = ts_cpu_context(), *ref = ts_context(ACC_BACKEND_INTERP);
    ts_outcome c, r, sm, sc;
    run_text(cpu, text, "p", 2 - skip, in + skip, &c);
    run_text(ref, text, "p", 2 - skip, in + skip, &r);
    cr_assert_eq(c.st, r.st, "%s: cpu %s, interp %s", text, c.message,
                 r.message);
    if (r.st == ACC_OK) {
        run_text(ref, text64, "p", 2 - skip, in_mag + skip, &sm);
        run_text(ref, text64, "p", 2 - skip, in_cnt + skip, &sc);
        cr_assert(sm.st == ACC_OK && sc.st == ACC_OK);
        char what[320];
        snprintf(what, sizeof what, "%s (n %lld, pattern %d)", text,
                 (long long)n, pat);
        expect_within(&c, &r, &sm, &sc, f32, what);
        ts_outcome_release(&sm);
        ts_outcome_release(&sc);
    } else {
        cr_assert_str_eq(c.message, r.message);
    }
    ts_outcome_release(&c);
    ts_outcome_release(&r);
    acc_context_destroy(cpu);
    acc_context_destroy(ref);
    free(x);
    free(mag);
    free(ones);
}

/* lengths around 8 and 16 lanes, two vectors (the reduce's step), and the
 * blocked scan's 32768 */
static const int64_t scan_lengths[] = {0,  1,  7,  8,  9,  15, 16, 17, 31, 32,
                                       33, 47, 64, 65, 100, 32767, 32768,
                                       32769, 50001};

Test(cpu_loops, f32_scans_of_every_kind)
{
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (size_t l = 0; l < sizeof scan_lengths / sizeof *scan_lengths; l++)
            check_scan(&kinds[k], 1, 1, &scan_lengths[l], PATTERN_RANDOM);
}

Test(cpu_loops, f64_scans)
{
    const scan_kind *some[] = {&kinds[0], &kinds[2], &kinds[6], &kinds[9]};
    for (size_t k = 0; k < sizeof some / sizeof *some; k++)
        for (size_t l = 0; l < sizeof scan_lengths / sizeof *scan_lengths; l++)
            check_scan(some[k], 0, 1, &scan_lengths[l], PATTERN_RANDOM);
}

Test(cpu_loops, scans_of_negative_zeros_infinities_and_nans)
{
    const int64_t lengths[] = {3, 17, 40, 33000};
    for (int pat = PATTERN_NEG_ZERO; pat <= PATTERN_NAN; pat++)
        for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
            check_scan(&kinds[0], 1, 1, &lengths[l], pat);
            check_scan(&kinds[1], 0, 1, &lengths[l], pat);
            check_scan(&kinds[7], 1, 1, &lengths[l], pat);
        }
}

Test(cpu_loops, scans_of_matrix_rows)
{
    const int64_t shapes[][2] = {{3, 37}, {5, 16}, {2, 33000}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        check_scan(&kinds[0], 1, 2, shapes[s], PATTERN_RANDOM);
        check_scan(&kinds[7], 0, 2, shapes[s], PATTERN_RANDOM);
    }
}
