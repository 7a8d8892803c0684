#!/bin/sh
# run_julia_tests.sh LIBACCEL WORKDIR — runs Accel.jl's test/runtests.jl
# against LIBACCEL when `julia` is on PATH (ctest: bindings.julia.runtests).
#
# Without julia it prints one line saying the Julia code was NOT run and
# exits 77, which ctest reports as skipped: nothing about Julia is claimed
# to pass on a machine that has no Julia.  The package is copied into
# WORKDIR first, so that Pkg's Manifest.toml is written there and never in
# the source tree; only standard libraries are needed (offline).
set -eu
lib=$1
work=$2
here=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v julia >/dev/null 2>&1; then
    echo "bindings.julia.runtests: NOT RUN: julia is not on PATH (Julia is not" \
         "packaged for Debian 12); the ccalls and struct layouts are checked by" \
         "bindings.julia.capi instead"
    exit 77
fi

rm -rf "$work"
mkdir -p "$work"
cp -R "$here/Accel" "$work/Accel"
echo "bindings.julia.runtests: $(julia --version) on $lib"
ACCEL_LIBRARY=$lib
JULIA_PKG_OFFLINE=true
export ACCEL_LIBRARY JULIA_PKG_OFFLINE
exec julia --startup-file=no --project="$work/Accel" -e 'using Pkg; Pkg.test()'
