/* types_api.c — the public acc_type_* and acc_scalar_* functions.  The
 * inspection functions treat a pointer that is not a type (its magic) as
 * NULL: they answer 0 or NULL instead of reading it as one. */
#include "abi/src/context.h"

/* t, or NULL when t is not a type. */
static const acc_type *as_type(const acc_type *t)
{
    return ty_is_type(t) ? t : NULL;
}

const acc_type *acc_type_scalar(acc_scalar scalar)
{
    return ty_scalar(scalar);
}

const acc_type *acc_type_shape(int32_t rank)
{
    return ty_shape(rank);
}

static const acc_type *type_result(acc_context *ctx, const acc_type *t,
                                   const diag *d)
{
    if (!t)
        api_fail_diag(&ctx->error, d);
    return t;
}

const acc_type *acc_type_tuple(acc_context *ctx, size_t n,
                               const acc_type *const *fields)
{
    if (!handle_is_live(ctx, HANDLE_CONTEXT)) {
        api_bad_handle(ctx, HANDLE_CONTEXT, "acc_type_tuple");
        return NULL;
    }
    diag d;
    diag_clear(&d);
    return type_result(ctx, ty_tuple(ctx->types, n, fields, &d), &d);
}

const acc_type *acc_type_array(acc_context *ctx, const acc_type *elem,
                               int32_t rank)
{
    if (!handle_is_live(ctx, HANDLE_CONTEXT)) {
        api_bad_handle(ctx, HANDLE_CONTEXT, "acc_type_array");
        return NULL;
    }
    diag d;
    diag_clear(&d);
    return type_result(ctx, ty_array(ctx->types, elem, rank, &d), &d);
}

acc_type_kind acc_type_get_kind(const acc_type *type)
{
    type = as_type(type);
    return type ? type->kind : (acc_type_kind)0;
}

acc_scalar acc_type_get_scalar(const acc_type *type)
{
    type = as_type(type);
    return type && type->kind == ACC_TYPE_SCALAR ? type->scalar
                                                 : (acc_scalar)0;
}

int32_t acc_type_get_rank(const acc_type *type)
{
    type = as_type(type);
    if (type && (type->kind == ACC_TYPE_SHAPE || type->kind == ACC_TYPE_ARRAY))
        return type->rank;
    return 0;
}

const acc_type *acc_type_get_elem(const acc_type *type)
{
    type = as_type(type);
    return type && type->kind == ACC_TYPE_ARRAY ? type->elem : NULL;
}

size_t acc_type_get_arity(const acc_type *type)
{
    type = as_type(type);
    return type && type->kind == ACC_TYPE_TUPLE ? type->arity : 0;
}

const acc_type *acc_type_get_field(const acc_type *type, size_t i)
{
    type = as_type(type);
    if (type && type->kind == ACC_TYPE_TUPLE && i < type->arity)
        return type->fields[i];
    return NULL;
}

size_t acc_type_leaf_count(const acc_type *type)
{
    type = as_type(type);
    return type && !type->array_sort ? type->n_leaves : 0;
}

acc_scalar acc_type_leaf(const acc_type *type, size_t i)
{
    type = as_type(type);
    if (type && !type->array_sort && i < type->n_leaves)
        return type->leaves[i];
    return (acc_scalar)0;
}

int acc_type_equal(const acc_type *a, const acc_type *b)
{
    return ty_is_type(a) && ty_is_type(b) && ty_equal(a, b);
}

size_t acc_scalar_size(acc_scalar scalar)
{
    return ty_valid_scalar((int)scalar) ? (size_t)ty_bits(scalar) / 8 : 0;
}

const char *acc_scalar_name(acc_scalar scalar)
{
    switch (scalar) {
    case ACC_BOOL: return "bool";
    case ACC_I8: return "i8";
    case ACC_I16: return "i16";
    case ACC_I32: return "i32";
    case ACC_I64: return "i64";
    case ACC_U8: return "u8";
    case ACC_U16: return "u16";
    case ACC_U32: return "u32";
    case ACC_U64: return "u64";
    case ACC_F32: return "f32";
    case ACC_F64: return "f64";
    }
    return "unknown";
}
