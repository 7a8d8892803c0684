#!/bin/sh
# check_syntax.sh TREE_SITTER_JULIA_DIR — a syntax check of every .jl file
# of the binding with tree-sitter-julia, for machines without Julia.
#
# Not part of `make test`: the grammar's generated parser is 53 MB of C
# that is not in Debian.  Get it and the runtime once:
#     apt-get install libtree-sitter-dev             # Debian 12: 0.20.7
#     npm pack tree-sitter-julia@0.23.1 && tar xzf tree-sitter-julia-0.23.1.tgz
#     bindings/julia/tools/check_syntax.sh package   # the unpacked folder
#
# tree-sitter-julia 0.23.1 does not know Julia 1.8's `const` fields of
# mutable structs (it flags `mutable struct A; const x::Int; end`), so the
# files are parsed with that one qualifier removed from field lines
# (`    const name::Type`); everything else is parsed as written.  Other
# grammar gaps would show up as errors to look at, not as passes.
set -eu
grammar=$1
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cc=${CC:-cc}
echo "check_syntax: building the tree-sitter-julia parser (about a minute)"
$cc -O0 -w -c -I "$grammar/src" "$grammar/src/parser.c" -o "$work/parser.o"
$cc -O1 -w -c -I "$grammar/src" "$grammar/src/scanner.c" -o "$work/scanner.o"
$cc -std=c11 -O1 -Wall -Wextra "$here/tools/jlparse.c" "$work/parser.o" \
    "$work/scanner.o" -ltree-sitter -o "$work/jlparse"

files=$(cd "$here" && find Accel examples -name '*.jl' | sort)
for f in $files; do
    mkdir -p "$work/jl/$(dirname "$f")"
    sed -E 's/^([[:space:]]+)const ([A-Za-z_][A-Za-z_0-9]*::)/\1\2/' \
        "$here/$f" > "$work/jl/$f"
done
cd "$work/jl"
if "$work/jlparse" $files; then
    echo "check_syntax: $(echo "$files" | wc -l) files parse with tree-sitter-julia" \
         "(const fields aside)"
else
    echo "check_syntax: syntax errors (above)"
    exit 1
fi
