#!/usr/bin/env bash
# demo.sh — the command-line part of `make demo`: writes small .npy inputs
# with numpy, then runs the text programs of examples/demo.acc through
# `accel run`, printing each command and its output.
#
# Usage: tools/accel/demo.sh [BUILD_DIR]   (default: build)
set -euo pipefail

build=${1:-build}
accel=$build/bin/accel
program=examples/demo.acc
python=/usr/bin/python3
[ -x "$python" ] || python=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$python" - "$tmp" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
np.save(d + "/xs.npy", np.arange(1, 9, dtype=np.float32))
np.save(d + "/ys.npy", np.full(8, 0.5, dtype=np.float32))
np.save(d + "/values.npy", (np.arange(100) ** 2 % 10).astype(np.int32))
np.save(d + "/xd.npy", np.arange(1, 9, dtype=np.float64))
np.save(d + "/yd.npy", np.full(8, 0.5, dtype=np.float64))
PY

show() {
    printf '$ accel %s\n' "$*" | sed "s|$tmp/||g"
    "$accel" "$@"
    echo
}

show check "$program"
show run "$program" --entry dotp --in "$tmp/xs.npy" --in "$tmp/ys.npy" --print
show run "$program" --entry histogram --in 10 --in "$tmp/values.npy" \
    --out "$tmp/hist.npy" --print
show run "$program" --entry mandelbrot --in 32 --in 13 --in 9
show explain "$program" --entry dotp
# a user kernel (examples/user_kernel/): the same program with the C kernel
# registered by --kernel, then without it (the fallback)
saxpy=examples/user_kernel/saxpy.acc
show explain "$saxpy" --kernel examples/user_kernel/saxpy_kernel.c
show run "$saxpy" --kernel examples/user_kernel/saxpy_kernel.c \
    --in 2 --in "$tmp/xd.npy" --in "$tmp/yd.npy" --print
show run "$saxpy" --in 2 --in "$tmp/xd.npy" --in "$tmp/yd.npy" --print
