"""Errors: AccelError subclasses carrying .status and accel's message, the
argument's position and name for bad inputs, and nothing a user passes
crashes the interpreter."""
import numpy as np
import pytest

import accel

DOTP = ("dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
        "  fold (+) 0 (zipWith (*) xs ys)\n")


@pytest.fixture(scope="module")
def dotp():
    return accel.compile(DOTP, backend="interp")["dotp"]


def test_bad_argument_names_position_and_name(dotp):
    xs = np.ones(3, np.float32)
    with pytest.raises(accel.AccelError) as e:
        dotp(xs, np.ones((3, 4)))
    assert str(e.value).startswith(
        "argument 2 'ys' of dotp: expected a Vector f32, got float64 array "
        "of shape (3, 4)")
    assert e.value.status == 201 and e.value.status_name == "ACC_ERR_SHAPE"
    assert (e.value.argument, e.value.name, e.value.function) == \
        (2, "ys", "dotp")
    assert isinstance(e.value, accel.ShapeError)
    assert isinstance(e.value, accel.DataError)
    assert isinstance(e.value, ValueError)
    with pytest.raises(accel.TypeMismatchError) as e:
        dotp("abc", xs)
    assert e.value.argument == 1 and e.value.name == "xs"
    assert e.value.status == 200 and isinstance(e.value, TypeError)


@pytest.mark.parametrize("bad", [None, object(), {"a": 1}, b"xyz",
                                 [[1, 2], [3]], np.ones(3, np.complex64),
                                 np.array(["a", "b"]), 1 << 80,
                                 np.ones(3, object), lambda: 0])
def test_nothing_passed_crashes(dotp, bad):
    xs = np.ones(3, np.float32)
    with pytest.raises(accel.AccelError):
        dotp(xs, bad)
    if bad is not None:  # out=None is "no out"
        with pytest.raises(accel.AccelError):
            dotp(xs, xs, out=bad)


def test_argument_count_and_keywords(dotp):
    xs = np.ones(3, np.float32)
    with pytest.raises(accel.InvalidArgumentError, match=r"takes 2"):
        dotp(xs)
    with pytest.raises(accel.InvalidArgumentError, match=r"takes 2"):
        dotp(xs, xs, xs)
    with pytest.raises(accel.InvalidArgumentError, match="unexpected"):
        dotp(xs, zs=xs)
    with pytest.raises(accel.InvalidArgumentError, match="several"):
        dotp(xs, xs=xs)
    assert dotp(ys=xs, xs=xs) == 3


def test_text_errors():
    with pytest.raises(accel.ParseError) as e:
        accel.compile("dotp (xs : Vector f32) : Scalar f32 = fold (+) 0 ys",
                      backend="interp")
    assert e.value.status == 600 and "1:" in str(e.value)
    assert "unknown name 'ys'" in str(e.value)
    with pytest.raises(accel.TypeMismatchError, match="expected Array 1 i32"):
        accel.compile("f (xs : Vector f32) : Vector i32 = xs",
                      backend="interp")
    prog = accel.compile(DOTP, backend="interp")
    with pytest.raises(accel.NotFoundError, match="entry points: dotp"):
        prog["nope"]
    with pytest.raises(KeyError):  # NotFoundError is a LookupError
        try:
            prog["nope"]
        except LookupError as e:
            raise KeyError(str(e))
    with pytest.raises(accel.InvalidArgumentError, match="backend"):
        accel.compile(DOTP, backend="tpu")
    with pytest.raises(FileNotFoundError):
        accel.load("/nonexistent/prog.acc")


def test_runtime_error_is_a_run_error():
    f = accel.compile("r (xs : Vector i64) (i : i64) : Scalar i64 = "
                      "unit (xs ! [i])", backend="interp")["r"]
    assert f(np.arange(5), 3) == 3
    with pytest.raises(accel.AccelError) as e:
        f(np.arange(5), 7)
    assert e.value.status // 100 == 7 and isinstance(e.value, RuntimeError)
    assert "r:" in str(e.value)


def test_unavailable_backend_says_why():
    ok, why = accel.context("interp").available()["cuda"]
    if ok:
        pytest.skip("a CUDA device is present")
    with pytest.raises(accel.UnavailableError) as e:
        accel.Context("cuda")
    assert e.value.status // 100 == 4 and why


def test_deadline_stops_a_long_run():
    import programs
    import time
    ctx = accel.Context("interp", deadline=0.05)
    f = ctx.compile(programs.SECTION4)["mandelbrot"]
    t0 = time.perf_counter()
    with pytest.raises(accel.DeadlineError) as e:
        f(300, 300, np.int32(5000))  # minutes on the interpreter
    assert e.value.status == 702 and isinstance(e.value, accel.RunError)
    assert time.perf_counter() - t0 < 30
    assert f(4, 3, np.int32(5)).shape == (3, 4)  # the context still runs
