# release.jl — releasing libaccel's handles and buffers from finalizers.
#
# Julia runs a finalizer at whatever allocation triggers a collection, on
# whichever thread made it, possibly while that thread holds a lock of this
# package or is in the middle of a call into libaccel.  So a finalizer here
# never takes a lock, never blocks and never calls libaccel (whose frees take
# locks of their own): it pushes its object onto RELEASE_QUEUE, a lock-free
# stack (one compare-and-swap), and that is all.  The object stays reachable
# from the queue.  The queued releases are carried out by the next call into
# Accel from a task (every public entry point starts with release_queued()),
# by `close`, or by `Accel.release_queued()` itself.

mutable struct QueueNode
    const item::Any
    next::Union{QueueNode,Nothing}
end

mutable struct ReleaseQueue
    @atomic head::Union{QueueNode,Nothing}
end

const RELEASE_QUEUE = ReleaseQueue(nothing)

# The finalizer of every object that owns something of libaccel's.
function enqueue_release(item)
    node = QueueNode(item, nothing)
    head = @atomic RELEASE_QUEUE.head
    while true
        node.next = head
        head, done = @atomicreplace RELEASE_QUEUE.head head => node
        done && return nothing
    end
end

"""
    Accel.release_queued()

Releases what finalizers have queued since the last call (programs,
contexts and result buffers the garbage collector found unreachable).  Every
call into Accel does this first; call it yourself after `GC.gc()` to have
the memory back at once.
"""
function release_queued()
    (@atomic RELEASE_QUEUE.head) === nothing && return nothing
    node = @atomicswap RELEASE_QUEUE.head = nothing
    contexts = Any[]
    # Programs and buffers first: a context outlives what was made from it.
    while node !== nothing
        item = node.item
        item isa Context ? push!(contexts, item) : release!(item)
        node = node.next
    end
    foreach(release!, contexts)
    return nothing
end
