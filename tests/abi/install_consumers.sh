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

echo "== a moved install finds its own plugins"
moved=$tmp/moved
mv "$prefix" "$moved"
moved=$(cd "$moved" && pwd -P)
cblas=$(find "$moved" -name accel_cblas.so -print -quit)
if [ -n "$cblas" ]; then
    printf '%s\n' 'dotBlas (xs : Vector f32) (ys : Vector f32) : Scalar f32 =' \
        '  foreign "blas.dot" (\(a, b) -> fold (+) 0 (zipWith (*) a b)) (xs, ys)' \
        > "$tmp/dot.acc"
    plan=$(env -u ACC_PLUGIN_PATH -u ACC_PLUGINS "$moved/bin/accel" explain \
           --backend interp "$tmp/dot.acc")
    case $plan in
    *"uses: cblas.dot (plugin cblas"*) ;;
    *) echo "FAIL: the moved install did not load $cblas:"; echo "$plan"
       exit 1 ;;
    esac
    status=$(env -u ACC_PLUGIN_PATH -u ACC_PLUGINS "$moved/bin/accel" info \
             --plugin cblas)
    case $status in
    *"cblas: loaded"*) ;;
    *) echo "FAIL: accel info of the moved install:"; echo "$status"
       exit 1 ;;
    esac
    echo "cblas found at $cblas"
else
    echo "(the cblas plugin is not built: nothing to find)"
fi

echo "OK: both consumers built against the installed accel and ran"
