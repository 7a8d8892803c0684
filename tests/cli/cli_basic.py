#!/usr/bin/python3
"""cli_basic.py -- tests of the `accel` command-line tool: basic
(ctest: cli.basic).

Usage: cli_basic.py ACCEL [-v]

--help, --version, help, info (plugins found, plugin settings),
command-line usage errors.

The harness (running accel, the temporary folder, the programs of
tests/cli/programs/, exit status 0, 1 or 77 when numpy is missing) is
cli_support.py.
"""
import os
import shutil
import stat
import subprocess
import sys

import cli_support as cs  # first: exits 77 (skipped) without numpy
from cli_support import (built_plugin, case, expect, fails, info_env, ok,
                         run_info, tmp)


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


def plugin_lines(out):
    """{name: state} from the plugin lines of `accel info`."""
    lines = {}
    for line in out.split("\n"):
        for name in ("cblas", "fftw", "cublas", "cufft"):
            if line.startswith("  %s: " % name):
                lines[name] = line[len(name) + 4:]
    return lines


@case("basic")
def info():
    home = tmp("home")
    os.makedirs(os.path.join(home, "accel", "sub"), exist_ok=True)
    with open(os.path.join(home, "accel", "sub", "k.bin"), "wb") as f:
        f.write(b"x" * 100)
    env = info_env(XDG_CACHE_HOME=home)
    p = subprocess.run([cs.ACCEL, "info"], capture_output=True, text=True,
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
    p = subprocess.run([cs.ACCEL, "info"], capture_output=True, text=True,
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
    p = subprocess.run([cs.ACCEL, "info"], capture_output=True, text=True,
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
                os.path.realpath(cs.BUILD), "plugins", "accel_%s.so" % name)
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
    bad = os.path.join(cs.BUILD, "tests", "foreign", "accel_bad_abi.so")
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


if __name__ == "__main__":
    sys.exit(cs.main("basic"))
