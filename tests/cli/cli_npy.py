#!/usr/bin/python3
"""cli_npy.py -- tests of the `accel` command-line tool: npy
(ctest: cli.npy).

Usage: cli_npy.py ACCEL [-v]

.npy files of every dtype, versions 1.0-3.0, ranks 0-3, through
`accel run` on identity programs, compared with numpy; --print.

The harness (running accel, the temporary folder, the programs of
tests/cli/programs/, exit status 0, 1 or 77 when numpy is missing) is
cli_support.py.
"""
import io
import sys

import cli_support as cs  # first: exits 77 (skipped) without numpy
import numpy as np
from cli_support import (DTYPES, NUMPY, RNG, case, expect, load, ok, prog,
                         random_array, save, tmp)


def round_trip(entry, array, version=None):
    src = save("in_%s.npy" % entry, array, version)
    ok("run", prog("identity.acc"), "--entry", entry, "--in", src,
       "--out", tmp("out.npy"))
    got = load("out.npy")
    expect(got.dtype == array.dtype, "%s: dtype %s, expected %s" % (
        entry, got.dtype, array.dtype))
    expect(got.shape == array.shape, "%s: shape %s, expected %s" % (
        entry, got.shape, array.shape))
    expect(np.array_equal(got, array, equal_nan=array.dtype.kind == "f"),
           "%s: values differ" % entry)


@case("npy")
def every_dtype_and_version():
    for t in DTYPES:
        for version in (None, (1, 0), (2, 0), (3, 0)):
            round_trip("id_" + t, random_array(NUMPY[t], (37,)), version)


@case("npy")
def explicit_little_endian_one_byte_types():
    # '<i1' and '<u1' as some writers spell them; numpy itself writes '|'
    for t, descr in (("i8", b"'<i1'"), ("u8", b"'<u1'")):
        a = random_array(NUMPY[t], (5,))
        buf = io.BytesIO()
        np.save(buf, a)
        data = buf.getvalue().replace(("'%s'" % NUMPY[t]).encode(), descr)
        with open(tmp("le.npy"), "wb") as f:
            f.write(data)
        ok("run", prog("identity.acc"), "--entry", "id_" + t, "--in",
           tmp("le.npy"), "--out", tmp("le_out.npy"))
        expect(np.array_equal(load("le_out.npy"), a), t)


@case("npy")
def ranks_and_empty_arrays():
    round_trip("idm_f64", random_array("<f8", (4, 7)))
    round_trip("id3_i16", random_array("<i2", (2, 3, 5)))
    round_trip("ids_u64", np.array(2**64 - 1, dtype=np.uint64))
    round_trip("id_f32", np.zeros((0,), dtype=np.float32))
    round_trip("idm_f64", np.zeros((3, 0), dtype=np.float64))
    round_trip("id_f64", np.array([np.inf, -np.inf, np.nan, -0.0, 5e-324]))


@case("npy")
def print_format():
    save("p.npy", np.array([1.0, 2.5, -3.0], dtype=np.float32))
    out = ok("run", prog("identity.acc"), "--entry", "id_f32", "--in",
             tmp("p.npy"))
    expect(out == "output 1: Vector f32, shape (3,)\n[ 1.0  2.5 -3.0]\n",
           repr(out))
    save("b.npy", np.array([True, False]))
    out = ok("run", prog("identity.acc"), "--entry", "id_bool", "--in",
             tmp("b.npy"))
    expect(out.endswith("[ True False]\n"), repr(out))
    out = ok("run", prog("identity.acc"), "--entry", "id3_i16", "--in",
             save("c.npy", np.arange(24, dtype=np.int16).reshape(2, 3, 4)),
             "--print")
    expect(" [[12 13 14 15]" in out and "\n\n" in out, repr(out))
    big = np.arange(3000, dtype=np.float64).reshape(1000, 3)
    out = ok("run", prog("identity.acc"), "--entry", "idm_f64", "--in",
             save("big.npy", big), "--out", tmp("big_out.npy"), "--print")
    expect("...\n" in out and "[2997.0 2998.0 2999.0]]" in out, out)
    expect(np.array_equal(load("big_out.npy"), big), "big round trip")
    out = ok("run", prog("identity.acc"), "--entry", "ids_u64", "--in", "7")
    expect(out == "output 1: Scalar u64, shape ()\n7\n", repr(out))


@case("npy")
def printed_bool_arrays_end_with_a_newline():
    """--print of bool arrays of every rank, short, wrapped over several
    lines and summarised: the text ends with one newline, and the values
    shown are the array's."""
    cases = [("ids_bool", np.array(True)), ("id_bool", np.zeros(0, bool)),
             ("id_bool", RNG.integers(0, 2, 40).astype(bool)),
             ("idm_bool", RNG.integers(0, 2, (3, 17)).astype(bool)),
             ("id3_bool", RNG.integers(0, 2, (2, 3, 4)).astype(bool)),
             ("id_bool", RNG.integers(0, 2, 2000).astype(bool))]
    for entry, x in cases:
        out = ok("run", prog("identity.acc"), "--entry", entry, "--in",
                 save("pb.npy", x), "--print")
        expect(out.endswith("\n") and not out.endswith("\n\n"),
               "%s %s: %r" % (entry, x.shape, out[-40:]))
        body = out.split("\n", 1)[1]
        words = [w for w in body.replace("[", " ").replace("]", " ").split()
                 if w in ("True", "False")]
        if x.size <= 1000:
            expect(words == ["True" if v else "False" for v in x.flat],
                   "%s %s: %r" % (entry, x.shape, body))
        else:
            expect("..." in body and len(words) == 6, body)


if __name__ == "__main__":
    sys.exit(cs.main("npy"))
