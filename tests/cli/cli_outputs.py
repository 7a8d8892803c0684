#!/usr/bin/python3
"""cli_outputs.py -- tests of the `accel` command-line tool: outputs
(ctest: cli.outputs).

Usage: cli_outputs.py ACCEL [-v]

How outputs are written: special files refused, colliding names
refused before the run, a failed write (RLIMIT_FSIZE) leaves every
target as it was, modes, symbolic and hard links.

The harness (running accel, the temporary folder, the programs of
tests/cli/programs/, exit status 0, 1 or 77 when numpy is missing) is
cli_support.py.
"""
import os
import resource
import signal
import socket
import stat
import sys

import cli_support as cs  # first: exits 77 (skipped) without numpy
import numpy as np
from cli_support import (case, expect, fails, fresh_dir, load, ok, prog, save,
                         tmp)


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
    expect(temporaries(cs.TMP) == [], str(temporaries(cs.TMP)))


if __name__ == "__main__":
    sys.exit(cs.main("outputs"))
