/*
 * skeletons.c — access to the embedded templates and hole filling.
 */
#include "core/codegen/skeletons.h"

#include "core/skeletons/skeletons.h" /* generated: cg_skeleton_files */

#include <stdio.h>
#include <string.h>

const char *cg_skeleton(const char *name)
{
    size_t n = sizeof cg_skeleton_files / sizeof cg_skeleton_files[0];
    for (size_t i = 0; i < n; i++)
        if (strcmp(cg_skeleton_files[i].name, name) == 0)
            return cg_skeleton_files[i].text;
    return NULL;
}

static int hole_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The length of the hole name starting at s (after "$$"), or 0. */
static size_t hole_at(const char *s)
{
    size_t len = 0;
    while (hole_char(s[len]))
        len++;
    return len > 0 && s[len] == '$' && s[len + 1] == '$' ? len : 0;
}

static const char *lookup(const cg_hole *holes, size_t n, const char *name,
                          size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(holes[i].name) == len &&
            memcmp(holes[i].name, name, len) == 0)
            return holes[i].value;
    return NULL;
}

int cg_fill(strbuf *out, const char *tmpl, const cg_hole *holes, size_t n,
            char missing[CG_HOLE_NAME_MAX])
{
    const char *s = tmpl;
    /* the header comment documents the holes: it is kept as written */
    const char *end = strncmp(s, "/* ==== BEGIN", 13) == 0 ? strstr(s, "*/")
                                                           : NULL;
    if (end) {
        sb_printf(out, "%.*s", (int)(end + 2 - s), s);
        s = end + 2;
    }
    for (;;) {
        const char *h = strstr(s, "$$");
        size_t len = h ? hole_at(h + 2) : 0;
        if (!h) {
            sb_puts(out, s);
            return 1;
        }
        sb_printf(out, "%.*s", (int)(h - s), s);
        if (!len) {
            sb_puts(out, "$$");
            s = h + 2;
            continue;
        }
        const char *v = lookup(holes, n, h + 2, len);
        if (!v) {
            snprintf(missing, CG_HOLE_NAME_MAX, "%.*s", (int)len, h + 2);
            return 0;
        }
        sb_puts(out, v);
        s = h + 2 + len + 2;
    }
}
