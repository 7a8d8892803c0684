#!/usr/bin/python3
"""cli_test.py -- tests of the `accel` command-line tool (ctest: cli.*).

Usage: cli_test.py GROUP ACCEL [-v]

GROUP is one of
  basic     --help, --version, help, info, command-line usage errors
  npy       .npy files of every dtype, versions 1.0-3.0, ranks 0-3, through
            `accel run` on identity programs, compared with numpy
  errors    every error path: exit status 1 or 2 and exactly one stderr
            line starting "accel: "; bytes from files escaped in messages;
            the range of float literals (command line and text programs)
  programs  the LANGUAGE.md section 4 programs, tuples, literals and
            several outputs, compared with numpy; check and explain
  outputs   how outputs are written: special files refused, colliding
            names refused before the run, a failed write (RLIMIT_FSIZE)
            leaves every target as it was, modes, symbolic and hard links

Inputs are written with numpy into a temporary folder; the programs are
in tests/cli/programs/.  Exits 0 when every case passes, 1 otherwise, 77
(skipped) when numpy is missing.  A successful command must print nothing
on stderr, so a sanitizer report (a leak, say) fails the case.
"""
import io
import json
import os
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import traceback

try:
    import numpy as np
except ImportError:
    print("cli_test: numpy is missing (Debian: apt-get install python3-numpy)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
ACCEL = None
TMP = None
VERBOSE = False
GROUPS = {}


def case(group):
    def register(fn):
        GROUPS.setdefault(group, []).append(fn)
        return fn
    return register


class Failure(Exception):
    pass


def prog(name):
    if name == "section4.acc":
        return section4()
    return os.path.join(PROGRAMS, name)


SECTION4_HEADER = ("-- The programs of LANGUAGE.md section 4 (all but the "
                   "foreign dotBlas),\n-- exactly as written there.\n\n")


def section4_text():
    """The LANGUAGE.md section 4 programs but the foreign dotBlas (the
    cases count six entry points), made from the single copy,
    tests/programs/language4.acc, without its title line."""
    with open(os.path.join(HERE, "..", "programs", "language4.acc"),
              encoding="utf-8") as f:
        text = f.read().split("\n", 1)[1]
    cut = text.find("\n\n-- dot product through the BLAS plugin")
    if cut < 0:
        raise Failure("tests/programs/language4.acc: no dotBlas to leave out")
    return SECTION4_HEADER + text[:cut + 1]


def section4():
    path = tmp("section4.acc")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(section4_text())
    return path


def tmp(name):
    return os.path.join(TMP, name)


def accel(*args, preexec=None):
    p = subprocess.run([ACCEL] + [str(a) for a in args], cwd=TMP,
                       capture_output=True, text=True, timeout=120,
                       preexec_fn=preexec)
    if VERBOSE:
        print("  $ accel " + " ".join(str(a) for a in args))
        print("    rc=%d stdout=%r stderr=%r" % (p.returncode, p.stdout[:300],
                                                 p.stderr[:300]))
    return p


def ok(*args, preexec=None):
    """Runs accel and requires success with an empty stderr."""
    p = accel(*args, preexec=preexec)
    if p.returncode != 0 or p.stderr:
        raise Failure("accel %s: exit %d, stderr %r" % (
            " ".join(map(str, args)), p.returncode, p.stderr))
    return p.stdout


def fails(status, want, *args, preexec=None):
    """Runs accel and requires exit `status` with one stderr line that
    starts with "accel: " and contains `want`."""
    p = accel(*args, preexec=preexec)
    cmd = "accel " + " ".join(map(str, args))
    if p.returncode != status:
        raise Failure("%s: exit %d, expected %d (stderr %r)" % (
            cmd, p.returncode, status, p.stderr))
    lines = p.stderr.split("\n")
    if len(lines) != 2 or lines[1] != "" or not lines[0].startswith("accel: "):
        raise Failure("%s: stderr is not one 'accel: ' line: %r" % (
            cmd, p.stderr))
    if want not in lines[0]:
        raise Failure("%s: stderr %r does not contain %r" % (
            cmd, lines[0], want))
    return lines[0]


def expect(cond, what):
    if not cond:
        raise Failure(what)


def save(name, array, version=None):
    path = tmp(name)
    if version is None:
        np.save(path, array)
    else:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, array, version=version)
    return path


def load(name):
    return np.load(tmp(name))


RNG = np.random.default_rng(12345)


def random_array(dtype, shape):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(info.min, info.max, size=shape, dtype=dtype,
                            endpoint=True)
    return (RNG.standard_normal(size=shape) * 100).astype(dtype)


# --- basic --------------------------------------------------------------

@case("basic")
def help_and_version():
    out = ok("--help")
    expect("usage: accel COMMAND" in out and "run FILE" in out, out)
    expect(ok("help") == out, "accel help differs from accel --help")
    for cmd in ("run", "check", "explain", "info", "help"):
        text = ok(cmd, "--help")
        expect(text.startswith("usage: accel " + cmd), text)
        expect(ok("help", cmd) == text, "help %s differs" % cmd)
    version = ok("--version")
    expect(version.startswith("accel ") and "(ABI " in version, version)


def info_env(**changes):
    """The environment of `accel info` runs: no plugin variables unless
    given."""
    env = dict(os.environ)
    for name in ("ACC_PLUGIN_PATH", "ACC_PLUGINS"):
        env.pop(name, None)
    env.update(changes)
    return env


def run_info(env, *args):
    p = subprocess.run([ACCEL, "info"] + list(args), capture_output=True,
                       text=True, env=env)
    expect(p.returncode == 0 and p.stderr == "", "exit %d, %r" % (
        p.returncode, p.stderr))
    return p.stdout


def plugin_lines(out):
    """{name: state} from the plugin lines of `accel info`."""
    lines = {}
    for line in out.split("\n"):
        for name in ("cblas", "fftw", "cublas", "cufft"):
            if line.startswith("  %s: " % name):
                lines[name] = line[len(name) + 4:]
    return lines


BUILD = None  # the build folder (build/bin/accel -> build)


def built_plugin(name):
    return os.path.exists(os.path.join(BUILD, "plugins",
                                       "accel_%s.so" % name))


@case("basic")
def info():
    home = tmp("home")
    os.makedirs(os.path.join(home, "accel", "sub"), exist_ok=True)
    with open(os.path.join(home, "accel", "sub", "k.bin"), "wb") as f:
        f.write(b"x" * 100)
    env = info_env(XDG_CACHE_HOME=home)
    p = subprocess.run([ACCEL, "info"], capture_output=True, text=True,
                       env=env)
    expect(p.returncode == 0 and p.stderr == "", p.stderr)
    out = p.stdout
    # the CPU probe's stamp (canaries-KEY.txt) joins k.bin when a compiler
    # works: it records the canaries' outcome for later processes
    stamps = [f for f in os.listdir(os.path.join(home, "accel"))
              if f.startswith("canaries-") and f.endswith(".txt")]
    # k.bin, the 16-byte secret, and the stamp
    expect(os.path.getsize(os.path.join(home, "accel", "secret.key")) == 16,
           "no 16-byte secret")
    size = 116 + sum(os.path.getsize(os.path.join(home, "accel", f))
                     for f in stamps)
    files = 2 + len(stamps)
    for want in ("accel ", "ABI", "interp", "cpu", "cuda", "auto",
                 "plugins (ACC_PLUGINS=unset, ACC_PLUGIN_PATH=unset):",
                 "kernel cache: %s/accel "
                 "(%d bytes in %d file%s)" % (home, size, files,
                                              "s" if files > 1 else "")):
        expect(want in out, "info lacks %r:\n%s" % (want, out))
    expect("interp  yes" in out, out)
    # the CPU backend says which canaries ran and what they chose
    if "cpu     yes" in out:
        expect(len(stamps) == 1, os.listdir(os.path.join(home, "accel")))
        expect("; canaries: 6 passed (widening-fold, lane-folds, "
               "in-order-scan, in-order-fold, wrap-around, fp-contract-off)"
               in out or "canaries passed" in out, out)
    # an absent folder is created, private, with its secret
    env["XDG_CACHE_HOME"] = tmp("absent")
    p = subprocess.run([ACCEL, "info"], capture_output=True, text=True,
                       env=env)
    made = os.path.join(env["XDG_CACHE_HOME"], "accel")
    # the 16-byte secret, and the CPU probe's stamp when a compiler works
    made_files = os.listdir(made)
    made_bytes = sum(os.path.getsize(os.path.join(made, f))
                     for f in made_files)
    expect("secret.key" in made_files, made_files)
    expect(len(made_files) == (2 if "cpu     yes" in p.stdout else 1),
           made_files)
    expect("kernel cache: %s (%d bytes in %d file%s)"
           % (made, made_bytes, len(made_files),
              "s" if len(made_files) > 1 else "") in p.stdout, p.stdout)
    expect(os.stat(made).st_mode & 0o777 == 0o700, oct(os.stat(made).st_mode))
    # a folder others can write is refused, with the reason, and a private
    # temporary folder is used instead
    os.chmod(made, 0o777)
    p = subprocess.run([ACCEL, "info"], capture_output=True, text=True,
                       env=env)
    expect(p.returncode == 0, p.stderr)
    expect("kernel cache %s refused: %s is writable by group or others "
           "(mode 0777); kernels are compiled in the private temporary "
           "folder " % (made, made) in p.stdout, p.stdout)
    line = [l for l in p.stdout.splitlines() if l.startswith("kernel cache:")]
    expect(len(line) == 1 and "/accel-cache-" in line[0], p.stdout)


@case("basic")
def info_lists_the_built_in_plugins():
    """Without any setting, the plugins of the build tree are found: all
    four are listed, loaded or with the reason."""
    out = run_info(info_env())
    states = plugin_lines(out)
    expect(sorted(states) == ["cblas", "cublas", "cufft", "fftw"], out)
    on_cuda = "auto    selects cuda" in out
    host, device = ("cblas", "fftw"), ("cublas", "cufft")
    for name in device if on_cuda else host:
        if built_plugin(name):
            want = "loaded from %s" % os.path.join(
                os.path.realpath(BUILD), "plugins", "accel_%s.so" % name)
            expect(states[name] == want, "%s: %r, expected %r" % (
                name, states[name], want))
        else:
            expect(states[name].startswith("not loaded: plugin '%s' not "
                                           "found" % name), states[name])
    for name in host if on_cuda else device:
        expect(states[name].startswith("not loaded: it serves the "), out)
    if not on_cuda:
        expect("cuda backend" in states["cublas"], states["cublas"])
    if built_plugin("cblas") and not on_cuda:
        expect("blas.dot cblas.dot backend=cpu" in out, out)


@case("basic")
def info_plugin_settings():
    out = run_info(info_env(), "--no-plugins")
    for name, state in plugin_lines(out).items():
        expect(state == 'not loaded: the context\'s plugins option is '
               '"none"', "%s: %r" % (name, state))
    expect("foreign implementations:" not in out, out)
    out = run_info(info_env(ACC_PLUGINS="none"))
    expect(plugin_lines(out)["fftw"] == 'not loaded: ACC_PLUGINS is "none"',
           out)
    expect("plugins (ACC_PLUGINS=none," in out, out)
    if built_plugin("fftw"):
        out = run_info(info_env(ACC_PLUGINS="fftw"))
        states = plugin_lines(out)
        expect(states["fftw"].startswith("loaded from "), out)
        expect(states["cblas"] == 'not loaded: ACC_PLUGINS is "fftw", which '
               'does not name it', out)
    # a plugin that cannot be loaded is reported, never fatal; the folders
    # of ACC_PLUGIN_PATH come before the build tree's
    bad = os.path.join(BUILD, "tests", "foreign", "accel_bad_abi.so")
    if os.path.exists(bad):
        folder = tmp("badplugins")
        os.makedirs(folder, exist_ok=True)
        shutil.copy(bad, os.path.join(folder, "accel_cblas.so"))
        out = run_info(info_env(ACC_PLUGIN_PATH=folder))
        state = plugin_lines(out)["cblas"]
        if "auto    selects cuda" not in out:
            expect(state.startswith("not loaded: plugin 'bad_abi' (%s) was "
                                    "built for accel ABI version" %
                                    os.path.join(folder, "accel_cblas.so")),
                   state)
    # --plugin loads a plugin by name or path; one that cannot be loaded is
    # an error
    fails(1, "--plugin: acc_plugin_load: plugin 'nonexistent' not found",
          "info", "--plugin", "nonexistent")


@case("basic")
def usage_errors():
    fails(2, "no command given")
    fails(2, "unknown command 'frobnicate'", "frobnicate")
    fails(2, "unknown option '--frob'", "--frob")
    fails(2, "unknown command 'frob'", "help", "frob")
    fails(2, "unknown option '--frob'", "info", "--frob")
    fails(2, "unexpected argument", "info", "extra")
    fails(2, "no program file given", "run")
    fails(2, "no program file given", "check")
    fails(2, "no program file given", "explain")
    fails(2, "unknown option '--frob'", "run", "x.acc", "--frob")
    fails(2, "--entry needs a value", "run", "x.acc", "--entry")
    fails(2, "--entry given twice", "run", "x.acc", "--entry", "a",
          "--entry=b")
    fails(2, "--print takes no value", "run", "x.acc", "--print=yes")
    fails(2, "unknown backend 'gpu'", "run", "x.acc", "--backend", "gpu")
    fails(2, "unexpected argument 'y.acc'", "run", "x.acc", "y.acc")
    fails(1, "cannot read missing.acc", "run", "missing.acc")
    fails(1, "cannot read missing.acc", "check", "missing.acc")
    fails(1, "cannot read missing.acc", "explain", "missing.acc")


# --- npy ------------------------------------------------------------------

DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
          "f32", "f64"]
NUMPY = {"bool": "|b1", "i8": "|i1", "i16": "<i2", "i32": "<i4",
         "i64": "<i8", "u8": "|u1", "u16": "<u2", "u32": "<u4", "u64": "<u8",
         "f32": "<f4", "f64": "<f8"}


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


# --- errors ---------------------------------------------------------------

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
    fails(1, "cannot", *run_id("id_f32", TMP))  # a folder


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
    bad = os.fsdecode(os.path.join(os.fsencode(TMP), b"x\xff.npy"))
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


# --- programs ---------------------------------------------------------------

@case("programs")
def check_ok():
    out = ok("check", prog("section4.acc"))
    expect(out == "ok: 6 entry points (dotp, smvm, blackscholes, histogram, "
           "blur, mandelbrot)\n", repr(out))
    expect(ok("check", prog("dotp.acc")) == "ok: 1 entry point (dotp)\n",
           "dotp.acc")
    ok("check", prog("identity.acc"))
    ok("check", prog("tuples.acc"))


@case("programs")
def dotp():
    n = 1000
    xs = RNG.standard_normal(n).astype(np.float32)
    ys = RNG.standard_normal(n).astype(np.float32)
    save("xs.npy", xs)
    save("ys.npy", ys)
    for path, entry in ((prog("dotp.acc"), []),
                        (prog("section4.acc"), ["--entry", "dotp"])):
        ok("run", path, *entry, "--in", tmp("xs.npy"), "--in", tmp("ys.npy"),
           "--out", tmp("d.npy"))
        got = load("d.npy")
        want = np.dot(xs.astype(np.float64), ys.astype(np.float64))
        bound = (n + 1) * np.finfo(np.float32).eps * np.sum(np.abs(
            xs.astype(np.float64) * ys))
        expect(got.shape == () and got.dtype == np.float32, str(got.dtype))
        expect(abs(float(got) - want) <= bound, "%r vs %r" % (got, want))
    out = ok("run", prog("dotp.acc"), "--in", tmp("xs.npy"), "--in",
             tmp("ys.npy"), "--backend", "interp", "--print")
    expect(out.startswith("output 1: Scalar f32, shape ()\n"), out)


@case("programs")
def histogram():
    xs = RNG.integers(0, 10, 1000).astype(np.int32)
    save("h.npy", xs)
    ok("run", prog("section4.acc"), "--entry", "histogram", "--in", "10",
       "--in", tmp("h.npy"), "--out", tmp("hist.npy"))
    got = load("hist.npy")
    expect(got.dtype == np.int32, str(got.dtype))
    expect(np.array_equal(got, np.bincount(xs, minlength=10)), str(got))


@case("programs")
def blur():
    img = RNG.random((7, 9)).astype(np.float32)
    save("img.npy", img)
    ok("run", prog("section4.acc"), "--entry", "blur", "--in", tmp("img.npy"),
       "--out", tmp("blur.npy"))
    p = np.pad(img.astype(np.float64), 1, mode="edge")
    w = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16.0
    want = sum(w[i, j] * p[i:i + 7, j:j + 9] for i in range(3)
               for j in range(3))
    got = load("blur.npy")
    expect(got.shape == (7, 9) and got.dtype == np.float32, str(got.shape))
    expect(np.allclose(got, want, rtol=1e-5, atol=1e-6),
           "max diff %g" % np.max(np.abs(got - want)))


@case("programs")
def smvm():
    segd = np.array([2, 0, 3, 1], dtype=np.int64)
    inds = np.array([0, 4, 1, 2, 3, 4], dtype=np.int64)
    vals = np.array([1, 2, 3, 4, 5, 6], dtype=np.float32)
    vec = np.array([10, 20, 30, 40, 50], dtype=np.float32)
    args = []
    for name, a in (("segd", segd), ("inds", inds), ("vals", vals),
                    ("vec", vec)):
        args += ["--in", save(name + ".npy", a)]
    ok("run", prog("section4.acc"), "--entry", "smvm", *args, "--out",
       tmp("smvm.npy"))
    want = np.array([1 * 10 + 2 * 50, 0, 3 * 20 + 4 * 30 + 5 * 40, 6 * 50],
                    dtype=np.float32)
    expect(np.array_equal(load("smvm.npy"), want), str(load("smvm.npy")))


def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (
        1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    c = 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - c, c)


@case("programs")
def blackscholes():
    n = 50
    price = RNG.uniform(5, 30, n).astype(np.float32)
    strike = RNG.uniform(1, 100, n).astype(np.float32)
    years = RNG.uniform(0.25, 10, n).astype(np.float32)
    ok("run", prog("section4.acc"), "--entry", "blackscholes",
       "--in", save("price.npy", price), "--in", save("strike.npy", strike),
       "--in", save("years.npy", years), "--out", tmp("bs.npy"))
    p, s, y = (a.astype(np.float64) for a in (price, strike, years))
    r, v = 0.02, 0.30
    v_sqrt = v * np.sqrt(y)
    d1 = (np.log(p / s) + (r + 0.5 * v * v) * y) / v_sqrt
    d2 = d1 - v_sqrt
    x = s * np.exp(-r * y)
    call = p * cnd(d1) - x * cnd(d2)
    put = x * (1.0 - cnd(d2)) - p * (1.0 - cnd(d1))
    for k, want in ((0, call), (1, put)):
        got = load("bs.%d.npy" % k)
        expect(got.dtype == np.float32 and got.shape == (n,), str(got.dtype))
        expect(np.allclose(got, want, rtol=1e-3, atol=1e-3),
               "component %d: max diff %g" % (k, np.max(np.abs(got - want))))
    expect(not os.path.exists(tmp("bs.npy")), "bs.npy written for a tuple")


@case("programs")
def mandelbrot():
    w, h, limit = 24, 16, 40
    ok("run", prog("section4.acc"), "--entry", "mandelbrot", "--in", w,
       "--in", h, "--in", limit, "--out", tmp("m.npy"))
    got = load("m.npy")
    f = np.float32
    want = np.zeros((h, w), dtype=np.int32)
    for yy in range(h):
        for xx in range(w):
            cx = f(-2.0) + f(3.0) * f(xx) / f(w)
            cy = f(-1.2) + f(2.4) * f(yy) / f(h)
            zx, zy, n = f(0), f(0), 0
            while n < limit and zx * zx + zy * zy < f(4.0):
                zx, zy, n = zx * zx - zy * zy + cx, f(2.0) * zx * zy + cy, n + 1
            want[yy, xx] = n
    expect(got.shape == (h, w) and got.dtype == np.int32, str(got.shape))
    # float rounding may move a point on the boundary; allow 1% of them
    expect(np.count_nonzero(got != want) <= w * h // 100,
           "%d of %d differ" % (np.count_nonzero(got != want), w * h))


@case("programs")
def tuples_literals_and_outputs():
    xs = np.array([1.5, 2.0, -3.0], dtype=np.float32)
    ys = np.array([10, 20, 30], dtype=np.int32)
    save("xs.npy", xs)
    save("ys.npy", ys)
    tup = prog("tuples.acc")
    ok("run", tup, "--entry", "sumpair", "--in", tmp("xs.npy"), "--in",
       tmp("ys.npy"), "--out", tmp("sp.npy"))
    expect(np.array_equal(load("sp.npy"), xs + ys), str(load("sp.npy")))
    ok("run", tup, "--entry", "swap", "--in", tmp("xs.npy"), "--in",
       tmp("ys.npy"), "--out", tmp("sw.npy"))
    expect(np.array_equal(load("sw.0.npy"), ys), "swap.0")
    expect(np.array_equal(load("sw.1.npy"), xs), "swap.1")
    out = ok("run", tup, "--entry", "twoouts", "--in", tmp("xs.npy"),
             "--out", tmp("t1.npy"), "--out", tmp("t2"), "--print")
    expect(np.array_equal(load("t1.npy"), xs * 2), "twoouts 1")
    with open(tmp("t2"), "rb") as f:  # written exactly where asked
        expect(np.load(f) == np.float32(0.5), "twoouts 2")
    expect("output 2: Scalar f32, shape ()\n0.5\n" in out, out)
    ok("run", tup, "--entry", "scale", "--in", "2.5", "--in", tmp("xs.npy"),
       "--out", tmp("sc.npy"))
    expect(np.array_equal(load("sc.npy"), xs * np.float32(2.5)), "scale")
    u8 = save("u8.npy", np.array([250, 5], dtype=np.uint8))
    ok("run", tup, "--entry", "addu8", "--in", "255", "--in", u8, "--out",
       tmp("u.npy"))
    expect(np.array_equal(load("u.npy"), np.array([249, 4], np.uint8)), "u8")
    for lit, want in (("true", ys), ("False", ys * 0), ("1", ys)):
        ok("run", tup, "--entry", "pick", "--in", lit, "--in", tmp("ys.npy"),
           "--out", tmp("pk.npy"))
        expect(np.array_equal(load("pk.npy"), want), "pick " + lit)


@case("programs")
def explain():
    text = ok("explain", prog("dotp.acc"))
    expect("kernel" in text, text)
    doc = json.loads(ok("explain", prog("section4.acc"), "--entry", "blur",
                        "--json"))
    for key in ("backend", "kernels", "intermediates", "steps"):
        expect(key in doc, "explain --json lacks %r" % key)


@case("programs")
def strict_refuses_interpreted_steps():
    """A step the CPU backend cannot compile (a backpermute left unfused by
    ACC_DISABLE=fusion) is interpreted, and the plan says why; --strict
    makes it a compile error of run and explain, before any output."""
    src = tmp("unfused.acc")
    with open(src, "w") as f:
        f.write("f (xs : Vector i64) : Vector i64 =\n"
                "  backpermute [3] (\\[i] -> [2 - i]) xs\n")
    xs = save("unfused_in.npy", np.array([5, 6, 7], dtype=np.int64))
    os.environ["ACC_DISABLE"] = "fusion"
    try:
        text = ok("explain", src, "--backend", "cpu")
        expect("interpreted: backpermute has no CPU skeleton" in text, text)
        ok("run", src, "--backend", "cpu", "--in", xs, "--out",
           tmp("unfused_out.npy"))
        expect(list(load("unfused_out.npy")) == [7, 6, 5],
               str(load("unfused_out.npy")))
        fails(1, "strict", "run", src, "--backend", "cpu", "--strict",
              "--in", xs, "--out", tmp("strict_out.npy"))
        expect(not os.path.exists(tmp("strict_out.npy")),
               "a strict run that failed to compile wrote its output")
        fails(1, "backpermute has no CPU skeleton", "explain", src,
              "--backend", "cpu", "--strict")
    finally:
        del os.environ["ACC_DISABLE"]


def run_env(env, *args):
    """Runs accel with `env`; requires success with an empty stderr unless
    ACC_DUMP is set.  Returns (stdout, stderr)."""
    p = subprocess.run([ACCEL] + [str(a) for a in args], cwd=TMP, env=env,
                       capture_output=True, text=True, timeout=120)
    expect(p.returncode == 0 and (p.stderr == "" or "ACC_DUMP" in env),
           "accel %s: exit %d, stderr %r" % (" ".join(map(str, args)),
                                             p.returncode, p.stderr[:2000]))
    return p.stdout, p.stderr


USER_KERNEL = os.path.join(HERE, "..", "..", "examples", "user_kernel")


@case("programs")
def user_kernel_files():
    """--kernel FILE registers the user kernel of a C file (its comment
    lines say what it implements): the plan says it is used, the result
    is the fallback's and numpy's; a file that does not compile, or lacks
    a directive, is one error line."""
    program = os.path.join(USER_KERNEL, "saxpy.acc")
    kernel = os.path.join(USER_KERNEL, "saxpy_kernel.c")
    xs = RNG.standard_normal(100)
    ys = RNG.standard_normal(100)
    save("uxs.npy", xs)
    save("uys.npy", ys)
    for backend in ("interp", "cpu"):
        plan = ok("explain", program, "--kernel", kernel, "--backend", backend)
        expect("uses: kernel:saxpy (user kernel, priority 0)" in plan, plan)
        plan = ok("explain", program, "--backend", backend)
        expect("uses: fallback: no implementation of 'user.saxpy'" in plan,
               plan)
        for extra, out in ((["--kernel", kernel], "k.npy"), ([], "f.npy")):
            ok("run", program, *extra, "--backend", backend, "--in", "1.5",
               "--in", tmp("uxs.npy"), "--in", tmp("uys.npy"), "--out",
               tmp(out))
        expect(np.array_equal(load("k.npy"), load("f.npy")), "differ")
        expect(np.allclose(load("k.npy"), 1.5 * xs + ys, rtol=1e-15),
               "not a x + y")
    with open(kernel) as f:
        source = f.read()
    with open(tmp("broken.c"), "w") as f:
        f.write(source.replace("out[i] =", "out[i] = ="))
    fails(1, "'user.saxpy': the C source does not compile", "check", program,
          "--kernel", tmp("broken.c"))
    with open(tmp("nameless.c"), "w") as f:
        f.write(source.replace("// kernel: user.saxpy\n", ""))
    fails(1, "'kernel' is missing", "check", program, "--kernel",
          tmp("nameless.c"))
    fails(1, "bad value 'maybe' for 'split'", "check", program, "--kernel",
          save_text("split.c", "// split: maybe\n" + source))


def save_text(name, text):
    with open(tmp(name), "w") as f:
        f.write(text)
    return tmp(name)


@case("programs")
def plugins_found_without_setup():
    """From the build tree, with no plugin variable set, explain and run
    use the built-in plugins; --no-plugins and --plugin change that."""
    env = info_env()
    on_cuda = "auto    selects cuda" in run_info(env)
    if on_cuda or not built_plugin("cblas") or not built_plugin("fftw"):
        return  # the host plugins serve only the host backends
    foreign = prog("foreign.acc")
    plan, _ = run_env(env, "explain", foreign, "--entry", "dotBlas")
    expect("uses: cblas.dot (plugin cblas, priority 10)" in plan, plan)
    plan, _ = run_env(env, "explain", foreign, "--entry", "dotBlas",
                      "--no-plugins")
    expect("fallback: no implementation of 'blas.dot' is registered for "
           "backend" in plan and "(plugin cblas not loaded: the context's "
           "plugins option is \"none\")" in plan, plan)
    plan, _ = run_env(env, "explain", foreign, "--entry", "dotBlas",
                      "--no-plugins", "--plugin",
                      os.path.join(BUILD, "plugins", "accel_cblas.so"))
    expect("uses: cblas.dot" in plan, plan)
    xs = RNG.standard_normal(1000).astype(np.float32)
    ys = RNG.standard_normal(1000).astype(np.float32)
    exact = float(np.dot(xs.astype(np.float64), ys.astype(np.float64)))
    bound = 1001 * np.finfo(np.float32).eps * float(
        np.sum(np.abs(xs.astype(np.float64) * ys)))
    for extra in ([], ["--no-plugins"]):
        run_env(env, "run", foreign, "--entry", "dotBlas", "--in",
                save("xs.npy", xs), "--in", save("ys.npy", ys), "--out",
                tmp("dot.npy"), *extra)
        expect(abs(float(load("dot.npy")) - exact) <= bound, "dotBlas")
    # fft: FFTW runs instead of the fallback, whose kernels ACC_DUMP=kernels
    # shows; the text fallback takes only powers of two, FFTW any length
    plan, _ = run_env(env, "explain", foreign, "--entry", "spectrum")
    expect("uses: fftw.forward (plugin fftw" in plan, plan)
    dumped = {}
    for n, extra in ((16, []), (16, ["--no-plugins"]), (12, [])):
        re, im = RNG.standard_normal(n), RNG.standard_normal(n)
        _, err = run_env(dict(env, ACC_DUMP="kernels"), "run", foreign,
                         "--entry", "spectrum", "--in", save("re.npy", re),
                         "--in", save("im.npy", im), "--out", tmp("fr.npy"),
                         "--out", tmp("fi.npy"), *extra)
        dumped[(n, bool(extra))] = err.count("== accel ")
        got = load("fr.npy") + 1j * load("fi.npy")
        expect(np.max(np.abs(got - np.fft.fft(re + 1j * im))) < 1e-9,
               "fft %d %r" % (n, extra))
    expect(dumped[(16, False)] < dumped[(16, True)], "the fallback's kernels "
           "ran with the plugin: %r" % dumped)
    p = accel("run", foreign, "--entry", "spectrum", "--no-plugins", "--in",
              tmp("re.npy"), "--in", tmp("im.npy"))
    expect(p.returncode == 1, "the fallback took 12 elements: %r" % (p,))
    fails(1, "--plugin: acc_plugin_load: plugin 'nonexistent' not found",
          "explain", foreign, "--entry", "dotBlas", "--plugin", "nonexistent")


@case("programs")
def fftw_cold_runs_exit_cleanly():
    """The fftw plugin from an empty wisdom folder, process after process:
    FFTW's planner times threaded plans, and its detached worker threads
    unwind through FFTW's code as the context unloads the plugin; when
    dlclose unmapped FFTW under them (before the plugin was linked
    -z nodelete) about one process in six died of SIGSEGV at exit, so 20
    in a row catch it with probability above 0.97."""
    if not built_plugin("fftw"):
        return
    cache = fresh_dir("fftw-cold")
    os.chmod(cache, 0o700)
    env = info_env(XDG_CACHE_HOME=cache, ACC_NUM_THREADS="2")
    os.makedirs(os.path.join(cache, "accel"), mode=0o700)
    re, im = RNG.standard_normal(16), RNG.standard_normal(16)
    args = ["run", prog("foreign.acc"), "--entry", "spectrum", "--backend",
            "interp", "--in", save("cre.npy", re), "--in",
            save("cim.npy", im), "--out", tmp("cfr.npy"), "--out",
            tmp("cfi.npy")]
    for i in range(20):
        for name in ("fftw3.wisdom", "fftw3f.wisdom"):
            path = os.path.join(cache, "accel", name)
            if os.path.exists(path):
                os.remove(path)
        run_env(env, *args)
        got = load("cfr.npy") + 1j * load("cfi.npy")
        expect(np.max(np.abs(got - np.fft.fft(re + 1j * im))) < 1e-9,
               "cold run %d: wrong transform" % i)
    expect(os.path.exists(os.path.join(cache, "accel", "fftw3.wisdom")),
           "no wisdom written to the cache folder")


# --- outputs -----------------------------------------------------------------

def fresh_dir(name):
    d = tmp(name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def listing(folder):
    return sorted(os.listdir(folder))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def make_device(path):
    """A character device with /dev/full's numbers, made in our own folder
    so that the real /dev is never at risk; False where mknod is refused
    (not root, or a container without CAP_MKNOD)."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.stat("/dev/full").st_rdev)
        return True
    except OSError:
        return False


def file_size_limit(max_bytes):
    """A preexec function: writes beyond max_bytes fail with EFBIG (as on
    a full disk) instead of killing the process with SIGXFSZ."""
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))
    return limit


@case("outputs")
def special_targets_are_refused_before_the_run():
    d = fresh_dir("special")
    xs = save("xs.npy", np.arange(5, dtype=np.float32))
    targets = []
    if make_device(os.path.join(d, "full")):
        targets.append(("full", "is a character device", stat.S_ISCHR))
    else:
        print("note: mknod refused, the device case is not run")
    os.mkfifo(os.path.join(d, "fifo"))
    targets.append(("fifo", "is a FIFO", stat.S_ISFIFO))
    os.mkdir(os.path.join(d, "sub"))
    targets.append(("sub", "is a folder", stat.S_ISDIR))
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(os.path.join(d, "sock"))
        targets.append(("sock", "is a socket", stat.S_ISSOCK))
    except OSError:  # a folder name too long for a socket address
        print("note: bind refused, the socket case is not run")
    os.symlink("fifo", os.path.join(d, "to_fifo"))
    targets.append(("to_fifo", "is a symbolic link to a FIFO",
                    stat.S_ISLNK))
    os.symlink("missing", os.path.join(d, "dangling"))
    targets.append(("dangling", "is a symbolic link to a missing",
                    stat.S_ISLNK))
    before = {n: os.lstat(os.path.join(d, n)) for n in listing(d)}
    try:
        for name, want, is_kind in targets:
            target = os.path.join(d, name)
            # the other output is fine: it must not be written either
            fails(1, "%s: %s, not a regular file" % (target, want)
                  if "missing" not in want else want,
                  "run", prog("outputs.acc"), "--entry", "smallbig", "--in",
                  xs, "--backend", "interp", "--out", tmp("good.npy"),
                  "--out", target)
            expect(not os.path.exists(tmp("good.npy")),
                   "%s: an output was written before the refusal" % name)
            st = os.lstat(target)
            expect(is_kind(st.st_mode) and st.st_ino == before[name].st_ino
                   and st.st_rdev == before[name].st_rdev,
                   "%s was replaced or changed" % name)
            expect(listing(d) == sorted(before), listing(d))
    finally:
        sock.close()


@case("outputs")
def a_failed_write_leaves_every_target_as_it_was():
    d = fresh_dir("full")
    big = save("big.npy", np.arange(100000, dtype=np.float32))
    keep = os.path.join(d, "keep.npy")
    np.save(keep, np.arange(5, dtype=np.float32))
    old = read(keep)
    limit = file_size_limit(65536)
    # the old code truncated keep.npy, failed with EFBIG and removed it
    fails(1, "keep.npy: cannot write: File too large", "run",
          prog("identity.acc"), "--entry", "id_f32", "--in", big, "--out",
          keep, "--backend", "interp", preexec=limit)
    expect(read(keep) == old, "the target was changed")
    expect(listing(d) == ["keep.npy"], listing(d))
    # two outputs: the small one is staged, the large one fails; neither
    # target is replaced
    small = os.path.join(d, "small.npy")
    np.save(small, np.float32(7))
    old_small = read(small)
    fails(1, "keep.npy: cannot write", "run", prog("outputs.acc"), "--entry",
          "smallbig", "--in", big, "--out", small, "--out", keep,
          "--backend", "interp", preexec=limit)
    expect(read(small) == old_small and read(keep) == old,
           "a target was changed")
    expect(listing(d) == ["keep.npy", "small.npy"], listing(d))
    # without the limit the same command writes both
    ok("run", prog("outputs.acc"), "--entry", "smallbig", "--in", big,
       "--out", small, "--out", keep, "--backend", "interp")
    want = np.arange(100000, dtype=np.float32)
    expect(np.array_equal(np.load(keep), want * 2), "large output")
    exact = float(np.sum(want, dtype=np.float64))  # an f32 sum's bound:
    expect(abs(float(np.load(small)) - exact) <=  # n eps sum |x|
           want.size * np.finfo(np.float32).eps * exact, "small output")
    expect(listing(d) == ["keep.npy", "small.npy"], listing(d))


@case("outputs")
def colliding_names_are_refused_before_the_run():
    d = fresh_dir("c")
    os.mkdir(os.path.join(d, "sub"))
    xs = save("xs.npy", np.arange(3, dtype=np.float32))
    ys = save("ys.npy", np.arange(3, dtype=np.int32))
    np.save(os.path.join(d, "h1.npy"), np.float32(1))
    os.link(os.path.join(d, "h1.npy"), os.path.join(d, "h2.npy"))
    os.symlink("h1.npy", os.path.join(d, "l.npy"))
    old = read(os.path.join(d, "h1.npy"))
    small = ["run", prog("outputs.acc"), "--entry", "smallbig", "--backend",
             "interp", "--in", xs]
    pairs = ["run", prog("outputs.acc"), "--entry", "pairs", "--backend",
             "interp", "--in", xs, "--in", ys]
    same = "would write the same file (give every output file its own name)"
    cases = [
        (small + ["--out", "c/a.npy", "--out", "./c/a.npy"],
         "run: output 1 (c/a.npy) and output 2 (./c/a.npy) " + same),
        (small + ["--out", "c/a.npy", "--out", tmp("c/a.npy")],
         "output 2 (%s) %s" % (tmp("c/a.npy"), same)),
        (small + ["--out", "c/a.npy", "--out", "c/sub/../a.npy"], same),
        (pairs + ["--out", "c/r", "--out", "c/r.0.npy"],
         "output 1, component 0 (c/r.0.npy from --out c/r) and output 2 "
         "(c/r.0.npy) " + same),
        (pairs + ["--out", "c/r.npy", "--out", "c/r.1.npy"],
         "output 1, component 1 (c/r.1.npy from --out c/r.npy) and output "
         "2 (c/r.1.npy) " + same),
        (small + ["--out", "c/h1.npy", "--out", "c/h2.npy"], same),
        (small + ["--out", "c/l.npy", "--out", "c/h1.npy"], same),
    ]
    before = listing(d)
    for args, want in cases:
        fails(2, want, *args)
        expect(listing(d) == before, "%s: %s" % (args, listing(d)))
        expect(read(os.path.join(d, "h1.npy")) == old, "h1.npy changed")
    # names that look alike but are different files
    ok(*pairs, "--out", "c/q", "--out", "c/q")
    expect(np.array_equal(np.load(tmp("c/q.0.npy")), np.arange(3)), "q.0")
    expect(np.array_equal(np.load(tmp("c/q.1.npy")), np.arange(3)), "q.1")
    with open(tmp("c/q"), "rb") as f:
        expect(np.array_equal(np.load(f), np.arange(3)), "q")


@case("outputs")
def an_input_may_be_an_output():
    xs = np.array([1.0, -2.0, 4.5], dtype=np.float32)
    path = save("io.npy", xs)
    ok("run", prog("tuples.acc"), "--entry", "scale", "--in", "2.5", "--in",
       path, "--out", path, "--backend", "interp")
    expect(np.array_equal(load("io.npy"), xs * np.float32(2.5)),
           str(load("io.npy")))


def temporaries(top):
    return [os.path.join(r, n) for r, _, names in os.walk(top)
            for n in names if ".accel-" in n]


@case("outputs")
def replacing_keeps_mode_links_and_leaves_nothing_behind():
    d = fresh_dir("modes")
    xs = save("xs.npy", np.arange(4, dtype=np.float32))
    run = ["run", prog("identity.acc"), "--entry", "id_f32", "--backend",
           "interp", "--in", xs]
    want = np.arange(4, dtype=np.float32)
    # an existing file keeps its permission bits
    old = os.path.join(d, "old.npy")
    np.save(old, np.zeros(1, dtype=np.float32))
    os.chmod(old, 0o640)
    ok(*run, "--out", old)
    expect(stat.S_IMODE(os.stat(old).st_mode) == 0o640,
           oct(os.stat(old).st_mode))
    expect(np.array_equal(np.load(old), want), "old.npy")
    # a new file gets 0666 & ~umask, as any new file
    for mask in (0o027, 0o002):
        new = os.path.join(d, "new%o.npy" % mask)
        ok(*run, "--out", new, preexec=lambda m=mask: os.umask(m))
        expect(stat.S_IMODE(os.stat(new).st_mode) == 0o666 & ~mask,
               oct(os.stat(new).st_mode))
    # a symbolic link is followed: the file it names is replaced, in its
    # own folder, and the link stays a link
    os.mkdir(os.path.join(d, "real"))
    real = os.path.join(d, "real", "data.npy")
    np.save(real, np.zeros(1, dtype=np.float32))
    link = os.path.join(d, "link.npy")
    os.symlink("real/data.npy", link)
    ok(*run, "--out", link)
    expect(os.path.islink(link) and os.readlink(link) == "real/data.npy",
           "the link was replaced")
    expect(np.array_equal(np.load(real), want), "data.npy")
    # a hard link is a second name of the old file: it keeps the old data
    h1, h2 = os.path.join(d, "h1.npy"), os.path.join(d, "h2.npy")
    np.save(h1, np.zeros(1, dtype=np.float32))
    os.link(h1, h2)
    ok(*run, "--out", h1)
    expect(np.array_equal(np.load(h1), want), "h1.npy")
    expect(np.array_equal(np.load(h2), np.zeros(1)), "h2.npy")
    expect(temporaries(TMP) == [], str(temporaries(TMP)))


def main():
    global ACCEL, BUILD, TMP, VERBOSE
    if len(sys.argv) < 3 or sys.argv[1] not in GROUPS:
        print(__doc__)
        return 2
    group, ACCEL = sys.argv[1], os.path.abspath(sys.argv[2])
    BUILD = os.path.dirname(os.path.dirname(ACCEL))
    VERBOSE = "-v" in sys.argv[3:]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="accel_cli_") as d:
        TMP = d
        for fn in GROUPS[group]:
            try:
                fn()
                print("ok    %s.%s" % (group, fn.__name__))
            except Failure as e:
                failed += 1
                print("FAIL  %s.%s: %s" % (group, fn.__name__, e))
            except Exception:
                failed += 1
                print("FAIL  %s.%s: exception" % (group, fn.__name__))
                traceback.print_exc(file=sys.stdout)
    total = len(GROUPS[group])
    print("cli.%s: %d of %d passed" % (group, total - failed, total))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
