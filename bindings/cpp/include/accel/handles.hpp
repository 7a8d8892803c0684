// accel/handles.hpp — the C handles as C++ values: Context, Program, Exec,
// Module.
//
// Each class owns one handle and frees it in its destructor; the classes
// are move-only, so a handle can never be freed twice, and a moved-from
// object owns nothing (using it throws ACC_ERR_INVALID_HANDLE, destroying
// it does nothing).  The context is held by a shared_ptr inside every
// object made from it (programs, graphs, execution handles, modules), so
// it is destroyed after the last of them whatever order the C++ objects
// die in: a Program keeps working after its Context object is gone.
#ifndef ACCEL_HANDLES_HPP
#define ACCEL_HANDLES_HPP

#include <accel.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "array.hpp"
#include "error.hpp"
#include "types.hpp"

namespace accel {

enum class Backend : int {
    Auto = ACC_BACKEND_AUTO,
    Interp = ACC_BACKEND_INTERP,
    Cpu = ACC_BACKEND_CPU,
    Cuda = ACC_BACKEND_CUDA
};

// "interp", "cpu", "cuda", "auto".
inline const char *backend_name(Backend b) noexcept
{
    return acc_backend_name(static_cast<acc_backend>(b));
}

inline std::string version() { return acc_version_string(); }

// acc_context_options with C++ defaults; empty strings mean "not set".
struct ContextOptions {
    Backend backend = Backend::Auto;
    int threads = 0;                 // cpu worker threads; 0 = cores
    std::string cache_dir;           // kernel cache; "" = the default
    int fusion_duplicate_max_ops = 0;
    std::string plugin_path;         // folders searched first, ':'-separated
    int cuda_device = 0;
    double run_deadline_seconds = 0; // every run's deadline; 0 = none
    std::optional<std::string> plugins; // unset: $ACC_PLUGINS, else built-ins
};

template <class Sig> class Function;
class Module;
class Exec;

namespace detail {

struct ContextFree {
    void operator()(acc_context *c) const noexcept { acc_context_destroy(c); }
};
struct ProgramFree {
    void operator()(acc_program *p) const noexcept { acc_program_free(p); }
};
struct ExecFree {
    void operator()(acc_exec *e) const noexcept { acc_exec_destroy(e); }
};
struct TextFree {
    void operator()(char *s) const noexcept { acc_free(s); }
};
using Text = std::unique_ptr<char, TextFree>;

inline std::string take_text(char *s)
{
    Text owned(s);
    return owned ? std::string(owned.get()) : std::string();
}

} // namespace detail

// A context: a backend, its kernel cache, its plugins and types.
class Context {
public:
    explicit Context(Backend backend = Backend::Auto)
    {
        ContextOptions o;
        o.backend = backend;
        create(o);
    }
    explicit Context(const ContextOptions &options) { create(options); }

    Context(Context &&) noexcept = default;
    Context &operator=(Context &&) noexcept = default;
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;
    ~Context() = default;

    acc_context *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_ != nullptr; }
    // The handle shared with the objects made from this context.
    const std::shared_ptr<acc_context> &shared() const
    {
        if (!h_)
            detail::moved_from("Context");
        return h_;
    }

    // The backend programs run on (never Auto).
    Backend backend() const
    {
        acc_backend b = ACC_BACKEND_AUTO;
        detail::check(acc_context_backend(shared().get(), &b));
        return static_cast<Backend>(b);
    }
    // Whether `b` is available to this context; *reason says why (not).
    bool backend_available(Backend b, std::string *reason = nullptr) const
    {
        int ok = 0;
        const char *why = nullptr;
        detail::check(acc_context_backend_available(
            shared().get(), static_cast<acc_backend>(b), &ok, &why));
        if (reason)
            *reason = why ? why : "";
        return ok != 0;
    }

    // Plugins and plain C functions as foreign implementations.
    void load_plugin(const std::string &path_or_name) const
    {
        detail::check(acc_plugin_load(shared().get(), path_or_name.c_str()));
    }
    // `library` "" is the program itself and the libraries it has loaded.
    void register_c_function(const std::string &name,
                             const std::string &library,
                             const std::string &symbol,
                             const std::string &signature) const
    {
        detail::check(acc_register_c_function(
            shared().get(), name.c_str(),
            library.empty() ? nullptr : library.c_str(), symbol.c_str(),
            signature.c_str()));
    }
    std::string plugin_status() const
    {
        char *text = nullptr;
        detail::check(acc_plugin_status(shared().get(), &text));
        return detail::take_text(text);
    }
    std::string foreign_list() const
    {
        char *text = nullptr;
        detail::check(acc_foreign_list(shared().get(), &text));
        return detail::take_text(text);
    }

    // A text program (LANGUAGE.md §4), parsed now; its entries compile
    // with Module::entry.  Parse errors throw ACC_ERR_PARSE ("3:7: ...").
    Module compile_text(std::string source) const;

private:
    void create(const ContextOptions &o)
    {
        acc_context_options opts;
        acc_context_options_init(&opts);
        opts.backend = static_cast<acc_backend>(o.backend);
        opts.num_threads = o.threads;
        opts.cache_dir = o.cache_dir.empty() ? nullptr : o.cache_dir.c_str();
        opts.fusion_duplicate_max_ops = o.fusion_duplicate_max_ops;
        opts.plugin_path =
            o.plugin_path.empty() ? nullptr : o.plugin_path.c_str();
        opts.cuda_device = o.cuda_device;
        opts.run_deadline_seconds = o.run_deadline_seconds;
        opts.plugins = o.plugins ? o.plugins->c_str() : nullptr;
        acc_context *c = nullptr;
        detail::check(acc_context_create(&opts, &c));
        h_.reset(c, detail::ContextFree{});
    }

    std::shared_ptr<acc_context> h_;
};

// Where and how runs are queued (a CUDA stream, async, a deadline), and
// the handle to cancel a run from another thread.
struct ExecOptions {
    void *stream = nullptr;       // cuda: the CUstream; host backends ignore it
    bool async = false;           // cuda: return once queued; wait() completes
    double deadline_seconds = 0;  // per run; 0 = the context's
};

class Exec {
public:
    explicit Exec(const Context &ctx, const ExecOptions &o = ExecOptions{})
        : ctx_(ctx.shared())
    {
        acc_exec_options opts;
        acc_exec_options_init(&opts);
        opts.stream = o.stream;
        opts.async = o.async ? 1 : 0;
        opts.deadline_seconds = o.deadline_seconds;
        acc_exec *e = nullptr;
        detail::check(acc_exec_create(ctx_.get(), &opts, &e));
        h_.reset(e);
    }
    Exec(Exec &&) noexcept = default;
    Exec &operator=(Exec &&) noexcept = default;

    acc_exec *get() const noexcept { return h_.get(); }
    // Asks the run in progress (or the next one) to stop: it throws
    // accel::Error with ACC_ERR_CANCELLED.  Any thread may call it.
    void cancel() const
    {
        if (!h_)
            detail::moved_from("Exec");
        detail::check(acc_exec_cancel(h_.get()));
    }
    // Waits for what was queued; throws the first failure.
    void wait() const
    {
        if (!h_)
            detail::moved_from("Exec");
        detail::check(acc_exec_wait(h_.get()));
    }

private:
    std::shared_ptr<acc_context> ctx_; // destroyed after h_
    std::unique_ptr<acc_exec, detail::ExecFree> h_;
};

// One input or output of a program's signature.
struct Param {
    const acc_type *elem = nullptr; // owned by the program
    int rank = 0;
    // "Array 1 f32".
    std::string type_name() const
    {
        return "Array " + std::to_string(rank) + " " + detail::type_name(elem);
    }
};

namespace detail {
template <class Out> struct out_traits;
}

// A compiled program whose signature is known at run time.  Calls check
// their arguments' element types and ranks through accel (its messages),
// and return the results as AnyArray (or as the types call<Out> names).
// Running is thread-safe: several threads may call one Program at once.
class Program {
public:
    Program() noexcept = default;
    // Takes ownership of `p`, a program of context `ctx`.
    Program(std::shared_ptr<acc_context> ctx, acc_program *p) noexcept
        : ctx_(std::move(ctx)), p_(p) {}
    Program(Program &&) noexcept = default;
    Program &operator=(Program &&) noexcept = default;
    Program(const Program &) = delete;
    Program &operator=(const Program &) = delete;
    ~Program() = default;

    acc_program *get() const noexcept { return p_.get(); }
    explicit operator bool() const noexcept { return p_ != nullptr; }
    acc_program *handle() const
    {
        if (!p_)
            detail::moved_from("Program");
        return p_.get();
    }
    const std::shared_ptr<acc_context> &context() const noexcept
    {
        return ctx_;
    }

    std::size_t num_inputs() const noexcept
    {
        return acc_program_num_inputs(p_.get());
    }
    std::size_t num_outputs() const noexcept
    {
        return acc_program_num_outputs(p_.get());
    }
    Param input(std::size_t i) const
    {
        Param p;
        std::int32_t rank = 0;
        detail::check(acc_program_input(handle(), i, &p.elem, &rank));
        p.rank = rank;
        return p;
    }
    Param output(std::size_t i) const
    {
        Param p;
        std::int32_t rank = 0;
        detail::check(acc_program_output(handle(), i, &p.elem, &rank));
        p.rank = rank;
        return p;
    }
    Backend backend() const noexcept
    {
        return static_cast<Backend>(acc_program_backend(p_.get()));
    }
    // acc_program_signature_json: inputs and outputs as JSON.
    std::string signature_json() const
    {
        char *text = nullptr;
        detail::check(acc_program_signature_json(handle(), &text));
        return detail::take_text(text);
    }
    // The plan (kernels, fusion, foreign choices) as text or JSON.
    std::string explain(bool json = false) const
    {
        char *text = nullptr;
        detail::check(acc_program_explain(handle(), json ? 1 : 0, &text));
        return detail::take_text(text);
    }
    acc_plan_summary plan() const
    {
        acc_plan_summary s{};
        s.struct_size = sizeof s;
        detail::check(acc_program_plan(handle(), &s));
        return s;
    }
    acc_run_stats last_run() const
    {
        acc_run_stats s{};
        s.struct_size = sizeof s;
        detail::check(acc_program_last_run(handle(), &s));
        return s;
    }

    // Runs the program on arguments of any accepted kind (std::vector,
    // ArrayView, Array, scalar values for rank-0 inputs, std::tuple of
    // those for arrays of tuples); one AnyArray per output.
    template <class... Args>
    std::vector<AnyArray> operator()(const Args &...args) const;
    // The same through an execution handle (deadline, cancellation).
    template <class... Args>
    std::vector<AnyArray> run(const Exec &exec, const Args &...args) const;
    // The results as Out: an Array<T, R>, or a std::tuple of them for
    // several outputs; a program of another signature throws ACC_ERR_TYPE
    // before running.
    template <class Out, class... Args> Out call(const Args &...args) const;
    // Writes the results into caller memory: `out` is an ArrayView (or an
    // Array) for one output, a std::tuple of them for several; their
    // extents must equal the results' (ACC_ERR_SHAPE otherwise).
    template <class Outs, class... Args>
    void into(const Outs &out, const Args &...args) const;

private:
    std::shared_ptr<acc_context> ctx_; // destroyed after p_
    std::unique_ptr<acc_program, detail::ProgramFree> p_;
};

// A parsed text program; each entry point compiles to a Program (or, with
// its signature spelled in C++, to a typed Function).
class Module {
public:
    Module(std::shared_ptr<acc_context> ctx, std::string source)
        : ctx_(std::move(ctx)), src_(std::move(source))
    {
        char *json = nullptr; // parses and elaborates every entry
        detail::check(
            acc_parse_entries_json(src_.data(), src_.size(), &json));
        json_ = detail::take_text(json);
    }

    const std::string &source() const noexcept { return src_; }
    // acc_parse_entries_json: every entry with its signature.
    const std::string &signatures_json() const noexcept { return json_; }
    // The names of the entry points, in source order.
    std::vector<std::string> entries() const
    {
        char *names = nullptr;
        detail::check(acc_parse_entries(src_.data(), src_.size(), &names));
        const std::string all = detail::take_text(names);
        std::vector<std::string> out;
        std::size_t at = 0;
        while (at < all.size()) {
            std::size_t nl = all.find('\n', at);
            if (nl == std::string::npos)
                nl = all.size();
            out.push_back(all.substr(at, nl - at));
            at = nl + 1;
        }
        return out;
    }
    // Compiles entry `name` (ACC_ERR_NOT_FOUND names the entries there are).
    Program entry(const std::string &name) const
    {
        acc_program *p = nullptr;
        detail::check(acc_compile_text(ctx_.get(), src_.data(), src_.size(),
                                       name.c_str(), &p));
        return Program(ctx_, p);
    }
    // Compiles entry `name` as a typed function; a program whose
    // signature differs from Sig throws ACC_ERR_TYPE naming the first
    // difference.  auto f = m.entry<Scalar<float>(Vector<float>,
    // Vector<float>)>("dotp");
    template <class Sig> Function<Sig> entry(const std::string &name) const;

private:
    std::shared_ptr<acc_context> ctx_;
    std::string src_;
    std::string json_;
};

inline Module Context::compile_text(std::string source) const
{
    return Module(shared(), std::move(source));
}

} // namespace accel

#endif // ACCEL_HANDLES_HPP
