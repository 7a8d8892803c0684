# context.jl — Context: an accel context (a backend, its kernel cache, its
# types), and the bookkeeping that lets programs be released before it.
#
# accel requires every program of a context to be freed before the context.
# Julia finalizers run in no particular order, and `close(ctx)` may come
# while programs of the context are alive, so a context counts its children
# (programs, and graphs while a program is built) under its lock, and is
# destroyed when it has been released *and* its last child is gone.  The
# lock is only ever taken from tasks, never from a finalizer.

"""
    Context(; backend=:auto, threads=0, cache_dir=nothing, plugins=nothing,
              deadline=0.0, cuda_device=0, fp_contract=false)
    Context(f; kwargs...)    # do-block form: closes the context after f(ctx)

An accel context: the backend programs run on (`:auto` picks cuda, then cpu,
then the interpreter; `:interp`, `:cpu`, `:cuda` insist), the CPU backend's
worker threads (0 = one per core), the kernel cache folder (`nothing`: accel's
default), the plugins it loads (`nothing`: \$ACC_PLUGINS or the built-in ones;
`"none"`), a deadline in seconds for every run (0 = none), and whether the
CPU backend may fuse `a * b + c` into one multiply-add (`fp_contract`:
faster, not the interpreter's rounding).

`close(ctx)` closes the context's programs, then the context.
"""
mutable struct Context
    @atomic ptr::Ptr{L.acc_context}
    const lock::ReentrantLock
    children::Int                  # live programs and graphs (under lock)
    released::Bool                 # closed or collected (under lock)
    const programs::Vector{WeakRef} # for close(ctx) (under lock)

    function Context(handle::Ptr{L.acc_context})
        ctx = new(handle, ReentrantLock(), 0, false, WeakRef[])
        return finalizer(enqueue_release, ctx)
    end
end

const BACKENDS = (auto=L.ACC_BACKEND_AUTO, interp=L.ACC_BACKEND_INTERP,
                  cpu=L.ACC_BACKEND_CPU, cuda=L.ACC_BACKEND_CUDA)

function backend_code(name::Symbol)
    haskey(BACKENDS, name) ||
        throw(ArgumentError("backend must be one of $(keys(BACKENDS)), not :$name"))
    return BACKENDS[name]
end

backend_symbol(code::Integer) = Symbol(unsafe_string(L.acc_backend_name(code)))

# A C string for an option: NULL for nothing; the caller keeps `s` alive.
cstring_or_null(::Nothing) = Ptr{UInt8}(C_NULL)
cstring_or_null(s::String) = pointer(s)

function Context(; backend::Symbol=:auto, threads::Integer=0, cache_dir=nothing,
                 plugins=nothing, deadline::Real=0.0, cuda_device::Integer=0,
                 fp_contract::Bool=false)
    release_queued()
    dir = cache_dir === nothing ? nothing : String(cache_dir)
    plugin_list = plugins === nothing ? nothing : String(plugins)
    out = Ref{Ptr{L.acc_context}}(C_NULL)
    # accel's defaults, written within this mirror's size (see capi.jl),
    # for the fields not offered here.
    options = Ref{L.acc_context_options}()
    check(L.acc_context_options_init_sized(options, sizeof(L.acc_context_options)))
    d = options[]
    status = GC.@preserve dir plugin_list begin
        options[] = L.acc_context_options(
            d.struct_size, backend_code(backend), threads, cstring_or_null(dir),
            d.fusion_duplicate_max_ops, d.plugin_path, cuda_device, deadline,
            cstring_or_null(plugin_list), d.mpi_comm, d.strict, fp_contract ? 1 : 0)
        L.acc_context_create(options, out)
    end
    check(status)
    return Context(out[])
end

function Context(f::Function; kwargs...)
    ctx = Context(; kwargs...)
    try
        return f(ctx)
    finally
        close(ctx)
    end
end

# The C handle, for a call made now; throws once the context is closed.
function handle(ctx::Context)
    h = @atomic ctx.ptr
    h == C_NULL && throw(closed_error("context"))
    return h
end

# Counts a child (a program or graph being made) and returns the handle to
# make it with; the child must end with child_released!(ctx).
function reserve_child!(ctx::Context)
    lock(ctx.lock) do
        h = @atomic ctx.ptr
        (h == C_NULL || ctx.released) && throw(closed_error("context"))
        ctx.children += 1
        return h
    end
end

function child_released!(ctx::Context)
    lock(ctx.lock) do
        ctx.children -= 1
        ctx.released && ctx.children == 0 && destroy!(ctx)
    end
    return nothing
end

# Remembers a program so that close(ctx) can close it first.
function register_program!(ctx::Context, program)
    lock(ctx.lock) do
        if length(ctx.programs) > 2 * ctx.children + 16
            filter!(w -> w.value !== nothing, ctx.programs)
        end
        push!(ctx.programs, WeakRef(program))
    end
    return nothing
end

function destroy!(ctx::Context)
    h = @atomicswap ctx.ptr = Ptr{L.acc_context}(C_NULL)
    h == C_NULL || L.acc_context_destroy(h)
    return nothing
end

# From close or from the release queue: destroys the context now, or when
# its last child is released.
function release!(ctx::Context)
    lock(ctx.lock) do
        ctx.released = true
        ctx.children == 0 && destroy!(ctx)
    end
    return nothing
end

function Base.close(ctx::Context)
    release_queued()
    live = Any[]
    lock(ctx.lock) do
        for w in ctx.programs
            p = w.value
            p === nothing || push!(live, p)
        end
        empty!(ctx.programs)
    end
    foreach(close, live)
    release!(ctx)
    return nothing
end

Base.isopen(ctx::Context) = (@atomic ctx.ptr) != C_NULL

"""
    backend(ctx::Context) -> Symbol

The backend the context runs programs on (`:interp`, `:cpu` or `:cuda`).
"""
function backend(ctx::Context)
    release_queued()
    out = Ref{Cint}(0)
    check(L.acc_context_backend(handle(ctx), out))
    return backend_symbol(out[])
end

function Base.show(io::IO, ctx::Context)
    if isopen(ctx)
        print(io, "Accel.Context(", backend(ctx), ")")
    else
        print(io, "Accel.Context(closed)")
    end
end
