#!/bin/sh
# run_examples.sh CARGO — builds and runs the examples of the accel crate
# (accel/examples/), each under a banner; `make demo` runs it through the
# CMake target rust_examples (cmake/AccelRust.cmake), which sets
# ACCEL_LIB_DIR and CARGO_TARGET_DIR to the build tree.
set -eu
cargo=${1:-cargo}
cd "$(dirname "$0")"
"$cargo" build --offline -p accel --examples
for ex in dotp blackscholes histogram; do
    printf '\n==================== demo: rust %s ====================\n' "$ex"
    "$cargo" run --offline -q -p accel --example "$ex"
done
