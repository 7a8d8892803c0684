/*
 * module.c — the definitions of a text program and their index by name
 * (text_ast.h: text_module).  The index is an open-addressing hash table
 * of definition pointers, kept at most half full, so that adding a
 * definition (with its duplicate check) and finding one by name take
 * constant time on average: parsing and elaborating a program is linear
 * in its number of definitions.  Everything lives in the call's arena;
 * the tables a module outgrows stay there until the call ends (at most
 * as much again as the last ones).
 */
#include "core/text/text_ast.h"

#include "core/base/hash.h"

#include <string.h>

text_module *text_module_new(text_state *st)
{
    text_module *m = text_alloc(st, sizeof *m);
    m->compares = &st->name_compares;
    return m;
}

static size_t name_hash(const char *name)
{
    return (size_t)hash_fnv1a(hash_fnv1a_init(), name, strlen(name));
}

/* The slot holding `name`, or the empty slot where it belongs. */
static size_t slot_of(const text_module *m, const char *name)
{
    size_t mask = m->cap_index - 1, i = name_hash(name) & mask;
    for (; m->index[i]; i = (i + 1) & mask) {
        ++*m->compares;
        if (strcmp(m->index[i]->name, name) == 0)
            break;
    }
    return i;
}

/* Doubles the index (and rehashes); names are distinct, so no compares. */
static void grow_index(text_state *st, text_module *m)
{
    size_t cap = m->cap_index ? 2 * m->cap_index : 64;
    text_def **index = text_alloc(st, cap * sizeof *index);
    for (size_t k = 0; k < m->n; k++) {
        size_t i = name_hash(m->defs[k]->name) & (cap - 1);
        while (index[i])
            i = (i + 1) & (cap - 1);
        index[i] = m->defs[k];
    }
    m->index = index;
    m->cap_index = cap;
}

static void grow_defs(text_state *st, text_module *m)
{
    size_t cap = m->cap ? 2 * m->cap : 16;
    text_def **defs = text_alloc(st, cap * sizeof *defs);
    if (m->n)
        memcpy(defs, m->defs, m->n * sizeof *defs);
    m->defs = defs;
    m->cap = cap;
}

text_def *text_module_add(text_state *st, text_module *m, text_def *d)
{
    if (2 * (m->n + 1) > m->cap_index)
        grow_index(st, m);
    size_t i = slot_of(m, d->name);
    if (m->index[i])
        return m->index[i];
    if (m->n == m->cap)
        grow_defs(st, m);
    m->defs[m->n++] = d;
    m->index[i] = d;
    return NULL;
}

text_def *text_module_find(const text_module *m, const char *name)
{
    if (!m || m->cap_index == 0)
        return NULL;
    return m->index[slot_of(m, name)];
}
