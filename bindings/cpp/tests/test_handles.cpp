// test_handles.cpp — the C++ handles as values: errors thrown as
// accel::Error with accel's status and message, moved-from handles,
// programs and results that outlive their Context object, untyped
// Program calls checked at run time, results written into caller views,
// execution handles (cancellation), and several threads calling one
// program.
#include "support.hpp"

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

using namespace accel;

namespace {

using DotpSig = Scalar<float>(Vector<float>, Vector<float>);

const char *const dotp_text =
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n"
    "-- two outputs: the running sums and the total\n"
    "sums (xs : Vector i32) : (Vector i32, Scalar i32) =\n"
    "  scanl' (+) 0 xs\n";

double ref_dot(const std::vector<float> &xs, const std::vector<float> &ys)
{
    double s = 0;
    for (std::size_t i = 0; i < xs.size() && i < ys.size(); i++)
        s += double(xs[i]) * double(ys[i]);
    return s;
}

Function<DotpSig> embedded_dotp(const Context &ctx)
{
    return compile(ctx, [](Acc<Vector<float>> xs, Acc<Vector<float>> ys) {
        return fold([](auto a, auto b) { return a + b; }, 0.0f,
                    zipWith([](auto a, auto b) { return a * b; }, xs, ys));
    });
}

} // namespace

TEST_CASE("errors carry accel's status and message", "[errors]")
{
    Context ctx(Backend::Interp);
    // A parse error names the line and column.
    CHECK_ACCEL_ERROR(ctx.compile_text("dotp (xs : Vector f32) : Scalar f32 =\n  fold (+) 0 (\n"),
                      ACC_ERR_PARSE, "3:1: found end of input, expected");
    const Module m = ctx.compile_text(dotp_text);
    CHECK(m.entries() == std::vector<std::string>{"dotp", "sums"});
    // An entry that is not there.
    CHECK_ACCEL_ERROR(m.entry("dotq"), ACC_ERR_NOT_FOUND, "dotq");
    // A typed entry whose signature is not the program's names both.
    CHECK_ACCEL_ERROR(
        (m.entry<Scalar<double>(Vector<double>, Vector<double>)>("dotp")),
        ACC_ERR_TYPE, "Array 1 f32");
    CHECK_ACCEL_ERROR((m.entry<Scalar<float>(Vector<float>)>("dotp")),
                      ACC_ERR_TYPE, "2 inputs");
    CHECK_ACCEL_ERROR((m.entry<Vector<std::int32_t>(Vector<std::int32_t>)>("sums")),
                      ACC_ERR_TYPE, "2 outputs");
    // An untyped call is checked by accel at run time.
    const Program p = m.entry("dotp");
    const std::vector<double> ds{1, 2};
    const std::vector<float> fs{1, 2};
    const auto e = support::error_of([&] { (void)p(ds, fs); });
    REQUIRE(e.has_value());
    CHECK(e->status() == ACC_ERR_TYPE);
    CHECK(std::string(e->what()).find("f64") != std::string::npos);
    CHECK(std::string(e->what()) != acc_status_string(ACC_ERR_TYPE));
    CHECK_ACCEL_ERROR(p(fs), ACC_ERR_INVALID_ARGUMENT, "");
    // A result asked for as another type.
    std::vector<AnyArray> r = p(fs, fs);
    REQUIRE(r.size() == 1);
    CHECK(r[0].type_name() == "Array 0 f32");
    CHECK_ACCEL_ERROR(std::move(r[0]).as<Vector<float>>(), ACC_ERR_TYPE,
                      "not the requested Array 1 f32");
    CHECK(std::move(r[0]).as<Scalar<float>>().value() == 5.0f);
    // A handed-over AnyArray is empty.
    CHECK_FALSE(r[0].has_value());
    CHECK_ACCEL_ERROR(std::move(r[0]).as<Scalar<float>>(),
                      ACC_ERR_INVALID_HANDLE, "moved from");
}

TEST_CASE("run-time errors of the program", "[errors]")
{
    for (Backend b : {Backend::Interp, Backend::Cpu}) {
        Context ctx(b);
        // fold1 of an empty row is an error of the run, not a crash.
        auto f = compile(ctx, [](Acc<Vector<float>> xs) {
            return fold1([](auto a, auto c) { return max(a, c); }, xs);
        });
        const std::vector<float> none;
        CHECK_ACCEL_ERROR(f(none), ACC_ERR_RUNTIME, "fold1");
        CHECK(f(std::vector<float>{3, 9, 2}).value() == 9.0f);
        // reshape to another size.
        auto g = compile(ctx, [](Acc<Vector<float>> xs) {
            return reshape(index(std::int64_t(2), std::int64_t(3)), xs);
        });
        CHECK_ACCEL_ERROR(g(std::vector<float>(5)), ACC_ERR_SHAPE, "reshape");
        const Matrix<float> ok = g(std::vector<float>{0, 1, 2, 3, 4, 5});
        CHECK(ok(1, 2) == 5.0f);
    }
}

TEST_CASE("moved-from handles own nothing and say so", "[handles]")
{
    Context ctx(Backend::Interp);
    Context moved = std::move(ctx);
    CHECK_FALSE(bool(ctx));
    CHECK(bool(moved));
    CHECK_ACCEL_ERROR(ctx.compile_text(dotp_text), ACC_ERR_INVALID_HANDLE,
                      "moved from");
    CHECK_ACCEL_ERROR(Graph(ctx), ACC_ERR_INVALID_HANDLE, "Context");

    Program p = moved.compile_text(dotp_text).entry("dotp");
    Program q = std::move(p);
    CHECK_FALSE(bool(p));
    const std::vector<float> xs{1, 2, 3};
    CHECK_ACCEL_ERROR(p(xs, xs), ACC_ERR_INVALID_HANDLE, "Program");
    CHECK_ACCEL_ERROR(p.explain(), ACC_ERR_INVALID_HANDLE, "Program");
    CHECK(std::move(q(xs, xs)[0]).as<Scalar<float>>().value() == 14.0f);
    // Move assignment frees what the target held (ASan sees a leak or a
    // double free otherwise).
    q = moved.compile_text(dotp_text).entry("dotp");

    Function<DotpSig> f = embedded_dotp(moved);
    Function<DotpSig> g = std::move(f);
    CHECK_FALSE(bool(f));
    CHECK_ACCEL_ERROR(f(xs, xs), ACC_ERR_INVALID_HANDLE, "Program");
    CHECK(g(xs, xs).value() == 14.0f);

    Graph gr(moved);
    Graph gr2 = std::move(gr);
    CHECK_ACCEL_ERROR(gr.input<Vector<float>>(), ACC_ERR_INVALID_HANDLE,
                      "Graph");
    auto in = gr2.input<Vector<float>>();
    const Program sum = gr2.compile(
        fold([](auto a, auto b) { return a + b; }, 0.0f, in));
    CHECK(sum.call<Scalar<float>>(xs).value() == 6.0f);

    Exec ex(moved);
    Exec ex2 = std::move(ex);
    CHECK_ACCEL_ERROR(ex.cancel(), ACC_ERR_INVALID_HANDLE, "Exec");
    CHECK_ACCEL_ERROR(g.run(ex, xs, xs), ACC_ERR_INVALID_HANDLE, "Exec");
    CHECK(g.run(ex2, xs, xs).value() == 14.0f);

    // Moved-from arrays are empty, not dangling.
    Vector<float> a(std::vector<float>{1, 2});
    Vector<float> b = std::move(a);
    CHECK(a.size() == 0);
    CHECK(b.size() == 2);
}

TEST_CASE("programs and results outlive their Context object", "[handles]")
{
    std::vector<float> xs(1000), ys(1000);
    for (std::size_t i = 0; i < xs.size(); i++) {
        xs[i] = float(i % 13) * 0.5f;
        ys[i] = float(i % 7) - 3.0f;
    }
    Function<DotpSig> embedded, text;
    Program untyped;
    Scalar<float> early;
    {
        Context ctx(Backend::Cpu);
        embedded = embedded_dotp(ctx);
        text = ctx.compile_text(dotp_text).entry<DotpSig>("dotp");
        untyped = ctx.compile_text(dotp_text).entry("dotp");
        early = embedded(xs, ys);
    } // the Context object is gone; its context lives in the programs
    const double want = ref_dot(xs, ys);
    CHECK(double(embedded(xs, ys).value()) == support::close(want, 1e-5));
    CHECK(double(text(xs, ys).value()) == support::close(want, 1e-5));
    CHECK(double(std::move(untyped(xs, ys)[0]).as<Scalar<float>>().value()) ==
          support::close(want, 1e-5));
    // A result outlives its program and context too (library memory).
    embedded = Function<DotpSig>();
    text = Function<DotpSig>();
    untyped = Program();
    CHECK(double(early.value()) == support::close(want, 1e-5));
}

TEST_CASE("inputs from vectors, pointers, views, arrays and tuples",
          "[calls]")
{
    Context ctx(Backend::Interp);
    const Module m = ctx.compile_text(dotp_text);
    const auto dotp = m.entry<DotpSig>("dotp");
    std::vector<float> xs{1, 2, 3, 4}, ys{5, 6, 7, 8};
    const float want = 1 * 5 + 2 * 6 + 3 * 7 + 4 * 8;
    CHECK(dotp(xs, ys).value() == want);
    CHECK(dotp(ArrayView<float, 1>(xs.data(), 4), view(ys)).value() == want);
    const float *cp = xs.data();
    CHECK(dotp(ArrayView<const float, 1>(cp, 4), ys).value() == want);
    const Vector<float> ax(xs);
    CHECK(dotp(ax, ax).value() == 1 + 4 + 9 + 16);
    // The intersection of extents: the first three elements.
    CHECK(dotp(view(xs.data(), {3}), ys).value() == 1 * 5 + 2 * 6 + 3 * 7);

    // Several outputs: typed (a std::tuple of Arrays), untyped, into views.
    const std::vector<std::int32_t> is{1, 2, 3, 4, 5};
    const auto sums =
        m.entry<std::tuple<Vector<std::int32_t>, Scalar<std::int32_t>>(
            Vector<std::int32_t>)>("sums");
    const auto [run, total] = sums(is);
    CHECK(run.to_vector() == std::vector<std::int32_t>{0, 1, 3, 6, 10});
    CHECK(total.value() == 15);
    std::vector<std::int32_t> run_mem(5);
    std::int32_t total_mem = 0;
    sums.into(std::make_tuple(view(run_mem), view(&total_mem)), is);
    CHECK(run_mem == std::vector<std::int32_t>{0, 1, 3, 6, 10});
    CHECK(total_mem == 15);
    // Caller views of the wrong extents are refused, by accel.
    std::vector<std::int32_t> short_mem(4);
    CHECK_ACCEL_ERROR(
        sums.into(std::make_tuple(view(short_mem), view(&total_mem)), is),
        ACC_ERR_SHAPE, "");
    const Program p = m.entry("sums");
    const auto both =
        p.call<std::tuple<Vector<std::int32_t>, Scalar<std::int32_t>>>(is);
    CHECK(std::get<1>(both).value() == 15);
    CHECK_ACCEL_ERROR((p.call<std::tuple<Vector<float>, Scalar<std::int32_t>>>(is)),
                      ACC_ERR_TYPE, "output 0");
}

TEST_CASE("an execution handle cancels a run", "[calls]")
{
    Context ctx(Backend::Cpu);
    const auto dotp = embedded_dotp(ctx);
    const std::vector<float> xs(64, 1.0f);
    Exec ex(ctx);
    CHECK(dotp.run(ex, xs, xs).value() == 64.0f);
    // A cancel made between runs stops the next one.
    ex.cancel();
    CHECK_ACCEL_ERROR(dotp.run(ex, xs, xs), ACC_ERR_CANCELLED, "");
    // The flag is cleared: the handle runs again.
    CHECK(dotp.run(ex, xs, xs).value() == 64.0f);
}

TEST_CASE("several threads call one program", "[threads]")
{
    for (Backend b : {Backend::Interp, Backend::Cpu}) {
        Context ctx(b);
        const auto embedded = embedded_dotp(ctx);
        const Program untyped = ctx.compile_text(dotp_text).entry("dotp");
        std::atomic<int> wrong{0}, done{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; t++)
            threads.emplace_back([&, t] {
                for (int k = 0; k < 10; k++) {
                    const std::size_t n = std::size_t(100 + 37 * t + k);
                    std::vector<float> xs(n), ys(n);
                    for (std::size_t i = 0; i < n; i++) {
                        xs[i] = float((i + std::size_t(t)) % 5);
                        ys[i] = float(i % 3);
                    }
                    const double want = ref_dot(xs, ys);
                    if (double(embedded(xs, ys).value()) != want)
                        wrong++;
                    if (double(std::move(untyped(xs, ys)[0])
                                   .as<Scalar<float>>()
                                   .value()) != want)
                        wrong++;
                    done++;
                }
            });
        for (auto &th : threads)
            th.join();
        CHECK(done == 40);
        CHECK(wrong == 0);
    }
}
