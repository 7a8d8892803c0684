#!/bin/sh
# regen.sh — generates src/bindings.rs from abi/include/accel.h with the
# `bindgen` command (Debian package bindgen).  The bindings are committed,
# so building the crate needs no libclang; tests/bindings_current.rs runs
# this script and fails when the committed file differs from what the
# header gives now, so the two cannot drift.
#
#   ./regen.sh            rewrite src/bindings.rs
#   ./regen.sh --stdout   print the bindings instead
#
# ACCEL_INCLUDE_DIR names the folder of accel.h (default: this repository's
# abi/include).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
inc=${ACCEL_INCLUDE_DIR:-$here/../../../abi/include}
command -v bindgen > /dev/null || {
    echo "regen.sh: the bindgen command is missing (apt-get install bindgen)" >&2
    exit 1
}
# Enums become integer constants (acc_status is a c_uint with constants
# ACC_OK, ...): a number the library adds later is then a value, never
# undefined behaviour.  size_t is usize.
generate() {
    bindgen "$inc/accel.h" \
        --allowlist-function 'acc_.*' \
        --allowlist-type 'acc_.*' \
        --allowlist-var 'ACC_.*' \
        --no-prepend-enum-name \
        --size_t-is-usize \
        --raw-line '// Generated from abi/include/accel.h by regen.sh: do not edit.' \
        -- -I"$inc"
}
if [ "${1:-}" = --stdout ]; then
    generate
else
    generate > "$here/src/bindings.rs.tmp"
    mv "$here/src/bindings.rs.tmp" "$here/src/bindings.rs"
fi
