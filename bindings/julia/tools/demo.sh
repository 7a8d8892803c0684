#!/bin/sh
# demo.sh BUILD — `make demo`'s Julia part: runs examples/demo.jl on
# BUILD/libaccel.so.1 where `julia` is on PATH; elsewhere says that it did
# not run and shows what was checked instead (the ccall declarations and
# struct layouts against accel.h).
set -eu
build=$1
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)

if command -v julia >/dev/null 2>&1; then
    ACCEL_LIBRARY=$root/$build/libaccel.so.1
    export ACCEL_LIBRARY
    exec julia --startup-file=no --project="$here/Accel" "$here/examples/demo.jl"
fi
echo "Julia demo NOT RUN: julia is not on PATH (not packaged for Debian 12)."
echo "What is checked here instead:"
/usr/bin/python3 "$here/tools/check_capi.py" --header "$root/abi/include/accel.h" \
    --package "$here/Accel" --cc "${CC:-cc}"
