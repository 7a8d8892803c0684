# capi.jl — libaccel's C ABI as Julia sees it (module LibAccel).
#
# Every `ccall` of the package is in this file: one thin wrapper per C
# function, named as in abi/include/accel.h, and the structs that cross the
# ABI mirrored field by field under their C names.  Nothing here is
# checked by Julia against the header, so bindings/julia/tools/check_capi.py
# (ctest bindings.julia.capi) does it mechanically: each wrapper's return
# and argument types against the C declaration, each struct's fields and
# layout against the C compiler's, each constant against its C value.
# It relies on these conventions:
#   - a wrapper is `NAME(args...) = ccall(sym(:NAME), RET, (ARGTYPES...), args...)`
#     and NAME is listed in C_FUNCTIONS;
#   - enums are Cint (the checker asks the compiler that they are 4 bytes);
#   - opaque handles are `mutable struct acc_X end`, used only behind Ptr;
#   - a mirrored struct is `struct acc_X` with the C fields in order (a C
#     field named `type` is `type_` here) and types from the checker's table;
#   - constants are `const ACC_X = <integer literal>`.
module LibAccel

using Libdl

# --- constants (#define and enum values of accel.h) ---------------------------

const ACC_ABI_VERSION = 1
const ACC_MAX_RANK = 8
const ACC_MAX_COMPONENTS = 16

# acc_status
const ACC_OK = 0
const ACC_ERR_INVALID_ARGUMENT = 100
const ACC_ERR_INVALID_HANDLE = 101
const ACC_ERR_TYPE = 200
const ACC_ERR_SHAPE = 201
const ACC_ERR_OUT_OF_HOST_MEMORY = 300
const ACC_ERR_OUT_OF_DEVICE_MEMORY = 301
const ACC_ERR_UNSUPPORTED = 400
const ACC_ERR_NOT_FOUND = 401
const ACC_ERR_COMPILE = 500
const ACC_ERR_DEVICE = 501
const ACC_ERR_PLUGIN = 502
const ACC_ERR_ABI_MISMATCH = 503
const ACC_ERR_PARSE = 600
const ACC_ERR_RUNTIME = 700
const ACC_ERR_CANCELLED = 701
const ACC_ERR_TIMEOUT = 702
const ACC_ERR_INTERNAL = 900

# acc_backend
const ACC_BACKEND_AUTO = 0
const ACC_BACKEND_INTERP = 1
const ACC_BACKEND_CPU = 2
const ACC_BACKEND_CUDA = 3

# acc_scalar
const ACC_BOOL = 1
const ACC_I8 = 2
const ACC_I16 = 3
const ACC_I32 = 4
const ACC_I64 = 5
const ACC_U8 = 6
const ACC_U16 = 7
const ACC_U32 = 8
const ACC_U64 = 9
const ACC_F32 = 10
const ACC_F64 = 11

# acc_type_kind
const ACC_TYPE_SCALAR = 1
const ACC_TYPE_TUPLE = 2
const ACC_TYPE_SHAPE = 3
const ACC_TYPE_ARRAY = 4

# acc_memory, acc_ownership
const ACC_MEMORY_HOST = 0
const ACC_OWNERSHIP_BORROWED = 0
const ACC_OWNERSHIP_LIBRARY = 1

# acc_primop
const ACC_OP_ADD = 1
const ACC_OP_SUB = 2
const ACC_OP_MUL = 3
const ACC_OP_NEG = 4
const ACC_OP_ABS = 5
const ACC_OP_SIGNUM = 6
const ACC_OP_MIN = 7
const ACC_OP_MAX = 8
const ACC_OP_FDIV = 10
const ACC_OP_QUOT = 11
const ACC_OP_REM = 12
const ACC_OP_DIV = 13
const ACC_OP_MOD = 14
const ACC_OP_BAND = 20
const ACC_OP_BOR = 21
const ACC_OP_BXOR = 22
const ACC_OP_COMPLEMENT = 23
const ACC_OP_SHIFTL = 24
const ACC_OP_SHIFTR = 25
const ACC_OP_POPCOUNT = 26
const ACC_OP_CLZ = 27
const ACC_OP_EQ = 30
const ACC_OP_NE = 31
const ACC_OP_LT = 32
const ACC_OP_LE = 33
const ACC_OP_GT = 34
const ACC_OP_GE = 35
const ACC_OP_LAND = 40
const ACC_OP_LOR = 41
const ACC_OP_NOT = 42
const ACC_OP_SQRT = 50
const ACC_OP_EXP = 51
const ACC_OP_LOG = 52
const ACC_OP_SIN = 53
const ACC_OP_COS = 54
const ACC_OP_TAN = 55
const ACC_OP_ASIN = 56
const ACC_OP_ACOS = 57
const ACC_OP_ATAN = 58
const ACC_OP_SINH = 59
const ACC_OP_COSH = 60
const ACC_OP_TANH = 61
const ACC_OP_ATAN2 = 62
const ACC_OP_POW = 63
const ACC_OP_LOGBASE = 64
const ACC_OP_ISNAN = 65
const ACC_OP_ISINF = 66
const ACC_OP_TRUNCATE = 70
const ACC_OP_ROUND = 71
const ACC_OP_FLOOR = 72
const ACC_OP_CEILING = 73

# acc_scan_kind
const ACC_SCANL = 1
const ACC_SCANL1 = 3
const ACC_SCANR = 4
const ACC_SCANR1 = 6
const ACC_PRESCANL = 7
const ACC_POSTSCANL = 8
const ACC_PRESCANR = 9
const ACC_POSTSCANR = 10

# acc_boundary
const ACC_BOUNDARY_CLAMP = 1
const ACC_BOUNDARY_MIRROR = 2
const ACC_BOUNDARY_WRAP = 3
const ACC_BOUNDARY_CONSTANT = 5

# DLPack (acc_dl_device_type, acc_dl_type_code, versions)
const ACC_DL_CPU = 1
const ACC_DL_CUDA = 2
const ACC_DL_CUDA_HOST = 3
const ACC_DL_CUDA_MANAGED = 13
const ACC_DL_MAJOR_VERSION = 1
const ACC_DL_MINOR_VERSION = 0

# --- opaque handles -------------------------------------------------------------

mutable struct acc_context end
mutable struct acc_type end
mutable struct acc_graph end
mutable struct acc_node end
mutable struct acc_program end

# --- structs that cross the ABI (layouts checked against the C compiler) --------

struct acc_context_options
    struct_size::Csize_t
    backend::Cint
    num_threads::Int32
    cache_dir::Ptr{UInt8}
    fusion_duplicate_max_ops::Int32
    plugin_path::Ptr{UInt8}
    cuda_device::Int32
    run_deadline_seconds::Cdouble
    plugins::Ptr{UInt8}
    mpi_comm::Ptr{Cvoid}
    strict::Int32
    fp_contract::Int32
end

struct acc_array
    struct_size::Csize_t
    type_::Ptr{acc_type}
    rank::Int32
    extents::NTuple{8,Int64}
    data::NTuple{16,Ptr{Cvoid}}
    memory::Cint
    device::Int32
    ownership::Cint
    release::Ptr{Cvoid}
    release_state::Ptr{Cvoid}
end

struct acc_plan_summary
    struct_size::Csize_t
    backend::Cint
    kernels::Csize_t
    intermediates::Csize_t
    foreign_calls::Csize_t
    duplicated::Csize_t
end

struct acc_dl_device
    device_type::Int32
    device_id::Int32
end

struct acc_dl_data_type
    code::UInt8
    bits::UInt8
    lanes::UInt16
end

struct acc_dl_tensor
    data::Ptr{Cvoid}
    device::acc_dl_device
    ndim::Int32
    dtype::acc_dl_data_type
    shape::Ptr{Int64}
    strides::Ptr{Int64}
    byte_offset::UInt64
end

struct acc_dl_managed_tensor
    dl_tensor::acc_dl_tensor
    manager_ctx::Ptr{Cvoid}
    deleter::Ptr{Cvoid}
end

struct acc_dl_version
    major::UInt32
    minor::UInt32
end

struct acc_dl_managed_tensor_versioned
    version::acc_dl_version
    manager_ctx::Ptr{Cvoid}
    deleter::Ptr{Cvoid}
    flags::UInt64
    dl_tensor::acc_dl_tensor
end

# --- the library ------------------------------------------------------------------

# Every C function the wrappers call; load_library! resolves them all once,
# so a library that lacks one is refused when the package loads, by name.
const C_FUNCTIONS = (
    :acc_abi_version, :acc_version_string, :acc_status_string, :acc_last_error,
    :acc_backend_name, :acc_context_options_init_sized, :acc_context_create,
    :acc_context_destroy, :acc_context_backend,
    :acc_type_scalar, :acc_type_shape, :acc_type_tuple, :acc_type_array,
    :acc_type_get_kind, :acc_type_get_scalar, :acc_type_get_rank,
    :acc_type_get_elem, :acc_type_get_arity, :acc_type_get_field,
    :acc_array_release,
    :acc_array_from_dlpack, :acc_array_from_dlpack_versioned,
    :acc_array_to_dlpack, :acc_array_to_dlpack_versioned,
    :acc_graph_create, :acc_graph_free, :acc_graph_last_error, :acc_graph_status,
    :acc_node_type,
    :acc_input, :acc_const_i64, :acc_const_u64, :acc_const_f64, :acc_const_bool,
    :acc_unop, :acc_binop, :acc_round_to, :acc_convert, :acc_cond,
    :acc_tuple, :acc_get, :acc_index, :acc_param, :acc_lambda, :acc_while,
    :acc_read, :acc_read_linear, :acc_shape, :acc_size, :acc_the,
    :acc_unit, :acc_generate, :acc_fill, :acc_map, :acc_zipwith,
    :acc_backpermute, :acc_reshape, :acc_fold, :acc_fold1,
    :acc_all, :acc_replicate, :acc_slice, :acc_fold_seg, :acc_scan,
    :acc_ignore, :acc_permute, :acc_stencil, :acc_expand, :acc_acond,
    :acc_awhile, :acc_foreign, :acc_dot, :acc_gemv, :acc_gemm,
    :acc_compile, :acc_program_free, :acc_program_num_inputs,
    :acc_program_num_outputs, :acc_program_input, :acc_program_output,
    :acc_program_backend, :acc_run, :acc_free, :acc_program_plan,
    :acc_program_explain, :acc_parse_entries, :acc_compile_text,
)

const HANDLE = Ref{Ptr{Cvoid}}(C_NULL)   # dlopen handle of libaccel
const PATH = Ref{String}("")             # the file it was loaded from
const SYMBOLS = Dict{Symbol,Ptr{Cvoid}}() # filled once by load_library!, then read only

# The function pointer of a C function of libaccel (resolved at load).
sym(name::Symbol) = SYMBOLS[name]

# The files tried, in order: $ACCEL_LIBRARY; the installed library (found by
# the system's loader under its SONAME); the build tree of the checkout this
# package sits in (bindings/julia/Accel/src -> build/).
function library_candidates()
    candidates = String[]
    env = get(ENV, "ACCEL_LIBRARY", "")
    isempty(env) || push!(candidates, env)
    push!(candidates, "libaccel.so.$(ACC_ABI_VERSION)")
    root = normpath(joinpath(@__DIR__, "..", "..", "..", ".."))
    push!(candidates, joinpath(root, "build", "libaccel.so.$(ACC_ABI_VERSION)"))
    return candidates
end

function load_library!()
    tried = String[]
    handle = nothing
    for path in library_candidates()
        handle = Libdl.dlopen(path, Libdl.RTLD_LAZY | Libdl.RTLD_LOCAL; throw_error=false)
        if handle !== nothing
            PATH[] = path
            break
        end
        push!(tried, path)
    end
    if handle === nothing
        error("Accel: libaccel not found; tried ", join(tried, ", "),
              " (set ACCEL_LIBRARY to the path of libaccel.so)")
    end
    missing_names = Symbol[]
    for name in C_FUNCTIONS
        p = Libdl.dlsym(handle, name; throw_error=false)
        p === nothing ? push!(missing_names, name) : (SYMBOLS[name] = p)
    end
    isempty(missing_names) ||
        error("Accel: ", PATH[], " lacks ", join(missing_names, ", "), " (an older libaccel?)")
    HANDLE[] = handle
    version = acc_abi_version()
    version == ACC_ABI_VERSION ||
        error("Accel: ", PATH[], " has ABI version ", version,
              "; this package was written for ABI version ", ACC_ABI_VERSION)
    return nothing
end

# --- versions and errors -------------------------------------------------------------

acc_abi_version() = ccall(sym(:acc_abi_version), UInt32, ())
acc_version_string() = ccall(sym(:acc_version_string), Ptr{UInt8}, ())
acc_status_string(status) = ccall(sym(:acc_status_string), Ptr{UInt8}, (Cint,), status)
acc_last_error() = ccall(sym(:acc_last_error), Ptr{UInt8}, ())

# --- backends and contexts -----------------------------------------------------------

acc_backend_name(backend) = ccall(sym(:acc_backend_name), Ptr{UInt8}, (Cint,), backend)
# The sized call: accel writes the defaults into exactly `size` bytes (the
# mirror's sizeof) and sets struct_size to it, so a library whose struct
# has grown since writes nothing past the mirror.  The plain
# acc_context_options_init symbol is not wrapped: it cannot know the
# mirror's size and fills only the first published fields.
acc_context_options_init_sized(options, size) =
    ccall(sym(:acc_context_options_init_sized), Cint,
          (Ptr{acc_context_options}, Csize_t), options, size)
acc_context_create(options, out) =
    ccall(sym(:acc_context_create), Cint,
          (Ptr{acc_context_options}, Ptr{Ptr{acc_context}}), options, out)
acc_context_destroy(ctx) = ccall(sym(:acc_context_destroy), Cvoid, (Ptr{acc_context},), ctx)
acc_context_backend(ctx, out) =
    ccall(sym(:acc_context_backend), Cint, (Ptr{acc_context}, Ptr{Cint}), ctx, out)

# --- types ------------------------------------------------------------------------------

acc_type_scalar(scalar) = ccall(sym(:acc_type_scalar), Ptr{acc_type}, (Cint,), scalar)
acc_type_shape(rank) = ccall(sym(:acc_type_shape), Ptr{acc_type}, (Int32,), rank)
acc_type_tuple(ctx, n, fields) =
    ccall(sym(:acc_type_tuple), Ptr{acc_type},
          (Ptr{acc_context}, Csize_t, Ptr{Ptr{acc_type}}), ctx, n, fields)
acc_type_array(ctx, elem, rank) =
    ccall(sym(:acc_type_array), Ptr{acc_type},
          (Ptr{acc_context}, Ptr{acc_type}, Int32), ctx, elem, rank)
acc_type_get_kind(type) = ccall(sym(:acc_type_get_kind), Cint, (Ptr{acc_type},), type)
acc_type_get_scalar(type) = ccall(sym(:acc_type_get_scalar), Cint, (Ptr{acc_type},), type)
acc_type_get_rank(type) = ccall(sym(:acc_type_get_rank), Int32, (Ptr{acc_type},), type)
acc_type_get_elem(type) =
    ccall(sym(:acc_type_get_elem), Ptr{acc_type}, (Ptr{acc_type},), type)
acc_type_get_arity(type) = ccall(sym(:acc_type_get_arity), Csize_t, (Ptr{acc_type},), type)
acc_type_get_field(type, i) =
    ccall(sym(:acc_type_get_field), Ptr{acc_type}, (Ptr{acc_type}, Csize_t), type, i)

# --- arrays and DLPack -------------------------------------------------------------------

acc_array_release(array) = ccall(sym(:acc_array_release), Cvoid, (Ptr{acc_array},), array)
acc_array_from_dlpack(tensor, out) =
    ccall(sym(:acc_array_from_dlpack), Cint,
          (Ptr{acc_dl_managed_tensor}, Ptr{acc_array}), tensor, out)
acc_array_from_dlpack_versioned(tensor, out) =
    ccall(sym(:acc_array_from_dlpack_versioned), Cint,
          (Ptr{acc_dl_managed_tensor_versioned}, Ptr{acc_array}), tensor, out)
acc_array_to_dlpack(array, out) =
    ccall(sym(:acc_array_to_dlpack), Cint,
          (Ptr{acc_array}, Ptr{Ptr{acc_dl_managed_tensor}}), array, out)
acc_array_to_dlpack_versioned(array, out) =
    ccall(sym(:acc_array_to_dlpack_versioned), Cint,
          (Ptr{acc_array}, Ptr{Ptr{acc_dl_managed_tensor_versioned}}), array, out)

# --- graphs and the builder -------------------------------------------------------------

acc_graph_create(ctx, out) =
    ccall(sym(:acc_graph_create), Cint, (Ptr{acc_context}, Ptr{Ptr{acc_graph}}), ctx, out)
acc_graph_free(g) = ccall(sym(:acc_graph_free), Cvoid, (Ptr{acc_graph},), g)
acc_graph_last_error(g) = ccall(sym(:acc_graph_last_error), Ptr{UInt8}, (Ptr{acc_graph},), g)
acc_graph_status(g) = ccall(sym(:acc_graph_status), Cint, (Ptr{acc_graph},), g)
acc_node_type(node) = ccall(sym(:acc_node_type), Ptr{acc_type}, (Ptr{acc_node},), node)

acc_input(g, elem, rank) =
    ccall(sym(:acc_input), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_type}, Int32), g, elem, rank)
acc_const_i64(g, scalar, v) =
    ccall(sym(:acc_const_i64), Ptr{acc_node}, (Ptr{acc_graph}, Cint, Int64), g, scalar, v)
acc_const_u64(g, scalar, v) =
    ccall(sym(:acc_const_u64), Ptr{acc_node}, (Ptr{acc_graph}, Cint, UInt64), g, scalar, v)
acc_const_f64(g, scalar, v) =
    ccall(sym(:acc_const_f64), Ptr{acc_node}, (Ptr{acc_graph}, Cint, Cdouble), g, scalar, v)
acc_const_bool(g, v) = ccall(sym(:acc_const_bool), Ptr{acc_node}, (Ptr{acc_graph}, Cint), g, v)

acc_unop(g, op, a) =
    ccall(sym(:acc_unop), Ptr{acc_node}, (Ptr{acc_graph}, Cint, Ptr{acc_node}), g, op, a)
acc_binop(g, op, a, b) =
    ccall(sym(:acc_binop), Ptr{acc_node},
          (Ptr{acc_graph}, Cint, Ptr{acc_node}, Ptr{acc_node}), g, op, a, b)
acc_round_to(g, op, a, to) =
    ccall(sym(:acc_round_to), Ptr{acc_node},
          (Ptr{acc_graph}, Cint, Ptr{acc_node}, Cint), g, op, a, to)
acc_convert(g, a, to) =
    ccall(sym(:acc_convert), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}, Cint), g, a, to)
acc_cond(g, c, t, e) =
    ccall(sym(:acc_cond), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}), g, c, t, e)
acc_tuple(g, n, items) =
    ccall(sym(:acc_tuple), Ptr{acc_node},
          (Ptr{acc_graph}, Csize_t, Ptr{Ptr{acc_node}}), g, n, items)
acc_get(g, tuple, i) =
    ccall(sym(:acc_get), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}, Csize_t), g, tuple, i)
acc_index(g, n, comps) =
    ccall(sym(:acc_index), Ptr{acc_node},
          (Ptr{acc_graph}, Csize_t, Ptr{Ptr{acc_node}}), g, n, comps)
acc_param(g, type) =
    ccall(sym(:acc_param), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_type}), g, type)
acc_lambda(g, n, params, body) =
    ccall(sym(:acc_lambda), Ptr{acc_node},
          (Ptr{acc_graph}, Csize_t, Ptr{Ptr{acc_node}}, Ptr{acc_node}), g, n, params, body)
acc_while(g, cond, body, init) =
    ccall(sym(:acc_while), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}), g, cond, body, init)
acc_read(g, array, index) =
    ccall(sym(:acc_read), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, array, index)
acc_read_linear(g, array, position) =
    ccall(sym(:acc_read_linear), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, array, position)
acc_shape(g, array) =
    ccall(sym(:acc_shape), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}), g, array)
acc_size(g, array) =
    ccall(sym(:acc_size), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}), g, array)
acc_the(g, scalar_array) =
    ccall(sym(:acc_the), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}), g, scalar_array)

acc_unit(g, x) = ccall(sym(:acc_unit), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}), g, x)
acc_generate(g, shape, f) =
    ccall(sym(:acc_generate), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, shape, f)
acc_fill(g, shape, x) =
    ccall(sym(:acc_fill), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, shape, x)
acc_map(g, f, xs) =
    ccall(sym(:acc_map), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, f, xs)
acc_zipwith(g, f, n, arrays) =
    ccall(sym(:acc_zipwith), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Csize_t, Ptr{Ptr{acc_node}}), g, f, n, arrays)
acc_backpermute(g, shape, p, xs) =
    ccall(sym(:acc_backpermute), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}), g, shape, p, xs)
acc_reshape(g, shape, xs) =
    ccall(sym(:acc_reshape), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, shape, xs)
acc_fold(g, f, z, xs) =
    ccall(sym(:acc_fold), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}), g, f, z, xs)
acc_fold1(g, f, xs) =
    ccall(sym(:acc_fold1), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, f, xs)
acc_all(g) = ccall(sym(:acc_all), Ptr{acc_node}, (Ptr{acc_graph},), g)
acc_replicate(g, n, spec, xs) =
    ccall(sym(:acc_replicate), Ptr{acc_node},
          (Ptr{acc_graph}, Csize_t, Ptr{Ptr{acc_node}}, Ptr{acc_node}), g, n, spec, xs)
acc_slice(g, xs, n, spec) =
    ccall(sym(:acc_slice), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Csize_t, Ptr{Ptr{acc_node}}), g, xs, n, spec)
acc_fold_seg(g, f, z, xs, seg) =
    ccall(sym(:acc_fold_seg), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}),
          g, f, z, xs, seg)
acc_scan(g, kind, f, z, xs) =
    ccall(sym(:acc_scan), Ptr{acc_node},
          (Ptr{acc_graph}, Cint, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}), g, kind, f, z, xs)
acc_ignore(g, rank) = ccall(sym(:acc_ignore), Ptr{acc_node}, (Ptr{acc_graph}, Int32), g, rank)
acc_permute(g, f, defaults, p, xs) =
    ccall(sym(:acc_permute), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}),
          g, f, defaults, p, xs)
acc_stencil(g, f, widths, boundary, boundary_arg, xs) =
    ccall(sym(:acc_stencil), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{Int32}, Cint, Ptr{acc_node}, Ptr{acc_node}),
          g, f, widths, boundary, boundary_arg, xs)
acc_expand(g, size, get, xs) =
    ccall(sym(:acc_expand), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}), g, size, get, xs)
acc_acond(g, c, a, b) =
    ccall(sym(:acc_acond), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}), g, c, a, b)
acc_awhile(g, cond, body, init) =
    ccall(sym(:acc_awhile), Ptr{acc_node},
          (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}, Ptr{acc_node}), g, cond, body, init)
acc_foreign(g, name, fallback, arg) =
    ccall(sym(:acc_foreign), Ptr{acc_node},
          (Ptr{acc_graph}, Cstring, Ptr{acc_node}, Ptr{acc_node}), g, name, fallback, arg)
acc_dot(g, xs, ys) =
    ccall(sym(:acc_dot), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, xs, ys)
acc_gemv(g, a, x) =
    ccall(sym(:acc_gemv), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, a, x)
acc_gemm(g, a, b) =
    ccall(sym(:acc_gemm), Ptr{acc_node}, (Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, a, b)

# --- programs ----------------------------------------------------------------------------

acc_compile(ctx, g, n_results, results, out) =
    ccall(sym(:acc_compile), Cint,
          (Ptr{acc_context}, Ptr{acc_graph}, Csize_t, Ptr{Ptr{acc_node}}, Ptr{Ptr{acc_program}}),
          ctx, g, n_results, results, out)
acc_program_free(program) = ccall(sym(:acc_program_free), Cvoid, (Ptr{acc_program},), program)
acc_program_num_inputs(program) =
    ccall(sym(:acc_program_num_inputs), Csize_t, (Ptr{acc_program},), program)
acc_program_num_outputs(program) =
    ccall(sym(:acc_program_num_outputs), Csize_t, (Ptr{acc_program},), program)
acc_program_input(program, i, elem, rank) =
    ccall(sym(:acc_program_input), Cint,
          (Ptr{acc_program}, Csize_t, Ptr{Ptr{acc_type}}, Ptr{Int32}), program, i, elem, rank)
acc_program_output(program, i, elem, rank) =
    ccall(sym(:acc_program_output), Cint,
          (Ptr{acc_program}, Csize_t, Ptr{Ptr{acc_type}}, Ptr{Int32}), program, i, elem, rank)
acc_program_backend(program) =
    ccall(sym(:acc_program_backend), Cint, (Ptr{acc_program},), program)
acc_run(program, n_inputs, inputs, n_outputs, outputs) =
    ccall(sym(:acc_run), Cint,
          (Ptr{acc_program}, Csize_t, Ptr{acc_array}, Csize_t, Ptr{acc_array}),
          program, n_inputs, inputs, n_outputs, outputs)
acc_free(memory) = ccall(sym(:acc_free), Cvoid, (Ptr{Cvoid},), memory)
acc_program_plan(program, out) =
    ccall(sym(:acc_program_plan), Cint, (Ptr{acc_program}, Ptr{acc_plan_summary}), program, out)
acc_program_explain(program, json, text) =
    ccall(sym(:acc_program_explain), Cint,
          (Ptr{acc_program}, Cint, Ptr{Ptr{UInt8}}), program, json, text)

# --- text programs --------------------------------------------------------------------------

acc_parse_entries(source, len, names) =
    ccall(sym(:acc_parse_entries), Cint, (Ptr{UInt8}, Csize_t, Ptr{Ptr{UInt8}}), source, len, names)
acc_compile_text(ctx, source, len, entry, out) =
    ccall(sym(:acc_compile_text), Cint,
          (Ptr{acc_context}, Ptr{UInt8}, Csize_t, Ptr{UInt8}, Ptr{Ptr{acc_program}}),
          ctx, source, len, entry, out)

end # module LibAccel
