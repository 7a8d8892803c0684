// language4.cpp — every program of LANGUAGE.md §4 written in C++ with the
// embedded language (language4.hpp), run next to the same program compiled
// from its text, each checked against a plain C++ loop.  Exits 1 when any
// result is off.
//
//   build/examples/cpp/language4
#include "language4.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

using namespace accel;

namespace {

int failures = 0;
bool text = false; // the second run of each pair is the text program

void report(const char *name, bool ok, const std::string &what)
{
    std::printf("  %-20s %-4s %s\n", name, ok ? "ok" : "FAIL", what.c_str());
    failures += !ok;
}

} // namespace

int main()
{
    try {
        Context ctx;
        std::printf("backend: %s\n", backend_name(ctx.backend()));
        const Module m = ctx.compile_text(lang4::text);

        // dotp and dotBlas
        std::vector<float> xs(1000), ys(1000);
        for (std::size_t i = 0; i < xs.size(); i++) {
            xs[i] = float(i % 10) * 0.25f;
            ys[i] = float(i % 3) - 1.0f;
        }
        const double dot = lang4::ref::dotp(xs, ys, nullptr);
        const auto dotp_e = lang4::dotp(ctx);
        const auto dotp_t = m.entry<lang4::DotpSig>("dotp");
        const auto blas_e = lang4::dotBlas(ctx);
        const auto blas_t = m.entry<lang4::DotpSig>("dotBlas");
        for (const auto *f : {&dotp_e, &dotp_t, &blas_e, &blas_t}) {
            const float r = (*f)(xs, ys);
            report(f == &dotp_e ? "dotp" : f == &dotp_t ? "dotp (text)"
                   : f == &blas_e ? "dotBlas" : "dotBlas (text)",
                   std::fabs(double(r) - dot) < 1e-3,
                   std::to_string(r) + " (loop: " + std::to_string(dot) + ")");
        }

        // smvm: a 4x5 CSR matrix times a vector
        const std::vector<std::int64_t> segd{2, 0, 3, 1}, inds{0, 3, 1, 2, 4, 0};
        const std::vector<float> vals{1, 2, 3, 4, 5, 6}, vec{1, 10, 100, 1000, 10000};
        const auto want_smvm = lang4::ref::smvm(segd, inds, vals, vec);
        text = false;
        for (const auto &f : {lang4::smvm(ctx), m.entry<lang4::SmvmSig>("smvm")}) {
            const Vector<float> r = f(segd, inds, vals, vec);
            bool ok = r.size() == std::int64_t(want_smvm.size());
            std::string s;
            for (std::int64_t i = 0; ok && i < r.size(); i++) {
                ok = ok && r[i] == float(want_smvm[std::size_t(i)]);
                s += std::to_string(r[i]) + " ";
            }
            report(text ? "smvm (text)" : "smvm", ok, s);
            text = true;
        }

        // blackscholes: options as three field vectors
        std::vector<float> price{10, 20, 30}, strike{12, 18, 25}, years{1, 2, 0.5f};
        text = false;
        for (const auto &f : {lang4::blackscholes(ctx),
                              m.entry<lang4::BlackScholesSig>("blackscholes")}) {
            const auto out = f(std::tie(price, strike, years));
            const auto [call, put] = out;
            bool ok = true;
            std::string s;
            for (std::int64_t i = 0; i < call.size(); i++) {
                double c = 0, p = 0;
                lang4::ref::blackscholes(price[std::size_t(i)], strike[std::size_t(i)],
                                         years[std::size_t(i)], &c, &p);
                ok = ok && std::fabs(call[i] - c) < 1e-3 && std::fabs(put[i] - p) < 1e-3;
                s += "(" + std::to_string(call[i]) + ", " + std::to_string(put[i]) + ") ";
            }
            report(text ? "blackscholes (text)" : "blackscholes", ok, s);
            text = true;
        }

        // histogram: the example of LANGUAGE.md §3.4
        const std::vector<std::int32_t> values{0, 0, 1, 2, 1, 1, 2, 4, 8, 3,
                                               4, 9, 8, 3, 2, 5, 5, 3, 1, 2};
        text = false;
        for (const auto &f : {lang4::histogram(ctx),
                              m.entry<lang4::HistogramSig>("histogram")}) {
            const auto h = f(10, values).to_vector();
            std::string s;
            for (auto c : h)
                s += std::to_string(c) + " ";
            report(text ? "histogram (text)" : "histogram", h == lang4::ref::histogram(10, values), s);
            text = true;
        }

        // blur: a 6x8 image
        const std::int64_t rows = 6, cols = 8;
        std::vector<float> img(std::size_t(rows * cols));
        for (std::size_t i = 0; i < img.size(); i++)
            img[i] = float((i * 37) % 256);
        text = false;
        for (const auto &f : {lang4::blur(ctx), m.entry<lang4::BlurSig>("blur")}) {
            const Matrix<float> b = f(view(img, {rows, cols}));
            bool ok = true;
            for (std::int64_t r = 0; r < rows; r++)
                for (std::int64_t c = 0; c < cols; c++)
                    ok = ok && b(r, c) == lang4::ref::blur(img, rows, cols, r, c);
            report(text ? "blur (text)" : "blur", ok, "6x8, corner " + std::to_string(b(0, 0)));
            text = true;
        }

        // mandelbrot: drawn in characters
        const std::int64_t w = 64, h = 20;
        const std::int32_t limit = 50;
        const auto mandel_e = lang4::mandelbrot(ctx);
        const auto mandel_t = m.entry<lang4::MandelbrotSig>("mandelbrot");
        const Matrix<std::int32_t> e = mandel_e(w, h, limit), t = mandel_t(w, h, limit);
        bool ok = true;
        for (std::int64_t y = 0; y < h; y++) {
            std::string line;
            for (std::int64_t x = 0; x < w; x++) {
                const std::int32_t want = lang4::ref::mandelbrot(w, h, limit, y, x);
                ok = ok && e(y, x) == want && t(y, x) == want;
                line += e(y, x) == limit ? '#' : e(y, x) > 8 ? '+' : e(y, x) > 3 ? '.' : ' ';
            }
            std::printf("    |%s|\n", line.c_str());
        }
        report("mandelbrot", ok, "embedded and text agree with the loop");
    } catch (const Error &e) {
        std::fprintf(stderr, "language4: %s: %s\n", e.status_name(), e.what());
        return 1;
    }
    std::printf("%s\n", failures ? "language4: FAILED" : "language4: all programs agree with their loops");
    return failures ? 1 : 0;
}
