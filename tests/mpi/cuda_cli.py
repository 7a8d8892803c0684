#!/usr/bin/python3
"""The collectives on the cuda backend through the accel tool
(docs/DISTRIBUTED.md, "Memory"): tests/mpi/collectives.acc's programs under
`MPIRUN -np NP accel run --backend cuda` with per-rank inputs, each
compared with the result numpy computes from every rank's input, and
`accel explain` naming the path of the device arrays.

    cuda_cli.py ACCEL NP MPIRUN

The CUDA driver is ACC_CUDA_DRIVER's (ctest: the fake); the path is
ACC_MPI_CUDA_AWARE's (0: staged through host memory, 1: device pointers to
MPI).  Prints one line per program; exits 1 on the first difference, 77
when the cuda backend is not available here (no NVRTC, say).
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = os.path.join(HERE, "collectives.acc")


def run(cmd, cwd):
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                         timeout=120)
    if res.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), res.stdout, res.stderr))
    return res.stdout


def cases(np_):
    """(entry, per-rank inputs, the result of rank r from all inputs)"""
    rng = np.random.default_rng(28)
    xs = [rng.random((3, 4)) for _ in range(np_)]
    yield "allsum", xs, lambda r: sum(xs)
    vs = [rng.integers(-50, 50, 7).astype(np.int32) for _ in range(np_)]
    yield "allmax", vs, lambda r: np.maximum.reduce(vs)
    gs = [np.arange(r + 2, dtype=np.int64) * 10 + r for r in range(np_)]
    yield "gather", gs, lambda r: np.concatenate(gs)
    ms = [rng.random((3, 2)) for _ in range(np_)]
    yield "ring", ms, lambda r: np.concatenate(
        [ms[(r - 1) % np_][-1:], ms[r], ms[(r + 1) % np_][:1]])


def main():
    accel, np_, mpirun = os.path.abspath(sys.argv[1]), int(sys.argv[2]), \
        sys.argv[3]
    probe = subprocess.run([accel, "info"], capture_output=True, text=True)
    if not re.search(r"^\s*cuda\s+yes", probe.stdout, re.M):
        print("skipped: the cuda backend is not available here:\n" +
              probe.stdout)
        sys.exit(77)
    aware = os.environ.get("ACC_MPI_CUDA_AWARE", "0") == "1"
    path = "[device, CUDA-aware MPI]" if aware else \
        "[device, staged through host]"
    launch = [mpirun, "-np", str(np_)] + (["--oversubscribe"] if np_ > 2
                                          else [])
    work = tempfile.mkdtemp(prefix="accel-mpi-cuda-")
    for entry, ins, want in cases(np_):
        for r, a in enumerate(ins):
            np.save(os.path.join(work, "%s_in%d.npy" % (entry, r)), a)
        run(launch + [accel, "run", PROG, "--entry", entry, "--backend",
                      "cuda", "--in", entry + "_in%r.npy", "--out",
                      entry + "_out%r.npy"], work)
        for r in range(np_):
            got = np.load(os.path.join(work, "%s_out%d.npy" % (entry, r)))
            ref = want(r)
            if got.shape != ref.shape or got.dtype != ref.dtype or \
                    not np.array_equal(got, ref):
                sys.exit("FAILED: %s on rank %d: %s, expected %s"
                         % (entry, r, got, ref))
        plan = run(launch + [accel, "explain", PROG, "--entry", entry,
                             "--backend", "cuda"], work)
        if plan.count(path) != np_:
            sys.exit("FAILED: %s: the plans of the %d ranks do not all say "
                     "%s:\n%s" % (entry, np_, path, plan))
        print("%s on %d ranks, cuda %s: the distributed result"
              % (entry, np_, path))


if __name__ == "__main__":
    main()
