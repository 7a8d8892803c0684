// accel/trace.hpp — C++ lambdas traced into accel functions.
//
// A scalar function (the f of map, fold, generate, ...) is traced once:
// the binding makes one acc_param per parameter, calls the C++ callable
// with Exp terms standing for them, lifts what it returns (a term, a
// literal or a std::tuple of them) and wraps the body in acc_lambda.  The
// callable may be a generic lambda (auto parameters); when it takes the
// components of a tuple or index parameter instead of the whole (a lambda
// of three parameters for a (f32, f32, f32) element, of (y, x) for a
// Shape 2 index), the binding passes the components.  Array functions
// (awhile, foreign fallbacks) are traced the same way over Acc terms.
// Stencil functions receive the neighbourhood as nested std::arrays of
// Exp (rows outermost), or every element as its own parameter.
#ifndef ACCEL_TRACE_HPP
#define ACCEL_TRACE_HPP

#include <accel.h>

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "exp.hpp"
#include "term.hpp"
#include "types.hpp"

namespace accel {
namespace detail {

// ---- calling a traced callable ------------------------------------------

// How many parts a parameter can be unpacked into (0: none).
template <class E> struct unpack_arity : std::integral_constant<std::size_t, 0> {};
template <class... Ts>
struct unpack_arity<Exp<std::tuple<Ts...>>>
    : std::integral_constant<std::size_t, sizeof...(Ts)> {};
template <int R>
struct unpack_arity<Exp<Index<R>>>
    : std::integral_constant<std::size_t, std::size_t(R)> {};
template <class... Ts>
struct unpack_arity<std::tuple<Ts...>>
    : std::integral_constant<std::size_t, sizeof...(Ts)> {};

template <std::size_t I, class E> auto part(const E &e)
{
    if constexpr (is_tuple_v<E>)
        return std::get<I>(e);
    else
        return e.template get<I>();
}

template <class F, class E, std::size_t... I>
constexpr bool invocable_unpacked(std::index_sequence<I...>)
{
    return std::is_invocable_v<F &, decltype(part<I>(std::declval<const E &>()))...>;
}

template <class F, class... Args> constexpr bool unpack_invocable()
{
    if constexpr (sizeof...(Args) == 1) {
        using E = std::tuple_element_t<0, std::tuple<Args...>>;
        if constexpr (unpack_arity<E>::value > 0)
            return invocable_unpacked<F, E>(
                std::make_index_sequence<unpack_arity<E>::value>{});
        else
            return false;
    } else {
        return false;
    }
}

template <class F, class E, std::size_t... I>
decltype(auto) call_unpacked(F &f, const E &e, std::index_sequence<I...>)
{
    return f(part<I>(e)...);
}

// f(args...), or f(parts of the one argument...).
template <class F, class... Args>
decltype(auto) call_traced(F &f, const Args &...args)
{
    if constexpr (std::is_invocable_v<F &, const Args &...>) {
        return f(args...);
    } else if constexpr (unpack_invocable<F, Args...>()) {
        using E = std::tuple_element_t<0, std::tuple<Args...>>;
        return call_unpacked(f, args...,
                             std::make_index_sequence<unpack_arity<E>::value>{});
    } else {
        static_assert(always_false<F, Args...>,
                      "accel: the function cannot be applied to the terms "
                      "the operation gives it: a traced function takes "
                      "accel::Exp<T> parameters (or auto), one per argument "
                      "of the operation (or one per component of a tuple "
                      "or index argument); it cannot take plain C++ values");
    }
}

template <class F, class... Ps>
using call_result_t = decltype(call_traced(std::declval<F &>(),
                                           std::declval<const Exp<Ps> &>()...));
// The element type a scalar function of parameters Ps... returns.
template <class F, class... Ps> using fn_result_t = lifted_t<call_result_t<F, Ps...>>;

// ---- scalar functions ------------------------------------------------------

template <class Ret, class... Ps, class F, std::size_t... I>
acc_node *trace_fn_impl(GraphState *gs, F &f, std::index_sequence<I...>)
{
    acc_node *params[sizeof...(Ps) + 1] = {
        acc_param(gs->g, elem_type<Ps>(gs->ctx))..., nullptr};
    TraceScope scope(gs);
    acc_node *body =
        lift_as<Ret>(gs, call_traced(f, Exp<Ps>(gs, params[I])...));
    return acc_lambda(gs->g, sizeof...(Ps), params, body);
}

// \p0 .. p(n-1) -> f(p0, ..., p(n-1)) with parameter types Ps, result Ret.
template <class Ret, class... Ps, class F>
acc_node *trace_fn(GraphState *gs, F &f)
{
    return trace_fn_impl<Ret, Ps...>(gs, f, std::index_sequence_for<Ps...>{});
}

// ---- stencil neighbourhoods ---------------------------------------------------

template <class X, std::size_t> using always_t = X;
template <class X, std::size_t... I>
auto repeat_tuple(std::index_sequence<I...>) -> std::tuple<always_t<X, I>...>;
template <class X, int N>
using repeat_t = decltype(repeat_tuple<X>(std::make_index_sequence<std::size_t(N)>{}));

// The neighbourhood of widths W... as C++ arrays (type) and as the nested
// tuple element type accel's stencil function takes (elem).
template <class T, int... W> struct hood;
template <class T, int W> struct hood<T, W> {
    static constexpr std::size_t count = std::size_t(W);
    using type = std::array<Exp<T>, std::size_t(W)>;
    using elem = repeat_t<T, W>;
};
template <class T, int W, int... Ws> struct hood<T, W, Ws...> {
    static constexpr std::size_t count = std::size_t(W) * hood<T, Ws...>::count;
    using type = std::array<typename hood<T, Ws...>::type, std::size_t(W)>;
    using elem = repeat_t<typename hood<T, Ws...>::elem, W>;
};

template <class T, int W, int... Ws>
typename hood<T, W, Ws...>::type make_hood(GraphState *gs, acc_node *n)
{
    typename hood<T, W, Ws...>::type h;
    for (std::size_t i = 0; i < std::size_t(W); i++) {
        acc_node *part_i = acc_get(gs->g, n, i);
        if constexpr (sizeof...(Ws) == 0)
            h[i] = Exp<T>(gs, part_i);
        else
            h[i] = make_hood<T, Ws...>(gs, part_i);
    }
    return h;
}

template <class T, std::size_t N, class H>
void flatten_into(std::array<Exp<T>, N> &out, std::size_t &at, const H &h)
{
    for (const auto &x : h) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, Exp<T>>)
            out[at++] = x;
        else
            flatten_into(out, at, x);
    }
}

template <class F, class T, std::size_t... I>
constexpr bool invocable_flat(std::index_sequence<I...>)
{
    return std::is_invocable_v<F &, always_t<const Exp<T> &, I>...>;
}

template <class F, class T, std::size_t N, std::size_t... I>
decltype(auto) call_flat(F &f, const std::array<Exp<T>, N> &xs,
                         std::index_sequence<I...>)
{
    return f(xs[I]...);
}

// f(neighbourhood), or f(a, b, c, d, e, ...) with every element apart.
template <class T, int... W, class F>
decltype(auto) call_hood(F &f, const typename hood<T, W...>::type &h)
{
    constexpr std::size_t n = hood<T, W...>::count;
    if constexpr (std::is_invocable_v<F &, const typename hood<T, W...>::type &>) {
        return f(h);
    } else if constexpr (invocable_flat<F, T>(std::make_index_sequence<n>{})) {
        std::array<Exp<T>, n> flat;
        std::size_t at = 0;
        flatten_into(flat, at, h);
        return call_flat(f, flat, std::make_index_sequence<n>{});
    } else {
        static_assert(always_false<F>,
                      "accel: a stencil function takes the neighbourhood (nested "
                      "std::array of accel::Exp, rows outermost; or auto) or "
                      "every element of it as a parameter, in row-major "
                      "order; check the widths (stencil<5, 5>(...))");
    }
}

template <class F, class T, int... W>
using hood_result_t = lifted_t<decltype(call_hood<T, W...>(
    std::declval<F &>(), std::declval<const typename hood<T, W...>::type &>()))>;

template <class Ret, class T, int... W, class F>
acc_node *trace_stencil(GraphState *gs, F &f)
{
    acc_node *p =
        acc_param(gs->g, elem_type<typename hood<T, W...>::elem>(gs->ctx));
    TraceScope scope(gs);
    const auto h = make_hood<T, W...>(gs, p);
    acc_node *body = lift_as<Ret>(gs, call_hood<T, W...>(f, h));
    return acc_lambda(gs->g, 1, &p, body);
}

// ---- array functions (awhile, foreign fallbacks) ---------------------------

// The state of an array function: one Acc, or a std::tuple of Accs.
template <class S> struct state_traits {
    static constexpr bool valid = false;
};
template <class T, int R> struct state_traits<Acc<Array<T, R>>> {
    static constexpr bool valid = true;
    static const acc_type *type(acc_context *ctx)
    {
        const acc_type *t = acc_type_array(ctx, elem_type<T>(ctx), R);
        if (!t)
            fail(ACC_ERR_INVALID_ARGUMENT,
                 std::string("accel: ") + acc_context_last_error(ctx));
        return t;
    }
    static Acc<Array<T, R>> make(GraphState *gs, acc_node *n)
    {
        return Acc<Array<T, R>>(gs, n);
    }
    static acc_node *node(GraphState *, const Acc<Array<T, R>> &a)
    {
        return a.node();
    }
};
template <class... As> struct state_traits<std::tuple<As...>> {
    static constexpr bool valid = (state_traits<As>::valid && ...);
    static const acc_type *type(acc_context *ctx)
    {
        const acc_type *fields[] = {state_traits<As>::type(ctx)...};
        const acc_type *t = acc_type_tuple(ctx, sizeof...(As), fields);
        if (!t)
            fail(ACC_ERR_INVALID_ARGUMENT,
                 std::string("accel: ") + acc_context_last_error(ctx));
        return t;
    }
    static std::tuple<As...> make(GraphState *gs, acc_node *n)
    {
        return make_each(gs, n, std::index_sequence_for<As...>{});
    }
    template <std::size_t... I>
    static std::tuple<As...> make_each(GraphState *gs, acc_node *n,
                                       std::index_sequence<I...>)
    {
        return std::tuple<As...>(
            state_traits<As>::make(gs, acc_get(gs->g, n, I))...);
    }
    static acc_node *node(GraphState *gs, const std::tuple<As...> &t)
    {
        acc_node *parts[sizeof...(As)];
        for_each_index<sizeof...(As)>([&](auto ic) {
            constexpr std::size_t I = decltype(ic)::value;
            parts[I] = state_traits<std::tuple_element_t<I, std::tuple<As...>>>::
                node(gs, std::get<I>(t));
        });
        return acc_tuple(need_graph(gs)->g, sizeof...(As), parts);
    }
};

// Array terms a function returned, as the state type S.
template <class S, class X> acc_node *state_node(GraphState *gs, const X &x)
{
    if constexpr (is_tuple_v<X> && is_tuple_v<S>) {
        static_assert(std::tuple_size_v<X> == std::tuple_size_v<S>,
                      "accel: an array function returned another number of "
                      "arrays than expected");
        return state_traits<S>::node(gs, S(x));
    } else {
        static_assert(std::is_same_v<X, S>,
                      "accel: an array function returned arrays of other "
                      "types than expected (awhile's body returns its "
                      "state's types)");
        return state_traits<S>::node(gs, x);
    }
}

// f(state), or f(arrays of the state...) for a tuple state.
template <class F, class S> decltype(auto) call_traced_array(F &f, const S &s)
{
    if constexpr (std::is_invocable_v<F &, const S &>) {
        return f(s);
    } else if constexpr (is_tuple_v<S>) {
        static_assert(invocable_unpacked<F, S>(
                          std::make_index_sequence<std::tuple_size_v<S>>{}),
                      "accel: an array function takes its state (an Acc, or "
                      "a std::tuple of Accs) or the arrays of a tuple state "
                      "as parameters");
        return call_unpacked(f, s,
                             std::make_index_sequence<std::tuple_size_v<S>>{});
    } else {
        static_assert(always_false<F>,
                      "accel: an array function takes an Acc<Array<T, R>> "
                      "(or auto) parameter");
    }
}

// \p -> f(p) over a parameter of state type S; Ret is S, or bool for an
// awhile condition (an Acc<Scalar<bool>>, or an Exp<bool> made a Scalar).
template <class Ret, class S, class F>
acc_node *trace_array_fn(GraphState *gs, F &f)
{
    acc_node *p = acc_param(gs->g, state_traits<S>::type(gs->ctx));
    TraceScope scope(gs);
    const S arg = state_traits<S>::make(gs, p);
    const auto r = call_traced_array(f, arg);
    using X = std::decay_t<decltype(r)>;
    acc_node *body = nullptr;
    if constexpr (std::is_same_v<Ret, bool>) {
        if constexpr (std::is_same_v<X, Exp<bool>>)
            body = acc_unit(gs->g, r.node());
        else if constexpr (std::is_same_v<X, Acc<Array<bool, 0>>>)
            body = r.node();
        else
            static_assert(always_false<X>,
                          "accel: an awhile condition returns an Exp<bool> "
                          "or an Acc<Scalar<bool>>");
    } else {
        body = state_node<Ret>(gs, r);
    }
    return acc_lambda(gs->g, 1, &p, body);
}

template <class F, class S>
using array_fn_result_t =
    std::decay_t<decltype(call_traced_array(std::declval<F &>(),
                                            std::declval<const S &>()))>;

} // namespace detail

// Scalar loop: from init, apply body while cond holds (cond first).  init
// is a term, literal or std::tuple of them (the loop state); cond and body
// take the state (or its components).  auto [zx, zy, n] = while_(c, b,
// std::make_tuple(0.0f, 0.0f, 0));
template <class C, class B, class I>
Exp<detail::lifted_t<I>> while_(C cond_fn, B body_fn, const I &init)
{
    using T = detail::lifted_t<I>;
    detail::GraphState *gs = detail::need_graph(detail::graph_in(init));
    acc_node *init_node = detail::lift_as<T>(gs, init);
    acc_node *c = detail::trace_fn<bool, T>(gs, cond_fn);
    acc_node *b = detail::trace_fn<T, T>(gs, body_fn);
    return Exp<T>(gs, acc_while(gs->g, c, b, init_node));
}

// foreignExp name fallback arg: a scalar function `name` registered for
// the backend (acc_register_c_function), else fallback applied to arg.
template <class F, class X>
auto foreignExp(const std::string &name, F fallback, const X &arg)
{
    using T = detail::lifted_t<X>;
    using U = detail::fn_result_t<F, T>;
    detail::GraphState *gs = detail::need_graph(detail::graph_in(arg));
    acc_node *a = detail::lift_as<T>(gs, arg);
    acc_node *fn = detail::trace_fn<U, T>(gs, fallback);
    return Exp<U>(gs, acc_foreign_exp(gs->g, name.c_str(), fn, a));
}

} // namespace accel

#endif // ACCEL_TRACE_HPP
