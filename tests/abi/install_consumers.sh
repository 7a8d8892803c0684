#!/usr/bin/env bash
# install_consumers.sh — ctest test abi.install_consumers.  Installs the
# build tree into a temporary prefix, then builds and runs the consumer in
# tests/abi/consumer/ twice: with `pkg-config --cflags --libs accel` and
# with a CMake project doing find_package(accel) + accel::accel.
#
# Usage: tests/abi/install_consumers.sh <build-dir> <source-dir>
# Environment: CC (compiler, default cc); ACC_CONSUMER_FLAGS (extra compile
# and link flags, e.g. the sanitizer flags the library was built with).
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 <build-dir> <source-dir>" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cc=${CC:-cc}
read -r -a extra <<< "${ACC_CONSUMER_FLAGS:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

echo "== install into $prefix"
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" \
    || { cat "$tmp/install.log"; exit 1; }

pc=$(find "$prefix" -name accel.pc -print -quit)
[ -n "$pc" ] || { echo "FAIL: accel.pc was not installed"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name 'libaccel.so' -print -quit)")

echo "== consumer via pkg-config ($pc)"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
read -r -a pcflags <<< "$(pkg-config --cflags --libs accel)"
"$cc" "${extra[@]}" -o "$tmp/consumer_pc" "$src/tests/abi/consumer/consumer.c" \
    "${pcflags[@]}"
LD_LIBRARY_PATH=$libdir "$tmp/consumer_pc"

echo "== consumer via find_package(accel)"
cmake -S "$src/tests/abi/consumer" -B "$tmp/cbuild" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="${extra[*]}" -DCMAKE_EXE_LINKER_FLAGS="${extra[*]}" \
    > "$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/cbuild" > "$tmp/build.log" \
    || { cat "$tmp/build.log"; exit 1; }
LD_LIBRARY_PATH=$libdir "$tmp/cbuild/consumer"

echo "OK: both consumers built against the installed accel and ran"
