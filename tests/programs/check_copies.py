#!/usr/bin/env python3
"""check_copies.py — the copies of the LANGUAGE.md programs that must stay
separate files equal the single copy, tests/programs/*.acc (ctest
programs.copies).

Copies that stay, and why:
  examples/demo.acc           shipped with the examples for users to copy and
                              for `make demo`: a self-contained file of three
                              of the section 4 programs (each definition is
                              checked to appear in language4.acc verbatim)
  tests/fuzz/corpus/*.acc     the fuzzer's seed corpus is a folder of inputs
                              the fuzzer reads as they are:
                              language4_all.acc is language4.acc and
                              sieve.acc, program0N.acc one program each
The C tests read tests/programs/ directly (tests/support/text_sources.c)
and the command-line tests make their section4.acc from language4.acc
(tests/cli/cli_support.py); so do the benchmarks (bench_source() in
bench/bench_common.c, bench/python/overhead.py).

Usage: check_copies.py SOURCE_DIR.  Exits 0 when every copy is equal, 1
otherwise, naming the file that differs.
"""
import os
import sys


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def body(text):
    """A program file without its first line (its title comment)."""
    return text.split("\n", 1)[1]


def paragraphs(text):
    """Definitions separated by blank lines, each with its comment."""
    return [p.strip("\n") for p in text.split("\n\n") if p.strip()]


def main():
    root = sys.argv[1]
    programs = os.path.join(root, "tests", "programs")
    lang4 = body(read(os.path.join(programs, "language4.acc")))
    sieve = body(read(os.path.join(programs, "sieve.acc")))
    known = set(paragraphs(lang4)) | set(paragraphs(sieve))
    errors = []

    demo = os.path.join(root, "examples", "demo.acc")
    # the demo's header comment (up to its first blank line) is its own
    for p in paragraphs(read(demo))[1:]:
        if p not in known:
            errors.append("%s: a definition not in tests/programs/"
                          "language4.acc:\n%s" % (demo, p))

    corpus = os.path.join(root, "tests", "fuzz", "corpus")
    all_path = os.path.join(corpus, "language4_all.acc")
    if read(all_path) != lang4 + "\n" + sieve:
        errors.append("%s differs from tests/programs/language4.acc followed "
                      "by sieve.acc" % all_path)
    seeds = sorted(n for n in os.listdir(corpus)
                   if n.startswith("program") and n.endswith(".acc"))
    if not seeds:
        errors.append("%s: no program*.acc seeds" % corpus)
    for name in seeds:
        text = read(os.path.join(corpus, name)).strip("\n")
        if text not in known:
            errors.append("%s: not a definition of tests/programs/"
                          "language4.acc" % os.path.join(corpus, name))

    for e in errors:
        print("FAIL", e)
    print("%d copies checked, %d differ" % (1 + 1 + len(seeds), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
