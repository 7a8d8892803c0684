#!/usr/bin/python3
"""check.py -- runs the Accelerate programs ported to accel's text language
(examples/accelerate/*.acc) with the `accel` tool and checks every output
against a reference computed here with numpy (or plain Python where the
reference must follow the same floating-point steps).

Usage: check.py ACCEL BACKEND PROGRAM [-v]

ACCEL is the accel command-line tool, BACKEND interp or cpu (or cuda),
PROGRAM one of the names below (a file PROGRAM.acc next to this script).
Inputs are small and built in, so that the whole corpus runs in seconds.
Exits 0 when every check passes, 1 otherwise, 77 (skipped) when numpy is
missing or the backend is not available here.  `make test` runs it on interp and cpu (ctest:
examples.accelerate.PROGRAM.BACKEND).
"""
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("check.py: numpy is missing (Debian: apt-get install python3-numpy)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ACCEL = BACKEND = TMP = None
VERBOSE = False
RUNS = 0  # each run writes files of its own
PROGRAMS = {}


class Failure(Exception):
    pass


class Unavailable(Exception):
    """The backend cannot run here (no C compiler for cpu, no GPU for
    cuda): the check is skipped, not failed."""


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


def run(name, entry, inputs, n_outputs):
    """Runs entry of NAME.acc on inputs (numpy arrays, or Python numbers
    for scalar parameters; a tuple element takes one array per component)
    and returns its outputs, each an array or a list of component arrays
    (leaves, depth first)."""
    global RUNS
    RUNS += 1
    args = [ACCEL, "run", os.path.join(HERE, name + ".acc"), "--entry", entry,
            "--backend", BACKEND]
    for k, x in enumerate(inputs):
        if isinstance(x, np.ndarray):
            path = os.path.join(TMP, "r%d-in%d.npy" % (RUNS, k))
            np.save(path, x)
            args += ["--in", path]
        else:
            args += ["--in", repr(x)]
    outs = [os.path.join(TMP, "r%d-out%d.npy" % (RUNS, k))
            for k in range(n_outputs)]
    for o in outs:
        args += ["--out", o]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if VERBOSE:
        print("  $ " + " ".join(args))
    if p.returncode != 0 and "is not available" in p.stderr:
        raise Unavailable(p.stderr.strip())
    if p.returncode != 0 or p.stderr:
        raise Failure("%s %s: exit status %d\n%s" % (name, entry, p.returncode,
                                                     p.stderr))
    return [load_output(o) for o in outs]


def load_output(path):
    if os.path.exists(path):
        return np.load(path)
    parts, k = [], 0
    while os.path.exists("%s.%d.npy" % (path[:-4], k)):
        parts.append(np.load("%s.%d.npy" % (path[:-4], k)))
        k += 1
    if not parts:
        raise Failure("no output file %s" % path)
    return parts


def same(what, got, want):
    if got.shape != want.shape or got.dtype != want.dtype or \
       not np.array_equal(got, want):
        raise Failure("%s: got %s %s\n%s\nexpected %s %s\n%s" % (
            what, got.dtype, got.shape, got, want.dtype, want.shape, want))


def close(what, got, want, rtol, atol=0.0):
    if got.shape != want.shape or got.dtype != want.dtype or \
       not np.allclose(got, want, rtol=rtol, atol=atol):
        raise Failure("%s: got %s %s\n%s\nexpected %s %s\n%s" % (
            what, got.dtype, got.shape, got, want.dtype, want.shape, want))


f32 = np.float32


# ---- mandelbrot.acc ----------------------------------------------------------

def mandel_ref(sx, sy, x0, y0, width, limit, radius):
    """The escape loop in f64, in the port's (and Mandel.hs's) order."""
    height = sy / sx * width
    xmin, ymin = x0 - width / 2, y0 - height / 2
    re = np.zeros((sy, sx)); im = np.zeros((sy, sx))
    n = np.zeros((sy, sx), np.int32)
    for y in range(sy):
        for x in range(sx):
            cr = xmin + (x * width) / sx
            ci = ymin + (y * height) / sy
            zr, zi, i = cr, ci, 0
            while i < limit and zr * zr + zi * zi < radius:
                zr, zi = (cr + (zr * zr - zi * zi), ci + (zr * zi + zi * zr))
                i += 1
            re[y, x], im[y, x], n[y, x] = zr, zi, i
    return re, im, n


@program
def mandelbrot():
    args = [24, 16, -0.7, 0.1, 3.2, 60, 4.0]
    (z_re, z_im, n), = run("mandelbrot", "mandelbrot", args, 1)
    re, im, n_ref = mandel_ref(*args)
    same("escape counts", n, n_ref)
    close("z (re)", z_re, re, 1e-12)
    close("z (im)", z_im, im, 1e-12)
    palette = ((np.arange(2048, dtype=np.uint64) * 2654435761) % 2**32
               ).astype(np.uint32)
    rgba, = run("mandelbrot", "mandelbrotRGBA", args + [palette], 1)
    want = np.empty(n_ref.shape, np.uint32)
    for y, x in np.ndindex(n_ref.shape):
        if n_ref[y, x] == args[5]:
            want[y, x] = 0xFF000000
            continue
        mag = math.sqrt(re[y, x] * re[y, x] + im[y, x] * im[y, x])
        smooth = math.log(math.log(mag) / math.log(2)) / math.log(2)
        ix = int(math.sqrt(n_ref[y, x] + 1 - smooth) * 256 + 1664) % 2048
        want[y, x] = palette[ix]
    same("colours", rgba, want)


# ---- nbody.acc ------------------------------------------------------------------

def nbody_accels(eps, pos, mass):
    r = pos[None, :, :] - pos[:, None, :]          # [i, j] = pos j - pos i
    rsqr = (r * r).sum(axis=2) + eps * eps
    invr = 1 / np.sqrt(rsqr)
    s = mass[None, :] * invr * invr * invr
    return (s[:, :, None] * r).sum(axis=1)


@program
def nbody():
    rng = np.random.default_rng(7)
    n, eps, dt = 23, f32(0.1), f32(0.05)
    pos = rng.uniform(-1, 1, (n, 3)).astype(f32)
    mass = rng.uniform(0.5, 2, n).astype(f32)
    vel = rng.uniform(-0.1, 0.1, (n, 3)).astype(f32)
    acc0 = np.zeros((n, 3), f32)
    want = nbody_accels(eps.astype(np.float64), pos.astype(np.float64),
                        mass.astype(np.float64))
    got, = run("nbody", "calcAccels", [0.1] + [pos[:, 0], pos[:, 1], pos[:, 2],
                                              mass], 1)
    close("calcAccels", np.stack(got, axis=1), want.astype(f32), 1e-4, 1e-5)
    body = [pos[:, 0], pos[:, 1], pos[:, 2], mass, vel[:, 0], vel[:, 1],
            vel[:, 2], acc0[:, 0], acc0[:, 1], acc0[:, 2]]
    got, = run("nbody", "advanceBodies", [0.1, 0.05] + body, 1)
    a = want.astype(f32)
    same("masses", got[3], mass)
    close("positions", np.stack(got[0:3], axis=1), pos + dt * vel, 1e-5, 1e-6)
    close("velocities", np.stack(got[4:7], axis=1), vel + dt * a, 1e-4, 1e-5)
    close("accelerations", np.stack(got[7:10], axis=1), a, 1e-4, 1e-5)


# ---- kmeans.acc -----------------------------------------------------------------

def kmeans_ref(points, centroids):
    def new_clusters(cs):
        d = ((points[:, None, :] - cs[None, :, :]) ** 2).sum(axis=2)
        nearest = d.argmin(axis=1)  # the first of equals, as the port's '<'
        return np.stack([points[nearest == k].mean(axis=0)
                         for k in range(len(cs))])
    old, new = centroids, new_clusters(centroids)
    while (np.abs(old - new) > 0.01).any():
        old, new = new, new_clusters(new)
    return new


@program
def kmeans():
    rng = np.random.default_rng(3)
    centres = np.array([[0, 0], [6, 1], [2, 7], [-5, 4]], np.float64)
    points = np.concatenate([c + rng.normal(0, 1.2, (30, 2)) for c in centres])
    rng.shuffle(points)
    guess = points[:4].copy()
    (ids, cx, cy), = run("kmeans", "kmeans",
                         [points[:, 0], points[:, 1],
                          np.arange(4, dtype=np.uint32), guess[:, 0],
                          guess[:, 1]], 1)
    want = kmeans_ref(points, guess)
    same("cluster ids", ids, np.arange(4, dtype=np.uint32))
    close("centroids", np.stack([cx, cy], axis=1), want, 1e-12, 1e-12)


# ---- radixsort.acc --------------------------------------------------------------

@program
def radixsort():
    rng = np.random.default_rng(11)
    xs = np.concatenate([rng.integers(-2**31, 2**31, 40),
                         [-2**31, 2**31 - 1, 0, -1, 1, 7, 7, -7]]).astype(np.int32)
    got, = run("radixsort", "sortAcc", [xs], 1)
    same("sorted", got, np.sort(xs))


# ---- canny.acc ------------------------------------------------------------------

def canny_ref(low, high, img):
    """Canny.hs's stages in f32, each operation in the port's order."""
    low, high = f32(low), f32(high)
    h, w = img.shape
    at = lambda a, y, x: a[min(max(y, 0), h - 1), min(max(x, 0), w - 1)]
    k = [f32(1) / f32(16), f32(4) / f32(16), f32(6) / f32(16),
         f32(4) / f32(16), f32(1) / f32(16)]

    def conv(a, dy, dx):
        out = np.empty_like(a)
        for y, x in np.ndindex(a.shape):
            s = k[0] * at(a, y - 2 * dy, x - 2 * dx)
            for i in range(1, 5):
                s = s + k[i] * at(a, y + (i - 2) * dy, x + (i - 2) * dx)
            out[y, x] = s
        return out
    blurred = conv(conv(img, 0, 1), 1, 0)
    pi = f32(math.pi)
    mag = np.empty_like(img)
    dirs = np.empty(img.shape, np.int64)
    for y, x in np.ndindex(img.shape):
        v = [at(blurred, y + dy, x + dx) for dy, dx in
             [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0),
              (1, 1)]]
        two = f32(2)
        dx_ = v[2] + two * v[4] + v[7] - v[0] - two * v[3] - v[5]
        dy_ = v[0] + two * v[1] + v[2] - v[5] - two * v[6] - v[7]
        m = np.sqrt(dx_ * dx_ + dy_ * dy_)
        theta = np.arctan2(dy_, dx_)
        alpha = (theta - pi / f32(8)) * (f32(4) / pi)
        norm = alpha + f32(8) * f32(alpha <= 0)
        undef = abs(dx_) <= low and abs(dy_) <= low
        d = int(not undef) * min(64 * (1 + math.floor(norm) % 4), 255)
        mag[y, x], dirs[y, x] = m, d
    out = np.empty_like(img)
    for y, x in np.ndindex(img.shape):
        d = dirs[y, x]
        ox = -1 if d > 128 else (1 if d < 128 else 0)
        oy = -1 if d < 255 else 0
        fwd = at(mag, y + oy, x + ox)
        rev = at(mag, y - oy, x - ox)
        m = mag[y, x]
        none = d == 0 or m < low or m < fwd or m < rev
        out[y, x] = f32(int(not none) * (1 + int(m >= high))) * f32(0.5)
    strong = np.flatnonzero(out.ravel() == 1.0).astype(np.int64)
    return blurred, mag, dirs, out, strong


@program
def canny():
    rng = np.random.default_rng(5)
    y, x = np.mgrid[0:20, 0:24]
    img = (200 * (((x - 11) ** 2 + (y - 9) ** 2) < 40) + 60 * (x > 18)
           + rng.uniform(0, 20, (20, 24))).astype(f32)
    image, strong = run("canny", "canny", [25.0, 70.0, img], 2)
    blurred, mag, dirs, want_image, want_strong = canny_ref(25.0, 70.0, img)
    got, = run("canny", "blur", [img], 1)
    same("blurred", got, blurred)
    got, = run("canny", "magDir", [25.0, blurred], 1)
    same("gradient magnitudes", got[0], mag)
    same("gradient directions", got[1], dirs)
    same("edge image", image, want_image)
    same("strong edges", strong, want_strong)
    if not (want_image == 0.5).any() or len(want_strong) == 0:
        raise Failure("the input should have weak and strong edges")


# ---- fluid.acc ------------------------------------------------------------------

STEPS = 4


def stencil_reader(a, outside):
    h, w = a.shape[:2]

    def read(y, x):
        if 0 <= y < h and 0 <= x < w:
            return a[y, x]
        return outside
    return read


def fluid_diffuse(add, mul, div, zero, dt, dn, df0):
    a = dt * dn * f32(df0.shape[0] * df0.shape[1])
    c = f32(1) + f32(4) * a
    if a == 0:
        return df0
    df = df0
    for _ in range(STEPS):
        r = stencil_reader(df, zero)
        nxt = np.empty_like(df)
        for y, x in np.ndindex(df.shape[:2]):
            s = add(add(add(r(y, x - 1), r(y - 1, x)), r(y, x + 1)), r(y + 1, x))
            nxt[y, x] = div(add(df0[y, x], mul(a, s)), c)
        df = nxt
    return df


def fluid_project(vf):
    h, w = vf.shape[:2]
    rv = stencil_reader(vf, np.zeros(2, f32))
    grad = np.empty((h, w), f32)
    for y, x in np.ndindex(h, w):
        t, l, r, b = rv(y - 1, x), rv(y, x - 1), rv(y, x + 1), rv(y + 1, x)
        grad[y, x] = -(f32(0.5) * (r[0] - l[0] + b[1] - t[1]))
    p = grad
    for _ in range(STEPS):
        rp = stencil_reader(p, f32(0))
        nxt = np.empty_like(p)
        for y, x in np.ndindex(h, w):
            nxt[y, x] = f32(0.25) * (grad[y, x] + rp(y, x - 1) + rp(y - 1, x)
                                     + rp(y, x + 1) + rp(y + 1, x))
        p = nxt
    rp = stencil_reader(p, f32(0))
    out = np.empty_like(vf)
    for y, x in np.ndindex(h, w):
        t, l, r, b = rp(y - 1, x), rp(y, x - 1), rp(y, x + 1), rp(y + 1, x)
        out[y, x] = vf[y, x] - f32(0.5) * np.array([r - l, b - t], f32)
    return out


def fluid_advect(add, mul, zero, dt, vf, df):
    h, w = vf.shape[:2]
    width, height = f32(w), f32(h)
    clamp = lambda z, v: max(f32(-0.5), min(z + f32(0.5), v))
    out = np.empty_like(df)
    for j, i in np.ndindex(h, w):
        u, v = vf[j, i]
        x = clamp(width, f32(i) - dt * width * u)
        y = clamp(height, f32(j) - dt * height * v)
        i0, j0 = int(np.trunc(x + f32(1))) - 1, int(np.trunc(y + f32(1))) - 1
        i1, j1 = i0 + 1, j0 + 1
        s1, t1 = x - f32(i0), y - f32(j0)
        s0, t0 = f32(1) - s1, f32(1) - t1
        get = lambda jj, ii: zero if (jj < 0 or ii < 0 or jj >= h or ii >= w) \
            else df[jj, ii]
        out[j, i] = add(mul(s0, add(mul(t0, get(j0, i0)), mul(t1, get(j1, i0)))),
                        mul(s1, add(mul(t0, get(j0, i1)), mul(t1, get(j1, i1)))))
    return out


def fluid_ref(dt, dp, dn, ds, vs, df, vf):
    dt, dp, dn = f32(dt), f32(dp), f32(dn)
    add = lambda a, b: a + b
    mul = lambda c, a: c * a
    div = lambda a, c: a / c
    vzero = np.zeros(2, f32)

    def inject(src, field):
        field = field.copy()
        for (y, x), v in zip(*src):
            field[y, x] = field[y, x] + v
        return field
    vf = inject(vs, vf)
    vf = fluid_diffuse(add, mul, div, vzero, dt, dp, vf)
    vf = fluid_project(vf)
    vf = fluid_advect(add, mul, vzero, dt, vf, vf)
    vf = fluid_project(vf)
    df = inject(ds, df)
    df = fluid_diffuse(add, mul, div, f32(0), dt, dn, df)
    df = fluid_advect(add, mul, f32(0), dt, vf, df)
    return df, vf


@program
def fluid():
    rng = np.random.default_rng(2)
    h, w = 9, 11
    df = rng.uniform(0, 1, (h, w)).astype(f32)
    vf = rng.uniform(-0.5, 0.5, (h, w, 2)).astype(f32)
    ds_idx = np.array([[1, 2], [4, 7], [8, 10]], np.int64)
    ds_val = np.array([1.0, 2.5, 0.75], f32)
    vs_idx = np.array([[3, 3], [6, 1]], np.int64)
    vs_val = np.array([[0.5, -0.25], [-1.0, 0.125]], f32)
    got_df, got_vf = run("fluid", "fluid",
                         [0.1, 0.01, 0.02, ds_idx[:, 0], ds_idx[:, 1], ds_val,
                          vs_idx[:, 0], vs_idx[:, 1], vs_val[:, 0],
                          vs_val[:, 1], df, vf[..., 0], vf[..., 1]], 2)
    want_df, want_vf = fluid_ref(0.1, 0.01, 0.02, (ds_idx, ds_val),
                                 (vs_idx, vs_val), df, vf)
    close("velocity", np.stack(got_vf, axis=2), want_vf, 1e-5, 1e-6)
    close("density", got_df, want_df, 1e-5, 1e-6)


# ---- smvm.acc -------------------------------------------------------------------

@program
def smvm():
    rng = np.random.default_rng(13)
    rows, cols = 12, 9
    dense = rng.uniform(-1, 1, (rows, cols)) * (rng.random((rows, cols)) < 0.4)
    dense[3] = 0  # an empty row
    segd = (dense != 0).sum(axis=1).astype(np.int32)
    r_idx, c_idx = np.nonzero(dense)
    inds = c_idx.astype(np.int32)
    vals = dense[r_idx, c_idx].astype(f32)
    vec = rng.uniform(-2, 2, cols).astype(f32)
    got, = run("smvm", "smvm", [segd, inds, vals, vec], 1)
    want = dense.astype(f32).astype(np.float64) @ vec.astype(np.float64)
    close("smvm", got, want.astype(f32), 1e-5, 1e-6)


# ---- quicksort.acc --------------------------------------------------------------

@program
def quicksort():
    rng = np.random.default_rng(17)
    xs = np.concatenate([rng.integers(-100, 100, 45), [5, 5, 5, -100, 99]])
    got, = run("quicksort", "quicksort", [xs.astype(np.int64)], 1)
    same("sorted", got, np.sort(xs).astype(np.int64))


# ---- pagerank.acc ---------------------------------------------------------------

@program
def pagerank():
    rng = np.random.default_rng(19)
    pages, nlinks = 10, 40
    frm = rng.integers(0, pages, nlinks).astype(np.uint32)
    to = rng.integers(0, pages, nlinks).astype(np.uint32)
    sizes = np.bincount(frm, minlength=pages).astype(np.int64)
    ranks = np.full(pages, 1 / pages, f32)
    par = rng.uniform(0, 0.01, pages).astype(f32)
    got, = run("pagerank", "stepRank", [frm, to, sizes, ranks, par], 1)
    want = par.astype(np.float64)
    np.add.at(want, to, ranks[frm].astype(np.float64) /
              sizes[frm].astype(np.float64))
    close("stepRank", got, want.astype(f32), 1e-5, 1e-7)
    contr = rng.uniform(0, 1, nlinks).astype(f32)
    got, = run("pagerank", "addUpdates", [par, to, contr], 1)
    want = par.astype(np.float64)
    np.add.at(want, to, contr.astype(np.float64))
    close("addUpdates", got, want.astype(f32), 1e-5, 1e-7)


def main():
    global ACCEL, BACKEND, TMP, VERBOSE
    args = [a for a in sys.argv[1:] if a != "-v"]
    VERBOSE = len(args) != len(sys.argv) - 1
    if len(args) != 3 or args[2] not in PROGRAMS:
        print(__doc__.strip() + "\n\nPrograms: " + " ".join(sorted(PROGRAMS)))
        return 2
    ACCEL, BACKEND, name = os.path.abspath(args[0]), args[1], args[2]
    with tempfile.TemporaryDirectory(prefix="accel-examples-") as TMP:
        try:
            PROGRAMS[name]()
        except Failure as e:
            print("FAIL %s (%s): %s" % (name, BACKEND, e))
            return 1
        except Unavailable as e:
            print("SKIP %s (%s): %s" % (name, BACKEND, e))
            return 77
    print("ok %s (%s)" % (name, BACKEND))
    return 0


if __name__ == "__main__":
    sys.exit(main())
