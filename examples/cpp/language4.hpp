// language4.hpp — the programs of LANGUAGE.md §4 written in C++ with the
// embedded language of accel/accel.hpp, next to the same programs as text
// and plain C++ loops computing what they should give.
//
// Each lang4::NAME(ctx) traces its program once and returns a typed
// function; lang4::text is the §4 source exactly as LANGUAGE.md prints
// it (tests/programs/language4.acc), for ctx.compile_text(lang4::text).entry<...>("NAME"); lang4::ref
// holds the reference loops.  examples/cpp/language4.cpp runs them all;
// bindings/cpp/tests/test_programs.cpp tests them.
#ifndef ACCEL_EXAMPLES_LANGUAGE4_HPP
#define ACCEL_EXAMPLES_LANGUAGE4_HPP

#include <accel/accel.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

namespace lang4 {

using namespace accel;

// ---- the programs in C++ ---------------------------------------------------

// dotp xs ys = fold (+) 0 (zipWith (*) xs ys)
inline auto dotp(const Context &ctx)
{
    return compile(ctx, [](Acc<Vector<float>> xs, Acc<Vector<float>> ys) {
        return fold([](auto a, auto b) { return a + b; }, 0.0f,
                    zipWith([](auto a, auto b) { return a * b; }, xs, ys));
    });
}

// Sparse matrix (CSR, segd = row lengths) times dense vector.
inline auto smvm(const Context &ctx)
{
    return compile(ctx, [](Acc<Vector<std::int64_t>> segd,
                           Acc<Vector<std::int64_t>> inds,
                           Acc<Vector<float>> vals, Acc<Vector<float>> vec) {
        auto vecVals =
            backpermute(shape(inds), [=](auto i) { return index(inds(i)); }, vec);
        auto products =
            zipWith([](auto a, auto b) { return a * b; }, vecVals, vals);
        return foldSeg([](auto a, auto b) { return a + b; }, 0.0f, products,
                       segd);
    });
}

// The cumulative normal distribution (a helper: inlined where used, as in
// the text program).
template <class E> E cnd(const E &d)
{
    auto k = 1.0f / (1.0f + 0.2316419f * abs(d));
    auto poly =
        k * (0.31938153f +
             k * (-0.356563782f +
                  k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
    auto c = 0.3989422804014327f * exp(-0.5f * d * d) * poly;
    return cond(d > 0.0f, 1.0f - c, c);
}

// Black-Scholes option pricing: (price, strike, years) -> (call, put).
inline auto blackscholes(const Context &ctx)
{
    using Option = std::tuple<float, float, float>;
    return compile(ctx, [](Acc<Vector<Option>> opts) {
        return map(
            [](auto price, auto strike, auto years) {
                const float r = 0.02f, v = 0.30f;
                auto v_sqrtT = v * sqrt(years);
                auto d1 = (log(price / strike) + (r + 0.5f * v * v) * years) /
                          v_sqrtT;
                auto d2 = d1 - v_sqrtT;
                auto cndD1 = cnd(d1);
                auto cndD2 = cnd(d2);
                auto x_expRT = strike * exp(-r * years);
                return std::make_tuple(
                    price * cndD1 - x_expRT * cndD2,
                    x_expRT * (1.0f - cndD2) - price * (1.0f - cndD1));
            },
            opts);
    });
}

// Histogram of values in [0, k).
inline auto histogram(const Context &ctx)
{
    return compile(ctx, [](Exp<std::int64_t> k, Acc<Vector<std::int32_t>> xs) {
        return permute([](auto a, auto b) { return a + b; }, fill(index(k), 0),
                       [=](auto i) { return index(convert<std::int64_t>(xs(i))); },
                       map([](auto) { return 1; }, xs));
    });
}

// 3x3 blur with clamped borders; the neighbourhood comes one element per
// parameter, rows outermost (e is the focus).
inline auto blur(const Context &ctx)
{
    return compile(ctx, [](Acc<Matrix<float>> img) {
        return stencil(
            [](auto a, auto b, auto c, auto d, auto e, auto f, auto g, auto h,
               auto i) {
                return (a + 2 * b + c + 2 * d + 4 * e + 2 * f + g + 2 * h + i) /
                       16;
            },
            clamp, img);
    });
}

// Mandelbrot escape counts.
inline auto mandelbrot(const Context &ctx)
{
    return compile(ctx, [](Exp<std::int64_t> width, Exp<std::int64_t> height,
                           Exp<std::int32_t> limit) {
        return generate(index(height, width), [=](auto y, auto x) {
            auto cx = -2.0f + 3.0f * convert<float>(x) / convert<float>(width);
            auto cy = -1.2f + 2.4f * convert<float>(y) / convert<float>(height);
            auto [zx, zy, n] = while_(
                [=](auto x1, auto y1, auto n1) {
                    return n1 < limit && x1 * x1 + y1 * y1 < 4.0f;
                },
                [=](auto x1, auto y1, auto n1) {
                    return std::make_tuple(x1 * x1 - y1 * y1 + cx,
                                           2.0f * x1 * y1 + cy, n1 + 1);
                },
                std::make_tuple(0.0f, 0.0f, 0));
            (void)zx;
            (void)zy;
            return n;
        });
    });
}

// The dot product through the BLAS plugin when present, pure otherwise.
inline auto dotBlas(const Context &ctx)
{
    return compile(ctx, [](Acc<Vector<float>> xs, Acc<Vector<float>> ys) {
        return foreign(
            "blas.dot",
            [](auto a, auto b) {
                return fold([](auto p, auto q) { return p + q; }, 0.0f,
                            zipWith([](auto p, auto q) { return p * q; }, a, b));
            },
            xs, ys);
    });
}

// ---- the same programs as text (LANGUAGE.md §4, exactly) -------------------

// tests/programs/language4.acc, the text every binding's tests read; the
// build makes it a raw string literal R"acc(...)acc" in language4.acc.inc
// (bindings/cpp/CMakeLists.txt).
inline const char *const text =
#include "language4.acc.inc"
    ;

// The C++ signatures of the text entries, for Module::entry<Sig>.
using DotpSig = Scalar<float>(Vector<float>, Vector<float>);
using SmvmSig = Vector<float>(Vector<std::int64_t>, Vector<std::int64_t>,
                              Vector<float>, Vector<float>);
using BlackScholesSig = Vector<std::tuple<float, float>>(
    Vector<std::tuple<float, float, float>>);
using HistogramSig = Vector<std::int32_t>(std::int64_t, Vector<std::int32_t>);
using BlurSig = Matrix<float>(Matrix<float>);
using MandelbrotSig = Matrix<std::int32_t>(std::int64_t, std::int64_t,
                                           std::int32_t);

// ---- plain C++ references ---------------------------------------------------

namespace ref {

// The dot product in double, and the sum of |x*y| (bounds an f32 sum's
// rounding error: n * FLT_EPSILON * sum |x*y|).
inline double dotp(const std::vector<float> &xs, const std::vector<float> &ys,
                   double *abs_sum)
{
    double s = 0, a = 0;
    for (std::size_t i = 0; i < xs.size() && i < ys.size(); i++) {
        s += double(xs[i]) * double(ys[i]);
        a += std::fabs(double(xs[i]) * double(ys[i]));
    }
    if (abs_sum)
        *abs_sum = a;
    return s;
}

inline std::vector<double> smvm(const std::vector<std::int64_t> &segd,
                                const std::vector<std::int64_t> &inds,
                                const std::vector<float> &vals,
                                const std::vector<float> &vec)
{
    std::vector<double> out;
    std::size_t k = 0;
    for (std::int64_t len : segd) {
        double row = 0;
        for (std::int64_t e = 0; e < len; e++, k++)
            row += double(vals[k]) * double(vec[std::size_t(inds[k])]);
        out.push_back(row);
    }
    return out;
}

inline double cnd(double d)
{
    double k = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
    double poly =
        k * (0.31938153 +
             k * (-0.356563782 +
                  k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    double c = 0.3989422804014327 * std::exp(-0.5 * d * d) * poly;
    return d > 0 ? 1.0 - c : c;
}

inline void blackscholes(double price, double strike, double years,
                         double *call, double *put)
{
    const double r = 0.02, v = 0.30;
    double v_sqrtT = v * std::sqrt(years);
    double d1 = (std::log(price / strike) + (r + 0.5 * v * v) * years) / v_sqrtT;
    double d2 = d1 - v_sqrtT;
    double x_expRT = strike * std::exp(-r * years);
    *call = price * cnd(d1) - x_expRT * cnd(d2);
    *put = x_expRT * (1.0 - cnd(d2)) - price * (1.0 - cnd(d1));
}

inline std::vector<std::int32_t> histogram(std::int64_t k,
                                           const std::vector<std::int32_t> &xs)
{
    std::vector<std::int32_t> h(std::size_t(k), 0);
    for (std::int32_t x : xs)
        h[std::size_t(x)]++;
    return h;
}

// Exact in f32: the weights are powers of two and the sum of integers
// below 2^24 is exact, so the reference uses the program's own order.
inline float blur(const std::vector<float> &img, std::int64_t rows,
                  std::int64_t cols, std::int64_t r, std::int64_t c)
{
    auto at = [&](std::int64_t y, std::int64_t x) {
        y = y < 0 ? 0 : y >= rows ? rows - 1 : y;
        x = x < 0 ? 0 : x >= cols ? cols - 1 : x;
        return img[std::size_t(y * cols + x)];
    };
    return (at(r - 1, c - 1) + 2 * at(r - 1, c) + at(r - 1, c + 1) +
            2 * at(r, c - 1) + 4 * at(r, c) + 2 * at(r, c + 1) +
            at(r + 1, c - 1) + 2 * at(r + 1, c) + at(r + 1, c + 1)) /
           16;
}

// Escape count of one pixel, in f32 as the program computes it.
inline std::int32_t mandelbrot(std::int64_t width, std::int64_t height,
                               std::int32_t limit, std::int64_t y,
                               std::int64_t x)
{
    float cx = -2.0f + 3.0f * float(x) / float(width);
    float cy = -1.2f + 2.4f * float(y) / float(height);
    float zx = 0.0f, zy = 0.0f;
    std::int32_t n = 0;
    while (n < limit && zx * zx + zy * zy < 4.0f) {
        float nx = zx * zx - zy * zy + cx;
        float ny = 2.0f * zx * zy + cy;
        zx = nx;
        zy = ny;
        n++;
    }
    return n;
}

} // namespace ref
} // namespace lang4

#endif // ACCEL_EXAMPLES_LANGUAGE4_HPP
