#!/usr/bin/python3
"""gemm_one_process.py -- numpy's matmul, accel's gemm (cblas plugin) and
cblas_sgemm called through ctypes, interleaved in one process on the same
1024x1024 f32 data as bench/vendor_bench.c (bench/README.md, "numpy's
matmul and OpenBLAS's kernels").  Run by hand, not by `make bench`:

    /usr/bin/python3 bench/python/gemm_one_process.py [BUILD [ROUNDS]]

BUILD defaults to build/ of this checkout, ROUNDS to 15.  Each round times
the three once, in an order that rotates per round; medians.  All three
call the same libopenblas.so.0 (numpy through Debian's libblas.so.3), so
OPENBLAS_CORETYPE and OPENBLAS_NUM_THREADS reach all alike.
"""
import ctypes
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
import accel  # noqa: E402


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    m = 1024
    i = np.arange(m * m)
    a = ((i % 17) * 0.125 - 1.0).astype(np.float32).reshape(m, m)
    c = ((i % 11) * 0.25 - 1.25).astype(np.float32).reshape(m, m)
    outs = [np.zeros_like(a) for _ in range(3)]
    ctx = accel.Context("cpu", plugins="cblas",
                        plugin_path=os.path.join(build, "plugins"))
    # bench/programs.acc's matmul (`gemm a b`), as accel_bench runs it
    gemm = ctx.load(os.path.join(ROOT, "bench", "programs.acc"))["matmul"]
    blas = ctypes.CDLL("libopenblas.so.0")
    blas.cblas_sgemm.argtypes = [ctypes.c_int] * 6 + [
        ctypes.c_float, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
        ctypes.c_int, ctypes.c_float, ctypes.c_void_p, ctypes.c_int]
    blas.openblas_get_corename.restype = ctypes.c_char_p

    def direct():
        blas.cblas_sgemm(101, 111, 111, m, m, m, 1.0, a.ctypes.data, m,
                         c.ctypes.data, m, 0.0, outs[2].ctypes.data, m)

    sides = [("numpy matmul(out=)", lambda: np.matmul(a, c, out=outs[0])),
             ("accel gemm (cblas plugin)", lambda: gemm(a, c, out=outs[1])),
             ("cblas_sgemm (ctypes)", direct)]
    for _, fn in sides:
        fn()
    agree = all(np.allclose(outs[0], o, rtol=1e-4, atol=1e-3)
                for o in outs[1:])
    times = {name: [] for name, _ in sides}
    for r in range(rounds):
        for k in range(len(sides)):
            name, fn = sides[(k + r) % len(sides)]
            start = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - start) * 1e3)
    print("OpenBLAS kernels: %s, %d rounds, results %s" % (
        blas.openblas_get_corename().decode(), rounds,
        "agree" if agree else "DISAGREE"))
    accel_ms = statistics.median(times[sides[1][0]])
    for name, _ in sides:
        ms = statistics.median(times[name])
        print("%-28s median %8.2f ms  min %8.2f  time/accel %.2fx" % (
            name, ms, min(times[name]), ms / accel_ms))
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
