/*
 * npy.h — reading and writing NumPy .npy files (format versions 1.0, 2.0
 * and 3.0) for the accel command-line tool.
 *
 * Only what maps onto an accel array is accepted: C order, little-endian
 * (or '|', "not applicable", for one-byte types) scalar dtypes
 *   <f4 <f8 <i1 <i2 <i4 <i8 <u1 <u2 <u4 <u8 |b1 |i1 |u1
 * and at most ACC_MAX_RANK dimensions.  Every failure is reported as a short
 * sentence (no file name, no newline) in the caller's message buffer, with
 * any byte quoted from the file escaped for the terminal (escape.h).
 * Written files use version 1.0 (2.0 when the header does not fit), with
 * the header padded to a multiple of 64 bytes as NumPy does.
 */
#ifndef ACC_TOOLS_NPY_H
#define ACC_TOOLS_NPY_H

#include <accel.h>

#include "outfile.h"

#include <stddef.h>
#include <stdint.h>

/* Room for any message the module writes. */
#define NPY_ERROR_SIZE 256

/* What a .npy header says. */
typedef struct npy_info {
    acc_scalar scalar;             /* element type                        */
    int32_t rank;                  /* 0 .. ACC_MAX_RANK                   */
    int64_t extents[ACC_MAX_RANK]; /* outermost first                     */
    int64_t count;                 /* product of the extents (1 if rank 0) */
    size_t nbytes;                 /* count * element size                */
    char descr[16];                /* the dtype as written ("<f4")        */
} npy_info;

/* A loaded array: the header and one malloc'd buffer of info.nbytes bytes
 * (never NULL, even when empty).  Bool elements are normalised to 0/1. */
typedef struct npy_array {
    npy_info info;
    void *data;
} npy_array;

/* Parses the header dictionary (the text after the length field, `len`
 * bytes, e.g. "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }").
 * Returns 0, or -1 with a message in err. */
int npy_parse_header(const char *text, size_t len, npy_info *out, char *err,
                     size_t err_size);

/* Checks a whole file image: magic, version, header length and header, and
 * that the data is long enough.  On success *data_offset is where the data
 * starts.  Data after the array is ignored, as NumPy does.  Returns 0 or -1
 * with a message in err. */
int npy_decode(const unsigned char *bytes, size_t len, npy_info *out,
               size_t *data_offset, char *err, size_t err_size);

/* Reads a .npy file.  Returns 0, or -1 with a message in err and *out
 * zeroed (the message includes strerror for I/O errors). */
int npy_load(const char *path, npy_array *out, char *err, size_t err_size);

/* Releases the buffer of a loaded array; NULL-safe. */
void npy_array_free(npy_array *array);

/* The dtype string of an accel scalar in a .npy header ("<f4", "|b1"), or
 * NULL for a value that is not an acc_scalar. */
const char *npy_descr(acc_scalar scalar);

/* Formats the header of an array (magic, version, length, dictionary,
 * padding, newline) into buf; returns its length (a multiple of 64), or 0
 * when it does not fit in buf_size. */
size_t npy_format_header(acc_scalar scalar, int32_t rank,
                         const int64_t *extents, unsigned char *buf,
                         size_t buf_size);

/* Writes an array as the staged temporary file of a checked output
 * (outfile_stage): `data` holds the product of the extents elements of
 * `scalar`, row-major.  The caller commits or discards it.  Returns 0, or
 * -1 with a message in err and nothing staged. */
int npy_stage(outfile *f, acc_scalar scalar, int32_t rank,
              const int64_t *extents, const void *data, char *err,
              size_t err_size);

/* Writes an array as the .npy file `path`: outfile_check, npy_stage,
 * outfile_commit.  The target is replaced only by a complete file; on any
 * failure it is left exactly as it was and nothing else is left behind.
 * Returns 0, or -1 with a message in err. */
int npy_save(const char *path, acc_scalar scalar, int32_t rank,
             const int64_t *extents, const void *data, char *err,
             size_t err_size);

/* Formats a shape as NumPy prints it: "()", "(3,)", "(2, 3)". */
void npy_format_shape(int32_t rank, const int64_t *extents, char *buf,
                      size_t buf_size);

#endif /* ACC_TOOLS_NPY_H */
