#!/usr/bin/python3
"""peers.py -- numpy and numba beside accel in `make bench` (issue 22, item 9).

    /usr/bin/python3 bench/python/peers.py ACCEL_CSV [PEERS_CSV]

`make bench` runs it after accel_bench, on accel_bench's CSV
(build/bench-results.csv): for each row whose workload has a numpy or
numba version (bench/python/peer_workloads.py: dotp, Black-Scholes,
Mandelbrot, SMVM, blur, histogram, sieve, transpose, scan; numpy alone for
the vendor rows matmul, fft2, fft1), it builds the same data at the size
that row names, times numpy and numba, and prints them joined to accel's
time: peer/accel = peer time / accel time (above 1 accel is faster, as in
accel_bench's table).  One line per (benchmark, size): where accel_bench
prints a workload twice (against two baselines), the first row's accel
time is used, except that a row against accel's own pure fallback (group
`foreign`: accel allocates its result each run and is not interleaved)
gives way to a later row of the same workload (group `vendor`: into
caller buffers, as numpy's `out=` is).  The joined table goes to PEERS_CSV (default
bench-peers.csv beside ACCEL_CSV) with accel_bench's columns, the peer in
the baseline column.

Timing: ACC_BENCH_RUNS calls (default 10), fewer for a slow peer: at
least 3, and no more once its calls have taken 2 s; the median.  numba's
calls follow one untimed call (it compiles then; the compiled code is
cached in NUMBA_CACHE_DIR, default numba-cache beside the CSV).  numba runs on
ACC_NUM_THREADS threads (default: the cores, as accel_bench).  numpy and
numba results are checked against each other ("ok" / "MISMATCH": exit 1);
accel's results are checked against the C baselines by accel_bench.
Without numpy or numba it says "numpy not installed" / "numba not
installed" and goes on without those columns (exit 0).
"""
import csv
import os
import statistics
import sys
import time


def usage():
    sys.stderr.write("usage: peers.py ACCEL_CSV [PEERS_CSV]\n")
    sys.exit(2)


FALLBACK = "pure fallback"  # accel_bench's foreign rows (vendor_bench.c)


def accel_rows(path):
    """(benchmark, size) -> accel ms, in the CSV's order: the first row
    wins, unless it is a foreign row and a later one is not (the foreign
    rows time accel allocating its result; numpy writes into out=)."""
    rows, from_fallback = {}, set()
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["benchmark"], r["size"])
            try:
                ms = float(r["accel_ms"])
            except (TypeError, ValueError):
                continue  # the bandwidth, compile and overhead lines
            fallback = r["baseline"] == FALLBACK
            if key not in rows or (key in from_fallback and not fallback):
                rows[key] = ms
                from_fallback.discard(key)
                if fallback:
                    from_fallback.add(key)
    return rows


def timed(fn, runs, warm):
    """(median ms, last result) of fn, after one untimed call when warm
    (numba compiles on its first call; numpy has nothing to warm, and its
    slow rows, such as Mandelbrot, would cost a run more)."""
    result = fn() if warm else None
    samples = []
    spent = 0.0
    while len(samples) < runs and (len(samples) < 3 or spent < 2000.0):
        start = time.perf_counter()
        result = fn()
        ms = (time.perf_counter() - start) * 1e3
        samples.append(ms)
        spent += ms
    return statistics.median(samples), result


def fmt(ms):
    return "%12.4g" % ms if ms is not None else "%12s" % "-"


def ratio(peer, accel):
    return "%9.2fx" % (peer / accel) if peer is not None and accel > 0 \
        else "%10s" % "-"


def main():
    if len(sys.argv) not in (2, 3):
        usage()
    accel_csv = sys.argv[1]
    out_csv = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        os.path.dirname(os.path.abspath(accel_csv)), "bench-peers.csv")
    try:
        import numpy as np
    except ImportError:
        print("peers: numpy not installed (Debian python3-numpy): no numpy "
              "or numba columns")
        return 0
    os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(
        os.path.dirname(os.path.abspath(out_csv)), "numba-cache"))
    import peer_workloads as pw
    threads = int(os.environ.get("ACC_NUM_THREADS") or 0) or os.cpu_count()
    runs = max(1, min(64, int(os.environ.get("ACC_BENCH_RUNS") or 10)))
    if pw.numba is None:
        print("peers: numba not installed (Debian python3-numba): numba "
              "columns left empty")
        numba_text = "numba not installed"
    else:
        pw.numba.set_num_threads(min(threads, pw.numba.config.NUMBA_NUM_THREADS))
        numba_text = "numba %s (%d threads)" % (pw.numba.__version__,
                                               pw.numba.get_num_threads())
    print("peers: numpy %s, %s, median of up to %d runs "
          "(peer/accel = peer time / accel time)" % (np.__version__,
                                                    numba_text, runs))
    print("%-22s %-22s %12s %12s %10s %12s %10s  %s" % (
        "benchmark", "size", "accel ms", "numpy ms", "np/accel",
        "numba ms", "nb/accel", "check"))
    failures = 0
    with open(out_csv, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["benchmark", "size", "accel_ms", "baseline",
                      "baseline_ms", "baseline_over_accel", "check"])
        for (name, size), accel_ms in accel_rows(accel_csv).items():
            make = pw.WORKLOADS.get(name)
            if make is None:
                continue
            w = make(size)
            t_np, r_np = timed(w.numpy_fn, runs, False)
            t_nb = r_nb = None
            if w.numba_fn is not None and pw.numba is not None:
                t_nb, r_nb = timed(w.numba_fn, runs, True)
            check = "-"
            if r_nb is not None:
                check = "ok" if w.agree(r_np, r_nb) else "MISMATCH"
                failures += check == "MISMATCH"
            print("%-22s %-22s %12.4g %s %s %s %s  %s" % (
                name, size, accel_ms, fmt(t_np), ratio(t_np, accel_ms),
                fmt(t_nb), ratio(t_nb, accel_ms), check))
            out.writerow([name, size, "%.6f" % accel_ms, "numpy",
                          "%.6f" % t_np, "%.4f" % (t_np / accel_ms if accel_ms > 0 else 0), check])
            if t_nb is not None:
                out.writerow([name, size, "%.6f" % accel_ms, "numba",
                              "%.6f" % t_nb, "%.4f" % (t_nb / accel_ms if accel_ms > 0 else 0),
                              check])
    print("peers written to %s" % out_csv)
    if failures:
        sys.stderr.write("peers: %d workload(s) where numpy and numba "
                         "disagree\n" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
