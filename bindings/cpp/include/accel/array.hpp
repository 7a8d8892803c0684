// accel/array.hpp — host arrays: ArrayView (borrowed) and Array (owning).
//
// Both are row-major with int64 extents, outermost first, and store an
// array of tuples as one buffer per scalar leaf (accel's "struct of
// arrays"), exactly as acc_array describes them, so a view or an array
// becomes a descriptor without copying.  An Array owns its buffers: either
// memory it allocated itself or the buffers of a library-allocated result
// of acc_run, which it releases with acc_array_release (zero-copy results,
// valid after the program and the context are gone).  AnyArray is a
// result whose type is known only at run time (Program calls).
#ifndef ACCEL_ARRAY_HPP
#define ACCEL_ARRAY_HPP

#include <accel.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "error.hpp"
#include "types.hpp"

namespace accel {

template <class T, int R> class ArrayView;

namespace detail {

template <int R> using extents_t = std::array<std::int64_t, std::size_t(R)>;

// Leaf position of field I of tuple type T (leaves of the fields before).
template <class T, std::size_t I> struct leaf_offset_of {
    static constexpr std::size_t value =
        leaf_offset_of<T, I - 1>::value +
        leaf_count_v<std::tuple_element_t<I - 1, T>>;
};
template <class T> struct leaf_offset_of<T, 0> {
    static constexpr std::size_t value = 0;
};
template <class T, std::size_t I> constexpr std::size_t leaf_offset()
{
    return leaf_offset_of<T, I>::value;
}

// Reads element k of an array whose leaf buffers are `leaves`.
template <class T> host_t<T> read_elem(void *const *leaves, std::int64_t k);
template <class T, std::size_t... I>
host_t<T> read_fields(void *const *leaves, std::int64_t k,
                      std::index_sequence<I...>)
{
    return host_t<T>{read_elem<std::tuple_element_t<I, T>>(
        leaves + leaf_offset<T, I>(), k)...};
}
template <class T> host_t<T> read_elem(void *const *leaves, std::int64_t k)
{
    if constexpr (is_scalar_v<T>) {
        return static_cast<const T *>(leaves[0])[k];
    } else if constexpr (is_index_v<T>) {
        host_t<T> v{};
        for (std::size_t i = 0; i < v.size(); i++)
            v[i] = static_cast<const std::int64_t *>(leaves[i])[k];
        return v;
    } else {
        return read_fields<T>(
            leaves, k, std::make_index_sequence<std::tuple_size_v<T>>{});
    }
}

// Writes element k.
template <class T>
void write_elem(void *const *leaves, std::int64_t k, const host_t<T> &v)
{
    if constexpr (is_scalar_v<T>) {
        static_cast<T *>(leaves[0])[k] = v;
    } else if constexpr (is_index_v<T>) {
        for (std::size_t i = 0; i < v.size(); i++)
            static_cast<std::int64_t *>(leaves[i])[k] = v[i];
    } else {
        for_each_index<std::tuple_size_v<T>>([&](auto ic) {
            constexpr std::size_t I = decltype(ic)::value;
            write_elem<std::tuple_element_t<I, T>>(
                leaves + leaf_offset<T, I>(), k, std::get<I>(v));
        });
    }
}

// Row-major position of an index; no bounds checks (as operator[]).
template <std::size_t R, class... I>
std::int64_t linear_index(const std::array<std::int64_t, R> &shape,
                          I... idx) noexcept
{
    static_assert(sizeof...(I) == R, "accel: one index per dimension");
    const std::int64_t ix[] = {0, static_cast<std::int64_t>(idx)...};
    std::int64_t k = 0;
    for (std::size_t d = 0; d < R; d++)
        k = k * shape[d] + ix[d + 1];
    return k;
}

// Whether an acc_type is element type T (structurally; no context needed).
template <class T> bool matches(const acc_type *t) noexcept
{
    if (!t)
        return false;
    if constexpr (is_scalar_v<T>) {
        return acc_type_get_kind(t) == ACC_TYPE_SCALAR &&
               acc_type_get_scalar(t) == scalar_code<T>();
    } else if constexpr (is_index_v<T>) {
        return acc_type_get_kind(t) == ACC_TYPE_SHAPE &&
               acc_type_get_rank(t) == static_cast<std::int32_t>(leaf_count_v<T>);
    } else {
        if (acc_type_get_kind(t) != ACC_TYPE_TUPLE ||
            acc_type_get_arity(t) != std::tuple_size_v<T>)
            return false;
        bool ok = true;
        for_each_index<std::tuple_size_v<T>>([&](auto ic) {
            constexpr std::size_t I = decltype(ic)::value;
            ok = ok && matches<std::tuple_element_t<I, T>>(
                           acc_type_get_field(t, I));
        });
        return ok;
    }
}

// Who owns an Array's buffers.
struct Storage {
    virtual ~Storage() = default;
};

// Buffers the binding allocated (zero-filled).
struct HostStorage final : Storage {
    std::vector<std::unique_ptr<unsigned char[]>> buffers;
};

// A library-allocated result of acc_run, released with acc_array_release
// (which may happen after the program and the context are gone).
struct LibraryStorage final : Storage {
    acc_array array;
    explicit LibraryStorage(const acc_array &a) noexcept : array(a) {}
    ~LibraryStorage() override { acc_array_release(&array); }
    LibraryStorage(const LibraryStorage &) = delete;
    LibraryStorage &operator=(const LibraryStorage &) = delete;
};

template <class T, int R> struct ArrayAccess;

} // namespace detail

// A borrowed array: buffers (one per leaf of T) and extents, no ownership.
// T may be const (ArrayView<const float, 1>): a read-only view, accepted
// as an input and refused as an output.  Element access does no bounds
// checks, like std::vector::operator[].
template <class T, int R> class ArrayView {
public:
    using elem = std::remove_const_t<T>;
    static_assert(detail::is_elem_v<elem>,
                  "accel::ArrayView<T, R>: T must be an element type "
                  "(scalar, std::tuple, accel::Index)");
    static_assert(R >= 0 && R <= ACC_MAX_RANK,
                  "accel::ArrayView<T, R>: the rank is 0 to 8");
    static constexpr int rank = R;
    static constexpr std::size_t leaves = detail::leaf_count_v<elem>;
    using extents_type = detail::extents_t<R>;
    using pointers_type = std::array<void *, leaves>;

    ArrayView() noexcept : shape_{}, ptrs_{} {}

    // Buffers and extents as they are (for tuple elements: one buffer per
    // leaf, depth first).
    ArrayView(const pointers_type &leaf_buffers,
              const extents_type &shape) noexcept
        : shape_(shape), ptrs_(leaf_buffers) {}

    // A scalar array at `data` with the given extents.
    template <class U = elem,
              std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    ArrayView(T *data, const extents_type &shape) noexcept
        : shape_(shape),
          ptrs_{{const_cast<void *>(static_cast<const void *>(data))}} {}

    // A vector of n elements at `data`.
    template <class U = elem,
              std::enable_if_t<detail::is_scalar_v<U> && R == 1, int> = 0>
    ArrayView(T *data, std::int64_t n) noexcept
        : ArrayView(data, extents_type{{n}}) {}

    // A writable view is also a read-only one.
    template <class U,
              std::enable_if_t<std::is_const_v<T> &&
                                   std::is_same_v<const U, T>,
                               int> = 0>
    ArrayView(const ArrayView<U, R> &v) noexcept
        : shape_(v.shape()), ptrs_(v.leaf_pointers()) {}

    // An array of tuples from views of its fields (std::tuple of views, or
    // of anything that converts to them, such as Arrays); the fields must
    // have equal extents (ACC_ERR_SHAPE otherwise).
    template <class... Vs, class U = elem,
              std::enable_if_t<detail::is_tuple_v<U> &&
                                   sizeof...(Vs) == std::tuple_size_v<U>,
                               int> = 0>
    ArrayView(const std::tuple<Vs...> &fields) : shape_{}, ptrs_{}
    {
        detail::for_each_index<sizeof...(Vs)>([&](auto ic) {
            set_field<decltype(ic)::value>(std::get<decltype(ic)::value>(fields));
        });
    }

    const extents_type &shape() const noexcept { return shape_; }
    std::int64_t extent(int d) const { return shape_.at(std::size_t(d)); }
    // Number of elements (1 for a Scalar).
    std::int64_t size() const noexcept { return detail::shape_size(shape_); }
    bool empty() const noexcept { return size() == 0; }
    void *leaf(std::size_t i) const { return ptrs_.at(i); }
    const pointers_type &leaf_pointers() const noexcept { return ptrs_; }

    // The buffer of a scalar array.
    template <class U = elem,
              std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    T *data() const noexcept
    {
        return static_cast<T *>(ptrs_[0]);
    }
    template <class U = elem,
              std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    T *begin() const noexcept
    {
        return data();
    }
    template <class U = elem,
              std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    T *end() const noexcept
    {
        return data() + size();
    }

    // Element at row-major position k: a reference for scalars, a value
    // (std::tuple, std::array for indices) otherwise.
    decltype(auto) operator[](std::int64_t k) const
    {
        if constexpr (detail::is_scalar_v<elem>)
            return static_cast<T *>(ptrs_[0])[k];
        else
            return detail::read_elem<elem>(ptrs_.data(), k);
    }
    // Element at an index (one per dimension, outermost first).
    template <class... I> decltype(auto) operator()(I... idx) const
    {
        return (*this)[detail::linear_index(shape_, idx...)];
    }

    // Field I of an array of tuples, as a view (const if this view is).
    template <std::size_t I> auto get() const noexcept
    {
        static_assert(detail::is_tuple_v<elem>,
                      "accel: get<I> takes a field of an array of tuples");
        using F = std::tuple_element_t<I, elem>;
        using V = std::conditional_t<std::is_const_v<T>, const F, F>;
        typename ArrayView<V, R>::pointers_type p{};
        for (std::size_t i = 0; i < p.size(); i++)
            p[i] = ptrs_[detail::leaf_offset<elem, I>() + i];
        return ArrayView<V, R>(p, shape_);
    }

private:
    template <std::size_t I, class V> void set_field(const V &v)
    {
        using F = std::tuple_element_t<I, elem>;
        using FV = std::conditional_t<std::is_const_v<T>, const F, F>;
        const ArrayView<FV, R> field(v);
        if (I == 0)
            shape_ = field.shape();
        else if (field.shape() != shape_)
            detail::fail(ACC_ERR_SHAPE,
                         "accel::ArrayView: field " + std::to_string(I) +
                             " of the tuple has other extents than field 0 "
                             "(the fields of an array of tuples have equal "
                             "extents)");
        for (std::size_t i = 0; i < ArrayView<FV, R>::leaves; i++)
            ptrs_[detail::leaf_offset<elem, I>() + i] = field.leaf(i);
    }

    extents_type shape_;
    pointers_type ptrs_;
};

// Views of user memory: view(ptr, {rows, cols}), view(vector),
// view(vector, {rows, cols}) (the vector must hold exactly that many).
template <class T, std::size_t N>
ArrayView<T, int(N)> view(T *data, const std::int64_t (&extents)[N]) noexcept
{
    detail::extents_t<int(N)> shape{};
    for (std::size_t i = 0; i < N; i++)
        shape[i] = extents[i];
    return ArrayView<T, int(N)>(data, shape);
}
template <class T> ArrayView<T, 0> view(T *data) noexcept
{
    return ArrayView<T, 0>(data, detail::extents_t<0>{});
}
template <class T> ArrayView<T, 1> view(std::vector<T> &v) noexcept
{
    return ArrayView<T, 1>(v.data(), static_cast<std::int64_t>(v.size()));
}
template <class T> ArrayView<const T, 1> view(const std::vector<T> &v) noexcept
{
    return ArrayView<const T, 1>(v.data(),
                                 static_cast<std::int64_t>(v.size()));
}
template <class V, std::size_t N>
auto view(V &v, const std::int64_t (&extents)[N])
    -> ArrayView<std::remove_pointer_t<decltype(v.data())>, int(N)>
{
    auto w = view(v.data(), extents);
    if (w.size() != static_cast<std::int64_t>(v.size()))
        detail::fail(ACC_ERR_SHAPE,
                     "accel::view: the extents hold " +
                         std::to_string(w.size()) + " elements, the container " +
                         std::to_string(v.size()));
    return w;
}

// An owning host array.  Copies are deep; moves are cheap.  A default
// Array has extents 0 (one zero element for a Scalar).
template <class T, int R> class Array {
public:
    static_assert(detail::is_elem_v<T> && !std::is_const_v<T>,
                  "accel::Array<T, R>: T must be an element type (scalar, "
                  "std::tuple, accel::Index)");
    static_assert(R >= 0 && R <= ACC_MAX_RANK,
                  "accel::Array<T, R>: the rank is 0 to 8");
    using elem = T;
    static constexpr int rank = R;
    static constexpr std::size_t leaves = detail::leaf_count_v<T>;
    using extents_type = detail::extents_t<R>;
    using value_type = detail::host_t<T>;

    Array() : Array(extents_type{}) {}

    // Zero-filled, of the given extents.
    explicit Array(const extents_type &shape) : shape_(shape), ptrs_{}
    {
        const std::int64_t n = detail::shape_size(shape);
        if (n < 0)
            detail::fail(ACC_ERR_SHAPE,
                         "accel::Array: negative extent, or the number of "
                         "elements overflows int64");
        auto own = std::make_unique<detail::HostStorage>();
        const auto codes = detail::leaf_codes<T>();
        for (std::size_t i = 0; i < leaves; i++) {
            const std::size_t bytes =
                static_cast<std::size_t>(n) * acc_scalar_size(codes[i]);
            // One byte at least: a non-NULL buffer marks a provided output.
            own->buffers.emplace_back(new unsigned char[bytes ? bytes : 1]());
            ptrs_[i] = own->buffers.back().get();
        }
        own_ = std::move(own);
    }

    // The given extents holding `values` in row-major order.
    Array(const extents_type &shape, const std::vector<value_type> &values)
        : Array(shape)
    {
        if (static_cast<std::int64_t>(values.size()) != size())
            detail::fail(ACC_ERR_SHAPE,
                         "accel::Array: " + std::to_string(values.size()) +
                             " values for " + std::to_string(size()) +
                             " elements");
        for (std::size_t k = 0; k < values.size(); k++)
            detail::write_elem<T>(ptrs_.data(), std::int64_t(k), values[k]);
    }

    // A vector holding `values`.
    template <int Q = R, std::enable_if_t<Q == 1, int> = 0>
    explicit Array(const std::vector<value_type> &values)
        : Array(extents_type{{std::int64_t(values.size())}}, values) {}

    // A copy of the elements a view shows.
    template <class V, std::enable_if_t<std::is_same_v<std::remove_const_t<V>,
                                                       T>, int> = 0>
    explicit Array(const ArrayView<V, R> &v) : Array(v.shape())
    {
        copy_from(v.leaf_pointers());
    }

    Array(const Array &other) : Array(other.shape_)
    {
        copy_from(other.ptrs_);
    }
    Array &operator=(const Array &other)
    {
        if (this != &other)
            *this = Array(other);
        return *this;
    }
    Array(Array &&other) noexcept
        : shape_(other.shape_), ptrs_(other.ptrs_),
          own_(std::move(other.own_))
    {
        other.shape_ = {};
        other.ptrs_ = {};
    }
    Array &operator=(Array &&other) noexcept
    {
        if (this != &other) {
            shape_ = other.shape_;
            ptrs_ = other.ptrs_;
            own_ = std::move(other.own_);
            other.shape_ = {};
            other.ptrs_ = {};
        }
        return *this;
    }
    ~Array() = default;

    const extents_type &shape() const noexcept { return shape_; }
    std::int64_t extent(int d) const { return shape_.at(std::size_t(d)); }
    std::int64_t size() const noexcept { return detail::shape_size(shape_); }
    bool empty() const noexcept { return size() == 0; }
    void *leaf(std::size_t i) const { return ptrs_.at(i); }

    ArrayView<T, R> view() & noexcept { return ArrayView<T, R>(ptrs_, shape_); }
    ArrayView<const T, R> view() const & noexcept
    {
        return ArrayView<const T, R>(ptrs_, shape_);
    }
    operator ArrayView<T, R>() & noexcept { return view(); }
    operator ArrayView<const T, R>() const & noexcept { return view(); }

    template <class U = T, std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    T *data() noexcept
    {
        return static_cast<T *>(ptrs_[0]);
    }
    template <class U = T, std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    const T *data() const noexcept
    {
        return static_cast<const T *>(ptrs_[0]);
    }
    template <class U = T, std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    T *begin() noexcept
    {
        return data();
    }
    template <class U = T, std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    T *end() noexcept
    {
        return data() + size();
    }
    template <class U = T, std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    const T *begin() const noexcept
    {
        return data();
    }
    template <class U = T, std::enable_if_t<detail::is_scalar_v<U>, int> = 0>
    const T *end() const noexcept
    {
        return data() + size();
    }

    decltype(auto) operator[](std::int64_t k) { return view()[k]; }
    decltype(auto) operator[](std::int64_t k) const { return view()[k]; }
    template <class... I> decltype(auto) operator()(I... idx)
    {
        return view()(idx...);
    }
    template <class... I> decltype(auto) operator()(I... idx) const
    {
        return view()(idx...);
    }

    // Field I of an array of tuples (a view into this array).
    // (Not ref-qualified, so that structured bindings, which call get on
    // an xvalue, give writable views.)
    template <std::size_t I> auto get() noexcept
    {
        return ArrayView<T, R>(ptrs_, shape_).template get<I>();
    }
    template <std::size_t I> auto get() const noexcept
    {
        return ArrayView<const T, R>(ptrs_, shape_).template get<I>();
    }

    // The elements in row-major order.
    std::vector<value_type> to_vector() const
    {
        std::vector<value_type> v;
        v.reserve(static_cast<std::size_t>(size()));
        for (std::int64_t k = 0; k < size(); k++)
            v.push_back(detail::read_elem<T>(ptrs_.data(), k));
        return v;
    }

    // The one element of a Scalar; a Scalar<float> converts to float.
    template <int Q = R, std::enable_if_t<Q == 0, int> = 0>
    value_type value() const
    {
        return detail::read_elem<T>(ptrs_.data(), 0);
    }
    template <int Q = R, std::enable_if_t<Q == 0, int> = 0>
    operator value_type() const
    {
        return value();
    }

private:
    friend struct detail::ArrayAccess<T, R>;
    Array(const extents_type &shape, const std::array<void *, leaves> &ptrs,
          std::unique_ptr<detail::Storage> own) noexcept
        : shape_(shape), ptrs_(ptrs), own_(std::move(own)) {}

    void copy_from(const std::array<void *, leaves> &src)
    {
        const auto codes = detail::leaf_codes<T>();
        for (std::size_t i = 0; i < leaves; i++)
            if (size() > 0)
                std::memcpy(ptrs_[i], src[i],
                            static_cast<std::size_t>(size()) *
                                acc_scalar_size(codes[i]));
    }

    extents_type shape_;
    std::array<void *, leaves> ptrs_;
    std::unique_ptr<detail::Storage> own_;
};

// Structured bindings of an array of tuples: auto [call, put] = result;
template <std::size_t I, class T, int R> auto get(Array<T, R> &a) noexcept
{
    return a.template get<I>();
}
template <std::size_t I, class T, int R>
auto get(const Array<T, R> &a) noexcept
{
    return a.template get<I>();
}
template <std::size_t I, class T, int R>
auto get(const ArrayView<T, R> &v) noexcept
{
    return v.template get<I>();
}

namespace detail {

// Builds an Array around a library-allocated acc_run result (zero-copy).
template <class T, int R> struct ArrayAccess {
    // `a` must be of element type T and rank R (checked by the caller).
    static Array<T, R> adopt(const acc_array &a)
    {
        auto own = std::make_unique<LibraryStorage>(a);
        extents_t<R> shape{};
        std::array<void *, leaf_count_v<T>> ptrs{};
        for (std::size_t d = 0; d < shape.size(); d++)
            shape[d] = a.extents[d];
        for (std::size_t i = 0; i < ptrs.size(); i++)
            ptrs[i] = a.data[i];
        return Array<T, R>(shape, ptrs, std::move(own));
    }
};

} // namespace detail

// A library-allocated result whose element type and rank are known only
// at run time (Program calls).  as<Array<T, R>>() hands it over, without
// copying, to an Array of that type, or throws ACC_ERR_TYPE.
class AnyArray {
public:
    AnyArray() noexcept = default;
    // Takes over a library-owned descriptor (releases it when destroyed).
    explicit AnyArray(const acc_array &a)
        : own_(std::make_unique<detail::LibraryStorage>(a)) {}

    bool has_value() const noexcept { return own_ != nullptr; }
    const acc_type *type() const noexcept
    {
        return own_ ? own_->array.type : nullptr;
    }
    int rank() const noexcept { return own_ ? own_->array.rank : 0; }
    std::int64_t extent(int d) const
    {
        if (d < 0 || d >= rank())
            detail::fail(ACC_ERR_INVALID_ARGUMENT,
                         "accel::AnyArray::extent: no dimension " +
                             std::to_string(d));
        return own_->array.extents[d];
    }
    std::int64_t size() const noexcept
    {
        return own_ ? acc_array_size(&own_->array) : 0;
    }
    // "Array 1 f32".
    std::string type_name() const
    {
        return "Array " + std::to_string(rank()) + " " +
               detail::type_name(type());
    }
    const acc_array &descriptor() const
    {
        if (!own_)
            detail::moved_from("AnyArray");
        return own_->array;
    }

    template <class A> bool is() const noexcept
    {
        return own_ && A::rank == rank() &&
               detail::matches<typename A::elem>(type());
    }

    template <class A> A as() &&
    {
        using T = typename A::elem;
        static_assert(std::is_same_v<A, Array<T, A::rank>>,
                      "accel::AnyArray::as<A>: A is an accel::Array<T, R>");
        if (!own_)
            detail::moved_from("AnyArray");
        if (!is<A>())
            detail::fail(ACC_ERR_TYPE,
                         "accel: the result is " + type_name() +
                             ", not the requested " +
                             detail::array_name<T, A::rank>());
        A a = detail::ArrayAccess<T, A::rank>::adopt(own_->array);
        own_->array.ownership = ACC_OWNERSHIP_BORROWED; // a owns it now
        own_.reset();
        return a;
    }

private:
    std::unique_ptr<detail::LibraryStorage> own_;
};

} // namespace accel

// Structured bindings: auto [a, b] = array_of_pairs;
namespace std {
template <class... Ts, int R>
struct tuple_size<accel::Array<std::tuple<Ts...>, R>>
    : std::integral_constant<std::size_t, sizeof...(Ts)> {};
template <std::size_t I, class... Ts, int R>
struct tuple_element<I, accel::Array<std::tuple<Ts...>, R>> {
    using type =
        accel::ArrayView<std::tuple_element_t<I, std::tuple<Ts...>>, R>;
};
template <std::size_t I, class... Ts, int R>
struct tuple_element<I, const accel::Array<std::tuple<Ts...>, R>> {
    using type = const accel::ArrayView<
        const std::tuple_element_t<I, std::tuple<Ts...>>, R>;
};
} // namespace std

#endif // ACCEL_ARRAY_HPP
