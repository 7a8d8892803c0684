# scalars.jl — accel's scalar and element types as Julia types.
#
# An element type is written as a *type tree*: a Julia scalar type (Float32)
# for a scalar, a Julia tuple of trees ((Float32, (Int32, Bool))) for a tuple.
# Its leaves, depth first, are the buffers of an array of that element type
# (accel stores arrays of tuples as tuples of arrays).

const SCALAR_TYPES = (Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64,
                      Float32, Float64)

const AccelScalar = Union{SCALAR_TYPES...}

scalar_code(::Type{Bool}) = L.ACC_BOOL
scalar_code(::Type{Int8}) = L.ACC_I8
scalar_code(::Type{Int16}) = L.ACC_I16
scalar_code(::Type{Int32}) = L.ACC_I32
scalar_code(::Type{Int64}) = L.ACC_I64
scalar_code(::Type{UInt8}) = L.ACC_U8
scalar_code(::Type{UInt16}) = L.ACC_U16
scalar_code(::Type{UInt32}) = L.ACC_U32
scalar_code(::Type{UInt64}) = L.ACC_U64
scalar_code(::Type{Float32}) = L.ACC_F32
scalar_code(::Type{Float64}) = L.ACC_F64
scalar_code(T) = throw(ArgumentError(
    "accel has no scalar type for $T (it has Bool, Int8-64, UInt8-64, Float32, Float64)"))

# The Julia type of an acc_scalar, looked up through scalar_code (so it
# rests on the constants that check_capi.py compares with accel.h, not on
# the order of SCALAR_TYPES).
function julia_type(code::Integer)
    for T in SCALAR_TYPES
        scalar_code(T) == code && return T
    end
    throw(AccelError(L.ACC_ERR_INTERNAL, "ACC_ERR_INTERNAL", "unknown acc_scalar $code"))
end

is_float_code(code::Integer) = code == L.ACC_F32 || code == L.ACC_F64

# The type tree of an accel type (a scalar, a tuple, or a shape, whose
# components are Int64).
function type_tree(t::Ptr{L.acc_type})
    kind = L.acc_type_get_kind(t)
    if kind == L.ACC_TYPE_SCALAR
        return julia_type(L.acc_type_get_scalar(t))
    elseif kind == L.ACC_TYPE_TUPLE
        n = Int(L.acc_type_get_arity(t))
        return ntuple(i -> type_tree(L.acc_type_get_field(t, i - 1)), n)
    elseif kind == L.ACC_TYPE_SHAPE
        return ntuple(_ -> Int64, Int(L.acc_type_get_rank(t)))
    end
    throw(ArgumentError("not an element type (acc_type_kind $kind)"))
end

# The type tree of a Julia element type: a scalar type or a Tuple type.
tree_of(::Type{T}) where {T<:Tuple} = map(tree_of, fieldtypes(T))
tree_of(::Type{T}) where {T} = (scalar_code(T); T)

# The scalar types of the leaves, depth first.
leaf_types(tree::Type) = Any[tree]
leaf_types(tree::Tuple) = reduce(vcat, map(leaf_types, tree); init=Any[])

# The accel type of a tree, made in context handle `h` when it is a tuple.
function accel_type(h::Ptr{L.acc_context}, tree)
    tree isa Type && return L.acc_type_scalar(scalar_code(tree))
    fields = Ptr{L.acc_type}[accel_type(h, t) for t in tree]
    t = L.acc_type_tuple(h, length(fields), fields)
    t == C_NULL && throw(AccelError(L.ACC_ERR_INVALID_ARGUMENT))
    return t
end

tree_string(tree::Type) = string(tree)
tree_string(tree::Tuple) = "(" * join(map(tree_string, tree), ", ") * ")"
