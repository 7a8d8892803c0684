#!/usr/bin/python3
"""cli_programs.py -- tests of the `accel` command-line tool: programs
(ctest: cli.programs).

Usage: cli_programs.py ACCEL [-v]

The LANGUAGE.md section 4 programs, tuples, literals and several
outputs, compared with numpy; check and explain; user kernels
(--kernel) and the plugins of the build tree.

The harness (running accel, the temporary folder, the programs of
tests/cli/programs/, exit status 0, 1 or 77 when numpy is missing) is
cli_support.py.
"""
import json
import os
import subprocess
import sys

import cli_support as cs  # first: exits 77 (skipped) without numpy
import numpy as np
from cli_support import (HERE, RNG, accel, built_plugin, case, expect, fails,
                         fresh_dir, info_env, load, ok, prog, run_info, save,
                         tmp)


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
    p = subprocess.run([cs.ACCEL] + [str(a) for a in args], cwd=cs.TMP, env=env,
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
                      os.path.join(cs.BUILD, "plugins", "accel_cblas.so"))
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


if __name__ == "__main__":
    sys.exit(cs.main("programs"))
