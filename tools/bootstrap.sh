#!/usr/bin/env bash
# bootstrap.sh — makes sure the Debian packages accel needs to build and
# test are installed.  Idempotent: it installs only what is missing, and
# does nothing (no apt-get update) when everything is there.  Uses sudo
# only when not run as root.  Prints one line saying what it did.
#
#   tools/bootstrap.sh           the build and test prerequisites (every make)
#   tools/bootstrap.sh --bench   what `make bench` needs beyond them: the
#                                benchmark peers (bench/python/peers.py),
#                                kept out of `make test` because they are
#                                heavy (numba pulls LLVM through llvmlite)
set -euo pipefail

what="packages"
case "${1:-}" in
    "") ;;
    --bench) what="bench packages" ;;
    *) echo "usage: tools/bootstrap.sh [--bench]" >&2; exit 2 ;;
esac

build_packages=(
    cmake make gcc clang pkg-config binutils
    libffi-dev            # libffi dispatch of plain C functions
    libcriterion-dev      # the test framework
    libclang-rt-14-dev    # sanitizer runtimes for the clang ASan/UBSan run
    python3-numpy         # .npy files for the accel tool's tests and demo
    libopenblas-dev       # the cblas plugin (plugins/cblas)
    libfftw3-dev          # the fftw plugin (plugins/fftw)
    libdlpack-dev         # dlpack.h, to check accel.h's DLPack structs
    python3-pytest        # the Python binding's tests (bindings/python/)
    bindgen               # bindings/rust: checks accel-sys against accel.h
    g++ catch2            # the C++ binding (bindings/cpp): g++, its Catch2 tests
    libopenmpi-dev        # the mpi plugin (plugins/mpi)
    openmpi-bin           # mpirun, for the mpi tests and examples
)

bench_packages=(
    python3-numpy         # the numpy column of make bench
    python3-numba         # the numba column of make bench
)

if [ "$what" = "bench packages" ]; then
    packages=("${bench_packages[@]}")
else
    packages=("${build_packages[@]}")
fi

installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

if ! command -v dpkg-query > /dev/null; then
    echo "bootstrap: not a Debian system (no dpkg); install by hand: ${packages[*]}" >&2
    exit 1
fi

missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "bootstrap: nothing to do, all ${#packages[@]} $what are installed"
    exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo > /dev/null || {
        echo "bootstrap: missing ${missing[*]}; run as root or install sudo" >&2
        exit 1
    }
    sudo=(sudo)
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo[@]}" apt-get update &&
       "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
           apt-get install -y --no-install-recommends "${missing[@]}"; } > "$log" 2>&1; then
    cat "$log" >&2
    echo "bootstrap: failed to install ${missing[*]}" >&2
    exit 1
fi
echo "bootstrap: installed ${missing[*]}"
