/*
 * names.c — the parameter names of an entry point, read from the header of
 * its definition, so that messages can say "input 2 (ys)".
 *
 * The library's signature has types and ranks but no names; rather than
 * parse the language, this scans for the definition `ENTRY (p : T) ...` at
 * the start of a line, outside comments, and takes the name before each
 * ':' of the parenthesised groups that follow.  When the header does not
 * look like that, there are simply no names.
 */
#include "cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '\'';
}

/* Skips blanks and "--" comments. */
static const char *skip_blank(const char *p, const char *end)
{
    for (;;) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (end - p >= 2 && p[0] == '-' && p[1] == '-') {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        return p;
    }
}

/* The first definition of `entry` that starts a line, or NULL. */
static const char *find_definition(const char *src, const char *end,
                                   const char *entry)
{
    size_t n = strlen(entry);
    const char *line = src;
    while (line < end) {
        const char *p = line;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if ((size_t)(end - p) > n && memcmp(p, entry, n) == 0 &&
            !is_ident_char(p[n]))
            return p + n;
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        line = nl ? nl + 1 : end;
    }
    return NULL;
}

/* One group "( name : type )" at p; returns the position after it and the
 * name's extent, or NULL. */
static const char *read_group(const char *p, const char *end,
                              const char **name, size_t *name_len)
{
    p = skip_blank(p + 1, end); /* past '(' */
    *name = p;
    while (p < end && is_ident_char(*p))
        p++;
    *name_len = (size_t)(p - *name);
    p = skip_blank(p, end);
    if (!*name_len || p >= end || *p != ':')
        return NULL;
    for (int depth = 1; p < end; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && --depth == 0)
            return p + 1;
    }
    return NULL;
}

void cli_names_free(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* The names of the groups after `p`, or NULL. */
static char **read_names(const char *p, const char *end, size_t *n)
{
    char **names = NULL;
    *n = 0;
    while ((p = skip_blank(p, end)) < end && *p == '(') {
        const char *name;
        size_t name_len;
        char **more = realloc(names, (*n + 1) * sizeof *names);
        if (!more)
            break;
        names = more;
        p = read_group(p, end, &name, &name_len);
        if (!p || !(names[*n] = malloc(name_len + 1)))
            break;
        memcpy(names[*n], name, name_len);
        names[(*n)++][name_len] = '\0';
    }
    if (!p || *n == 0 || p >= end || *p == '(') {
        cli_names_free(names, *n);
        *n = 0;
        return NULL;
    }
    return names;
}

char **cli_param_names(const char *source, size_t len, const char *entry,
                       size_t *n)
{
    const char *end = source + len, *p = source;
    char **names = NULL;
    *n = 0;
    while (!names && (p = find_definition(p, end, entry)) != NULL)
        names = read_names(p, end, n);
    return names;
}
