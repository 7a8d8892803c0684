/*
 * skeletons.h — the skeleton templates (core/skeletons/TARGET/NAME.in),
 * embedded into the library at build time by cmake/AccelSkeletons.cmake,
 * and hole filling.
 *
 * A hole is written $$NAME$$ (capitals, digits, underscores).  Filling
 * replaces every hole by its value; a hole without a value is an error, so
 * a template and its instantiation cannot drift apart silently.  A
 * template's header comment (from its first line, "/" "* ==== BEGIN", to
 * the first comment end) documents its holes and is copied as written.
 */
#ifndef ACC_CORE_CODEGEN_SKELETONS_H
#define ACC_CORE_CODEGEN_SKELETONS_H

#include "core/base/strbuf.h"

#include <stddef.h>

/* The text of template `name` ("cpu/fold.c.in"), or NULL. */
const char *cg_skeleton(const char *name);

typedef struct cg_hole {
    const char *name;  /* without the $$ */
    const char *value;
} cg_hole;

enum { CG_HOLE_NAME_MAX = 64 };

/* Appends `tmpl` to out with its holes filled from holes[0..n-1].  Returns
 * 0 and names the hole in `missing` when a hole has no value. */
int cg_fill(strbuf *out, const char *tmpl, const cg_hole *holes, size_t n,
            char missing[CG_HOLE_NAME_MAX]);

#endif
