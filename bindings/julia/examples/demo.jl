# demo.jl — Accel.jl in a few lines (`make demo` runs it where Julia
# exists; see ../README.md: this file has never run on accel's machines).
#
#   ACCEL_LIBRARY=build/libaccel.so.1 julia --project=bindings/julia/Accel \
#       bindings/julia/examples/demo.jl

using Accel

Context() do ctx
    println("accel ", Accel.version(), " from ", Accel.library_path(),
            ", backend ", backend(ctx))

    # A text program (LANGUAGE.md §4), called on Julia arrays.
    dotp = Program(ctx, """
        dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =
          fold (+) 0 (zipWith (*) xs ys)
        """)
    xs, ys = Float32.(1:1000), fill(0.5f0, 1000)
    r = dotp(xs, ys)[]
    println("dotp from text:   ", r, " (Julia: ", sum(xs .* ys), ")")

    # The same program built from Julia functions.
    built = Accel.build(ctx, Vector{Float32}, Vector{Float32}) do a, b
        Accel.fold(+, 0, map(*, a, b))
    end
    println("dotp from Julia:  ", built(xs, ys)[])

    # Layout: a matrix program sees a Julia matrix as its transpose.
    rowsums = Program(ctx, "rowsums (m : Matrix i64) : Vector i64 = fold (+) 0 m")
    M = [10i + j for i in 1:3, j in 1:4]
    println("rowsums(M)        = ", rowsums(M), " (the columns of the 3×4 M)")
    println("rowsums(row_major(M)) = ", rowsums(row_major(M)), " (its rows)")

    # Errors carry accel's status and message.
    try
        Program(ctx, "bad (xs : Vector f32) : Vector f32 = map (\\x -> ) xs")
    catch e
        e isa AccelError || rethrow()
        println("a parse error:    ", e.name, ": ", e.message)
    end
end
