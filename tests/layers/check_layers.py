#!/usr/bin/python3
"""check_layers.py — fails when a module includes a header of a module
above it (docs/layers.txt lists the modules in layer order, lowest
first).

    check_layers.py LAYERS ROOT      check the tree at ROOT
    check_layers.py --self-test      show that an upward include, a file
                                     outside every module and an unknown
                                     module are caught

A file belongs to the deepest listed module (folder) that contains it.
It may include headers of its own module and of modules listed earlier;
"accel.h" (the public header) may be included anywhere, and a name
without a folder is a header next to the file.  Exit status 0 when every
include goes downwards, 1 otherwise (each violation is printed).
"""
import os
import re
import sys
import tempfile

SCANNED = ("abi/src", "core", "foreign", "tools")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_layers(path):
    """The modules in order, each with its layer's name."""
    modules, layer = [], None
    with open(path) as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("layer "):
                layer = line.split()[1]
                continue
            modules.append((line.rstrip("/"), layer))
    return modules


def module_of(path, modules):
    """The index of the deepest module containing path, or None."""
    best = None
    for i, (m, _) in enumerate(modules):
        if path == m or path.startswith(m + "/"):
            if best is None or len(m) > len(modules[best][0]):
                best = i
    return best


def sources(root):
    for top in SCANNED:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    full = os.path.join(dirpath, name)
                    yield os.path.relpath(full, root)


def check(layers_path, root):
    modules = read_layers(layers_path)
    problems = []
    for rel in sorted(sources(root)):
        src = module_of(os.path.dirname(rel), modules)
        if src is None:
            problems.append("%s: in no module of %s" % (rel, layers_path))
            continue
        with open(os.path.join(root, rel), errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m or "/" not in m.group(1):
                    continue
                inc = m.group(1)
                dst = module_of(os.path.dirname(inc), modules)
                if dst is None:
                    problems.append("%s:%d: includes %s, which is in no "
                                    "module" % (rel, number, inc))
                elif dst > src:
                    problems.append(
                        "%s:%d: includes %s: module %s (layer %s) may not "
                        "include module %s (layer %s), which is above it"
                        % (rel, number, inc, modules[src][0],
                           modules[src][1], modules[dst][0],
                           modules[dst][1]))
    return problems


def self_test():
    """The checker must catch each kind of violation, and pass a clean
    tree."""
    layers = "layer low\ncore/a\nlayer high\ncore/b\n"
    cases = {
        "clean": ({"core/a/a.h": "", "core/b/b.c": '#include "core/a/a.h"\n'
                   '#include "accel.h"\n#include "b.h"\n'}, None),
        "upward": ({"core/a/a.c": '#include "core/b/b.h"\n',
                    "core/b/b.h": ""}, "core/a/a.c:1: includes core/b/b.h"),
        "no module": ({"core/c/c.c": ""}, "core/c/c.c: in no module"),
        "unknown": ({"core/a/a.c": '#include "core/x/x.h"\n'},
                    "includes core/x/x.h, which is in no module"),
    }
    failed = 0
    for name, (files, want) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            lp = os.path.join(root, "layers.txt")
            with open(lp, "w") as f:
                f.write(layers)
            for rel, text in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(rel)),
                            exist_ok=True)
                with open(os.path.join(root, rel), "w") as f:
                    f.write(text)
            got = check(lp, root)
            ok = (not got) if want is None else \
                any(want in p for p in got)
            print("%s: %s (%s)" % ("ok" if ok else "FAILED", name,
                                   "; ".join(got) or "clean"))
            failed += not ok
    return failed


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 1 if self_test() else 0
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    problems = check(argv[1], argv[2])
    for p in problems:
        print(p)
    print("%d include(s) against the layer order" % len(problems)
          if problems else "every include goes downwards")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
