/*
 * escape.h — text that is safe to show on a terminal.  Bytes that come
 * from files or the command line (an .npy header, a dtype string, a file
 * name) may hold control characters such as ESC, which a terminal would
 * obey rather than show; every message of the accel tool passes through
 * escape_text before it is printed.
 */
#ifndef ACC_TOOLS_ESCAPE_H
#define ACC_TOOLS_ESCAPE_H

#include <stddef.h>

/* Copies in[0..len-1] into out as one NUL-terminated line of text:
 * printable ASCII and well-formed UTF-8 of printable characters are kept,
 * every other byte (controls, DEL, C1 controls, bidirectional overrides,
 * malformed UTF-8, NUL) is written as \xNN.  Backslashes are kept as they
 * are.  The result has at most out_size - 1 bytes; when the escaped text
 * does not fit it is cut at a character boundary and ends with "...".
 * Returns out.  out_size must be at least 4. */
char *escape_text(const char *in, size_t len, char *out, size_t out_size);

#endif /* ACC_TOOLS_ESCAPE_H */
