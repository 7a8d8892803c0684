"""
    Accel

Julia binding of accel: data-parallel array programs (map, fold, scan,
permute, stencil, ...) compiled once by libaccel and run many times on Julia
arrays, without copying them.

Programs come from text (`Program(ctx, source, entry)`) or are built from
Julia functions (`Accel.build(ctx, Vector{Float32}, ...) do xs ... end`).
A Julia `Array{T,N}` is given to accel as the row-major array of the
*reversed* shape (the same memory; see the README), and results come back
the same way.  Errors are `AccelError`s carrying accel's status and message.

Handles (`Context`, `Program`) are released by `close` (or at the end of a
do-block), otherwise when the garbage collector finds them unreachable: a
finalizer only queues the release, which the next call into Accel (or
`Accel.release_queued()`) carries out.
"""
module Accel

include("capi.jl")
const L = LibAccel

include("errors.jl")
include("release.jl")
include("context.jl")
include("scalars.jl")
include("arrays.jl")
include("program.jl")
include("builder.jl")
include("dlpack.jl")
include("layout.jl")

export AccelError, Context, Program, backend, entries, explain, plan,
       from_dlpack, row_major, from_row_major

function __init__()
    L.load_library!()
    return nothing
end

"""
    Accel.version() -> VersionNumber

The version of the libaccel that was loaded.
"""
version() = VersionNumber(unsafe_string(L.acc_version_string()))

"""
    Accel.library_path() -> String

The file libaccel was loaded from (`ACCEL_LIBRARY`, the installed library, or
the build tree of this checkout).
"""
library_path() = L.PATH[]

end # module Accel
