"""programs.py -- the programs of LANGUAGE.md section 4, three ways: the
text exactly as written there, the same programs as accel.jit functions,
and plain numpy references that the tests compare both against.  Also the
deterministic inputs the tests use.
"""
import os

import numpy as np

import accel

# LANGUAGE.md section 4, exactly as written (and the section 3.6 sieve):
# the files every binding's tests read (tests/programs/ of the repository).
_PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         os.pardir, os.pardir, os.pardir, "tests", "programs")


def _program_text(name):
    with open(os.path.join(_PROGRAMS, name), encoding="utf-8") as f:
        return f.read()


SECTION4 = _program_text("language4.acc") + "\n" + _program_text("sieve.acc")

ENTRIES = ["dotp", "smvm", "blackscholes", "histogram", "blur", "mandelbrot",
           "dotBlas", "sieveMarks"]


# --- the same programs written with accel.jit -------------------------------
# (decorated by make_jit, which picks the backend)

def add(a, b):
    return a + b


def mul(a, b):
    return a * b


def j_dotp(xs, ys):
    return accel.fold(add, 0, accel.zipwith(mul, xs, ys))


def j_smvm(segd, inds, vals, vec):
    vec_vals = accel.backpermute(inds.shape, lambda i: inds[i], vec)
    products = accel.zipwith(mul, vec_vals, vals)
    return accel.fold_seg(add, 0, products, segd)


def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (
        1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    c = 0.3989422804014327 * accel.exp(-0.5 * d * d) * poly
    return accel.cond(d > 0, 1.0 - c, c)


def j_blackscholes(opts):
    def option(price, strike, years):
        r, v = 0.02, 0.30
        v_sqrt_t = v * accel.sqrt(years)
        d1 = (accel.log(price / strike) + (r + 0.5 * v * v) * years) / v_sqrt_t
        d2 = d1 - v_sqrt_t
        cnd_d1, cnd_d2 = cnd(d1), cnd(d2)
        x_exp_rt = strike * accel.exp(-r * years)
        return (price * cnd_d1 - x_exp_rt * cnd_d2,
                x_exp_rt * (1.0 - cnd_d2) - price * (1.0 - cnd_d1))
    return accel.map(option, opts)


def j_histogram(k, xs):
    return accel.permute(add, accel.fill((k,), accel.i32(0)),
                         lambda i: accel.i64(xs[i]),
                         accel.map(lambda _: accel.i32(1), xs))


def j_blur(img):
    def weights(top, mid, bottom):
        (a, b, c), (d, e, f), (g, h, i) = top, mid, bottom
        return (a + 2 * b + c + 2 * d + 4 * e + 2 * f + g + 2 * h + i) / 16
    return accel.stencil(weights, "clamp", img)


def j_mandelbrot(width, height, limit):
    def pixel(y, x):
        cx = -2.0 + 3.0 * accel.f32(x) / accel.f32(width)
        cy = -1.2 + 2.4 * accel.f32(y) / accel.f32(height)
        zx, zy, n = accel.while_loop(
            lambda zx, zy, n: (n < limit) & (zx * zx + zy * zy < 4.0),
            lambda zx, zy, n: (zx * zx - zy * zy + cx, 2.0 * zx * zy + cy,
                               n + 1),
            (accel.f32(0.0), accel.f32(0.0), accel.i32(0)))
        return n
    return accel.generate((height, width), pixel)


def j_dot_blas(xs, ys):
    return accel.foreign(
        "blas.dot",
        lambda a, b: accel.fold(add, 0, accel.zipwith(mul, a, b)), (xs, ys))


def j_sieve_marks(ps, n):
    def mark(p, k):
        m = (k + 2) * p
        return (accel.cond(m < n, (m,), accel.ignore), accel.i32(1))
    return accel.permute_pairs(add, accel.fill((n,), accel.i32(0)),
                               accel.expand(lambda p: accel.quot(n - p, p),
                                            mark, ps))


JIT = {"dotp": j_dotp, "smvm": j_smvm, "blackscholes": j_blackscholes,
       "histogram": j_histogram, "blur": j_blur, "mandelbrot": j_mandelbrot,
       "dotBlas": j_dot_blas, "sieveMarks": j_sieve_marks}


# --- inputs ---------------------------------------------------------------------

def inputs(name, rng):
    """Arguments of entry `name` (as the text entry takes them)."""
    if name in ("dotp", "dotBlas"):
        n = 1000
        return (rng.uniform(-1, 1, n).astype(np.float32),
                rng.uniform(0, 2, n).astype(np.float32))
    if name == "smvm":
        rows, cols = 50, 40
        segd = rng.integers(0, 8, rows).astype(np.int64)
        nnz = int(segd.sum())
        inds = rng.integers(0, cols, nnz).astype(np.int64)
        vals = rng.uniform(-1, 1, nnz).astype(np.float32)
        vec = rng.uniform(-1, 1, cols).astype(np.float32)
        return segd, inds, vals, vec
    if name == "blackscholes":
        n = 500
        return ((rng.uniform(5, 30, n).astype(np.float32),
                 rng.uniform(1, 100, n).astype(np.float32),
                 rng.uniform(0.25, 10, n).astype(np.float32)),)
    if name == "histogram":
        return 10, rng.integers(0, 10, 300).astype(np.int32)
    if name == "blur":
        return (rng.uniform(0, 1, (13, 17)).astype(np.float32),)
    if name == "mandelbrot":
        return 40, 24, np.int32(60)
    if name == "sieveMarks":
        return np.array([2, 3, 5, 7], np.int64), 60
    raise KeyError(name)


# --- numpy references ------------------------------------------------------------

def ref_dotp(xs, ys):
    return np.dot(xs.astype(np.float64), ys.astype(np.float64))


def ref_smvm(segd, inds, vals, vec):
    products = vec.astype(np.float64)[inds] * vals
    starts = np.concatenate(([0], np.cumsum(segd)[:-1]))
    return np.array([products[s:s + n].sum() for s, n in zip(starts, segd)])


def ref_cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (
        1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    c = 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - c, c)


def ref_blackscholes(opts):
    price, strike, years = (a.astype(np.float64) for a in opts)
    r, v = 0.02, 0.30
    v_sqrt_t = v * np.sqrt(years)
    d1 = (np.log(price / strike) + (r + 0.5 * v * v) * years) / v_sqrt_t
    d2 = d1 - v_sqrt_t
    x_exp_rt = strike * np.exp(-r * years)
    call = price * ref_cnd(d1) - x_exp_rt * ref_cnd(d2)
    put = x_exp_rt * (1.0 - ref_cnd(d2)) - price * (1.0 - ref_cnd(d1))
    return call, put


def ref_histogram(k, xs):
    return np.bincount(xs, minlength=k).astype(np.int32)


def ref_blur(img):
    p = np.pad(img.astype(np.float64), 1, mode="edge")
    w = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float64)
    h, v = img.shape
    out = np.zeros((h, v))
    for dy in range(3):
        for dx in range(3):
            out += w[dy, dx] * p[dy:dy + h, dx:dx + v]
    return out / 16


def ref_mandelbrot(width, height, limit):
    """The escape counts, computed in f32 in the program's order of
    operations (so the counts are the program's, bit for bit)."""
    f = np.float32
    y, x = np.mgrid[0:height, 0:width]
    cx = f(-2.0) + f(3.0) * x.astype(f) / f(width)
    cy = f(-1.2) + f(2.4) * y.astype(f) / f(height)
    zx = np.zeros_like(cx)
    zy = np.zeros_like(cy)
    n = np.zeros(cx.shape, np.int32)
    for _ in range(int(limit)):
        live = (n < limit) & (zx * zx + zy * zy < f(4.0))
        if not live.any():
            break
        nzx = zx * zx - zy * zy + cx
        nzy = f(2.0) * zx * zy + cy
        zx = np.where(live, nzx, zx)
        zy = np.where(live, nzy, zy)
        n = np.where(live, n + 1, n)
    return n


def ref_sieve_marks(ps, n):
    out = np.zeros(n, np.int32)
    for p in ps:
        for m in range(2 * p, n, p):
            out[m] += 1
    return out


REFS = {"dotp": ref_dotp, "smvm": ref_smvm, "blackscholes": ref_blackscholes,
        "histogram": ref_histogram, "blur": ref_blur,
        "mandelbrot": ref_mandelbrot, "dotBlas": ref_dotp,
        "sieveMarks": ref_sieve_marks}


def check(name, args, got):
    """Asserts that `got` (what accel returned for entry `name` on args)
    equals the numpy reference: integers exactly, floats within the
    rounding error of an f32 computation."""
    want = REFS[name](*args)
    if name == "blackscholes":
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, want):
            assert g.dtype == np.float32 and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4)
        return
    if name in ("dotp", "dotBlas"):
        xs, ys = args
        assert got.shape == () and got.dtype == np.float32
        bound = (len(xs) + 1) * np.finfo(np.float32).eps * np.abs(
            xs.astype(np.float64) * ys).sum()
        assert abs(float(got) - want) <= bound, (float(got), want)
        return
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, want)
