/*
 * types.c — static scalar/shape types and the per-context interning store.
 */
#include "core/ir/types.h"

#include "core/base/arena.h"
#include "core/base/mem.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- static types -------------------------------------------------------- */

static const acc_scalar leaf_of_scalar[] = {
    0, ACC_BOOL, ACC_I8, ACC_I16, ACC_I32, ACC_I64, ACC_U8,
    ACC_U16, ACC_U32, ACC_U64, ACC_F32, ACC_F64,
};
static const acc_scalar i64_leaves[ACC_MAX_RANK] = {
    ACC_I64, ACC_I64, ACC_I64, ACC_I64, ACC_I64, ACC_I64, ACC_I64, ACC_I64,
};

#define SCALAR_TYPE(s) \
    { .magic = TY_MAGIC, .kind = ACC_TYPE_SCALAR, .scalar = s, .n_leaves = 1, \
      .leaves = &leaf_of_scalar[s] }
static const acc_type scalar_types[] = {
    {.magic = 0},
    SCALAR_TYPE(ACC_BOOL), SCALAR_TYPE(ACC_I8),  SCALAR_TYPE(ACC_I16),
    SCALAR_TYPE(ACC_I32),  SCALAR_TYPE(ACC_I64), SCALAR_TYPE(ACC_U8),
    SCALAR_TYPE(ACC_U16),  SCALAR_TYPE(ACC_U32), SCALAR_TYPE(ACC_U64),
    SCALAR_TYPE(ACC_F32),  SCALAR_TYPE(ACC_F64),
};

#define SHAPE_TYPE(r) \
    { .magic = TY_MAGIC, .kind = ACC_TYPE_SHAPE, .rank = r, .n_leaves = r, .leaves = i64_leaves }
static const acc_type shape_types[] = {
    SHAPE_TYPE(0), SHAPE_TYPE(1), SHAPE_TYPE(2), SHAPE_TYPE(3), SHAPE_TYPE(4),
    SHAPE_TYPE(5), SHAPE_TYPE(6), SHAPE_TYPE(7), SHAPE_TYPE(8),
};

int ty_valid_scalar(int s)
{
    return s >= ACC_BOOL && s <= ACC_F64;
}

const acc_type *ty_scalar(acc_scalar s)
{
    return ty_valid_scalar((int)s) ? &scalar_types[s] : NULL;
}

const acc_type *ty_shape(int32_t rank)
{
    return rank >= 0 && rank <= ACC_MAX_RANK ? &shape_types[rank] : NULL;
}

/* ---- scalar classification ----------------------------------------------- */

int ty_is_integral(acc_scalar s) { return s >= ACC_I8 && s <= ACC_U64; }
int ty_is_signed(acc_scalar s) { return s >= ACC_I8 && s <= ACC_I64; }
int ty_is_floating(acc_scalar s) { return s == ACC_F32 || s == ACC_F64; }
int ty_is_numeric(acc_scalar s) { return ty_is_integral(s) || ty_is_floating(s); }

int ty_bits(acc_scalar s)
{
    switch (s) {
    case ACC_BOOL: case ACC_I8: case ACC_U8: return 8;
    case ACC_I16: case ACC_U16: return 16;
    case ACC_I32: case ACC_U32: case ACC_F32: return 32;
    case ACC_I64: case ACC_U64: case ACC_F64: return 64;
    }
    return 0;
}

int ty_is_value(const acc_type *t)
{
    return t && !t->array_sort;
}

int ty_is_scalar(const acc_type *t, acc_scalar s)
{
    return t && t->kind == ACC_TYPE_SCALAR && t->scalar == s;
}

/* ---- the interning store ------------------------------------------------- */

struct type_store {
    pthread_mutex_t lock;
    arena *arena;
    const acc_type **table; /* open addressing; NULL = empty */
    size_t capacity, count;
};

type_store *ty_store_create(void)
{
    type_store *s = mem_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->arena = arena_create();
    if (!s->arena) {
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

void ty_store_destroy(type_store *s)
{
    if (!s)
        return;
    arena_destroy(s->arena);
    free(s->table);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static size_t mix(size_t h, size_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static size_t shallow_hash(acc_type_kind kind, size_t n,
                           const acc_type *const *parts, int32_t rank)
{
    size_t h = mix((size_t)kind, (size_t)rank);
    for (size_t i = 0; i < n; i++)
        h = mix(h, (size_t)(uintptr_t)parts[i]);
    return mix(h, n);
}

static int shallow_equal(const acc_type *t, acc_type_kind kind, size_t n,
                         const acc_type *const *parts, int32_t rank)
{
    if (t->kind != kind)
        return 0;
    if (kind == ACC_TYPE_ARRAY)
        return t->rank == rank && t->elem == parts[0];
    if (t->arity != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (t->fields[i] != parts[i])
            return 0;
    return 1;
}

static int store_grow(type_store *s)
{
    size_t cap = s->capacity ? s->capacity * 2 : 64;
    const acc_type **fresh = mem_calloc(cap, sizeof *fresh);
    if (!fresh)
        return 0;
    for (size_t i = 0; i < s->capacity; i++) {
        const acc_type *t = s->table[i];
        if (!t)
            continue;
        size_t h = t->kind == ACC_TYPE_ARRAY
                       ? shallow_hash(t->kind, 1, &t->elem, t->rank)
                       : shallow_hash(t->kind, t->arity, t->fields, 0);
        size_t j = h & (cap - 1);
        while (fresh[j])
            j = (j + 1) & (cap - 1);
        fresh[j] = t;
    }
    free(s->table);
    s->table = fresh;
    s->capacity = cap;
    return 1;
}

/* Fills in a new tuple type's derived fields (leaves, offsets, sort). */
static int tuple_fill(arena *a, acc_type *t, size_t n,
                      const acc_type *const *fields)
{
    const acc_type **fs = arena_alloc(a, (n ? n : 1) * sizeof *fs);
    size_t *offsets = arena_alloc(a, (n ? n : 1) * sizeof *offsets);
    if (!fs || !offsets)
        return 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        fs[i] = fields[i];
        offsets[i] = total;
        total += fields[i]->n_leaves;
    }
    t->kind = ACC_TYPE_TUPLE;
    t->arity = n;
    t->fields = fs;
    t->field_offset = offsets;
    t->n_leaves = total;
    t->array_sort = n > 0 && fields[0]->array_sort;
    if (t->array_sort) {
        const acc_type **al = arena_alloc(a, (total ? total : 1) * sizeof *al);
        if (!al)
            return 0;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < fields[i]->n_leaves; k++)
                al[offsets[i] + k] = fields[i]->array_leaves[k];
        t->array_leaves = al;
    } else {
        acc_scalar *lv = arena_alloc(a, (total ? total : 1) * sizeof *lv);
        if (!lv)
            return 0;
        for (size_t i = 0; i < n; i++)
            memcpy(lv + offsets[i], fields[i]->leaves,
                   fields[i]->n_leaves * sizeof *lv);
        t->leaves = lv;
    }
    return 1;
}

static int array_fill(arena *a, acc_type *t, const acc_type *elem,
                      int32_t rank)
{
    const acc_type **self = arena_alloc(a, sizeof *self);
    if (!self)
        return 0;
    t->kind = ACC_TYPE_ARRAY;
    t->elem = elem;
    t->rank = rank;
    t->array_sort = 1;
    t->n_leaves = 1;
    self[0] = t;
    t->array_leaves = self;
    return 1;
}

/* Looks the type up; creates it when absent.  Called with validated parts. */
static const acc_type *store_intern(type_store *s, acc_type_kind kind,
                                    size_t n, const acc_type *const *parts,
                                    int32_t rank, diag *d)
{
    size_t h = shallow_hash(kind, n, parts, rank);
    const acc_type *found = NULL;
    pthread_mutex_lock(&s->lock);
    if ((s->count + 1) * 2 > s->capacity && !store_grow(s))
        goto out;
    size_t j = h & (s->capacity - 1);
    for (; s->table[j]; j = (j + 1) & (s->capacity - 1))
        if (shallow_equal(s->table[j], kind, n, parts, rank)) {
            found = s->table[j];
            goto out;
        }
    acc_type *t = arena_alloc(s->arena, sizeof *t);
    if (!t)
        goto out;
    t->magic = TY_MAGIC;
    t->owner = s;
    int ok = kind == ACC_TYPE_ARRAY ? array_fill(s->arena, t, parts[0], rank)
                                    : tuple_fill(s->arena, t, n, parts);
    if (!ok)
        goto out;
    s->table[j] = t;
    s->count++;
    found = t;
out:
    pthread_mutex_unlock(&s->lock);
    if (!found)
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "out of host memory while "
                  "creating a type");
    return found;
}

const acc_type *ty_tuple(type_store *s, size_t n,
                         const acc_type *const *fields, diag *d)
{
    if (n > 0 && !fields) {
        diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "tuple type: fields is NULL");
        return NULL;
    }
    size_t leaves = 0;
    for (size_t i = 0; i < n; i++) {
        ty_use use = ty_check(fields[i], s);
        if (use != TY_USABLE) {
            diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "tuple type: field %zu %s",
                      i, ty_use_text(use));
            return NULL;
        }
        if (fields[i]->array_sort != fields[0]->array_sort) {
            diag_fail(d, ACC_ERR_TYPE, "tuple type: field %zu mixes arrays "
                      "and scalar values", i);
            return NULL;
        }
        leaves += fields[i]->n_leaves;
    }
    if (leaves > TY_MAX_LEAVES) {
        diag_fail(d, ACC_ERR_UNSUPPORTED, "tuple type: %zu leaves, at most "
                  "%d are supported", leaves, TY_MAX_LEAVES);
        return NULL;
    }
    return store_intern(s, ACC_TYPE_TUPLE, n, fields, 0, d);
}

const acc_type *ty_array(type_store *s, const acc_type *elem, int32_t rank,
                         diag *d)
{
    char name[128];
    ty_use use = ty_check(elem, s);
    if (use != TY_USABLE) {
        diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "array type: the element type "
                  "%s", ty_use_text(use));
        return NULL;
    }
    if (elem->array_sort) {
        diag_fail(d, ACC_ERR_TYPE, "array type: the element type %s is not a "
                  "scalar value", ty_format(elem, name, sizeof name));
        return NULL;
    }
    if (rank < 0 || rank > ACC_MAX_RANK) {
        diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "array type: rank %d is out of "
                  "range 0..%d", (int)rank, ACC_MAX_RANK);
        return NULL;
    }
    if (elem->n_leaves > ACC_MAX_COMPONENTS) {
        diag_fail(d, ACC_ERR_UNSUPPORTED, "array type: element type %s has "
                  "%zu components, at most %d are supported",
                  ty_format(elem, name, sizeof name), elem->n_leaves,
                  ACC_MAX_COMPONENTS);
        return NULL;
    }
    return store_intern(s, ACC_TYPE_ARRAY, 1, &elem, rank, d);
}

/* ---- ownership ------------------------------------------------------------ */

int ty_is_type(const acc_type *t)
{
    return !t || t->magic == TY_MAGIC;
}

ty_use ty_check(const acc_type *t, const type_store *s)
{
    if (!t)
        return TY_NULL;
    if (t->magic != TY_MAGIC)
        return TY_NOT_A_TYPE;
    return t->owner && t->owner != s ? TY_OTHER_CONTEXT : TY_USABLE;
}

const char *ty_use_text(ty_use u)
{
    switch (u) {
    case TY_USABLE: return "is usable";
    case TY_NULL: return "is NULL";
    case TY_NOT_A_TYPE: return "is not a type (acc_type_* make types)";
    case TY_OTHER_CONTEXT:
        return "belongs to another context (tuple and array types are made "
               "per context: make it with this one)";
    }
    return "is not usable";
}

/* ---- equality and printing ------------------------------------------------ */

int ty_equal(const acc_type *a, const acc_type *b)
{
    if (a == b)
        return 1;
    if (!a || !b || a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case ACC_TYPE_SCALAR: return a->scalar == b->scalar;
    case ACC_TYPE_SHAPE: return a->rank == b->rank;
    case ACC_TYPE_ARRAY: return a->rank == b->rank && ty_equal(a->elem, b->elem);
    case ACC_TYPE_TUPLE:
        if (a->arity != b->arity)
            return 0;
        for (size_t i = 0; i < a->arity; i++)
            if (!ty_equal(a->fields[i], b->fields[i]))
                return 0;
        return 1;
    }
    return 0;
}

static size_t put(char *buf, size_t size, size_t at, const char *s)
{
    size_t n = strlen(s);
    if (at < size) {
        size_t room = size - at - 1;
        memcpy(buf + at, s, n < room ? n : room);
        buf[at + (n < room ? n : room)] = '\0';
    }
    return at + n;
}

static size_t format_into(const acc_type *t, char *buf, size_t size, size_t at)
{
    char tmp[32];
    if (!t)
        return put(buf, size, at, "<null type>");
    switch (t->kind) {
    case ACC_TYPE_SCALAR:
        return put(buf, size, at, acc_scalar_name(t->scalar));
    case ACC_TYPE_SHAPE:
        snprintf(tmp, sizeof tmp, "Shape %d", (int)t->rank);
        return put(buf, size, at, tmp);
    case ACC_TYPE_ARRAY:
        snprintf(tmp, sizeof tmp, "Array %d ", (int)t->rank);
        at = put(buf, size, at, tmp);
        return format_into(t->elem, buf, size, at);
    case ACC_TYPE_TUPLE:
        at = put(buf, size, at, "(");
        for (size_t i = 0; i < t->arity; i++) {
            if (i)
                at = put(buf, size, at, ", ");
            at = format_into(t->fields[i], buf, size, at);
        }
        return put(buf, size, at, ")");
    }
    return at;
}

const char *ty_format(const acc_type *t, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    buf[0] = '\0';
    format_into(t, buf, size, 0);
    return buf;
}
