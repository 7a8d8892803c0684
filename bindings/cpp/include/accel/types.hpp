// accel/types.hpp — C++ types for accel's element types and array types.
//
// Element types are spelled with ordinary C++ types:
//   bool, int8_t .. int64_t, uint8_t .. uint64_t, float, double   scalars
//   std::tuple<Ts...>                     (nested) tuples of elements
//   accel::Index<R>                       an index or shape of rank R
// and arrays as accel::Array<T, R> (Scalar<T>, Vector<T>, Matrix<T>).
// elem_traits<T> maps each to its acc_type, its scalar leaves (the buffers
// of an array, depth first) and its name as accel prints it ("(f32, i32)",
// "Shape 2", "Array 1 f32"), so messages of the binding read like accel's.
#ifndef ACCEL_TYPES_HPP
#define ACCEL_TYPES_HPP

#include <accel.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "error.hpp"

namespace accel {

// The element type of indices and shapes of rank R: R int64 components,
// outermost first.  Exp<Index<R>> is an index (or shape) term.
template <int R> struct Index {
    static_assert(R >= 0 && R <= ACC_MAX_RANK,
                  "accel::Index<R>: the rank is 0 to 8");
};
// A shape is an index (the same type: the extents of each dimension).
template <int R> using Shape = Index<R>;

// An owning host array of element type T and rank R (accel/array.hpp).
template <class T, int R> class Array;
template <class T> using Scalar = Array<T, 0>;
template <class T> using Vector = Array<T, 1>;
template <class T> using Matrix = Array<T, 2>;

namespace detail {

template <class...> inline constexpr bool always_false = false;

// Calls f(std::integral_constant<std::size_t, I>{}) for I = 0 .. N-1 (the
// C++17 stand-in for a template lambda over an index pack).
template <class F, std::size_t... I>
constexpr void for_each_index_impl(F &&f, std::index_sequence<I...>)
{
    (f(std::integral_constant<std::size_t, I>{}), ...);
}
template <std::size_t N, class F> constexpr void for_each_index(F &&f)
{
    for_each_index_impl(f, std::make_index_sequence<N>{});
}

// The C++ scalar types accel has: bool, integers of 1 to 8 bytes (by size
// and signedness, so long and long long are both i64), float and double.
template <class T>
inline constexpr bool is_scalar_v =
    std::is_same_v<T, bool> || std::is_same_v<T, float> ||
    std::is_same_v<T, double> ||
    (std::is_integral_v<T> && !std::is_same_v<T, wchar_t> &&
     !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t> &&
     sizeof(T) <= 8);

template <class T> constexpr acc_scalar scalar_code()
{
    static_assert(is_scalar_v<T>, "accel: not a scalar element type");
    if constexpr (std::is_same_v<T, bool>)
        return ACC_BOOL;
    else if constexpr (std::is_same_v<T, float>)
        return ACC_F32;
    else if constexpr (std::is_same_v<T, double>)
        return ACC_F64;
    else if constexpr (std::is_signed_v<T>)
        return sizeof(T) == 1   ? ACC_I8
               : sizeof(T) == 2 ? ACC_I16
               : sizeof(T) == 4 ? ACC_I32
                                : ACC_I64;
    else
        return sizeof(T) == 1   ? ACC_U8
               : sizeof(T) == 2 ? ACC_U16
               : sizeof(T) == 4 ? ACC_U32
                                : ACC_U64;
}

template <class T>
inline constexpr bool is_int_v =
    is_scalar_v<T> && std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_float_v =
    std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T> inline constexpr bool is_num_v = is_int_v<T> || is_float_v<T>;

template <class T> struct is_tuple : std::false_type {};
template <class... Ts> struct is_tuple<std::tuple<Ts...>> : std::true_type {};
template <class T> inline constexpr bool is_tuple_v = is_tuple<T>::value;

template <class T> struct is_index : std::false_type {};
template <int R> struct is_index<Index<R>> : std::true_type {};
template <class T> inline constexpr bool is_index_v = is_index<T>::value;

// What accel needs to know about an element type T; valid is false for
// types that are not element types.
template <class T, class = void> struct elem_traits {
    static constexpr bool valid = false;
};

template <class T> struct elem_traits<T, std::enable_if_t<is_scalar_v<T>>> {
    static constexpr bool valid = true;
    static constexpr std::size_t leaves = 1;
    using host = T; // one element in host memory
    static const acc_type *type(acc_context *) noexcept
    {
        return acc_type_scalar(scalar_code<T>());
    }
    static void leaf_codes(acc_scalar *out) noexcept
    {
        out[0] = scalar_code<T>();
    }
    static std::string name() { return acc_scalar_name(scalar_code<T>()); }
};

template <int R> struct elem_traits<Index<R>, void> {
    static constexpr bool valid = true;
    static constexpr std::size_t leaves = static_cast<std::size_t>(R);
    using host = std::array<std::int64_t, static_cast<std::size_t>(R)>;
    static const acc_type *type(acc_context *) noexcept
    {
        return acc_type_shape(R);
    }
    static void leaf_codes(acc_scalar *out) noexcept
    {
        for (int i = 0; i < R; i++)
            out[i] = ACC_I64;
    }
    static std::string name() { return "Shape " + std::to_string(R); }
};

template <class... Ts> struct elem_traits<std::tuple<Ts...>, void> {
    static constexpr bool valid =
        sizeof...(Ts) > 0 && (elem_traits<Ts>::valid && ...);
    static constexpr std::size_t leaves = (std::size_t{0} + ... +
                                           elem_traits<Ts>::leaves);
    using host = std::tuple<typename elem_traits<Ts>::host...>;
    // Tuple types are made in (and live as long as) a context.
    static const acc_type *type(acc_context *ctx) noexcept
    {
        const acc_type *fields[] = {elem_traits<Ts>::type(ctx)...};
        return acc_type_tuple(ctx, sizeof...(Ts), fields);
    }
    static void leaf_codes(acc_scalar *out) noexcept
    {
        std::size_t at = 0;
        ((elem_traits<Ts>::leaf_codes(out + at),
          at += elem_traits<Ts>::leaves),
         ...);
    }
    static std::string name()
    {
        std::string s = "(";
        bool first = true;
        ((s += (first ? "" : ", ") + elem_traits<Ts>::name(), first = false),
         ...);
        return s + ")";
    }
};

template <class T> inline constexpr bool is_elem_v = elem_traits<T>::valid;
template <class T> inline constexpr std::size_t leaf_count_v =
    elem_traits<T>::leaves;
template <class T> using host_t = typename elem_traits<T>::host;

template <class T> std::array<acc_scalar, leaf_count_v<T>> leaf_codes()
{
    std::array<acc_scalar, leaf_count_v<T>> codes{};
    if constexpr (leaf_count_v<T> > 0)
        elem_traits<T>::leaf_codes(codes.data());
    return codes;
}

// The type of element T, as accel's builder and descriptors take it;
// throws when the context cannot make it (accel says why).
template <class T> const acc_type *elem_type(acc_context *ctx)
{
    static_assert(is_elem_v<T>, "accel: not an element type (scalars, "
                                "std::tuple of element types, accel::Index)");
    const acc_type *t = elem_traits<T>::type(ctx);
    if (!t)
        fail(ACC_ERR_INVALID_ARGUMENT,
             "accel: cannot make the element type " + elem_traits<T>::name() +
                 ": " + (ctx ? acc_context_last_error(ctx) : "no context"));
    return t;
}

template <class T> std::string elem_name() { return elem_traits<T>::name(); }

template <class T, int R> std::string array_name()
{
    return "Array " + std::to_string(R) + " " + elem_traits<T>::name();
}

// An acc_type printed as accel prints types ("Array 1 (f32, i32)").
inline std::string type_name(const acc_type *t)
{
    if (!t)
        return "<null type>";
    switch (acc_type_get_kind(t)) {
    case ACC_TYPE_SCALAR:
        return acc_scalar_name(acc_type_get_scalar(t));
    case ACC_TYPE_SHAPE:
        return "Shape " + std::to_string(acc_type_get_rank(t));
    case ACC_TYPE_ARRAY:
        return "Array " + std::to_string(acc_type_get_rank(t)) + " " +
               type_name(acc_type_get_elem(t));
    case ACC_TYPE_TUPLE: {
        std::string s = "(";
        for (std::size_t i = 0; i < acc_type_get_arity(t); i++)
            s += (i ? ", " : "") + type_name(acc_type_get_field(t, i));
        return s + ")";
    }
    }
    return "<unknown type>";
}

// Number of elements of the extents (1 for rank 0); -1 when an extent is
// negative or the product overflows int64.
template <std::size_t R>
std::int64_t shape_size(const std::array<std::int64_t, R> &shape) noexcept
{
    std::int64_t n = 1;
    for (std::int64_t e : shape) {
        if (e < 0)
            return -1;
        if (e != 0 && n > INT64_MAX / e)
            return -1;
        n *= e;
    }
    return n;
}

} // namespace detail
} // namespace accel

#endif // ACCEL_TYPES_HPP
