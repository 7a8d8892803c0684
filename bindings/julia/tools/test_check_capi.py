#!/usr/bin/python3
"""test_check_capi.py — the checker of the Julia declarations, checked.

check_capi.py is the only thing standing between a wrong `ccall` in
bindings/julia/Accel and a crash on a machine with Julia, so it must itself
be shown to catch mistakes.  This test:

  1. runs the check on the package as it is: it must pass (exit 0);
  2. makes one deliberate mistake at a time in a copy of the package's
     src/ (a wrong return type, argument type, argument count, struct
     field, field order, array length, constant, a stray ccall, ...), runs
     the check on the copy and requires exit status 1 and a message that
     names the mistake;
  3. does the same with mistakes in a copy of accel.h (the header changes,
     the Julia package does not follow).

Each mutation is a text replacement that must match exactly once, so a
mutation that no longer applies (the package changed) fails the test
instead of silently testing nothing.

Usage: test_check_capi.py --header abi/include/accel.h
                          --package bindings/julia/Accel [--cc CC]
"""

import argparse
import io
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_capi  # noqa: E402

# (file under src/, text, replacement, words the report must contain)
PACKAGE_MUTATIONS = [
    ("capi.jl", "ccall(sym(:acc_abi_version), UInt32, ())",
     "ccall(sym(:acc_abi_version), Int64, ())",
     ["acc_abi_version: returns uint32_t, declared Int64"]),
    ("capi.jl", "ccall(sym(:acc_type_shape), Ptr{acc_type}, (Int32,), rank)",
     "ccall(sym(:acc_type_shape), Ptr{acc_type}, (Int64,), rank)",
     ["acc_type_shape: argument 1 is int32_t, declared Int64"]),
    ("capi.jl", "ccall(sym(:acc_type_scalar), Ptr{acc_type}, (Cint,), scalar)",
     "ccall(sym(:acc_type_scalar), Ptr{acc_type}, (UInt8,), scalar)",
     ["acc_type_scalar: argument 1 is acc_scalar", "an enum is"]),
    ("capi.jl", "ccall(sym(:acc_array_release), Cvoid, (Ptr{acc_array},), array)",
     "ccall(sym(:acc_array_release), Cvoid, (Ptr{Cvoid},), array)",
     ["acc_array_release: argument 1 is acc_array *", "pointee"]),
    ("capi.jl", "ccall(sym(:acc_type_get_elem), Ptr{acc_type}, (Ptr{acc_type},), type)",
     "ccall(sym(:acc_type_get_elem), Ptr{acc_node}, (Ptr{acc_type},), type)",
     ["acc_type_get_elem: returns acc_type *, declared Ptr{acc_node}"]),
    ("capi.jl", "(Ptr{acc_graph}, Ptr{acc_node}, Ptr{acc_node}), g, xs, ys)",
     "(Ptr{acc_graph}, Ptr{acc_node}), g, xs, ys)",
     ["acc_dot: C takes 3 arguments, the ccall declares 2"]),
    ("capi.jl", "(Ptr{acc_graph}, Cint), g, v)",
     "(Ptr{acc_graph}, Cint), g, v, v)",
     ["acc_const_bool: 2 argument types but 3 values passed"]),
    ("capi.jl", "(Ptr{acc_program}, Ptr{acc_plan_summary}), program, out)",
     "(Ptr{acc_program}, acc_plan_summary), program, out)",
     ["acc_program_plan: argument 2 is acc_plan_summary *, declared acc_plan_summary"]),
    ("capi.jl", "ccall(sym(:acc_program_explain), Cint,\n"
                "          (Ptr{acc_program}, Cint, Ptr{Ptr{UInt8}})",
     "ccall(sym(:acc_program_explain), Cint,\n"
     "          (Ptr{acc_program}, Cint, Ptr{UInt8})",
     ["acc_program_explain: argument 3 is char **"]),
    ("capi.jl", "    rank::Int32\n    extents::NTuple{8,Int64}",
     "    rank::Int64\n    extents::NTuple{8,Int64}",
     ["acc_array.rank is int32_t, declared Int64",
      "struct acc_array: field rank is at offset 16 (8 bytes) in Julia, at 16 (4 bytes)"]),
    ("capi.jl", "    extents::NTuple{8,Int64}", "    extents::NTuple{4,Int64}",
     ["acc_array.extents is int64_t[8], declared NTuple{4, Int64}"]),
    ("capi.jl", "    memory::Cint\n    device::Int32\n",
     "    device::Int32\n    memory::Cint\n",
     ["struct acc_array: fields", "C has"]),
    ("capi.jl", "    run_deadline_seconds::Cdouble\n    plugins::Ptr{UInt8}\n",
     "    run_deadline_seconds::Cdouble\n",
     ["struct acc_context_options: fields"]),
    ("capi.jl", "    code::UInt8\n    bits::UInt8\n    lanes::UInt16\n",
     "    code::UInt8\n    bits::UInt8\n    lanes::UInt32\n",
     ["acc_dl_data_type.lanes is uint16_t, declared UInt32",
      "struct acc_dl_data_type: Julia's layout is 8 bytes"]),
    ("capi.jl", "const ACC_ERR_SHAPE = 201", "const ACC_ERR_SHAPE = 202",
     ["ACC_ERR_SHAPE = 202, accel.h says 201"]),
    ("capi.jl", "const ACC_MAX_RANK = 8", "const ACC_MAX_RANK = 8\nconst ACC_ERR_BOGUS = 1",
     ["ACC_ERR_BOGUS is neither an enum constant nor a #define"]),
    ("capi.jl", "const ACC_ABI_VERSION = 1", "const ACC_ABI_VERSION = 2",
     ["ACC_ABI_VERSION = 2, accel.h says 1"]),
    ("capi.jl", " :acc_dot, :acc_gemv, :acc_gemm,", " :acc_dot, :acc_gemv,",
     ["C_FUNCTIONS lacks acc_gemm"]),
    ("capi.jl", "acc_gemm(g, a, b) =\n    ccall(sym(:acc_gemm)",
     "acc_gemm(g, a, b) =\n    ccall(sym(:acc_gemm_typo)",
     ["acc_gemm_typo is not a function of accel.h", "C_FUNCTIONS lists acc_gemm"]),
    ("capi.jl", "mutable struct acc_node end", "mutable struct acc_nodes end",
     ["opaque acc_nodes is not a struct of accel.h", "acc_node is not declared"]),
    ("capi.jl", "ccall(sym(:acc_status_string), Ptr{UInt8}, (Cint,), status)",
     "ccall(:acc_status_string, Ptr{UInt8}, (Cint,), status)",
     ["ccall's function must be sym(:NAME)"]),
    ("errors.jl", "status_name(status) = unsafe_string(L.acc_status_string(status))",
     "status_name(status) = unsafe_string(ccall((:acc_status_string, \"libaccel\"), "
     "Ptr{UInt8}, (Cint,), status))",
     ["errors.jl:", "ccall outside src/capi.jl"]),
    ("program.jl", "    L.acc_free(p)\n", "    @ccall acc_free(p::Ptr{Cvoid})::Cvoid\n",
     ["program.jl:", "@ccall outside src/capi.jl"]),
]

# (text of accel.h, replacement, words the report must contain): the header
# moves on and the package does not.
HEADER_MUTATIONS = [
    ("ACC_API const acc_type *acc_type_array(acc_context *ctx, const acc_type *elem,\n"
     "                                       int32_t rank);",
     "ACC_API const acc_type *acc_type_array(acc_context *ctx, const acc_type *elem,\n"
     "                                       int64_t rank);",
     ["acc_type_array: argument 3 is int64_t, declared Int32"]),
    ("    size_t kernels;         /* parallel steps (kernels) in the plan          */",
     "    int32_t kernels;",
     ["acc_plan_summary.kernels is int32_t, declared Csize_t"]),
    ("    int32_t device;            /* device ordinal for device memory           */",
     "    int64_t device;",
     ["acc_array.device is int64_t, declared Int32",
      "struct acc_array: field ownership is at offset"]),
    ("ACC_API void acc_graph_free(acc_graph *graph);",
     "ACC_API void acc_graph_free(acc_graph *graph, int flags);",
     ["acc_graph_free: C takes 2 arguments, the ccall declares 1"]),
    ("    ACC_ERR_TYPE = 200,", "    ACC_ERR_TYPE = 210,",
     ["ACC_ERR_TYPE = 200, accel.h says 210"]),
]


def mutate(path, old, new):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    n = text.count(old)
    if n != 1:
        raise AssertionError(f"mutation does not apply: {old!r} occurs {n} times in {path}")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))


def check(header, package, cc, clang):
    out = io.StringIO()
    args = argparse.Namespace(header=header, package=package, cc=cc, clang=clang)
    status = check_capi.run(args, out)
    return status, out.getvalue()


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--header", required=True)
    ap.add_argument("--package", required=True)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--clang", default="clang")
    a = ap.parse_args(argv)
    failures = []

    status, report = check(a.header, a.package, a.cc, a.clang)
    if status != 0:
        print(report)
        print("test_check_capi: the unmodified package does not pass the check")
        return 1

    with tempfile.TemporaryDirectory(prefix="accel-julia-selftest-") as tmp:
        pkg = os.path.join(tmp, "Accel")
        inc = os.path.join(tmp, "include")
        os.makedirs(inc)
        header = os.path.join(inc, "accel.h")

        def fresh():
            shutil.rmtree(pkg, ignore_errors=True)
            shutil.copytree(os.path.join(a.package, "src"), os.path.join(pkg, "src"))
            shutil.copyfile(a.header, header)

        cases = [("src/" + f, os.path.join("src", f), old, new, want, False)
                 for f, old, new, want in PACKAGE_MUTATIONS]
        cases += [("accel.h", None, old, new, want, True)
                  for old, new, want in HEADER_MUTATIONS]
        for label, rel, old, new, want, in_header in cases:
            fresh()
            target = header if in_header else os.path.join(pkg, rel)
            try:
                mutate(target, old, new)
            except AssertionError as e:
                failures.append(f"{label}: {e}")
                continue
            status, report = check(header, pkg, a.cc, a.clang)
            missing = [w for w in want if w not in report]
            if status != 1 or missing:
                failures.append(f"{label}: {old.strip()[:60]!r} -> {new.strip()[:60]!r}: "
                                f"exit {status}, expected 1"
                                + (f"; report lacks {missing}" if missing else "")
                                + "\n    report: " + report.strip().replace("\n", "\n    "))
    n = len(PACKAGE_MUTATIONS) + len(HEADER_MUTATIONS)
    if failures:
        print("\n".join(failures))
        print(f"test_check_capi: {len(failures)} of {n} deliberate mistakes not caught")
        return 1
    print(f"test_check_capi: the package passes, and each of {n} deliberate mistakes "
          f"({len(PACKAGE_MUTATIONS)} in the package, {len(HEADER_MUTATIONS)} in accel.h) "
          "fails the check with a message naming it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
