/*
 * types.h — element, shape, tuple and array types.
 *
 * Scalar and shape types are static.  Tuple and array types are interned in
 * a type store (one per context): building the same type twice from the
 * same parts returns the same pointer.  Equality is structural (ty_equal),
 * so types of different stores compare equal when they have the same
 * structure.
 *
 * A value type (scalar, shape, tuple of value types) has scalar leaves,
 * numbered depth-first left to right; a shape of rank r has r i64 leaves.
 * An array-sort type (array, tuple of array-sort types) has array leaves.
 */
#ifndef ACC_CORE_IR_TYPES_H
#define ACC_CORE_IR_TYPES_H

#include "accel.h"
#include "core/base/diag.h"

#include <stddef.h>
#include <stdint.h>

/* A value type may have at most this many scalar leaves.  Every type
 * starts with TY_MAGIC, so that a pointer to readable memory that is not
 * a type is told apart (ty_check). */
enum { TY_MAX_LEAVES = 256, TY_MAGIC = 0x54595045u /* "TYPE" */ };

typedef struct type_store type_store;

struct acc_type {
    uint32_t magic;               /* TY_MAGIC                               */
    const type_store *owner;      /* the store that interned it; NULL for
                                     the static scalar and shape types      */
    acc_type_kind kind;
    acc_scalar scalar;            /* SCALAR */
    int32_t rank;                 /* SHAPE, ARRAY */
    const acc_type *elem;         /* ARRAY */
    size_t arity;                 /* TUPLE */
    const acc_type *const *fields;
    const size_t *field_offset;   /* TUPLE: first leaf of each field */
    int array_sort;               /* ARRAY, or TUPLE of array-sort types */
    size_t n_leaves;              /* scalar leaves, or array leaves */
    const acc_scalar *leaves;     /* value types: the scalar of each leaf */
    const acc_type *const *array_leaves; /* array-sort: each array type */
};

type_store *ty_store_create(void);
void ty_store_destroy(type_store *s);

const acc_type *ty_scalar(acc_scalar s);
const acc_type *ty_shape(int32_t rank);
/* NULL with an error recorded in `d` when the request is invalid. */
const acc_type *ty_tuple(type_store *s, size_t n,
                         const acc_type *const *fields, diag *d);
const acc_type *ty_array(type_store *s, const acc_type *elem, int32_t rank,
                         diag *d);

/* Whether t may be used with store s (a context's types): */
typedef enum ty_use {
    TY_USABLE,        /* a static type, or one s interned               */
    TY_NULL,          /* t is NULL                                      */
    TY_NOT_A_TYPE,    /* t points at something that is not a type       */
    TY_OTHER_CONTEXT  /* t was interned by another store                */
} ty_use;
ty_use ty_check(const acc_type *t, const type_store *s);
/* A short phrase for a use that is not TY_USABLE ("belongs to another
 * context ..."), for messages "OP: WHAT PHRASE". */
const char *ty_use_text(ty_use u);
/* Whether t is NULL or a type (its magic): the check the inspection
 * functions make before they read a type. */
int ty_is_type(const acc_type *t);

int ty_equal(const acc_type *a, const acc_type *b);
int ty_is_value(const acc_type *t);
int ty_is_scalar(const acc_type *t, acc_scalar s);
int ty_is_integral(acc_scalar s);
int ty_is_signed(acc_scalar s);
int ty_is_floating(acc_scalar s);
int ty_is_numeric(acc_scalar s);
/* Bit width of an integer scalar (bool counts as 8). */
int ty_bits(acc_scalar s);
int ty_valid_scalar(int s);

/* Writes a readable name ("f32", "(f32, i32)", "Array 2 f32", "Shape 2")
 * into buf and returns buf. */
const char *ty_format(const acc_type *t, char *buf, size_t size);

#endif
