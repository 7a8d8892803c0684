// dotp.cpp — the dot product of examples/dotp.c, in C++: the program is an
// ordinary C++ expression, traced once into an accel program, then called
// like a function on std::vectors.  Nothing to free: the handles are values.
//
//   build/examples/cpp/dotp [n]
#include <accel/accel.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace accel;

int main(int argc, char **argv)
{
    const std::size_t n = argc > 1 ? std::size_t(std::atol(argv[1])) : 1000000;
    try {
        Context ctx; // the best backend there is (ACC_BACKEND_AUTO)
        auto dotp = compile(ctx, [](Acc<Vector<float>> xs, Acc<Vector<float>> ys) {
            return fold([](auto a, auto b) { return a + b; }, 0.0f,
                        zipWith([](auto a, auto b) { return a * b; }, xs, ys));
        });

        std::vector<float> xs(n), ys(n);
        double want = 0;
        for (std::size_t i = 0; i < n; i++) {
            xs[i] = float(i % 10) * 0.5f;
            ys[i] = float(i % 7) - 3.0f;
            want += double(xs[i]) * double(ys[i]);
        }
        const float r = dotp(xs, ys);
        std::printf("backend %s: dotp of %zu elements = %.1f (a loop in double: %.1f)\n",
                    backend_name(ctx.backend()), n, double(r), want);
        std::printf("%s", dotp.explain().c_str());
        return std::abs(double(r) - want) <= 1e-4 * (1 + std::abs(want)) ? 0 : 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "dotp: %s: %s\n", e.status_name(), e.what());
        return 1;
    }
}
