#!/usr/bin/env bash
# install_consumer.sh — ctest test cpp.install_consumer.  Installs the build
# tree into a temporary prefix, then builds and runs the C++ consumer in
# bindings/cpp/tests/consumer/ twice: as a fresh CMake project doing
# find_package(accel) + target_link_libraries(consumer accel::cpp), and with
# `c++ -std=c++17 $(pkg-config --cflags --libs accel)` (as
# abi.install_consumers does for C).
#
# Usage: install_consumer.sh <build-dir> <bindings/cpp source dir>
# Environment: CXX (compiler, default c++); ACC_CONSUMER_FLAGS (extra
# compile and link flags, e.g. the sanitizer flags of the library).
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 <build-dir> <bindings/cpp source dir>" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cxx=${CXX:-c++}
read -r -a extra <<< "${ACC_CONSUMER_FLAGS:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

echo "== install into $prefix"
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" \
    || { cat "$tmp/install.log"; exit 1; }
[ -f "$prefix/include/accel/accel.hpp" ] \
    || { echo "FAIL: include/accel/accel.hpp was not installed"; exit 1; }
pc=$(find "$prefix" -name accel.pc -print -quit)
[ -n "$pc" ] || { echo "FAIL: accel.pc was not installed"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name 'libaccel.so' -print -quit)")
export ACC_PLUGIN_PATH="" XDG_CACHE_HOME=$tmp/cache

echo "== C++ consumer via find_package(accel) and accel::cpp"
cmake -S "$src/tests/consumer" -B "$tmp/cbuild" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS="${extra[*]}" -DCMAKE_EXE_LINKER_FLAGS="${extra[*]}" \
    > "$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/cbuild" > "$tmp/build.log" 2>&1 \
    || { cat "$tmp/build.log"; exit 1; }
LD_LIBRARY_PATH=$libdir "$tmp/cbuild/consumer"

echo "== C++ consumer via pkg-config ($pc)"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
read -r -a pcflags <<< "$(pkg-config --cflags --libs accel)"
"$cxx" -std=c++17 "${extra[@]}" -o "$tmp/consumer_pc" \
    "$src/tests/consumer/consumer.cpp" "${pcflags[@]}"
LD_LIBRARY_PATH=$libdir "$tmp/consumer_pc"

echo "OK: both C++ consumers built against the installed accel and ran"
