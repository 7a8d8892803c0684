#!/usr/bin/env bash
# update_symbols.sh — regenerates abi/accel.symbols, the committed list of
# functions libaccel.so exports, from the ACC_API declarations in
# abi/include/accel.h (one name per line, sorted).  Run it whenever a
# function is added to the public header, and commit the result.
#
# Usage: tests/abi/update_symbols.sh [--stdout] [header] [symbols-file]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
to_stdout=0
if [ "${1:-}" = "--stdout" ]; then
    to_stdout=1
    shift
fi
header=${1:-$root/abi/include/accel.h}
out=${2:-$root/abi/accel.symbols}

# Drop comments and preprocessor lines, then take the identifier right
# before the "(" of every declaration that starts with ACC_API.
names=$(perl -0777 -ne '
    s{/\*.*?\*/}{ }gs;
    s{//[^\n]*}{}g;
    s{^\s*#[^\n]*}{}gm;
    while (/\bACC_API\b([^;(]*)\(/g) {
        my ($n) = ($1 =~ /(\w+)\s*$/);
        print "$n\n" if defined $n;
    }' "$header" | LC_ALL=C sort -u)

if [ -z "$names" ]; then
    echo "update_symbols.sh: no ACC_API declarations found in $header" >&2
    exit 1
fi

if [ "$to_stdout" = 1 ]; then
    printf '%s\n' "$names"
else
    printf '%s\n' "$names" > "$out"
    echo "update_symbols.sh: wrote $(printf '%s\n' "$names" | wc -l) names to $out"
fi
