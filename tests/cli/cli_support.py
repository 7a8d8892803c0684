"""cli_support.py -- the harness of the tests of the `accel` command-line
tool (tests/cli/cli_*.py, one script per ctest test cli.GROUP).

A script registers its cases with @case(GROUP) and ends with
sys.exit(cli_support.main(GROUP)); it is run as `cli_GROUP.py ACCEL [-v]`
(cmake/AccelCli.cmake).  main() runs every case of the group in a fresh
temporary folder, in the order they are defined, and prints one line per
case; it returns 0 when every case passes, 1 otherwise, and the import
of this module exits 77 (skipped) when numpy is missing.  Inputs are
written with numpy into the temporary folder; the programs are in
tests/cli/programs/.  A successful command must print nothing on stderr,
so a sanitizer report (a leak, say) fails the case.

The state main() sets (ACCEL, BUILD, TMP, VERBOSE) is read by the scripts
as cli_support.ACCEL etc., never imported by name (that would copy None).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

try:
    import numpy as np
except ImportError:
    print("cli: numpy is missing (Debian: apt-get install python3-numpy)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
ACCEL = None
TMP = None
VERBOSE = False
BUILD = None  # the build folder (build/bin/accel -> build)
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


def built_plugin(name):
    return os.path.exists(os.path.join(BUILD, "plugins",
                                       "accel_%s.so" % name))


# The element types of the tool, and numpy's descriptors of them.
DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
          "f32", "f64"]
NUMPY = {"bool": "|b1", "i8": "|i1", "i16": "<i2", "i32": "<i4",
         "i64": "<i8", "u8": "|u1", "u16": "<u2", "u32": "<u4", "u64": "<u8",
         "f32": "<f4", "f64": "<f8"}


def fresh_dir(name):
    d = tmp(name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def main(group):
    """Runs the cases of `group` against the accel named on the command
    line; returns the exit status."""
    global ACCEL, BUILD, TMP, VERBOSE
    if len(sys.argv) < 2 or group not in GROUPS:
        print(sys.modules["__main__"].__doc__)
        return 2
    ACCEL = os.path.abspath(sys.argv[1])
    BUILD = os.path.dirname(os.path.dirname(ACCEL))
    VERBOSE = "-v" in sys.argv[2:]
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
