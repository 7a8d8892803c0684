/*
 * prelude.c — the part of the text standard library that is written in
 * the text language itself: dot, gemv, gemm (LANGUAGE.md §3.8.1) and the
 * pure FFT behind fft/ifft (builtins_std.c picks the vector or matrix form
 * by rank).  It is parsed with every program (it is small), after the
 * user's text, and its names are visible to programs unless they define
 * the same name.
 *
 * The BLAS functions are written as `foreign "blas.*" fallback arg`, and
 * fft/ifft (builtins_std.c) are foreign nodes "fft.forward"/"fft.inverse"
 * whose fallbacks are the transforms below: a plugin computes them where
 * one is loaded, the pure code everywhere else.
 */
#include "core/text/text_elab.h"

const char text_prelude_source[] =
"dot xs ys =\n"
"  foreign \"blas.dot\" (\\(a, b) -> fold (+) 0 (zipWith (*) a b)) (xs, ys)\n"
"\n"
"gemv mat vec =\n"
"  foreign \"blas.gemv\"\n"
"    (\\(a, x) -> let [m, k] = shape a\n"
"               in fold (+) 0 (zipWith (*) a (replicate [m, All] x)))\n"
"    (mat, vec)\n"
"\n"
"gemm ma mb =\n"
"  foreign \"blas.gemm\"\n"
"    (\\(a, b) -> let [m, k] = shape a; [k2, n] = shape b\n"
"               in fold (+) 0 (zipWith (*) (replicate [All, n, All] a)\n"
"                                          (replicate [m, All, All] (transpose b))))\n"
"    (ma, mb)\n"
"\n"
"fftBitReverse bits i =\n"
"  let (r, v, k) = while (\\(r, v, k) -> k < bits)\n"
"                        (\\(r, v, k) -> (2 * r + (v .&. 1), shiftR v 1, k + 1))\n"
"                        (0, i, 0)\n"
"  in r\n"
"\n"
"fftStage sign m a =\n"
"  generate (shape a) (\\[row, i] ->\n"
"    let h = m `quot` 2;\n"
"        j = i `rem` m;\n"
"        k = j `rem` h;\n"
"        base = i - j;\n"
"        (er, ei) = a ! [row, base + k];\n"
"        (orr, oi) = a ! [row, base + k + h];\n"
"        ang = sign * 2 * pi * toFloating k / toFloating m;\n"
"        wr = cos ang;\n"
"        wi = sin ang;\n"
"        tr = wr * orr - wi * oi;\n"
"        ti = wr * oi + wi * orr\n"
"    in if j < h then (er + tr, ei + ti) else (er - tr, ei - ti))\n"
"\n"
"fftRows sign xs =\n"
"  let [rows, n] = shape xs;\n"
"      bits = 63 - countLeadingZeros n;\n"
"      perm = backpermute (shape xs) (\\[r, i] -> [r, fftBitReverse bits i]) xs;\n"
"      (res, m) = awhile (\\(a, m) -> unit (the m <= n))\n"
"                        (\\(a, m) -> (fftStage sign (the m) a, unit (2 * the m)))\n"
"                        (perm, unit 2)\n"
"  in acond ((n .&. (n - 1)) == 0) res (reshape [0, 0] xs)\n"
"\n"
"fftScale d xs = map (\\(re, im) -> (re / fromIntegral d, im / fromIntegral d)) xs\n"
"\n"
"fftVector xs = reshape (shape xs) (fftRows (-1) (reshape [1, size xs] xs))\n"
"\n"
"ifftVector xs =\n"
"  fftScale (size xs) (reshape (shape xs) (fftRows 1 (reshape [1, size xs] xs)))\n"
"\n"
"fftMatrix xs = transpose (fftRows (-1) (transpose (fftRows (-1) xs)))\n"
"\n"
"ifftMatrix xs = fftScale (size xs) (transpose (fftRows 1 (transpose (fftRows 1 xs))))\n";
