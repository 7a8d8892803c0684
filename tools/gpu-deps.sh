#!/usr/bin/env bash
# gpu-deps.sh — pack what the test build needs from Debian packages into
# .cache/gpu-deps/ (gitignored), for a lent GPU machine that is not Debian
# and cannot reach a package mirror: the Criterion headers, libcriterion
# and every shared library it needs apart from the C library, libffi's
# headers, relocatable criterion.pc and libffi.pc, and dlpack.h.  Carry the folder with the run
# (carry: [".cache/gpu-deps"]); tools/gpu-check.sh uses it when present,
# putting on the library path only the libraries that machine lacks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=.cache/gpu-deps
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
libdir=/usr/lib/$multiarch
[ -e "$libdir/libcriterion.so" ] || { echo "gpu-deps: libcriterion-dev is not installed (tools/bootstrap.sh)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/include" "$out/lib/pkgconfig"
cp -r /usr/include/criterion "$out/include/"
[ -d /usr/include/dlpack ] && cp -r /usr/include/dlpack "$out/include/"
cp -P "$libdir"/libcriterion.so* "$out/lib/"
# libffi-dev: without it acc_register_kernel is refused (foreign/cfunc.c)
# and the build would not be the one CI tests.
cp /usr/include/"$multiarch"/ffi.h /usr/include/"$multiarch"/ffitarget.h "$out/include/"
ln -s libffi.so.8 "$out/lib/libffi.so"
# The dependency closure, by soname, without the C library itself.
ldd "$libdir/libcriterion.so" | awk '/=> \//{print $1, $3}' | while read -r soname path; do
    case "$soname" in libc.so.*|libm.so.*|libresolv.so.*|libpthread.so.*|libdl.so.*|librt.so.*) continue ;; esac
    cp -L "$path" "$out/lib/$soname"
done
# A relocatable .pc file: pc NAME VERSION LIB (the prefix is the folder).
pc() {
    printf '%s\n' 'prefix=${pcfiledir}/../..' 'includedir=${prefix}/include' \
        'libdir=${prefix}/lib' '' "Name: $1" \
        "Description: $1, packed from Debian by tools/gpu-deps.sh" \
        "Version: $2" "Libs: -L\${libdir} -l$3" 'Cflags: -I${includedir}' \
        > "$out/lib/pkgconfig/$1.pc"
}
pc criterion 2.4.1 criterion
pc libffi 3.4.4 ffi
du -sh "$out"
