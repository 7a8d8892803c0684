#!/usr/bin/python3
"""demo.py -- accel from Python, the two styles (run by `make demo`).

    PYTHONPATH=bindings/python /usr/bin/python3 examples/python/demo.py

1. A text program (examples/demo.acc) compiled with accel.load, called
   with numpy arrays.
2. The same kind of program written in Python with @accel.jit.
3. Results shared with numpy (and PyTorch, when it is installed) through
   DLPack, without copies.
Every result is checked against numpy; the script exits 1 if one is wrong.
"""
import os
import sys
import time

import numpy as np

import accel

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(what, ok):
    print("  %-46s %s" % (what, "ok" if ok else "WRONG"))
    if not ok:
        failures.append(what)


# --- 1. a text program -------------------------------------------------------
print("accel %s (%s), Python %s, numpy %s" % (
    accel.__version__, accel.library_path, sys.version.split()[0],
    np.__version__))
prog = accel.load(os.path.join(HERE, "..", "demo.acc"), backend="auto")
print("\n1. text program examples/demo.acc on %s: entries %s" % (
    prog.context.backend, ", ".join(prog.entries)))

rng = np.random.default_rng(1)
n = 1_000_000
xs = rng.uniform(-1, 1, n).astype(np.float32)
ys = rng.uniform(-1, 1, n).astype(np.float32)
dotp = prog["dotp"]
t0 = time.perf_counter()
d = dotp(xs, ys)                          # a 0-d array (Scalar f32)
t1 = time.perf_counter()
print("  dotp of %d elements = %.4f (%.2f ms, first call)" % (
    n, float(d), 1e3 * (t1 - t0)))
ref = float(np.dot(xs.astype(np.float64), ys))
check("dotp against numpy", abs(float(d) - ref) <= 1e-3 * max(1, abs(ref)))
plan = dotp.explain()
print("  plan: %d kernel(s), %d intermediate array(s), fused %s" % (
    plan["kernels"], plan["intermediates"], plan["steps"][0]["fused"]))

values = rng.integers(0, 10, 10_000).astype(np.int32)
hist = prog["histogram"](10, values)
print("  histogram(10, ...) =", hist)
check("histogram against np.bincount",
      np.array_equal(hist, np.bincount(values, minlength=10)))

out = np.empty((24, 64), np.int32)        # results into the caller's array
prog["mandelbrot"](64, 24, np.int32(40), out=out)
print("  mandelbrot 64x24, written into an array of ours:")
for row in out[::3]:
    print("    " + "".join(" .:-=+*#%@"[min(9, v // 4)] for v in row))
check("mandelbrot escape counts in [1, 40]",
      bool(out.min() >= 1 and out.max() == 40))


# --- 2. the language embedded in Python ---------------------------------------
print("\n2. @accel.jit functions")


@accel.jit
def dotp_jit(xs, ys):
    return accel.fold(lambda a, b: a + b, 0,
                      accel.zipwith(lambda a, b: a * b, xs, ys))


@accel.jit
def normalise(m):
    """Each row of m scaled to sum 1, and the row sums."""
    sums = accel.sum(m)
    scaled = accel.generate(m.shape, lambda i, j: m[i, j] / sums[i])
    return scaled, sums


@accel.jit
def clipped_relu(xs, hi):
    return accel.map(lambda x: accel.cond(x < 0, 0.0 * x,
                                          accel.min(x, hi)), xs)


d = dotp_jit(xs, ys)
check("dotp_jit agrees with the text dotp", float(d) == float(dotp(xs, ys)))
m = rng.uniform(0, 1, (4, 5))
scaled, sums = normalise(m)
check("normalise: rows sum to 1", np.allclose(scaled.sum(1), 1.0))
check("normalise: the sums", np.allclose(sums, m.sum(1)))
r = clipped_relu(xs[:8], np.float32(0.5))
check("clipped_relu against np.clip", np.array_equal(r, np.clip(xs[:8], 0,
                                                                0.5)))
print("  compiled signatures of dotp_jit:", dotp_jit.signatures)


# --- 3. DLPack ---------------------------------------------------------------------
print("\n3. DLPack")
y = normalise(m)[0]
z = np.from_dlpack(y)
check("np.from_dlpack shares accel's result", z.ctypes.data == y.ctypes.data)
try:
    import torch
except ImportError:
    print("  (PyTorch is not installed: the torch part is skipped)")
else:
    t = torch.from_dlpack(y)
    check("torch.from_dlpack shares accel's result",
          t.data_ptr() == y.ctypes.data)
    tx = torch.from_numpy(xs)
    check("a torch tensor as an input", float(dotp(tx, tx)) ==
          float(dotp(xs, xs)))

if failures:
    print("\ndemo: %d check(s) FAILED: %s" % (len(failures),
                                              ", ".join(failures)))
    sys.exit(1)
print("\ndemo: all checks passed")
