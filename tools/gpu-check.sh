#!/usr/bin/env bash
# gpu-check.sh — the one command a session runs when it is lent a GPU
# (`make gpu-check`).  Device time is scarce (minutes), so this builds with
# every core, then runs the device-free CUDA tests, the device suite
# (`make test-gpu`) and the GPU benchmarks (`make bench-gpu`), each step to
# the end even when an earlier one failed, logging every step into
# $ACC_GPU_CHECK_OUT, else $OUT (the device tool's return folder), else
# build/gpu-check.  It ends with a
# summary naming each step ok/FAILED.  Exit status: 0 when every step
# passed and the device suite ran on a GPU, 1 when a step failed, 2 when
# nothing failed but the device suite was SKIPPED (no usable GPU): a GPU
# result is never reported that was not produced.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=${ACC_GPU_CHECK_OUT:-${OUT:-build/gpu-check}}
mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 2)
summary="$out/summary.txt"
: > "$summary"
failed=0

step() {  # step NAME COMMAND...: run, log to $out/NAME.log, record the outcome
    local name=$1; shift
    local start=$SECONDS
    printf '\n==================== gpu-check: %s ====================\n' "$name"
    if "$@" > "$out/$name.log" 2>&1; then
        printf '%-12s ok      %4ds\n' "$name" $((SECONDS - start)) | tee -a "$summary"
    else
        printf '%-12s FAILED  %4ds (rc %d, log %s)\n' "$name" $((SECONDS - start)) \
            "$?" "$out/$name.log" | tee -a "$summary"
        tail -n 40 "$out/$name.log"
        failed=1
    fi
}

# A lent machine may not be Debian and may have no package mirror: what the
# test build needs from Debian packages comes packed in .cache/gpu-deps
# (tools/gpu-deps.sh; carried with the run).  Only the libraries this
# machine lacks go on the library path, so its own tools keep their own.
make_args=(WERROR=OFF "CMAKE_ARGS=-DACC_JULIA_CHECKS=OFF")
deps=$PWD/.cache/gpu-deps
if [ -d "$deps/lib" ]; then
    missing=$deps/lib-missing
    rm -rf "$missing"; mkdir -p "$missing"
    for lib in "$deps"/lib/lib*.so*; do
        name=$(basename "$lib")
        case "$name" in
        libcriterion*) ln -s "$lib" "$missing/$name" ;;
        *) ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$name " || ln -s "$lib" "$missing/$name" ;;
        esac
    done
    export PKG_CONFIG_PATH=$deps/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    export LD_LIBRARY_PATH=$missing${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    make_args=(WERROR=OFF "CMAKE_ARGS=-DACC_JULIA_CHECKS=OFF -DCMAKE_PREFIX_PATH=$deps")
    echo "gpu-check: using $deps; lacking here: $(ls "$missing" | tr '\n' ' ')"
fi

{ date -u; uname -a; nvidia-smi 2>&1 | head -n 15; } > "$out/machine.txt" 2>&1
# The device machine may have no network: a failed bootstrap is logged and
# the build goes on with what is installed (make -o bootstrap).
step bootstrap tools/bootstrap.sh
if [ "$failed" -ne 0 ]; then  # offline: not a failure of accel
    echo "bootstrap: could not install; went on with what this machine has" | tee -a "$summary"
    failed=0
fi
# ctest -j: the language and fusion suites compile their kernels with NVRTC
# in separate processes (hundreds of modules), serially minutes
step test-gpu  make -o bootstrap "${make_args[@]}" JOBS="$jobs" CTEST="ctest -j$jobs" test-gpu
grep -E 'device suite (PASSED|FAILED|SKIPPED)' "$out/test-gpu.log" | tee -a "$summary"
step bench-gpu make -o bootstrap -o configure "${make_args[@]}" JOBS="$jobs" bench-gpu
cp -f build/bench-gpu-results.csv "$out/" 2>/dev/null
# Warnings this compiler gives that the CI compilers do not (WERROR=OFF here).
printf 'compiler warnings in the build: %s\n' \
    "$(grep -c 'warning:' "$out/test-gpu.log")" | tee -a "$summary"

if [ "$failed" -eq 0 ] && grep -q 'device suite SKIPPED' "$out/test-gpu.log"; then
    echo "gpu-check: the device suite was SKIPPED: nothing ran on a GPU" | tee -a "$summary"
    failed=2
fi
printf '\n==================== gpu-check: summary (%s) ====================\n' "$out"
cat "$summary"
exit "$failed"
