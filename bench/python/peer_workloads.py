"""peer_workloads.py -- the numpy and numba versions of `make bench`'s
workloads, for bench/python/peers.py.

WORKLOADS maps a row name of accel_bench's CSV to a function that takes the
row's size text (as accel_bench printed it, so the sizes are the same) and
returns a Workload: numpy and numba callables on the same data (None where
no natural version exists) and how to compare their results.  The data
follow the C benchmarks' formulas; the random keys (histogram, SMVM
columns) come from numpy's generator, uniform over the same range as the
C's LCG.  The numba versions are what a numba user writes: loops over
`prange` on the bench's threads (numba.set_num_threads), one thread where
the loop is sequential (scan) or the row is one-threaded (dotp, small).
"""
import math
import re

import numpy as np

try:
    import numba
    from numba import njit, prange
except ImportError:  # peers.py says "numba not installed"
    numba = None

    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

    prange = range


class Workload:
    """numpy_fn / numba_fn: no-argument callables returning a result (None:
    not applicable); agree(a, b): whether two results match."""

    def __init__(self, numpy_fn, numba_fn, agree):
        self.numpy_fn = numpy_fn
        self.numba_fn = numba_fn
        self.agree = agree


def ints(text):
    return [int(x) for x in re.findall(r"\d+", text)]


def close(rel):
    def agree(a, b):
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        scale = np.max(np.abs(b)) if b.size else 0.0
        return bool(np.max(np.abs(a - b), initial=0.0) <= rel * (1 + scale))
    return agree


def equal(a, b):
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


# ---- dotp ------------------------------------------------------------------

@njit(parallel=True, cache=True)
def _dotp_par(x, y):
    s = np.float32(0)
    for i in prange(x.size):
        s += x[i] * y[i]
    return s


@njit(cache=True)
def _dotp_serial(x, y):
    s = np.float32(0)
    for i in range(x.size):
        s += x[i] * y[i]
    return s


def _dotp_data(n):
    i = np.arange(n)
    x = ((i % 1000) * 0.001).astype(np.float32)
    y = ((i % 7) - 3.0).astype(np.float32)
    return x, y, float(np.sum(np.abs(x.astype(np.float64) * y)))


def dotp(size):
    x, y, mag = _dotp_data(ints(size)[0])
    return Workload(lambda: np.dot(x, y), lambda: _dotp_par(x, y),
                    lambda a, b: abs(float(a) - float(b)) <= 1e-5 * mag + 1e-6)


def dotp_small(size):
    x, y, mag = _dotp_data(ints(size)[0])
    return Workload(lambda: np.dot(x, y), lambda: _dotp_serial(x, y),
                    lambda a, b: abs(float(a) - float(b)) <= 1e-5 * mag + 1e-6)


# ---- Black-Scholes (LANGUAGE.md section 4) ----------------------------------

def _cnd_np(d):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (
        1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    c = 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - c, c)


def _bs_np(price, strike, years):
    r, v = 0.02, 0.30
    v_sqrt = v * np.sqrt(years)
    d1 = (np.log(price / strike) + (r + 0.5 * v * v) * years) / v_sqrt
    d2 = d1 - v_sqrt
    c1, c2 = _cnd_np(d1), _cnd_np(d2)
    x_exp = strike * np.exp(-r * years)
    return price * c1 - x_exp * c2, x_exp * (1.0 - c2) - price * (1.0 - c1)


@njit(cache=True)
def _cnd_nb(d):
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (
        1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    c = 0.3989422804014327 * math.exp(-0.5 * d * d) * poly
    return 1.0 - c if d > 0 else c


@njit(parallel=True, cache=True)
def _bs_nb(price, strike, years, call, put):
    r, v = np.float32(0.02), np.float32(0.30)
    for i in prange(price.size):
        v_sqrt = v * math.sqrt(years[i])
        d1 = (math.log(price[i] / strike[i]) +
              (r + np.float32(0.5) * v * v) * years[i]) / v_sqrt
        d2 = d1 - v_sqrt
        c1, c2 = _cnd_nb(d1), _cnd_nb(d2)
        x_exp = strike[i] * math.exp(-r * years[i])
        call[i] = price[i] * c1 - x_exp * c2
        put[i] = x_exp * (1.0 - c2) - price[i] * (1.0 - c1)
    return call, put


def blackscholes(size):
    i = np.arange(ints(size)[0])
    price = (5.0 + (i % 100) * 0.3).astype(np.float32)
    strike = (1.0 + (i % 17) * 0.9).astype(np.float32)
    years = (0.25 + (i % 9) * 0.5).astype(np.float32)
    call, put = np.zeros_like(price), np.zeros_like(price)
    return Workload(lambda: _bs_np(price, strike, years),
                    lambda: _bs_nb(price, strike, years, call, put),
                    lambda a, b: close(1e-3)(a[0], b[0]) and
                    close(1e-3)(a[1], b[1]))


# ---- Mandelbrot ---------------------------------------------------------------

def _mandel_np(w, h, limit):
    """The escape loop over the pixels still inside (the usual numpy form:
    the active set shrinks as pixels leave)."""
    cx = (-2.0 + 3.0 * np.arange(w, dtype=np.float32) / np.float32(w))
    cy = (-1.2 + 2.4 * np.arange(h, dtype=np.float32) / np.float32(h))
    cxa = np.broadcast_to(cx.astype(np.float32), (h, w)).ravel()
    cya = np.broadcast_to(cy.astype(np.float32)[:, None], (h, w)).ravel()
    n = np.zeros(h * w, dtype=np.int32)
    idx = np.arange(h * w)
    zx = np.zeros(h * w, dtype=np.float32)
    zy = np.zeros(h * w, dtype=np.float32)
    for _ in range(limit):
        inside = zx * zx + zy * zy < 4.0
        idx, zx, zy = idx[inside], zx[inside], zy[inside]
        cxa, cya = cxa[inside], cya[inside]
        if idx.size == 0:
            break
        n[idx] += 1
        zx, zy = zx * zx - zy * zy + cxa, 2.0 * zx * zy + cya
    return n.reshape(h, w)


@njit(parallel=True, cache=True)
def _mandel_nb(w, h, limit, out):
    for y in prange(h):
        cy = np.float32(-1.2) + np.float32(2.4) * np.float32(y) / np.float32(h)
        for x in range(w):
            cx = (np.float32(-2.0) +
                  np.float32(3.0) * np.float32(x) / np.float32(w))
            zx = np.float32(0)
            zy = np.float32(0)
            n = 0
            while n < limit and zx * zx + zy * zy < np.float32(4.0):
                zx, zy = (zx * zx - zy * zy + cx,
                          np.float32(2.0) * zx * zy + cy)
                n += 1
            out[y, x] = n
    return out


def mandelbrot(size):
    w, h, limit = ints(size)
    out = np.zeros((h, w), dtype=np.int32)
    # float32 rounding in another order moves a few boundary pixels
    return Workload(lambda: _mandel_np(w, h, limit),
                    lambda: _mandel_nb(w, h, limit, out),
                    lambda a, b: np.mean(a != b) < 0.01)


# ---- SMVM (CSR, 8 non-zeros per row) -------------------------------------------

@njit(parallel=True, cache=True)
def _smvm_nb(start, inds, vals, vec, out):
    for r in prange(out.size):
        s = np.float32(0)
        for k in range(start[r], start[r + 1]):
            s += vals[k] * vec[inds[k]]
        out[r] = s
    return out


def smvm(size):
    nnz = ints(size)[0]
    rows = nnz // 8
    rng = np.random.default_rng(12345)
    inds = rng.integers(0, rows, nnz, dtype=np.int64)
    vals = (rng.integers(0, 100, nnz) * 0.01).astype(np.float32)
    vec = ((np.arange(rows) % 10) * 0.1).astype(np.float32)
    start = np.arange(rows + 1, dtype=np.int64) * 8
    out = np.zeros(rows, dtype=np.float32)
    return Workload(
        lambda: np.add.reduceat(vals * vec[inds], start[:-1]),
        lambda: _smvm_nb(start, inds, vals, vec, out), close(1e-4))


# ---- 3x3 blur, clamped borders ---------------------------------------------------

def _blur_np(img):
    p = np.pad(img, 1, mode="edge")
    return (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:] +
            2 * p[1:-1, :-2] + 4 * p[1:-1, 1:-1] + 2 * p[1:-1, 2:] +
            p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) / 16


@njit(parallel=True, cache=True)
def _blur_nb(img, out):
    h, w = img.shape
    for i in prange(h):
        u, d = max(i - 1, 0), min(i + 1, h - 1)
        for j in range(w):
            left, right = max(j - 1, 0), min(j + 1, w - 1)
            out[i, j] = (img[u, left] + 2 * img[u, j] + img[u, right] +
                         2 * img[i, left] + 4 * img[i, j] +
                         2 * img[i, right] + img[d, left] + 2 * img[d, j] +
                         img[d, right]) / 16
    return out


def blur(size):
    side = ints(size)[0]
    img = (((np.arange(side * side) * 37) % 251) * 0.37).astype(np.float32)
    img = img.reshape(side, side)
    out = np.zeros_like(img)
    return Workload(lambda: _blur_np(img), lambda: _blur_nb(img, out),
                    close(1e-5))


# ---- histogram (one private table per thread in numba) ----------------------------

@njit(parallel=True, cache=True)
def _hist_nb(xs, k, parts):
    tables = np.zeros((parts, k), dtype=np.int32)
    n = xs.size
    for p in prange(parts):
        for i in range(n * p // parts, n * (p + 1) // parts):
            tables[p, xs[i]] += 1
    return tables.sum(axis=0)


def histogram(size):
    n, k = (int(x) for x in re.match(r"(\d+) i32, (\d+) bins", size).groups())
    xs = np.random.default_rng(987654321).integers(0, k, n, dtype=np.int32)
    parts = numba.get_num_threads() if numba else 1
    return Workload(lambda: np.bincount(xs, minlength=k),
                    lambda: _hist_nb(xs, k, parts), equal)


# ---- sieve marks (LANGUAGE.md section 3.6) ------------------------------------------

def _primes_below_sqrt(n):
    r = max(2, math.isqrt(n))
    comp = np.zeros(r + 1, dtype=bool)
    for i in range(2, math.isqrt(r) + 1):
        if not comp[i]:
            comp[i * i::i] = True
    return np.array([i for i in range(2, r + 1) if not comp[i]],
                    dtype=np.int64)


def _sieve_np(ps, n):
    marks = np.zeros(n, dtype=np.int32)
    for p in ps:
        marks[2 * p::p] += 1
    return marks


@njit(parallel=True, cache=True)
def _sieve_nb(ps, n, parts, marks):
    """The target range split over the threads, as the C baseline."""
    for t in prange(parts):
        lo, hi = n * t // parts, n * (t + 1) // parts
        for i in range(lo, hi):
            marks[i] = 0
        for p in ps:
            m = max(2 * p, (lo + p - 1) // p * p)
            while m < hi:
                marks[m] += 1
                m += p
    return marks


def sieve(size):
    n = ints(size)[0]
    ps = _primes_below_sqrt(n)
    marks = np.zeros(n, dtype=np.int32)
    parts = numba.get_num_threads() if numba else 1
    return Workload(lambda: _sieve_np(ps, n),
                    lambda: _sieve_nb(ps, n, parts, marks), equal)


# ---- transpose, scan ------------------------------------------------------------

@njit(parallel=True, cache=True)
def _transpose_nb(x, out):
    rows, cols = x.shape
    for j in prange(cols):
        for i in range(rows):
            out[j, i] = x[i, j]
    return out


def transpose(size):
    side = ints(size)[0]
    x = (np.arange(side * side) % 1000003).astype(np.float32)
    x = x.reshape(side, side)
    out, out2 = np.zeros_like(x), np.zeros_like(x)
    return Workload(lambda: np.copyto(out, x.T) or out,
                    lambda: _transpose_nb(x, out2), equal)


@njit(cache=True)
def _scan_nb(x, out):
    s = np.float32(0)
    for i in range(x.size):
        s += x[i]
        out[i] = s
    return out


def scan(size):
    n = ints(size)[0]
    x = (((np.arange(n) * 7919) % 2001 - 1000) / 1000.0).astype(np.float32)
    out, out2 = np.zeros_like(x), np.zeros_like(x)
    # both sum in the same order, in f32
    return Workload(lambda: np.cumsum(x, out=out),
                    lambda: _scan_nb(x, out2), close(1e-4))


# ---- vendor rows: numpy calls the same kind of library ---------------------------

def matmul(size):
    m = ints(size)[0]
    i = np.arange(m * m)
    a = ((i % 17) * 0.125 - 1.0).astype(np.float32).reshape(m, m)
    c = ((i % 11) * 0.25 - 1.25).astype(np.float32).reshape(m, m)
    out = np.zeros_like(a)
    return Workload(lambda: np.matmul(a, c, out=out), None, None)


def _signal(n, dtype):
    i = np.arange(n)
    return ((i * 7) % 13 - 6.0 + 1j * ((i * 3) % 5 - 2.0)).astype(dtype)


def fft2(size):
    h, w = ints(size)[:2]
    x = _signal(h * w, np.complex64).reshape(h, w)
    return Workload(lambda: np.fft.fft2(x), None, None)


def fft1(size):
    x = _signal(ints(size)[0], np.complex128)
    return Workload(lambda: np.fft.fft(x), None, None)


WORKLOADS = {
    "dotp": dotp,
    "dotp, small": dotp_small,
    "blackscholes": blackscholes,
    "mandelbrot": mandelbrot,
    "smvm": smvm,
    "blur 3x3 (stencil)": blur,
    "histogram": histogram,
    "sieve (permute')": sieve,
    "transpose": transpose,
    "scanl1 (+)": scan,
    "matmul (cblas)": matmul,
    "fft2 (fftw)": fft2,
    "fft1 (fftw)": fft1,
}
