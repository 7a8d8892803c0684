#!/usr/bin/python3
"""smoke_test.py -- ctest bench.smoke: `make bench`'s new pieces on tiny
sizes, in seconds (nothing here measures speed).

    smoke_test.py ACCEL_BENCH WORK_DIR

1. accel_bench (groups dotp, histogram, transpose, scan; scale 0.001, 2
   runs) exits 0 (accel agrees with its baselines), its CSV starts with the
   memory-bandwidth row (a positive GB/s) and every memory-bound row has
   its fraction of a read rate at least that line's, the rate, and whether
   its bytes fit in the last-level cache, rows named as before
   (bench/README.md);
2. peers.py on that CSV gives a numpy (and, where installed, numba) row for
   each of those workloads;
3. peers.py on a CSV naming every workload it knows, at tiny sizes: each has
   its numpy row, joined to accel's row into caller buffers where a foreign
   row (against the pure fallback) comes first, and numba's agrees with
   numpy's ("ok") where numba applies and is installed.
Exits 1 naming what failed.  The vendor group is left out: FFTW's
measured planning of 2^20 points takes seconds even when idle.
"""
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.join(HERE, "peers.py")
sys.path.insert(0, HERE)

MEMORY_ROWS = {"dotp", "histogram", "transpose", "scanl1 (+)"}
TINY = [  # (benchmark, size) as accel_bench prints them
    ("dotp", "1000 f32"),
    ("dotp, small", "1000 f32 (per call)"),
    ("blackscholes", "1000 options"),
    ("mandelbrot", "64x36/255"),
    ("smvm", "800 nnz"),
    ("blur 3x3 (stencil)", "33x33 f32"),
    ("histogram", "1000 i32, 16 bins"),
    ("sieve (permute')", "n=1000, 11 primes"),
    ("transpose", "33x33 f32"),
    ("scanl1 (+)", "1000 f32"),
    ("matmul (cblas)", "16x16 f32"),
    ("fft2 (fftw)", "16x16 complex"),
    ("fft1 (fftw)", "1024 c128"),
]

errors = []


def check(ok, what):
    if not ok:
        errors.append(what)
    return ok


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run(cmd, env):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(p.stdout)
    return p.returncode


def peers(accel_csv, out_csv, env):
    rc = run([sys.executable, PEERS, accel_csv, out_csv], env)
    check(rc == 0, "peers.py %s exited %d" % (accel_csv, rc))
    return read_csv(out_csv) if os.path.exists(out_csv) else []


def llc_bytes():
    """The largest cache cpu0 reports (sysfs, as bench/bandwidth.c reads
    it); 0 when unknown."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    biggest = 0
    for i in range(8):
        try:
            with open("/sys/devices/system/cpu/cpu0/cache/index%d/size"
                      % i) as f:
                text = f.read().strip()
        except OSError:
            continue
        scale = units.get(text[-1:], 1)
        digits = text[:-1] if text[-1:] in units else text
        if digits.isdigit():
            biggest = max(biggest, int(digits) * scale)
    return biggest


def numba_installed():
    try:
        import numba  # noqa: F401
        return True
    except ImportError:
        return False


def main():
    accel_bench, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, ACC_BENCH_SCALE="0.001", ACC_BENCH_RUNS="2",
               ACC_BENCH_ONLY="dotp,histogram,transpose,scan")
    env.setdefault("NUMBA_CACHE_DIR", os.path.join(work, "numba-cache"))
    accel_csv = os.path.join(work, "smoke-results.csv")
    rc = run([accel_bench, accel_csv], env)
    check(rc == 0, "accel_bench exited %d" % rc)
    rows = read_csv(accel_csv) if os.path.exists(accel_csv) else []
    check(rows and rows[0]["benchmark"] == "memory bandwidth" and
          float(rows[0]["baseline_ms"]) > 0,
          "the first CSV row is not the memory bandwidth")
    names = {r["benchmark"] for r in rows[1:]}
    check(names == MEMORY_ROWS, "rows %s, expected %s" % (names, MEMORY_ROWS))
    line = float(rows[0]["baseline_ms"]) if rows else 0.0
    for r in rows[1:]:
        what = "row %s %s" % (r["benchmark"], r["size"])
        if not check(r.get("accel_fraction_of_bandwidth") not in (None, "")
                     and float(r["accel_fraction_of_bandwidth"]) > 0,
                     "no bandwidth fraction on " + what):
            continue
        limit = float(r.get("read_limit_gbps") or 0)
        check(limit >= line * (1 - 1e-3),
              "%s: read limit %g GB/s below the bandwidth line's %g" %
              (what, limit, line))
        # the fraction is the row's bytes / accel's time / the limit
        nbytes = float(r["accel_fraction_of_bandwidth"]) * limit * \
            float(r["accel_ms"]) * 1e6
        want = "yes" if 0 < nbytes <= llc_bytes() else "no"
        check(r.get("fits_llc") == want, "%s: fits_llc %r, expected %r "
              "(%g bytes, LLC %g)" % (what, r.get("fits_llc"), want, nbytes,
                                      llc_bytes()))
    has_numba = numba_installed()
    got = peers(accel_csv, os.path.join(work, "smoke-peers.csv"), env)
    for name in MEMORY_ROWS:
        kinds = {r["baseline"] for r in got if r["benchmark"] == name}
        want = {"numpy", "numba"} if has_numba else {"numpy"}
        check(kinds == want, "peers of %s: %s, expected %s" % (name, kinds,
                                                               want))
    tiny_csv = os.path.join(work, "smoke-tiny.csv")
    with open(tiny_csv, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["benchmark", "size", "accel_ms", "baseline",
                      "baseline_ms", "baseline_over_accel", "check",
                      "accel_fraction_of_bandwidth"])
        # a foreign row first (accel allocating its result, against the
        # pure fallback), as accel_bench prints matmul and fft2: peers.py
        # joins numpy to the later row into caller buffers instead
        out.writerow(["matmul (cblas)", "16x16 f32", "9.0", "pure fallback",
                      "50.0", "5.0", "ok", ""])
        for name, size in TINY:
            out.writerow([name, size, "1.0", "C", "1.0", "1.0", "ok", ""])
    import peer_workloads as pw
    got = peers(tiny_csv, os.path.join(work, "smoke-tiny-peers.csv"), env)
    for name, size in TINY:
        mine = [r for r in got if r["benchmark"] == name and r["size"] == size]
        check(any(r["baseline"] == "numpy" and float(r["baseline_ms"]) > 0
                  for r in mine), "no numpy row for %s %s" % (name, size))
        check(all(float(r["accel_ms"]) == 1.0 for r in mine),
              "%s %s joined to accel times %s, not the row into caller "
              "buffers" % (name, size, [r["accel_ms"] for r in mine]))
        if has_numba and pw.WORKLOADS[name](size).numba_fn is not None:
            check(any(r["baseline"] == "numba" and r["check"] == "ok"
                      for r in mine),
                  "no agreeing numba row for %s %s" % (name, size))
    for e in errors:
        sys.stderr.write("smoke_test: %s\n" % e)
    print("smoke_test: %s" % ("FAILED" if errors else "passed"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
