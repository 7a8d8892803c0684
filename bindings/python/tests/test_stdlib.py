"""The rest of the language from Python (accel.jit, on the interpreter:
one compilation): segmented folds and scans, right scans, stencil2 and
boundaries, the standard library's structure, gather/scatter, compact and
filter, inverse FFT, foreign_exp -- each against numpy."""
import numpy as np

import accel


def add(a, b):
    return a + b


@accel.jit(backend="interp")
def library(xs, seg, m, ks, re, im):
    offsets = accel.scanl(add, 0, seg)
    return (
        accel.fold_seg(add, 0, xs, seg),                         # 0
        accel.fold_seg_offsets(add, 0, xs, offsets),             # 1
        accel.fold1(lambda a, b: accel.max(a, b), m),            # 2
        accel.fold1_all(add, m),                                 # 3
        accel.scanr(lambda a, b: a - b, 100, ks),                # 4
        accel.scanl_seg(add, 0, xs, seg),                        # 5
        accel.postscanl(add, 1, ks),                             # 6
        accel.stencil2(lambda a, b: a[0] + b[2], "wrap", ks,
                       accel.constant(0), ks),                   # 7
        accel.stencil(lambda a, b, c: a + b + c, "mirror", ks),  # 8
        accel.take(2, m), accel.drop(1, m),                      # 9, 10
        accel.concat(ks, ks), accel.init(ks), accel.tail(ks),    # 11-13
        accel.gather(accel.map(lambda k: k % 3, ks), ks),        # 14
        accel.scatter(accel.enum_from_n((3,), 0), accel.fill((5,), -1),
                      accel.take(3, ks)),                        # 15
        accel.filter(lambda k: k % 2 == 0, ks),                  # 16
        accel.all_of(lambda v: v > -1000, m),                    # 17
        accel.any(lambda v: v > 0, m),                           # 18
        accel.enum_from_step_n((2, 3), 1.5, 0.5),                # 19
        accel.ifft(accel.fft(accel.zip(re, im))),                # 20
        accel.reshape((3, 2), accel.enum_from_n((6,), 0)),       # 21
        accel.indexed(ks),                                       # 22
        accel.map(lambda v: accel.foreign_exp(
            "no.such", lambda x: x * 2, v), ks),                 # 23
        accel.fill((2, 2), accel.length(ks)),                    # 24
    )


def test_library_against_numpy(rng):
    seg = np.array([3, 0, 2, 4], np.int64)
    xs = rng.integers(-9, 9, int(seg.sum())).astype(np.int64)
    m = rng.integers(-50, 50, (3, 4)).astype(np.int64)
    ks = rng.integers(-20, 20, 6).astype(np.int64)
    re, im = rng.uniform(-1, 1, 8), rng.uniform(-1, 1, 8)
    r = library(xs, seg, m, ks, re, im)
    starts = np.concatenate(([0], np.cumsum(seg)[:-1]))
    sums = [xs[s:s + n].sum() for s, n in zip(starts, seg)]
    eq = np.testing.assert_array_equal
    eq(r[0], sums)
    eq(r[1], sums)
    eq(r[2], m.max(1))
    eq(r[3], m.sum())
    want = [100]
    for k in ks[::-1]:
        want.insert(0, k - want[0])
    eq(r[4], want)
    eq(r[5], np.concatenate([np.concatenate(([0], np.cumsum(xs[s:s + n])))
                             for s, n in zip(starts, seg)]))
    eq(r[6], 1 + np.cumsum(ks))
    n = len(ks)
    eq(r[7], [ks[(i - 1) % n] + (ks[i + 1] if i + 1 < n else 0)
              for i in range(n)])
    pad = np.concatenate(([ks[1]], ks, [ks[-2]]))
    eq(r[8], pad[:-2] + pad[1:-1] + pad[2:])
    eq(r[9], m[:, :2])
    eq(r[10], m[:, 1:])
    eq(r[11], np.concatenate([ks, ks]))
    eq(r[12], ks[:-1])
    eq(r[13], ks[1:])
    eq(r[14], ks[np.mod(ks, 3)])
    eq(r[15], np.concatenate([ks[:3], [-1, -1]]))
    kept, count = r[16]
    eq(kept, ks[ks % 2 == 0])
    assert count == (ks % 2 == 0).sum()
    eq(r[17], (m > -1000).all(1))
    eq(r[18], (m > 0).any(1))
    eq(r[19], (1.5 + 0.5 * np.arange(6)).reshape(2, 3))
    np.testing.assert_allclose(r[20][0], re, atol=1e-12)
    np.testing.assert_allclose(r[20][1], im, atol=1e-12)
    eq(r[21], np.arange(6).reshape(3, 2))
    (ix,), v = r[22]  # an index of rank 1 comes out as a 1-tuple
    eq(ix, np.arange(n))
    eq(v, ks)
    eq(r[23], 2 * ks)
    eq(r[24], np.full((2, 2), n))


def test_wrong_number_of_arrays_is_an_accel_error():
    @accel.jit(backend="interp")
    def f(xs):
        return accel.reverse(xs, xs)

    import pytest
    with pytest.raises(accel.InvalidArgumentError, match="takes 1 array,"):
        f(np.ones(3))
