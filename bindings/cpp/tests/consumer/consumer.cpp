// consumer.cpp — a program built against an installed accel (headers,
// library, CMake package or accel.pc) by install_consumer.sh: the dot
// product embedded in C++ and from text, checked against a loop.
#include <accel/accel.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main()
{
    using namespace accel;
    try {
        Context ctx(Backend::Interp);
        auto dotp = compile(ctx, [](Acc<Vector<float>> xs, Acc<Vector<float>> ys) {
            return fold([](auto a, auto b) { return a + b; }, 0.0f,
                        zipWith([](auto a, auto b) { return a * b; }, xs, ys));
        });
        auto text = ctx.compile_text("dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
                                     "  fold (+) 0 (zipWith (*) xs ys)\n")
                        .entry<Scalar<float>(Vector<float>, Vector<float>)>("dotp");
        std::vector<float> xs(100), ys(100);
        double want = 0;
        for (std::size_t i = 0; i < xs.size(); i++) {
            xs[i] = float(i % 7);
            ys[i] = float(i % 5) - 2.0f;
            want += double(xs[i]) * double(ys[i]);
        }
        const float a = dotp(xs, ys), b = text(xs, ys);
        if (std::fabs(double(a) - want) > 1e-3 || std::fabs(double(b) - want) > 1e-3) {
            std::fprintf(stderr, "consumer: got %g and %g, want %g\n", double(a),
                         double(b), want);
            return 1;
        }
        std::printf("consumer: dotp = %g (embedded and text)\n", double(a));
    } catch (const Error &e) {
        std::fprintf(stderr, "consumer: %s: %s\n", e.status_name(), e.what());
        return 1;
    }
    return 0;
}
