"""accel.jit beyond section 4: operators on symbolic scalars, the
operations of LANGUAGE.md section 3 and the standard library against
numpy, compilation once per signature, sharing by object identity, and
the errors that point Python control flow to accel.cond/while_loop."""
import numpy as np
import pytest

import accel


def test_operators_on_symbolic_scalars(backend):
    @accel.jit(backend=backend)
    def ops(xs, ks):
        fl = accel.map(lambda x: (x + 1, x - 2, x * 3, x / 4, x ** 2.0,
                                  -x, abs(x), x < 0.5, (x >= 0) & (x < 2),
                                  ~(x == 1) | (x != x)), xs)
        it = accel.map(lambda k: (k // 3, k % 3, k & 6, k | 1, k ^ 5, ~k,
                                  k << 2, k >> 1, accel.quot(k, 3),
                                  accel.rem(k, 3)), ks)
        return fl, it

    xs = np.linspace(-3, 3, 13)
    ks = np.arange(-6, 7, dtype=np.int32)
    fl, it = ops(xs, ks)
    want_fl = (xs + 1, xs - 2, xs * 3, xs / 4, xs ** 2.0, -xs, abs(xs),
               xs < 0.5, (xs >= 0) & (xs < 2), ~(xs == 1) | (xs != xs))
    for g, w in zip(fl, want_fl):
        np.testing.assert_allclose(g, w, rtol=1e-15)
    want_it = (ks // 3, ks % 3, ks & 6, ks | 1, ks ^ 5, ~ks, ks << 2,
               ks >> 1, np.trunc(ks / 3).astype(np.int32),
               np.fmod(ks, 3))
    for g, w in zip(it, want_it):
        assert g.dtype == np.int32
        np.testing.assert_array_equal(g, w)


def test_reductions_scans_and_structure(backend, rng):
    @accel.jit(backend=backend)
    def many(m):
        return (accel.fold(lambda a, b: a + b, 0, m),      # rows
                accel.fold_all(lambda a, b: a + b, 0, m),
                accel.maximum(m),
                accel.scanl(lambda a, b: a + b, 10, m),
                accel.scanl1(lambda a, b: a + b, m),
                accel.prescanl(lambda a, b: a + b, 0, m),
                accel.reverse(accel.flatten(m)),
                accel.transpose(m),
                accel.generate(m.shape, lambda i, j: i * 10 + j),
                accel.backpermute((m.shape[1], m.shape[0]),
                                  lambda i, j: (j, i), m),
                accel.replicate((2, accel.All, accel.All), m),
                accel.slice(m, (1, accel.All)))

    m = rng.integers(-50, 50, (3, 5)).astype(np.int64)
    got = many(m)
    cums = np.cumsum(m, axis=1)
    want = (m.sum(1), m.sum(), m.max(1),
            np.concatenate([np.full((3, 1), 10), 10 + cums], 1), cums,
            cums - m, m.ravel()[::-1], m.T,
            np.add.outer(np.arange(3) * 10, np.arange(5)), m.T,
            np.stack([m, m]), m[1])
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(g, w, err_msg="result %d" % k)


def test_permute_stencil_expand_cond_loops(backend, rng):
    @accel.jit(backend=backend)
    def prog(xs, img, n):
        hist = accel.permute(lambda a, b: a + b, accel.fill((n,), 0),
                             lambda i: accel.cond(xs[i] < n, (xs[i],),
                                                  accel.ignore),
                             accel.map(lambda _: 1, xs))
        box = accel.stencil(lambda r0, r1, r2: r1[1] - r0[1],
                            accel.constant(0.0), img)
        ex = accel.expand(lambda x: x % 3, lambda x, k: x * 10 + k, xs)
        collatz = accel.map(lambda x: accel.while_loop(
            lambda v, s: v > 1,
            lambda v, s: (accel.cond(v % 2 == 0, v // 2, 3 * v + 1), s + 1),
            (x + 1, 0))[1], xs)
        halve = accel.awhile(lambda a: accel.sum(a)[()] > 100,
                             lambda a: accel.map(lambda v: v // 2, a), xs)
        return hist, box, ex, collatz, halve

    xs = rng.integers(0, 12, 40).astype(np.int64)
    img = rng.uniform(0, 1, (4, 6))
    hist, box, ex, collatz, halve = prog(xs, img, 10)
    np.testing.assert_array_equal(hist, np.bincount(xs[xs < 10],
                                                    minlength=10))
    up = np.vstack([np.zeros((1, 6)), img[:-1]])
    np.testing.assert_allclose(box, img - up)
    np.testing.assert_array_equal(
        ex, [x * 10 + k for x in xs for k in range(x % 3)])

    def steps(v):
        s = 0
        while v > 1:
            v, s = (v // 2 if v % 2 == 0 else 3 * v + 1), s + 1
        return s
    np.testing.assert_array_equal(collatz, [steps(x + 1) for x in xs])
    h = xs.copy()
    while h.sum() > 100:
        h //= 2
    np.testing.assert_array_equal(halve, h)


def test_blas_and_fft_library(backend, rng):
    @accel.jit(backend=backend)
    def lin(a, b, x, re, im):
        return (accel.dot(x, x), accel.gemv(a, x), accel.gemm(a, b),
                accel.fft(accel.zip(re, im)))

    a = rng.uniform(-1, 1, (4, 3))
    b = rng.uniform(-1, 1, (3, 5))
    x = rng.uniform(-1, 1, 3)
    re, im = rng.uniform(-1, 1, 8), rng.uniform(-1, 1, 8)
    d, gv, gm, (fr, fi) = lin(a, b, x, re, im)
    np.testing.assert_allclose(d, x @ x)
    np.testing.assert_allclose(gv, a @ x)
    np.testing.assert_allclose(gm, a @ b)
    f = np.fft.fft(re + 1j * im)
    np.testing.assert_allclose(fr, f.real, atol=1e-12)
    np.testing.assert_allclose(fi, f.imag, atol=1e-12)


def test_compiled_once_per_signature():
    calls = []

    @accel.jit(backend="interp")
    def twice(xs):
        calls.append(1)
        return accel.map(lambda x: x + x, xs)

    twice(np.ones(3, np.float32))
    twice(np.ones(7, np.float32))       # same signature: no new trace
    assert len(calls) == 1 and len(twice.signatures) == 1
    r = twice(np.ones((2, 2), np.int16))  # new rank and type
    assert len(calls) == 2 and r.dtype == np.int16

    @accel.jit(backend="interp")
    def square(x):
        return x * x

    r = square(np.float32(3))          # a scalar: a 0-d result
    assert r.shape == () and r.dtype == np.float32 and r == 9
    assert square(3) == 9 and square(3).dtype == np.int64
    assert len(square.signatures) == 2


def test_sharing_is_object_identity():
    @accel.jit(backend="interp")
    def shared(xs):
        ys = accel.map(lambda x: x * 2, xs)
        return accel.zipwith(lambda a, b: a + b, ys, ys)

    @accel.jit(backend="interp")
    def rebuilt(xs):
        return accel.zipwith(lambda a, b: a + b,
                             accel.map(lambda x: x * 2, xs),
                             accel.map(lambda x: x * 2, xs))

    xs = np.arange(5.0)
    np.testing.assert_array_equal(shared(xs), 4 * xs)
    np.testing.assert_array_equal(rebuilt(xs), 4 * xs)
    a, b = shared.explain(xs), rebuilt.explain(xs)
    # one object used twice is one node, computed once (here kept as an
    # intermediate array); two equal objects are two nodes, each fused
    assert (a["kernels"], a["intermediates"]) == (2, 1)
    assert (b["kernels"], b["intermediates"]) == (1, 0)


def test_captured_arrays_and_tuples():
    table = np.array([10, 20, 30], np.int64)

    @accel.jit(backend="interp")
    def look(ix, pair):
        # a tuple argument is an array of tuples (struct of arrays)
        a, b = accel.unzip(pair)
        got = accel.map(lambda i: accel.use(table)[i], ix)
        three = accel.zip(a, b, ix)  # zip3
        n = accel.length(ix)
        return got, accel.zipwith(lambda p, q: (q, p), a, b), three, \
            accel.unit(n)

    got, (q, p), (z0, z1, z2), n = look(np.array([2, 0, 1]), (np.arange(3.0),
                                             np.arange(3, dtype=np.int32)))
    np.testing.assert_array_equal(got, [30, 10, 20])
    assert q.dtype == np.int32 and p.dtype == np.float64
    np.testing.assert_array_equal(z2, [2, 0, 1])
    np.testing.assert_array_equal(z1, [0, 1, 2])
    assert z0.dtype == np.float64 and n == 3


def test_python_control_flow_points_to_cond_and_while():
    @accel.jit(backend="interp")
    def bad_if(xs):
        return accel.map(lambda x: x if x > 0 else -x, xs)

    with pytest.raises(accel.AccelError, match=r"accel\.cond"):
        bad_if(np.ones(3))

    @accel.jit(backend="interp")
    def bad_while(x):
        while x < 10:
            x = x * 2
        return x

    with pytest.raises(accel.AccelError, match=r"accel\.while_loop"):
        bad_while(1.0)


def test_builder_errors_name_the_line_and_types():
    @accel.jit(backend="interp")
    def mixed(xs, ys):
        return accel.zipwith(lambda a, b: a + b, xs, ys)

    with pytest.raises(accel.TypeMismatchError, match="f32 and i32"):
        mixed(np.ones(3, np.float32), np.ones(3, np.int32))

    @accel.jit(backend="interp")
    def intdiv(ks):
        return accel.map(lambda k: k / 2, ks)

    with pytest.raises(accel.TypeMismatchError, match="//"):
        intdiv(np.ones(3, np.int32))

    @accel.jit(backend="interp")
    def none(xs):
        accel.map(lambda x: x, xs)

    with pytest.raises(accel.InvalidArgumentError, match="returned None"):
        none(np.ones(3))
    @accel.jit(backend="interp")
    def arity(xs):
        return accel.map(lambda a, b: a + b, xs)

    with pytest.raises(accel.InvalidArgumentError,
                       match="takes 2 parameters, and is given 1"):
        arity(np.ones(3))

    @accel.jit(backend="interp")
    def listed(xs):
        return [xs, xs]

    with pytest.raises(accel.InvalidArgumentError, match="as a tuple"):
        listed(np.ones(3))
    with pytest.raises(accel.InvalidArgumentError, match="@accel.jit"):
        accel.map(lambda x: x, np.ones(3))


@pytest.mark.parametrize("t", ["bool", "i8", "i16", "i32", "i64", "u8",
                               "u16", "u32", "u64", "f32", "f64"])
def test_every_scalar_type_in_and_out(t):
    dt = accel.scalar(t).dtype

    @accel.jit(backend="interp")
    def same(xs, x):
        return accel.map(lambda v: v, xs), x, accel.unit(x)

    xs = np.arange(6).reshape(2, 3).astype(dt)
    ys, y, u = same(xs, dt.type(1))
    assert ys.dtype == dt and y.dtype == dt and u.dtype == dt
    assert y.shape == () and u.shape == () and y == 1 and u == 1
    np.testing.assert_array_equal(ys, xs)
