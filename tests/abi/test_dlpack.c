/*
 * test_dlpack.c — DLPack at the ABI (accel.h "DLPack", docs/ABI.md): the
 * struct declarations are layout-compatible with dlpack.h (Debian's
 * libdlpack-dev for the legacy structs, DLPack 1.x's published layout for
 * the versioned one); tensors go in and out without a copy (pointer
 * equality) and every deleter runs exactly once, also after the context
 * is gone and on another thread; tensors that cannot be taken as they are
 * are refused with a message naming which and why, leaving the tensor to
 * its owner.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "support.h"

/* ---- layout ------------------------------------------------------------- */

#ifdef ACC_HAVE_DLPACK_H
#include <dlpack/dlpack.h>

#define SAME_FIELD(ours, theirs, f)                                        \
    _Static_assert(offsetof(ours, f) == offsetof(theirs, f) &&             \
                       sizeof(((ours *)0)->f) == sizeof(((theirs *)0)->f), \
                   #ours "." #f " differs from " #theirs "." #f)
#define SAME_SIZE(ours, theirs) \
    _Static_assert(sizeof(ours) == sizeof(theirs), #ours " size")

SAME_SIZE(acc_dl_device, DLDevice);
SAME_FIELD(acc_dl_device, DLDevice, device_type);
SAME_FIELD(acc_dl_device, DLDevice, device_id);
SAME_SIZE(acc_dl_data_type, DLDataType);
SAME_FIELD(acc_dl_data_type, DLDataType, code);
SAME_FIELD(acc_dl_data_type, DLDataType, bits);
SAME_FIELD(acc_dl_data_type, DLDataType, lanes);
SAME_SIZE(acc_dl_tensor, DLTensor);
SAME_FIELD(acc_dl_tensor, DLTensor, data);
SAME_FIELD(acc_dl_tensor, DLTensor, device);
SAME_FIELD(acc_dl_tensor, DLTensor, ndim);
SAME_FIELD(acc_dl_tensor, DLTensor, dtype);
SAME_FIELD(acc_dl_tensor, DLTensor, shape);
SAME_FIELD(acc_dl_tensor, DLTensor, strides);
SAME_FIELD(acc_dl_tensor, DLTensor, byte_offset);
SAME_SIZE(acc_dl_managed_tensor, DLManagedTensor);
SAME_FIELD(acc_dl_managed_tensor, DLManagedTensor, dl_tensor);
SAME_FIELD(acc_dl_managed_tensor, DLManagedTensor, manager_ctx);
SAME_FIELD(acc_dl_managed_tensor, DLManagedTensor, deleter);
#define SAME_VALUE(ours, theirs) \
    _Static_assert((int)(ours) == (int)(theirs), #ours " is not " #theirs)
SAME_VALUE(ACC_DL_CPU, kDLCPU);
SAME_VALUE(ACC_DL_CUDA, kDLCUDA);
SAME_VALUE(ACC_DL_CUDA_HOST, kDLCUDAHost);
SAME_VALUE(ACC_DL_CUDA_MANAGED, kDLCUDAManaged);
SAME_VALUE(ACC_DL_INT, kDLInt);
SAME_VALUE(ACC_DL_UINT, kDLUInt);
SAME_VALUE(ACC_DL_FLOAT, kDLFloat);
SAME_VALUE(ACC_DL_OPAQUE_HANDLE, kDLOpaqueHandle);
SAME_VALUE(ACC_DL_BFLOAT, kDLBfloat);
SAME_VALUE(ACC_DL_COMPLEX, kDLComplex);

Test(dlpack, the_legacy_structs_match_debians_dlpack_h)
{
    /* the static assertions above are the test; this records that they
     * were compiled against the header */
    cr_assert_eq(sizeof(acc_dl_managed_tensor), sizeof(DLManagedTensor));
}
#else
Test(dlpack, the_legacy_structs_match_debians_dlpack_h)
{
    cr_skip_test("dlpack/dlpack.h is not installed (Debian: libdlpack-dev, "
                 "which tools/bootstrap.sh installs)");
}
#endif

/* DLPack 1.x (dlpack.h 1.0 to 1.2): DLPackVersion {u32 major, minor}, then
 * manager_ctx, deleter, u64 flags, then the DLTensor, each at its natural
 * alignment; and kDLBool = 6. */
#if UINTPTR_MAX == UINT64_MAX
#define AT(f) offsetof(acc_dl_managed_tensor_versioned, f)
_Static_assert(AT(version) == 0 && AT(manager_ctx) == 8 && AT(deleter) == 16 &&
                   AT(flags) == 24 && AT(dl_tensor) == 32 &&
                   sizeof(acc_dl_managed_tensor_versioned) == 32 + 48 &&
                   sizeof(acc_dl_version) == 8 && sizeof(acc_dl_tensor) == 48,
               "DLManagedTensorVersioned layout (LP64)");
#undef AT
#endif
_Static_assert(ACC_DL_BOOL == 6 && ACC_DL_FLAG_READ_ONLY == 1 &&
                   ACC_DL_FLAG_IS_COPIED == 2 && ACC_DL_MAJOR_VERSION == 1,
               "DLPack 1.x constants");

/* ---- a producer of tensors ---------------------------------------------- */

/* One producer tensor: its storage, and how often its deleter ran. */
typedef struct producer {
    acc_dl_managed_tensor legacy;
    acc_dl_managed_tensor_versioned versioned;
    int64_t shape[ACC_MAX_RANK + 1], strides[ACC_MAX_RANK + 1];
    void *storage;
    int deleted;
} producer;

static void delete_legacy(acc_dl_managed_tensor *t)
{
    producer *p = t->manager_ctx;
    p->deleted++;
    free(p->storage);
    p->storage = NULL;
}

static void delete_versioned(acc_dl_managed_tensor_versioned *t)
{
    producer *p = t->manager_ctx;
    p->deleted++;
    free(p->storage);
    p->storage = NULL;
}

/* A compact f32 tensor of the given shape holding 0, 1, 2, ... */
static void produce(producer *p, int32_t ndim, const int64_t *shape)
{
    memset(p, 0, sizeof *p);
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; d++)
        n *= (p->shape[d] = shape[d]);
    p->storage = malloc((size_t)(n ? n : 1) * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        ((float *)p->storage)[i] = (float)i;
    acc_dl_tensor t = {p->storage, {ACC_DL_CPU, 0}, ndim,
                       {ACC_DL_FLOAT, 32, 1}, p->shape, NULL, 0};
    p->legacy.dl_tensor = t;
    p->legacy.manager_ctx = p;
    p->legacy.deleter = delete_legacy;
    p->versioned.version.major = 1;
    p->versioned.version.minor = 1;
    p->versioned.dl_tensor = t;
    p->versioned.manager_ctx = p;
    p->versioned.deleter = delete_versioned;
}

/* ---- programs ----------------------------------------------------------- */

static acc_context *ctx;

static void setup(void)
{
    ctx = ts_context(ACC_BACKEND_INTERP);
}

static void teardown(void)
{
    acc_context_destroy(ctx);
}

TestSuite(dlpack, .init = setup, .fini = teardown);

/* map (\x -> 2 * x + 1) on f32 matrices. */
static acc_program *affine_program(acc_context *c)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(c, "f (xs : Matrix f32) : Matrix f32 = "
                                     "map (\\x -> 2 * x + 1) xs",
                                  (size_t)-1, NULL, &p),
                 ACC_OK, "%s", acc_last_error());
    return p;
}

static acc_array empty_output(void)
{
    acc_array out;
    memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    return out;
}

/* ---- round trips -------------------------------------------------------- */

Test(dlpack, a_legacy_tensor_goes_in_and_out_without_a_copy)
{
    producer p;
    int64_t shape[2] = {3, 4};
    produce(&p, 2, shape);
    void *storage = p.storage;
    acc_array in;
    cr_assert_eq(acc_array_from_dlpack(&p.legacy, &in), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(in.data[0], storage, "no copy on the way in");
    cr_assert_eq(in.rank, 2);
    cr_assert(in.extents[0] == 3 && in.extents[1] == 4);
    cr_assert(acc_type_equal(in.type, acc_type_scalar(ACC_F32)));
    cr_assert_eq(in.memory, ACC_MEMORY_HOST);
    cr_assert_eq(in.ownership, ACC_OWNERSHIP_LIBRARY);

    acc_program *prog = affine_program(ctx);
    acc_array out = empty_output();
    cr_assert_eq(acc_run(prog, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    for (int i = 0; i < 12; i++)
        cr_assert_eq(((float *)out.data[0])[i], 2.0f * (float)i + 1.0f);

    /* the output, exported: its buffer moves into the tensor */
    void *result = out.data[0];
    acc_dl_managed_tensor *t = NULL;
    cr_assert_eq(acc_array_to_dlpack(&out, &t), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(t->dl_tensor.data, result, "no copy on the way out");
    cr_assert_eq(t->dl_tensor.byte_offset, 0);
    cr_assert_eq(t->dl_tensor.ndim, 2);
    cr_assert(t->dl_tensor.shape[0] == 3 && t->dl_tensor.shape[1] == 4);
    cr_assert(t->dl_tensor.strides[0] == 4 && t->dl_tensor.strides[1] == 1);
    cr_assert(t->dl_tensor.dtype.code == ACC_DL_FLOAT &&
              t->dl_tensor.dtype.bits == 32 && t->dl_tensor.dtype.lanes == 1);
    cr_assert(t->dl_tensor.device.device_type == ACC_DL_CPU &&
              t->dl_tensor.device.device_id == 0);
    cr_assert_null(out.data[0], "the descriptor gave its buffer away");
    acc_array_release(&out); /* does nothing now */
    t->deleter(t);           /* frees the result (ASan: no leak, no reuse) */

    /* the input, exported again: the same memory, and the producer's
     * deleter runs once, when the new tensor is deleted */
    cr_assert_eq(acc_array_to_dlpack(&in, &t), ACC_OK, "%s", acc_last_error());
    cr_assert_eq(t->dl_tensor.data, storage);
    acc_array_release(&in);
    cr_assert_eq(p.deleted, 0, "the tensor owns it now, not the descriptor");
    t->deleter(t);
    cr_assert_eq(p.deleted, 1);
    acc_program_free(prog);
}

Test(dlpack, a_versioned_tensor_goes_in_and_out_without_a_copy)
{
    producer p;
    int64_t shape[2] = {2, 3};
    produce(&p, 2, shape);
    p.versioned.flags = ACC_DL_FLAG_READ_ONLY;
    p.versioned.dl_tensor.byte_offset = sizeof(float); /* from element 1 */
    p.shape[1] = 2;
    p.shape[0] = 2;
    void *first = (char *)p.storage + sizeof(float);
    acc_array in;
    cr_assert_eq(acc_array_from_dlpack_versioned(&p.versioned, &in), ACC_OK,
                 "%s", acc_last_error());
    cr_assert_eq(in.data[0], first, "data + byte_offset, not a copy");

    acc_program *prog = affine_program(ctx);
    acc_array out = empty_output();
    cr_assert_eq(acc_run(prog, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    for (int i = 0; i < 4; i++)
        cr_assert_eq(((float *)out.data[0])[i], 2.0f * (float)(i + 1) + 1.0f);
    void *result = out.data[0];
    acc_dl_managed_tensor_versioned *t = NULL;
    cr_assert_eq(acc_array_to_dlpack_versioned(&out, &t), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(t->dl_tensor.data, result);
    cr_assert(t->version.major == ACC_DL_MAJOR_VERSION &&
              t->version.minor == ACC_DL_MINOR_VERSION);
    cr_assert_eq(t->flags, 0, "a result accel made is writable");
    t->deleter(t);

    /* re-exported, the import keeps its read-only flag and its deleter */
    cr_assert_eq(acc_array_to_dlpack_versioned(&in, &t), ACC_OK);
    cr_assert_eq(t->dl_tensor.data, first);
    cr_assert_eq(t->flags, ACC_DL_FLAG_READ_ONLY);
    cr_assert_eq(p.deleted, 0);
    t->deleter(t);
    cr_assert_eq(p.deleted, 1);
    acc_program_free(prog);
}

Test(dlpack, releasing_an_import_calls_the_deleter_once)
{
    producer p;
    int64_t shape[1] = {5};
    produce(&p, 1, shape);
    acc_array in;
    cr_assert_eq(acc_array_from_dlpack(&p.legacy, &in), ACC_OK);
    acc_array_release(&in);
    acc_array_release(&in);
    cr_assert_eq(p.deleted, 1);
    cr_assert_null(in.data[0]);
    produce(&p, 1, shape);
    cr_assert_eq(acc_array_from_dlpack_versioned(&p.versioned, &in), ACC_OK);
    acc_array_release(&in);
    cr_assert_eq(p.deleted, 1);
}

Test(dlpack, an_import_is_written_in_place_as_an_output)
{
    producer src, dst;
    int64_t shape[2] = {2, 2};
    produce(&src, 2, shape);
    produce(&dst, 2, shape);
    acc_array in, out;
    cr_assert_eq(acc_array_from_dlpack(&src.legacy, &in), ACC_OK);
    cr_assert_eq(acc_array_from_dlpack(&dst.legacy, &out), ACC_OK);
    acc_program *prog = affine_program(ctx);
    cr_assert_eq(acc_run(prog, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(out.data[0], dst.storage, "the output stayed in place");
    for (int i = 0; i < 4; i++)
        cr_assert_eq(((float *)dst.storage)[i], 2.0f * (float)i + 1.0f);
    cr_assert_eq(dst.deleted, 0, "acc_run does not release its outputs");
    acc_array_release(&in);
    acc_array_release(&out);
    cr_assert(src.deleted == 1 && dst.deleted == 1);
    acc_program_free(prog);
}

static void *call_deleter(void *t)
{
    acc_dl_managed_tensor *m = t;
    m->deleter(m);
    return NULL;
}

Test(dlpack, the_deleter_runs_on_any_thread_after_the_context_is_gone)
{
    acc_context *c = ts_context(ACC_BACKEND_INTERP);
    acc_program *prog = affine_program(c);
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t ext[2] = {2, 3};
    void *bufs[1] = {x};
    acc_array in = ts_host_array(acc_type_scalar(ACC_F32), 2, ext, bufs);
    acc_array out = empty_output();
    cr_assert_eq(acc_run(prog, 1, &in, 1, &out), ACC_OK);
    acc_dl_managed_tensor *t = NULL;
    cr_assert_eq(acc_array_to_dlpack(&out, &t), ACC_OK);
    acc_program_free(prog);
    acc_context_destroy(c);
    cr_assert_eq(((float *)t->dl_tensor.data)[5], 13.0f);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, call_deleter, t), 0);
    pthread_join(th, NULL); /* ASan: freed exactly once, nothing leaked */
}

Test(dlpack, borrowed_arrays_and_other_types_are_described)
{
    uint8_t flags[3] = {1, 0, 1};
    int64_t n = 3;
    void *bufs[1] = {flags};
    acc_array a = ts_host_array(acc_type_scalar(ACC_BOOL), 1, &n, bufs);
    acc_dl_managed_tensor *t = NULL;
    cr_assert_eq(acc_array_to_dlpack(&a, &t), ACC_OK);
    cr_assert_eq(a.data[0], flags, "a borrowed array stays the caller's");
    cr_assert(t->dl_tensor.dtype.code == ACC_DL_BOOL &&
              t->dl_tensor.dtype.bits == 8);
    acc_array back;
    cr_assert_eq(acc_array_from_dlpack(t, &back), ACC_OK);
    cr_assert(acc_type_equal(back.type, acc_type_scalar(ACC_BOOL)));
    cr_assert_eq(back.data[0], flags);
    acc_array_release(&back); /* the tensor's deleter; flags stay ours */
    cr_assert_eq(flags[2], 1);

    static const struct { acc_scalar s; uint8_t code, bits; } kinds[] = {
        {ACC_I8, ACC_DL_INT, 8},    {ACC_I16, ACC_DL_INT, 16},
        {ACC_I32, ACC_DL_INT, 32},  {ACC_I64, ACC_DL_INT, 64},
        {ACC_U8, ACC_DL_UINT, 8},   {ACC_U16, ACC_DL_UINT, 16},
        {ACC_U32, ACC_DL_UINT, 32}, {ACC_U64, ACC_DL_UINT, 64},
        {ACC_F32, ACC_DL_FLOAT, 32}, {ACC_F64, ACC_DL_FLOAT, 64},
    };
    uint64_t storage[4] = {0};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        bufs[0] = storage;
        a = ts_host_array(acc_type_scalar(kinds[k].s), 0, NULL, bufs);
        cr_assert_eq(acc_array_to_dlpack(&a, &t), ACC_OK);
        cr_assert(t->dl_tensor.dtype.code == kinds[k].code &&
                  t->dl_tensor.dtype.bits == kinds[k].bits, "%s",
                  acc_scalar_name(kinds[k].s));
        cr_assert_eq(t->dl_tensor.ndim, 0);
        cr_assert_eq(acc_array_from_dlpack(t, &back), ACC_OK);
        cr_assert(acc_type_equal(back.type, acc_type_scalar(kinds[k].s)));
        acc_array_release(&back);
    }
}

Test(dlpack, cuda_tensors_are_device_memory)
{
    producer p;
    int64_t shape[1] = {4};
    produce(&p, 1, shape);
    p.legacy.dl_tensor.device.device_type = ACC_DL_CUDA;
    p.legacy.dl_tensor.device.device_id = 3;
    acc_array in;
    cr_assert_eq(acc_array_from_dlpack(&p.legacy, &in), ACC_OK);
    cr_assert(in.memory == ACC_MEMORY_CUDA_DEVICE && in.device == 3);
    acc_dl_managed_tensor *t = NULL;
    cr_assert_eq(acc_array_to_dlpack(&in, &t), ACC_OK);
    cr_assert(t->dl_tensor.device.device_type == ACC_DL_CUDA &&
              t->dl_tensor.device.device_id == 3);
    t->deleter(t);
    cr_assert_eq(p.deleted, 1);
    /* pinned and managed host memory are host memory */
    produce(&p, 1, shape);
    p.legacy.dl_tensor.device.device_type = ACC_DL_CUDA_MANAGED;
    cr_assert_eq(acc_array_from_dlpack(&p.legacy, &in), ACC_OK);
    cr_assert_eq(in.memory, ACC_MEMORY_HOST);
    acc_array_release(&in);
}

/* ---- refusals ----------------------------------------------------------- */

/* The import fails with `status` and a message containing `want`; the
 * tensor is still the producer's. */
static void refused(producer *p, acc_status status, const char *want)
{
    acc_array out;
    out.data[0] = (void *)1;
    cr_assert_eq(acc_array_from_dlpack(&p->legacy, &out), status, "%s: %s",
                 want, acc_last_error());
    cr_assert(strstr(acc_last_error(), want), "%s\nlacks: %s",
              acc_last_error(), want);
    cr_assert(status != ACC_ERR_UNSUPPORTED ||
                  strstr(acc_last_error(), "acc_array_from_dlpack: accel "
                         "cannot take the tensor without a copy: "),
              "%s", acc_last_error());
    cr_assert_null(out.data[0], "*out is zeroed");
    cr_assert_eq(out.struct_size, sizeof out);
    cr_assert_eq(acc_array_from_dlpack_versioned(&p->versioned, &out), status);
    cr_assert(strstr(acc_last_error(), want), "%s", acc_last_error());
    cr_assert_eq(p->deleted, 0, "a refused tensor stays its owner's");
    p->legacy.deleter(&p->legacy);
}

/* Sets a field of both tensors of p. */
#define BOTH(p, field, value)                  \
    do {                                       \
        (p).legacy.dl_tensor.field = (value);  \
        (p).versioned.dl_tensor.field = (value); \
    } while (0)

Test(dlpack, tensors_that_need_a_copy_are_refused_saying_why)
{
    producer p;
    int64_t shape[2] = {4, 4};
    produce(&p, 2, shape);
    p.strides[0] = 8; /* every other row */
    p.strides[1] = 1;
    BOTH(p, strides, p.strides);
    refused(&p, ACC_ERR_UNSUPPORTED, "its strides are not compact row-major: "
            "dimension 0 has stride 8, a C-contiguous array has 4");
    produce(&p, 2, shape);
    p.strides[0] = 1; /* a transposed (Fortran-order) matrix */
    p.strides[1] = 4;
    BOTH(p, strides, p.strides);
    refused(&p, ACC_ERR_UNSUPPORTED, "dimension 1 has stride 4");
    produce(&p, 2, shape);
    BOTH(p, byte_offset, 2);
    refused(&p, ACC_ERR_UNSUPPORTED, "byte_offset 2) is not aligned to 4 "
            "bytes, the size of its elements");
    produce(&p, 2, shape);
    BOTH(p, dtype, ((acc_dl_data_type){ACC_DL_COMPLEX, 64, 1}));
    refused(&p, ACC_ERR_UNSUPPORTED, "its dtype is complex64; accel keeps "
            "complex numbers as a pair of real arrays");
    produce(&p, 2, shape);
    BOTH(p, dtype, ((acc_dl_data_type){ACC_DL_BFLOAT, 16, 1}));
    refused(&p, ACC_ERR_UNSUPPORTED, "bfloat16");
    produce(&p, 2, shape);
    BOTH(p, dtype, ((acc_dl_data_type){ACC_DL_FLOAT, 16, 1}));
    refused(&p, ACC_ERR_UNSUPPORTED, "float16");
    produce(&p, 2, shape);
    BOTH(p, dtype, ((acc_dl_data_type){ACC_DL_FLOAT, 32, 4}));
    refused(&p, ACC_ERR_UNSUPPORTED, "4 lanes");
    produce(&p, 2, shape);
    BOTH(p, dtype, ((acc_dl_data_type){ACC_DL_OPAQUE_HANDLE, 64, 1}));
    refused(&p, ACC_ERR_UNSUPPORTED, "code 3, 64 bits");
    produce(&p, 2, shape);
    BOTH(p, device, ((acc_dl_device){4, 0})); /* OpenCL */
    refused(&p, ACC_ERR_UNSUPPORTED, "a device of type 4");
    int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2};
    produce(&p, 9, nine);
    refused(&p, ACC_ERR_UNSUPPORTED, "it has 9 dimensions; accel arrays have "
            "at most 8");
}

Test(dlpack, harmless_strides_are_accepted)
{
    producer p;
    int64_t shape[3] = {1, 5, 1};
    produce(&p, 3, shape);
    p.strides[0] = 99; /* extents of 1: any stride */
    p.strides[1] = 1;
    p.strides[2] = -7;
    p.legacy.dl_tensor.strides = p.strides;
    acc_array in;
    cr_assert_eq(acc_array_from_dlpack(&p.legacy, &in), ACC_OK, "%s",
                 acc_last_error());
    acc_array_release(&in);
    int64_t empty[2] = {0, 3};
    produce(&p, 2, empty);
    p.strides[0] = 1;
    p.strides[1] = 1000; /* no element: nothing to read wrongly */
    p.legacy.dl_tensor.strides = p.strides;
    p.legacy.dl_tensor.data = NULL;
    cr_assert_eq(acc_array_from_dlpack(&p.legacy, &in), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_null(in.data[0]);
    acc_array_release(&in);
    cr_assert_eq(p.deleted, 1);
}

Test(dlpack, malformed_tensors_and_arguments_are_refused)
{
    producer p;
    int64_t shape[1] = {3};
    acc_array out;
    produce(&p, 1, shape);
    BOTH(p, shape, NULL);
    refused(&p, ACC_ERR_INVALID_ARGUMENT, "the tensor is malformed: its ndim "
            "is 1 but its shape is NULL");
    produce(&p, 1, shape);
    p.shape[0] = -3;
    refused(&p, ACC_ERR_INVALID_ARGUMENT, "its shape[0] is -3");
    produce(&p, 1, shape);
    BOTH(p, data, NULL);
    refused(&p, ACC_ERR_INVALID_ARGUMENT, "its data is NULL but it has 3 "
            "elements");
    produce(&p, 1, shape);
    BOTH(p, ndim, -1);
    refused(&p, ACC_ERR_INVALID_ARGUMENT, "its ndim is -1");

    produce(&p, 1, shape);
    p.versioned.version.major = 2;
    cr_assert_eq(acc_array_from_dlpack_versioned(&p.versioned, &out),
                 ACC_ERR_ABI_MISMATCH);
    cr_assert(strstr(acc_last_error(), "the tensor is of DLPack 2.1; accel "
                     "reads DLPack 1.x tensors"), "%s", acc_last_error());
    cr_assert_eq(p.deleted, 0);
    p.versioned.deleter(&p.versioned);

    cr_assert_eq(acc_array_from_dlpack(NULL, &out), ACC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(acc_last_error(), "tensor is NULL"));
    cr_assert_eq(acc_array_from_dlpack(&p.legacy, NULL),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_array_from_dlpack_versioned(NULL, &out),
                 ACC_ERR_INVALID_ARGUMENT);
    acc_dl_managed_tensor *t = (void *)1;
    cr_assert_eq(acc_array_to_dlpack(NULL, &t), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(t);
    acc_dl_managed_tensor_versioned *v = (void *)1;
    cr_assert_eq(acc_array_to_dlpack_versioned(&out, NULL),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_array_to_dlpack_versioned(NULL, &v),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(v);
}

Test(dlpack, arrays_that_are_not_one_buffer_are_not_exported)
{
    const acc_type *f[2] = {acc_type_scalar(ACC_F32), acc_type_scalar(ACC_I32)};
    float a[2] = {0};
    int32_t b[2] = {0};
    int64_t n = 2;
    void *bufs[2] = {a, b};
    acc_array pair = ts_host_array(acc_type_tuple(ctx, 2, f), 1, &n, bufs);
    acc_dl_managed_tensor *t = (void *)1;
    cr_assert_eq(acc_array_to_dlpack(&pair, &t), ACC_ERR_UNSUPPORTED);
    cr_assert(strstr(acc_last_error(), "a tuple of 2 scalars, stored as 2 "
                     "buffers; a DLPack tensor describes one buffer"), "%s",
              acc_last_error());
    cr_assert_null(t);
    cr_assert_eq(pair.data[0], a, "unchanged");
    acc_array none = empty_output();
    cr_assert_eq(acc_array_to_dlpack(&none, &t), ACC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(acc_last_error(), "has no element type"));
    acc_array holes = ts_host_array(acc_type_scalar(ACC_F32), 1, &n, NULL);
    cr_assert_eq(acc_array_to_dlpack(&holes, &t), ACC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(acc_last_error(), "has elements but data[0] is NULL"));
}
