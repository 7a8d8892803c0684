// accel/function.hpp — Graph, typed functions, and compile().
//
// Graph owns an acc_graph (and keeps its context alive); its inputs are
// Acc/Exp terms and compile() turns result terms into a Program.
// Function<Out(In...)> is a Program whose signature is checked once,
// when it is made, against the C++ signature; its call operator then
// takes exactly the C++ arguments that fit (wrong element types or ranks
// do not compile) and returns Out (Arrays over the library's buffers).
// accel::compile(ctx, f) traces f once: its parameters (Acc<Array<T, R>>
// for array inputs, Exp<T> for scalar inputs) become the program's
// inputs in order, what it returns (an Acc, a std::tuple of Accs, or an
// Exp, made a Scalar) its outputs.
#ifndef ACCEL_FUNCTION_HPP
#define ACCEL_FUNCTION_HPP

#include <accel.h>

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "acc.hpp"
#include "array.hpp"
#include "error.hpp"
#include "exp.hpp"
#include "handles.hpp"
#include "run.hpp"
#include "term.hpp"
#include "trace.hpp"

namespace accel {

namespace detail {

struct GraphStateFree {
    void operator()(GraphState *s) const noexcept
    {
        if (s)
            acc_graph_free(s->g);
        delete s;
    }
};

// What a parameter of a signature is: an array input Array<T, R>, or a
// scalar input T (a rank-0 input whose value the program reads).
template <class In, class = void> struct in_traits {
    static constexpr bool valid = false;
};
template <class T, int R> struct in_traits<Array<T, R>, void> {
    static constexpr bool valid = true;
    using elem = T;
    static constexpr int rank = R;
    using arg = InArg<T, R>;
    using param = Acc<Array<T, R>>;
};
template <class T> struct in_traits<T, std::enable_if_t<is_scalar_v<T>>> {
    static constexpr bool valid = true;
    using elem = T;
    static constexpr int rank = 0;
    using arg = InArg<T, 0>;
    using param = Exp<T>;
};
template <class In> using in_arg_t = typename in_traits<In>::arg;

// The output nodes of a result: an Acc, a std::tuple of Accs, an Exp.
template <class X> void result_nodes(GraphState *gs, const X &x,
                                     std::vector<acc_node *> &out)
{
    if constexpr (is_acc_v<X>) {
        out.push_back(x.node());
    } else if constexpr (is_exp_v<X>) {
        out.push_back(acc_unit(need_graph(gs)->g, x.node()));
    } else if constexpr (is_tuple_v<X>) {
        for_each_index<std::tuple_size_v<X>>([&](auto ic) {
            result_nodes(gs, std::get<decltype(ic)::value>(x), out);
        });
    } else {
        static_assert(always_false<X>,
                      "accel: a program returns Acc terms, a std::tuple of "
                      "them, or an Exp (made a Scalar)");
    }
}

} // namespace detail

// A graph being built: inputs, then terms, then compile.
class Graph {
public:
    explicit Graph(const Context &ctx)
        : ctx_(ctx.shared()), st_(new detail::GraphState)
    {
        st_->ctx = ctx_.get();
        detail::check(acc_graph_create(ctx_.get(), &st_->g));
    }
    Graph(Graph &&) noexcept = default;
    Graph &operator=(Graph &&) noexcept = default;

    acc_graph *get() const noexcept { return st_ ? st_->g : nullptr; }
    detail::GraphState *state() const
    {
        if (!st_)
            detail::moved_from("Graph");
        return st_.get();
    }
    // The first builder error ("" / ACC_OK when none).
    acc_status status() const noexcept { return acc_graph_status(get()); }
    std::string error() const { return acc_graph_last_error(get()); }

    // The next program input (inputs are numbered in creation order).
    template <class A> Acc<A> input()
    {
        using T = typename detail::array_traits<A>::elem;
        constexpr int R = detail::array_traits<A>::rank;
        detail::GraphState *gs = state();
        return Acc<A>(gs, acc_input(gs->g, detail::elem_type<T>(gs->ctx), R));
    }
    // A scalar input: a rank-0 input, read as a value.
    template <class T> Exp<T> scalar_input()
    {
        static_assert(detail::is_scalar_v<T>,
                      "accel: scalar inputs have a scalar type");
        detail::GraphState *gs = state();
        acc_node *in = acc_input(gs->g, detail::elem_type<T>(gs->ctx), 0);
        return Exp<T>(gs, acc_the(gs->g, in));
    }
    template <class In> typename detail::in_traits<In>::param param_input()
    {
        static_assert(detail::in_traits<In>::valid,
                      "accel: a signature's parameters are accel::Array<T, "
                      "R> (array inputs) or scalar types (scalar inputs)");
        if constexpr (detail::is_scalar_v<In>)
            return scalar_input<In>();
        else
            return input<In>();
    }
    template <class T> Exp<T> constant(const T &value)
    {
        detail::GraphState *gs = state();
        return Exp<T>(gs, detail::constant<T>(gs, value));
    }
    // Makes this graph the thread's current one while the scope lives, for
    // constants written on their own (Exp<float> one = 1.0f).
    detail::TraceScope scope() const { return detail::TraceScope(state()); }

    // A program computing the results (Accs, std::tuples of Accs, Exps).
    // The graph's first builder error, if any, is thrown here.
    template <class... Rs> Program compile(const Rs &...results) const
    {
        detail::GraphState *gs = state();
        std::vector<acc_node *> nodes;
        (detail::result_nodes(gs, results, nodes), ...);
        acc_program *p = nullptr;
        detail::check(
            acc_compile(ctx_.get(), gs->g, nodes.size(), nodes.data(), &p));
        return Program(ctx_, p);
    }

private:
    std::shared_ptr<acc_context> ctx_; // destroyed after st_
    std::unique_ptr<detail::GraphState, detail::GraphStateFree> st_;
};

template <class Sig> class Function {
    static_assert(detail::always_false<Sig>,
                  "accel::Function<Sig>: Sig is Out(In...), e.g. "
                  "Scalar<float>(Vector<float>, Vector<float>)");
};

template <class Out, class... Ins> class Function<Out(Ins...)> {
public:
    static_assert((detail::in_traits<Ins>::valid && ...),
                  "accel::Function<Out(In...)>: each In is an "
                  "accel::Array<T, R> or a scalar type");
    using result_type = Out;

    Function() noexcept = default;
    // Checks that `program` has this signature (ACC_ERR_TYPE naming the
    // first difference otherwise); `where` starts the message.
    explicit Function(Program program,
                      const std::string &where = "accel::Function")
        : prog_(std::move(program))
    {
        if (prog_.num_inputs() != sizeof...(Ins))
            detail::fail(ACC_ERR_TYPE,
                         where + ": the program has " +
                             std::to_string(prog_.num_inputs()) +
                             " inputs, the C++ signature " +
                             std::to_string(sizeof...(Ins)));
        detail::for_each_index<sizeof...(Ins)>([&](auto ic) {
            constexpr std::size_t I = decltype(ic)::value;
            using In = detail::in_traits<std::tuple_element_t<I, std::tuple<Ins...>>>;
            const Param p = prog_.input(I);
            detail::check_param<typename In::elem, In::rank>(p, "input", I,
                                                             where);
            types_[I] = p.elem;
        });
        detail::out_traits<Out>::check(prog_, where);
    }

    // Runs the program: arguments of exactly the signature's element types
    // and ranks (std::vector, ArrayView, Array, values for scalar inputs,
    // std::tuples of those for arrays of tuples).  Thread-safe.
    Out operator()(detail::in_arg_t<Ins>... args) const
    {
        return detail::run_typed<Out>(prog_, nullptr, types_.data(), args...);
    }
    // The same through an execution handle (deadline, cancellation).
    Out run(const Exec &exec, detail::in_arg_t<Ins>... args) const
    {
        if (!exec.get())
            detail::moved_from("Exec");
        return detail::run_typed<Out>(prog_, exec.get(), types_.data(),
                                      args...);
    }
    // Writes the results into caller memory: a writable ArrayView (or
    // Array) for one output, a std::tuple of them (std::tie) for several.
    template <class Outs>
    void into(Outs &&out, detail::in_arg_t<Ins>... args) const
    {
        detail::run_into<Out>(prog_, nullptr, types_.data(), out, args...);
    }

    const Program &program() const noexcept { return prog_; }
    explicit operator bool() const noexcept { return bool(prog_); }
    std::string explain(bool json = false) const { return prog_.explain(json); }

private:
    Program prog_;
    std::array<const acc_type *, sizeof...(Ins)> types_{};
};

namespace detail {

// The signature of a callable's parameters and result, when they are
// spelled (not a generic lambda).
template <class M> struct member_sig {
    static constexpr bool known = false;
};
#define ACCEL_MEMBER_SIG(QUALS)                                               \
    template <class C, class R, class... A> struct member_sig<R (C::*)(A...) QUALS> { \
        static constexpr bool known = true;                                   \
        using ret = R;                                                        \
        using args = std::tuple<A...>;                                        \
    };
ACCEL_MEMBER_SIG()
ACCEL_MEMBER_SIG(const)
ACCEL_MEMBER_SIG(noexcept)
ACCEL_MEMBER_SIG(const noexcept)
#undef ACCEL_MEMBER_SIG

template <class F, class = void> struct callable_sig {
    static constexpr bool known = false;
};
template <class F>
struct callable_sig<F, std::void_t<decltype(&F::operator())>>
    : member_sig<decltype(&F::operator())> {};
template <class R, class... A> struct callable_sig<R (*)(A...), void> {
    static constexpr bool known = true;
    using ret = R;
    using args = std::tuple<A...>;
};
template <class R, class... A> struct callable_sig<R(A...), void>
    : callable_sig<R (*)(A...)> {};

template <class P> struct param_sig {
    static_assert(always_false<P>,
                  "accel::compile: the function's parameters are "
                  "Acc<Array<T, R>> (array inputs) or Exp<T> of a scalar T "
                  "(scalar inputs)");
};
template <class T, int R> struct param_sig<Acc<Array<T, R>>> {
    using type = Array<T, R>;
};
template <class T> struct param_sig<Exp<T>> {
    static_assert(is_scalar_v<T>, "accel::compile: a scalar input is an "
                                  "Exp of a scalar type");
    using type = T;
};

template <class X> struct result_sig {
    static_assert(always_false<X>,
                  "accel::compile: the function returns an Acc, a "
                  "std::tuple of Accs, or an Exp (made a Scalar)");
};
template <class T, int R> struct result_sig<Acc<Array<T, R>>> {
    using type = Array<T, R>;
};
template <class T> struct result_sig<Exp<T>> {
    using type = Array<T, 0>;
};
template <class... Xs> struct result_sig<std::tuple<Xs...>> {
    using type = std::tuple<typename result_sig<std::decay_t<Xs>>::type...>;
};

template <class Ret, class Args> struct deduced_sig;
template <class Ret, class... A> struct deduced_sig<Ret, std::tuple<A...>> {
    using type = typename result_sig<std::decay_t<Ret>>::type(
        typename param_sig<std::decay_t<A>>::type...);
};

template <class Sig> struct sig_tag {};

template <class Out, class... Ins, class F>
Function<Out(Ins...)> compile_sig(const Context &ctx, F &f, sig_tag<Out(Ins...)>)
{
    Graph g(ctx);
    // Braces evaluate left to right: the inputs are numbered in order.
    std::tuple<typename in_traits<Ins>::param...> params{
        g.template param_input<Ins>()...};
    TraceScope scope(g.state());
    const auto r = std::apply(f, params);
    using X = std::decay_t<decltype(r)>;
    static_assert(std::is_same_v<typename result_sig<X>::type, Out>,
                  "accel::compile: the function returns another type than "
                  "the signature's result");
    return Function<Out(Ins...)>(g.compile(r), "accel::compile");
}

} // namespace detail

// Traces f once into a program of ctx's backend and returns it as a typed
// function.  The signature comes from f's parameter and result types, or
// from Sig for generic lambdas: compile<Scalar<float>(Vector<float>,
// Vector<float>)>(ctx, [](auto xs, auto ys) { ... }).  Errors the builder
// found are thrown here with accel's message (naming the operation).
template <class Sig = void, class F> auto compile(const Context &ctx, F &&f)
{
    using C = detail::callable_sig<std::decay_t<F>>;
    if constexpr (std::is_void_v<Sig>) {
        static_assert(C::known,
                      "accel::compile: the signature of a generic lambda "
                      "cannot be deduced: give it, compile<Out(In...)>(ctx, "
                      "f), or spell the parameter types");
        using S = typename detail::deduced_sig<typename C::ret,
                                               typename C::args>::type;
        return detail::compile_sig(ctx, f, detail::sig_tag<S>{});
    } else {
        return detail::compile_sig(ctx, f, detail::sig_tag<Sig>{});
    }
}

template <class Sig> Function<Sig> Module::entry(const std::string &name) const
{
    return Function<Sig>(entry(name), "accel: entry \"" + name + "\"");
}

} // namespace accel

#endif // ACCEL_FUNCTION_HPP
