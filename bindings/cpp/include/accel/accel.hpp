// accel/accel.hpp — the C++17 binding of accel: header-only, over the C
// ABI (accel.h) only.  Include this one header; bindings/cpp/README.md is
// the guide.
//
//   #include <accel/accel.hpp>
//   using namespace accel;
//
//   Context ctx;
//   auto dotp = compile(ctx, [](Acc<Vector<float>> xs, Acc<Vector<float>> ys) {
//       return fold([](auto a, auto b) { return a + b; }, 0.0f,
//                   zipWith([](auto a, auto b) { return a * b; }, xs, ys));
//   });
//   float r = dotp(xs_vec, ys_vec);
//
// What is where:
//   error.hpp     accel::Error (status() and accel's message)
//   types.hpp     element types (scalars, std::tuple, Index<R>), Array names
//   array.hpp     ArrayView (borrowed), Array (owning), AnyArray
//   handles.hpp   Context, Program, Exec, Module (RAII, move-only)
//   run.hpp       arguments and results of calls
//   term.hpp      graphs being traced; C++ values lifted into terms
//   exp.hpp       Exp<T>: the scalar language
//   trace.hpp     C++ lambdas traced into accel functions; while_
//   acc.hpp       Acc<Array<T, R>>: the array operations
//   stdlib.hpp    the standard library (sum, zip, filter, dot, fft, ...)
//   function.hpp  Graph, Function<Out(In...)>, compile()
#ifndef ACCEL_ACCEL_HPP
#define ACCEL_ACCEL_HPP

#if __cplusplus < 201703L
#error "accel/accel.hpp needs C++17 (-std=c++17)"
#endif

#include "error.hpp"
#include "types.hpp"
#include "array.hpp"
#include "handles.hpp"
#include "run.hpp"
#include "term.hpp"
#include "exp.hpp"
#include "trace.hpp"
#include "acc.hpp"
#include "stdlib.hpp"
#include "function.hpp"

#endif // ACCEL_ACCEL_HPP
