# program.jl — Program: a compiled accel program, called like a function.

# One input or output of a program: its element type (owned by the
# program), rank and type tree.
struct Port
    elem::Ptr{L.acc_type}
    rank::Int
    tree::Any
end

"""
    Program(ctx, source, entry=nothing)
    Program(f, ctx, source, entry=nothing)   # do-block form: closes it after f(p)

Compiles the entry point `entry` of the text program `source` (accel's
language, LANGUAGE.md §4) for the context's backend; `nothing` picks the
only entry point.  Call the program with one argument per parameter:

    p = Program(ctx, "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 = " *
                     "fold (+) 0 (zipWith (*) xs ys)")
    p(Float32[1, 2, 3], Float32[4, 5, 6])[]    # 32.0f0

An argument is an `Array` of the parameter's element type and rank (no
conversion, no copy; a `Vector` for a `Vector`, a `Matrix` for a `Matrix`,
seen by the program with its dimensions reversed: see the README), a number
for a scalar parameter, and for a tuple element type a tuple of arrays, one
per component.  The result is one array (a 0-dimensional array for a
`Scalar`: use `r[]`), or a tuple of them when the program returns several;
an array of tuples comes back as a tuple of arrays.
"""
mutable struct Program
    @atomic ptr::Ptr{L.acc_program}
    const ctx::Context
    const entry::String
    const inputs::Vector{Port}
    const outputs::Vector{Port}

    function Program(ctx::Context, handle::Ptr{L.acc_program}, entry::String,
                     inputs::Vector{Port}, outputs::Vector{Port})
        p = new(handle, ctx, entry, inputs, outputs)
        finalizer(enqueue_release, p)
        register_program!(ctx, p)
        return p
    end
end

# A Program owning `handle`, which counts as a child of ctx (reserve_child!);
# on failure the handle is freed and the child released.
function new_program(ctx::Context, handle::Ptr{L.acc_program}, entry::String)
    local inputs, outputs
    try
        inputs, outputs = ports(handle, true), ports(handle, false)
    catch
        L.acc_program_free(handle)
        child_released!(ctx)
        rethrow()
    end
    return Program(ctx, handle, entry, inputs, outputs)
end

function ports(h::Ptr{L.acc_program}, inputs::Bool)
    n = inputs ? L.acc_program_num_inputs(h) : L.acc_program_num_outputs(h)
    result = Port[]
    for i in 0:Int(n)-1
        elem = Ref{Ptr{L.acc_type}}(C_NULL)
        rank = Ref{Int32}(0)
        check(inputs ? L.acc_program_input(h, i, elem, rank) :
                       L.acc_program_output(h, i, elem, rank))
        push!(result, Port(elem[], Int(rank[]), type_tree(elem[])))
    end
    return result
end

function Program(ctx::Context, source::AbstractString,
                 entry::Union{Nothing,AbstractString}=nothing)
    release_queued()
    text = String(source)
    name = entry === nothing ? nothing : String(entry)
    h = reserve_child!(ctx)
    out = Ref{Ptr{L.acc_program}}(C_NULL)
    status = GC.@preserve text name begin
        L.acc_compile_text(h, text, sizeof(text), cstring_or_null(name), out)
    end
    if status != L.ACC_OK
        err = AccelError(status)
        child_released!(ctx)
        throw(err)
    end
    return new_program(ctx, out[], name === nothing ? "" : name)
end

function Program(f::Function, ctx::Context, source::AbstractString,
                 entry::Union{Nothing,AbstractString}=nothing)
    p = Program(ctx, source, entry)
    try
        return f(p)
    finally
        close(p)
    end
end

function handle(p::Program)
    h = @atomic p.ptr
    h == C_NULL && throw(closed_error("program"))
    return h
end

function release!(p::Program)
    h = @atomicswap p.ptr = Ptr{L.acc_program}(C_NULL)
    if h != C_NULL
        L.acc_program_free(h)
        child_released!(p.ctx)
    end
    return nothing
end

"""
    close(p::Program)

Frees the compiled program now (it must not be running).  Calling it after
that throws an `AccelError` (`ACC_ERR_INVALID_HANDLE`).
"""
function Base.close(p::Program)
    release!(p)
    release_queued()
    return nothing
end

Base.isopen(p::Program) = (@atomic p.ptr) != C_NULL

function (p::Program)(args...)
    outputs = run_descriptors(p, args)
    results = ntuple(k -> wrap_output(outputs[k], p.outputs[k].tree), length(outputs))
    return length(results) == 1 ? results[1] : results
end

# Runs p on Julia arguments; returns the output descriptors, library-owned:
# the caller must wrap or release every one of them.
function run_descriptors(p::Program, args)
    release_queued()
    h = handle(p)
    n_in, n_out = length(p.inputs), length(p.outputs)
    length(args) == n_in ||
        throw(ArgumentError("the program takes $n_in argument(s), $(length(args)) given"))
    roots = Any[]
    inputs = Vector{L.acc_array}(undef, n_in)
    for (i, (port, x)) in enumerate(zip(p.inputs, args))
        what = "argument $i"
        leaves = argument_leaves!(Any[], port.tree, port.rank, x, what)
        inputs[i] = descriptor(port.elem, port.rank, leaves, common_size(leaves, what))
        append!(roots, leaves)
    end
    outputs = [empty_descriptor() for _ in 1:n_out]
    status = GC.@preserve roots inputs outputs begin
        L.acc_run(h, n_in, inputs, n_out, outputs)
    end
    check(status)
    return outputs
end

"""
    backend(p::Program) -> Symbol

The backend the program runs on.
"""
backend(p::Program) = backend_symbol(L.acc_program_backend(handle(p)))

# A string accel allocated, copied into Julia and freed.
function take_string!(p::Ptr{UInt8})
    s = unsafe_string(p)
    L.acc_free(p)
    return s
end

"""
    explain(p::Program; json=false) -> String

The program's plan: its kernels, what fusion put in each, the intermediate
arrays, the foreign implementations chosen (as JSON with `json=true`).
"""
function explain(p::Program; json::Bool=false)
    release_queued()
    text = Ref{Ptr{UInt8}}(C_NULL)
    check(L.acc_program_explain(handle(p), json ? 1 : 0, text))
    return take_string!(text[])
end

"""
    plan(p::Program) -> NamedTuple

The numbers of the plan: `(backend, kernels, intermediates, foreign_calls,
duplicated)`.
"""
function plan(p::Program)
    release_queued()
    out = Ref(L.acc_plan_summary(sizeof(L.acc_plan_summary), 0, 0, 0, 0, 0))
    check(L.acc_program_plan(handle(p), out))
    s = out[]
    return (backend=backend_symbol(s.backend), kernels=Int(s.kernels),
            intermediates=Int(s.intermediates), foreign_calls=Int(s.foreign_calls),
            duplicated=Int(s.duplicated))
end

"""
    entries(source) -> Vector{String}

The entry points of a text program (definitions whose parameters are all
annotated), in source order.
"""
function entries(source::AbstractString)
    release_queued()
    text = String(source)
    names = Ref{Ptr{UInt8}}(C_NULL)
    check(GC.@preserve text L.acc_parse_entries(text, sizeof(text), names))
    list = take_string!(names[])
    return String.(split(list, '\n'; keepempty=false))
end

function Base.show(io::IO, p::Program)
    name = isempty(p.entry) ? "" : p.entry * ": "
    ins = join((port_string(q) for q in p.inputs), ", ")
    outs = join((port_string(q) for q in p.outputs), ", ")
    print(io, "Accel.Program(", name, "(", ins, ") -> (", outs, ")",
          isopen(p) ? "" : ", closed", ")")
end

port_string(q::Port) = "Array{$(tree_string(q.tree)),$(q.rank)}"
