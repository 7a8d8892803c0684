// test_language.cpp — the embedded language beyond the §4 programs: each
// operation of LANGUAGE.md §2-§3 written with C++ lambdas (plain, generic,
// taking tuple or index components), run, and checked against a plain C++
// loop over the same inputs; sharing by term identity checked against the
// same program's text (same plan); the Graph API used directly.
#include "support.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

using namespace accel;

namespace {

std::vector<std::int32_t> iota(std::size_t n, std::int32_t from = 0)
{
    std::vector<std::int32_t> v(n);
    for (std::size_t i = 0; i < n; i++)
        v[i] = from + std::int32_t(i);
    return v;
}

const auto add = [](auto a, auto b) { return a + b; };

} // namespace

TEST_CASE("scalar language: arithmetic, integer division, conversions, "
          "cond, while",
          "[language]")
{
    Context ctx(Backend::Interp);
    // quot rem div mod of every pair, as LANGUAGE.md §2 defines them.
    auto f = compile(ctx, [](Acc<Vector<std::int32_t>> xs, Acc<Vector<std::int32_t>> ys) {
        return zipWith(
            [](auto a, auto b) {
                return std::make_tuple(a / b, a % b, div(a, b), mod(a, b),
                                       cond(a > b, a - b, b - a));
            },
            xs, ys);
    });
    const std::vector<std::int32_t> as{7, -7, 7, -7, 100, 3}, bs{2, 2, -2, -2, 7, 9};
    const auto r = f(as, bs);
    for (std::int64_t i = 0; i < r.size(); i++) {
        const std::int32_t a = as[std::size_t(i)], b = bs[std::size_t(i)];
        const std::int32_t q = a / b, m = a % b;
        const std::int32_t fd = (m != 0 && ((m < 0) != (b < 0))) ? q - 1 : q;
        const std::int32_t fm = (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
        const auto [rq, rr, rd, rm, rdiff] = r[i];
        CHECK(rq == q);
        CHECK(rr == m);
        CHECK(rd == fd);
        CHECK(rm == fm);
        CHECK(rdiff == std::abs(a - b));
    }

    // u8 wraps; conversions; rounding halves to even; while_ (Collatz).
    auto g = compile(ctx, [](Acc<Vector<double>> xs) {
        return map(
            [](Exp<double> x) {
                Exp<std::uint8_t> u = convert<std::uint8_t>(floor<std::int64_t>(x));
                Exp<std::int64_t> steps = get<1>(while_(
                    [](auto n, auto) { return n != std::int64_t(1); },
                    [](auto n, auto k) {
                        return std::make_tuple(
                            cond(even(n), n / std::int64_t(2), 3 * n + 1), k + 1);
                    },
                    std::make_tuple(max(floor<std::int64_t>(abs(x)), std::int64_t(1)),
                                    std::int64_t(0))));
                return std::make_tuple(u + std::uint8_t(100), round<std::int64_t>(x),
                                       steps, sqrt(abs(x)));
            },
            xs);
    });
    const std::vector<double> xs{200.5, 2.5, -2.5, 1.5, 0.5, 27.0, -1.0};
    const auto gr = g(xs);
    for (std::int64_t i = 0; i < gr.size(); i++) {
        const double x = xs[std::size_t(i)];
        const auto [u, rnd, steps, sq] = gr[i];
        CHECK(u == std::uint8_t(std::uint8_t(std::int64_t(std::floor(x))) + 100));
        CHECK(rnd == std::int64_t(std::nearbyint(x)));
        std::int64_t n = std::max<std::int64_t>(std::int64_t(std::floor(std::fabs(x))), 1), k = 0;
        while (n != 1) {
            n = n % 2 == 0 ? n / 2 : 3 * n + 1;
            k++;
        }
        CHECK(steps == k);
        CHECK(sq == support::close(std::sqrt(std::fabs(x)), 1e-12));
    }
}

TEST_CASE("producers, structure, replicate and slice", "[language]")
{
    Context ctx(Backend::Interp);
    auto f = compile(ctx, [](Acc<Vector<std::int32_t>> v, Acc<Matrix<std::int32_t>> m) {
        auto rows = replicate(spec(4, All), v);          // 4 equal rows
        auto cols = replicate(spec(All, 3), v);          // each element 3 times
        auto row2 = slice(m, spec(std::int64_t(2), All)); // row 2 of m
        auto gen = generate(index(std::int64_t(3), std::int64_t(4)),
                            [](auto i, auto j) { return convert<std::int32_t>(i * 10 + j); });
        auto back = backpermute(shape(v), [=](auto i) { return index(size(v) - 1 - i[0]); }, v);
        return std::make_tuple(rows, cols, row2, gen, back, transpose(m));
    });
    const std::vector<std::int32_t> v = iota(10);
    const std::vector<std::int32_t> mvals = iota(50);
    const Matrix<std::int32_t> m(Matrix<std::int32_t>::extents_type{{5, 10}}, mvals);
    const auto [rows, cols, row2, gen, back, tr] = f(v, m);
    REQUIRE(rows.shape() == (std::array<std::int64_t, 2>{{4, 10}}));
    REQUIRE(cols.shape() == (std::array<std::int64_t, 2>{{10, 3}}));
    REQUIRE(tr.shape() == (std::array<std::int64_t, 2>{{10, 5}}));
    for (std::int64_t r = 0; r < 4; r++)
        for (std::int64_t c = 0; c < 10; c++)
            CHECK(rows(r, c) == v[std::size_t(c)]);
    for (std::int64_t r = 0; r < 10; r++)
        for (std::int64_t c = 0; c < 3; c++)
            CHECK(cols(r, c) == v[std::size_t(r)]);
    CHECK(row2.to_vector() == iota(10, 20));
    for (std::int64_t i = 0; i < 3; i++)
        for (std::int64_t j = 0; j < 4; j++)
            CHECK(gen(i, j) == i * 10 + j);
    for (std::int64_t i = 0; i < 10; i++)
        CHECK(back[i] == v[std::size_t(9 - i)]);
    for (std::int64_t i = 0; i < 10; i++)
        for (std::int64_t j = 0; j < 5; j++)
            CHECK(tr(i, j) == m(j, i));
}

TEST_CASE("reductions and scans", "[language]")
{
    Context ctx(Backend::Cpu);
    auto f = compile(ctx, [](Acc<Matrix<std::int32_t>> m, Acc<Vector<std::int32_t>> v) {
        return std::make_tuple(
            fold(add, 42, m),                                    // z once per row
            scanl(add, 10, v),                                   // n + 1
            scanr([](auto x, auto acc) { return x - acc; }, 100, v),
            scanl1([](auto a, auto b) { return max(a, b); }, v),
            std::get<1>(scanlPrime(add, 0, v)),                  // the totals
            foldAll(add, 0, m));
    });
    const std::vector<std::int32_t> mvals = iota(50);
    const Matrix<std::int32_t> m(Matrix<std::int32_t>::extents_type{{5, 10}}, mvals);
    const std::vector<std::int32_t> v{3, -1, 4, 1, -5, 9, 2, -6};
    const auto [rowsums, sl, sr, sl1, total, all] = f(m, v);
    for (std::int64_t r = 0; r < 5; r++) {
        std::int32_t want = 42;
        for (std::int64_t c = 0; c < 10; c++)
            want += m(r, c);
        CHECK(rowsums[r] == want);
    }
    std::vector<std::int32_t> want_sl{10}, want_sr(v.size() + 1, 100), want_sl1;
    for (std::int32_t x : v)
        want_sl.push_back(want_sl.back() + x);
    for (std::size_t i = v.size(); i-- > 0;)
        want_sr[i] = v[i] - want_sr[i + 1];
    for (std::int32_t x : v)
        want_sl1.push_back(want_sl1.empty() ? x : std::max(want_sl1.back(), x));
    CHECK(sl.to_vector() == want_sl);
    CHECK(sr.to_vector() == want_sr);
    CHECK(sl1.to_vector() == want_sl1);
    CHECK(total.value() == want_sl.back() - 10);
    CHECK(all.value() == 49 * 50 / 2);
}

TEST_CASE("permute with ignore, expand into permute'", "[language]")
{
    Context ctx(Backend::Cpu);
    // Even values go to bin value/2, odd ones are dropped.
    auto evens = compile(ctx, [](Acc<Vector<std::int32_t>> xs) {
        return permute(add, fill(index(std::int64_t(5)), 0),
                       [=](auto i) {
                           auto x = xs(i);
                           return cond(even(x), index(convert<std::int64_t>(x / 2)),
                                       ignore<1>());
                       },
                       map([](auto) { return 1; }, xs));
    });
    const std::vector<std::int32_t> xs{0, 1, 2, 2, 3, 4, 8, 9, 6, 6, 6};
    std::vector<std::int32_t> want(5, 0);
    for (std::int32_t x : xs)
        if (x % 2 == 0)
            want[std::size_t(x / 2)]++;
    CHECK(evens(xs).to_vector() == want);

    // The sieve marks of LANGUAGE.md §3.6.
    auto sieve = compile(ctx, [](Acc<Vector<std::int64_t>> ps, Exp<std::int64_t> n) {
        return permutePrime(
            add, fill(index(n), 0),
            expand([=](auto p) { return (n - p) / p; },
                   [=](auto p, auto k) {
                       auto m = (k + 2) * p;
                       return std::make_tuple(cond(m < n, index(m), ignore<1>()), 1);
                   },
                   ps));
    });
    const std::vector<std::int64_t> ps{2, 3, 5, 7};
    const std::int64_t n = 60;
    std::vector<std::int32_t> marks(std::size_t(n), 0);
    for (std::int64_t p : ps)
        for (std::int64_t k = 0; k < (n - p) / p; k++)
            if ((k + 2) * p < n)
                marks[std::size_t((k + 2) * p)]++;
    CHECK(sieve(ps, n).to_vector() == marks);
}

TEST_CASE("stencils: widths, boundaries, neighbourhood forms", "[language]")
{
    Context ctx(Backend::Interp);
    auto f = compile(ctx, [](Acc<Vector<float>> xs) {
        // 5 wide, as a std::array, with each boundary.
        auto w5 = [](const auto &h) { return h[0] + 2 * h[1] + 4 * h[2] + 8 * h[3] + 16 * h[4]; };
        return std::make_tuple(stencil<5>(w5, mirror, xs), stencil<5>(w5, wrap, xs),
                               stencil<5>(w5, constant(100.0f), xs),
                               stencil<5>(w5, clamp, xs));
    });
    const std::vector<float> xs{1, 2, 3, 4, 5, 6, 7};
    const std::int64_t n = 7;
    const auto [mi, wr, co, cl] = f(xs);
    const auto ref = [&](int kind, std::int64_t i) {
        float s = 0, w = 1;
        for (std::int64_t d = -2; d <= 2; d++, w *= 2) {
            std::int64_t j = i + d;
            float x = 0;
            if (j >= 0 && j < n)
                x = xs[std::size_t(j)];
            else if (kind == 0)
                x = xs[std::size_t(j < 0 ? -j : 2 * n - 2 - j)];
            else if (kind == 1)
                x = xs[std::size_t(j < 0 ? n + j : j - n)];
            else if (kind == 2)
                x = 100;
            else
                x = xs[std::size_t(j < 0 ? 0 : n - 1)];
            s += w * x;
        }
        return s;
    };
    for (std::int64_t i = 0; i < n; i++) {
        CHECK(mi[i] == ref(0, i));
        CHECK(wr[i] == ref(1, i));
        CHECK(co[i] == ref(2, i));
        CHECK(cl[i] == ref(3, i));
    }
}

TEST_CASE("acond, awhile, foreign and foreignExp fallbacks", "[language]")
{
    Context ctx(Backend::Interp);
    auto f = compile(ctx, [](Acc<Vector<float>> xs, Exp<float> limit) {
        // Doubles every element until the sum passes the limit.
        auto grown = awhile([=](auto s) { return the(sum(s)) < limit; },
                            [](auto s) { return map([](auto x) { return x * 2; }, s); }, xs);
        auto chosen = acond(the(sum(xs)) > 0.0f, map([](auto x) { return x + 1; }, xs),
                            map([](auto x) { return x - 1; }, xs));
        // A foreign name no plugin provides: the fallback runs.
        auto fb = foreign("test.nothing", [](auto a) { return reverse(a); }, xs);
        auto fe = map([](auto x) {
                          return foreignExp("test.nothing_exp",
                                            [](auto y) { return y * y; }, x);
                      },
                      xs);
        return std::make_tuple(grown, chosen, fb, fe);
    });
    for (const std::vector<float> &xs :
         {std::vector<float>{1, 2, 3}, std::vector<float>{-1, -2, 0.5f}}) {
        const float limit = 50;
        const auto [grown, chosen, fb, fe] = f(xs, limit);
        std::vector<float> g = xs;
        auto total = [](const std::vector<float> &v) {
            float s = 0;
            for (float x : v)
                s += x;
            return s;
        };
        while (total(g) < limit && total(g) > -1e30f) {
            for (float &x : g)
                x *= 2;
            if (total(xs) <= 0)
                break; // a negative sum never passes: the loop is not run
        }
        const float s = total(xs);
        for (std::size_t i = 0; i < xs.size(); i++) {
            if (s > 0)
                CHECK(grown[std::int64_t(i)] == g[i]);
            CHECK(chosen[std::int64_t(i)] == (s > 0 ? xs[i] + 1 : xs[i] - 1));
            CHECK(fb[std::int64_t(i)] == xs[xs.size() - 1 - i]);
            CHECK(fe[std::int64_t(i)] == xs[i] * xs[i]);
        }
    }
}

TEST_CASE("standard library: dot, gemv, gemm, fft, filter, zip", "[language]")
{
    Context ctx(Backend::Cpu);
    auto f = compile(ctx, [](Acc<Matrix<double>> a, Acc<Vector<double>> x) {
        return std::make_tuple(dot(x, x), gemv(a, x), gemm(a, transpose(a)),
                               std::get<0>(filter([](auto v) { return v > 0.0; }, x)),
                               std::get<1>(unzip(zip(x, x))));
    });
    const std::int64_t rows = 3, cols = 4;
    const std::vector<double> avals{1, -2, 3, 0.5, 4, 5, -6, 7, 0, 1, 2, -3};
    const Matrix<double> a(Matrix<double>::extents_type{{rows, cols}}, avals);
    const std::vector<double> x{0.5, -1, 2, 3};
    const auto [d, mv, mm, pos, second] = f(a, x);
    double want_d = 0;
    for (double v : x)
        want_d += v * v;
    CHECK(d.value() == support::close(want_d, 1e-12));
    for (std::int64_t r = 0; r < rows; r++) {
        double s = 0;
        for (std::int64_t c = 0; c < cols; c++)
            s += a(r, c) * x[std::size_t(c)];
        CHECK(mv[r] == support::close(s, 1e-12));
        for (std::int64_t q = 0; q < rows; q++) {
            double t = 0;
            for (std::int64_t c = 0; c < cols; c++)
                t += a(r, c) * a(q, c);
            CHECK(mm(r, q) == support::close(t, 1e-12));
        }
    }
    CHECK(pos.to_vector() == std::vector<double>{0.5, 2, 3});
    CHECK(second.to_vector() == x);

    // ifft (fft x) is x.
    using C = std::tuple<double, double>;
    auto roundtrip = compile(ctx, [](Acc<Vector<C>> z) { return std::make_tuple(fft(z), ifft(fft(z))); });
    std::vector<double> re{1, 2, 0, -1, 3, 0.5, 0, 2}, im{0, 1, 0, 0, -1, 0, 2, 0};
    const auto [spec_, back] = roundtrip(std::tie(re, im));
    const std::int64_t n = 8;
    for (std::int64_t k = 0; k < n; k++) {
        double sr = 0, si = 0;
        for (std::int64_t j = 0; j < n; j++) {
            const double ang = -2 * M_PI * double(j * k) / double(n);
            sr += re[std::size_t(j)] * std::cos(ang) - im[std::size_t(j)] * std::sin(ang);
            si += re[std::size_t(j)] * std::sin(ang) + im[std::size_t(j)] * std::cos(ang);
        }
        const C s = spec_[k], b = back[k];
        CHECK(std::get<0>(s) == support::close(sr, 1e-9));
        CHECK(std::get<1>(s) == support::close(si, 1e-9));
        CHECK(std::get<0>(b) == support::close(re[std::size_t(k)], 1e-9));
        CHECK(std::get<1>(b) == support::close(im[std::size_t(k)], 1e-9));
    }
}

TEST_CASE("sharing by term identity: one term used twice is computed once",
          "[language]")
{
    Context ctx(Backend::Cpu);
    // The same program as text with `let`: the plans agree.
    const Program text = ctx.compile_text(
                                "f (xs : Vector f32) : Vector f32 =\n"
                                "  let ys = scanl1 (+) (map (\\x -> x * 2) xs)\n"
                                "  in zipWith (+) ys (map (\\y -> y + 1) ys)\n")
                             .entry("f");
    auto shared = compile(ctx, [](Acc<Vector<float>> xs) {
        auto ys = scanl1(add, map([](auto x) { return x * 2; }, xs));
        return zipWith(add, ys, map([](auto y) { return y + 1; }, ys));
    });
    const acc_plan_summary a = text.plan(), b = shared.program().plan();
    CHECK(a.kernels == b.kernels);
    CHECK(a.intermediates == b.intermediates);
    const std::vector<float> xs{1, 2, 3, 4};
    const Vector<float> r = shared(xs);
    float acc = 0;
    for (std::size_t i = 0; i < xs.size(); i++) {
        acc += xs[i] * 2;
        CHECK(r[std::int64_t(i)] == acc + (acc + 1));
    }
    // Scalar terms too: an Exp bound once and used twice.
    auto sq = compile(ctx, [](Acc<Vector<float>> v) {
        return map([](Exp<float> x) {
                       Exp<float> t = sin(x) * 3.0f;
                       return t * t;
                   },
                   v);
    });
    const Vector<float> s = sq(xs);
    for (std::size_t i = 0; i < xs.size(); i++)
        CHECK(s[std::int64_t(i)] == support::close(9.0 * std::sin(xs[i]) * std::sin(xs[i]), 1e-5));
}

TEST_CASE("the Graph API and generic lambdas with a given signature", "[language]")
{
    Context ctx(Backend::Interp);
    Graph g(ctx);
    auto xs = g.input<Vector<std::int64_t>>();
    auto k = g.scalar_input<std::int64_t>();
    const Program p =
        g.compile(map([=](auto x) { return x * k; }, xs), sum(xs));
    const std::vector<std::int64_t> v{1, 2, 3};
    const auto out = p.call<std::tuple<Vector<std::int64_t>, Scalar<std::int64_t>>>(v, std::int64_t(7));
    CHECK(std::get<0>(out).to_vector() == std::vector<std::int64_t>{7, 14, 21});
    CHECK(std::get<1>(out).value() == 6);

    auto h = compile<Vector<std::int16_t>(Vector<std::int16_t>, std::int16_t)>(
        ctx, [](auto ys, auto s) { return map([=](auto y) { return y - s; }, ys); });
    const std::vector<std::int16_t> ys{10, 20, -30};
    CHECK(h(ys, std::int16_t(5)).to_vector() == std::vector<std::int16_t>{5, 15, -35});
    // Terms of two graphs do not mix: accel's builder refuses, and
    // compile() throws its message.
    Graph g1(ctx), g2(ctx);
    auto a1 = g1.input<Vector<float>>();
    auto a2 = g2.input<Vector<float>>();
    const auto e = support::error_of([&] { (void)g1.compile(zipWith(add, a1, a2)); });
    REQUIRE(e.has_value());
    CHECK(e->status() == ACC_ERR_INVALID_ARGUMENT);
    CHECK_THAT(std::string(e->what()),
               Catch::Matchers::Contains("zipWith: array 1 belongs to another graph"));
}

TEST_CASE("segmented folds and scans over segments of any integer type",
          "[language]")
{
    Context ctx(Backend::Interp);
    // int32 lengths (CSR's indptr differences), as accel accepts them.
    auto f = compile(ctx, [](Acc<Vector<float>> xs, Acc<Vector<std::int32_t>> seg) {
        return std::make_tuple(foldSeg(add, 0.5f, xs, seg),
                               scanlSeg(add, 100.0f, xs, seg));
    });
    const std::vector<float> xs{1, 2, 3, 4, 5, 6, 7, 8};
    const std::vector<std::int32_t> seg{1, 4, 0, 3};
    const auto [sums, scans] = f(xs, seg);
    std::vector<float> want_sums, want_scans;
    std::size_t k = 0;
    for (std::int32_t len : seg) {
        float s = 0.5f, acc = 100;
        want_scans.push_back(acc);
        for (std::int32_t e = 0; e < len; e++, k++) {
            s += xs[k];
            acc += xs[k];
            want_scans.push_back(acc);
        }
        want_sums.push_back(s);
    }
    CHECK(sums.to_vector() == want_sums);
    CHECK(scans.to_vector() == want_scans);
}

TEST_CASE("zip of three arrays, unzip, length", "[language]")
{
    Context ctx(Backend::Interp);
    auto f = compile(ctx, [](Acc<Vector<std::int32_t>> a, Acc<Vector<float>> b,
                             Acc<Vector<std::int8_t>> c) {
        auto z = zip3(a, b, c);
        auto [za, zb, zc] = unzip(z);
        return std::make_tuple(z, map([](auto x, auto y) { return convert<float>(x) + y; },
                                      zip(za, zb)),
                               map([](auto x) { return convert<std::int64_t>(x); }, zc),
                               unit(length(z)));
    });
    const std::vector<std::int32_t> a{1, 2, 3, 4};
    const std::vector<float> b{0.5f, 1.5f, 2.5f};
    const std::vector<std::int8_t> c{-1, -2, -3, -4, -5};
    const auto [z, sums, cs, len] = f(a, b, c);
    REQUIRE(z.size() == 3); // the intersection
    for (std::int64_t i = 0; i < 3; i++) {
        const std::tuple<std::int32_t, float, std::int8_t> e = z[i];
        CHECK(e == std::make_tuple(a[std::size_t(i)], b[std::size_t(i)], c[std::size_t(i)]));
        CHECK(sums[i] == float(a[std::size_t(i)]) + b[std::size_t(i)]);
        CHECK(cs[i] == c[std::size_t(i)]);
    }
    CHECK(len.value() == 3);
}
