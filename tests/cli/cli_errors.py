#!/usr/bin/python3
"""cli_errors.py -- tests of the `accel` command-line tool: errors
(ctest: cli.errors).

Usage: cli_errors.py ACCEL [-v]

Every error path: exit status 1 or 2 and exactly one stderr line
starting "accel: "; bytes from files escaped in messages; the range
of float literals (command line and text programs).

The harness (running accel, the temporary folder, the programs of
tests/cli/programs/, exit status 0, 1 or 77 when numpy is missing) is
cli_support.py.
"""
import io
import os
import sys

import cli_support as cs  # first: exits 77 (skipped) without numpy
import numpy as np
from cli_support import (NUMPY, case, expect, fails, load, ok, prog, save, tmp)


def write_bytes(name, data):
    with open(tmp(name), "wb") as f:
        f.write(data)
    return tmp(name)


def npy_bytes(array):
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def run_id(entry, *ins):
    args = ["run", prog("identity.acc"), "--entry", entry]
    for i in ins:
        args += ["--in", i]
    return args


@case("errors")
def malformed_npy():
    good = npy_bytes(np.arange(4, dtype=np.float32))
    cases = [
        ("magic.npy", b"PK\x03\x04 not a numpy file at all", "bad magic"),
        ("empty.npy", b"", "bad magic"),
        ("trunc_header.npy", good[:30], "truncated header"),
        ("trunc_len.npy", good[:9], "truncated header"),
        ("trunc_data.npy", good[:-1], "shorter than the shape says"),
        ("version.npy", good[:6] + b"\x04" + good[7:], "version 4.0"),
        ("dict.npy", good.replace(b"'shape'", b"'shope'"),
         "unexpected key 'shope'"),
        ("complex.npy", npy_bytes(np.zeros(3, dtype=np.complex64)),
         "unsupported dtype '<c8'"),
        ("half.npy", npy_bytes(np.zeros(3, dtype=np.float16)),
         "unsupported dtype '<f2'"),
        ("fortran.npy", npy_bytes(np.asfortranarray(
            np.zeros((2, 3), dtype=np.float32))), "Fortran"),
        ("big_endian.npy", npy_bytes(np.zeros(3, dtype=">f4")), "big-endian"),
        ("structured.npy", npy_bytes(np.zeros(3, dtype=[("a", "<f4")])),
         "structured"),
        ("rank9.npy", npy_bytes(np.zeros((1,) * 9, dtype=np.float32)),
         "more than 8"),
    ]
    for name, data, want in cases:
        path = write_bytes(name, data)
        line = fails(1, want, *run_id("id_f32", path))
        expect(line.startswith("accel: %s: " % path), line)
    fails(1, "cannot open", *run_id("id_f32", tmp("missing.npy")))
    fails(1, "cannot", *run_id("id_f32", cs.TMP))  # a folder


@case("errors")
def signature_mismatches():
    f64 = save("f64.npy", np.zeros(3))
    fails(1, "input 1 (xs): file %s has dtype <f8, the program expects f32"
          % f64, *run_id("id_f32", f64))
    mat = save("mat.npy", np.zeros((2, 3), dtype=np.float32))
    fails(1, "input 1 (xs): file %s has shape (2, 3) (rank 2), the program "
          "expects rank 1 (Vector f32)" % mat, *run_id("id_f32", mat))
    fails(1, "'3' is a scalar literal, the program expects a Vector f32",
          *run_id("id_f32", "3"))
    xs = save("xs.npy", np.zeros(3, dtype=np.float32))
    ys = save("ys.npy", np.zeros(4, dtype=np.int32))
    fails(1, "input 1 (ps), component 2: file %s has shape (4,), component "
          "1 has shape (3,)" % ys,
          "run", prog("tuples.acc"), "--entry", "sumpair", "--in", xs,
          "--in", ys)
    u8 = save("u8.npy", np.zeros(3, dtype=np.uint8))
    for lit, want in (("300", "300 is out of range for u8"),
                      ("-1", "-1 is out of range for u8"),
                      ("2.5", "2.5 is not an integer"),
                      ("true", "true is a bool")):
        fails(1, "input 1 (k): literal " + want, "run", prog("tuples.acc"),
              "--entry", "addu8", "--in", lit, "--in", u8)
    fails(1, "1e99 is out of range for f32", "run", prog("tuples.acc"),
          "--entry", "scale", "--in", "1e99", "--in", xs)
    fails(1, "2 is not true or false", "run", prog("tuples.acc"),
          "--entry", "pick", "--in", "2", "--in", ys)


@case("errors")
def counts_and_entries():
    xs = save("xs.npy", np.zeros(3, dtype=np.float32))
    fails(2, "takes 2 --in values (xs: Vector f32, ys: Vector f32), 1 given",
          "run", prog("dotp.acc"), "--in", xs)
    fails(2, "takes 2 --in values", "run", prog("dotp.acc"))
    fails(2, "takes 2 --in values", "run", prog("dotp.acc"), "--in", xs,
          "--in", xs, "--in", xs)
    fails(2, "has 1 output, 2 --out given", "run", prog("dotp.acc"), "--in",
          xs, "--in", xs, "--out", tmp("a.npy"), "--out", tmp("b.npy"))
    fails(2, "has 2 outputs, 1 --out given", "run", prog("tuples.acc"),
          "--entry", "twoouts", "--in", xs, "--out", tmp("a.npy"))
    fails(2, "several entry points (sumpair, swap, twoouts, scale, addu8, "
          "pick): choose one with --entry", "run", prog("tuples.acc"),
          "--in", xs)
    fails(1, "tuples.acc has no entry point 'nosuch' (entry points: "
          "sumpair, swap, twoouts, scale, addu8, pick)", "run",
          prog("tuples.acc"), "--entry", "nosuch", "--in", xs)
    fails(1, "has no entry point 'cnd'", "explain", prog("section4.acc"),
          "--entry", "cnd")
    fails(1, "cannot create", "run", prog("dotp.acc"), "--in", xs, "--in",
          xs, "--out", tmp("no/such/dir/o.npy"))
    if not cuda_available():
        fails(1, "cuda", "run", prog("dotp.acc"), "--in", xs, "--in", xs,
              "--backend", "cuda")


def cuda_available():
    return "cuda    yes" in ok("info")


@case("errors")
def check_errors():
    line = fails(1, "broken.acc:", "check", prog("broken.acc"))
    expect(":5:" in line or ":4:" in line, "no line number: " + line)
    line = fails(1, "typeerr.acc:3:", "check", prog("typeerr.acc"))
    expect("bad" in line, "the message does not name the entry: " + line)
    fails(1, "typeerr.acc:", "run", prog("typeerr.acc"), "--entry", "bad",
          "--in", save("xs.npy", np.zeros(3, dtype=np.float32)))


def run_interp(entry, *ins):
    """run_id on the interpreter: for error cases, where compiling a
    kernel would only cost time."""
    return run_id(entry, *ins) + ["--backend", "interp"]


def npy_with_dict(text, payload=b""):
    """A version 1.0 .npy image whose header dictionary is `text` (bytes,
    padded as numpy pads it), followed by `payload`."""
    total = (10 + len(text) + 1 + 63) // 64 * 64
    header_len = total - 10
    pad = b" " * (header_len - len(text) - 1)
    return (b"\x93NUMPY\x01\x00" + header_len.to_bytes(2, "little") + text +
            pad + b"\n" + payload)


@case("errors")
def messages_escape_file_bytes():
    # bytes of an .npy header that a terminal would obey (ESC sequences,
    # BEL, a title-setting OSC) are shown as \xNN, never echoed raw
    cases = [
        (b"{'descr': '\x1b[2J\x07', 'fortran_order': False, 'shape': (3,)}",
         "unsupported dtype '\\x1b[2J\\x07'"),
        (b"{'\x1b]0;pwned\x07': 1}", "unexpected key '\\x1b]0;pwned\\x07'"),
        (b"{'descr': '<f4', 'fortran_order': \x1b[5mX, 'shape': (3,)}",
         "expected True or False, found '\\x1b[5mX"),
        (b"{'descr': '<f4', 'fortran_order': \xc2\x9b31m, 'shape': ()}",
         "found '\\xc2\\x9b31m"),  # a C1 CSI, even as valid UTF-8
    ]
    for i, (text, want) in enumerate(cases):
        path = write_bytes("esc%d.npy" % i, npy_with_dict(text, b"\0" * 12))
        line = fails(1, want, *run_interp("id_f32", path))
        expect(not any(c in line for c in "\x1b\x07\x9b"), repr(line))
    # what the parser quotes is bounded: 12 bytes of the header, escaped
    path = write_bytes("long.npy", npy_with_dict(
        b"{'descr': '<f4', 'fortran_order': " + b"\x1b" * 300 + b"}"))
    line = fails(1, "found '" + "\\x1b" * 12 + "'",
                 *run_interp("id_f32", path))
    expect(len(line) < 200, "unbounded quote: %r" % line)
    # file names from the command line: controls escaped, UTF-8 kept,
    # malformed UTF-8 escaped
    line = fails(1, "e\\x1b[1mx.npy: cannot open",
                 *run_interp("id_f32", tmp("e\x1b[1mx.npy")))
    expect("\x1b" not in line, repr(line))
    fails(1, "donn\u00e9es.npy: cannot open",
          *run_interp("id_f32", tmp("donn\u00e9es.npy")))
    bad = os.fsdecode(os.path.join(os.fsencode(cs.TMP), b"x\xff.npy"))
    fails(1, "x\\xff.npy: cannot open", *run_interp("id_f32", bad))


@case("errors")
def empty_names():
    xs = save("xs.npy", np.zeros(3, dtype=np.float32))
    fails(2, "run: --in: empty file name", *run_interp("id_f32", ""))
    fails(2, "run: --out: empty file name", *run_interp("id_f32", xs),
          "--out", "")
    fails(1, "cannot read the program: empty file name", "run", "")
    fails(1, "cannot read the program: empty file name", "check", "")
    fails(2, "--out -: writing to standard output is not supported",
          *run_interp("id_f32", xs), "--out", "-")
    expect(not os.path.exists(tmp("-")), "--out - wrote a file named '-'")


def float_literal_cases():
    """(literal, numpy type, expected value or None when it must be
    refused): the reference is numpy's rounding of the decimal, refused
    when a finite number rounds to an infinity."""
    lits = ["0.1", "1e39", "1e999", "-1e999", "3.4028235e38",
            "3.4028236e38", "-3.4028236e38", "1.7976931348623157e308",
            "1.8e308", "-1e309", "1e-40", "1e-50", "-1e-50", "1e-320",
            "1e-400"]
    out = []
    for npt in (np.float32, np.float64):
        for lit in lits:
            with np.errstate(over="ignore"):
                v = npt(float(lit))
            out.append((lit, npt, None if np.isinf(v) else v))
    return out


def same_float(got, want):
    return got.dtype == want.dtype and (
        (np.isnan(got) and np.isnan(want)) or
        (got == want and np.signbit(got) == np.signbit(want)))


@case("errors")
def float_literal_range_cli():
    refused = 0
    for lit, npt, want in float_literal_cases():
        name = "f32" if npt is np.float32 else "f64"
        args = ("run", prog("identity.acc"), "--entry", "ids_" + name,
                "--in", lit, "--backend", "interp")
        if want is None:
            refused += 1
            fails(1, "input 1 (x): literal %s is out of range for %s"
                  % (lit, name), *args)
            continue
        ok(*args, "--out", tmp("lit.npy"))
        got = load("lit.npy")[()]
        expect(same_float(got, want), "%s as %s: %r, expected %r" % (
            lit, name, got, want))
    expect(refused == 12, "%d refusals" % refused)  # 8 as f32, 4 as f64
    for lit, want in (("inf", np.inf), ("-inf", -np.inf), ("nan", np.nan)):
        ok("run", prog("identity.acc"), "--entry", "ids_f32", "--in", lit,
           "--out", tmp("lit.npy"), "--backend", "interp")
        expect(same_float(load("lit.npy")[()], np.float32(want)), lit)


@case("errors")
def float_literal_range_text():
    # each refused literal alone (the first error wins); the accepted ones
    # of a type as the outputs of one program
    path = tmp("lit.acc")
    accepted = {}
    for lit, npt, want in float_literal_cases():
        name = "f32" if npt is np.float32 else "f64"
        if want is not None:
            accepted.setdefault(name, []).append((lit, want))
            continue
        with open(path, "w") as f:
            f.write("k (xs : Vector %s) : Vector %s =\n  map (\\x -> %s) xs\n"
                    % (name, name, lit))
        fails(1, "lit.acc:2:14: float literal out of range: it does not "
              "fit in %s" % name, "check", path)
    for name, cases in accepted.items():
        with open(path, "w") as f:
            f.write("k (xs : Vector %s) : (%s) =\n  (%s)\n" % (
                name, ", ".join(["Vector " + name] * len(cases)),
                ", ".join("map (\\x -> %s) xs" % lit for lit, _ in cases)))
        xs = save("x2.npy", np.zeros(2, dtype=NUMPY[name]))
        outs = []
        for i in range(len(cases)):
            outs += ["--out", tmp("lit%d.npy" % i)]
        ok("run", path, "--in", xs, "--backend", "interp", *outs)
        for i, (lit, want) in enumerate(cases):
            got = load("lit%d.npy" % i)
            expect(got.shape == (2,) and same_float(got[0], want),
                   "%s as %s: %r, expected %r" % (lit, name, got, want))


if __name__ == "__main__":
    sys.exit(cs.main("errors"))
