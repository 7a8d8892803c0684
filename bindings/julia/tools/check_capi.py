#!/usr/bin/python3
"""check_capi.py — checks the Julia package's C declarations against accel.h.

Julia is not available where accel is built and tested, so nothing checks
the `ccall`s of bindings/julia/Accel when they are written.  This script
does it mechanically, the way a compiler would:

  1. accel.h is parsed by clang (-Xclang -ast-dump=json): every function,
     struct, enum and typedef whose name starts with acc_, and every
     enum constant, with their C types.
  2. Every `ccall` of the package (all of them must be in src/capi.jl) is
     parsed: the C function it calls (`sym(:NAME)`), its return type, its
     argument types.  Each is compared with the C declaration through a
     table of C types and the Julia types that have the same ABI
     (C_TO_JULIA below): size_t is Csize_t, int32_t is Int32 or Cint, an
     enum is Cint, `T *` is Ptr{T} (or Ref{T} for an argument), ...
  3. Every struct mirrored in Julia (`struct acc_X`) must have the C
     struct's fields, in order, with matching types; its layout is computed
     with Julia's rules for isbits structs (C alignment) and compared with
     the sizes and offsets that a C program, generated here and compiled
     with the C compiler under test, prints.
  4. Every `const ACC_X = N` must equal the C enum constant or #define of
     that name (printed by the same C program), and every enum passed as
     Cint must be 4 bytes.
  5. C_FUNCTIONS (the functions resolved when the package loads) must list
     exactly the functions the wrappers call.

Exit status 0 when everything agrees, 1 with one line per disagreement
("capi.jl:LINE: ...") otherwise, 2 when the check itself cannot run.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# --- C side ----------------------------------------------------------------

# C scalar types and the Julia spellings with the same ABI on the 64-bit
# Linux targets accel supports.  A C type not listed here (and not a
# pointer, array, enum or accel struct) makes the check fail: extend the
# table deliberately, never by guessing.
C_TO_JULIA = {
    "void": {"Cvoid", "Nothing"},
    "char": {"Cchar", "UInt8", "Int8"},
    "int": {"Cint", "Int32"},
    "unsigned int": {"Cuint", "UInt32"},
    "int8_t": {"Int8"},
    "int16_t": {"Int16"},
    "int32_t": {"Int32", "Cint"},
    "int64_t": {"Int64"},
    "uint8_t": {"UInt8", "Cuchar"},
    "uint16_t": {"UInt16", "Cushort"},
    "uint32_t": {"UInt32", "Cuint"},
    "uint64_t": {"UInt64"},
    "size_t": {"Csize_t", "UInt"},
    "double": {"Cdouble", "Float64"},
    "float": {"Cfloat", "Float32"},
}
ENUM_JULIA = {"Cint", "Int32"}

# Size and alignment of the Julia types a mirrored struct may hold.
JULIA_SCALARS = {
    "Bool": 1, "Int8": 1, "UInt8": 1, "Cchar": 1, "Cuchar": 1,
    "Int16": 2, "UInt16": 2, "Cshort": 2, "Cushort": 2,
    "Int32": 4, "UInt32": 4, "Cint": 4, "Cuint": 4, "Float32": 4, "Cfloat": 4,
    "Int64": 8, "UInt64": 8, "Int": 8, "UInt": 8, "Csize_t": 8,
    "Clonglong": 8, "Culonglong": 8, "Float64": 8, "Cdouble": 8,
    "Cstring": 8,
}
POINTER_SIZE = 8

# The layout program's output, per compiler, header folder and program
# text (the self-test runs the check many times in one process).
C_FACTS_CACHE = {}


class CheckError(Exception):
    """The check cannot run (a tool or file is missing)."""


def c_type(qual):
    """Parses a clang qualType into ('prim', name) | ('record', name) |
    ('enum', name) | ('typedef', name) | ('ptr', T) | ('array', n, T) |
    ('fnptr',)."""
    qual = qual.strip()
    if "(*" in qual:
        return ("fnptr",)
    m = re.match(r"^(.*?)\s*\[(\d+)\]$", qual)
    if m:
        return ("array", int(m.group(2)), c_type(m.group(1)))
    tokens = re.findall(r"[A-Za-z_]\w*|\*", qual)
    if tokens and tokens[-1] == "*":
        depth = 0
        while tokens and tokens[-1] in ("*", "const", "volatile", "restrict"):
            depth += tokens.pop() == "*"
        base = c_type(" ".join(tokens))
        for _ in range(depth):
            base = ("ptr", base)
        return base
    words = [t for t in tokens if t not in ("const", "volatile")]
    if len(words) == 2 and words[0] in ("struct", "enum"):
        return ("record" if words[0] == "struct" else "enum", words[1])
    name = " ".join(words)
    if name.startswith("acc_"):
        return ("typedef", name)
    return ("prim", name)


class Header:
    """What accel.h declares, from clang's JSON AST."""

    def __init__(self, header, clang):
        try:
            out = subprocess.run(
                [clang, "-x", "c", "-std=c11", "-fsyntax-only",
                 "-Xclang", "-ast-dump=json", header],
                check=True, capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            raise CheckError(f"cannot parse {header} with {clang}: {e}")
        self.functions = {}   # name -> (ret, [params]) as c_type tuples
        self.records = {}     # name -> None (incomplete) or [(field, c_type)]
        self.typedefs = {}    # name -> c_type
        self.enums = set()
        self.constants = {}   # enum constant -> value
        for node in json.loads(out).get("inner", []):
            self._add(node)

    def _add(self, node):
        kind, name = node.get("kind"), node.get("name", "")
        if kind == "EnumDecl":
            for c in node.get("inner", []):
                if c.get("kind") == "EnumConstantDecl":
                    self.constants[c["name"]] = None  # value from the compiler
            if name.startswith("acc_"):
                self.enums.add(name)
        if not name.startswith("acc_"):
            return
        if kind == "FunctionDecl":
            qual = node["type"]["qualType"]
            ret = qual[:qual.index("(")]
            params = [c_type(p["type"]["qualType"]) for p in node.get("inner", [])
                      if p.get("kind") == "ParmVarDecl"]
            self.functions[name] = (c_type(ret), params)
        elif kind == "RecordDecl":
            if node.get("completeDefinition"):
                self.records[name] = [
                    (f["name"], c_type(f["type"]["qualType"]))
                    for f in node.get("inner", []) if f.get("kind") == "FieldDecl"]
            else:
                self.records.setdefault(name, None)
        elif kind == "TypedefDecl":
            self.typedefs[name] = c_type(node["type"]["qualType"])

    def resolve(self, t):
        """Follows accel typedefs to the record, enum or function pointer."""
        seen = 0
        while t[0] == "typedef" and seen < 16:
            if t[1] not in self.typedefs:
                return ("unknown", t[1])
            t = self.typedefs[t[1]]
            seen += 1
        return t


def c_spelling(t):
    kind = t[0]
    if kind in ("prim", "record", "enum", "typedef", "unknown"):
        return t[1]
    if kind == "ptr":
        inner = c_spelling(t[1])
        return inner + ("*" if inner.endswith("*") else " *")
    if kind == "array":
        return f"{c_spelling(t[2])}[{t[1]}]"
    return "function pointer"


# --- Julia side ----------------------------------------------------------------

def blank_comments(text, path):
    """Replaces # comments with spaces (offsets and lines stay), outside
    string literals.  Block comments are refused: the parser below does not
    follow them."""
    out, i, n, in_str = [], 0, len(text), False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif c == "#":
            if text.startswith("#=", i):
                raise CheckError(f"{path}: block comments (#= ... =#) are not supported here")
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def jl_type(text):
    """Parses a Julia type expression (Name, Name{A, B}, 8) into
    (name, [params]); raises ValueError on anything else."""
    tokens = re.findall(r"[A-Za-z_][\w.]*|\d+|[{},]|\S", text)
    pos = 0

    def parse():
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError("type expected")
        tok = tokens[pos]
        pos += 1
        if not re.match(r"[A-Za-z_]|\d", tok):
            raise ValueError(f"unexpected {tok!r}")
        params = []
        if pos < len(tokens) and tokens[pos] == "{":
            pos += 1
            while True:
                params.append(parse())
                if pos < len(tokens) and tokens[pos] == ",":
                    pos += 1
                    continue
                if pos < len(tokens) and tokens[pos] == "}":
                    pos += 1
                    break
                raise ValueError("'}' or ',' expected")
        return (tok, params)

    t = parse()
    if pos != len(tokens):
        raise ValueError(f"unexpected {tokens[pos]!r}")
    return t


def jl_spelling(t):
    name, params = t
    return name + ("{" + ", ".join(jl_spelling(p) for p in params) + "}" if params else "")


def split_top(text):
    """Splits on commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def closing(text, open_at):
    """The index of the bracket closing the one at open_at."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


class Package:
    """The declarations of the Julia package (src/capi.jl and the rest)."""

    def __init__(self, package_dir):
        self.src = os.path.join(package_dir, "src")
        self.capi_path = os.path.join(self.src, "capi.jl")
        self.problems = []
        try:
            with open(self.capi_path, encoding="utf-8") as f:
                self.raw = f.read()
        except OSError as e:
            raise CheckError(f"cannot read {self.capi_path}: {e}")
        self.text = blank_comments(self.raw, self.capi_path)
        self.constants = {}  # name -> (value, line)
        self.opaque = {}     # name -> line
        self.structs = {}    # name -> (line, [(field, jl_type, line)])
        self.ccalls = []     # (line, wrapper, cname, ret, [args], n_values)
        self.c_functions = None
        self._parse_constants()
        self._parse_structs()
        self._parse_c_functions()
        self._parse_ccalls()
        self._find_stray_ccalls()

    def line(self, offset):
        return self.raw.count("\n", 0, offset) + 1

    def problem(self, offset_or_line, message, is_line=False):
        line = offset_or_line if is_line else self.line(offset_or_line)
        self.problems.append(f"capi.jl:{line}: {message}")

    def _parse_constants(self):
        for m in re.finditer(r"^[ \t]*const[ \t]+(ACC_\w+)[ \t]*=[ \t]*(\S[^\n]*?)[ \t]*$",
                             self.text, re.M):
            try:
                value = int(m.group(2).replace("_", ""), 0)
            except ValueError:
                self.problem(m.start(), f"{m.group(1)}: the value must be an integer literal")
                continue
            self.constants[m.group(1)] = (value, self.line(m.start()))

    def _parse_structs(self):
        for m in re.finditer(r"^[ \t]*mutable[ \t]+struct[ \t]+(\w+)[ \t]+end[ \t]*$",
                             self.text, re.M):
            self.opaque[m.group(1)] = self.line(m.start())
        for m in re.finditer(r"^[ \t]*struct[ \t]+(\w+)[ \t]*\n(.*?)^[ \t]*end\b",
                             self.text, re.M | re.S):
            name, body_at = m.group(1), m.start(2)
            fields = []
            for fm in re.finditer(r"^[ \t]*(\w+)[ \t]*::[ \t]*(\S[^\n]*?)[ \t]*$",
                                  m.group(2), re.M):
                at = body_at + fm.start()
                try:
                    fields.append((fm.group(1), jl_type(fm.group(2)), self.line(at)))
                except ValueError as e:
                    self.problem(at, f"struct {name}: field {fm.group(1)}: {e}")
            leftovers = re.sub(r"^[ \t]*\w+[ \t]*::[^\n]*$", "", m.group(2), flags=re.M)
            if leftovers.strip():
                self.problem(m.start(), f"struct {name}: only `field::Type` lines are "
                             "allowed in a mirrored struct")
            self.structs[name] = (self.line(m.start()), fields)

    def _parse_c_functions(self):
        m = re.search(r"const\s+C_FUNCTIONS\s*=\s*\(", self.text)
        if not m:
            self.problem(0, "no `const C_FUNCTIONS = (...)`")
            return
        end = closing(self.text, m.end() - 1)
        self.c_functions = set(re.findall(r":(\w+)", self.text[m.end():end]))
        self.c_functions_line = self.line(m.start())

    def _parse_ccalls(self):
        for m in re.finditer(r"\bccall\s*\(", self.text):
            open_at = m.end() - 1
            end = closing(self.text, open_at)
            if end < 0:
                self.problem(m.start(), "unbalanced parentheses in ccall")
                continue
            parts = split_top(self.text[open_at + 1:end])
            if len(parts) < 3:
                self.problem(m.start(), "ccall needs a function, a return type and argument types")
                continue
            fm = re.fullmatch(r"sym\(\s*:(\w+)\s*\)", parts[0])
            if not fm:
                self.problem(m.start(), f"ccall's function must be sym(:NAME), not {parts[0]!r}")
                continue
            tm = re.fullmatch(r"\((.*)\)", parts[2], re.S)
            if not tm:
                self.problem(m.start(), f"{fm.group(1)}: argument types must be a literal tuple")
                continue
            arg_texts = [a for a in split_top(tm.group(1)) if a]
            try:
                ret = jl_type(parts[1])
                args = [jl_type(a) for a in arg_texts]
            except ValueError as e:
                self.problem(m.start(), f"{fm.group(1)}: {e}")
                continue
            # The wrapper: the definition this ccall is the body of.
            head = self.text.rfind("\n", 0, m.start())
            start = head
            while start > 0 and re.match(r"[ \t]", self.text[start + 1:start + 2] or "x"):
                start = self.text.rfind("\n", 0, start)
            wm = re.match(r"\s*(\w+)\s*\(", self.text[start + 1:])
            wrapper = wm.group(1) if wm else None
            self.ccalls.append((self.line(m.start()), wrapper, fm.group(1), ret, args,
                                len(parts) - 3))

    def _find_stray_ccalls(self):
        for root, _, files in os.walk(self.src):
            for f in sorted(files):
                path = os.path.join(root, f)
                if not f.endswith(".jl") or os.path.samefile(path, self.capi_path):
                    continue
                with open(path, encoding="utf-8") as fh:
                    text = blank_comments(fh.read(), path)
                for m in re.finditer(r"\bccall\b|@ccall\b|\bcglobal\b", text):
                    rel = os.path.relpath(path, self.src)
                    self.problems.append(
                        f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)} outside "
                        "src/capi.jl (every C call goes through a checked wrapper there)")
        if re.search(r"@ccall\b|\bcglobal\b", self.text):
            self.problem(self.text.index("@ccall") if "@ccall" in self.text else 0,
                         "@ccall/cglobal are not checked: use ccall(sym(:NAME), ...)")


# --- comparing ---------------------------------------------------------------------

class Checker:
    def __init__(self, header, package):
        self.h = header
        self.p = package
        self.problems = package.problems

    def jl_struct_known(self, name):
        return name in self.p.structs or name in self.p.opaque

    def matches(self, ct, jt, where):
        """None when Julia type jt has the ABI of C type ct in context where
        ('ret', 'arg', 'field', 'pointee'); else a reason."""
        ct = self.h.resolve(ct)
        name, params = jt
        kind = ct[0]
        if kind == "unknown":
            return f"C type {ct[1]} is not declared in accel.h"
        if kind == "prim":
            allowed = C_TO_JULIA.get(ct[1])
            if allowed is None:
                return f"C type {ct[1]!r} is not in the checker's table"
            if ct[1] == "void" and where not in ("ret", "pointee"):
                return "void is only a return type or a pointee"
            return None if not params and name in allowed else f"expected {sorted(allowed)}"
        if kind == "enum":
            return None if not params and name in ENUM_JULIA else f"an enum is {sorted(ENUM_JULIA)}"
        if kind == "fnptr":
            return None if jl_spelling(jt) == "Ptr{Cvoid}" else "a function pointer is Ptr{Cvoid}"
        if kind == "record":
            if where not in ("field", "pointee"):
                return "structs are passed by pointer"
            if params or name != ct[1]:
                return f"expected {ct[1]}"
            if not self.jl_struct_known(name):
                return f"{name} is not declared in capi.jl"
            if where == "field" and name not in self.p.structs:
                return f"{name} is held by value: it must be mirrored (struct {name} ... end)"
            return None
        if kind == "array":
            if where != "field":
                return "C arrays appear only as struct fields"
            if name != "NTuple" or len(params) != 2 or params[0] != (str(ct[1]), []):
                return f"expected NTuple{{{ct[1]}, ...}}"
            return self.matches(ct[2], params[1], "pointee")
        if kind == "ptr":
            target = self.h.resolve(ct[1])
            if target == ("prim", "char") and not params and name == "Cstring":
                return None
            if name == "Ref" and where != "arg":
                return "Ref{T} is only for ccall arguments"
            if name not in ("Ptr", "Ref") or len(params) != 1:
                return f"a pointer is Ptr{{...}}" + (" or Ref{...}" if where == "arg" else "")
            inner = params[0]
            if target[0] == "fnptr":
                return "pointers to function pointers are not handled"
            why = self.matches(ct[1], inner, "pointee")
            return None if why is None else f"pointee: {why}"
        return f"unhandled C type {ct}"

    def check_functions(self):
        used = set()
        for line, wrapper, cname, ret, args, n_values in self.p.ccalls:
            used.add(cname)
            where = f"{cname}"
            if wrapper != cname:
                self.p.problem(line, f"the wrapper calling {cname} is named {wrapper}; "
                               "wrappers carry the C name", is_line=True)
            if cname not in self.h.functions:
                self.p.problem(line, f"{cname} is not a function of accel.h", is_line=True)
                continue
            c_ret, c_params = self.h.functions[cname]
            why = self.matches(c_ret, ret, "ret")
            if why:
                self.p.problem(line, f"{where}: returns {c_spelling(c_ret)}, declared "
                               f"{jl_spelling(ret)}: {why}", is_line=True)
            if len(args) != len(c_params):
                self.p.problem(line, f"{where}: C takes {len(c_params)} arguments, the ccall "
                               f"declares {len(args)}", is_line=True)
            else:
                for i, (ct, jt) in enumerate(zip(c_params, args)):
                    why = self.matches(ct, jt, "arg")
                    if why:
                        self.p.problem(line, f"{where}: argument {i + 1} is {c_spelling(ct)}, "
                                       f"declared {jl_spelling(jt)}: {why}", is_line=True)
            if n_values != len(args):
                self.p.problem(line, f"{where}: {len(args)} argument types but {n_values} "
                               "values passed", is_line=True)
        if self.p.c_functions is not None:
            for name in sorted(used - self.p.c_functions):
                self.p.problem(self.p.c_functions_line,
                               f"C_FUNCTIONS lacks {name} (called by a wrapper)", is_line=True)
            for name in sorted(self.p.c_functions - used):
                self.p.problem(self.p.c_functions_line,
                               f"C_FUNCTIONS lists {name}, which no wrapper calls", is_line=True)
        return len(self.p.ccalls)

    def check_struct_fields(self):
        for name, line in self.p.opaque.items():
            if name not in self.h.records:
                self.p.problem(line, f"opaque {name} is not a struct of accel.h", is_line=True)
        for name, (line, fields) in self.p.structs.items():
            c_fields = self.h.records.get(name)
            if c_fields is None:
                self.p.problem(line, f"struct {name} is not a complete struct of accel.h",
                               is_line=True)
                continue
            jl_names = [jl_field_to_c(f) for f, _, _ in fields]
            c_names = [f for f, _ in c_fields]
            if jl_names != c_names:
                self.p.problem(line, f"struct {name}: fields {jl_names}, C has {c_names}",
                               is_line=True)
                continue
            for (fname, jt, fline), (_, ct) in zip(fields, c_fields):
                why = self.matches(ct, jt, "field")
                if why:
                    self.p.problem(fline, f"{name}.{fname} is {c_spelling(ct)}, declared "
                                   f"{jl_spelling(jt)}: {why}", is_line=True)

    # Julia's layout of an isbits struct: each field at the next multiple of
    # its alignment, the size rounded up to the largest alignment.
    def jl_size_align(self, jt):
        name, params = jt
        if name in ("Ptr", "Ref"):
            return POINTER_SIZE, POINTER_SIZE
        if name in JULIA_SCALARS:
            return JULIA_SCALARS[name], JULIA_SCALARS[name]
        if name == "NTuple" and len(params) == 2 and params[0][0].isdigit():
            size, align = self.jl_size_align(params[1])
            return int(params[0][0]) * size, align
        if name in self.p.structs:
            layout = self.jl_layout(name)
            return layout["size"], layout["align"]
        raise ValueError(f"no layout known for Julia type {jl_spelling(jt)}")

    def jl_layout(self, name):
        offset, max_align, fields = 0, 1, {}
        for fname, jt, _ in self.p.structs[name][1]:
            size, align = self.jl_size_align(jt)
            offset = (offset + align - 1) // align * align
            fields[jl_field_to_c(fname)] = (offset, size)
            offset += size
            max_align = max(max_align, align)
        return {"size": (offset + max_align - 1) // max_align * max_align,
                "align": max_align, "fields": fields}

    def c_program(self):
        lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <accel.h>",
                 "int main(void)", "{"]
        for name in sorted(self.p.structs):
            if not self.h.records.get(name):
                continue
            lines.append(f'    printf("struct {name} %zu %zu\\n", sizeof(struct {name}), '
                         f"_Alignof(struct {name}));")
            for fname, _ in self.h.records[name]:
                lines.append(f'    printf("field {name}.{fname} %zu %zu\\n", '
                             f"offsetof(struct {name}, {fname}), "
                             f"sizeof(((struct {name} *)0)->{fname}));")
        for name in sorted(self.h.enums):
            lines.append(f'    printf("enum {name} %zu\\n", sizeof(enum {name}));')
        for name in sorted(self.p.constants):
            lines.append(f"#ifdef {name}")
            lines.append(f'    printf("const {name} %lld\\n", (long long)({name}));')
            lines.append("#else")
            if name in self.h.constants:
                lines.append(f'    printf("const {name} %lld\\n", (long long)({name}));')
            lines.append("#endif")
        lines += ["    return 0;", "}", ""]
        return "\n".join(lines)

    def c_facts(self, cc, include_dir):
        program = self.c_program()
        try:
            with open(os.path.join(include_dir, "accel.h"), encoding="utf-8") as f:
                header_text = f.read()
        except OSError as e:
            raise CheckError(f"cannot read accel.h in {include_dir}: {e}")
        key = (cc, os.path.abspath(include_dir), header_text, program)
        if key not in C_FACTS_CACHE:
            C_FACTS_CACHE[key] = self._compile_facts(cc, include_dir, program)
        return C_FACTS_CACHE[key]

    def _compile_facts(self, cc, include_dir, program):
        with tempfile.TemporaryDirectory(prefix="accel-julia-check-") as tmp:
            src = os.path.join(tmp, "layout.c")
            exe = os.path.join(tmp, "layout")
            with open(src, "w") as f:
                f.write(program)
            try:
                subprocess.run(cc.split() + ["-std=c11", "-I", include_dir, src, "-o", exe],
                               check=True, capture_output=True, text=True)
                out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
            except (OSError, subprocess.CalledProcessError) as e:
                detail = getattr(e, "stderr", "") or ""
                raise CheckError(f"cannot build or run the layout program with {cc}: "
                                 f"{e}\n{detail}")
        facts = {}
        for line in out.splitlines():
            words = line.split()
            facts[(words[0], words[1])] = [int(w) for w in words[2:]]
        return facts

    def check_layouts_and_constants(self, cc, include_dir):
        facts = self.c_facts(cc, include_dir)
        n_structs = 0
        for name, (line, _) in sorted(self.p.structs.items()):
            if ("struct", name) not in facts:
                continue  # already reported by check_struct_fields
            try:
                jl = self.jl_layout(name)
            except ValueError as e:
                self.p.problem(line, f"struct {name}: {e}", is_line=True)
                continue
            n_structs += 1
            c_size, c_align = facts[("struct", name)]
            if (jl["size"], jl["align"]) != (c_size, c_align):
                self.p.problem(line, f"struct {name}: Julia's layout is {jl['size']} bytes "
                               f"aligned to {jl['align']}, C's {c_size} aligned to {c_align}",
                               is_line=True)
            for fname, (off, size) in jl["fields"].items():
                c_off, c_fsize = facts.get(("field", f"{name}.{fname}"), (None, None))
                if (off, size) != (c_off, c_fsize):
                    self.p.problem(line, f"struct {name}: field {fname} is at offset {off} "
                                   f"({size} bytes) in Julia, at {c_off} ({c_fsize} bytes) in C",
                                   is_line=True)
        for name in sorted(self.h.enums):
            size = facts.get(("enum", name), [None])[0]
            if size != 4:
                self.problems.append(f"accel.h: enum {name} is {size} bytes; "
                                     "the wrappers pass enums as Cint (4 bytes)")
        for name, (value, line) in sorted(self.p.constants.items()):
            c_value = facts.get(("const", name), [None])[0]
            if c_value is None:
                self.p.problem(line, f"{name} is neither an enum constant nor a #define of "
                               "accel.h", is_line=True)
            elif c_value != value:
                self.p.problem(line, f"{name} = {value}, accel.h says {c_value}", is_line=True)
        return n_structs


def jl_field_to_c(name):
    """Julia field names that would clash with keywords carry a trailing _."""
    return name[:-1] if name.endswith("_") else name


HEADER_CACHE = {}


def load_header(path, clang):
    """Header(path, clang), parsed once per header text."""
    try:
        with open(path, encoding="utf-8") as f:
            key = (clang, os.path.abspath(path), f.read())
    except OSError as e:
        raise CheckError(f"cannot read {path}: {e}")
    if key not in HEADER_CACHE:
        HEADER_CACHE[key] = Header(path, clang)
    return HEADER_CACHE[key]


def run(args, out=sys.stdout):
    """Runs the whole check; returns the exit status."""
    try:
        header = load_header(args.header, args.clang)
        package = Package(args.package)
        checker = Checker(header, package)
        n_calls = checker.check_functions()
        checker.check_struct_fields()
        n_structs = checker.check_layouts_and_constants(
            args.cc, os.path.dirname(os.path.abspath(args.header)))
    except CheckError as e:
        print(f"check_capi: {e}", file=out)
        return 2
    if checker.problems:
        for p in checker.problems:
            print(p, file=out)
        print(f"check_capi: {len(checker.problems)} disagreement(s) between "
              f"{args.package}/src and {args.header}", file=out)
        return 1
    print(f"check_capi: {n_calls} ccalls ({len(package.c_functions)} C functions), "
          f"{n_structs} struct layouts ({len(package.opaque)} opaque handles), "
          f"{len(package.constants)} constants agree with {args.header} "
          f"(layouts from {args.cc})", file=out)
    return 0


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--header", required=True, help="abi/include/accel.h")
    ap.add_argument("--package", required=True, help="bindings/julia/Accel")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"),
                    help="C compiler for the layout program")
    ap.add_argument("--clang", default="clang", help="clang, to read the header")
    return ap.parse_args(argv)


if __name__ == "__main__":
    sys.exit(run(parse_args(sys.argv[1:])))
