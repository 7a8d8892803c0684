/*
 * types.c — inference types of the text elaborator: construction,
 * unification with union-find on type variables, and names for messages.
 *
 * A type variable carries a class (text_tclass).  Binding it to a scalar
 * checks the class (a literal `1.5` cannot become i32); binding two
 * variables keeps the narrower class (a number and a float give a float).
 */
#include "core/text/text_elab.h"

#include <stdio.h>
#include <string.h>

text_type *text_ty_prune(text_type *t)
{
    while (t && t->kind == TT_VAR && t->link)
        t = t->link;
    return t;
}

static text_type *ty_new(text_state *st, text_tkind kind)
{
    text_type *t = text_alloc(st, sizeof *t);
    t->kind = kind;
    return t;
}

text_type *text_ty_var(text_state *st, text_tclass cls)
{
    text_type *t = ty_new(st, TT_VAR);
    t->cls = cls;
    return t;
}

text_type *text_ty_scalar(text_state *st, acc_scalar s)
{
    text_type *t = ty_new(st, TT_SCALAR);
    t->scalar = s;
    return t;
}

text_type *text_ty_shape(text_state *st, int rank)
{
    text_type *t = ty_new(st, TT_SHAPE);
    t->rank = rank;
    return t;
}

text_type *text_ty_array(text_state *st, text_type *elem, int rank)
{
    text_type *t = ty_new(st, TT_ARRAY);
    t->elem = elem;
    t->rank = rank;
    return t;
}

text_type *text_ty_tuple(text_state *st, size_t n, text_type **fields)
{
    text_type *t = ty_new(st, TT_TUPLE);
    t->n = n;
    t->fields = text_alloc(st, (n ? n : 1) * sizeof *t->fields);
    for (size_t i = 0; i < n; i++)
        t->fields[i] = fields[i];
    return t;
}

static int is_float(acc_scalar s)
{
    return s == ACC_F32 || s == ACC_F64;
}

static int class_admits(text_tclass c, const text_type *t)
{
    switch (c) {
    case TC_ANY: return 1;
    case TC_SHAPE: return t->kind == TT_SHAPE;
    case TC_NUM: return t->kind == TT_SCALAR && t->scalar != ACC_BOOL;
    case TC_INT:
        return t->kind == TT_SCALAR && t->scalar != ACC_BOOL &&
               !is_float(t->scalar);
    case TC_FLOAT: return t->kind == TT_SCALAR && is_float(t->scalar);
    case TC_BOUNDED:
        return t->kind == TT_SCALAR && !is_float(t->scalar);
    }
    return 0;
}

/* The class of values both classes admit; -1 when there is none. */
static int class_meet(text_tclass a, text_tclass b)
{
    if (a == b || b == TC_ANY)
        return (int)a;
    if (a == TC_ANY)
        return (int)b;
    if (a == TC_SHAPE || b == TC_SHAPE)
        return -1;
    if (a == TC_BOUNDED || b == TC_BOUNDED) { /* with a number: an integer */
        text_tclass other = a == TC_BOUNDED ? b : a;
        return other == TC_NUM || other == TC_INT ? (int)TC_INT : -1;
    }
    if (a == TC_NUM)
        return (int)b;
    if (b == TC_NUM)
        return (int)a;
    return -1; /* TC_INT and TC_FLOAT */
}

static int occurs(text_type *v, text_type *t)
{
    t = text_ty_prune(t);
    if (t == v)
        return 1;
    if (t->kind == TT_ARRAY)
        return occurs(v, t->elem);
    if (t->kind == TT_TUPLE)
        for (size_t i = 0; i < t->n; i++)
            if (occurs(v, t->fields[i]))
                return 1;
    return 0;
}

static int bind_var(text_type *v, text_type *t)
{
    if (t->kind == TT_VAR) {
        int c = class_meet(v->cls, t->cls);
        if (c < 0)
            return 0;
        t->cls = (text_tclass)c;
        v->link = t;
        return 1;
    }
    if (!class_admits(v->cls, t) || occurs(v, t))
        return 0;
    v->link = t;
    return 1;
}

int text_ty_unify(text_type *a, text_type *b)
{
    a = text_ty_prune(a);
    b = text_ty_prune(b);
    if (a == b)
        return 1;
    if (a->kind == TT_VAR)
        return bind_var(a, b);
    if (b->kind == TT_VAR)
        return bind_var(b, a);
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case TT_SCALAR: return a->scalar == b->scalar;
    case TT_SHAPE: return a->rank == b->rank;
    case TT_ARRAY: return a->rank == b->rank && text_ty_unify(a->elem, b->elem);
    case TT_TUPLE:
        if (a->n != b->n)
            return 0;
        for (size_t i = 0; i < a->n; i++)
            if (!text_ty_unify(a->fields[i], b->fields[i]))
                return 0;
        return 1;
    case TT_VAR: break;
    }
    return 0;
}

int text_ty_is_array_sort(text_type *t)
{
    t = text_ty_prune(t);
    if (t->kind == TT_ARRAY)
        return 1;
    if (t->kind != TT_TUPLE || t->n == 0)
        return 0;
    for (size_t i = 0; i < t->n; i++)
        if (!text_ty_is_array_sort(t->fields[i]))
            return 0;
    return 1;
}

static void put(char *buf, size_t size, size_t *at, const char *s)
{
    size_t n = strlen(s);
    if (*at + n + 1 > size)
        n = *at + 1 < size ? size - *at - 1 : 0;
    memcpy(buf + *at, s, n);
    *at += n;
    buf[*at] = '\0';
}

static void name_into(text_type *t, char *buf, size_t size, size_t *at,
                      int depth)
{
    static const char *const classes[] = {
        "some type", "a number type", "an integer type",
        "a floating type", "an index type", "an integer or bool type"};
    char tmp[32];
    t = text_ty_prune(t);
    if (depth > 8) {
        put(buf, size, at, "...");
        return;
    }
    switch (t->kind) {
    case TT_VAR: put(buf, size, at, classes[t->cls]); return;
    case TT_SCALAR: put(buf, size, at, acc_scalar_name(t->scalar)); return;
    case TT_SHAPE:
        snprintf(tmp, sizeof tmp, "Shape %d", t->rank);
        put(buf, size, at, tmp);
        return;
    case TT_ARRAY:
        snprintf(tmp, sizeof tmp, "Array %d ", t->rank);
        put(buf, size, at, tmp);
        if (text_ty_prune(t->elem)->kind == TT_VAR)
            put(buf, size, at, "of ");
        name_into(t->elem, buf, size, at, depth + 1);
        return;
    case TT_TUPLE:
        put(buf, size, at, "(");
        for (size_t i = 0; i < t->n; i++) {
            if (i)
                put(buf, size, at, ", ");
            name_into(t->fields[i], buf, size, at, depth + 1);
        }
        put(buf, size, at, ")");
        return;
    }
}

const char *text_ty_name(text_state *st, text_type *t)
{
    char *buf = text_alloc(st, 160);
    size_t at = 0;
    buf[0] = '\0';
    name_into(t, buf, 160, &at, 0);
    return buf;
}
