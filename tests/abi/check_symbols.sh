#!/usr/bin/env bash
# check_symbols.sh — the exported-symbol check of the ABI (ctest test
# abi.exported_symbols).  Fails when libaccel.so exports a symbol that does
# not start with acc_, or when its exported list differs from the committed
# abi/accel.symbols.  Given the header too, also fails when accel.symbols is
# out of date with the header's ACC_API declarations.
#
# Usage: tests/abi/check_symbols.sh <libaccel.so> <accel.symbols> [accel.h]
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 <libaccel.so> <accel.symbols> [accel.h]" >&2
    exit 2
fi
lib=$1
expected=$2
header=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# Symbols the linker itself may define in any shared object; not ours.
# Symbols the linker itself defines: the usual ones, and the bounds of
# sections named like C identifiers (__start_X/__stop_X), which appear when
# the fuzzing build instruments the library with coverage counters.
linker_symbols='^(_init|_fini|_edata|_end|__bss_start|__start___sancov_[a-z]+|__stop___sancov_[a-z]+)$'

nm -D --defined-only "$lib" | awk 'NF >= 2 { print $NF }' | sed 's/@.*//' \
    | grep -v -E "$linker_symbols" | LC_ALL=C sort -u > "$tmp/exported"

if grep -v '^acc_' "$tmp/exported" > "$tmp/bad"; then
    echo "FAIL: $lib exports symbols outside acc_*:"
    sed 's/^/    /' "$tmp/bad"
    echo "  (internal functions need a module prefix and hidden visibility;"
    echo "   only declarations marked ACC_API in accel.h are exported)"
    status=1
fi

LC_ALL=C sort -u "$expected" > "$tmp/expected"
if ! diff -u "$tmp/expected" "$tmp/exported" > "$tmp/diff"; then
    echo "FAIL: exported symbols differ from $expected"
    echo "  ('-' listed but not exported, '+' exported but not listed)"
    sed 's/^/    /' "$tmp/diff"
    status=1
fi

if [ -n "$header" ]; then
    "$here/update_symbols.sh" --stdout "$header" > "$tmp/declared"
    if ! diff -u "$tmp/expected" "$tmp/declared" > "$tmp/hdiff"; then
        echo "FAIL: $expected is out of date with $header;"
        echo "  run tests/abi/update_symbols.sh and commit the result"
        sed 's/^/    /' "$tmp/hdiff"
        status=1
    fi
fi

if [ "$status" = 0 ]; then
    echo "OK: $(wc -l < "$tmp/exported") exported symbols, all acc_*, match $(basename "$expected")"
fi
exit "$status"
