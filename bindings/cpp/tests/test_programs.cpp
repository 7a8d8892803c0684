// test_programs.cpp — the programs of LANGUAGE.md §4 through the C++
// binding: written in the embedded language (examples/cpp/language4.hpp)
// and compiled from their text, on the reference interpreter and on the
// CPU backend, each checked against a plain C++ loop (lang4::ref) on
// inputs generated here.  The embedded and text versions have the same
// C++ type (their signatures are deduced and spelled the same), so one
// checker serves both.
#include "language4.hpp"
#include "support.hpp"

#include <cfloat>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace accel;

namespace {

// The signatures compile() deduces from the lambdas are the text's.
static_assert(std::is_same_v<decltype(lang4::dotp(std::declval<Context &>())),
                             Function<lang4::DotpSig>>);
static_assert(std::is_same_v<decltype(lang4::smvm(std::declval<Context &>())),
                             Function<lang4::SmvmSig>>);
static_assert(
    std::is_same_v<decltype(lang4::blackscholes(std::declval<Context &>())),
                   Function<lang4::BlackScholesSig>>);
static_assert(
    std::is_same_v<decltype(lang4::histogram(std::declval<Context &>())),
                   Function<lang4::HistogramSig>>);
static_assert(std::is_same_v<decltype(lang4::blur(std::declval<Context &>())),
                             Function<lang4::BlurSig>>);
static_assert(
    std::is_same_v<decltype(lang4::mandelbrot(std::declval<Context &>())),
                   Function<lang4::MandelbrotSig>>);
static_assert(std::is_same_v<decltype(lang4::dotBlas(std::declval<Context &>())),
                             Function<lang4::DotpSig>>);

std::vector<Backend> backends() { return {Backend::Interp, Backend::Cpu}; }

Module text(const Context &ctx) { return ctx.compile_text(lang4::text); }

// ---- checkers --------------------------------------------------------------

void check_dotp(const Function<lang4::DotpSig> &f)
{
    support::Rng rng;
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000),
                          std::size_t(100003)}) {
        std::vector<float> xs(n), ys(n);
        for (std::size_t i = 0; i < n; i++) {
            xs[i] = float(rng.next() * 2 - 1);
            ys[i] = float(rng.next() * 4);
        }
        double abs_sum = 0;
        const double want = lang4::ref::dotp(xs, ys, &abs_sum);
        const float got = f(xs, ys);
        CHECK(std::fabs(double(got) - want) <=
              double(n + 1) * FLT_EPSILON * abs_sum);
    }
}

void check_smvm(const Function<lang4::SmvmSig> &f)
{
    support::Rng rng;
    const std::int64_t rows = 300, cols = 50;
    std::vector<std::int64_t> segd, inds;
    std::vector<float> vals, vec(static_cast<std::size_t>(cols));
    for (auto &v : vec)
        v = float(rng.next() * 10 - 5);
    for (std::int64_t r = 0; r < rows; r++) {
        const auto len = std::int64_t(rng.next() * 8); // some rows are empty
        segd.push_back(len);
        for (std::int64_t e = 0; e < len; e++) {
            inds.push_back(std::int64_t(rng.next() * double(cols)));
            vals.push_back(float(rng.next() * 2 - 1));
        }
    }
    const auto want = lang4::ref::smvm(segd, inds, vals, vec);
    const Vector<float> got = f(segd, inds, vals, vec);
    CHECK(got.extent(0) == rows);
    for (std::int64_t r = 0; r < rows; r++)
        CHECK(got[r] == support::close(want[std::size_t(r)], 1e-5));
}

void check_blackscholes(const Function<lang4::BlackScholesSig> &f)
{
    support::Rng rng;
    const std::size_t n = 500;
    std::vector<float> price(n), strike(n), years(n);
    for (std::size_t i = 0; i < n; i++) {
        price[i] = float(5 + 25 * rng.next());
        strike[i] = float(1 + 99 * rng.next());
        years[i] = float(0.25 + 9.75 * rng.next());
    }
    // An array of tuples from its fields (no copy), results by field.
    const auto out = f(std::tie(price, strike, years));
    const auto [call, put] = out;
    CHECK(call.size() == std::int64_t(n));
    for (std::size_t i = 0; i < n; i++) {
        double c = 0, p = 0;
        lang4::ref::blackscholes(price[i], strike[i], years[i], &c, &p);
        CHECK(call[std::int64_t(i)] == support::close(c, 1e-4));
        CHECK(put[std::int64_t(i)] == support::close(p, 1e-4));
        // Elements of an array of tuples read as std::tuple.
        const std::tuple<float, float> elem = out[std::int64_t(i)];
        CHECK(std::get<0>(elem) == call[std::int64_t(i)]);
    }
}

void check_histogram(const Function<lang4::HistogramSig> &f)
{
    // The example of LANGUAGE.md §3.4, then many values.
    const std::vector<std::int32_t> small{0, 0, 1, 2, 1, 1, 2, 4, 8, 3,
                                          4, 9, 8, 3, 2, 5, 5, 3, 1, 2};
    CHECK(f(10, small).to_vector() == lang4::ref::histogram(10, small));
    support::Rng rng;
    std::vector<std::int32_t> many(20000);
    for (auto &x : many)
        x = std::int32_t(rng.next() * 37);
    const std::int64_t bins = 37;
    CHECK(f(bins, many).to_vector() == lang4::ref::histogram(bins, many));
}

void check_blur(const Function<lang4::BlurSig> &f)
{
    support::Rng rng;
    const std::int64_t rows = 37, cols = 53;
    std::vector<float> pixels(std::size_t(rows * cols));
    for (auto &p : pixels)
        p = float(int(rng.next() * 256)); // integers: the sum is exact
    const auto img = view(pixels, {rows, cols}); // a vector seen as a matrix
    const Matrix<float> got = f(img);
    CHECK(got.shape() == (std::array<std::int64_t, 2>{{rows, cols}}));
    for (std::int64_t r = 0; r < rows; r++)
        for (std::int64_t c = 0; c < cols; c++)
            CHECK(got(r, c) == lang4::ref::blur(pixels, rows, cols, r, c));
}

void check_mandelbrot(const Function<lang4::MandelbrotSig> &f)
{
    const std::int64_t width = 48, height = 20;
    const std::int32_t limit = 60;
    const Matrix<std::int32_t> got = f(width, height, limit);
    CHECK(got.extent(0) == height);
    CHECK(got.extent(1) == width);
    int inside = 0;
    for (std::int64_t y = 0; y < height; y++)
        for (std::int64_t x = 0; x < width; x++) {
            const std::int32_t want =
                lang4::ref::mandelbrot(width, height, limit, y, x);
            inside += want == limit;
            CHECK(got(y, x) == want);
        }
    CHECK(inside > 0); // some points stay inside the set
}

// ---- each program, embedded and as text, on each backend -------------------

TEST_CASE("dotp", "[programs]")
{
    for (Backend b : backends()) {
        Context ctx(b);
        check_dotp(lang4::dotp(ctx));
        check_dotp(text(ctx).entry<lang4::DotpSig>("dotp"));
    }
}

TEST_CASE("smvm", "[programs]")
{
    for (Backend b : backends()) {
        Context ctx(b);
        check_smvm(lang4::smvm(ctx));
        check_smvm(text(ctx).entry<lang4::SmvmSig>("smvm"));
    }
}

TEST_CASE("blackscholes", "[programs]")
{
    for (Backend b : backends()) {
        Context ctx(b);
        check_blackscholes(lang4::blackscholes(ctx));
        check_blackscholes(
            text(ctx).entry<lang4::BlackScholesSig>("blackscholes"));
    }
}

TEST_CASE("histogram", "[programs]")
{
    for (Backend b : backends()) {
        Context ctx(b);
        check_histogram(lang4::histogram(ctx));
        check_histogram(text(ctx).entry<lang4::HistogramSig>("histogram"));
    }
}

TEST_CASE("blur", "[programs]")
{
    for (Backend b : backends()) {
        Context ctx(b);
        check_blur(lang4::blur(ctx));
        check_blur(text(ctx).entry<lang4::BlurSig>("blur"));
    }
}

TEST_CASE("mandelbrot", "[programs]")
{
    for (Backend b : backends()) {
        Context ctx(b);
        check_mandelbrot(lang4::mandelbrot(ctx));
        check_mandelbrot(text(ctx).entry<lang4::MandelbrotSig>("mandelbrot"));
    }
}

// dotBlas uses the cblas plugin where it is loaded, the fallback otherwise;
// both are checked (plugins "none" forces the fallback).
TEST_CASE("dotBlas", "[programs]")
{
    for (Backend b : backends()) {
        for (const char *plugins : {"builtin", "none"}) {
            ContextOptions o;
            o.backend = b;
            o.plugins = plugins;
            Context ctx(o);
            const auto embedded = lang4::dotBlas(ctx);
            check_dotp(embedded);
            check_dotp(text(ctx).entry<lang4::DotpSig>("dotBlas"));
            const std::string plan = embedded.explain();
            if (std::string(plugins) == "none")
                CHECK(plan.find("cblas.dot") == std::string::npos);
        }
    }
}

// The embedded programs compile to the same plan as their text: the same
// kernels and intermediate arrays.
TEST_CASE("embedded_and_text_plans_agree", "[programs]")
{
    Context ctx(Backend::Cpu);
    const Module m = text(ctx);
    const auto same = [](const Program &a, const Program &b) {
        const acc_plan_summary x = a.plan(), y = b.plan();
        return x.kernels == y.kernels && x.intermediates == y.intermediates;
    };
    CHECK(same(lang4::dotp(ctx).program(), m.entry("dotp")));
    CHECK(same(lang4::smvm(ctx).program(), m.entry("smvm")));
    CHECK(same(lang4::blackscholes(ctx).program(), m.entry("blackscholes")));
    CHECK(same(lang4::histogram(ctx).program(), m.entry("histogram")));
    CHECK(same(lang4::blur(ctx).program(), m.entry("blur")));
    CHECK(same(lang4::mandelbrot(ctx).program(), m.entry("mandelbrot")));
    CHECK(lang4::dotp(ctx).program().plan().kernels == 1); // fused
}

} // namespace

