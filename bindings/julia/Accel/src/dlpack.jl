# dlpack.jl — DLPack tensors in and out, through accel's C ABI
# (acc_array_from_dlpack*, acc_array_to_dlpack*; docs/ABI.md "DLPack").
#
# A DLPack tensor is row-major like accel, so its shape crosses into Julia
# reversed, as every accel array does: a PyTorch tensor of shape (2, 3)
# becomes a 3×2 Julia Matrix over the same memory, which an accel program
# sees as [2, 3] again.  DLPack.jl (which also reverses row-major shapes) can
# produce and consume the same tensors: see the README.

const DLTensorPtr = Union{Ptr{L.acc_dl_managed_tensor},Ptr{L.acc_dl_managed_tensor_versioned}}

# Device types whose memory is host memory for accel (CPU, CUDA pinned and
# managed memory): the only tensors a Julia Array can wrap.
const HOST_DL_DEVICES = (L.ACC_DL_CPU, L.ACC_DL_CUDA_HOST, L.ACC_DL_CUDA_MANAGED)

dl_device_type(t::Ptr{L.acc_dl_managed_tensor}) = unsafe_load(t).dl_tensor.device.device_type
dl_device_type(t::Ptr{L.acc_dl_managed_tensor_versioned}) =
    unsafe_load(t).dl_tensor.device.device_type

import_tensor(t::Ptr{L.acc_dl_managed_tensor}, out) = L.acc_array_from_dlpack(t, out)
import_tensor(t::Ptr{L.acc_dl_managed_tensor_versioned}, out) =
    L.acc_array_from_dlpack_versioned(t, out)

"""
    from_dlpack(tensor) -> Array

Takes a DLPack tensor (a `Ptr{LibAccel.acc_dl_managed_tensor}`, DLPack 0.x's
`DLManagedTensor`, or a `Ptr{LibAccel.acc_dl_managed_tensor_versioned}`,
DLPack 1.x's) in host memory and returns the Julia array over its memory,
with no copy and its shape reversed.  On success the tensor is Accel's: its
deleter is called, once, when the array has been collected.  A tensor accel
cannot take as it is (strided, an element type accel lacks, ...) raises an
`AccelError` (`ACC_ERR_UNSUPPORTED`, saying why) and stays the caller's.
A tensor flagged read-only comes back as an ordinary Array: do not write it.
"""
function from_dlpack(tensor::DLTensorPtr)
    release_queued()
    tensor == C_NULL && throw(ArgumentError("from_dlpack: NULL tensor"))
    dl_device_type(tensor) in HOST_DL_DEVICES ||
        throw(ArgumentError("from_dlpack: the tensor is on a device (DLPack device type " *
                            "$(dl_device_type(tensor))); Julia arrays wrap host memory"))
    d = Ref(empty_descriptor())
    check(import_tensor(tensor, d))
    return wrap_output(d[], julia_type(L.acc_type_get_scalar(d[].type_)))
end

"""
    Accel.run_dlpack(p::Program, args...; versioned=false) -> Vector{Ptr}

Runs `p` like `p(args...)`, but hands each result over as a DLPack tensor
(`Ptr{LibAccel.acc_dl_managed_tensor}`, or `..._versioned` for DLPack 1.x)
instead of a Julia array: accel's buffer moves into the tensor, with no copy,
and the tensor belongs to its consumer, which must call its deleter once.
Only results with a scalar element type can be tensors (one buffer each).
"""
function run_dlpack(p::Program, args...; versioned::Bool=false)
    for (k, port) in enumerate(p.outputs)
        port.tree isa Type ||
            throw(ArgumentError("result $k has tuple elements $(tree_string(port.tree)); " *
                                "a DLPack tensor holds one buffer"))
    end
    outputs = Ref.(run_descriptors(p, args))
    T = versioned ? L.acc_dl_managed_tensor_versioned : L.acc_dl_managed_tensor
    tensors = Ptr{T}[]
    try
        for d in outputs
            out = Ref{Ptr{T}}(C_NULL)
            check(versioned ? L.acc_array_to_dlpack_versioned(d, out) :
                              L.acc_array_to_dlpack(d, out))
            push!(tensors, out[])
        end
    catch
        # Give back what was made: the tensors (importing one and releasing
        # the import calls its deleter) and the outputs not yet exported.
        for t in tensors
            back = Ref(empty_descriptor())
            import_tensor(t, back) == L.ACC_OK && L.acc_array_release(back)
        end
        foreach(L.acc_array_release, outputs)
        rethrow()
    end
    return tensors
end

"""
    Accel.unsafe_to_dlpack(x::Array; versioned=false) -> Ptr

Describes the Julia array x as a DLPack tensor (shape reversed, row-major),
without copying it.  The tensor refers to x's memory: keep x alive (for
example with `GC.@preserve`) until the tensor's consumer has called its
deleter, which frees the tensor and never x.
"""
function unsafe_to_dlpack(x::Array{T}; versioned::Bool=false) where {T}
    release_queued()
    leaves = Any[x]
    d = Ref(descriptor(L.acc_type_scalar(scalar_code(T)), ndims(x), leaves, size(x)))
    S = versioned ? L.acc_dl_managed_tensor_versioned : L.acc_dl_managed_tensor
    out = Ref{Ptr{S}}(C_NULL)
    GC.@preserve x begin
        check(versioned ? L.acc_array_to_dlpack_versioned(d, out) : L.acc_array_to_dlpack(d, out))
    end
    return out[]
end
