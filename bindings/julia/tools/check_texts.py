#!/usr/bin/python3
"""check_texts.py — the text programs of Accel.jl's tests, compiled here.

test/runtests.jl cannot run where accel is built (no Julia), but the
programs it gives accel as text can be checked: this script reads every
Julia string literal of the file (ordinary "..." with Julia's escapes,
raw"..." and raw\"\"\"...\"\"\"), joins literals concatenated with `*`, keeps
those that define an annotated entry point (`name (x : T) ... : T = ...`),
and compiles each with `accel check` (every entry point, on the
interpreter).  A program the tests expect to be refused must be refused
with the status they expect: a literal whose entry point is named `bad`
must fail with a "LINE:COLUMN: " parse message.

Exit status 0 when every program behaves as the tests expect, 1 otherwise,
2 when the check cannot run.

Usage: check_texts.py --accel build/bin/accel --tests .../test/runtests.jl
                      [--tests .../examples/demo.jl ...]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

# An annotated definition: name (x : T) ... : T =, where T may hold one
# level of parentheses (Vector (f32, f32)).
ENTRY = re.compile(r"^[ \t]*([a-z]\w*)(?:[ \t]+\([ \t]*\w+[ \t]*:(?:[^()\n]|\([^()\n]*\))*\))+"
                   r"[ \t]*:[^=\n]*=", re.M)


def julia_unescape(body):
    """The value of the body of an ordinary Julia string literal (the
    escapes the tests use), or None when it interpolates (not a program)."""
    out, i = [], 0
    simple = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "$": "$", "'": "'"}
    while i < len(body):
        c = body[i]
        if c == "$":
            return None
        if c == "\\":
            nxt = body[i + 1]
            if nxt not in simple:
                return None
            out.append(simple[nxt])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def raw_unescape(body):
    """raw"...": only backslashes before a quote are escapes."""
    return re.sub(r'(\\+)(?="|$)', lambda m: "\\" * (len(m.group(1)) // 2), body)


def literals(text):
    """(start, end, value) of every string literal, comments skipped."""
    pattern = re.compile(r'#[^\n]*|raw"""(.*?)"""|raw"((?:[^"\\]|\\.)*)"|"""(.*?)"""|'
                         r'"((?:[^"\\\n]|\\.)*)"|\'(?:[^\'\\]|\\.)\'|'
                         r'\b[A-Za-z_]\w*"(?:[^"\\\n]|\\.)*"', re.S)
    for m in pattern.finditer(text):
        # comments, characters, and string macros other than raw (r"...")
        if m.group(0)[0] in "#'" or re.match(r"[A-Za-z_]", m.group(0)) \
                and not m.group(0).startswith("raw"):
            continue
        if m.group(1) is not None:
            value = m.group(1)
            # A triple-quoted string drops its first newline and its
            # common indentation (as Julia does).
            value = dedent_triple(value)
        elif m.group(2) is not None:
            value = raw_unescape(m.group(2))
        elif m.group(3) is not None:
            value = julia_unescape(m.group(3))
            value = None if value is None else dedent_triple(value)
        else:
            value = julia_unescape(m.group(4))
        if value is not None:
            yield m.start(), m.end(), value


def dedent_triple(value):
    if value.startswith("\n"):
        value = value[1:]
    lines = value.split("\n")
    indents = [len(l) - len(l.lstrip(" ")) for l in lines if l.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(l[cut:] for l in lines)


def programs(text):
    """The program texts: literals, joined across `*`."""
    joined, last_end = [], None
    for start, end, value in literals(text):
        if last_end is not None and re.fullmatch(r"\s*\*\s*", text[last_end:start]):
            joined[-1] = (joined[-1][0] + value, joined[-1][1])
        else:
            joined.append((value, text.count("\n", 0, start) + 1))
        last_end = end
    return [(v, line) for v, line in joined if ENTRY.search(v)]


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--accel", required=True)
    ap.add_argument("--tests", required=True, action="append",
                    help="a Julia file (repeatable)")
    a = ap.parse_args(argv)
    found = []
    for path in a.tests:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            print(f"check_texts: {e}")
            return 2
        name = os.path.basename(path)
        texts = programs(text)
        if not texts:
            print(f"check_texts: no program text found in {path}; the extraction is broken")
            return 1
        found += [(source, f"{name}:{line}") for source, line in texts]
    problems, n_entries = [], 0
    with tempfile.TemporaryDirectory(prefix="accel-julia-texts-") as tmp:
        for k, (source, line) in enumerate(found):
            path = os.path.join(tmp, f"program{k}.acc")
            with open(path, "w", encoding="utf-8") as f:
                f.write(source)
            names = [m.group(1) for m in ENTRY.finditer(source)]
            try:
                r = subprocess.run([a.accel, "check", path, "--no-plugins"],
                                   capture_output=True, text=True, timeout=120)
            except (OSError, subprocess.TimeoutExpired) as e:
                print(f"check_texts: cannot run {a.accel}: {e}")
                return 2
            said = (r.stdout + r.stderr).strip()
            if names == ["bad"]:
                if r.returncode != 1 or not re.search(r":\d+:\d+: ", said) \
                        or "expected" not in said:
                    problems.append(f"{line}: the program the tests expect "
                                    f"to be refused with a parse error gave: {said!r}")
            elif r.returncode != 0:
                problems.append(f"{line}: {', '.join(names)}: {said}")
            else:
                n_entries += len(names)
    if problems:
        print("\n".join(problems))
        print(f"check_texts: {len(problems)} of {len(found)} program texts do not "
              "compile as the Julia code expects")
        return 1
    print(f"check_texts: {len(found)} program texts of "
          f"{', '.join(os.path.basename(p) for p in a.tests)} ({n_entries} entry points, "
          "and the deliberately bad ones refused) compile as the Julia code expects")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
