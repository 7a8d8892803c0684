// typed_mismatch.cpp — typed calls that must NOT compile, for the ctest
// cpp.typed_mismatch_does_not_compile (compile_fail.cmake).  CASE 0 is the
// well-typed program and must compile; every other CASE must fail, with a
// diagnostic matching its "expect:" line (a regular expression over the
// compiler's output; both g++ and clang++ print the static_assert text and
// the name of the function with no viable overload).
#include <accel/accel.hpp>

#include <cstdint>
#include <vector>

using namespace accel;

using DotpSig = Scalar<float>(Vector<float>, Vector<float>);
using ScaleSig = Vector<std::int32_t>(Vector<std::int32_t>, std::int32_t);

int main()
{
    Context ctx(Backend::Interp);
    const Module m = ctx.compile_text("dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
                                      "  fold (+) 0 (zipWith (*) xs ys)\n");
    const Function<DotpSig> dotp = m.entry<DotpSig>("dotp");
    std::vector<float> xs{1, 2}, ys{3, 4};
    Function<ScaleSig> scale;
    std::vector<std::int32_t> is{1, 2};
    (void)scale;
    (void)is;
#if CASE == 0
    // expect: (none: this one compiles)
    float r = dotp(xs, ys);
    (void)r;
    Matrix<float> mat(Matrix<float>::extents_type{{2, 2}});
    (void)mat;
    if (scale)
        (void)scale(is, 3);
    (void)compile(ctx, [](Acc<Vector<float>> a) { return fold([](auto x, auto y) { return x + y; }, 0.0f, a); });
#elif CASE == 1
    // expect: no match|no viable|could not convert|cannot convert
    // An element type other than the signature's (f64 for f32).
    std::vector<double> ds{1, 2};
    (void)dotp(ds, ys);
#elif CASE == 2
    // expect: no match|no viable|could not convert|cannot convert
    // A rank other than the signature's (a Matrix for a Vector).
    Matrix<float> mat(Matrix<float>::extents_type{{2, 2}});
    (void)dotp(mat, ys);
#elif CASE == 3
    // expect: conversion from|no viable conversion
    // The result is a Scalar, not a Vector.
    Vector<float> v = dotp(xs, ys);
    (void)v;
#elif CASE == 4
    // expect: no match|no viable|could not convert|cannot convert
    // A narrowing value for a scalar input (2.5 for an i32).
    (void)scale(is, 2.5);
#elif CASE == 5
    // expect: accel: zipWith
    // zipWith over arrays of different ranks.
    (void)compile(ctx, [](Acc<Vector<float>> a, Acc<Matrix<float>> b) {
        return zipWith([](auto x, auto y) { return x + y; }, a, b);
    });
#elif CASE == 6
    // expect: returns another type than the signature
    // A lambda whose result is not the signature's.
    (void)compile<Vector<float>(Vector<float>)>(ctx, [](auto a) {
        return fold([](auto x, auto y) { return x + y; }, 0.0f, a);
    });
#endif
    return 0;
}
