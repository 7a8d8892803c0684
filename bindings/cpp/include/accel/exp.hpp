// accel/exp.hpp — scalar terms: Exp<T> and the scalar language
// (LANGUAGE.md §2) as C++ operators and functions.
//
//   Exp<float> x;  x * 2 + y, -x, x < y && b, abs(x), sqrt(x), max(x, 0.0f)
//   convert<double>(i), floor<std::int64_t>(x), cond(c, a, b),
//   while_(cond, body, init), index(i, j), get<0>(pair), auto [a, b] = pair
//
// Operands of a binary operation have one element type; a C++ literal on
// either side takes the type of the term (2 * x with x an Exp<float> is
// 2.0f * x), except that a floating literal is refused where an integer
// is expected.  Integer / and % are quot and rem (C++'s truncation); div
// and mod floor.  && and || short-circuit in the program, as in accel.
#ifndef ACCEL_EXP_HPP
#define ACCEL_EXP_HPP

#include <accel.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "error.hpp"
#include "term.hpp"
#include "types.hpp"

namespace accel {

template <class T> class Exp {
public:
    static_assert(detail::is_elem_v<T>,
                  "accel::Exp<T>: T must be an element type (bool, integers, "
                  "float, double, std::tuple of them, accel::Index<R>)");
    using value_type = T;

    // An empty term; using it in an operation throws.
    Exp() noexcept = default;
    // The term of node n of graph gs (what the operations return).
    Exp(detail::GraphState *gs, acc_node *n) noexcept : gs_(gs), n_(n) {}

    // A constant, in the graph traced on this thread.
    template <class U, class V = T,
              std::enable_if_t<detail::is_scalar_v<V> && detail::is_scalar_v<U>,
                               int> = 0>
    Exp(U value)
        : Exp(detail::need_graph(nullptr),
              detail::constant<T>(detail::need_graph(nullptr), value)) {}

    // A conversion between scalar types (as accel::convert<T>).
    template <class U, class V = T,
              std::enable_if_t<detail::is_scalar_v<V> && detail::is_scalar_v<U> &&
                                   !std::is_same_v<U, V>,
                               int> = 0>
    explicit Exp(const Exp<U> &e)
        : Exp(detail::need_graph(e.graph()),
              acc_convert(detail::need_graph(e.graph())->g, e.node(),
                          detail::scalar_code<T>())) {}

    // A tuple from its parts: terms or C++ scalars.
    template <class... Xs, class V = T,
              std::enable_if_t<detail::is_tuple_v<V>, int> = 0>
    Exp(const std::tuple<Xs...> &parts)
        : Exp(detail::need_graph(detail::graph_in(parts)),
              detail::lift_as<T>(detail::need_graph(detail::graph_in(parts)),
                                 parts)) {}

    acc_node *node() const noexcept { return n_; }
    detail::GraphState *graph() const noexcept { return gs_; }

    // Field I of a tuple, component I of an index (outermost first).
    template <std::size_t I> auto get() const
    {
        static_assert(detail::is_tuple_v<T> || detail::is_index_v<T>,
                      "accel: get<I> takes a field of a tuple or a component "
                      "of an index");
        detail::GraphState *gs = detail::need_graph(gs_);
        if constexpr (detail::is_tuple_v<T>) {
            static_assert(I < std::tuple_size_v<T>, "accel: no such field");
            return Exp<std::tuple_element_t<I, T>>(gs, acc_get(gs->g, n_, I));
        } else {
            static_assert(I < detail::leaf_count_v<T>,
                          "accel: no such component");
            return Exp<std::int64_t>(gs, acc_get(gs->g, n_, I));
        }
    }
    // Component d of an index (outermost first).
    template <class V = T, std::enable_if_t<detail::is_index_v<V>, int> = 0>
    Exp<std::int64_t> operator[](std::size_t d) const
    {
        detail::GraphState *gs = detail::need_graph(gs_);
        return Exp<std::int64_t>(gs, acc_get(gs->g, n_, d));
    }

private:
    detail::GraphState *gs_ = nullptr;
    acc_node *n_ = nullptr;
};

template <std::size_t I, class T> auto get(const Exp<T> &e)
{
    return e.template get<I>();
}

namespace detail {

template <class T> constexpr acc_primop div_op()
{
    return is_float_v<T> ? ACC_OP_FDIV : ACC_OP_QUOT;
}

template <class R, class T>
Exp<R> unop(acc_primop op, const Exp<T> &a)
{
    GraphState *gs = need_graph(a.graph());
    return Exp<R>(gs, acc_unop(gs->g, op, a.node()));
}

template <class R, class T, class U>
Exp<R> binop(acc_primop op, const Exp<T> &a, const Exp<U> &b)
{
    GraphState *gs = need_graph(graph_in(a, b));
    return Exp<R>(gs, acc_binop(gs->g, op, a.node(), b.node()));
}

// A literal beside a term of type T, in the term's graph.
template <class T, class U> Exp<T> literal(const Exp<T> &beside, U v)
{
    GraphState *gs = need_graph(beside.graph());
    return Exp<T>(gs, constant<T>(gs, v));
}

} // namespace detail

// ---- operators -------------------------------------------------------------

#define ACCEL_BINARY_OPERATOR(SYM, OP, RES, OK, WHY)                          \
    template <class T>                                                        \
    Exp<RES> operator SYM(const Exp<T> &a, const Exp<T> &b)                   \
    {                                                                         \
        static_assert(OK, WHY);                                               \
        return detail::binop<RES>(OP, a, b);                                  \
    }                                                                         \
    template <class T, class U,                                               \
              std::enable_if_t<detail::is_scalar_v<U>, int> = 0>              \
    Exp<RES> operator SYM(const Exp<T> &a, U b)                               \
    {                                                                         \
        return a SYM detail::literal(a, b);                                   \
    }                                                                         \
    template <class T, class U,                                               \
              std::enable_if_t<detail::is_scalar_v<U>, int> = 0>              \
    Exp<RES> operator SYM(U a, const Exp<T> &b)                               \
    {                                                                         \
        return detail::literal(b, a) SYM b;                                   \
    }

#define ACCEL_NUM detail::is_num_v<T>
#define ACCEL_INT detail::is_int_v<T>
#define ACCEL_SCALAR detail::is_scalar_v<T>
#define ACCEL_BOOL std::is_same_v<T, bool>

ACCEL_BINARY_OPERATOR(+, ACC_OP_ADD, T, ACCEL_NUM, "accel: + takes numbers")
ACCEL_BINARY_OPERATOR(-, ACC_OP_SUB, T, ACCEL_NUM, "accel: - takes numbers")
ACCEL_BINARY_OPERATOR(*, ACC_OP_MUL, T, ACCEL_NUM, "accel: * takes numbers")
ACCEL_BINARY_OPERATOR(/, detail::div_op<T>(), T, ACCEL_NUM,
                      "accel: / takes numbers")
ACCEL_BINARY_OPERATOR(%, ACC_OP_REM, T, ACCEL_INT,
                      "accel: % (rem) takes integers")
ACCEL_BINARY_OPERATOR(&, ACC_OP_BAND, T, ACCEL_INT,
                      "accel: & takes integers (use && on bools)")
ACCEL_BINARY_OPERATOR(|, ACC_OP_BOR, T, ACCEL_INT,
                      "accel: | takes integers (use || on bools)")
ACCEL_BINARY_OPERATOR(^, ACC_OP_BXOR, T, ACCEL_INT, "accel: ^ takes integers")
ACCEL_BINARY_OPERATOR(==, ACC_OP_EQ, bool, ACCEL_SCALAR,
                      "accel: == compares scalars")
ACCEL_BINARY_OPERATOR(!=, ACC_OP_NE, bool, ACCEL_SCALAR,
                      "accel: != compares scalars")
ACCEL_BINARY_OPERATOR(<, ACC_OP_LT, bool, ACCEL_SCALAR,
                      "accel: < compares scalars")
ACCEL_BINARY_OPERATOR(<=, ACC_OP_LE, bool, ACCEL_SCALAR,
                      "accel: <= compares scalars")
ACCEL_BINARY_OPERATOR(>, ACC_OP_GT, bool, ACCEL_SCALAR,
                      "accel: > compares scalars")
ACCEL_BINARY_OPERATOR(>=, ACC_OP_GE, bool, ACCEL_SCALAR,
                      "accel: >= compares scalars")
ACCEL_BINARY_OPERATOR(&&, ACC_OP_LAND, bool, ACCEL_BOOL,
                      "accel: && takes bools")
ACCEL_BINARY_OPERATOR(||, ACC_OP_LOR, bool, ACCEL_BOOL,
                      "accel: || takes bools")

// Shifts: the amount may be a term of any integer type (a literal
// takes the shifted term's type).
template <class T, class U>
Exp<T> operator<<(const Exp<T> &a, const Exp<U> &n)
{
    static_assert(detail::is_int_v<T> && detail::is_int_v<U>,
                  "accel: << takes integers");
    return detail::binop<T>(ACC_OP_SHIFTL, a, n);
}
template <class T, class U>
Exp<T> operator>>(const Exp<T> &a, const Exp<U> &n)
{
    static_assert(detail::is_int_v<T> && detail::is_int_v<U>,
                  "accel: >> takes integers");
    return detail::binop<T>(ACC_OP_SHIFTR, a, n);
}
template <class T, class U, std::enable_if_t<detail::is_int_v<U>, int> = 0>
Exp<T> operator<<(const Exp<T> &a, U n)
{
    return a << detail::literal(a, n);
}
template <class T, class U, std::enable_if_t<detail::is_int_v<U>, int> = 0>
Exp<T> operator>>(const Exp<T> &a, U n)
{
    return a >> detail::literal(a, n);
}

template <class T> Exp<T> operator-(const Exp<T> &a)
{
    static_assert(detail::is_num_v<T>, "accel: unary - takes numbers");
    return detail::unop<T>(ACC_OP_NEG, a);
}
template <class T> Exp<T> operator+(const Exp<T> &a)
{
    static_assert(detail::is_num_v<T>, "accel: unary + takes numbers");
    return a;
}
template <class T> Exp<T> operator~(const Exp<T> &a)
{
    static_assert(detail::is_int_v<T>, "accel: ~ takes integers");
    return detail::unop<T>(ACC_OP_COMPLEMENT, a);
}
inline Exp<bool> operator!(const Exp<bool> &a)
{
    return detail::unop<bool>(ACC_OP_NOT, a);
}

// a op= b rebinds a to the new term (the old one is unchanged).
#define ACCEL_COMPOUND(SYM)                                                   \
    template <class T, class U>                                               \
    Exp<T> &operator SYM##=(Exp<T> &a, const U &b)                            \
    {                                                                         \
        return a = a SYM b;                                                   \
    }
ACCEL_COMPOUND(+)
ACCEL_COMPOUND(-)
ACCEL_COMPOUND(*)
ACCEL_COMPOUND(/)
ACCEL_COMPOUND(%)
ACCEL_COMPOUND(&)
ACCEL_COMPOUND(|)
ACCEL_COMPOUND(^)
#undef ACCEL_COMPOUND

// ---- functions -------------------------------------------------------------

#define ACCEL_UNARY_FUNCTION(NAME, OP, RES, OK, WHY)                          \
    template <class T> Exp<RES> NAME(const Exp<T> &a)                         \
    {                                                                         \
        static_assert(OK, WHY);                                               \
        return detail::unop<RES>(OP, a);                                      \
    }

ACCEL_UNARY_FUNCTION(abs, ACC_OP_ABS, T, ACCEL_NUM, "accel: abs takes numbers")
ACCEL_UNARY_FUNCTION(signum, ACC_OP_SIGNUM, T, ACCEL_NUM,
                     "accel: signum takes numbers")
ACCEL_UNARY_FUNCTION(complement, ACC_OP_COMPLEMENT, T, ACCEL_INT,
                     "accel: complement takes integers")
ACCEL_UNARY_FUNCTION(popCount, ACC_OP_POPCOUNT, std::int64_t, ACCEL_INT,
                     "accel: popCount takes integers")
ACCEL_UNARY_FUNCTION(countLeadingZeros, ACC_OP_CLZ, std::int64_t, ACCEL_INT,
                     "accel: countLeadingZeros takes integers")
ACCEL_UNARY_FUNCTION(not_, ACC_OP_NOT, bool, ACCEL_BOOL,
                     "accel: not_ takes bools")

#define ACCEL_FLOAT detail::is_float_v<T>
#define ACCEL_FLOATING(NAME, OP)                                              \
    ACCEL_UNARY_FUNCTION(NAME, OP, T, ACCEL_FLOAT,                            \
                         "accel: " #NAME " takes float or double")
ACCEL_FLOATING(sqrt, ACC_OP_SQRT)
ACCEL_FLOATING(exp, ACC_OP_EXP)
ACCEL_FLOATING(log, ACC_OP_LOG)
ACCEL_FLOATING(sin, ACC_OP_SIN)
ACCEL_FLOATING(cos, ACC_OP_COS)
ACCEL_FLOATING(tan, ACC_OP_TAN)
ACCEL_FLOATING(asin, ACC_OP_ASIN)
ACCEL_FLOATING(acos, ACC_OP_ACOS)
ACCEL_FLOATING(atan, ACC_OP_ATAN)
ACCEL_FLOATING(sinh, ACC_OP_SINH)
ACCEL_FLOATING(cosh, ACC_OP_COSH)
ACCEL_FLOATING(tanh, ACC_OP_TANH)
#undef ACCEL_FLOATING
ACCEL_UNARY_FUNCTION(isNaN, ACC_OP_ISNAN, bool, ACCEL_FLOAT,
                     "accel: isNaN takes float or double")
ACCEL_UNARY_FUNCTION(isInfinite, ACC_OP_ISINF, bool, ACCEL_FLOAT,
                     "accel: isInfinite takes float or double")
#undef ACCEL_UNARY_FUNCTION

// Binary functions: two terms of one type, or a term and a literal.
#define ACCEL_BINARY_FUNCTION(NAME, OP, OK, WHY)                              \
    template <class T> Exp<T> NAME(const Exp<T> &a, const Exp<T> &b)          \
    {                                                                         \
        static_assert(OK, WHY);                                               \
        return detail::binop<T>(OP, a, b);                                    \
    }                                                                         \
    template <class T, class U,                                               \
              std::enable_if_t<detail::is_scalar_v<U>, int> = 0>              \
    Exp<T> NAME(const Exp<T> &a, U b)                                         \
    {                                                                         \
        return NAME(a, detail::literal(a, b));                                \
    }                                                                         \
    template <class T, class U,                                               \
              std::enable_if_t<detail::is_scalar_v<U>, int> = 0>              \
    Exp<T> NAME(U a, const Exp<T> &b)                                         \
    {                                                                         \
        return NAME(detail::literal(b, a), b);                                \
    }

ACCEL_BINARY_FUNCTION(min, ACC_OP_MIN, ACCEL_SCALAR, "accel: min takes scalars")
ACCEL_BINARY_FUNCTION(max, ACC_OP_MAX, ACCEL_SCALAR, "accel: max takes scalars")
ACCEL_BINARY_FUNCTION(quot, ACC_OP_QUOT, ACCEL_INT, "accel: quot takes integers")
ACCEL_BINARY_FUNCTION(rem, ACC_OP_REM, ACCEL_INT, "accel: rem takes integers")
ACCEL_BINARY_FUNCTION(div, ACC_OP_DIV, ACCEL_INT, "accel: div takes integers")
ACCEL_BINARY_FUNCTION(mod, ACC_OP_MOD, ACCEL_INT, "accel: mod takes integers")
ACCEL_BINARY_FUNCTION(atan2, ACC_OP_ATAN2, ACCEL_FLOAT,
                      "accel: atan2 takes float or double")
ACCEL_BINARY_FUNCTION(pow, ACC_OP_POW, ACCEL_FLOAT,
                      "accel: pow takes float or double")
ACCEL_BINARY_FUNCTION(logBase, ACC_OP_LOGBASE, ACCEL_FLOAT,
                      "accel: logBase takes float or double")
#undef ACCEL_BINARY_FUNCTION

template <class T, class U> Exp<T> shiftL(const Exp<T> &a, const U &n)
{
    return a << n;
}
template <class T, class U> Exp<T> shiftR(const Exp<T> &a, const U &n)
{
    return a >> n;
}

// ---- conversions -------------------------------------------------------------

// Any scalar to any scalar (integers wrap, floats truncate, anything to
// bool is "not zero"): convert<double>(i), convert<std::uint8_t>(x).
template <class To, class T> Exp<To> convert(const Exp<T> &a)
{
    static_assert(detail::is_scalar_v<To> && detail::is_scalar_v<T>,
                  "accel: convert takes and gives scalars");
    detail::GraphState *gs = detail::need_graph(a.graph());
    return Exp<To>(gs, acc_convert(gs->g, a.node(), detail::scalar_code<To>()));
}
template <class To, class T> Exp<To> fromIntegral(const Exp<T> &a)
{
    static_assert(detail::is_int_v<T> && detail::is_num_v<To>,
                  "accel: fromIntegral converts an integer to a number");
    return convert<To>(a);
}
template <class To, class T> Exp<To> toFloating(const Exp<T> &a)
{
    static_assert(detail::is_num_v<T> && detail::is_float_v<To>,
                  "accel: toFloating converts a number to float or double");
    return convert<To>(a);
}

// Float to integer (to i64 unless named): truncate toward zero, round
// (halves to even), floor, ceiling.  NaN gives 0; out of range saturates.
#define ACCEL_ROUNDING(NAME, OP)                                              \
    template <class To = std::int64_t, class T> Exp<To> NAME(const Exp<T> &a) \
    {                                                                         \
        static_assert(detail::is_float_v<T> && detail::is_int_v<To>,          \
                      "accel: " #NAME " converts float or double to an "      \
                      "integer type");                                        \
        detail::GraphState *gs = detail::need_graph(a.graph());               \
        return Exp<To>(gs, acc_round_to(gs->g, OP, a.node(),                  \
                                        detail::scalar_code<To>()));          \
    }
ACCEL_ROUNDING(truncate, ACC_OP_TRUNCATE)
ACCEL_ROUNDING(round, ACC_OP_ROUND)
ACCEL_ROUNDING(floor, ACC_OP_FLOOR)
ACCEL_ROUNDING(ceiling, ACC_OP_CEILING)
#undef ACCEL_ROUNDING

#undef ACCEL_NUM
#undef ACCEL_INT
#undef ACCEL_SCALAR
#undef ACCEL_BOOL
#undef ACCEL_FLOAT

// even x, odd x on integers.
template <class T> Exp<bool> even(const Exp<T> &x)
{
    static_assert(detail::is_int_v<T>, "accel: even takes integers");
    detail::GraphState *gs = detail::need_graph(x.graph());
    return Exp<bool>(gs, acc_even(gs->g, x.node()));
}
template <class T> Exp<bool> odd(const Exp<T> &x)
{
    static_assert(detail::is_int_v<T>, "accel: odd takes integers");
    detail::GraphState *gs = detail::need_graph(x.graph());
    return Exp<bool>(gs, acc_odd(gs->g, x.node()));
}

// ---- tuples and indices -----------------------------------------------------

// A tuple term from terms and literals: tup(a, b, 0).
template <class... Xs> auto tup(const Xs &...xs)
{
    using T = std::tuple<detail::lifted_t<Xs>...>;
    const std::tuple<Xs...> parts(xs...);
    detail::GraphState *gs = detail::need_graph(detail::graph_in(parts));
    return Exp<T>(gs, detail::lift_as<T>(gs, parts));
}

namespace detail {
template <class X>
inline constexpr bool is_index_component_v =
    is_int_v<X> || std::is_same_v<X, Exp<std::int64_t>>;

// An index in graph gs from components (Exp<std::int64_t> or integers).
template <class... Xs>
Exp<Index<int(sizeof...(Xs))>> index_in(GraphState *gs, const Xs &...xs)
{
    static_assert((is_index_component_v<Xs> && ...),
                  "accel: index components are Exp<std::int64_t> or C++ "
                  "integers (convert<std::int64_t> other terms)");
    gs = need_graph(gs);
    acc_node *comps[sizeof...(Xs) + 1] = {lift_as<std::int64_t>(gs, xs)...,
                                          nullptr};
    return Exp<Index<int(sizeof...(Xs))>>(
        gs, acc_index(gs->g, sizeof...(Xs), comps));
}
} // namespace detail

// An index (or shape) from its components, outermost first: each an
// Exp<std::int64_t> or a C++ integer.  index() is the index of a Scalar.
template <class... Xs> Exp<Index<int(sizeof...(Xs))>> index(const Xs &...xs)
{
    return detail::index_in(detail::graph_in(xs...), xs...);
}
inline Exp<Index<0>> index()
{
    detail::GraphState *gs = detail::need_graph(nullptr);
    return Exp<Index<0>>(gs, acc_index(gs->g, 0, nullptr));
}
template <class X> auto index1(const X &i) { return index(i); }
template <class X, class Y> auto index2(const X &i, const Y &j)
{
    return index(i, j);
}
template <class X, class Y, class Z>
auto index3(const X &i, const Y &j, const Z &k)
{
    return index(i, j, k);
}

// The `ignore` target of permute: an index of rank R that drops the
// element.
template <int R> Exp<Index<R>> ignore()
{
    static_assert(R >= 1, "accel: ignore has rank 1 or more");
    detail::GraphState *gs = detail::need_graph(nullptr);
    return Exp<Index<R>>(gs, acc_ignore(gs->g, R));
}

// ---- conditionals -----------------------------------------------------------

// if c then t else e: only the chosen branch is evaluated.  t and e are
// terms, literals or std::tuples of them; a literal takes the other's type.
template <class A, class B>
Exp<detail::unify_t<A, B>> cond(const Exp<bool> &c, const A &t, const B &e)
{
    using T = detail::unify_t<A, B>;
    detail::GraphState *gs = detail::need_graph(detail::graph_in(c, t, e));
    acc_node *tn = detail::lift_as<T>(gs, t);
    acc_node *en = detail::lift_as<T>(gs, e);
    return Exp<T>(gs, acc_cond(gs->g, c.node(), tn, en));
}

} // namespace accel

// Structured bindings of tuple and index terms: auto [a, b] = pair;
namespace std {
template <class... Ts>
struct tuple_size<accel::Exp<std::tuple<Ts...>>>
    : std::integral_constant<std::size_t, sizeof...(Ts)> {};
template <std::size_t I, class... Ts>
struct tuple_element<I, accel::Exp<std::tuple<Ts...>>> {
    using type = accel::Exp<std::tuple_element_t<I, std::tuple<Ts...>>>;
};
template <int R>
struct tuple_size<accel::Exp<accel::Index<R>>>
    : std::integral_constant<std::size_t, std::size_t(R)> {};
template <std::size_t I, int R>
struct tuple_element<I, accel::Exp<accel::Index<R>>> {
    using type = accel::Exp<std::int64_t>;
};
} // namespace std

#endif // ACCEL_EXP_HPP
