# arrays.jl — Julia arrays as accel array descriptors, and back, without
# copying.
#
# Julia stores an Array{T,N} of size (d1, ..., dN) column-major: d1 varies
# fastest.  accel stores an array of extents [e1, ..., eN] row-major: eN
# varies fastest.  The same memory is therefore both the Julia array of size
# (d1, ..., dN) and the accel array of extents [dN, ..., d1]: that is how
# arrays cross, in both directions, with no copy and no transposition.  A
# program written for a matrix [rows, cols] sees a Julia Matrix of size
# (m, n) as n rows of m columns: its transpose (see layout.jl).

# The buffers one input or output of a program is made of, and its Julia
# size (d1, ..., dN).
function descriptor(elem::Ptr{L.acc_type}, rank::Integer, leaves::Vector{Any},
                    dims::Tuple)
    extents = ntuple(k -> k <= rank ? Int64(dims[rank - k + 1]) : Int64(0), L.ACC_MAX_RANK)
    data = ntuple(k -> k <= length(leaves) ? leaf_pointer(leaves[k]) : C_NULL,
                  L.ACC_MAX_COMPONENTS)
    return L.acc_array(sizeof(L.acc_array), elem, rank, extents, data, L.ACC_MEMORY_HOST,
                       0, L.ACC_OWNERSHIP_BORROWED, C_NULL, C_NULL)
end

leaf_pointer(a::Array) = Ptr{Cvoid}(pointer(a))

# An output descriptor with no buffers: accel allocates the result.
empty_descriptor() =
    L.acc_array(sizeof(L.acc_array), C_NULL, 0, ntuple(_ -> Int64(0), L.ACC_MAX_RANK),
                ntuple(_ -> C_NULL, L.ACC_MAX_COMPONENTS), L.ACC_MEMORY_HOST, 0,
                L.ACC_OWNERSHIP_BORROWED, C_NULL, C_NULL)

# The Julia arrays an argument gives for the leaves of `tree`, appended to
# `out`: an Array{T,rank} for a leaf T (a number for a rank-0 leaf), a tuple
# following the tree for a tuple element type.  No element is converted or
# copied (a number is put in a 0-dimensional array of the leaf's type).
function argument_leaves!(out::Vector{Any}, tree::Type, rank::Int, x, what)
    if x isa Array
        eltype(x) === tree ||
            throw(ArgumentError("$what: elements of type $(eltype(x)), the program expects " *
                                "$tree (convert it yourself: accel does not copy)"))
        ndims(x) == rank ||
            throw(ArgumentError("$what: a $(ndims(x))-dimensional array, the program " *
                                "expects rank $rank"))
        push!(out, x)
    elseif rank == 0 && x isa Number
        push!(out, fill(convert(tree, x)))
    elseif x isa AbstractArray
        throw(ArgumentError("$what: a $(typeof(x)); accel reads dense `Array`s in place " *
                            "(collect(x) makes one; no copy is made behind your back)"))
    else
        throw(ArgumentError("$what: a $(typeof(x)), the program expects " *
                            (rank == 0 ? "a $tree" : "an Array{$tree,$rank}")))
    end
    return out
end

function argument_leaves!(out::Vector{Any}, tree::Tuple, rank::Int, x, what)
    x isa Tuple && length(x) == length(tree) ||
        throw(ArgumentError("$what: the elements are tuples $(tree_string(tree)); pass a " *
                            "tuple of $(length(tree)) arrays (one per component)"))
    for (i, (t, xi)) in enumerate(zip(tree, x))
        argument_leaves!(out, t, rank, xi, "$what, component $i")
    end
    return out
end

# The common Julia size of the leaves of one argument.
function common_size(leaves::Vector{Any}, what)
    isempty(leaves) && return ()
    dims = size(leaves[1])
    for a in leaves
        size(a) == dims ||
            throw(ArgumentError("$what: the components have sizes $(dims) and $(size(a)); " *
                                "they must be equal"))
    end
    return dims
end

# --- results ---------------------------------------------------------------------

# The buffers of one library-owned output, released when every Julia array
# wrapping them has been collected.
mutable struct OutputBuffers
    const descriptor::Base.RefValue{L.acc_array}
    @atomic live::Int
end

release!(b::OutputBuffers) = L.acc_array_release(b.descriptor)

# Runs in a finalizer: no lock, no call into libaccel.
function leaf_collected(b::OutputBuffers)
    (@atomic b.live -= 1) == 0 && enqueue_release(b)
    return nothing
end

# The object whose collection means the wrapped memory is no longer used.
# From Julia 1.11 on an Array is a view of a Memory object, and `reshape`,
# `vec` and friends make new Arrays over the same Memory, so the finalizer
# goes on the Memory (as Julia's own Mmap does); before, on the Array.
@static if VERSION >= v"1.11"
    buffer_owner(a::Array) = a.ref.mem
else
    buffer_owner(a::Array) = a
end

# Julia arrays over the buffers of output descriptor `d` (accel's extents
# reversed into a Julia size), as a tree of arrays following `tree`.
function wrap_output(d::L.acc_array, tree)
    rank = Int(d.rank)
    dims = ntuple(k -> Int(d.extents[rank - k + 1]), rank)
    buffers = OutputBuffers(Ref(d), 0)
    arrays = Any[]
    for (k, T) in enumerate(leaf_types(tree))
        p = Ptr{T}(d.data[k])
        if prod(dims) == 0 || p == C_NULL
            push!(arrays, Array{T}(undef, dims))     # no elements: nothing to share
        else
            a = unsafe_wrap(Array, p, dims)
            @atomic buffers.live += 1
            finalizer(_ -> leaf_collected(buffers), buffer_owner(a))
            push!(arrays, a)
        end
    end
    (@atomic buffers.live) == 0 && release!(buffers)
    return rebuild(tree, arrays, Ref(0))
end

# The arrays of the leaves, put back into the shape of the tree.
rebuild(tree::Type, arrays::Vector{Any}, pos::Base.RefValue{Int}) = arrays[pos[] += 1]
rebuild(tree::Tuple, arrays::Vector{Any}, pos::Base.RefValue{Int}) =
    map(t -> rebuild(t, arrays, pos), tree)
