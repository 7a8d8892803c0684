#!/usr/bin/python3
"""Runs the examples of examples/mpi/ on NP ranks and compares each with
the one-process result (docs/DISTRIBUTED.md).

    run_examples.py ACCEL NP [MPIRUN] [--keep DIR] [--backend B]

For each example it makes the whole input with numpy, splits it into one
part per rank (part%r.npy), runs `accel run` alone on the whole input (the
one-process result, every collective a fallback), then
`MPIRUN -np NP accel run ... --in part%r.npy --out out%r.npy`, and compares:
results that every rank gets whole (dot, smvm, histogram) on every rank,
the heat grid's row blocks concatenated in rank order.  Integer results
must be equal, floating-point ones equal to 1e-12 relative (a sum split
over ranks is added in another order).  Prints one line per example and
exits 1 on the first difference.  --backend B runs the distributed side
on backend B (cuda: the device arrays' path, on a driver that computes),
the one-process result on the default backend.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, cwd):
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                         timeout=120)
    if res.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), res.stdout, res.stderr))


def split_rows(a, np_):
    return np.array_split(a, np_)


def csr_blocks(dense, np_):
    """Row blocks of a dense matrix in CSR form: (segd, cols, vals)."""
    blocks = []
    for rows in np.array_split(np.arange(dense.shape[0]), np_):
        segd, cols, vals = [], [], []
        for i in rows:
            nz = np.nonzero(dense[i])[0]
            segd.append(len(nz))
            cols.extend(nz)
            vals.extend(dense[i, nz])
        blocks.append((np.array(segd, np.int32), np.array(cols, np.int32),
                       np.array(vals, np.float64)))
    return blocks


def examples(rng, np_):
    """(name, file, literal args, whole inputs, per-rank inputs, whole?)"""
    xs, ys = rng.random(1000), rng.random(1000)
    yield ("dot", "dot.acc", [], [xs, ys],
           [list(p) for p in zip(split_rows(xs, np_), split_rows(ys, np_))],
           True)
    dense = rng.random((40, 40)) * (rng.random((40, 40)) < 0.2)
    vec = rng.random(40)
    whole = csr_blocks(dense, 1)[0]
    parts = [list(b) + [v] for b, v in
             zip(csr_blocks(dense, np_), split_rows(vec, np_))]
    yield ("smvm", "smvm.acc", [], list(whole) + [vec], parts, True)
    u = rng.random((24, 16))
    yield ("heat", "heat.acc", ["30"], [u],
           [[b] for b in split_rows(u, np_)], False)
    values = rng.integers(0, 16, 5000).astype(np.int32)
    yield ("histogram", "histogram.acc", ["16"], [values],
           [[p] for p in split_rows(values, np_)], True)


def compare(name, ref, got):
    if ref.shape != got.shape:
        sys.exit("FAILED: %s: shape %s, the one-process result has %s"
                 % (name, got.shape, ref.shape))
    if ref.dtype.kind in "iu":
        ok = np.array_equal(ref, got)
    else:
        ok = np.allclose(got, ref, rtol=1e-12, atol=0)
    if not ok:
        sys.exit("FAILED: %s differs from the one-process result by %g"
                 % (name, np.abs(got.astype(float) - ref).max()))


def main():
    args = [a for a in sys.argv[1:]]
    keep = None
    if "--keep" in args:
        keep = args[args.index("--keep") + 1]
        del args[args.index("--keep"):args.index("--keep") + 2]
    backend = []
    if "--backend" in args:
        backend = ["--backend", args[args.index("--backend") + 1]]
        del args[args.index("--backend"):args.index("--backend") + 2]
    accel, np_ = os.path.abspath(args[0]), int(args[1])
    mpirun = args[2] if len(args) > 2 else "mpirun"
    work = keep or tempfile.mkdtemp(prefix="accel-mpi-")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(24)
    launch = [mpirun, "-np", str(np_)] + (["--oversubscribe"] if np_ > 2
                                          else [])
    for name, src, lits, whole, parts, everywhere in examples(rng, np_):
        prog = os.path.join(HERE, src)
        ins = []
        for k, a in enumerate(whole):
            np.save(os.path.join(work, "%s_in%d.npy" % (name, k)), a)
            ins += ["--in", "%s_in%d.npy" % (name, k)]
        run([accel, "run", prog] + ["--in=" + l for l in lits] + ins +
            ["--out", name + "_ref.npy"], work)
        ins = []
        for k in range(len(whole)):
            for r in range(np_):
                np.save(os.path.join(work, "%s_in%d_%d.npy" % (name, k, r)),
                        parts[r][k])
            ins += ["--in", "%s_in%d_%%r.npy" % (name, k)]
        run(launch + [accel, "run", prog] + backend +
            ["--in=" + l for l in lits] + ins +
            ["--out", name + "_out%r.npy"], work)
        ref = np.load(os.path.join(work, name + "_ref.npy"))
        outs = [np.load(os.path.join(work, "%s_out%d.npy" % (name, r)))
                for r in range(np_)]
        if everywhere:
            for r, got in enumerate(outs):
                compare("%s on rank %d" % (name, r), ref, got)
        else:
            compare(name, ref, np.concatenate(outs))
        if name == "histogram": # and the counts are right
            compare("histogram (numpy)", np.bincount(whole[0], minlength=16)
                    .astype(np.int32), ref)
        print("%s on %d ranks: the one-process result" % (name, np_))


if __name__ == "__main__":
    main()
