// accel/acc.hpp — array terms: Acc<Array<T, R>> and the array operations
// of LANGUAGE.md §3 (construction, producers, reductions, scans,
// permutations, stencils, expansion, control, foreign functions).
//
// Every operation takes its functions first, as in Accelerate and the
// text language: map(f, xs), fold(f, z, xs), permute(f, defaults, p, xs).
// Functions are C++ callables traced once (accel/trace.hpp); element types
// and ranks are checked by the C++ compiler where the operation fixes
// them (fold reduces the rank by one; zipWith needs equal ranks; a
// fold's function returns the element type), and by accel's builder
// otherwise (its sticky error is reported by compile, naming the
// operation).  A name with ' in LANGUAGE.md ends in Prime here
// (scanl' is scanlPrime, permute' permutePrime, foldSeg' foldSegPrime).
#ifndef ACCEL_ACC_HPP
#define ACCEL_ACC_HPP

#include <accel.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "exp.hpp"
#include "term.hpp"
#include "trace.hpp"
#include "types.hpp"

namespace accel {

template <class A> class Acc {
    static_assert(detail::always_false<A>,
                  "accel::Acc<A>: A is an accel::Array<T, R> (Scalar<T>, "
                  "Vector<T>, Matrix<T>, ...)");
};

template <class T, int R> class Acc<Array<T, R>> {
public:
    static_assert(detail::is_elem_v<T>, "accel::Acc: not an element type");
    using array_type = Array<T, R>;
    using elem = T;
    static constexpr int rank = R;

    // An empty term; using it in an operation throws.
    Acc() noexcept = default;
    Acc(detail::GraphState *gs, acc_node *n) noexcept : gs_(gs), n_(n) {}

    acc_node *node() const noexcept { return n_; }
    detail::GraphState *graph() const noexcept { return gs_; }

    // xs ! ix: the element at an index (a runtime error when out of range).
    Exp<T> operator()(const Exp<Index<R>> &ix) const
    {
        detail::GraphState *gs = detail::need_graph(gs_);
        return Exp<T>(gs, acc_read(gs->g, n_, ix.node()));
    }
    // xs(i, j): the same with the components (terms or integers).
    template <class... Is,
              std::enable_if_t<sizeof...(Is) == std::size_t(R) && (R >= 1) &&
                                   (detail::is_index_component_v<Is> && ...),
                               int> = 0>
    Exp<T> operator()(const Is &...is) const
    {
        return (*this)(detail::index_in(detail::need_graph(gs_), is...));
    }
    // xs !! k: the element at row-major position k.
    template <class K> Exp<T> linear(const K &k) const
    {
        detail::GraphState *gs = detail::need_graph(gs_);
        return Exp<T>(gs, acc_read_linear(gs->g, n_,
                                          detail::lift_as<std::int64_t>(gs, k)));
    }
    // The extents, and the number of elements.
    Exp<Index<R>> shape() const
    {
        detail::GraphState *gs = detail::need_graph(gs_);
        return Exp<Index<R>>(gs, acc_shape(gs->g, n_));
    }
    Exp<std::int64_t> size() const
    {
        detail::GraphState *gs = detail::need_graph(gs_);
        return Exp<std::int64_t>(gs, acc_size(gs->g, n_));
    }

private:
    detail::GraphState *gs_ = nullptr;
    acc_node *n_ = nullptr;
};

template <class T, int R> Exp<Index<R>> shape(const Acc<Array<T, R>> &xs)
{
    return xs.shape();
}
template <class T, int R> Exp<std::int64_t> size(const Acc<Array<T, R>> &xs)
{
    return xs.size();
}
// The element of a Scalar.
template <class T> Exp<T> the(const Acc<Array<T, 0>> &xs)
{
    detail::GraphState *gs = detail::need_graph(xs.graph());
    return Exp<T>(gs, acc_the(gs->g, xs.node()));
}

namespace detail {
template <class T, int R>
Acc<Array<T, R>> acc_of(GraphState *gs, acc_node *n) noexcept
{
    return Acc<Array<T, R>>(gs, n);
}
} // namespace detail

// ---- construction and producers (fusible) ------------------------------------

// A Scalar holding x (a term, literal or tuple of them).
template <class X> Acc<Scalar<detail::lifted_t<X>>> unit(const X &x)
{
    using T = detail::lifted_t<X>;
    detail::GraphState *gs = detail::need_graph(detail::graph_in(x));
    return detail::acc_of<T, 0>(gs,
                                acc_unit(gs->g, detail::lift_as<T>(gs, x)));
}

// generate sh f: the element at ix is f(ix) (or f(i, j) with components).
template <int R, class F>
Acc<Array<detail::fn_result_t<F, Index<R>>, R>> generate(const Exp<Index<R>> &sh,
                                                         F f)
{
    using U = detail::fn_result_t<F, Index<R>>;
    detail::GraphState *gs = detail::need_graph(sh.graph());
    acc_node *fn = detail::trace_fn<U, Index<R>>(gs, f);
    return detail::acc_of<U, R>(gs, acc_generate(gs->g, sh.node(), fn));
}

// fill sh x: every element is x.
template <int R, class X>
Acc<Array<detail::lifted_t<X>, R>> fill(const Exp<Index<R>> &sh, const X &x)
{
    using T = detail::lifted_t<X>;
    detail::GraphState *gs = detail::need_graph(detail::graph_in(sh, x));
    return detail::acc_of<T, R>(
        gs, acc_fill(gs->g, sh.node(), detail::lift_as<T>(gs, x)));
}

// map f xs.
template <class F, class T, int R>
Acc<Array<detail::fn_result_t<F, T>, R>> map(F f, const Acc<Array<T, R>> &xs)
{
    using U = detail::fn_result_t<F, T>;
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<U, T>(gs, f);
    return detail::acc_of<U, R>(gs, acc_map(gs->g, fn, xs.node()));
}

// zipWith f xs ys ... (any number of arrays of one rank): the extent is
// the intersection of theirs.
template <class F, class... Ts, int... Rs>
auto zipWith(F f, const Acc<Array<Ts, Rs>> &...xs)
{
    static_assert(sizeof...(Ts) >= 1, "accel: zipWith takes arrays");
    constexpr int R = std::get<0>(std::make_tuple(Rs...));
    static_assert(((Rs == R) && ...),
                  "accel: zipWith takes arrays of one rank");
    using U = detail::fn_result_t<F, Ts...>;
    detail::GraphState *gs = detail::need_graph(detail::graph_in(xs...));
    acc_node *fn = detail::trace_fn<U, Ts...>(gs, f);
    acc_node *arrays[] = {xs.node()...};
    return detail::acc_of<U, R>(
        gs, acc_zipwith(gs->g, fn, sizeof...(Ts), arrays));
}
template <class F, class A, class B, class C>
auto zipWith3(F f, const A &xs, const B &ys, const C &zs)
{
    return zipWith(f, xs, ys, zs);
}

// backpermute sh p xs: the element at ix is xs ! p(ix) (a gather).
template <int S, class F, class T, int R>
Acc<Array<T, S>> backpermute(const Exp<Index<S>> &sh, F p,
                             const Acc<Array<T, R>> &xs)
{
    detail::GraphState *gs = detail::need_graph(detail::graph_in(sh, xs));
    acc_node *fn = detail::trace_fn<Index<R>, Index<S>>(gs, p);
    return detail::acc_of<T, S>(
        gs, acc_backpermute(gs->g, sh.node(), fn, xs.node()));
}

// reshape sh xs: the same elements in row-major order (equal sizes).
template <int S, class T, int R>
Acc<Array<T, S>> reshape(const Exp<Index<S>> &sh, const Acc<Array<T, R>> &xs)
{
    detail::GraphState *gs = detail::need_graph(detail::graph_in(sh, xs));
    return detail::acc_of<T, S>(gs, acc_reshape(gs->g, sh.node(), xs.node()));
}

// ---- replicate and slice ------------------------------------------------------

// The `All` entry of a replicate or slice specification.
struct AllTag {};
inline constexpr AllTag All{};

// A specification: spec(4, All), spec(All, n) (integers or
// Exp<std::int64_t> terms, and All), outermost first.
template <class... Es> std::tuple<Es...> spec(const Es &...entries)
{
    return std::tuple<Es...>(entries...);
}

namespace detail {
template <class... Es> constexpr int count_all()
{
    return (0 + ... + (std::is_same_v<Es, AllTag> ? 1 : 0));
}
template <class... Es>
void spec_nodes(GraphState *gs, const std::tuple<Es...> &sp, acc_node **out)
{
    for_each_index<sizeof...(Es)>([&](auto ic) {
        constexpr std::size_t I = decltype(ic)::value;
        using E = std::tuple_element_t<I, std::tuple<Es...>>;
        if constexpr (std::is_same_v<E, AllTag>)
            out[I] = acc_all(gs->g);
        else
            out[I] = lift_as<std::int64_t>(gs, std::get<I>(sp));
    });
}
} // namespace detail

// replicate spec xs: All keeps the next dimension of xs, an integer adds
// a dimension of that extent.  replicate(spec(4, All), v) gives 4 rows.
template <class... Es, class T, int R>
Acc<Array<T, int(sizeof...(Es))>> replicate(const std::tuple<Es...> &sp,
                                             const Acc<Array<T, R>> &xs)
{
    static_assert(detail::count_all<Es...>() == R,
                  "accel: a replicate specification has one All per "
                  "dimension of the array");
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *nodes[sizeof...(Es) + 1] = {};
    detail::spec_nodes(gs, sp, nodes);
    return detail::acc_of<T, int(sizeof...(Es))>(
        gs, acc_replicate(gs->g, sizeof...(Es), nodes, xs.node()));
}

// slice xs spec: All keeps a dimension, an integer fixes the index in it.
template <class T, int R, class... Es>
Acc<Array<T, detail::count_all<Es...>()>> slice(const Acc<Array<T, R>> &xs,
                                                 const std::tuple<Es...> &sp)
{
    static_assert(sizeof...(Es) == std::size_t(R),
                  "accel: a slice specification has one entry per "
                  "dimension of the array");
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *nodes[sizeof...(Es) + 1] = {};
    detail::spec_nodes(gs, sp, nodes);
    return detail::acc_of<T, detail::count_all<Es...>()>(
        gs, acc_slice(gs->g, xs.node(), sizeof...(Es), nodes));
}

// ---- reductions ------------------------------------------------------------------

// fold f z xs: reduces the innermost dimension (f associative; z is used
// once per row and need not be an identity).
template <class F, class Z, class T, int R>
Acc<Array<T, R - 1>> fold(F f, const Z &z, const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: fold reduces an array of rank 1 or more");
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<T, T, T>(gs, f);
    return detail::acc_of<T, R - 1>(
        gs, acc_fold(gs->g, fn, detail::lift_as<T>(gs, z), xs.node()));
}

// fold1 f xs: no seed; an empty row is a runtime error.
template <class F, class T, int R>
Acc<Array<T, R - 1>> fold1(F f, const Acc<Array<T, R>> &xs)
{
    static_assert(R >= 1, "accel: fold1 reduces an array of rank 1 or more");
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<T, T, T>(gs, f);
    return detail::acc_of<T, R - 1>(gs, acc_fold1(gs->g, fn, xs.node()));
}

// foldAll / fold1All: every element reduced to a Scalar.
template <class F, class Z, class T, int R>
Acc<Scalar<T>> foldAll(F f, const Z &z, const Acc<Array<T, R>> &xs)
{
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<T, T, T>(gs, f);
    return detail::acc_of<T, 0>(
        gs, acc_fold_all(gs->g, fn, detail::lift_as<T>(gs, z), xs.node()));
}
template <class F, class T, int R>
Acc<Scalar<T>> fold1All(F f, const Acc<Array<T, R>> &xs)
{
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<T, T, T>(gs, f);
    return detail::acc_of<T, 0>(gs, acc_fold1_all(gs->g, fn, xs.node()));
}

// foldSeg f z xs seg: seg holds segment lengths (a Vector of any integer
// type: i64, or the int32 indptr of CSR code); the innermost dimension of
// the result has one element per segment.
template <class F, class Z, class T, int R, class S>
Acc<Array<T, R>> foldSeg(F f, const Z &z, const Acc<Array<T, R>> &xs,
                         const Acc<Vector<S>> &seg)
{
    static_assert(R >= 1, "accel: foldSeg reduces an array of rank 1 or more");
    static_assert(detail::is_int_v<S>, "accel: segments are integers");
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<T, T, T>(gs, f);
    return detail::acc_of<T, R>(gs, acc_fold_seg(gs->g, fn,
                                                 detail::lift_as<T>(gs, z),
                                                 xs.node(), seg.node()));
}
// foldSeg' (offsets: one more entry than segments, ending with the total).
template <class F, class Z, class T, int R, class S>
Acc<Array<T, R>> foldSegPrime(F f, const Z &z, const Acc<Array<T, R>> &xs,
                              const Acc<Vector<S>> &offsets)
{
    static_assert(R >= 1, "accel: foldSeg' reduces an array of rank 1 or more");
    static_assert(detail::is_int_v<S>, "accel: segment offsets are integers");
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<T, T, T>(gs, f);
    return detail::acc_of<T, R>(
        gs, acc_fold_seg_offsets(gs->g, fn, detail::lift_as<T>(gs, z),
                                 xs.node(), offsets.node()));
}
template <class F, class T, int R, class S>
Acc<Array<T, R>> fold1Seg(F f, const Acc<Array<T, R>> &xs,
                          const Acc<Vector<S>> &seg)
{
    static_assert(R >= 1, "accel: fold1Seg reduces an array of rank 1 or more");
    static_assert(detail::is_int_v<S>, "accel: segments are integers");
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *fn = detail::trace_fn<T, T, T>(gs, f);
    return detail::acc_of<T, R>(
        gs, acc_fold1_seg(gs->g, fn, xs.node(), seg.node()));
}

// ---- scans (innermost dimension) -------------------------------------------

namespace detail {
// seg: the segment lengths (a vector of any integer type), or NULL.
template <class F, class T, int R>
acc_node *scan_node(acc_scan_kind kind, F &f, acc_node *z,
                    const Acc<Array<T, R>> &xs, acc_node *seg)
{
    static_assert(R >= 1, "accel: scans take arrays of rank 1 or more");
    GraphState *gs = need_graph(xs.graph());
    acc_node *fn = trace_fn<T, T, T>(gs, f);
    return seg ? acc_scan_seg(gs->g, kind, fn, z, xs.node(), seg)
               : acc_scan(gs->g, kind, fn, z, xs.node());
}
template <class T, int R, int RT>
std::tuple<Acc<Array<T, R>>, Acc<Array<T, RT>>> split_pair(GraphState *gs,
                                                            acc_node *n)
{
    return {acc_of<T, R>(gs, acc_get(gs->g, n, 0)),
            acc_of<T, RT>(gs, acc_get(gs->g, n, 1))};
}
} // namespace detail

// With a seed: scanl (n+1 results), prescanl/postscanl (n), scanr, ...
#define ACCEL_SCAN_SEEDED(NAME, KIND)                                         \
    template <class F, class Z, class T, int R>                               \
    Acc<Array<T, R>> NAME(F f, const Z &z, const Acc<Array<T, R>> &xs)        \
    {                                                                         \
        detail::GraphState *gs = detail::need_graph(xs.graph());              \
        return detail::acc_of<T, R>(                                          \
            gs, detail::scan_node(KIND, f, detail::lift_as<T>(gs, z), xs,     \
                                  nullptr));                                  \
    }                                                                         \
    template <class F, class Z, class T, int R, class S>                      \
    Acc<Array<T, R>> NAME##Seg(F f, const Z &z, const Acc<Array<T, R>> &xs,   \
                               const Acc<Vector<S>> &seg)                     \
    {                                                                         \
        static_assert(detail::is_int_v<S>, "accel: segments are integers");   \
        detail::GraphState *gs = detail::need_graph(xs.graph());              \
        return detail::acc_of<T, R>(                                          \
            gs, detail::scan_node(KIND, f, detail::lift_as<T>(gs, z), xs,     \
                                  seg.node()));                               \
    }
ACCEL_SCAN_SEEDED(scanl, ACC_SCANL)
ACCEL_SCAN_SEEDED(scanr, ACC_SCANR)
ACCEL_SCAN_SEEDED(prescanl, ACC_PRESCANL)
ACCEL_SCAN_SEEDED(postscanl, ACC_POSTSCANL)
ACCEL_SCAN_SEEDED(prescanr, ACC_PRESCANR)
ACCEL_SCAN_SEEDED(postscanr, ACC_POSTSCANR)
#undef ACCEL_SCAN_SEEDED

// Without a seed: scanl1, scanr1 (the dimension must be non-empty).
#define ACCEL_SCAN_UNSEEDED(NAME, KIND)                                       \
    template <class F, class T, int R>                                        \
    Acc<Array<T, R>> NAME(F f, const Acc<Array<T, R>> &xs)                    \
    {                                                                         \
        detail::GraphState *gs = detail::need_graph(xs.graph());              \
        return detail::acc_of<T, R>(                                          \
            gs, detail::scan_node(KIND, f, nullptr, xs, nullptr));            \
    }                                                                         \
    template <class F, class T, int R, class S>                               \
    Acc<Array<T, R>> NAME##Seg(F f, const Acc<Array<T, R>> &xs,               \
                               const Acc<Vector<S>> &seg)                     \
    {                                                                         \
        static_assert(detail::is_int_v<S>, "accel: segments are integers");   \
        detail::GraphState *gs = detail::need_graph(xs.graph());              \
        return detail::acc_of<T, R>(                                          \
            gs, detail::scan_node(KIND, f, nullptr, xs, seg.node()));         \
    }
ACCEL_SCAN_UNSEEDED(scanl1, ACC_SCANL1)
ACCEL_SCAN_UNSEEDED(scanr1, ACC_SCANR1)
#undef ACCEL_SCAN_UNSEEDED

// scanl' / scanr': (the n exclusive results, one total per row); the
// segmented forms give (S elements, one total per segment).
#define ACCEL_SCAN_PRIME(NAME, KIND)                                          \
    template <class F, class Z, class T, int R>                               \
    std::tuple<Acc<Array<T, R>>, Acc<Array<T, R - 1>>> NAME(                  \
        F f, const Z &z, const Acc<Array<T, R>> &xs)                          \
    {                                                                         \
        detail::GraphState *gs = detail::need_graph(xs.graph());              \
        return detail::split_pair<T, R, R - 1>(                               \
            gs, detail::scan_node(KIND, f, detail::lift_as<T>(gs, z), xs,     \
                                  nullptr));                                  \
    }                                                                         \
    template <class F, class Z, class T, int R, class S>                      \
    std::tuple<Acc<Array<T, R>>, Acc<Array<T, R>>> NAME##Seg(                 \
        F f, const Z &z, const Acc<Array<T, R>> &xs, const Acc<Vector<S>> &seg) \
    {                                                                         \
        static_assert(detail::is_int_v<S>, "accel: segments are integers");   \
        detail::GraphState *gs = detail::need_graph(xs.graph());              \
        return detail::split_pair<T, R, R>(                                   \
            gs, detail::scan_node(KIND, f, detail::lift_as<T>(gs, z), xs,     \
                                  seg.node()));                               \
    }
ACCEL_SCAN_PRIME(scanlPrime, ACC_SCANL_PRIME)
ACCEL_SCAN_PRIME(scanrPrime, ACC_SCANR_PRIME)
#undef ACCEL_SCAN_PRIME

// ---- forward permutation -----------------------------------------------------

// permute f defaults p xs: a copy of defaults where each element of xs is
// combined (f new old) into the target p(ix), or dropped when p gives
// ignore<S>().  f associative and commutative.
template <class F, class P, class T, int S, int R>
Acc<Array<T, S>> permute(F f, const Acc<Array<T, S>> &defaults, P p,
                         const Acc<Array<T, R>> &xs)
{
    detail::GraphState *gs = detail::need_graph(detail::graph_in(defaults, xs));
    acc_node *fn = detail::trace_fn<T, T, T>(gs, f);
    acc_node *pn = detail::trace_fn<Index<S>, Index<R>>(gs, p);
    return detail::acc_of<T, S>(
        gs, acc_permute(gs->g, fn, defaults.node(), pn, xs.node()));
}

// permute' f defaults xs: each element of xs is a pair (target index or
// ignore, value).
template <class F, class T, int S, int R>
Acc<Array<T, S>> permutePrime(F f, const Acc<Array<T, S>> &defaults,
                              const Acc<Array<std::tuple<Index<S>, T>, R>> &xs)
{
    detail::GraphState *gs = detail::need_graph(detail::graph_in(defaults, xs));
    acc_node *fn = detail::trace_fn<T, T, T>(gs, f);
    return detail::acc_of<T, S>(
        gs, acc_permute_pairs(gs->g, fn, defaults.node(), xs.node()));
}

// ---- stencils ------------------------------------------------------------------

// Boundaries: clamp, mirror, wrap, constant(v), function(g) where g maps
// the out-of-range index to the element.
struct Clamp {};
struct Mirror {};
struct Wrap {};
inline constexpr Clamp clamp{};
inline constexpr Mirror mirror{};
inline constexpr Wrap wrap{};
template <class X> struct ConstantBoundary {
    X value;
};
template <class G> struct FunctionBoundary {
    G fn;
};
template <class X> ConstantBoundary<X> constant(const X &value)
{
    return ConstantBoundary<X>{value};
}
template <class G> FunctionBoundary<G> function(G g)
{
    return FunctionBoundary<G>{g};
}

// Widths per dimension for stencil2: stencil2<Widths<5, 5>, Widths<3, 3>>.
template <int... W> struct Widths {};

namespace detail {

template <class B> struct is_constant_boundary : std::false_type {};
template <class X>
struct is_constant_boundary<ConstantBoundary<X>> : std::true_type {};
template <class B> struct is_function_boundary : std::false_type {};
template <class G>
struct is_function_boundary<FunctionBoundary<G>> : std::true_type {};

template <class T, int R, class B>
acc_boundary boundary_of(GraphState *gs, const B &b, acc_node **arg)
{
    *arg = nullptr;
    if constexpr (std::is_same_v<B, Clamp>) {
        return ACC_BOUNDARY_CLAMP;
    } else if constexpr (std::is_same_v<B, Mirror>) {
        return ACC_BOUNDARY_MIRROR;
    } else if constexpr (std::is_same_v<B, Wrap>) {
        return ACC_BOUNDARY_WRAP;
    } else if constexpr (is_constant_boundary<B>::value) {
        *arg = lift_as<T>(gs, b.value);
        return ACC_BOUNDARY_CONSTANT;
    } else if constexpr (is_function_boundary<B>::value) {
        auto g = b.fn;
        *arg = trace_fn<T, Index<R>>(gs, g);
        return ACC_BOUNDARY_FUNCTION;
    } else {
        static_assert(always_false<B>,
                      "accel: a boundary is accel::clamp, mirror, wrap, "
                      "constant(v) or function(g)");
        return ACC_BOUNDARY_CLAMP;
    }
}

template <int R, int... W> struct widths_of {
    using type = std::integer_sequence<int, W...>;
};
template <int R> struct widths_of<R> {
    template <std::size_t... I>
    static auto threes(std::index_sequence<I...>)
        -> std::integer_sequence<int, (int(I) * 0 + 3)...>;
    using type = decltype(threes(std::make_index_sequence<std::size_t(R)>{}));
};
template <int R, class W> struct widths_for;
template <int R, int... W> struct widths_for<R, Widths<W...>> {
    using type = typename widths_of<R, W...>::type;
};

template <class F, class B, class T, int R, int... W>
auto stencil_impl(std::integer_sequence<int, W...>, F &f, const B &boundary,
                  const Acc<Array<T, R>> &xs)
{
    static_assert(sizeof...(W) == std::size_t(R),
                  "accel: a stencil has one width per dimension");
    static_assert(((W == 3 || W == 5 || W == 7 || W == 9) && ...),
                  "accel: stencil widths are 3, 5, 7 or 9");
    using U = hood_result_t<F, T, W...>;
    GraphState *gs = need_graph(xs.graph());
    const std::int32_t widths[] = {W...};
    acc_node *barg = nullptr;
    acc_boundary b = boundary_of<T, R>(gs, boundary, &barg);
    acc_node *fn = trace_stencil<U, T, W...>(gs, f);
    return acc_of<U, R>(gs, acc_stencil(gs->g, fn, widths, b, barg, xs.node()));
}

template <class F, class B1, class B2, class T1, class T2, int R, int... W1,
          int... W2>
auto stencil2_impl(std::integer_sequence<int, W1...>,
                   std::integer_sequence<int, W2...>, F &f, const B1 &b1,
                   const Acc<Array<T1, R>> &xs, const B2 &b2,
                   const Acc<Array<T2, R>> &ys)
{
    static_assert(sizeof...(W1) == std::size_t(R) && sizeof...(W2) == std::size_t(R),
                  "accel: a stencil has one width per dimension");
    using H1 = typename hood<T1, W1...>::type;
    using H2 = typename hood<T2, W2...>::type;
    static_assert(std::is_invocable_v<F &, const H1 &, const H2 &>,
                  "accel: a stencil2 function takes the two neighbourhoods "
                  "(nested std::array of accel::Exp, or auto)");
    using U = lifted_t<std::invoke_result_t<F &, const H1 &, const H2 &>>;
    GraphState *gs = need_graph(graph_in(xs, ys));
    const std::int32_t w1[] = {W1...}, w2[] = {W2...};
    acc_node *a1 = nullptr, *a2 = nullptr;
    acc_boundary bb1 = boundary_of<T1, R>(gs, b1, &a1);
    acc_boundary bb2 = boundary_of<T2, R>(gs, b2, &a2);
    acc_node *p[2] = {
        acc_param(gs->g, elem_type<typename hood<T1, W1...>::elem>(gs->ctx)),
        acc_param(gs->g, elem_type<typename hood<T2, W2...>::elem>(gs->ctx))};
    acc_node *fn = nullptr;
    {
        TraceScope scope(gs);
        const H1 h1 = make_hood<T1, W1...>(gs, p[0]);
        const H2 h2 = make_hood<T2, W2...>(gs, p[1]);
        fn = acc_lambda(gs->g, 2, p, lift_as<U>(gs, f(h1, h2)));
    }
    return acc_of<U, R>(gs, acc_stencil2(gs->g, fn, w1, bb1, a1, xs.node(), w2,
                                         bb2, a2, ys.node()));
}

} // namespace detail

// stencil f boundary xs (ranks 1 to 3): f receives the neighbourhood of
// each element, 3 wide per dimension unless given (stencil<5, 5>(...)),
// as nested std::arrays of Exp (rows outermost: h[0][1] is the element
// above the focus h[1][1]), or as one parameter per element in row-major
// order: [](auto a, auto b, auto c, auto d, auto e, ...) with e the focus.
template <int... W, class F, class B, class T, int R>
auto stencil(F f, const B &boundary, const Acc<Array<T, R>> &xs)
{
    return detail::stencil_impl(typename detail::widths_of<R, W...>::type{}, f,
                                boundary, xs);
}

// stencil2 f b1 xs b2 ys: f receives both neighbourhoods; the result has
// the intersection of the extents.
template <class W1 = Widths<>, class W2 = Widths<>, class F, class B1,
          class B2, class T1, class T2, int R>
auto stencil2(F f, const B1 &b1, const Acc<Array<T1, R>> &xs, const B2 &b2,
              const Acc<Array<T2, R>> &ys)
{
    return detail::stencil2_impl(typename detail::widths_for<R, W1>::type{},
                                 typename detail::widths_for<R, W2>::type{}, f,
                                 b1, xs, b2, ys);
}

// ---- irregular expansion ------------------------------------------------------

// expand size get xs: element x of the vector contributes size(x) results
// get(x, 0) .. get(x, size(x) - 1), concatenated in order.
template <class FS, class FG, class T>
Acc<Vector<detail::fn_result_t<FG, T, std::int64_t>>>
expand(FS size_fn, FG get_fn, const Acc<Vector<T>> &xs)
{
    using U = detail::fn_result_t<FG, T, std::int64_t>;
    detail::GraphState *gs = detail::need_graph(xs.graph());
    acc_node *sn = detail::trace_fn<std::int64_t, T>(gs, size_fn);
    acc_node *gn = detail::trace_fn<U, T, std::int64_t>(gs, get_fn);
    return detail::acc_of<U, 1>(gs, acc_expand(gs->g, sn, gn, xs.node()));
}

// ---- control ----------------------------------------------------------------------

namespace detail {
template <class C> acc_node *condition_node(GraphState *gs, const C &c)
{
    if constexpr (std::is_same_v<C, Acc<Array<bool, 0>>>)
        return acc_the(gs->g, c.node());
    else
        return lift_as<bool>(gs, c);
}
} // namespace detail

// acond c a b: a when c holds, else b; only one is computed.  c is an
// Exp<bool> (or an Acc<Scalar<bool>>); a and b are arrays or std::tuples
// of arrays of one type.
template <class C, class S> S acond(const C &c, const S &a, const S &b)
{
    static_assert(detail::state_traits<S>::valid,
                  "accel: acond chooses between Accs (or std::tuples of "
                  "Accs) of one type");
    detail::GraphState *gs = detail::need_graph(detail::graph_in(c, a, b));
    acc_node *n = acc_acond(gs->g, detail::condition_node(gs, c),
                            detail::state_traits<S>::node(gs, a),
                            detail::state_traits<S>::node(gs, b));
    return detail::state_traits<S>::make(gs, n);
}

// awhile cond body init: array functions over the state (an Acc or a
// std::tuple of Accs); cond returns an Exp<bool> or Acc<Scalar<bool>> and
// is tested before the first application of body.
template <class C, class B, class S> S awhile(C cond_fn, B body_fn, const S &init)
{
    static_assert(detail::state_traits<S>::valid,
                  "accel: the state of awhile is an Acc or a std::tuple of "
                  "Accs");
    detail::GraphState *gs = detail::need_graph(detail::graph_in(init));
    acc_node *c = detail::trace_array_fn<bool, S>(gs, cond_fn);
    acc_node *b = detail::trace_array_fn<S, S>(gs, body_fn);
    acc_node *n = acc_awhile(gs->g, c, b, detail::state_traits<S>::node(gs, init));
    return detail::state_traits<S>::make(gs, n);
}

// ---- foreign functions -------------------------------------------------------------

// foreign name fallback args...: the implementation registered under
// `name` for the backend when it accepts the arguments, else `fallback`,
// a function of the arguments (one Acc each) written in the language.
//   foreign("blas.dot", [](auto a, auto b) { return fold(...); }, xs, ys)
template <class F, class... As>
auto foreign(const std::string &name, F fallback, const As &...args)
{
    static_assert(sizeof...(As) >= 1, "accel: foreign takes arrays");
    using S = std::conditional_t<sizeof...(As) == 1,
                                 std::tuple_element_t<0, std::tuple<As...>>,
                                 std::tuple<As...>>;
    static_assert(detail::state_traits<S>::valid,
                  "accel: the arguments of foreign are Accs");
    using U = detail::array_fn_result_t<F, S>;
    static_assert(detail::state_traits<U>::valid,
                  "accel: a foreign fallback returns an Acc or a std::tuple "
                  "of Accs");
    detail::GraphState *gs = detail::need_graph(detail::graph_in(args...));
    acc_node *fn = detail::trace_array_fn<U, S>(gs, fallback);
    acc_node *arg = nullptr;
    if constexpr (sizeof...(As) == 1)
        arg = detail::state_traits<S>::node(gs, args...);
    else
        arg = detail::state_traits<S>::node(gs, S(args...));
    return detail::state_traits<U>::make(
        gs, acc_foreign(gs->g, name.c_str(), fn, arg));
}

} // namespace accel

#endif // ACCEL_ACC_HPP
