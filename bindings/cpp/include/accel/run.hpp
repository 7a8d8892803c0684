// accel/run.hpp — arguments and results of program calls.
//
// InArg<T, R> is one input as acc_run borrows it: built, without copying,
// from a std::vector<T> (rank 1), an ArrayView or Array of element type T
// and rank R, a plain value (rank 0), or a std::tuple of any of these for
// an array of tuples.  Typed functions take InArg parameters, so the C++
// compiler refuses an argument of another element type or rank; Program
// calls deduce the InArg from each argument and let accel check it.
// out_traits<Out> turns the library-allocated results into Out (Arrays,
// zero-copy) or describes caller views for results written in place.
#ifndef ACCEL_RUN_HPP
#define ACCEL_RUN_HPP

#include <accel.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"
#include "error.hpp"
#include "handles.hpp"
#include "types.hpp"

namespace accel {
namespace detail {

// Whether To{from} is not narrowing (int -> int64_t yes, double -> float no).
template <class From, class To, class = void>
struct non_narrowing : std::false_type {};
template <class From, class To>
struct non_narrowing<From, To, std::void_t<decltype(To{std::declval<From>()})>>
    : std::true_type {};

template <class T, int R> class InArg;

template <class T> struct is_in_arg : std::false_type {};
template <class T, int R> struct is_in_arg<InArg<T, R>> : std::true_type {};

// A descriptor of `type` over the given buffers (borrowed).
template <std::size_t R, std::size_t L>
acc_array describe(const acc_type *type, const std::array<std::int64_t, R> &shape,
                   const std::array<void *, L> &ptrs) noexcept
{
    acc_array a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.type = type;
    a.rank = static_cast<std::int32_t>(R);
    for (std::size_t d = 0; d < R; d++)
        a.extents[d] = shape[d];
    for (std::size_t i = 0; i < L; i++)
        a.data[i] = ptrs[i];
    return a;
}

// An output descriptor for accel to allocate.
inline acc_array library_output() noexcept
{
    acc_array a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    return a;
}

template <class T, int R> class InArg {
public:
    static_assert(is_elem_v<T>, "accel: inputs have an element type");
    using elem = T;
    static constexpr int rank = R;
    static constexpr std::size_t leaves = leaf_count_v<T>;

    InArg(const ArrayView<T, R> &v) noexcept
        : shape_(v.shape()), ptrs_(v.leaf_pointers()) {}
    InArg(const ArrayView<const T, R> &v) noexcept
        : shape_(v.shape()), ptrs_(v.leaf_pointers()) {}
    InArg(const Array<T, R> &a) noexcept : InArg(a.view()) {}

    // A std::vector of scalars is a vector (not std::vector<bool>, which
    // has no buffer: use Array<bool, 1>).
    template <class U = T,
              std::enable_if_t<is_scalar_v<U> && !std::is_same_v<U, bool> &&
                                   R == 1,
                               int> = 0>
    InArg(const std::vector<T> &v) noexcept
        : shape_{{static_cast<std::int64_t>(v.size())}},
          ptrs_{{const_cast<T *>(v.data())}} {}

    // A value for a rank-0 input (a scalar parameter), when it converts to
    // T without narrowing: 10 for an i64 parameter, not 2.5 for an i32.
    template <class U,
              std::enable_if_t<R == 0 && is_scalar_v<T> && is_scalar_v<U> &&
                                   non_narrowing<U, T>::value,
                               int> = 0>
    InArg(U value) noexcept : shape_{}, ptrs_{}, value_(T(value)), by_value_(true)
    {}

    // An array of tuples from its fields.
    template <class... Fs, class U = T,
              std::enable_if_t<is_tuple_v<U> &&
                                   sizeof...(Fs) == std::tuple_size_v<U>,
                               int> = 0>
    InArg(const std::tuple<Fs...> &fields) : shape_{}, ptrs_{}
    {
        for_each_index<sizeof...(Fs)>([&](auto ic) {
            constexpr std::size_t I = decltype(ic)::value;
            using F = std::tuple_element_t<I, U>;
            const InArg<F, R> field(std::get<I>(fields));
            if (I == 0)
                shape_ = field.shape();
            else if (field.shape() != shape_)
                fail(ACC_ERR_SHAPE,
                     "accel: field " + std::to_string(I) +
                         " of a tuple input has other extents than field 0 "
                         "(the fields of an array of tuples have equal "
                         "extents)");
            for (std::size_t i = 0; i < InArg<F, R>::leaves; i++)
                ptrs_[leaf_offset<U, I>() + i] = field.pointers()[i];
        });
    }

    const extents_t<R> &shape() const noexcept { return shape_; }
    // The buffers (a value's is only valid while this object lives where
    // it is: describe() is called on the object acc_run reads).
    std::array<void *, leaves> pointers() const noexcept
    {
        std::array<void *, leaves> p = ptrs_;
        if constexpr (is_scalar_v<T>)
            if (by_value_)
                p[0] = const_cast<T *>(&value_);
        return p;
    }
    acc_array describe(const acc_type *type) const noexcept
    {
        return detail::describe(type, shape_, pointers());
    }

private:
    extents_t<R> shape_;
    std::array<void *, leaves> ptrs_;
    std::conditional_t<is_scalar_v<T>, T, char> value_{};
    bool by_value_ = false;
};

// The InArg an argument of type A becomes in an untyped call.
template <class A, class = void> struct input_traits {
    static constexpr bool valid = false;
};
template <class T, int R>
struct input_traits<InArg<T, R>, void> {
    static constexpr bool valid = true;
    using type = InArg<T, R>;
};
template <class T>
struct input_traits<std::vector<T>, std::enable_if_t<is_scalar_v<T>>> {
    static constexpr bool valid = !std::is_same_v<T, bool>;
    using type = InArg<T, 1>;
};
template <class T, int R> struct input_traits<ArrayView<T, R>, void> {
    static constexpr bool valid = true;
    using type = InArg<std::remove_const_t<T>, R>;
};
template <class T, int R> struct input_traits<Array<T, R>, void> {
    static constexpr bool valid = true;
    using type = InArg<T, R>;
};
template <class T> struct input_traits<T, std::enable_if_t<is_scalar_v<T>>> {
    static constexpr bool valid = true;
    using type = InArg<T, 0>;
};
template <class... Fs> struct input_traits<std::tuple<Fs...>, void> {
    static constexpr bool valid =
        (input_traits<std::decay_t<Fs>>::valid && ...);
    using type = InArg<
        std::tuple<typename input_traits<std::decay_t<Fs>>::type::elem...>,
        std::tuple_element_t<0, std::tuple<typename input_traits<
                                    std::decay_t<Fs>>::type...>>::rank>;
};

template <class A> auto input_of(const A &arg)
{
    static_assert(input_traits<A>::valid,
                  "accel: an argument must be a std::vector of scalars, an "
                  "accel::ArrayView, an accel::Array, a scalar value (for a "
                  "rank-0 input) or a std::tuple of those (an array of "
                  "tuples)");
    return typename input_traits<A>::type(arg);
}

// Runs with or without an execution handle; throws accel's error.
inline void run_raw(acc_program *p, acc_exec *exec, std::size_t n_in,
                    const acc_array *in, std::size_t n_out, acc_array *out)
{
    if (exec)
        check(acc_run_exec(exec, p, n_in, in, n_out, out));
    else
        check(acc_run(p, n_in, in, n_out, out));
}

// Releases library outputs unless handed over (exception safety).
struct OutputGuard {
    acc_array *outs;
    std::size_t n;
    ~OutputGuard()
    {
        for (std::size_t i = 0; i < n; i++)
            acc_array_release(&outs[i]);
    }
};

// Untyped call: descriptors from the context's types, any outputs.
template <class... Args>
std::vector<AnyArray> run_any(const Program &prog, acc_exec *exec,
                              const Args &...args)
{
    acc_program *p = prog.handle();
    acc_context *ctx = prog.context().get();
    const auto ins = std::make_tuple(input_of(args)...);
    std::array<acc_array, sizeof...(Args)> in{};
    for_each_index<sizeof...(Args)>([&](auto ic) {
        constexpr std::size_t I = decltype(ic)::value;
        const auto &arg = std::get<I>(ins);
        using E = typename std::decay_t<decltype(arg)>::elem;
        in[I] = arg.describe(elem_type<E>(ctx));
    });
    std::vector<acc_array> out(acc_program_num_outputs(p), library_output());
    run_raw(p, exec, in.size(), in.data(), out.size(), out.data());
    OutputGuard guard{out.data(), out.size()};
    std::vector<AnyArray> results;
    results.reserve(out.size());
    for (acc_array &o : out) {
        results.emplace_back(o);
        o.ownership = ACC_OWNERSHIP_BORROWED; // the AnyArray releases it
    }
    return results;
}

// ---- typed results -------------------------------------------------------

// Throws ACC_ERR_TYPE when a program's parameter is not Array<T, R>.
template <class T, int R>
void check_param(const Param &p, const char *what, std::size_t i,
                 const std::string &where)
{
    if (p.rank == R && matches<T>(p.elem))
        return;
    fail(ACC_ERR_TYPE, where + ": " + what + " " + std::to_string(i) +
                           " of the program is " + p.type_name() +
                           ", the C++ signature says " + array_name<T, R>());
}

template <class A> struct array_traits {
    static constexpr bool valid = false;
};
template <class T, int R> struct array_traits<Array<T, R>> {
    static constexpr bool valid = true;
    using elem = T;
    static constexpr int rank = R;
};

template <class Out> struct out_traits {
    static_assert(array_traits<Out>::valid,
                  "accel: a result is an accel::Array<T, R> (Scalar<T>, "
                  "Vector<T>, ...) or a std::tuple of them");
    using A = array_traits<Out>;
    static constexpr std::size_t count = 1;
    using views = ArrayView<typename A::elem, A::rank>;

    static void check(const Program &p, const std::string &where)
    {
        if (p.num_outputs() != count)
            fail(ACC_ERR_TYPE, where + ": the program has " +
                                   std::to_string(p.num_outputs()) +
                                   " outputs, the C++ signature 1");
        check_param<typename A::elem, A::rank>(p.output(0), "output", 0,
                                               where);
    }
    static Out adopt(acc_array *outs)
    {
        Out a = ArrayAccess<typename A::elem, A::rank>::adopt(outs[0]);
        outs[0].ownership = ACC_OWNERSHIP_BORROWED;
        return a;
    }
    template <class V>
    static void describe(const V &v, acc_context *ctx, acc_array *outs)
    {
        using T = typename A::elem;
        static_assert(std::is_convertible_v<V, ArrayView<T, A::rank>>,
                      "accel: an output view must be a writable "
                      "accel::ArrayView (or Array) of the result's element "
                      "type and rank");
        const ArrayView<T, A::rank> w = v;
        outs[0] = detail::describe(elem_type<T>(ctx), w.shape(),
                                   w.leaf_pointers());
    }
};

template <class... Outs> struct out_traits<std::tuple<Outs...>> {
    static_assert((array_traits<Outs>::valid && ...),
                  "accel: a result is an accel::Array<T, R> (Scalar<T>, "
                  "Vector<T>, ...) or a std::tuple of them");
    static constexpr std::size_t count = sizeof...(Outs);

    static void check(const Program &p, const std::string &where)
    {
        if (p.num_outputs() != count)
            fail(ACC_ERR_TYPE, where + ": the program has " +
                                   std::to_string(p.num_outputs()) +
                                   " outputs, the C++ signature " +
                                   std::to_string(count));
        for_each_index<count>([&](auto ic) {
            constexpr std::size_t I = decltype(ic)::value;
            using A = array_traits<std::tuple_element_t<I, std::tuple<Outs...>>>;
            check_param<typename A::elem, A::rank>(p.output(I), "output", I,
                                                   where);
        });
    }
    static std::tuple<Outs...> adopt(acc_array *outs)
    {
        return adopt_each(outs, std::index_sequence_for<Outs...>{});
    }
    template <std::size_t... I>
    static std::tuple<Outs...> adopt_each(acc_array *outs,
                                          std::index_sequence<I...>)
    {
        return std::tuple<Outs...>(out_traits<Outs>::adopt(outs + I)...);
    }
    template <class... Vs>
    static void describe(const std::tuple<Vs...> &v, acc_context *ctx,
                         acc_array *outs)
    {
        static_assert(sizeof...(Vs) == count,
                      "accel: one output view per result");
        for_each_index<count>([&](auto ic) {
            constexpr std::size_t I = decltype(ic)::value;
            out_traits<std::tuple_element_t<I, std::tuple<Outs...>>>::describe(
                std::get<I>(v), ctx, outs + I);
        });
    }
};

template <class Out, class... Args>
Out run_typed(const Program &prog, acc_exec *exec, const acc_type *const *types,
              const Args &...args)
{
    // `args` are InArgs already in place: their value buffers stay valid.
    std::array<acc_array, sizeof...(Args)> in{};
    std::size_t i = 0;
    ((in[i] = args.describe(types[i]), i++), ...);
    std::array<acc_array, out_traits<Out>::count> out{};
    out.fill(library_output());
    run_raw(prog.handle(), exec, in.size(), in.data(), out.size(), out.data());
    OutputGuard guard{out.data(), out.size()};
    return out_traits<Out>::adopt(out.data());
}

template <class Out, class Outs, class... Args>
void run_into(const Program &prog, acc_exec *exec,
              const acc_type *const *types, const Outs &views,
              const Args &...args)
{
    std::array<acc_array, sizeof...(Args)> in{};
    std::size_t i = 0;
    ((in[i] = args.describe(types[i]), i++), ...);
    std::array<acc_array, out_traits<Out>::count> out{};
    out_traits<Out>::describe(views, prog.context().get(), out.data());
    run_raw(prog.handle(), exec, in.size(), in.data(), out.size(), out.data());
}

template <class... Args>
std::array<const acc_type *, sizeof...(Args)>
arg_types(acc_context *ctx, const Args &...)
{
    return {{elem_type<typename Args::elem>(ctx)...}};
}

} // namespace detail

template <class... Args>
std::vector<AnyArray> Program::operator()(const Args &...args) const
{
    return detail::run_any(*this, nullptr, args...);
}

template <class... Args>
std::vector<AnyArray> Program::run(const Exec &exec, const Args &...args) const
{
    if (!exec.get())
        detail::moved_from("Exec");
    return detail::run_any(*this, exec.get(), args...);
}

template <class Out, class... Args>
Out Program::call(const Args &...args) const
{
    detail::out_traits<Out>::check(*this, "accel::Program::call");
    const auto ins = std::make_tuple(detail::input_of(args)...);
    return std::apply(
        [&](const auto &...in) {
            const auto types = detail::arg_types(ctx_.get(), in...);
            return detail::run_typed<Out>(*this, nullptr, types.data(), in...);
        },
        ins);
}

namespace detail {
// The Out an output view (or tuple of views) stands for.
template <class V> struct out_of_view {
    using type = Array<typename V::elem, V::rank>;
};
template <class T, int R> struct out_of_view<Array<T, R>> {
    using type = Array<T, R>;
};
template <class... Vs> struct out_of_view<std::tuple<Vs...>> {
    using type = std::tuple<typename out_of_view<std::decay_t<Vs>>::type...>;
};
} // namespace detail

template <class Outs, class... Args>
void Program::into(const Outs &out, const Args &...args) const
{
    using Out = typename detail::out_of_view<Outs>::type;
    const auto ins = std::make_tuple(detail::input_of(args)...);
    std::apply(
        [&](const auto &...in) {
            const auto types = detail::arg_types(ctx_.get(), in...);
            detail::run_into<Out>(*this, nullptr, types.data(), out, in...);
        },
        ins);
}

} // namespace accel

#endif // ACCEL_RUN_HPP
