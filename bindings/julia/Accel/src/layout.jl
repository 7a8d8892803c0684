# layout.jl — helpers for callers who want accel's row-major convention
# instead of the zero-copy one.
#
# By default an Array of Julia size (d1, ..., dN) is accel's array of
# extents [dN, ..., d1] over the same memory, so a program written for a
# Matrix [rows, cols] sees a Julia matrix as its transpose (element [r, c]
# of the program is M[c+1, r+1]).  Nothing is ever transposed behind the
# caller's back.  These helpers copy, explicitly, for the other convention.

reverse_dims(a::AbstractArray) =
    ndims(a) <= 1 ? copy(a) : permutedims(a, ntuple(i -> ndims(a) - i + 1, ndims(a)))

"""
    row_major(A) -> Array

A copy of A with its dimensions reversed, so that a program sees A with
Julia's own index order: for a matrix, program element [r, c] (0-based) is
`A[r+1, c+1]`.  Vectors and 0-dimensional arrays are copied as they are.
"""
row_major(a::AbstractArray) = reverse_dims(a)

"""
    from_row_major(R) -> Array

The inverse of `row_major` for results: a copy of R with its dimensions
reversed, so that `from_row_major(R)[r+1, c+1]` is the program's element
[r, c].
"""
from_row_major(a::AbstractArray) = reverse_dims(a)
