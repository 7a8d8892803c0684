/*
 * bench_common.c — the pieces shared by the benchmark programs (see
 * bench_common.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/bench_common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const char bench_programs[] =
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n"
    "\n"
    "smvm (segd : Vector i64) (inds : Vector i64) (vals : Vector f32) "
    "(vec : Vector f32) : Vector f32 =\n"
    "  let vecVals = backpermute (shape inds) (\\i -> [inds ! i]) vec;\n"
    "      products = zipWith (*) vecVals vals\n"
    "  in foldSeg (+) 0 products segd\n"
    "\n"
    "cnd d =\n"
    "  let k = 1.0 / (1.0 + 0.2316419 * abs d);\n"
    "      poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + "
    "k * (-1.821255978 + k * 1.330274429))));\n"
    "      c = 0.3989422804014327 * exp (-0.5 * d * d) * poly\n"
    "  in if d > 0 then 1.0 - c else c\n"
    "\n"
    "blackscholes (opts : Vector (f32, f32, f32)) : Vector (f32, f32) =\n"
    "  map (\\(price, strike, years) ->\n"
    "         let r = 0.02; v = 0.30;\n"
    "             v_sqrtT = v * sqrt years;\n"
    "             d1 = (log (price / strike) + (r + 0.5 * v * v) * years) / "
    "v_sqrtT;\n"
    "             d2 = d1 - v_sqrtT;\n"
    "             cndD1 = cnd d1; cndD2 = cnd d2;\n"
    "             x_expRT = strike * exp (-r * years)\n"
    "         in (price * cndD1 - x_expRT * cndD2, x_expRT * (1.0 - cndD2) - "
    "price * (1.0 - cndD1)))\n"
    "      opts\n"
    "\n"
    "mandelbrot (width : i64) (height : i64) (limit : i32) : Matrix i32 =\n"
    "  generate [height, width] (\\[y, x] ->\n"
    "    let cx = -2.0 + 3.0 * f32 x / f32 width;\n"
    "        cy = -1.2 + 2.4 * f32 y / f32 height;\n"
    "        (zx, zy, n) = while (\\(zx, zy, n) -> n < limit && zx*zx + zy*zy "
    "< 4.0)\n"
    "                            (\\(zx, zy, n) -> (zx*zx - zy*zy + cx, "
    "2.0*zx*zy + cy, n + 1))\n"
    "                            (0.0, 0.0, 0)\n"
    "    in n)\n"
    "\n"
    "-- accelerations of n bodies (x, y, z, mass): all pairs, softened\n"
    "nbody (bodies : Vector (f32, f32, f32, f32)) : Vector (f32, f32, f32) =\n"
    "  let n = size bodies\n"
    "  in fold (\\(ax, ay, az) (bx, by, bz) -> (ax + bx, ay + by, az + bz))\n"
    "          (0.0, 0.0, 0.0)\n"
    "          (generate [n, n] (\\[i, j] ->\n"
    "             let (xi, yi, zi, mi) = bodies ! [i];\n"
    "                 (xj, yj, zj, mj) = bodies ! [j];\n"
    "                 dx = xj - xi; dy = yj - yi; dz = zj - zi;\n"
    "                 d2 = dx * dx + dy * dy + dz * dz + 0.01;\n"
    "                 inv = 1.0 / sqrt d2;\n"
    "                 s = mj * inv * inv * inv\n"
    "             in (dx * s, dy * s, dz * s)))\n"
    "\n"
    "fft2 (xs : Matrix (f32, f32)) : Matrix (f32, f32) = fft xs\n"
    "\n"
    "highpass (cut : i64) (xs : Matrix (f32, f32)) : Matrix (f32, f32) =\n"
    "  let f = fft xs;\n"
    "      g = generate (shape f) (\\[i, j] ->\n"
    "            let [h, w] = shape f;\n"
    "                di = min i (h - i);\n"
    "                dj = min j (w - j)\n"
    "            in if di < cut && dj < cut then (0.0, 0.0) else f ! [i, j])\n"
    "  in ifft g\n"
    "\n"
    "matmul (a : Matrix f32) (b : Matrix f32) : Matrix f32 = gemm a b\n"
    "\n"
    "blur (img : Matrix f32) : Matrix f32 =\n"
    "  stencil (\\((a, b, c), (d, e, f), (g, h, i)) ->\n"
    "             (a + 2*b + c + 2*d + 4*e + 2*f + g + 2*h + i) / 16) clamp "
    "img\n"
    "\n"
    "histogram (k : i64) (xs : Vector i32) : Vector i32 =\n"
    "  permute (+) (fill [k] 0) (\\[i] -> [i64 (xs ! [i])]) "
    "(map (\\_ -> 1) xs)\n"
    "\n"
    "sieveMarks (ps : Vector i64) (n : i64) : Vector i32 =\n"
    "  permute' (+) (fill [n] 0)\n"
    "    (expand (\\p -> quot (n - p) p)\n"
    "            (\\p k -> let m = (k + 2) * p in (if m < n then [m] else "
    "ignore, 1)) ps)\n";

double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, by_value);
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

void bench_report(bench *b, const char *name, const char *size,
                  double accel_ms, const char *baseline, double base_ms,
                  int agree)
{
    double ratio = accel_ms > 0 ? base_ms / accel_ms : 0;
    printf("%-22s %-16s %12.4g %-20s %12.4g %8.2fx  %s\n", name, size,
           accel_ms, baseline, base_ms, ratio, agree ? "ok" : "MISMATCH");
    fprintf(b->csv, "%s,%s,%.6f,%s,%.6f,%.4f,%s\n", name, size, accel_ms,
            baseline, base_ms, ratio, agree ? "ok" : "mismatch");
    b->failures += !agree;
}

void bench_headings(bench *b)
{
    fprintf(b->csv, "benchmark,size,accel_ms,baseline,baseline_ms,"
                    "baseline_over_accel,check\n");
    printf("%-22s %-16s %12s %-20s %12s %9s\n", "benchmark", "size",
           "accel ms", "baseline", "baseline ms", "accel/base");
    printf("(accel/base = baseline time / accel time: 1.00x is equal speed, "
           "above 1 accel is faster)\n");
}

acc_program *bench_compile(const bench *b, const char *entry)
{
    acc_program *p = NULL;
    if (acc_compile_text(b->ctx, bench_programs, (size_t)-1, entry, &p) !=
        ACC_OK) {
        fprintf(stderr, "%s: cannot compile %s: %s\n", b->tool, entry,
                acc_last_error());
        exit(1);
    }
    return p;
}

void bench_run(const bench *b, acc_program *p, size_t n_in, const acc_array *in,
               size_t n_out, acc_array *out)
{
    if (acc_run(p, n_in, in, n_out, out) != ACC_OK) {
        fprintf(stderr, "%s: run failed: %s\n", b->tool, acc_last_error());
        exit(1);
    }
}

void *bench_alloc(const bench *b, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", b->tool);
        exit(1);
    }
    return p;
}

int bench_selected(const char *group)
{
    const char *only = getenv("ACC_BENCH_ONLY");
    if (!only || !*only)
        return 1;
    size_t n = strlen(group);
    for (const char *p = only; (p = strstr(p, group)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int bench_env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && atoi(v) > 0 ? atoi(v) : fallback;
}
