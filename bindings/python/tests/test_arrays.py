"""numpy in and out: every scalar type, ranks 0-3, tuple element types
and tuple results, scalars as Python or numpy values, conversions, no
copies where none is needed (pointer equality), out=, and results that
outlive their program and context."""
import gc

import numpy as np
import pytest

import accel

TYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
         "f32", "f64"]
RANK_NAMES = {0: "Scalar", 1: "Vector", 2: "Matrix", 3: "Array 3"}


def _types_program():
    """Per type T: all_T takes arrays of ranks 0..3 and returns each as it
    is and doubled (one entry, so one compilation per type on the CPU
    backend); id1_T, dbl1_T, dbl2_T on one array; sc_T makes a scalar
    parameter a Scalar."""
    lines = []
    for t in TYPES:
        add = "x || x" if t == "bool" else "x + x"
        ts = ["%s %s" % (RANK_NAMES[r], t) for r in range(4)]
        lines.append(
            "all_%s (a : %s) (b : %s) (c : %s) (d : %s) : (%s) =\n"
            "  (a, b, c, d, map (\\x -> %s) a, map (\\x -> %s) b, "
            "map (\\x -> %s) c, map (\\x -> %s) d)"
            % (t, ts[0], ts[1], ts[2], ts[3], ", ".join(ts + ts),
               add, add, add, add))
        for r in (1, 2):
            rn = RANK_NAMES[r]
            lines.append("id%d_%s (xs : %s %s) : %s %s = map (\\x -> x) xs"
                         % (r, t, rn, t, rn, t))
            lines.append("dbl%d_%s (xs : %s %s) : %s %s = map (\\x -> %s) xs"
                         % (r, t, rn, t, rn, t, add))
        lines.append("sc_%s (x : %s) : Scalar %s = unit x" % (t, t, t))
    return "\n".join(lines)


_progs = {}


def types_program(backend):
    if backend not in _progs:
        _progs[backend] = accel.compile(_types_program(), backend=backend)
    return _progs[backend]


def sample(t, shape, rng):
    dt = accel.scalar(t).dtype
    if t == "bool":
        return rng.integers(0, 2, shape).astype(dt)
    if dt.kind == "f":
        return rng.uniform(-100, 100, shape).astype(dt)
    info = np.iinfo(dt)
    # halves, so x + x does not overflow
    return rng.integers(info.min // 2, info.max // 2, shape,
                        dtype=np.int64 if dt.kind == "i" else np.uint64,
                        endpoint=True).astype(dt)


@pytest.mark.parametrize("t", TYPES)
def test_every_type_every_rank(t, backend, rng):
    f = types_program(backend)["all_" + t]
    shapes = [(), (7,), (3, 5), (2, 3, 4)]
    xs = [sample(t, shape, rng) for shape in shapes]
    got = f(*xs)
    assert isinstance(got, tuple) and len(got) == 8
    for r, x in enumerate(xs):
        for g, want in ((got[r], x), (got[4 + r], (x | x) if t == "bool"
                                      else x + x)):
            assert isinstance(g, np.ndarray)
            assert g.dtype == x.dtype and g.shape == shapes[r], (r, g)
            np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("t", TYPES)
def test_scalar_parameters_python_and_numpy(t):
    f = types_program("interp")["sc_" + t]
    dt = accel.scalar(t).dtype
    values = [dt.type(1), np.array(1, dt)]
    values.append(True if t == "bool" else (1.0 if dt.kind == "f" else 1))
    for v in values:
        got = f(v)
        assert got.shape == () and got.dtype == dt, v
        assert got == dt.type(1)
    if t == "bool":
        with pytest.raises(accel.TypeMismatchError):
            f(1.5)  # floats never become bools
        return
    if dt.kind in "iu":
        info = np.iinfo(dt)
        assert f(int(info.max)) == info.max
        with pytest.raises(accel.TypeMismatchError, match="does not fit"):
            f(int(info.max) + 1)
        with pytest.raises(accel.TypeMismatchError,
                           match="floats are not converted"):
            f(1.5)


def test_zero_copy_input_and_out(backend):
    """A C-contiguous input of the right dtype reaches accel at its own
    address; out= arrays are written where they are."""
    p = types_program(backend)
    f = p["id1_f32"]
    xs = np.arange(1000, dtype=np.float32)
    out = np.zeros(1000, np.float32)
    assert f(xs, out=out) is out
    np.testing.assert_array_equal(out, xs)
    # The identity map of an input is its own result only if no copy was
    # made on the way in: ask the plan what ran, and check the addresses
    # the binding put in the descriptor.
    from accel import _arrays
    w = _arrays.words(1)
    _arrays.put_input(f.inputs[0], xs, w, 0, [], [], _arrays.Where("f", 1,
                                                                    "xs"))
    assert w[_arrays.W_DATA] == xs.ctypes.data
    w = _arrays.words(1)
    _arrays.put_output(f.outputs[0], out, w, 0, [], [],
                       _arrays.Where("f", 1, None, "output"))
    assert w[_arrays.W_DATA] == out.ctypes.data


def test_results_own_accel_memory_without_copy():
    """A result is a numpy view of accel's buffer: writable, C-contiguous,
    owning no numpy data; it survives the program and its context."""
    ctx = accel.Context("interp")
    f = ctx.compile(_types_program())["dbl1_f64"]
    xs = np.arange(10, dtype=np.float64)
    r = f(xs)
    assert not r.flags.owndata and r.flags.c_contiguous and r.flags.writeable
    r2 = f(xs)
    assert r.ctypes.data != r2.ctypes.data  # each call its own buffer
    del f, ctx
    gc.collect()
    np.testing.assert_array_equal(r, 2 * xs)
    r[0] = 5  # the memory is still accel's, alive, and the array's
    assert r[0] == 5 and r2[0] == 0


def test_non_contiguous_and_other_dtypes_are_converted_once():
    f = types_program("interp")["dbl2_f64"]
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    np.testing.assert_array_equal(f(base[:, ::2]), 2 * base[:, ::2])
    np.testing.assert_array_equal(f(base.T), 2 * base.T)
    np.testing.assert_array_equal(f(base.astype(np.int32)), 2 * base)
    np.testing.assert_array_equal(f(base.astype(">f8")), 2 * base)
    np.testing.assert_array_equal(f([[1, 2], [3, 4]]),
                                  [[2, 4], [6, 8]])
    g = types_program("interp")["dbl1_i16"]
    np.testing.assert_array_equal(g(np.array([1, 2], np.int64)), [2, 4])
    with pytest.raises(accel.TypeMismatchError, match="do not all fit"):
        g(np.array([1, 1 << 20], np.int64))
    with pytest.raises(accel.TypeMismatchError, match="complex"):
        f(base.astype(np.complex128))


def test_tuple_inputs_and_outputs():
    p = accel.compile(r"""
swap (ps : Matrix (i32, (f64, bool))) : Matrix ((f64, bool), i32) =
  map (\(a, (b, c)) -> ((b, c), a)) ps
split (ps : Vector (f32, i64)) : (Vector f32, Vector i64) = unzip ps
pair (p : (Vector f32, Vector i32)) (k : i64) : (Vector f32, Scalar i64) =
  let (a, b) = p in (zipWith (\x y -> x * f32 y) a b, unit k)
""", backend="interp")
    # a parameter whose type is a tuple of arrays takes a tuple of arrays
    f = p["pair"]
    assert f.parameters == ["p", "k"]
    a, b = np.full(3, 2, np.float32), np.arange(3, dtype=np.int32)
    for got in (f((a, b), 5), f(p=(a, b), k=np.int64(5))):
        np.testing.assert_array_equal(got[0], a * b)
        assert got[1] == 5 and got[1].shape == ()
    with pytest.raises(accel.TypeMismatchError,
                       match="argument 1 'p' of pair: expected a tuple"):
        f(a, 5)
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    b = np.linspace(0, 1, 6).reshape(2, 3)
    c = a % 2 == 0
    (gb, gc_), ga = p["swap"]((a, (b, c)))
    np.testing.assert_array_equal(ga, a)
    np.testing.assert_array_equal(gb, b)
    np.testing.assert_array_equal(gc_, c)
    outs = ((np.empty((2, 3)), np.empty((2, 3), bool)),
            np.empty((2, 3), np.int32))
    assert p["swap"]((a, (b, c)), out=outs) is outs
    np.testing.assert_array_equal(outs[1], a)
    np.testing.assert_array_equal(outs[0][0], b)
    x, y = p["split"]((np.ones(4, np.float32), np.arange(4)))
    assert x.dtype == np.float32 and y.dtype == np.int64
    np.testing.assert_array_equal(y, np.arange(4))
    with pytest.raises(accel.ShapeError, match="one shape"):
        p["split"]((np.ones(4, np.float32), np.arange(5)))
    with pytest.raises(accel.TypeMismatchError, match="tuple of 2"):
        p["split"](np.ones(4, np.float32))


def test_out_must_match_exactly():
    f = types_program("interp")["dbl1_f32"]
    xs = np.ones(4, np.float32)
    with pytest.raises(accel.TypeMismatchError, match="no conversion"):
        f(xs, out=np.empty(4, np.float64))
    with pytest.raises(accel.InvalidArgumentError, match="C-contiguous"):
        f(xs, out=np.empty(8, np.float32)[::2])
    with pytest.raises(accel.ShapeError):
        f(xs, out=np.empty(5, np.float32))
    ro = np.empty(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(accel.InvalidArgumentError, match="writable"):
        f(xs, out=ro)


def test_empty_arrays(backend):
    f = types_program(backend)["dbl2_i32"]
    r = f(np.empty((0, 3), np.int32))
    assert r.shape == (0, 3) and r.dtype == np.int32
