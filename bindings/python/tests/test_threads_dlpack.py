"""Threads (runs release the GIL; one program called from several threads
at once; results released from any thread) and DLPack (inputs and out=
from any __dlpack__ object without a copy; results shared with numpy and
PyTorch without a copy)."""
import threading
import time

import numpy as np
import pytest

import accel
import programs

SRC = r"""
scale (a : f64) (xs : Vector f64) : Vector f64 = map (\x -> a * x) xs
"""


@pytest.fixture(scope="module")
def section4():
    return accel.compile(programs.SECTION4, backend="interp")


def test_runs_release_the_gil(section4):
    """While one thread is inside a long run, another Python thread runs:
    it would wait for the whole run if the GIL were held."""
    f = section4["mandelbrot"]
    started, done = threading.Event(), threading.Event()
    box = {}

    def work():
        started.set()
        box["r"] = f(48, 48, np.int32(2000))
        done.set()

    th = threading.Thread(target=work)
    t0 = time.perf_counter()
    th.start()
    started.wait()
    time.sleep(0.05)  # needs the GIL back to return
    running = not done.is_set()
    th.join()
    took = time.perf_counter() - t0
    if took < 0.5:
        pytest.skip("the run took %.2f s: too short to tell" % took)
    assert running, "the main thread waited for the whole run (GIL held?)"
    programs.check("mandelbrot", (48, 48, np.int32(2000)), box["r"])


@pytest.mark.parametrize("backend_name", ["interp", "cpu"])
def test_one_program_from_many_threads(backend_name):
    ok, why = accel.context("interp").available()[backend_name]
    if not ok:
        pytest.skip(why)
    f = accel.compile(SRC, backend=backend_name)["scale"]
    errors, results = [], {}

    def work(k):
        try:
            xs = np.arange(10000, dtype=np.float64) + k
            for i in range(20):
                r = f(float(i), xs)
                if not np.array_equal(r, i * xs):
                    errors.append((k, i))
            results[k] = r
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    # Results die on another thread than the one that made them.
    ref = {k: 19.0 * (np.arange(10000) + k) for k in results}

    def drop():
        for k in list(results):
            assert np.array_equal(results.pop(k), ref[k])

    th = threading.Thread(target=drop)
    th.start()
    th.join()
    assert not results


# --- DLPack --------------------------------------------------------------------

class OnlyDLPack:
    """An array that speaks only the DLPack protocol (not numpy's)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_dlpack_inputs_from_numpy_without_copy():
    f = accel.compile(SRC, backend="interp")["scale"]
    xs = np.arange(5, dtype=np.float64)
    np.testing.assert_array_equal(f(2.0, OnlyDLPack(xs)), 2 * xs)
    from accel import _arrays
    desc = _arrays._dlpack_import(OnlyDLPack(xs), xs.dtype, 1)
    assert desc is not None and desc.data[0] == xs.ctypes.data
    _arrays.release_imports([desc])
    # the wrong element type: read through numpy and converted
    ys = np.arange(5, dtype=np.int32)
    np.testing.assert_array_equal(f(2.0, OnlyDLPack(ys)), 2 * ys)
    # out= through DLPack: written in place
    out = np.zeros(5)
    f(3.0, xs, out=OnlyDLPack(out))
    np.testing.assert_array_equal(out, 3 * xs)


def test_results_to_numpy_by_dlpack():
    f = accel.compile(SRC, backend="interp")["scale"]
    y = f(2.0, np.arange(4, dtype=np.float64))
    assert y.__dlpack_device__() == (1, 0)  # kDLCPU
    z = np.from_dlpack(y)
    assert z.ctypes.data == y.ctypes.data
    y[1] = 42  # (numpy makes DLPack imports read-only)
    assert z[1] == 42


def test_torch_in_and_out():
    torch = pytest.importorskip(
        "torch", reason="python3-torch is not installed: the PyTorch DLPack "
        "test is skipped")
    f = accel.compile(SRC, backend="interp")["scale"]
    xs = torch.arange(6, dtype=torch.float64)
    y = f(2.0, xs)
    np.testing.assert_array_equal(y, 2 * np.arange(6))
    from accel import _arrays
    desc = _arrays._dlpack_import(xs, np.dtype(np.float64), 1)
    assert desc is not None and desc.data[0] == xs.data_ptr()
    _arrays.release_imports([desc])
    # a strided tensor is read through numpy and converted
    np.testing.assert_array_equal(f(1.0, xs[::2]), xs[::2].numpy())
    # out= a torch tensor: written where it is
    out = torch.zeros(6, dtype=torch.float64)
    f(3.0, xs, out=out)
    assert out.tolist() == [3.0 * k for k in range(6)]
    # the result shared with torch without a copy
    t = torch.from_dlpack(y)
    assert t.data_ptr() == y.ctypes.data
    t[0] = -1
    assert y[0] == -1
    # a float32 tensor into an f64 parameter: converted, not reinterpreted
    np.testing.assert_array_equal(
        f(1.0, torch.ones(3, dtype=torch.float32)), np.ones(3))
    with pytest.raises(accel.TypeMismatchError, match="argument 2 'xs'"):
        f(1.0, torch.ones(3, dtype=torch.complex64))
