/*
 * dlpack.c — DLPack tensors in and out of array descriptors (accel.h,
 * "DLPack"; docs/ABI.md).  Nothing is copied: an import describes the
 * tensor's memory and keeps the tensor until acc_array_release; an
 * export describes the array's memory in a tensor whose deleter releases
 * what the array owned.  Only descriptors are involved, never a context
 * or a run, so a deleter may run on any thread at any time.
 */
#include "core/base/handles.h"
#include "core/base/mem.h"
#include "core/ir/types.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- element types ------------------------------------------------------ */

/* The scalar of a DLPack dtype; 0 with why written when accel has none. */
static acc_scalar scalar_of(acc_dl_data_type t, char *why, size_t size)
{
    static const acc_scalar ints[4] = {ACC_I8, ACC_I16, ACC_I32, ACC_I64};
    static const acc_scalar uints[4] = {ACC_U8, ACC_U16, ACC_U32, ACC_U64};
    int w = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2
                                               : t.bits == 64 ? 3 : -1;
    if (t.lanes != 1) {
        snprintf(why, size, "its dtype has %u lanes (a vector type); accel "
                 "arrays hold one scalar per element", (unsigned)t.lanes);
        return 0;
    }
    if (t.code == ACC_DL_INT && w >= 0)
        return ints[w];
    if (t.code == ACC_DL_UINT && w >= 0)
        return uints[w];
    if (t.code == ACC_DL_FLOAT && (t.bits == 32 || t.bits == 64))
        return t.bits == 32 ? ACC_F32 : ACC_F64;
    if (t.code == ACC_DL_BOOL && t.bits == 8)
        return ACC_BOOL;
    if (t.code == ACC_DL_FLOAT && t.bits == 16)
        snprintf(why, size, "its dtype is float16, which accel does not "
                 "have (convert to float32)");
    else if (t.code == ACC_DL_BFLOAT)
        snprintf(why, size, "its dtype is bfloat%u, which accel does not "
                 "have (convert to float32)", (unsigned)t.bits);
    else if (t.code == ACC_DL_COMPLEX)
        snprintf(why, size, "its dtype is complex%u; accel keeps complex "
                 "numbers as a pair of real arrays (pass the real and "
                 "imaginary parts)", (unsigned)t.bits);
    else
        snprintf(why, size, "its dtype (code %u, %u bits) is not one of "
                 "accel's: int and uint of 8 to 64 bits, float32, float64, "
                 "bool", (unsigned)t.code, (unsigned)t.bits);
    return 0;
}

/* The DLPack dtype of a scalar. */
static acc_dl_data_type dtype_of(acc_scalar s)
{
    acc_dl_data_type t = {ACC_DL_INT, (uint8_t)(8 * acc_scalar_size(s)), 1};
    switch (s) {
    case ACC_BOOL: t.code = ACC_DL_BOOL; break;
    case ACC_U8: case ACC_U16: case ACC_U32: case ACC_U64:
        t.code = ACC_DL_UINT;
        break;
    case ACC_F32: case ACC_F64: t.code = ACC_DL_FLOAT; break;
    default: break; /* the signed integers */
    }
    return t;
}

/* ---- importing ---------------------------------------------------------- */

/* Where the tensor's memory is, as a descriptor says it; 0 when accel
 * cannot read that device. */
static int memory_of(acc_dl_device dev, acc_array *out, char *why,
                     size_t size)
{
    switch (dev.device_type) {
    case ACC_DL_CPU: case ACC_DL_CUDA_HOST: case ACC_DL_CUDA_MANAGED:
        out->memory = ACC_MEMORY_HOST;
        return 1;
    case ACC_DL_CUDA:
        out->memory = ACC_MEMORY_CUDA_DEVICE;
        out->device = dev.device_id;
        return 1;
    default:
        snprintf(why, size, "it is on a device of type %d; accel reads host "
                 "memory (CPU, CUDA pinned or managed) and CUDA device "
                 "memory", (int)dev.device_type);
        return 0;
    }
}

/* Checks shape and strides and copies the extents; returns a status with
 * why written. */
static acc_status shape_of(const acc_dl_tensor *t, acc_array *out, char *why,
                           size_t size)
{
    int64_t n = 1, want = 1;
    if (t->ndim < 0 || (t->ndim > 0 && !t->shape)) {
        snprintf(why, size, "its ndim is %d%s", (int)t->ndim,
                 t->ndim < 0 ? "" : " but its shape is NULL");
        return ACC_ERR_INVALID_ARGUMENT;
    }
    if (t->ndim > ACC_MAX_RANK) {
        snprintf(why, size, "it has %d dimensions; accel arrays have at "
                 "most %d", (int)t->ndim, ACC_MAX_RANK);
        return ACC_ERR_UNSUPPORTED;
    }
    for (int32_t d = 0; d < t->ndim; d++)
        if (t->shape[d] < 0 || __builtin_mul_overflow(n, t->shape[d], &n)) {
            snprintf(why, size, "its shape[%d] is %" PRId64 "%s", (int)d,
                     t->shape[d], t->shape[d] < 0 ? "" : " and the element "
                     "count overflows int64");
            return ACC_ERR_INVALID_ARGUMENT;
        }
    out->rank = t->ndim;
    memcpy(out->extents, t->shape, (size_t)t->ndim * sizeof *t->shape);
    for (int32_t d = t->ndim - 1; t->strides && n > 0 && d >= 0; d--) {
        if (t->shape[d] != 1 && t->strides[d] != want) {
            snprintf(why, size, "its strides are not compact row-major: "
                     "dimension %d has stride %" PRId64 ", a C-contiguous "
                     "array has %" PRId64 " (copy it to a contiguous array "
                     "first)", (int)d, t->strides[d], want);
            return ACC_ERR_UNSUPPORTED;
        }
        want *= t->shape[d];
    }
    return ACC_OK;
}

/* The first element's address, checked: present when there are elements,
 * aligned to the element size. */
static acc_status data_of(const acc_dl_tensor *t, size_t elem_size,
                          acc_array *out, char *why, size_t size)
{
    uintptr_t at = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
    if (!t->data && acc_array_size(out) > 0) {
        snprintf(why, size, "its data is NULL but it has %" PRId64
                 " elements", acc_array_size(out));
        return ACC_ERR_INVALID_ARGUMENT;
    }
    if (t->data && at % elem_size != 0) {
        snprintf(why, size, "its first element (data %p + byte_offset %"
                 PRIu64 ") is not aligned to %zu bytes, the size of its "
                 "elements", t->data, t->byte_offset, elem_size);
        return ACC_ERR_UNSUPPORTED;
    }
    out->data[0] = t->data ? (void *)at : NULL;
    return ACC_OK;
}

/* Fills *out from t (ownership and release set by the caller). */
static acc_status describe_tensor(const acc_dl_tensor *t, acc_array *out,
                                  char *why, size_t size)
{
    acc_status st = ACC_OK;
    acc_scalar s = scalar_of(t->dtype, why, size);
    if (!s)
        return ACC_ERR_UNSUPPORTED;
    out->type = acc_type_scalar(s);
    if (!memory_of(t->device, out, why, size))
        return ACC_ERR_UNSUPPORTED;
    if ((st = shape_of(t, out, why, size)) != ACC_OK)
        return st;
    return data_of(t, acc_scalar_size(s), out, why, size);
}

static void release_legacy(acc_array *a)
{
    acc_dl_managed_tensor *t = a->release_state;
    if (t && t->deleter)
        t->deleter(t);
}

static void release_versioned(acc_array *a)
{
    acc_dl_managed_tensor_versioned *t = a->release_state;
    if (t && t->deleter)
        t->deleter(t);
}

static void empty_descriptor(acc_array *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
}

/* The common part of both imports; `fn` names the API function. */
static acc_status import(const acc_dl_tensor *t, void *owner,
                         void (*release)(acc_array *), const char *fn,
                         acc_array *out)
{
    char why[400];
    acc_array a;
    empty_descriptor(&a);
    acc_status st = describe_tensor(t, &a, why, sizeof why);
    if (st != ACC_OK)
        return api_fail(NULL, st, "%s: %s: %s", fn,
                        st == ACC_ERR_UNSUPPORTED
                            ? "accel cannot take the tensor without a copy"
                            : "the tensor is malformed", why);
    a.ownership = ACC_OWNERSHIP_LIBRARY;
    a.release = release;
    a.release_state = owner;
    *out = a;
    return ACC_OK;
}

acc_status acc_array_from_dlpack(acc_dl_managed_tensor *tensor, acc_array *out)
{
    static const char fn[] = "acc_array_from_dlpack";
    if (out)
        empty_descriptor(out);
    if (!tensor || !out)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        tensor ? "out" : "tensor");
    return import(&tensor->dl_tensor, tensor, release_legacy, fn, out);
}

acc_status acc_array_from_dlpack_versioned(
    acc_dl_managed_tensor_versioned *tensor, acc_array *out)
{
    static const char fn[] = "acc_array_from_dlpack_versioned";
    if (out)
        empty_descriptor(out);
    if (!tensor || !out)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        tensor ? "out" : "tensor");
    if (tensor->version.major != ACC_DL_MAJOR_VERSION)
        return api_fail(NULL, ACC_ERR_ABI_MISMATCH, "%s: the tensor is of "
                        "DLPack %u.%u; accel reads DLPack %u.x tensors", fn,
                        (unsigned)tensor->version.major,
                        (unsigned)tensor->version.minor,
                        (unsigned)ACC_DL_MAJOR_VERSION);
    return import(&tensor->dl_tensor, tensor, release_versioned, fn, out);
}

/* ---- exporting ---------------------------------------------------------- */

/* One exported tensor and what it keeps: the shape and strides it points
 * to, and the array whose memory it describes (owned when it was
 * library-owned). */
typedef struct dl_export {
    union {
        acc_dl_managed_tensor legacy;
        acc_dl_managed_tensor_versioned versioned;
    } t;
    int64_t shape[ACC_MAX_RANK];
    int64_t strides[ACC_MAX_RANK];
    acc_array array;
} dl_export;

static void export_free(dl_export *x)
{
    acc_array_release(&x->array); /* nothing for a borrowed array */
    free(x);
}

static void delete_legacy(acc_dl_managed_tensor *self)
{
    export_free(self->manager_ctx);
}

static void delete_versioned(acc_dl_managed_tensor_versioned *self)
{
    export_free(self->manager_ctx);
}

/* Whether the descriptor can be described by one tensor. */
static acc_status check_exportable(const acc_array *a, const char *fn)
{
    if (!a->type || a->struct_size < sizeof *a)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: the array %s",
                        fn, a->type ? "has a struct_size smaller than "
                        "sizeof(acc_array)" : "has no element type");
    if (acc_type_get_kind(a->type) != ACC_TYPE_SCALAR)
        return api_fail(NULL, ACC_ERR_UNSUPPORTED, "%s: the array's element "
                        "type is a tuple of %zu scalars, stored as %zu "
                        "buffers; a DLPack tensor describes one buffer", fn,
                        acc_type_leaf_count(a->type),
                        acc_type_leaf_count(a->type));
    if (a->rank < 0 || a->rank > ACC_MAX_RANK || acc_array_size(a) < 0)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: the array has "
                        "a rank out of 0..%d or a negative or overflowing "
                        "extent", fn, ACC_MAX_RANK);
    if (!a->data[0] && acc_array_size(a) > 0)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: the array has "
                        "elements but data[0] is NULL", fn);
    if (a->memory != ACC_MEMORY_HOST && a->memory != ACC_MEMORY_CUDA_DEVICE)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: the array's "
                        "memory is %d, not an acc_memory value", fn,
                        (int)a->memory);
    return ACC_OK;
}

/* A new export of *a (moved in when library-owned), its DLTensor filled. */
static dl_export *export_new(acc_array *a,
                             acc_dl_tensor *(*tensor)(dl_export *))
{
    dl_export *x = mem_calloc(1, sizeof *x);
    if (!x)
        return NULL;
    acc_dl_tensor *t = tensor(x);
    int64_t stride = 1;
    for (int32_t d = a->rank - 1; d >= 0; d--) {
        x->shape[d] = a->extents[d];
        x->strides[d] = stride;
        stride *= a->extents[d] > 0 ? a->extents[d] : 1;
    }
    t->data = a->data[0];
    t->device.device_type = a->memory == ACC_MEMORY_HOST ? ACC_DL_CPU
                                                         : ACC_DL_CUDA;
    t->device.device_id = a->memory == ACC_MEMORY_HOST ? 0 : a->device;
    t->ndim = a->rank;
    t->dtype = dtype_of(acc_type_get_scalar(a->type));
    t->shape = x->shape;
    t->strides = x->strides;
    x->array = *a;
    if (a->ownership == ACC_OWNERSHIP_LIBRARY)
        empty_descriptor(a); /* the tensor owns it now */
    else
        x->array.ownership = ACC_OWNERSHIP_BORROWED;
    return x;
}

static acc_dl_tensor *legacy_tensor(dl_export *x)
{
    return &x->t.legacy.dl_tensor;
}

static acc_dl_tensor *versioned_tensor(dl_export *x)
{
    return &x->t.versioned.dl_tensor;
}

acc_status acc_array_to_dlpack(acc_array *array, acc_dl_managed_tensor **out)
{
    static const char fn[] = "acc_array_to_dlpack";
    acc_status st = ACC_OK;
    dl_export *x = NULL;
    if (out)
        *out = NULL;
    if (!array || !out)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        array ? "out" : "array");
    if ((st = check_exportable(array, fn)) != ACC_OK)
        return st;
    if (!(x = export_new(array, legacy_tensor)))
        return api_fail(NULL, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                        "memory", fn);
    x->t.legacy.manager_ctx = x;
    x->t.legacy.deleter = delete_legacy;
    *out = &x->t.legacy;
    return ACC_OK;
}

/* The flags a re-exported versioned import keeps: read-only stays so. */
static uint64_t kept_flags(const acc_array *a)
{
    const acc_dl_managed_tensor_versioned *t = a->release_state;
    if (a->ownership != ACC_OWNERSHIP_LIBRARY ||
        a->release != release_versioned || !t)
        return 0;
    return t->flags & ACC_DL_FLAG_READ_ONLY;
}

acc_status acc_array_to_dlpack_versioned(
    acc_array *array, acc_dl_managed_tensor_versioned **out)
{
    static const char fn[] = "acc_array_to_dlpack_versioned";
    acc_status st = ACC_OK;
    dl_export *x = NULL;
    if (out)
        *out = NULL;
    if (!array || !out)
        return api_fail(NULL, ACC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        array ? "out" : "array");
    if ((st = check_exportable(array, fn)) != ACC_OK)
        return st;
    uint64_t flags = kept_flags(array);
    if (!(x = export_new(array, versioned_tensor)))
        return api_fail(NULL, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                        "memory", fn);
    x->t.versioned.version.major = ACC_DL_MAJOR_VERSION;
    x->t.versioned.version.minor = ACC_DL_MINOR_VERSION;
    x->t.versioned.manager_ctx = x;
    x->t.versioned.deleter = delete_versioned;
    x->t.versioned.flags = flags;
    *out = &x->t.versioned;
    return ACC_OK;
}
