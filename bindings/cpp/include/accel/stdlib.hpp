// accel/stdlib.hpp — the standard library (LANGUAGE.md §3.1, §3.2,
// §3.8.1; docs/STDLIB.md) over accel's own compositions (acc_sum, acc_zip,
// acc_dot, ...), with their element types and ranks spelled in C++.
// `and`, `or` are C++ keywords: they are and_ and or_ here; `++` is concat.
#ifndef ACCEL_STDLIB_HPP
#define ACCEL_STDLIB_HPP

#include <accel.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "acc.hpp"
#include "exp.hpp"
#include "term.hpp"
#include "trace.hpp"

namespace accel {

namespace detail {
template <class U, int RU, class T, int R>
Acc<Array<U, RU>> apply1(acc_node *(*op)(acc_graph *, acc_node *),
                         const Acc<Array<T, R>> &xs)
{
    GraphState *gs = need_graph(xs.graph());
    return acc_of<U, RU>(gs, op(gs->g, xs.node()));
}
} // namespace detail

// ---- reductions of the innermost dimension ---------------------------------

#define ACCEL_REDUCTION(NAME, FN, OK, WHY)                                    \
    template <class T, int R>                                                 \
    Acc<Array<T, R - 1>> NAME(const Acc<Array<T, R>> &xs)                     \
    {                                                                         \
        static_assert(R >= 1, "accel: " #NAME " reduces rank 1 or more");     \
        static_assert(OK, WHY);                                               \
        return detail::apply1<T, R - 1>(FN, xs);                              \
    }
ACCEL_REDUCTION(sum, acc_sum, detail::is_num_v<T>, "accel: sum adds numbers")
ACCEL_REDUCTION(product, acc_product, detail::is_num_v<T>,
                "accel: product multiplies numbers")
ACCEL_REDUCTION(maximum, acc_maximum, detail::is_scalar_v<T>,
                "accel: maximum takes scalars")
ACCEL_REDUCTION(minimum, acc_minimum, detail::is_scalar_v<T>,
                "accel: minimum takes scalars")
ACCEL_REDUCTION(and_, acc_and, (std::is_same_v<T, bool>),
                "accel: and_ takes bools")
ACCEL_REDUCTION(or_, acc_or, (std::is_same_v<T, bool>), "accel: or_ takes bools")
#undef ACCEL_REDUCTION

// all p xs, any p xs: p : T -> bool over each row.
template <class P, class T, int R>
Acc<Array<bool, R - 1>> all(P p, const Acc<Array<T, R>> &xs)
{
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<bool, T>(gs, p);
    return detail::acc_of<bool, R - 1>(gs, acc_all_of(gs->g, fn, xs.node()));
}
template <class P, class T, int R>
Acc<Array<bool, R - 1>> any(P p, const Acc<Array<T, R>> &xs)
{
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<bool, T>(gs, p);
    return detail::acc_of<bool, R - 1>(gs, acc_any(gs->g, fn, xs.node()));
}

// ---- producers ---------------------------------------------------------------

// enumFromN sh x: x, x+1, ... in row-major order; enumFromStepN with a step.
template <int R, class X>
Acc<Array<detail::lifted_t<X>, R>> enumFromN(const Exp<Index<R>> &sh,
                                             const X &x)
{
    using T = detail::lifted_t<X>;
    detail::GraphState *gs = detail::need_graph(detail::graph_in(sh, x));
    return detail::acc_of<T, R>(
        gs, acc_enum_from_n(gs->g, sh.node(), detail::lift_as<T>(gs, x)));
}
template <int R, class X, class S>
Acc<Array<detail::unify_t<X, S>, R>> enumFromStepN(const Exp<Index<R>> &sh,
                                                   const X &x, const S &step)
{
    using T = detail::unify_t<X, S>;
    detail::GraphState *gs = detail::need_graph(detail::graph_in(sh, x, step));
    return detail::acc_of<T, R>(
        gs, acc_enum_from_step_n(gs->g, sh.node(), detail::lift_as<T>(gs, x),
                                 detail::lift_as<T>(gs, step)));
}

// zip xs ys: pairs (the intersection of the extents).
template <class A, class B, int R>
Acc<Array<std::tuple<A, B>, R>> zip(const Acc<Array<A, R>> &xs,
                                    const Acc<Array<B, R>> &ys)
{
    detail::GraphState *gs = detail::need_graph(detail::graph_in(xs, ys));
    return detail::acc_of<std::tuple<A, B>, R>(
        gs, acc_zip(gs->g, xs.node(), ys.node()));
}

// zip3 .. zip9 (and beyond): zip(xs, ys, zs, ...) of three or more arrays
// of one rank gives tuples of all their elements (acc_zip_n).
template <class A, class B, class C, class... Ds, int R>
Acc<Array<std::tuple<A, B, C, Ds...>, R>>
zip(const Acc<Array<A, R>> &xs, const Acc<Array<B, R>> &ys,
    const Acc<Array<C, R>> &zs, const Acc<Array<Ds, R>> &...more)
{
    detail::GraphState *gs =
        detail::need_graph(detail::graph_in(xs, ys, zs, more...));
    acc_node *arrays[] = {xs.node(), ys.node(), zs.node(), more.node()...};
    return detail::acc_of<std::tuple<A, B, C, Ds...>, R>(
        gs, acc_zip_n(gs->g, 3 + sizeof...(Ds), arrays));
}
template <class A, class B, class C>
auto zip3(const A &xs, const B &ys, const C &zs)
{
    return zip(xs, ys, zs);
}

// length xs: the innermost extent (the number of elements of a vector).
template <class T, int R> Exp<std::int64_t> length(const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: length takes rank 1 or more");
    detail::GraphState *gs = detail::need_graph(xs.graph());
    return Exp<std::int64_t>(gs, acc_length(gs->g, xs.node()));
}

namespace detail {
template <class T> struct unzip_fields;
template <class... Ts> struct unzip_fields<std::tuple<Ts...>> {
    using type = std::tuple<Ts...>;
};
template <int N> struct unzip_fields<Index<N>> {
    using type = repeat_t<std::int64_t, N>;
};
template <class Fs, int R> struct unzip_result;
template <class... Fs, int R> struct unzip_result<std::tuple<Fs...>, R> {
    using type = std::tuple<Acc<Array<Fs, R>>...>;
};
} // namespace detail

// unzip xs: an array of tuples (or of indices) as a tuple of arrays.
template <class T, int R> auto unzip(const Acc<Array<T, R>> &xs)
{
    static_assert(detail::is_tuple_v<T> || detail::is_index_v<T>,
                  "accel: unzip takes an array of tuples or of indices");
    using S = typename detail::unzip_result<
        typename detail::unzip_fields<T>::type, R>::type;
    detail::GraphState *gs = detail::need_graph(xs.graph());
    return detail::state_traits<S>::make(gs, acc_unzip(gs->g, xs.node()));
}

// indexed xs: every element paired with its index.
template <class T, int R>
Acc<Array<std::tuple<Index<R>, T>, R>> indexed(const Acc<Array<T, R>> &xs)
{
    return detail::apply1<std::tuple<Index<R>, T>, R>(acc_indexed, xs);
}

// ---- structural ------------------------------------------------------------------

template <class T, int R> Acc<Array<T, R>> reverse(const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: reverse takes rank 1 or more");
    return detail::apply1<T, R>(acc_reverse, xs);
}
template <class T, int R>
Acc<Array<T, R>> transpose(const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 2, "accel: transpose takes rank 2 or more");
    return detail::apply1<T, R>(acc_transpose, xs);
}
template <class T, int R> Acc<Vector<T>> flatten(const Acc<Array<T, R>> &xs)
{
    return detail::apply1<T, 1>(acc_flatten, xs);
}
template <class T, int R> Acc<Array<T, R>> init(const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: init takes rank 1 or more");
    return detail::apply1<T, R>(acc_init, xs);
}
template <class T, int R> Acc<Array<T, R>> tail(const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: tail takes rank 1 or more");
    return detail::apply1<T, R>(acc_tail, xs);
}

// take n xs, drop n xs (n clamped to the row), slit i n xs.
template <class N, class T, int R>
Acc<Array<T, R>> take(const N &n, const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: take takes rank 1 or more");
    detail::GraphState *gs = detail::need_graph(detail::graph_in(n, xs));
    return detail::acc_of<T, R>(
        gs, acc_take(gs->g, detail::lift_as<std::int64_t>(gs, n), xs.node()));
}
template <class N, class T, int R>
Acc<Array<T, R>> drop(const N &n, const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: drop takes rank 1 or more");
    detail::GraphState *gs = detail::need_graph(detail::graph_in(n, xs));
    return detail::acc_of<T, R>(
        gs, acc_drop(gs->g, detail::lift_as<std::int64_t>(gs, n), xs.node()));
}
template <class I, class N, class T, int R>
Acc<Array<T, R>> slit(const I &i, const N &n, const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: slit takes rank 1 or more");
    detail::GraphState *gs = detail::need_graph(detail::graph_in(i, n, xs));
    return detail::acc_of<T, R>(
        gs, acc_slit(gs->g, detail::lift_as<std::int64_t>(gs, i),
                     detail::lift_as<std::int64_t>(gs, n), xs.node()));
}

// xs ++ ys on the innermost dimension.
template <class T, int R>
Acc<Array<T, R>> concat(const Acc<Array<T, R>> &xs, const Acc<Array<T, R>> &ys)
{
    static_assert(R >= 1, "accel: concat takes rank 1 or more");
    detail::GraphState *gs = detail::need_graph(detail::graph_in(xs, ys));
    return detail::acc_of<T, R>(gs, acc_concat(gs->g, xs.node(), ys.node()));
}

// ---- gather, scatter, filtering ---------------------------------------------------

// gather indices xs: i64 positions into a vector, or indices of xs's rank.
template <class I, int S, class T, int R>
Acc<Array<T, S>> gather(const Acc<Array<I, S>> &indices,
                        const Acc<Array<T, R>> &xs)
{
    static_assert((std::is_same_v<I, std::int64_t> && R == 1) ||
                      std::is_same_v<I, Index<R>>,
                  "accel: gather takes i64 positions into a vector, or "
                  "indices of the array's rank");
    detail::GraphState *gs = detail::need_graph(detail::graph_in(indices, xs));
    return detail::acc_of<T, S>(gs,
                                acc_gather(gs->g, indices.node(), xs.node()));
}

// scatter to defaults xs: defaults with xs's elements written at `to`.
template <class I, int S, class T, int R>
Acc<Array<T, R>> scatter(const Acc<Array<I, S>> &to,
                         const Acc<Array<T, R>> &defaults,
                         const Acc<Array<T, S>> &xs)
{
    static_assert((std::is_same_v<I, std::int64_t> && R == 1) ||
                      std::is_same_v<I, Index<R>>,
                  "accel: scatter takes i64 positions into a vector, or "
                  "indices of the defaults' rank");
    detail::GraphState *gs =
        detail::need_graph(detail::graph_in(to, defaults, xs));
    return detail::acc_of<T, R>(
        gs, acc_scatter(gs->g, to.node(), defaults.node(), xs.node()));
}

// compact keep xs, filter p xs: (the kept values as a vector, how many
// were kept per row).
template <class T, int R>
std::tuple<Acc<Vector<T>>, Acc<Array<std::int64_t, R - 1>>>
compact(const Acc<Array<bool, R>> &keep, const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: compact takes rank 1 or more");
    using S = std::tuple<Acc<Vector<T>>, Acc<Array<std::int64_t, R - 1>>>;
    detail::GraphState *gs = detail::need_graph(detail::graph_in(keep, xs));
    return detail::state_traits<S>::make(
        gs, acc_compact(gs->g, keep.node(), xs.node()));
}
template <class P, class T, int R>
std::tuple<Acc<Vector<T>>, Acc<Array<std::int64_t, R - 1>>>
filter(P p, const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: filter takes rank 1 or more");
    using S = std::tuple<Acc<Vector<T>>, Acc<Array<std::int64_t, R - 1>>>;
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<bool, T>(gs, p);
    return detail::state_traits<S>::make(gs,
                                         acc_filter(gs->g, fn, xs.node()));
}

// ---- linear algebra and Fourier transforms (foreign, with fallbacks) -----------

// dot xs ys ("blas.dot"): the sum of the products of each row.
template <class T, int R>
Acc<Array<T, R - 1>> dot(const Acc<Array<T, R>> &xs, const Acc<Array<T, R>> &ys)
{
    static_assert(R >= 1 && detail::is_num_v<T>,
                  "accel: dot takes numeric arrays of rank 1 or more");
    detail::GraphState *gs = detail::need_graph(detail::graph_in(xs, ys));
    return detail::acc_of<T, R - 1>(gs, acc_dot(gs->g, xs.node(), ys.node()));
}
// gemv a x ("blas.gemv"), gemm a b ("blas.gemm").
template <class T>
Acc<Vector<T>> gemv(const Acc<Matrix<T>> &a, const Acc<Vector<T>> &x)
{
    detail::GraphState *gs = detail::need_graph(detail::graph_in(a, x));
    return detail::acc_of<T, 1>(gs, acc_gemv(gs->g, a.node(), x.node()));
}
template <class T>
Acc<Matrix<T>> gemm(const Acc<Matrix<T>> &a, const Acc<Matrix<T>> &b)
{
    detail::GraphState *gs = detail::need_graph(detail::graph_in(a, b));
    return detail::acc_of<T, 2>(gs, acc_gemm(gs->g, a.node(), b.node()));
}
// fft xs, ifft xs ("fft.forward", "fft.inverse") over (re, im) pairs.
template <class F, int R>
Acc<Array<std::tuple<F, F>, R>> fft(const Acc<Array<std::tuple<F, F>, R>> &xs)
{
    static_assert(detail::is_float_v<F> && R >= 1,
                  "accel: fft takes arrays of (re, im) float pairs");
    return detail::apply1<std::tuple<F, F>, R>(acc_fft, xs);
}
template <class F, int R>
Acc<Array<std::tuple<F, F>, R>> ifft(const Acc<Array<std::tuple<F, F>, R>> &xs)
{
    static_assert(detail::is_float_v<F> && R >= 1,
                  "accel: ifft takes arrays of (re, im) float pairs");
    return detail::apply1<std::tuple<F, F>, R>(acc_ifft, xs);
}

} // namespace accel

#endif // ACCEL_STDLIB_HPP
