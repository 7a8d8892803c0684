// accel/term.hpp — the graph being built, and how C++ values become terms.
//
// A term (Exp<T>, Acc<A>) is a node of an acc_graph plus a pointer to the
// binding's GraphState (the graph and its context), so an operation finds
// the graph in its arguments and never needs a global.  A constant made
// on its own (Exp<float>(1), ignore<1>(), a literal a traced function
// returns) goes into the graph traced on the calling thread: compile() and
// every traced lambda set it (TraceScope).
//
// lift / lift_as turn what a traced function returns into a node: a term,
// a C++ scalar (a constant of the expected type), or a std::tuple of them
// (a tuple term).  Sharing is by identity, as in C: a term copied into two
// places is one node used twice, so it is computed once.
#ifndef ACCEL_TERM_HPP
#define ACCEL_TERM_HPP

#include <accel.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "error.hpp"
#include "types.hpp"

namespace accel {

template <class T> class Exp;
template <class A> class Acc;

namespace detail {

// The graph terms are built in, with the context its types come from.
struct GraphState {
    acc_graph *g = nullptr;
    acc_context *ctx = nullptr;
};

// The graph being traced on this thread (NULL outside of tracing).
inline GraphState *&current_graph() noexcept
{
    static thread_local GraphState *gs = nullptr;
    return gs;
}

// Makes `gs` the thread's current graph for its lifetime.
class TraceScope {
public:
    explicit TraceScope(GraphState *gs) noexcept : prev_(current_graph())
    {
        current_graph() = gs;
    }
    ~TraceScope() { current_graph() = prev_; }
    TraceScope(const TraceScope &) = delete;
    TraceScope &operator=(const TraceScope &) = delete;

private:
    GraphState *prev_;
};

inline GraphState *need_graph(GraphState *gs)
{
    if (!gs)
        gs = current_graph();
    if (!gs)
        fail(ACC_ERR_INVALID_ARGUMENT,
             "accel: a term was built outside of a graph: terms come from "
             "the parameters of accel::compile's function (or an "
             "accel::Graph), and constants on their own need a function "
             "being traced");
    return gs;
}

// ---- what lifts into a term ---------------------------------------------

template <class X> struct is_exp : std::false_type {};
template <class T> struct is_exp<Exp<T>> : std::true_type {};
template <class X> inline constexpr bool is_exp_v = is_exp<X>::value;

template <class X> struct is_acc : std::false_type {};
template <class A> struct is_acc<Acc<A>> : std::true_type {};
template <class X> inline constexpr bool is_acc_v = is_acc<X>::value;

// lift_traits<X>::type is the element type a value of type X stands for.
template <class X, class = void> struct lift_traits {
    static constexpr bool valid = false;
    static constexpr bool literal = false;
};
template <class T> struct lift_traits<Exp<T>, void> {
    static constexpr bool valid = true;
    static constexpr bool literal = false;
    using type = T;
};
template <class U> struct lift_traits<U, std::enable_if_t<is_scalar_v<U>>> {
    static constexpr bool valid = true;
    static constexpr bool literal = true;
    using type = U;
};
template <class... Xs> struct lift_traits<std::tuple<Xs...>, void> {
    static constexpr bool valid =
        (lift_traits<std::decay_t<Xs>>::valid && ...);
    static constexpr bool literal =
        (lift_traits<std::decay_t<Xs>>::literal && ...);
    using type = std::tuple<typename lift_traits<std::decay_t<Xs>>::type...>;
};
template <class X> using lifted_t = typename lift_traits<std::decay_t<X>>::type;

// The element type two branches agree on: literals take the other's type.
template <class A, class B, class = void> struct unify {
    using type = std::conditional_t<lift_traits<A>::literal, lifted_t<B>,
                                    lifted_t<A>>;
};
template <class... As, class... Bs>
struct unify<std::tuple<As...>, std::tuple<Bs...>,
             std::enable_if_t<sizeof...(As) == sizeof...(Bs)>> {
    using type = std::tuple<
        typename unify<std::decay_t<As>, std::decay_t<Bs>>::type...>;
};
template <class A, class B>
using unify_t = typename unify<std::decay_t<A>, std::decay_t<B>>::type;

// The graph of the first term found in x (NULL when x holds none).
template <class X> GraphState *graph_in(const X &x) noexcept
{
    if constexpr (is_exp_v<X> || is_acc_v<X>) {
        return x.graph();
    } else if constexpr (is_tuple_v<X>) {
        GraphState *gs = nullptr;
        for_each_index<std::tuple_size_v<X>>([&](auto ic) {
            if (!gs)
                gs = graph_in(std::get<decltype(ic)::value>(x));
        });
        return gs;
    } else {
        (void)x;
        return nullptr;
    }
}
template <class X, class... Xs>
GraphState *graph_in(const X &x, const Xs &...xs) noexcept
{
    GraphState *gs = graph_in(x);
    return gs ? gs : graph_in(xs...);
}

// A constant of scalar type T.  accel converts the value as acc_convert
// does; a floating literal given for an integer term is refused at
// compile time (write the conversion).
template <class T, class U> acc_node *constant(GraphState *gs, U v)
{
    static_assert(is_scalar_v<T> && is_scalar_v<U>,
                  "accel: constants are scalars");
    static_assert(!(is_float_v<U> && !is_float_v<T>),
                  "accel: a floating-point literal where an integer or bool "
                  "term is expected (convert it explicitly)");
    acc_graph *g = need_graph(gs)->g;
    if constexpr (std::is_same_v<T, bool>)
        return acc_const_bool(g, v ? 1 : 0);
    else if constexpr (is_float_v<T>)
        return acc_const_f64(g, scalar_code<T>(), static_cast<double>(v));
    else if constexpr (std::is_signed_v<T>)
        return acc_const_i64(g, scalar_code<T>(), static_cast<std::int64_t>(v));
    else
        return acc_const_u64(g, scalar_code<T>(),
                             static_cast<std::uint64_t>(v));
}

// x as a term of element type T.
template <class T, class X> acc_node *lift_as(GraphState *gs, const X &x)
{
    if constexpr (is_exp_v<X>) {
        static_assert(std::is_same_v<typename X::value_type, T>,
                      "accel: a term of another element type than expected "
                      "(operands and results must agree; convert with "
                      "accel::convert<T>)");
        (void)gs;
        return x.node();
    } else if constexpr (is_scalar_v<X>) {
        static_assert(is_scalar_v<T>,
                      "accel: a scalar where a tuple or index is expected");
        return constant<T>(gs, x);
    } else if constexpr (is_tuple_v<X>) {
        static_assert(is_tuple_v<T> &&
                          std::tuple_size_v<X> == std::tuple_size_v<T>,
                      "accel: a std::tuple where another type is expected");
        acc_node *parts[std::tuple_size_v<X>];
        for_each_index<std::tuple_size_v<X>>([&](auto ic) {
            constexpr std::size_t I = decltype(ic)::value;
            parts[I] = lift_as<std::tuple_element_t<I, T>>(gs, std::get<I>(x));
        });
        return acc_tuple(need_graph(gs)->g, std::tuple_size_v<X>, parts);
    } else {
        static_assert(always_false<X>,
                      "accel: a traced function returned something that is "
                      "not a term: return accel::Exp values, C++ scalars, or "
                      "a std::tuple of them");
        return nullptr;
    }
}

// x as a term of its own element type.
template <class X> acc_node *lift(GraphState *gs, const X &x)
{
    return lift_as<lifted_t<X>>(gs, x);
}

} // namespace detail
} // namespace accel

#endif // ACCEL_TERM_HPP
