# runtests.jl — Accel.jl's tests: the programs of LANGUAGE.md §4, from text
# and from the embedded language, against plain Julia references; the
# layout convention; errors; releasing; DLPack.
#
# Run with `julia --project=bindings/julia/Accel bindings/julia/Accel/test/runtests.jl`
# (ACCEL_LIBRARY=path/to/libaccel.so.1 when it is not installed or built in
# build/); ctest runs it as bindings.julia.runtests when julia is on PATH.

using Test
using Random
using Accel
using Accel: LibAccel, build, fold, foldseg, backpermute, permute, generate, stencil,
             index, at, the, shape, cast, cond, iterate_while, foreign, unit,
             release_queued, run_dlpack, unsafe_to_dlpack

# The §4 programs exactly as LANGUAGE.md writes them: the file every
# binding's tests read (tests/programs/ of the repository).
const PROGRAMS = read(joinpath(@__DIR__, "..", "..", "..", "..", "tests", "programs",
                               "language4.acc"), String)

# --- the same programs in the embedded language -----------------------------------

function cnd(d)
    k = 1 / (1 + 0.2316419f0 * abs(d))
    poly = k * (0.31938153f0 + k * (-0.356563782f0 + k * (1.781477937f0 +
           k * (-1.821255978f0 + k * 1.330274429f0))))
    c = 0.3989422804014327f0 * exp(-0.5f0 * d * d) * poly
    return cond(d > 0, 1 - c, c)
end

built_dotp(ctx) = build(ctx, Vector{Float32}, Vector{Float32}) do xs, ys
    fold(+, 0, map(*, xs, ys))
end

built_smvm(ctx) = build(ctx, Vector{Int64}, Vector{Int64}, Vector{Float32},
                        Vector{Float32}) do segd, inds, vals, vec
    vecvals = backpermute(shape(inds), i -> (at(inds, i),), vec)
    foldseg(+, 0, map(*, vecvals, vals), segd)
end

built_blackscholes(ctx) = build(ctx, Vector{Tuple{Float32,Float32,Float32}}) do opts
    map(opts) do (price, strike, years)
        r = 0.02f0
        v = 0.30f0
        v_sqrtT = v * sqrt(years)
        d1 = (log(price / strike) + (r + 0.5f0 * v * v) * years) / v_sqrtT
        d2 = d1 - v_sqrtT
        cndD1 = cnd(d1)
        cndD2 = cnd(d2)
        x_expRT = strike * exp(-r * years)
        (price * cndD1 - x_expRT * cndD2, x_expRT * (1 - cndD2) - price * (1 - cndD1))
    end
end

built_histogram(ctx) = build(ctx, Int64, Vector{Int32}) do k, xs
    permute(+, fill(Int32(0), index(the(k))), ix -> (cast(Int64, at(xs, ix)),),
            map(_ -> Int32(1), xs))
end

built_blur(ctx) = build(ctx, Matrix{Float32}) do img
    stencil(:clamp, img) do nb
        (a, b, c), (d, e, f), (g, h, i) = nb
        (a + 2b + c + 2d + 4e + 2f + g + 2h + i) / 16
    end
end

built_mandelbrot(ctx) = build(ctx, Int64, Int64, Int32) do width, height, limit
    w, h, lim = the(width), the(height), the(limit)
    generate((h, w)) do ix
        y, x = ix
        cx = -2.0f0 + 3.0f0 * cast(Float32, x) / cast(Float32, w)
        cy = -1.2f0 + 2.4f0 * cast(Float32, y) / cast(Float32, h)
        zx, zy, n = iterate_while(
            ((zx, zy, n),) -> (n < lim) & (zx * zx + zy * zy < 4.0f0),
            ((zx, zy, n),) -> (zx * zx - zy * zy + cx, 2.0f0 * zx * zy + cy, n + 1),
            (0.0f0, 0.0f0, Int32(0)))
        n
    end
end

built_dotBlas(ctx) = build(ctx, Vector{Float32}, Vector{Float32}) do xs, ys
    foreign("blas.dot", ((a, b),) -> fold(+, 0, map(*, a, b)), (xs, ys))
end

const BUILT = Dict{String,Function}(
    "dotp" => built_dotp, "smvm" => built_smvm, "blackscholes" => built_blackscholes,
    "histogram" => built_histogram, "blur" => built_blur, "mandelbrot" => built_mandelbrot,
    "dotBlas" => built_dotBlas)

# --- plain Julia references (written in accel's row-major view) -------------------

ref_dotp(xs, ys) = sum(xs .* ys)

function ref_smvm(segd, inds, vals, vec)
    out = zeros(Float32, length(segd))
    k = 0
    for (row, len) in enumerate(segd), _ in 1:len
        k += 1
        out[row] += vals[k] * vec[inds[k] + 1]
    end
    return out
end

function ref_cnd(d::Float32)
    k = 1.0f0 / (1.0f0 + 0.2316419f0 * abs(d))
    poly = k * (0.31938153f0 + k * (-0.356563782f0 + k * (1.781477937f0 +
           k * (-1.821255978f0 + k * 1.330274429f0))))
    c = 0.3989422804014327f0 * exp(-0.5f0 * d * d) * poly
    return d > 0 ? 1.0f0 - c : c
end

function ref_blackscholes(price, strike, years)
    call, put = similar(price), similar(price)
    for i in eachindex(price)
        r, v = 0.02f0, 0.30f0
        v_sqrtT = v * sqrt(years[i])
        d1 = (log(price[i] / strike[i]) + (r + 0.5f0 * v * v) * years[i]) / v_sqrtT
        d2 = d1 - v_sqrtT
        x_expRT = strike[i] * exp(-r * years[i])
        call[i] = price[i] * ref_cnd(d1) - x_expRT * ref_cnd(d2)
        put[i] = x_expRT * (1 - ref_cnd(d2)) - price[i] * (1 - ref_cnd(d1))
    end
    return call, put
end

function ref_histogram(k, xs)
    out = zeros(Int32, k)
    for x in xs
        out[x + 1] += 1
    end
    return out
end

# blur of the accel matrix that the Julia matrix M is: accel's [r, c] is
# M[c+1, r+1]; the result is returned in the same (Julia) layout.
function ref_blur(M::Matrix{Float32})
    ncols, nrows = size(M)                 # accel: nrows rows of ncols
    at_rc(r, c) = M[clamp(c, 0, ncols - 1) + 1, clamp(r, 0, nrows - 1) + 1]
    out = similar(M)
    w = Float32[1 2 1; 2 4 2; 1 2 1]
    for r in 0:nrows-1, c in 0:ncols-1
        s = 0.0f0
        for dr in -1:1, dc in -1:1
            s += w[dr + 2, dc + 2] * at_rc(r + dr, c + dc)
        end
        out[c + 1, r + 1] = s / 16
    end
    return out
end

# Escape counts in accel's [height, width] view, returned as the Julia
# (width, height) matrix the program's result is.
function ref_mandelbrot(width, height, limit)
    out = zeros(Int32, width, height)
    for y in 0:height-1, x in 0:width-1
        cx = -2.0f0 + 3.0f0 * Float32(x) / Float32(width)
        cy = -1.2f0 + 2.4f0 * Float32(y) / Float32(height)
        zx, zy, n = 0.0f0, 0.0f0, Int32(0)
        while n < limit && zx * zx + zy * zy < 4.0f0
            zx, zy, n = zx * zx - zy * zy + cx, 2.0f0 * zx * zy + cy, n + Int32(1)
        end
        out[x + 1, y + 1] = n
    end
    return out
end

# --- running one program both ways ------------------------------------------------

# Integer-valued floats keep sums exact, whatever order accel adds in.
small_floats(rng, n) = Float32.(rand(rng, -8:8, n))

function check_programs(ctx, make)
    rng = MersenneTwister(20240521)

    @testset "dotp" begin
        p = make("dotp")
        for n in (0, 1, 1000)
            xs, ys = small_floats(rng, n), small_floats(rng, n)
            r = p(xs, ys)
            @test r isa Array{Float32,0}
            @test r[] == ref_dotp(xs, ys)
        end
    end

    @testset "smvm" begin
        p = make("smvm")
        segd = Int64[2, 0, 3, 1]
        n = sum(segd)
        inds = Int64.(rand(rng, 0:4, n))
        vals, vec = small_floats(rng, n), small_floats(rng, 5)
        @test p(segd, inds, vals, vec) == ref_smvm(segd, inds, vals, vec)
    end

    @testset "blackscholes" begin
        p = make("blackscholes")
        n = 100
        price = Float32.(5 .+ 25 .* rand(rng, n))
        strike = Float32.(1 .+ 99 .* rand(rng, n))
        years = Float32.(0.25 .+ 9.75 .* rand(rng, n))
        call, put = p((price, strike, years))
        rcall, rput = ref_blackscholes(price, strike, years)
        @test isapprox(call, rcall; rtol=1e-4, atol=1e-3)
        @test isapprox(put, rput; rtol=1e-4, atol=1e-3)
    end

    @testset "histogram" begin
        p = make("histogram")
        xs = Int32[0, 0, 1, 2, 1, 1, 2, 4, 8, 3, 4, 9, 8, 3, 2, 5, 5, 3, 1, 2]
        @test p(10, xs) == ref_histogram(10, xs)
        ys = Int32.(rand(rng, 0:16, 500))
        @test p(17, ys) == ref_histogram(17, ys)
    end

    @testset "blur" begin
        p = make("blur")
        M = small_floats(rng, 7 * 5)
        img = reshape(M, 7, 5)         # accel sees 5 rows of 7 columns
        out = p(img)
        @test size(out) == size(img)
        @test isapprox(out, ref_blur(img); rtol=1e-6)
    end

    @testset "mandelbrot" begin
        p = make("mandelbrot")
        width, height, limit = 64, 40, Int32(100)
        out = p(width, height, limit)
        @test size(out) == (width, height)   # accel's [height, width], reversed
        ref = ref_mandelbrot(width, height, limit)
        # Points on the set's edge may escape one step apart when the C
        # compiler contracts a*b+c into an FMA; nearly all must agree.
        @test count(out .== ref) >= 0.99 * length(ref)
        @test all(0 .<= out .<= limit)
    end

    @testset "dotBlas" begin
        p = make("dotBlas")
        xs, ys = small_floats(rng, 257), small_floats(rng, 257)
        @test p(xs, ys)[] == ref_dotp(xs, ys)
    end
end

available_backends() = filter([:interp, :cpu]) do b
    try
        Context(c -> true; backend=b)
    catch e
        e isa AccelError || rethrow()
        @info "backend $b not available here: $(e.message)"
        false
    end
end

@testset "Accel.jl" begin
    @test Accel.version() isa VersionNumber
    @test sort(entries(PROGRAMS)) ==
          sort(["dotp", "smvm", "blackscholes", "histogram", "blur", "mandelbrot", "dotBlas"])

    for b in available_backends()
        @testset "§4 programs from text on $b" begin
            Context(backend=b) do ctx
                @test backend(ctx) == b
                check_programs(ctx, name -> Program(ctx, PROGRAMS, name))
            end
        end
        @testset "§4 programs from the embedded language on $b" begin
            Context(backend=b) do ctx
                check_programs(ctx, name -> BUILT[name](ctx))
            end
        end
    end

    Context(backend=:interp) do ctx
        @testset "layout: a matrix program sees a Julia matrix as its transpose" begin
            rows = Program(ctx, "rowsums (m : Matrix i64) : Vector i64 = fold (+) 0 m")
            M = [10i + j for i in 1:3, j in 1:4]          # 3×4 Julia matrix
            # accel sees 4 rows of 3: row r is the Julia column r+1.
            @test rows(M) == vec(sum(M; dims=1))
            # With row_major the program sees Julia's own rows.
            @test rows(Accel.row_major(M)) == vec(sum(M; dims=2))
            ident = Program(ctx, "ident (m : Matrix i64) : Matrix i64 = map (\\x -> x) m")
            @test ident(M) == M                       # no transposition anywhere
            @test Accel.from_row_major(ident(Accel.row_major(M))) == M
            gen = Program(ctx, "gen (r : i64) (c : i64) : Matrix i64 = " *
                               "generate [r, c] (\\[i, j] -> 10 * i + j)")
            G = gen(2, 3)                              # accel [2, 3]
            @test size(G) == (3, 2)
            @test Accel.from_row_major(G) == [10i + j for i in 0:1, j in 0:2]
        end

        @testset "tuple results and tuple arguments" begin
            p = Program(ctx, raw"""
                split (xs : Vector (i32, f64)) : (Vector i32, Vector f64) =
                  (map (\(a, b) -> a * 2) xs, map (\(a, b) -> b + 1.0) xs)
                """)
            a, b = p((Int32[1, 2, 3], [0.5, 1.5, 2.5]))
            @test a == Int32[2, 4, 6]
            @test b == [1.5, 2.5, 3.5]
            @test_throws ArgumentError p(Int32[1, 2, 3])          # not a tuple
            @test_throws ArgumentError p((Int32[1, 2], [0.5]))    # sizes differ
        end

        @testset "errors are AccelErrors with accel's status and message" begin
            e = try
                Program(ctx, "bad (xs : Vector f32) : Vector f32 = map (\\x -> ) xs")
                nothing
            catch err
                err
            end
            @test e isa AccelError
            @test e.status == LibAccel.ACC_ERR_PARSE
            @test e.name == "ACC_ERR_PARSE"
            @test occursin(r"^\d+:\d+: ", e.message)
            p = Program(ctx, "neg (xs : Vector f32) : Vector f32 = map negate xs")
            @test_throws ArgumentError p([1.0, 2.0])               # Float64, no conversion
            @test_throws ArgumentError p(Float32[1 2; 3 4])        # rank 2
            @test_throws ArgumentError p(view(Float32[1, 2, 3], 1:2))
            r = Program(ctx, "r (xs : Vector i64) : Matrix i64 = reshape [2, 2] xs")
            e2 = try
                r(Int64[1, 2, 3])
                nothing
            catch err
                err
            end
            @test e2 isa AccelError && e2.status == LibAccel.ACC_ERR_SHAPE
            # The builder reports the operation that refused its arguments.
            e3 = try
                build(ctx, Vector{Float32}, Vector{Int32}) do xs, ys
                    map(*, xs, ys)
                end
                nothing
            catch err
                err
            end
            @test e3 isa AccelError && e3.status == LibAccel.ACC_ERR_TYPE
        end

        @testset "close, do-blocks and finalizers" begin
            src = "inc (xs : Vector i64) : Vector i64 = map (+ 1) xs"
            p = Program(ctx, src)
            @test isopen(p)
            close(p)
            @test !isopen(p)
            e = try
                p(Int64[1])
                nothing
            catch err
                err
            end
            @test e isa AccelError && e.status == LibAccel.ACC_ERR_INVALID_HANDLE
            close(p)                                   # twice is fine
            @test Program(q -> q(Int64[1, 2]), ctx, src) == Int64[2, 3]
            # Unreachable programs and results are queued by their finalizers
            # and released by the next call.
            for _ in 1:20
                Program(ctx, src)(collect(Int64, 1:1000))
            end
            GC.gc(true)
            release_queued()
            @test Program(q -> q(Int64[41]), ctx, src) == Int64[42]
            # A result outlives its program and keeps its buffer when reshaped.
            q = Program(ctx, src)
            r = q(collect(Int64, 1:6))
            close(q)
            r2 = reshape(r, 2, 3)
            r = nothing
            GC.gc(true)
            release_queued()
            @test vec(r2) == collect(Int64, 2:7)
        end

        @testset "closing a context closes its programs first" begin
            c2 = Context(backend=:interp)
            p = Program(c2, "id (xs : Vector i32) : Vector i32 = map (\\x -> x) xs")
            close(c2)
            @test !isopen(p)
            @test !isopen(c2)
            @test_throws AccelError Program(c2, "x (a : Vector i32) : Vector i32 = a")
        end

        @testset "DLPack: results out as tensors, tensors in as arrays" begin
            p = Program(ctx, "sq (xs : Matrix f64) : Matrix f64 = map (\\x -> x * x) xs")
            X = [1.0 2.0 3.0; 4.0 5.0 6.0]              # 2×3, accel [3, 2]
            for versioned in (false, true)
                tensors = run_dlpack(p, X; versioned=versioned)
                @test length(tensors) == 1
                Y = from_dlpack(tensors[1])               # zero copy back
                @test Y == X .^ 2
                @test size(Y) == size(X)
            end
            # A Julia array described as a tensor, then read back.
            t = unsafe_to_dlpack(X)
            GC.@preserve X begin
                Z = from_dlpack(t)
                @test Z == X
                @test pointer(Z) == pointer(X)            # the same memory
                Z = nothing
                GC.gc(true)
                release_queued()                           # the tensor's deleter, not X
            end
            @test X == [1.0 2.0 3.0; 4.0 5.0 6.0]
        end
    end
end
