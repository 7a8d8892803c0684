# errors.jl — AccelError: a failed call of libaccel as a Julia exception.

"""
    AccelError(status, name, message)

A call into libaccel failed.  `status` is accel's status number (fixed,
e.g. `LibAccel.ACC_ERR_SHAPE == 201`), `name` its name (`"ACC_ERR_SHAPE"`),
`message` accel's explanation ("input 2 has rank 1, the program expects
rank 2").
"""
struct AccelError <: Exception
    status::Int
    name::String
    message::String
end

function Base.showerror(io::IO, e::AccelError)
    print(io, "AccelError: ", e.name, " (", e.status, "): ", e.message)
end

status_name(status) = unsafe_string(L.acc_status_string(status))

# The error of a call that returned `status`: accel keeps the message of the
# calling thread's last failing call (acc_last_error), which is this call's,
# since nothing between the two calls can switch tasks.
function AccelError(status::Integer)
    return AccelError(Int(status), status_name(status), unsafe_string(L.acc_last_error()))
end

# Throws unless `status` is ACC_OK.
function check(status::Integer)
    status == L.ACC_OK || throw(AccelError(status))
    return nothing
end

# A handle used after close.
closed_error(what::AbstractString) =
    AccelError(L.ACC_ERR_INVALID_HANDLE, status_name(L.ACC_ERR_INVALID_HANDLE),
               "the $what was closed")
