#!/usr/bin/python3
"""overhead.py -- what a call from Python costs (issue 18, item 9).

    make bench-python      # = /usr/bin/python3 bench/python/overhead.py build

dotp (LANGUAGE.md section 4, compiled once on the CPU backend) on 1, 1e3
and 2e7 f32 elements, three ways in this one process on the same arrays:
  python  prog["dotp"](xs, ys): the binding's call, a 0-d numpy result
  C       acc_run of the same compiled program on the same buffers from a
          C loop (bench/python/ccall.c), outputs allocated and released as
          the binding does
  numpy   np.dot(xs, ys) (OpenBLAS sdot under numpy)
Each is timed call by call; rounds alternate the three, in an order that
rotates every round, so load drifts and what one leaves behind (OpenBLAS
threads spinning after np.dot) hit all alike (at 2e7 elements call by
call); the table gives medians.
ACC_BENCH_RUNS_SCALE multiplies the number of rounds.  Targets: python - C under 15 us per
call (at 1 element), python/C within 1.05x at 2e7 elements.  Exits 0
whatever the figures are (speed is never asserted): read the table.
"""
import ctypes
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                        os.path.join(ROOT, "build"))
os.environ.setdefault("ACCEL_LIBRARY", os.path.join(BUILD, "libaccel.so.1"))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import numpy as np  # noqa: E402

import accel  # noqa: E402
from accel import _arrays  # noqa: E402

# LANGUAGE.md section 4 from its single copy (tests/programs/); entry dotp
with open(os.path.join(ROOT, "tests", "programs", "language4.acc"),
          encoding="utf-8") as _f:
    SECTION4 = _f.read()
SIZES = [1, 1000, 20_000_000]
SCALE = float(os.environ.get("ACC_BENCH_RUNS_SCALE", "1"))


def plan_for(n):
    """(rounds, calls per round): small sizes in blocks of calls; 2e7 call
    by call, alternating, so that the load of a shared machine falls on
    the three alike."""
    if n <= 1000:
        return max(1, int(5 * SCALE)), 400
    return max(1, int(60 * SCALE)), 1


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    ccall = ctypes.CDLL(os.path.join(BUILD, "bench", "accbench_ccall.so"))
    run_c = ccall.accbench_run_c
    run_c.restype = ctypes.c_int
    run_c.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                      ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    backend = os.environ.get("ACC_BENCH_BACKEND", "cpu")
    f = accel.compile(SECTION4, backend=backend)["dotp"]
    rng = np.random.default_rng(7)
    print("python overhead: dotp on %s; %s, %d CPUs, load average %s; "
          "Python %s, numpy %s" % (
              f.backend, cpu_name(), os.cpu_count(),
              " ".join("%.1f" % x for x in os.getloadavg()),
              platform.python_version(), np.__version__))
    print("medians per call of %s (rounds x calls, per size), the three "
          "ways alternating" % ", ".join("%dx%d" % plan_for(n) for n in SIZES))
    rows = []
    for n in SIZES:
        xs = rng.uniform(-1, 1, n).astype(np.float32)
        ys = rng.uniform(-1, 1, n).astype(np.float32)
        want = float(np.dot(xs.astype(np.float64), ys))
        got = float(f(xs, ys))
        assert abs(got - want) <= 1e-3 * max(1.0, abs(want)), (got, want)
        # the descriptors the binding builds for this call, for the C loop
        w = f._InWords.from_buffer_copy(f._in_tmpl)
        for k, a in enumerate((xs, ys)):
            _arrays.put_input(f.inputs[k], a, w, k * _arrays.WORDS, [], [],
                              _arrays.Where("dotp", k + 1, None))
        rounds, reps = plan_for(n)
        secs = (ctypes.c_double * reps)()
        times = {"python": [], "C": [], "numpy": []}
        perf = time.perf_counter
        def py():
            for _ in range(reps):
                t0 = perf()
                f(xs, ys)
                times["python"].append(perf() - t0)

        def c():
            st = run_c(f._h, 2, ctypes.addressof(w), 1, reps,
                       ctypes.addressof(secs))
            if st:
                raise accel.AccelError("acc_run from C: %s" %
                                       accel.errors.last_error(), st)
            times["C"].extend(secs)

        def npy():
            for _ in range(reps):
                t0 = perf()
                np.dot(xs, ys)
                times["numpy"].append(perf() - t0)

        # The order rotates every round: whatever one leaves behind (OpenBLAS
        # threads spinning after np.dot, a cold cache) falls on each alike.
        order = [py, c, npy]
        for r in range(rounds):
            for step in order[r % 3:] + order[:r % 3]:
                step()
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append((n, med))
    print()
    print("| elements | python us | C us | numpy us | python - C us | "
          "python/C | python/numpy |")
    print("|---|---|---|---|---|---|---|")
    for n, m in rows:
        print("| %g | %.2f | %.2f | %.2f | %.2f | %.3fx | %.2fx |" % (
            n, 1e6 * m["python"], 1e6 * m["C"], 1e6 * m["numpy"],
            1e6 * (m["python"] - m["C"]), m["python"] / m["C"],
            m["python"] / m["numpy"]))
    small, big = rows[0][1], rows[-1][1]
    over = 1e6 * (small["python"] - small["C"])
    ratio = big["python"] / big["C"]
    print()
    print("per-call overhead (1 element): %.2f us (target < 15 us: %s)" % (
        over, "met" if over < 15 else "NOT met"))
    print("python/C at 2e7 elements: %.3fx (target <= 1.05x: %s)" % (
        ratio, "met" if ratio <= 1.05 else "NOT met"))


if __name__ == "__main__":
    main()
