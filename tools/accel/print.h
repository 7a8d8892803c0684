/*
 * print.h — readable printing of arrays for `accel run --print`, in the
 * style of NumPy's str(): nested brackets, elements right-aligned to a
 * common width, lines wrapped at 75 columns, and arrays of more than 1000
 * elements summarised with the first and last 3 entries of each dimension.
 */
#ifndef ACC_TOOLS_PRINT_H
#define ACC_TOOLS_PRINT_H

#include <accel.h>

#include <stdint.h>
#include <stdio.h>

/* Formats element `i` of a buffer of `scalar` elements: integers in
 * decimal, bools as True/False, floats in the shortest form that reads
 * back to the same value, always with a '.' or an exponent ("1.0", "0.1",
 * "1e+20", "nan", "-inf"). */
void print_format_elem(acc_scalar scalar, const void *data, int64_t i,
                       char *buf, size_t size);

/* Prints one buffer (a scalar leaf of an array) followed by a newline: the
 * bare value for rank 0, "[]" for an empty array. */
void print_array(FILE *f, acc_scalar scalar, int32_t rank,
                 const int64_t *extents, const void *data);

#endif /* ACC_TOOLS_PRINT_H */
