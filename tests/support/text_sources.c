/*
 * text_sources.c — the sources declared in text_sources.h, verbatim from
 * LANGUAGE.md (the text must parse and run exactly as written).
 */
#include "text_sources.h"

/* Two of the §4 programs, each exactly as written there, for tests that
 * need only them (ts_dotp_source, ts_blackscholes_source). */
#define DOTP \
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n" \
    "  fold (+) 0 (zipWith (*) xs ys)\n"

#define BLACKSCHOLES \
    "cnd d =\n" \
    "  let k = 1.0 / (1.0 + 0.2316419 * abs d);\n" \
    "      poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));\n" \
    "      c = 0.3989422804014327 * exp (-0.5 * d * d) * poly\n" \
    "  in if d > 0 then 1.0 - c else c\n" \
    "\n" \
    "blackscholes (opts : Vector (f32, f32, f32)) : Vector (f32, f32) =\n" \
    "  map (\\(price, strike, years) ->\n" \
    "         let r = 0.02; v = 0.30;\n" \
    "             v_sqrtT = v * sqrt years;\n" \
    "             d1 = (log (price / strike) + (r + 0.5 * v * v) * years) / v_sqrtT;\n" \
    "             d2 = d1 - v_sqrtT;\n" \
    "             cndD1 = cnd d1; cndD2 = cnd d2;\n" \
    "             x_expRT = strike * exp (-r * years)\n" \
    "         in (price * cndD1 - x_expRT * cndD2, x_expRT * (1.0 - cndD2) - price * (1.0 - cndD1)))\n" \
    "      opts\n"

const char *ts_language4_source(void)
{
    return
    "-- dot product\n"
    DOTP
    "\n"
    "-- sparse matrix (CSR, segd = row lengths) times dense vector\n"
    "smvm (segd : Vector i64) (inds : Vector i64) (vals : Vector f32) (vec : Vector f32) : Vector f32 =\n"
    "  let vecVals = backpermute (shape inds) (\\i -> [inds ! i]) vec;\n"
    "      products = zipWith (*) vecVals vals\n"
    "  in foldSeg (+) 0 products segd\n"
    "\n"
    "-- Black-Scholes option pricing\n"
    BLACKSCHOLES
    "\n"
    "-- histogram of values in [0, k)\n"
    "histogram (k : i64) (xs : Vector i32) : Vector i32 =\n"
    "  permute (+) (fill [k] 0) (\\[i] -> [i64 (xs ! [i])]) (map (\\_ -> 1) xs)\n"
    "\n"
    "-- 3x3 blur with clamped borders\n"
    "blur (img : Matrix f32) : Matrix f32 =\n"
    "  stencil (\\((a, b, c), (d, e, f), (g, h, i)) ->\n"
    "             (a + 2*b + c + 2*d + 4*e + 2*f + g + 2*h + i) / 16) clamp img\n"
    "\n"
    "-- Mandelbrot escape counts\n"
    "mandelbrot (width : i64) (height : i64) (limit : i32) : Matrix i32 =\n"
    "  generate [height, width] (\\[y, x] ->\n"
    "    let cx = -2.0 + 3.0 * f32 x / f32 width;\n"
    "        cy = -1.2 + 2.4 * f32 y / f32 height;\n"
    "        (zx, zy, n) = while (\\(zx, zy, n) -> n < limit && zx*zx + zy*zy < 4.0)\n"
    "                            (\\(zx, zy, n) -> (zx*zx - zy*zy + cx, 2.0*zx*zy + cy, n + 1))\n"
    "                            (0.0, 0.0, 0)\n"
    "    in n)\n"
    "\n"
    "-- dot product through the BLAS plugin when present, pure otherwise\n"
    "dotBlas (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  foreign \"blas.dot\" (\\(a, b) -> fold (+) 0 (zipWith (*) a b)) (xs, ys)\n";
}

const char *ts_dotp_source(void)
{
    return DOTP;
}

const char *ts_blackscholes_source(void)
{
    return BLACKSCHOLES;
}

const char *ts_sieve_source(void)
{
    return
    "sieveMarks (ps : Vector i64) (n : i64) : Vector i32 =\n"
    "  permute' (+) (fill [n] 0)\n"
    "    (expand (\\p -> quot (n - p) p)\n"
    "            (\\p k -> let m = (k + 2) * p in (if m < n then [m] else ignore, 1)) ps)\n";
}
