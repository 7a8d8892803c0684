/*
 * strbuf.h — a growable string for printers.  Appending never fails
 * visibly: after an allocation failure the buffer is marked failed and
 * further appends are ignored, so printers need no error plumbing.
 */
#ifndef ACC_CORE_BASE_STRBUF_H
#define ACC_CORE_BASE_STRBUF_H

#include <stddef.h>

typedef struct strbuf {
    char *text; /* NUL-terminated; NULL until the first append */
    size_t len, cap;
    int failed;
} strbuf;

void sb_printf(strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_puts(strbuf *b, const char *s);
void sb_free(strbuf *b);
/* Appends s as a JSON string: quoted, with quotes and backslashes
 * escaped and control characters as \u escapes. */
void sb_json_string(strbuf *b, const char *s);

#endif
