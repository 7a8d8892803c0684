/*
 * text_sources.c — the LANGUAGE.md sources declared in text_sources.h,
 * read from tests/programs/ (the text must parse and run exactly as
 * written).
 */
#include "text_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The single copy of these programs is the .acc files of tests/programs (ctest
 * programs.* checks them against LANGUAGE.md); the sources are read from
 * there (ACC_TEST_PROGRAMS_DIR, set in cmake/AccelTests.cmake) once and
 * kept.  A file's first line is its title comment, not part of the text
 * LANGUAGE.md shows: it is left out, so positions in diagnostics are those
 * of the program as written there. */

/* The text of tests/programs/NAME after its first line; aborts when the
 * file cannot be read (a broken checkout, not a test failure). */
static char *program_text(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", ACC_TEST_PROGRAMS_DIR, name);
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1)) &&
        fread(text, 1, (size_t)size, f) == (size_t)size) {
        text[size] = '\0';
    } else {
        fprintf(stderr, "text_sources: cannot read %s\n", path);
        abort();
    }
    fclose(f);
    const char *body = strchr(text, '\n');
    if (body)
        memmove(text, body + 1, strlen(body + 1) + 1);
    return text;
}

/* The definitions of language4.acc from the line starting with `first`
 * up to the next blank line followed by a comment (the next program). */
static char *language4_part(const char *first)
{
    const char *all = ts_language4_source();
    size_t n = strlen(first);
    const char *from = all;
    while (from && strncmp(from, first, n) != 0) {
        from = strchr(from, '\n');
        from = from ? from + 1 : NULL;
    }
    const char *to = from ? strstr(from, "\n\n--") : NULL;
    size_t len = from ? (to ? (size_t)(to - from) + 1 : strlen(from)) : 0;
    char *part = malloc(len + 1);
    if (!from || !part) {
        fprintf(stderr, "text_sources: no '%s' in language4.acc\n", first);
        abort();
    }
    memcpy(part, from, len);
    part[len] = '\0';
    return part;
}

const char *ts_language4_source(void)
{
    static char *text;
    if (!text)
        text = program_text("language4.acc");
    return text;
}

const char *ts_dotp_source(void)
{
    static char *text;
    if (!text)
        text = language4_part("dotp (");
    return text;
}

const char *ts_blackscholes_source(void)
{
    static char *text;
    if (!text)
        text = language4_part("cnd d =");
    return text;
}

const char *ts_sieve_source(void)
{
    static char *text;
    if (!text)
        text = program_text("sieve.acc");
    return text;
}
