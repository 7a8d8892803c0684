#!/usr/bin/python3
"""The latency/bandwidth model of docs/DISTRIBUTED.md, fitted to the
figures of bench/mpi_bench.c (make bench-mpi), and what it predicts for
8 to 64 nodes.  THIS IS A MODEL, not a measurement.

    mpi_model.py bench-mpi.csv

1. Fit, for each collective measured on 2 ranks, t(m) = a + b m (m: bytes
   each rank contributes) by least squares on relative error, so small and
   large messages weigh alike.
2. Read the fit as Hockney's alpha (latency per message) and beta (seconds
   per byte) of the algorithm MPI uses on 2 ranks, and predict P ranks with
   the textbook costs of the algorithms Open MPI uses at scale (Thakur,
   Rabenseifner and Gropp, 2005):
     allreduce  2 log2(P) alpha + 2 (P-1)/P m beta  (Rabenseifner)
     allgather  log2(P) alpha + (P-1) m beta        (recursive doubling)
     bcast      min(log2(P) (alpha + m beta),        (binomial)
                    (log2(P) + P - 1) alpha + 2 (P-1)/P m beta)
     alltoall   (P-1) alpha + (P-1)/P m beta        (pairwise)
     halo       2 (alpha + m beta), whatever P       (two neighbours)
3. Strong scaling of the examples: T(P) = T(1) / P + communication(P),
   with T(1) the one-rank time and the communication from (2): heat sends
   two rows per step, SMVM all-gathers the vector and the result.

The fitted alpha and beta are those of shared memory on the machine the
benchmark ran on; a cluster's network has a larger alpha and a smaller
bandwidth, so the predictions are also given with assumed network
parameters (alpha = 2 us, 10 GB/s: a 100 Gb/s InfiniBand-class link),
labelled as such.
"""
import math
import sys

import numpy as np


def load(path):
    rows = {}
    for line in open(path):
        what, ranks, size, secs = line.strip().rsplit(",", 3)
        rows.setdefault((what, int(ranks)), []).append((int(size), float(secs)))
    return rows


def fit(points):
    m = np.array([p[0] for p in points], float)
    t = np.array([p[1] for p in points], float)
    w = 1 / t  # relative error
    A = np.stack([np.ones_like(m), m], 1) * w[:, None]
    (a, b), *_ = np.linalg.lstsq(A, t * w, rcond=None)
    return max(a, 1e-9), max(b, 1e-15)


# P = 2 reading of the fit as (alpha, beta), and the cost at P ranks.
MODELS = {
    "allreduce sum": (lambda a, b: (a / 2, b),
                      lambda P, m, al, be: 2 * math.log2(P) * al
                      + 2 * (P - 1) / P * m * be),
    "allgather": (lambda a, b: (a, b),
                  lambda P, m, al, be: math.log2(P) * al + (P - 1) * m * be),
    "bcast": (lambda a, b: (a, b),
              lambda P, m, al, be: min(math.log2(P) * (al + m * be),
                                       (math.log2(P) + P - 1) * al
                                       + 2 * (P - 1) / P * m * be)),
    "alltoall": (lambda a, b: (a, 2 * b),
                 lambda P, m, al, be: (P - 1) * al + (P - 1) / P * m * be),
    "halo ring (row of)": (lambda a, b: (a / 2, b / 2),
                           lambda P, m, al, be: 2 * (al + m * be)),
}
NETWORK = (2e-6, 1 / 10e9)
NODES = [8, 16, 32, 64]


def us(s):
    return "%.1f" % (s * 1e6)


def main():
    rows = load(sys.argv[1])
    params = {}
    print("## Fitted on 2 ranks (shared memory): t(m) = a + b m\n")
    print("| collective | a (us) | b (ns/byte) | alpha (us) | 1/beta (GB/s) |")
    print("|---|---|---|---|---|")
    for name, (read, _) in MODELS.items():
        pts = rows.get((name, 2))
        if not pts:
            continue
        a, b = fit(pts)
        al, be = read(a, b)
        params[name] = (al, be)
        print("| %s | %.2f | %.4f | %.2f | %.2f |"
              % (name, a * 1e6, b * 1e9, al * 1e6, 1 / be / 1e9))
    for label, source in (("fitted alpha, beta", None),
                          ("assumed network: alpha 2 us, 10 GB/s", NETWORK)):
        print("\n## MODEL: predicted time of one collective, %s\n" % label)
        print("| collective | bytes per rank | "
              + " | ".join("P=%d (us)" % p for p in NODES) + " |")
        print("|---|---|" + "---|" * len(NODES))
        for name, (al, be) in params.items():
            if source:
                al, be = source
            cost = MODELS[name][1]
            for m in (8, 8 * 4096, 8 << 20):
                print("| %s | %d | %s |" % (name, m, " | ".join(
                    us(cost(p, m, al, be)) for p in NODES)))
    apps = {k[0]: k for k in rows if k[1] == 1}
    print("\n## MODEL: strong scaling of the examples (T(1)/P + communication)\n")
    print("| example | measured 1 rank (ms) | measured 2 ranks (ms) | "
          "model P=2 (ms) | "
          + " | ".join("P=%d (ms)" % p for p in NODES) + " | parameters |")
    print("|---|---|---|---|" + "---|" * len(NODES) + "---|")
    for what in sorted(apps):
        t1 = rows[(what, 1)][0][1]
        t2 = rows.get((what, 2), [(0, float("nan"))])[0][1]
        n = rows[(what, 1)][0][0]
        for label, source in (("fitted", None), ("network", NETWORK)):
            def coll(name, P, m):
                al, be = source if source else params[name]
                return MODELS[name][1](P, m, al, be)
            if what.startswith("heat"):
                steps = 20
                comm = lambda P: steps * coll("halo ring (row of)", P, n * 8)
            else:
                comm = lambda P: (coll("allgather", P, n * 8 / P)
                                  + coll("allgather", P, n * 8 / P))
            print("| %s | %.1f | %.1f | %.1f | %s | %s |" % (
                what, t1 * 1e3, t2 * 1e3, (t1 / 2 + comm(2)) * 1e3,
                " | ".join("%.1f" % ((t1 / p + comm(p)) * 1e3) for p in NODES),
                label))


if __name__ == "__main__":
    main()
