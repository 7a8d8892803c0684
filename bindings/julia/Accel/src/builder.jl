# builder.jl — accel's language embedded in Julia: a program is built by
# calling a Julia function on terms, as in Accelerate.
#
#     dotp = Accel.build(ctx, Vector{Float32}, Vector{Float32}) do xs, ys
#         Accel.fold(+, 0, map(*, xs, ys))
#     end
#
# `Acc` is an array term, `Exp` a scalar term (Accelerate's names).  Julia
# functions given to map, fold, generate, ... are traced once: they are
# called on parameter terms, and what they return is the body of the lambda.
# Arithmetic, comparisons and math functions of Base are overloaded on
# `Exp`; a Julia number next to an `Exp` takes the Exp's type, elsewhere its
# own (1 is an Int64, 1.0 a Float64, 1f0 a Float32).  Julia's `if`, `&&` and
# `||` need real Bools: use `cond(c, a, b)`, `&` and `|` on terms.
#
# Everything is accel's, not Julia's: indices are 0-based and outermost
# first (a term `ix` of a matrix is [row, col]), shapes are written
# outermost first, storage is row-major.  Only at the program's boundary do
# Julia arrays cross with their dimensions reversed (arrays.jl).

struct Builder
    g::Ptr{L.acc_graph}
    ctx::Ptr{L.acc_context}
end

"""
    Accel.Exp

A scalar term of a program being built (a value, a tuple of values, or an
index).  Tuples and indices destructure: `(a, b) = t`, `i, j = ix`.
"""
struct Exp
    g::Ptr{L.acc_graph}
    node::Ptr{L.acc_node}
end

"""
    Accel.Acc

An array term (or a tuple of arrays) of a program being built.
"""
struct Acc
    g::Ptr{L.acc_graph}
    node::Ptr{L.acc_node}
end

const Term = Union{Exp,Acc}
const BUILDER_KEY = :AccelBuilder

Base.show(io::IO, t::Exp) = print(io, "Accel.Exp(node ", t.node, ")")
Base.show(io::IO, t::Acc) = print(io, "Accel.Acc(node ", t.node, ")")

function current_builder()
    b = get(task_local_storage(), BUILDER_KEY, nothing)
    b === nothing &&
        throw(ArgumentError("accel's array language is only used inside Accel.build(...) do ... end"))
    return b::Builder
end

function node(b::Builder, t::Term)
    t.g == b.g || throw(ArgumentError("a term of another Accel.build is used in this one"))
    return t.node
end

# A builder call's result; NULL means the graph has failed (its first error
# is sticky), and the message names the operation.
function made(b::Builder, n::Ptr{L.acc_node})
    if n == C_NULL
        status = L.acc_graph_status(b.g)
        status = status == L.ACC_OK ? L.ACC_ERR_INTERNAL : status
        throw(AccelError(Int(status), status_name(status),
                         unsafe_string(L.acc_graph_last_error(b.g))))
    end
    return n
end

function is_array_type(t::Ptr{L.acc_type})
    kind = L.acc_type_get_kind(t)
    kind == L.ACC_TYPE_ARRAY && return true
    kind == L.ACC_TYPE_TUPLE || return false
    return L.acc_type_get_arity(t) > 0 && is_array_type(L.acc_type_get_field(t, 0))
end

term(b::Builder, n::Ptr{L.acc_node}) =
    is_array_type(L.acc_node_type(n)) ? Acc(b.g, n) : Exp(b.g, n)

node_type(b::Builder, t::Term) = L.acc_node_type(node(b, t))
elem_type(b::Builder, xs::Acc) = L.acc_type_get_elem(node_type(b, xs))
rank_of(b::Builder, xs::Acc) = Int(L.acc_type_get_rank(node_type(b, xs)))

function scalar_of(b::Builder, e::Exp)
    t = node_type(b, e)
    L.acc_type_get_kind(t) == L.ACC_TYPE_SCALAR ||
        throw(ArgumentError("a scalar term is expected here, not a tuple or an index"))
    return L.acc_type_get_scalar(t)
end

# --- constants ----------------------------------------------------------------------

# The constant x of accel scalar type `code`.  Integers must be exact: 1.5
# next to an integer term is an error, not a truncation.
function constant(b::Builder, code::Integer, x::Number)
    if code == L.ACC_BOOL
        x isa Bool || throw(ArgumentError("$x is not a Bool (the other operand is bool)"))
        return made(b, L.acc_const_bool(b.g, x ? 1 : 0))
    elseif is_float_code(code)
        return made(b, L.acc_const_f64(b.g, code, Float64(x)))
    end
    isinteger(x) ||
        throw(ArgumentError("$x is not an integer (the other operand is $(julia_type(code)))"))
    if x isa Unsigned || x > typemax(Int64)
        return made(b, L.acc_const_u64(b.g, code, UInt64(x)))
    end
    return made(b, L.acc_const_i64(b.g, code, Int64(x)))
end

# A literal with no other operand to take its type from: its own Julia type.
literal(b::Builder, x::Number) = constant(b, scalar_code(typeof(x)), x)

# A constant of accel type t when t is a scalar, else of x's own type.
function typed_literal(b::Builder, t::Ptr{L.acc_type}, x::Number)
    L.acc_type_get_kind(t) == L.ACC_TYPE_SCALAR || return literal(b, x)
    return constant(b, L.acc_type_get_scalar(t), x)
end

# The node of a Julia value used as a term: a term, a number (its own type),
# a tuple of values (a tuple term).
to_node(b::Builder, t::Term) = node(b, t)
to_node(b::Builder, x::Number) = literal(b, x)
function to_node(b::Builder, x::Tuple)
    items = Ptr{L.acc_node}[to_node(b, xi) for xi in x]
    return made(b, L.acc_tuple(b.g, length(items), items))
end
to_node(b::Builder, x) =
    throw(ArgumentError("a $(typeof(x)) is not a term of accel's language"))

# --- scalar operations ------------------------------------------------------------------

operands(b::Builder, x::Exp, y::Exp) = (node(b, x), node(b, y))
operands(b::Builder, x::Exp, y::Number) = (node(b, x), constant(b, scalar_of(b, x), y))
operands(b::Builder, x::Number, y::Exp) = (constant(b, scalar_of(b, y), x), node(b, y))

function binop(op::Integer, x, y)
    b = current_builder()
    nx, ny = operands(b, x, y)
    return Exp(b.g, made(b, L.acc_binop(b.g, op, nx, ny)))
end

function unop(op::Integer, x::Exp)
    b = current_builder()
    return Exp(b.g, made(b, L.acc_unop(b.g, op, node(b, x))))
end

for (f, op) in ((:+, L.ACC_OP_ADD), (:-, L.ACC_OP_SUB), (:*, L.ACC_OP_MUL),
                (:/, L.ACC_OP_FDIV), (:div, L.ACC_OP_QUOT), (:rem, L.ACC_OP_REM),
                (:fld, L.ACC_OP_DIV), (:mod, L.ACC_OP_MOD), (:min, L.ACC_OP_MIN),
                (:max, L.ACC_OP_MAX), (:xor, L.ACC_OP_BXOR), (:<<, L.ACC_OP_SHIFTL),
                (:>>, L.ACC_OP_SHIFTR), (:(==), L.ACC_OP_EQ), (:(!=), L.ACC_OP_NE),
                (:<, L.ACC_OP_LT), (:<=, L.ACC_OP_LE), (:>, L.ACC_OP_GT),
                (:>=, L.ACC_OP_GE), (:^, L.ACC_OP_POW), (:atan, L.ACC_OP_ATAN2),
                (:log, L.ACC_OP_LOGBASE))
    @eval begin
        Base.$f(x::Exp, y::Exp) = binop($op, x, y)
        Base.$f(x::Exp, y::Number) = binop($op, x, y)
        Base.$f(x::Number, y::Exp) = binop($op, x, y)
    end
end

for (f, op) in ((:-, L.ACC_OP_NEG), (:abs, L.ACC_OP_ABS), (:sign, L.ACC_OP_SIGNUM),
                (:sqrt, L.ACC_OP_SQRT), (:exp, L.ACC_OP_EXP), (:log, L.ACC_OP_LOG),
                (:sin, L.ACC_OP_SIN), (:cos, L.ACC_OP_COS), (:tan, L.ACC_OP_TAN),
                (:asin, L.ACC_OP_ASIN), (:acos, L.ACC_OP_ACOS), (:atan, L.ACC_OP_ATAN),
                (:sinh, L.ACC_OP_SINH), (:cosh, L.ACC_OP_COSH), (:tanh, L.ACC_OP_TANH),
                (:isnan, L.ACC_OP_ISNAN), (:isinf, L.ACC_OP_ISINF),
                (:count_ones, L.ACC_OP_POPCOUNT), (:leading_zeros, L.ACC_OP_CLZ),
                (:~, L.ACC_OP_COMPLEMENT), (:!, L.ACC_OP_NOT))
    @eval Base.$f(x::Exp) = unop($op, x)
end

Base.:+(x::Exp) = x

# & and | are && and || on bool terms (short-circuiting in accel), bitwise
# on integer terms.
function logic_or_bits(logic::Integer, bits::Integer, x, y)
    e = x isa Exp ? x : y
    return binop(scalar_of(current_builder(), e) == L.ACC_BOOL ? logic : bits, x, y)
end

for (f, logic, bits) in ((:&, L.ACC_OP_LAND, L.ACC_OP_BAND), (:|, L.ACC_OP_LOR, L.ACC_OP_BOR))
    @eval begin
        Base.$f(x::Exp, y::Exp) = logic_or_bits($logic, $bits, x, y)
        Base.$f(x::Exp, y::Number) = logic_or_bits($logic, $bits, x, y)
        Base.$f(x::Number, y::Exp) = logic_or_bits($logic, $bits, x, y)
    end
end

# Float to integer: trunc(Int32, x), round (halves to even), floor, ceil.
for (f, op) in ((:trunc, L.ACC_OP_TRUNCATE), (:round, L.ACC_OP_ROUND),
                (:floor, L.ACC_OP_FLOOR), (:ceil, L.ACC_OP_CEILING))
    @eval function Base.$f(::Type{T}, x::Exp) where {T<:Integer}
        b = current_builder()
        return Exp(b.g, made(b, L.acc_round_to(b.g, $op, node(b, x), scalar_code(T))))
    end
end

"""
    Accel.cast(T, x)

The scalar term x converted to type T (integers wrap, floats to integers
truncate, anything to Bool is "not zero"), as accel's conversions do.
"""
function cast(::Type{T}, x::Exp) where {T}
    b = current_builder()
    return Exp(b.g, made(b, L.acc_convert(b.g, node(b, x), scalar_code(T))))
end

"""
    Accel.cond(c, a, b)

`if c then a else b`: only the chosen branch is evaluated.  A number branch
takes the other branch's type.
"""
function cond(c, x, y)
    b = current_builder()
    nx = x isa Number && y isa Exp ? constant(b, scalar_of(b, y), x) : to_node(b, x)
    ny = y isa Number && x isa Exp ? constant(b, scalar_of(b, x), y) : to_node(b, y)
    return term(b, made(b, L.acc_cond(b.g, to_node(b, c), nx, ny)))
end

# Components of tuples and indices (1-based, like Julia's tuples; the
# first component of an index is the outermost dimension).
function arity_of(b::Builder, t::Term)
    ty = node_type(b, t)
    kind = L.acc_type_get_kind(ty)
    kind == L.ACC_TYPE_TUPLE && return Int(L.acc_type_get_arity(ty))
    kind == L.ACC_TYPE_SHAPE && return Int(L.acc_type_get_rank(ty))
    throw(ArgumentError("only tuples and indices have components"))
end

component(b::Builder, t::Term, i::Integer) =
    term(b, made(b, L.acc_get(b.g, node(b, t), i - 1)))

Base.getindex(t::Term, i::Integer) = component(current_builder(), t, i)
Base.IteratorSize(::Type{<:Term}) = Base.SizeUnknown()
function Base.iterate(t::Term, i::Int=1)
    b = current_builder()
    i > arity_of(b, t) && return nothing
    return (component(b, t, i), i + 1)
end

"""
    Accel.index(i, j, ...)

The index (or shape) [i, j, ...], outermost first, of Int64 terms or
integers.
"""
function index(components...)
    b = current_builder()
    items = Ptr{L.acc_node}[c isa Exp ? node(b, c) : constant(b, L.ACC_I64, c)
                            for c in components]
    return Exp(b.g, made(b, L.acc_index(b.g, length(items), items)))
end

shape_node(b::Builder, sh::Exp) = node(b, sh)
shape_node(b::Builder, sh::Tuple) = node(b, index(sh...))
shape_node(b::Builder, sh::Integer) = node(b, index(sh))

"""
    Accel.iterate_while(cond, body, init)

accel's scalar `while`: starting from `init` (a term or a tuple of terms),
apply `body` while `cond` holds (tested first).
"""
function iterate_while(cond, body, init)
    b = current_builder()
    i = to_node(b, init)
    t = L.acc_node_type(i)
    return term(b, made(b, L.acc_while(b.g, lambda(b, cond, [t]), lambda(b, body, [t]), i)))
end

# --- functions ----------------------------------------------------------------------------

# Traces the Julia function f on parameters of the given types into a lambda.
# With index_result, a tuple returned by f is an index (for the index
# functions of backpermute and permute).
function lambda(b::Builder, f, types::Vector{Ptr{L.acc_type}}; index_result::Bool=false)
    params = Ptr{L.acc_node}[made(b, L.acc_param(b.g, t)) for t in types]
    result = f((term(b, p) for p in params)...)
    body = index_result && result isa Tuple ? node(b, index(result...)) : to_node(b, result)
    return made(b, L.acc_lambda(b.g, length(params), params, body))
end

shape_type(b::Builder, s::Ptr{L.acc_node}) = L.acc_type_shape(L.acc_type_get_rank(L.acc_node_type(s)))

# --- array operations -------------------------------------------------------------------

array(b::Builder, n::Ptr{L.acc_node}) = Acc(b.g, n)

"""
    map(f, xs::Accel.Acc)
    map(f, xs::Accel.Acc, ys::Accel.Acc, ...)     # zipWith

accel's map, and zipWith for several arrays (the result has the
intersection of their extents).
"""
function Base.map(f, xs::Acc)
    b = current_builder()
    return array(b, made(b, L.acc_map(b.g, lambda(b, f, [elem_type(b, xs)]), node(b, xs))))
end

function Base.map(f, xs::Acc, ys::Acc, more::Acc...)
    b = current_builder()
    arrays = (xs, ys, more...)
    fn = lambda(b, f, Ptr{L.acc_type}[elem_type(b, a) for a in arrays])
    items = Ptr{L.acc_node}[node(b, a) for a in arrays]
    return array(b, made(b, L.acc_zipwith(b.g, fn, length(items), items)))
end

zipwith(f, xs::Acc, more::Acc...) = map(f, xs, more...)

"""
    Accel.generate(f, sh)      # generate(sh) do ix ... end

The array of shape sh (a tuple or an index term, outermost first) whose
element at index ix is f(ix).
"""
function generate(f, sh)
    b = current_builder()
    s = shape_node(b, sh)
    return array(b, made(b, L.acc_generate(b.g, s, lambda(b, f, [shape_type(b, s)]))))
end

# fill(x, sh): every element x, for a shape term sh (see Accel.index).
Base.fill(x::Exp, sh::Exp) = fill_term(x, sh)
Base.fill(x::Number, sh::Exp) = fill_term(x, sh)
function fill_term(x, sh::Exp)
    b = current_builder()
    return array(b, made(b, L.acc_fill(b.g, node(b, sh), to_node(b, x))))
end

"""
    Accel.backpermute(sh, p, xs)

The array of shape sh whose element at ix is xs at index p(ix) (p may
return a tuple: it is the index).
"""
function backpermute(sh, p, xs::Acc)
    b = current_builder()
    s = shape_node(b, sh)
    fn = lambda(b, p, [shape_type(b, s)]; index_result=true)
    return array(b, made(b, L.acc_backpermute(b.g, s, fn, node(b, xs))))
end

function Base.reshape(xs::Acc, sh)
    b = current_builder()
    return array(b, made(b, L.acc_reshape(b.g, shape_node(b, sh), node(b, xs))))
end

# A seed: a term, or a number of the array's element type.
seed(b::Builder, z, xs::Acc) = z isa Number ? typed_literal(b, elem_type(b, xs), z) : to_node(b, z)

"""
    Accel.fold(f, z, xs), Accel.fold1(f, xs)

Reduce the innermost dimension (f associative; z used once per row).
"""
function fold(f, z, xs::Acc)
    b = current_builder()
    el = elem_type(b, xs)
    return array(b, made(b, L.acc_fold(b.g, lambda(b, f, [el, el]), seed(b, z, xs), node(b, xs))))
end

function fold1(f, xs::Acc)
    b = current_builder()
    el = elem_type(b, xs)
    return array(b, made(b, L.acc_fold1(b.g, lambda(b, f, [el, el]), node(b, xs))))
end

"""
    Accel.foldseg(f, z, xs, seg)

foldSeg: reduces each segment of the innermost dimension; seg holds the
segment lengths (a Vector Int64 term).
"""
function foldseg(f, z, xs::Acc, seg::Acc)
    b = current_builder()
    el = elem_type(b, xs)
    return array(b, made(b, L.acc_fold_seg(b.g, lambda(b, f, [el, el]), seed(b, z, xs),
                                           node(b, xs), node(b, seg))))
end

function scan_term(kind::Integer, f, z, xs::Acc)
    b = current_builder()
    el = elem_type(b, xs)
    zn = z === nothing ? Ptr{L.acc_node}(C_NULL) : seed(b, z, xs)
    return array(b, made(b, L.acc_scan(b.g, kind, lambda(b, f, [el, el]), zn, node(b, xs))))
end

"Scans of the innermost dimension (LANGUAGE.md §3.3): scanl (n+1 results), scanl1, ..."
scanl(f, z, xs::Acc) = scan_term(L.ACC_SCANL, f, z, xs)
scanl1(f, xs::Acc) = scan_term(L.ACC_SCANL1, f, nothing, xs)
scanr(f, z, xs::Acc) = scan_term(L.ACC_SCANR, f, z, xs)
scanr1(f, xs::Acc) = scan_term(L.ACC_SCANR1, f, nothing, xs)
prescanl(f, z, xs::Acc) = scan_term(L.ACC_PRESCANL, f, z, xs)
postscanl(f, z, xs::Acc) = scan_term(L.ACC_POSTSCANL, f, z, xs)
prescanr(f, z, xs::Acc) = scan_term(L.ACC_PRESCANR, f, z, xs)
postscanr(f, z, xs::Acc) = scan_term(L.ACC_POSTSCANR, f, z, xs)

"""
    Accel.permute(f, defaults, p, xs)

Forward permutation: a copy of defaults into which each element of xs is
combined, as f(new, old), at index p(ix) (or dropped where p returns
`Accel.ignore(rank)`).
"""
function permute(f, defaults::Acc, p, xs::Acc)
    b = current_builder()
    el = elem_type(b, defaults)
    fn = lambda(b, f, [el, el])
    pn = lambda(b, p, [L.acc_type_shape(rank_of(b, xs))]; index_result=true)
    return array(b, made(b, L.acc_permute(b.g, fn, node(b, defaults), pn, node(b, xs))))
end

"The dropped target of permute, for targets of the given rank."
function ignore(rank::Integer)
    b = current_builder()
    return Exp(b.g, made(b, L.acc_ignore(b.g, rank)))
end

# The neighbourhood of a stencil: nested tuples, outermost dimension outermost.
function neighbourhood_type(b::Builder, el::Ptr{L.acc_type}, widths::AbstractVector)
    isempty(widths) && return el
    inner = neighbourhood_type(b, el, widths[2:end])
    fields = fill(inner, Int(widths[1]))
    t = L.acc_type_tuple(b.ctx, length(fields), fields)
    t == C_NULL && throw(AccelError(L.ACC_ERR_INVALID_ARGUMENT))
    return t
end

"""
    Accel.stencil(f, boundary, xs; widths=(3, ...))   # stencil(boundary, xs) do nb ... end

f receives the neighbourhood of each element as nested tuples (in 2-D a tuple
of rows, the focus in the middle).  boundary is :clamp, :mirror, :wrap, or a
value (a constant boundary).
"""
function stencil(f, boundary, xs::Acc; widths=nothing)
    b = current_builder()
    r = rank_of(b, xs)
    w = widths === nothing ? fill(Int32(3), r) : Int32[widths...]
    length(w) == r ||
        throw(ArgumentError("widths has $(length(w)) entries, the array has rank $r"))
    el = elem_type(b, xs)
    fn = lambda(b, f, [neighbourhood_type(b, el, w)])
    code, arg = boundary_node(b, boundary, el)
    return GC.@preserve w array(b, made(b, L.acc_stencil(b.g, fn, w, code, arg, node(b, xs))))
end

function boundary_node(b::Builder, boundary, el::Ptr{L.acc_type})
    boundary === :clamp && return (L.ACC_BOUNDARY_CLAMP, Ptr{L.acc_node}(C_NULL))
    boundary === :mirror && return (L.ACC_BOUNDARY_MIRROR, Ptr{L.acc_node}(C_NULL))
    boundary === :wrap && return (L.ACC_BOUNDARY_WRAP, Ptr{L.acc_node}(C_NULL))
    boundary isa Symbol &&
        throw(ArgumentError("boundary :$boundary; use :clamp, :mirror, :wrap or a value"))
    value = boundary isa Number ? typed_literal(b, el, boundary) : to_node(b, boundary)
    return (L.ACC_BOUNDARY_CONSTANT, value)
end

"""
    Accel.expand(size, get, xs)

Each element x of the vector xs contributes size(x) results get(x, 0), ...,
get(x, size(x) - 1), concatenated in order.
"""
function expand(size, get, xs::Acc)
    b = current_builder()
    el = elem_type(b, xs)
    sn = lambda(b, size, [el])
    gn = lambda(b, get, [el, L.acc_type_scalar(L.ACC_I64)])
    return array(b, made(b, L.acc_expand(b.g, sn, gn, node(b, xs))))
end

"`acond c a b`: the array computation a if the scalar c holds, else b."
function acond(c, x, y)
    b = current_builder()
    return term(b, made(b, L.acc_acond(b.g, to_node(b, c), to_node(b, x), to_node(b, y))))
end

"""
    Accel.awhile(cond, body, init)

Array loop: apply the array function body to init while cond (returning a
Scalar Bool array, see `unit`) holds, tested first.
"""
function awhile(cond, body, init)
    b = current_builder()
    i = to_node(b, init)
    t = L.acc_node_type(i)
    return term(b, made(b, L.acc_awhile(b.g, lambda(b, cond, [t]), lambda(b, body, [t]), i)))
end

"""
    Accel.foreign(name, fallback, arg)

A foreign array function: the implementation registered under name (a
plugin's, such as "blas.dot") when the backend has one that accepts arg (an
array or a tuple of arrays), else the Julia function fallback, traced.
"""
function foreign(name::AbstractString, fallback, arg)
    b = current_builder()
    a = to_node(b, arg)
    fn = lambda(b, fallback, [L.acc_node_type(a)])
    return term(b, made(b, L.acc_foreign(b.g, String(name), fn, a)))
end

# Scalars and arrays.
# A term of the result of builder call `make` on the nodes of `args`.
function apply_node(make, args...)
    b = current_builder()
    return term(b, made(b, make(b.g, (to_node(b, a) for a in args)...)))
end

"A Scalar (rank-0 array) holding x."
unit(x) = apply_node(L.acc_unit, x)
"The value of a Scalar."
the(xs::Acc) = apply_node(L.acc_the, xs)
"The shape of xs, an index term (outermost extent first)."
shape(xs::Acc) = apply_node(L.acc_shape, xs)
"The number of elements of xs (an Int64 term)."
nelems(xs::Acc) = apply_node(L.acc_size, xs)

"""
    Accel.at(xs, ix), Accel.at(xs, i, j, ...)

xs ! ix: the element of xs at the 0-based index ix (an index term, or its
components, outermost first).
"""
function at(xs::Acc, ix...)
    b = current_builder()
    if length(ix) == 1 && ix[1] isa Exp &&
       L.acc_type_get_kind(node_type(b, ix[1])) == L.ACC_TYPE_SHAPE
        i = node(b, ix[1])
    else
        i = node(b, index(ix...))
    end
    return term(b, made(b, L.acc_read(b.g, node(b, xs), i)))
end

"xs !! k: the element at row-major position k (0-based)."
function at_linear(xs::Acc, k)
    b = current_builder()
    kn = k isa Exp ? node(b, k) : constant(b, L.ACC_I64, k)
    return term(b, made(b, L.acc_read_linear(b.g, node(b, xs), kn)))
end

# replicate and slice specifications: All keeps a dimension.
struct AllDimensions end
"The `All` entry of a replicate or slice specification."
const All = AllDimensions()

spec_nodes(b::Builder, spec) =
    Ptr{L.acc_node}[s isa AllDimensions ? made(b, L.acc_all(b.g)) :
                    s isa Exp ? node(b, s) : constant(b, L.ACC_I64, s) for s in spec]

"replicate((4, All), xs): new dimensions where the spec has extents, outermost first."
function replicate(spec::Tuple, xs::Acc)
    b = current_builder()
    items = spec_nodes(b, spec)
    return array(b, made(b, L.acc_replicate(b.g, length(items), items, node(b, xs))))
end

"slice(xs, (2, All)): fixes the dimensions where the spec has indices."
function slice(xs::Acc, spec::Tuple)
    b = current_builder()
    items = spec_nodes(b, spec)
    return array(b, made(b, L.acc_slice(b.g, node(b, xs), length(items), items)))
end

# Standard library entries backed by foreign nodes (BLAS where loaded).
"dot(xs, ys): Vector, Vector -> Scalar (\"blas.dot\")."
dot(xs::Acc, ys::Acc) = apply_node(L.acc_dot, xs, ys)
"gemv(a, x): Matrix [m, n], Vector [n] -> Vector [m] (\"blas.gemv\")."
gemv(a::Acc, x::Acc) = apply_node(L.acc_gemv, a, x)
"gemm(a, b): Matrix [m, k], Matrix [k, n] -> Matrix [m, n] (\"blas.gemm\")."
gemm(a::Acc, x::Acc) = apply_node(L.acc_gemm, a, x)

# --- building a program -------------------------------------------------------------------

# An argument type of build: an Array type (element type and rank), or a
# scalar or tuple type for a rank-0 input.
input_spec(::Type{Array{T,N}}) where {T,N} = (tree_of(T), N)
input_spec(::Type{T}) where {T<:Union{Number,Tuple}} = (tree_of(T), 0)
input_spec(T) = throw(ArgumentError(
    "an argument type of Accel.build is an Array type such as Vector{Float32} " *
    "(rank and element type) or a scalar type such as Int64 (a rank-0 input), not $T"))

result_nodes(b::Builder, r::Acc) = Ptr{L.acc_node}[node(b, r)]
function result_nodes(b::Builder, r::Tuple)
    all(x -> x isa Acc, r) ||
        throw(ArgumentError("a program returns an array term or a tuple of them"))
    return Ptr{L.acc_node}[node(b, x) for x in r]
end
result_nodes(b::Builder, r) =
    throw(ArgumentError("a program returns an array term or a tuple of them, not a $(typeof(r))"))

"""
    Accel.build(f, ctx, argtypes...) -> Program

Builds a program by calling f once on one array term per argument type
(`Vector{Float32}`, `Matrix{Int32}`, `Vector{Tuple{Float32,Float32}}`, or a
scalar type such as `Int64` for a rank-0 input, read with `the`), and
compiles what f returns (an array term or a tuple of them):

    dotp = Accel.build(ctx, Vector{Float32}, Vector{Float32}) do xs, ys
        Accel.fold(+, 0, map(*, xs, ys))
    end
    dotp(Float32[1, 2, 3], Float32[4, 5, 6])[]     # 32.0f0
"""
function build(f, ctx::Context, argtypes...)
    release_queued()
    specs = map(input_spec, argtypes)
    h = reserve_child!(ctx)
    graph = Ref{Ptr{L.acc_graph}}(C_NULL)
    status = L.acc_graph_create(h, graph)
    if status != L.ACC_OK
        err = AccelError(status)
        child_released!(ctx)
        throw(err)
    end
    g = graph[]
    program = Ptr{L.acc_program}(C_NULL)
    try
        b = Builder(g, h)
        inputs = [array(b, made(b, L.acc_input(g, accel_type(h, tree), rank)))
                  for (tree, rank) in specs]
        result = task_local_storage(BUILDER_KEY, b) do
            f(inputs...)
        end
        results = result_nodes(b, result)
        out = Ref{Ptr{L.acc_program}}(C_NULL)
        check(L.acc_compile(h, g, length(results), results, out))
        program = out[]
    finally
        L.acc_graph_free(g)
        program == C_NULL && child_released!(ctx)
    end
    return new_program(ctx, program, "")
end
