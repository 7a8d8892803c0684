/*
 * accel.h — the one public header of accel.
 *
 * accel compiles data-parallel array programs (map, zipWith, fold, ...) once
 * into an opaque program and runs that program many times on caller-provided
 * arrays.  Everything a user can call is declared and documented here; every
 * other header of the project is internal.
 *
 * Conventions that hold for every function below:
 *  - Functions that can fail return an acc_status.  ACC_OK is 0; the other
 *    codes have fixed numbers that never change (see acc_status).
 *  - Out-pointers are set to NULL (or zero) on failure.
 *  - Free/destroy functions accept NULL and do nothing.
 *  - A failing call records a message on the handle it was given (see the
 *    *_last_error functions) and on the calling thread (acc_last_error).
 *    Bad input never aborts the process and never invalidates the handle.
 *  - A freed handle passed back in is detected (ACC_ERR_INVALID_HANDLE) as
 *    long as its memory has not been handed out again to a new handle.
 *  - Structs that cross the ABI begin with `struct_size`; callers set it to
 *    sizeof the struct they compiled against, so the struct can grow.  The
 *    library reads and writes only the fields within a caller's
 *    struct_size (the *_init macros pass sizeof to the *_init_sized
 *    functions for this).
 */
#ifndef ACCEL_H
#define ACCEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ACC_BUILDING_LIBRARY) && defined(__GNUC__)
#define ACC_API __attribute__((visibility("default")))
#else
#define ACC_API
#endif

/* ------------------------------------------------------------------------
 * Versions
 * ------------------------------------------------------------------------ */

/* The ABI version this header describes.  It changes only when an existing
 * declaration changes incompatibly; appending functions, enum values or
 * struct fields does not change it. */
#define ACC_ABI_VERSION 1u

/* The ABI version of the library that is actually loaded.  Compare with
 * ACC_ABI_VERSION to detect a header/library mismatch. */
ACC_API uint32_t acc_abi_version(void);

/* The library version as a static string, "MAJOR.MINOR.PATCH". */
ACC_API const char *acc_version_string(void);

/* ------------------------------------------------------------------------
 * Status codes.  Numbers are grouped by category and never renumbered.
 * ------------------------------------------------------------------------ */
typedef enum acc_status {
    ACC_OK = 0,

    /* 1xx: the call itself is wrong */
    ACC_ERR_INVALID_ARGUMENT = 100, /* NULL pointer, bad enum, bad count   */
    ACC_ERR_INVALID_HANDLE = 101,   /* freed, foreign or never-created handle */

    /* 2xx: the program or the data does not fit */
    ACC_ERR_TYPE = 200,  /* element types or sorts disagree              */
    ACC_ERR_SHAPE = 201, /* ranks or extents disagree                    */

    /* 3xx: resources */
    ACC_ERR_OUT_OF_HOST_MEMORY = 300,
    ACC_ERR_OUT_OF_DEVICE_MEMORY = 301,

    /* 4xx: availability */
    ACC_ERR_UNSUPPORTED = 400, /* valid request this build/backend cannot do */
    ACC_ERR_NOT_FOUND = 401,   /* named thing (entry, plugin, symbol) absent */

    /* 5xx: toolchains, devices, plugins */
    ACC_ERR_COMPILE = 500,      /* code generation or kernel compilation     */
    ACC_ERR_DEVICE = 501,       /* the device or its driver reported an error */
    ACC_ERR_PLUGIN = 502,       /* a plugin failed to load or to run          */
    ACC_ERR_ABI_MISMATCH = 503, /* a plugin or artifact built for another ABI */

    /* 6xx: text */
    ACC_ERR_PARSE = 600,

    /* 7xx: a program failed while running */
    ACC_ERR_RUNTIME = 700, /* out-of-bounds read, fold1 of an empty row, ... */
    ACC_ERR_CANCELLED = 701, /* stopped by acc_exec_cancel                */
    ACC_ERR_TIMEOUT = 702,   /* stopped: the run's deadline passed        */

    /* 9xx: a bug in accel; please report it */
    ACC_ERR_INTERNAL = 900
} acc_status;

/* A short static name for a status ("ACC_ERR_SHAPE"); "unknown status" for
 * numbers that are not listed above. */
ACC_API const char *acc_status_string(acc_status status);

/* The message of the last failing call made by the calling thread, whatever
 * handle it was made on; "" when there was none.  Valid until the thread's
 * next failing call.  Safe to use when several threads share handles. */
ACC_API const char *acc_last_error(void);

/* ------------------------------------------------------------------------
 * Backends and contexts
 * ------------------------------------------------------------------------ */
typedef enum acc_backend {
    ACC_BACKEND_AUTO = 0,   /* the best available: cuda, then cpu, then interp */
    ACC_BACKEND_INTERP = 1, /* the reference interpreter; always available     */
    ACC_BACKEND_CPU = 2,    /* C compiled by the system compiler               */
    ACC_BACKEND_CUDA = 3    /* CUDA C compiled with NVRTC                       */
} acc_backend;

/* A static lower-case name ("interp", "cpu", "cuda", "auto"), or "unknown". */
ACC_API const char *acc_backend_name(acc_backend backend);

typedef struct acc_context acc_context;

typedef struct acc_context_options {
    size_t struct_size;    /* sizeof(acc_context_options)                    */
    acc_backend backend;   /* which backend to use; AUTO picks the best      */
    int32_t num_threads;   /* worker threads for the cpu backend; 0 = cores  */
    const char *cache_dir; /* kernel cache folder; NULL = $XDG_CACHE_HOME/accel */
    /* Fusion may compute a producer in each of its consumers, instead of
     * storing it once, when its function has at most this many operations
     * per element.  0 (the default) never duplicates work.  The plan counts
     * the producers duplicated. */
    int32_t fusion_duplicate_max_ops;
    /* Folders searched first by acc_plugin_load (before $ACC_PLUGIN_PATH),
     * separated by ':'; NULL for none.  Copied. */
    const char *plugin_path;
    /* The CUDA device (ordinal, 0 = the first) the cuda backend runs on;
     * device-memory arrays given to its programs must be on it. */
    int32_t cuda_device;
    /* The deadline of every run of the context's programs, in seconds from
     * the start of the run (acc_run, and acc_run_exec on a handle whose
     * own deadline_seconds is 0); 0 = none.  A run still working at a
     * check point past it stops with ACC_ERR_TIMEOUT (see "Execution
     * handles").  Negative or NaN: ACC_ERR_INVALID_ARGUMENT. */
    double run_deadline_seconds;
    /* The plugins the context loads by itself, the first time a foreign
     * node is compiled (see acc_plugin_status): NULL takes $ACC_PLUGINS
     * (read when the context is created), and when that is unset or empty
     * the default, the built-in plugins that serve the context's backend
     * (cblas, fftw and mpi on interp and cpu, cublas and cufft on cuda) that
     * are found; "none" loads nothing; otherwise a ','-separated list of
     * plugin names or paths (as acc_plugin_load takes), where "builtin"
     * stands for the default set.  A plugin that fails to load is
     * reported by acc_plugin_status and in the plans, never an error.
     * Copied. */
    const char *plugins;
    /* The MPI communicator the mpi plugin's collectives use
     * (docs/DISTRIBUTED.md): a pointer to the caller's MPI_Comm, passed
     * opaquely (accel does not link MPI).  The plugin copies the handle
     * when the context loads it; the caller keeps the communicator valid
     * while the context lives and frees it afterwards, and must have
     * initialised MPI (MPI_THREAD_SERIALIZED or more).  NULL (the
     * default): a duplicate of MPI_COMM_WORLD, made by the plugin and
     * freed with the context. */
    const void *mpi_comm;
    /* 1: acc_compile fails (ACC_ERR_UNSUPPORTED, naming the step and why)
     * when the backend cannot compile a step of the program, instead of
     * scheduling that step on the reference interpreter (which the plan
     * shows, with the reason).  0 (the default): such steps are
     * interpreted.  Other values: ACC_ERR_INVALID_ARGUMENT. */
    int32_t strict;
    /* 1: the cpu backend compiles its kernels with floating-point
     * contraction (-ffp-contract=fast): `a * b + c` may become one fused
     * multiply-add, rounded once, which is faster where the machine has
     * FMA but rounds differently from the interpreter (and from a context
     * without it).  0 (the default): every operation rounds as the
     * interpreter's.  The other backends ignore it.  Other values:
     * ACC_ERR_INVALID_ARGUMENT. */
    int32_t fp_contract;
} acc_context_options;

/* Fills the first `size` bytes of *options, a struct of `size` bytes (pass
 * sizeof *options), with the defaults (AUTO, 0 threads, NULL cache dir,
 * CUDA device 0, no run deadline, NULL plugins, NULL mpi_comm, not strict,
 * no fp contraction;
 * every default is zero) and sets struct_size to `size`.  Nothing past
 * `size` bytes is written, so a caller compiled against an older, smaller
 * acc_context_options is safe; bytes of a newer, larger struct that this
 * library does not know are zeroed.  ACC_ERR_INVALID_ARGUMENT (nothing
 * written) for NULL or a size smaller than the first published struct
 * (struct_size, backend, num_threads, cache_dir). */
ACC_API acc_status acc_context_options_init_sized(acc_context_options *options,
                                                  size_t size);

/* acc_context_options_init(&o) is acc_context_options_init_sized(&o,
 * sizeof o), through the macro below.  The function of this name remains
 * for binaries built before the macro existed: it cannot know the size of
 * its caller's struct, so it initialises only the first published fields
 * (struct_size, backend, num_threads, cache_dir) and sets struct_size to
 * their size; fields set after it are then ignored by acc_context_create
 * (rebuild against this header to have them read).  docs/ABI.md, section
 * "Versioning". */
ACC_API void acc_context_options_init(acc_context_options *options);
#define acc_context_options_init(options)                                    \
    ((void)acc_context_options_init_sized((options),                         \
                                          sizeof(acc_context_options)))

/* Creates a context.  `options` may be NULL for the defaults.  Asking for a
 * backend that is not available fails with ACC_ERR_UNSUPPORTED and a message
 * saying why it is not available (for cuda: the driver, the device, NVRTC
 * or an architecture NVRTC compiles for is missing; ACC_ERR_DEVICE when
 * the device is there but its context cannot be opened); AUTO always
 * succeeds: cuda when a driver, the device and NVRTC are present, else
 * cpu when a C compiler works, else interp.  On failure *out is NULL and
 * acc_last_error() explains. */
ACC_API acc_status acc_context_create(const acc_context_options *options,
                                      acc_context **out);

/* Destroys a context.  Graphs and programs created from it must be freed
 * first; types created from it become invalid.  NULL-safe. */
ACC_API void acc_context_destroy(acc_context *ctx);

/* The message of the last failing call on this context ("" when none).
 * Owned by the context; valid until its next failing call. */
ACC_API const char *acc_context_last_error(const acc_context *ctx);

/* The backend the context runs programs on (never AUTO). */
ACC_API acc_status acc_context_backend(const acc_context *ctx,
                                       acc_backend *out);

/* Whether `backend` is available to this context, and a static-lifetime
 * (context-owned) sentence saying why or why not.  `reason` may be NULL. */
ACC_API acc_status acc_context_backend_available(const acc_context *ctx,
                                                 acc_backend backend,
                                                 int *available,
                                                 const char **reason);

/* The kernel cache of the context: *dir the folder new kernels are
 * written to, *note "" or a sentence saying why the folder asked for
 * (options.cache_dir, else $XDG_CACHE_HOME/accel, else ~/.cache/accel)
 * is not written to: refused (not owned by this user, writable by group
 * or others, a symbolic link, or below a folder others could change) or
 * unwritable (read-only, full); kernels are then compiled in a private
 * temporary folder, removed with the context.  The folder is opened (and
 * created, mode 0700) now if the context has not compiled yet.  An
 * interpreter context compiles nothing: it answers for a compiling
 * context with the same options (a temporary folder made for the answer
 * is removed at once).  Both strings are allocated by accel; release
 * them with acc_free.  On failure both are NULL. */
ACC_API acc_status acc_context_kernel_cache(const acc_context *ctx,
                                            char **dir, char **note);

/* ------------------------------------------------------------------------
 * Types
 *
 * A type is an immutable value identified by a pointer.  Scalar types and
 * shape types are static; tuple and array types are created in a context and
 * live as long as it.  Two types are equal when acc_type_equal says so
 * (structurally), whatever their pointers.
 * ------------------------------------------------------------------------ */
typedef enum acc_scalar {
    ACC_BOOL = 1,
    ACC_I8 = 2,
    ACC_I16 = 3,
    ACC_I32 = 4,
    ACC_I64 = 5,
    ACC_U8 = 6,
    ACC_U16 = 7,
    ACC_U32 = 8,
    ACC_U64 = 9,
    ACC_F32 = 10,
    ACC_F64 = 11
} acc_scalar;

/* The largest rank of an array (and of a shape). */
#define ACC_MAX_RANK 8
/* The largest number of scalar leaves of an element type; one buffer each. */
#define ACC_MAX_COMPONENTS 16

typedef enum acc_type_kind {
    ACC_TYPE_SCALAR = 1, /* one of acc_scalar                                */
    ACC_TYPE_TUPLE = 2,  /* (t0, t1, ...): of scalars/tuples, or of arrays   */
    ACC_TYPE_SHAPE = 3,  /* an index or shape [i0, ..., i(r-1)] of int64     */
    ACC_TYPE_ARRAY = 4   /* Array rank elem                                   */
} acc_type_kind;

typedef struct acc_type acc_type;

/* Static scalar types.  NULL for a value that is not an acc_scalar. */
ACC_API const acc_type *acc_type_scalar(acc_scalar scalar);

/* Static shape/index types of rank 0..ACC_MAX_RANK; NULL otherwise. */
ACC_API const acc_type *acc_type_shape(int32_t rank);

/* A tuple type of `n` fields (n may be 0: the unit type).  The fields are
 * either all value types (scalars, tuples of them, shapes) or all array
 * types / tuples of arrays.  NULL on error (see acc_context_last_error). */
ACC_API const acc_type *acc_type_tuple(acc_context *ctx, size_t n,
                                       const acc_type *const *fields);

/* The type of arrays of `rank` dimensions with element type `elem` (a
 * scalar or a tuple of scalars).  NULL on error. */
ACC_API const acc_type *acc_type_array(acc_context *ctx, const acc_type *elem,
                                       int32_t rank);

/* Inspection.  Each returns 0/NULL when asked something that does not apply
 * to the type's kind. */
ACC_API acc_type_kind acc_type_get_kind(const acc_type *type);
ACC_API acc_scalar acc_type_get_scalar(const acc_type *type);
ACC_API int32_t acc_type_get_rank(const acc_type *type); /* shape, array */
ACC_API const acc_type *acc_type_get_elem(const acc_type *type); /* array */
ACC_API size_t acc_type_get_arity(const acc_type *type);        /* tuple */
ACC_API const acc_type *acc_type_get_field(const acc_type *type, size_t i);
/* Number of scalar leaves of a value type (a tuple of n scalars has n, a
 * shape of rank r has r); this is the number of buffers of an array. */
ACC_API size_t acc_type_leaf_count(const acc_type *type);
/* The scalar type of leaf i, counting leaves depth-first left to right. */
ACC_API acc_scalar acc_type_leaf(const acc_type *type, size_t i);
ACC_API int acc_type_equal(const acc_type *a, const acc_type *b);
/* Size in bytes of one element of a scalar type (bool is 1 byte); 0 for
 * values that are not an acc_scalar. */
ACC_API size_t acc_scalar_size(acc_scalar scalar);
/* A static name ("f32"), or "unknown". */
ACC_API const char *acc_scalar_name(acc_scalar scalar);

/* ------------------------------------------------------------------------
 * Array descriptors
 *
 * An array of element type `type` (a scalar or tuple type) and rank `rank`
 * is stored as one row-major buffer per scalar leaf of the element type
 * (a "struct of arrays"): data[i] holds leaf i of every element, in the
 * order of acc_type_leaf.  Extents are written outermost first; the last
 * extent is the innermost, fastest varying.  A bool element is one byte
 * holding 0 or 1.
 * ------------------------------------------------------------------------ */
typedef enum acc_memory {
    ACC_MEMORY_HOST = 0,       /* ordinary host memory                      */
    ACC_MEMORY_CUDA_DEVICE = 1 /* device memory of CUDA device `device`     */
} acc_memory;

/* Device memory is accepted by programs of the cuda backend only (other
 * backends fail with ACC_ERR_UNSUPPORTED): an input whose memory is
 * ACC_MEMORY_CUDA_DEVICE is read where it is, with no copy; an output
 * descriptor with memory ACC_MEMORY_CUDA_DEVICE and buffers is written
 * there (directly by the kernel that computes it when it can); one with
 * memory ACC_MEMORY_CUDA_DEVICE and data[0] NULL receives library-owned
 * device buffers, released with acc_array_release.  `device` must be the
 * context's cuda_device. */

typedef enum acc_ownership {
    ACC_OWNERSHIP_BORROWED = 0, /* the caller owns the buffers               */
    ACC_OWNERSHIP_LIBRARY = 1   /* accel allocated them; release with
                                   acc_array_release                         */
} acc_ownership;

typedef struct acc_array {
    size_t struct_size;        /* sizeof(acc_array)                           */
    const acc_type *type;      /* element type: scalar or tuple of scalars   */
    int32_t rank;              /* 0 .. ACC_MAX_RANK                           */
    int64_t extents[ACC_MAX_RANK]; /* the first `rank` entries are used      */
    void *data[ACC_MAX_COMPONENTS]; /* one buffer per leaf of `type`          */
    acc_memory memory;         /* where the buffers live                     */
    int32_t device;            /* device ordinal for device memory           */
    acc_ownership ownership;   /* who frees the buffers                      */
    /* Set by accel on library-owned arrays; callers leave these NULL.       */
    void (*release)(struct acc_array *self);
    void *release_state;
} acc_array;

/* Initialises a borrowed host descriptor of `size` bytes (pass sizeof
 * *array) of element type `type` and the given rank and extents; the data
 * pointers are set to NULL for the caller to fill, struct_size to `size`.
 * Nothing past `size` bytes is written.  Returns ACC_ERR_INVALID_ARGUMENT
 * (nothing written) for a NULL array, a size smaller than the first
 * published acc_array (which is the whole struct: it has never grown), a
 * rank out of range, or a negative extent. */
ACC_API acc_status acc_array_init_sized(acc_array *array, size_t size,
                                        const acc_type *type, int32_t rank,
                                        const int64_t *extents);

/* acc_array_init(a, type, rank, extents) is acc_array_init_sized(a,
 * sizeof *a, ...), through the macro below; the function of this name
 * remains for binaries built before the macro and initialises the first
 * published acc_array (today's whole struct). */
ACC_API acc_status acc_array_init(acc_array *array, const acc_type *type,
                                  int32_t rank, const int64_t *extents);
#define acc_array_init(array, type, rank, extents) \
    acc_array_init_sized((array), sizeof(acc_array), (type), (rank), (extents))

/* Number of elements: the product of the extents (1 for rank 0); -1 when
 * an extent is negative or the product overflows int64. */
ACC_API int64_t acc_array_size(const acc_array *array);

/* Releases the buffers of a library-owned array and resets its data
 * pointers to NULL.  Does nothing for borrowed arrays or NULL. */
ACC_API void acc_array_release(acc_array *array);

/* ------------------------------------------------------------------------
 * DLPack: arrays exchanged with numpy, PyTorch, JAX, CuPy, DLPack.jl,
 * dlpark and every other DLPack library without a copy (docs/ABI.md,
 * "DLPack").
 *
 * The structs are DLPack's own (dlpack.h: DLDevice, DLDataType, DLTensor,
 * the legacy DLManagedTensor of DLPack 0.x and the DLManagedTensorVersioned
 * of DLPack 1.x), declared here under accel's names with exactly their
 * layout, so a pointer to one is a pointer to the other.  An array with
 * one buffer (a scalar element type) is one tensor: its element type is
 * the tensor's dtype, its rank ndim, its extents shape.
 * ------------------------------------------------------------------------ */

/* DLDeviceType values accel knows (DLPack's numbers). */
typedef enum acc_dl_device_type {
    ACC_DL_CPU = 1,           /* host memory                               */
    ACC_DL_CUDA = 2,          /* CUDA device memory                        */
    ACC_DL_CUDA_HOST = 3,     /* pinned host memory (cudaMallocHost)       */
    ACC_DL_CUDA_MANAGED = 13  /* CUDA managed memory (cudaMallocManaged)   */
} acc_dl_device_type;

/* DLDataTypeCode values (DLPack's numbers). */
typedef enum acc_dl_type_code {
    ACC_DL_INT = 0,
    ACC_DL_UINT = 1,
    ACC_DL_FLOAT = 2,
    ACC_DL_OPAQUE_HANDLE = 3,
    ACC_DL_BFLOAT = 4,
    ACC_DL_COMPLEX = 5,
    ACC_DL_BOOL = 6
} acc_dl_type_code;

typedef struct acc_dl_device {   /* DLDevice */
    int32_t device_type;         /* an acc_dl_device_type (DLDeviceType) */
    int32_t device_id;
} acc_dl_device;

typedef struct acc_dl_data_type { /* DLDataType */
    uint8_t code;                 /* an acc_dl_type_code                 */
    uint8_t bits;
    uint16_t lanes;
} acc_dl_data_type;

typedef struct acc_dl_tensor {   /* DLTensor */
    void *data;
    acc_dl_device device;
    int32_t ndim;
    acc_dl_data_type dtype;
    int64_t *shape;               /* ndim extents                        */
    int64_t *strides;             /* ndim strides in elements, or NULL:
                                     compact row-major                   */
    uint64_t byte_offset;         /* the first element is at data + this */
} acc_dl_tensor;

typedef struct acc_dl_managed_tensor { /* DLManagedTensor (legacy, 0.x) */
    acc_dl_tensor dl_tensor;
    void *manager_ctx;
    /* Releases the tensor; called once by its consumer; may be NULL. */
    void (*deleter)(struct acc_dl_managed_tensor *self);
} acc_dl_managed_tensor;

typedef struct acc_dl_version {  /* DLPackVersion */
    uint32_t major;
    uint32_t minor;
} acc_dl_version;

/* The DLPack major version whose layout accel reads and writes, and the
 * version accel's exported tensors state. */
#define ACC_DL_MAJOR_VERSION 1u
#define ACC_DL_MINOR_VERSION 0u
/* Flags of a versioned tensor (DLPACK_FLAG_BITMASK_READ_ONLY, _IS_COPIED). */
#define ACC_DL_FLAG_READ_ONLY ((uint64_t)1)
#define ACC_DL_FLAG_IS_COPIED ((uint64_t)2)

typedef struct acc_dl_managed_tensor_versioned { /* DLManagedTensorVersioned */
    acc_dl_version version;
    void *manager_ctx;
    void (*deleter)(struct acc_dl_managed_tensor_versioned *self);
    uint64_t flags;
    acc_dl_tensor dl_tensor;
} acc_dl_managed_tensor_versioned;

/* Describes a DLPack tensor as an array, without copying it: on success
 * *out has the tensor's element type (a scalar), rank (ndim) and extents
 * (shape), data[0] = data + byte_offset, memory ACC_MEMORY_HOST for
 * ACC_DL_CPU, ACC_DL_CUDA_HOST and ACC_DL_CUDA_MANAGED tensors and
 * ACC_MEMORY_CUDA_DEVICE (device = device_id) for ACC_DL_CUDA ones, and
 * ownership ACC_OWNERSHIP_LIBRARY: accel owns the tensor from then on,
 * and acc_array_release(out) calls its deleter, exactly once (from any
 * thread; no context is involved).  Give the descriptor to acc_run as an
 * input, or as an output to be written (not when the tensor of a
 * versioned import has ACC_DL_FLAG_READ_ONLY: accel does not keep the
 * flag, its caller must honour it).
 *
 * A tensor accel cannot take as it is fails with ACC_ERR_UNSUPPORTED and
 * a message saying which and why, so that the caller can decide to copy:
 * strides that are not compact row-major (dimensions of extent 1, and
 * empty arrays, may have any stride), data + byte_offset not aligned to
 * the element size, element types accel lacks (float16, bfloat16,
 * complex, vector lanes, other codes or widths), more than ACC_MAX_RANK
 * dimensions, devices other than the CPU and CUDA ones above.  A tensor
 * that is malformed (NULL shape, a negative extent, NULL data with
 * elements) fails with ACC_ERR_INVALID_ARGUMENT, NULL arguments too.  On
 * failure *out is zeroed (struct_size set) and the tensor is still the
 * caller's: the deleter was not called. */
ACC_API acc_status acc_array_from_dlpack(acc_dl_managed_tensor *tensor,
                                         acc_array *out);
/* The same for a DLPack 1.x tensor.  A major version other than
 * ACC_DL_MAJOR_VERSION fails with ACC_ERR_ABI_MISMATCH naming it (DLPack
 * says its deleter may still be called; that is the caller's to do). */
ACC_API acc_status acc_array_from_dlpack_versioned(
    acc_dl_managed_tensor_versioned *tensor, acc_array *out);

/* Describes an array as a DLPack tensor, without copying it: data is
 * array->data[0] (byte_offset 0), shape its extents, strides the compact
 * row-major ones (never NULL), the device ACC_DL_CPU (host memory) or
 * ACC_DL_CUDA with the array's device.  *out is allocated by accel; its
 * deleter frees it, may be called from any thread, also after the
 * context is gone, and must be called exactly once (by the consumer).
 *  - A library-owned array (an output acc_run allocated, or an imported
 *    DLPack tensor) moves into the tensor: the deleter releases it, and
 *    *array is reset to an empty borrowed descriptor (acc_array_release
 *    on it does nothing).  Re-exporting an imported tensor gives the
 *    same data pointer, and the deleter then calls the original deleter.
 *  - A borrowed array stays the caller's: the tensor refers to its
 *    buffer, which must outlive the tensor.
 * Only arrays of one buffer (a scalar element type) can be exported; a
 * tuple array fails with ACC_ERR_UNSUPPORTED (export its components'
 * arrays from a program that returns them apart).  NULL arguments, or a
 * descriptor without a type, with a bad rank or extent, or without a
 * buffer (unless empty), fail with ACC_ERR_INVALID_ARGUMENT; out of
 * memory with ACC_ERR_OUT_OF_HOST_MEMORY.  On failure *out is NULL and
 * *array unchanged. */
ACC_API acc_status acc_array_to_dlpack(acc_array *array,
                                       acc_dl_managed_tensor **out);
/* The same as a DLPack 1.x tensor: version ACC_DL_MAJOR_VERSION.
 * ACC_DL_MINOR_VERSION; flags 0, or ACC_DL_FLAG_READ_ONLY when the array
 * is an imported versioned tensor that had it. */
ACC_API acc_status acc_array_to_dlpack_versioned(
    acc_array *array, acc_dl_managed_tensor_versioned **out);

/* ------------------------------------------------------------------------
 * Graphs and the builder
 *
 * A graph owns the nodes built in it.  A node is an array term (its type is
 * an array type or a tuple of arrays) or a scalar term (a value type).
 * Using one node twice means one value used twice: sharing is by identity.
 *
 * Builder calls are sticky: after the first error every builder call on the
 * graph returns NULL, and acc_compile reports that first error, naming the
 * operation that failed.  A builder call given a NULL node argument fails
 * the same way.  Nodes are valid until the graph is freed.
 * ------------------------------------------------------------------------ */
typedef struct acc_graph acc_graph;
typedef struct acc_node acc_node;

ACC_API acc_status acc_graph_create(acc_context *ctx, acc_graph **out);
ACC_API void acc_graph_free(acc_graph *graph);
/* The first error of the graph's builder calls (""/ACC_OK when none). */
ACC_API const char *acc_graph_last_error(const acc_graph *graph);
ACC_API acc_status acc_graph_status(const acc_graph *graph);
/* The type of a node, or NULL for NULL. */
ACC_API const acc_type *acc_node_type(const acc_node *node);

/* --- program inputs and constants --------------------------------------- */

/* A program input: an array of element type `elem` and rank `rank`.  Inputs
 * are numbered in the order they are created (0, 1, ...), and that is the
 * order acc_run expects them in.  A scalar parameter is a rank-0 input read
 * with acc_the. */
ACC_API acc_node *acc_input(acc_graph *g, const acc_type *elem, int32_t rank);

/* Scalar constants.  The value is converted to `scalar` as by acc_convert
 * (integers wrap; floats to integers truncate toward zero). */
ACC_API acc_node *acc_const_i64(acc_graph *g, acc_scalar scalar, int64_t v);
ACC_API acc_node *acc_const_u64(acc_graph *g, acc_scalar scalar, uint64_t v);
ACC_API acc_node *acc_const_f64(acc_graph *g, acc_scalar scalar, double v);
ACC_API acc_node *acc_const_bool(acc_graph *g, int v);

/* --- scalar language ------------------------------------------------------ */

/* Fixed numbers; never renumbered. */
typedef enum acc_primop {
    /* arithmetic (any numeric type; result = argument type) */
    ACC_OP_ADD = 1,
    ACC_OP_SUB = 2,
    ACC_OP_MUL = 3,
    ACC_OP_NEG = 4,    /* unary */
    ACC_OP_ABS = 5,    /* unary */
    ACC_OP_SIGNUM = 6, /* unary */
    ACC_OP_MIN = 7,    /* min a b = if a <= b then a else b */
    ACC_OP_MAX = 8,    /* max a b = if a <= b then b else a */
    /* floating division, integral division (any integer type) */
    ACC_OP_FDIV = 10, /* floats only */
    ACC_OP_QUOT = 11, /* truncates toward zero                   */
    ACC_OP_REM = 12,  /* sign of the dividend                    */
    ACC_OP_DIV = 13,  /* floors                                  */
    ACC_OP_MOD = 14,  /* sign of the divisor                     */
    /* bitwise (integers) */
    ACC_OP_BAND = 20,
    ACC_OP_BOR = 21,
    ACC_OP_BXOR = 22,
    ACC_OP_COMPLEMENT = 23, /* unary */
    ACC_OP_SHIFTL = 24,     /* amount: any integer type */
    ACC_OP_SHIFTR = 25,     /* arithmetic for signed types */
    ACC_OP_POPCOUNT = 26,   /* unary; result i64 */
    ACC_OP_CLZ = 27,        /* unary; countLeadingZeros; result i64 */
    /* comparisons (any scalar; result bool) */
    ACC_OP_EQ = 30,
    ACC_OP_NE = 31,
    ACC_OP_LT = 32,
    ACC_OP_LE = 33,
    ACC_OP_GT = 34,
    ACC_OP_GE = 35,
    /* logic (bool), && and || short-circuit */
    ACC_OP_LAND = 40,
    ACC_OP_LOR = 41,
    ACC_OP_NOT = 42, /* unary */
    /* floating (f32/f64; result = argument type unless stated) */
    ACC_OP_SQRT = 50,
    ACC_OP_EXP = 51,
    ACC_OP_LOG = 52,
    ACC_OP_SIN = 53,
    ACC_OP_COS = 54,
    ACC_OP_TAN = 55,
    ACC_OP_ASIN = 56,
    ACC_OP_ACOS = 57,
    ACC_OP_ATAN = 58,
    ACC_OP_SINH = 59,
    ACC_OP_COSH = 60,
    ACC_OP_TANH = 61,
    ACC_OP_ATAN2 = 62,   /* binary: atan2 y x */
    ACC_OP_POW = 63,     /* binary: x ** y */
    ACC_OP_LOGBASE = 64, /* binary: logBase b x = log x / log b */
    ACC_OP_ISNAN = 65,   /* unary; result bool */
    ACC_OP_ISINF = 66,   /* unary; result bool */
    /* float to integer: use acc_round_to, which names the result type */
    ACC_OP_TRUNCATE = 70, /* toward zero */
    ACC_OP_ROUND = 71,    /* to nearest, halves to even */
    ACC_OP_FLOOR = 72,
    ACC_OP_CEILING = 73
} acc_primop;

/* A static name of a primop as the text language spells it ("quot"). */
ACC_API const char *acc_primop_name(acc_primop op);

/* Unary and binary primitives.  Operand types must agree (except the shift
 * amount).  Integer arithmetic wraps at its width; integer division by zero
 * is a runtime error. */
ACC_API acc_node *acc_unop(acc_graph *g, acc_primop op, acc_node *a);
ACC_API acc_node *acc_binop(acc_graph *g, acc_primop op, acc_node *a,
                            acc_node *b);
/* truncate/round/floor/ceiling of a float to integer type `to`.  NaN gives
 * 0; values beyond the target's range saturate. */
ACC_API acc_node *acc_round_to(acc_graph *g, acc_primop op, acc_node *a,
                               acc_scalar to);
/* Conversion between any two scalar types: integers wrap (-1 to u8 is 255),
 * floats to integers truncate toward zero (NaN gives 0, out-of-range
 * saturates), anything to bool is "not zero", bool to numbers is 0 or 1. */
ACC_API acc_node *acc_convert(acc_graph *g, acc_node *a, acc_scalar to);

/* if c then t else e; only the chosen branch is evaluated. */
ACC_API acc_node *acc_cond(acc_graph *g, acc_node *c, acc_node *t,
                           acc_node *e);

/* A tuple of n nodes, all scalar terms or all array terms (n = 0 is the
 * unit value).  acc_get takes field i of a tuple, or component i of a
 * shape/index (component 0 is the outermost dimension). */
ACC_API acc_node *acc_tuple(acc_graph *g, size_t n, acc_node *const *items);
ACC_API acc_node *acc_get(acc_graph *g, acc_node *tuple, size_t i);

/* An index or shape [c0, ..., c(n-1)] from n i64 scalar terms (n may be 0:
 * the index of a Scalar). */
ACC_API acc_node *acc_index(acc_graph *g, size_t n, acc_node *const *comps);

/* A lambda parameter of type `type`.  It becomes bound when passed to
 * acc_lambda; a body may refer to parameters of enclosing lambdas.  A value
 * type makes a scalar-function parameter; an array type (or a tuple of
 * arrays) makes an array-function parameter, for acc_awhile. */
ACC_API acc_node *acc_param(acc_graph *g, const acc_type *type);
/* A function \p0 ... p(n-1) -> body.  Each parameter node must come from
 * acc_param and be bound by one lambda only.  A scalar function has value
 * parameters and a value body; an array function has array parameters and
 * an array body and must not refer to scalar parameters from outside. */
ACC_API acc_node *acc_lambda(acc_graph *g, size_t n, acc_node *const *params,
                             acc_node *body);

/* Scalar loop: starting from `init`, apply `body` while `cond` holds (cond
 * is tested first).  cond : t -> bool, body : t -> t, both unary lambdas. */
ACC_API acc_node *acc_while(acc_graph *g, acc_node *cond, acc_node *body,
                            acc_node *init);

/* Array access from scalar code: xs ! ix, xs !! k (row-major linear
 * position), shape xs, size xs (number of elements, i64), and `the` (the
 * value of a Scalar).  An index out of range is a runtime error. */
ACC_API acc_node *acc_read(acc_graph *g, acc_node *array, acc_node *index);
ACC_API acc_node *acc_read_linear(acc_graph *g, acc_node *array,
                                  acc_node *position);
ACC_API acc_node *acc_shape(acc_graph *g, acc_node *array);
ACC_API acc_node *acc_size(acc_graph *g, acc_node *array);
ACC_API acc_node *acc_the(acc_graph *g, acc_node *scalar_array);

/* --- array operations ----------------------------------------------------- */

/* A Scalar (rank 0 array) holding x. */
ACC_API acc_node *acc_unit(acc_graph *g, acc_node *x);
/* generate sh f: element at ix is f ix.  sh is a shape term. */
ACC_API acc_node *acc_generate(acc_graph *g, acc_node *shape, acc_node *f);
/* fill sh x: every element is x. */
ACC_API acc_node *acc_fill(acc_graph *g, acc_node *shape, acc_node *x);
/* map f xs. */
ACC_API acc_node *acc_map(acc_graph *g, acc_node *f, acc_node *xs);
/* zipWith f xs0 ... xs(n-1) for n >= 1 arrays of one rank; f takes n
 * parameters.  The result extent is the intersection of the extents. */
ACC_API acc_node *acc_zipwith(acc_graph *g, acc_node *f, size_t n,
                              acc_node *const *arrays);
/* backpermute sh' p xs: element at ix' is xs ! (p ix'). */
ACC_API acc_node *acc_backpermute(acc_graph *g, acc_node *shape, acc_node *p,
                                  acc_node *xs);
/* reshape sh xs: same elements in row-major order; sizes must be equal
 * (a runtime ACC_ERR_SHAPE otherwise). */
ACC_API acc_node *acc_reshape(acc_graph *g, acc_node *shape, acc_node *xs);
/* fold f z xs: reduces the innermost dimension (Array (r+1) e -> Array r e);
 * z is used once per row; an empty row gives z.  f must be associative. */
ACC_API acc_node *acc_fold(acc_graph *g, acc_node *f, acc_node *z,
                           acc_node *xs);
/* fold1 f xs: like fold without a seed; an empty row is a runtime error. */
ACC_API acc_node *acc_fold1(acc_graph *g, acc_node *f, acc_node *xs);

/* --- structural operations (LANGUAGE.md §3.1) ------------------------------ */

/* The `All` entry of a replicate or slice specification. */
ACC_API acc_node *acc_all(acc_graph *g);

/* replicate spec xs: spec lists one entry per dimension of the result,
 * outermost first: acc_all(g) keeps the next dimension of xs, an i64 scalar
 * term n inserts a new dimension of extent n.  The number of All entries
 * must equal the rank of xs.  Replicating a vector of 10 with [4, All]
 * gives 4 equal rows; with [All, 4] each element is repeated across 4
 * columns.  A negative extent is a runtime ACC_ERR_SHAPE. */
ACC_API acc_node *acc_replicate(acc_graph *g, size_t n, acc_node *const *spec,
                                acc_node *xs);
/* slice xs spec: spec has one entry per dimension of xs, outermost first:
 * acc_all(g) keeps the dimension, an i64 scalar term fixes the index in
 * it.  The result's rank is the number of All entries.  An index out of
 * range is a runtime ACC_ERR_RUNTIME naming "slice". */
ACC_API acc_node *acc_slice(acc_graph *g, acc_node *xs, size_t n,
                            acc_node *const *spec);

/* --- segmented reductions (LANGUAGE.md §3.2) ---------------------------------
 * seg is a vector of any integer type (i8 .. i64, u8 .. u64; e.g. the
 * int32 indptr of numpy or CSR code as well as i64); a builder error
 * (ACC_ERR_TYPE) otherwise.  A negative length or a u64 entry beyond
 * 2^63-1 is a runtime ACC_ERR_RUNTIME naming the operation and the
 * segment.  The innermost dimension of the result has one element per
 * segment; outer dimensions are kept (every row uses the same segments).  When the innermost extent exceeds the sum of the lengths,
 * the first elements of each row are used; when it is smaller, that is a
 * runtime ACC_ERR_SHAPE naming the operation. */

/* foldSeg f z xs seg: seg holds segment lengths; empty segments give z. */
ACC_API acc_node *acc_fold_seg(acc_graph *g, acc_node *f, acc_node *z,
                               acc_node *xs, acc_node *seg);
/* foldSeg' f z xs offsets: offsets has one more entry than there are
 * segments, starting with 0 and ending with the total; non-decreasing. */
ACC_API acc_node *acc_fold_seg_offsets(acc_graph *g, acc_node *f, acc_node *z,
                                       acc_node *xs, acc_node *offsets);
/* fold1Seg f xs seg: an empty segment is a runtime error. */
ACC_API acc_node *acc_fold1_seg(acc_graph *g, acc_node *f, acc_node *xs,
                                acc_node *seg);

/* --- scans (LANGUAGE.md §3.3), over the innermost dimension --------------- */

/* Fixed numbers; never renumbered. */
typedef enum acc_scan_kind {
    ACC_SCANL = 1,       /* n+1 results, starts with z, f acc x            */
    ACC_SCANL_PRIME = 2, /* scanl': a tuple (n results, one total per row)  */
    ACC_SCANL1 = 3,      /* n results, no seed; the dimension is non-empty  */
    ACC_SCANR = 4,       /* n+1 results, ends with z, f x acc              */
    ACC_SCANR_PRIME = 5, /* scanr': (n results, totals)                     */
    ACC_SCANR1 = 6,
    ACC_PRESCANL = 7,    /* n results, exclusive                            */
    ACC_POSTSCANL = 8,   /* n results: map (z `f`) (scanl1 f)               */
    ACC_PRESCANR = 9,
    ACC_POSTSCANR = 10
} acc_scan_kind;

/* A scan of kind `kind`; z is NULL for ACC_SCANL1 and ACC_SCANR1 and
 * required otherwise.  f : (e, e) -> e must be associative.  The primed
 * kinds return a tuple of two arrays (use acc_get, or compile it as two
 * outputs). */
ACC_API acc_node *acc_scan(acc_graph *g, acc_scan_kind kind, acc_node *f,
                           acc_node *z, acc_node *xs);
/* The segmented form over segment lengths seg (a vector of any integer
 * type, as for acc_fold_seg): per row,
 * ACC_SCANL/ACC_SCANR give S + k elements (S = sum of lengths, k = number
 * of segments: each segment, even an empty one, contributes its seed), the
 * primed kinds a tuple (S elements, k totals), the others S elements. */
ACC_API acc_node *acc_scan_seg(acc_graph *g, acc_scan_kind kind, acc_node *f,
                               acc_node *z, acc_node *xs, acc_node *seg);

/* --- forward permutation (LANGUAGE.md §3.4) --------------------------------- */

/* The `ignore` target index of rank `rank` (>= 1): a permute function that
 * returns it drops the element. */
ACC_API acc_node *acc_ignore(acc_graph *g, int32_t rank);
/* permute f defaults p xs: starts from a copy of defaults; for each index
 * ix of xs, p ix is a target index of defaults' rank or ignore; the element
 * is combined into the target as f new old.  f must be associative and
 * commutative.  A target out of range (other than ignore) is a runtime
 * error. */
ACC_API acc_node *acc_permute(acc_graph *g, acc_node *f, acc_node *defaults,
                              acc_node *p, acc_node *xs);
/* permute' f defaults xs: each element of xs is a pair (target index or
 * ignore, value). */
ACC_API acc_node *acc_permute_pairs(acc_graph *g, acc_node *f,
                                    acc_node *defaults, acc_node *xs);

/* --- stencils (LANGUAGE.md §3.5) ---------------------------------------------- */

/* Fixed numbers; never renumbered. */
typedef enum acc_boundary {
    ACC_BOUNDARY_CLAMP = 1,    /* i<0 reads 0; i>=n reads n-1                 */
    ACC_BOUNDARY_MIRROR = 2,   /* i<0 reads -i; i>=n reads 2n-2-i             */
    ACC_BOUNDARY_WRAP = 3,     /* i<0 reads n+i; i>=n reads i-n               */
    ACC_BOUNDARY_FUNCTION = 4, /* the element is g ix of the out-of-range ix  */
    ACC_BOUNDARY_CONSTANT = 5  /* the element is a given value                */
} acc_boundary;

/* stencil f boundary xs: widths gives the odd width (3, 5, 7 or 9) of the
 * neighbourhood in each of the rank(xs) dimensions (ranks 1 to 3),
 * outermost first.  f takes one parameter: the neighbourhood as nested
 * tuples, outermost dimension outermost (in 2-D a tuple of rows, each a
 * tuple of elements; the focus is in the middle).  boundary_arg is NULL for
 * clamp/mirror/wrap, a lambda from an index of rank(xs) to the element type
 * for FUNCTION, a value of the element type for CONSTANT. */
ACC_API acc_node *acc_stencil(acc_graph *g, acc_node *f,
                              const int32_t *widths, acc_boundary boundary,
                              acc_node *boundary_arg, acc_node *xs);
/* stencil2: f takes two parameters, the neighbourhoods of xs and ys; the
 * result extent is the intersection of theirs. */
ACC_API acc_node *acc_stencil2(acc_graph *g, acc_node *f,
                               const int32_t *widths1, acc_boundary boundary1,
                               acc_node *boundary_arg1, acc_node *xs,
                               const int32_t *widths2, acc_boundary boundary2,
                               acc_node *boundary_arg2, acc_node *ys);

/* --- irregular expansion (LANGUAGE.md §3.6) ----------------------------------- */

/* expand size get xs (xs a vector): element x contributes size x results
 * get x 0 .. get x (size x - 1), concatenated in order.  size : e -> i64
 * (a negative size is a runtime error), get : (e, i64) -> b. */
ACC_API acc_node *acc_expand(acc_graph *g, acc_node *size, acc_node *get,
                             acc_node *xs);

/* --- control (LANGUAGE.md §3.7) ---------------------------------------------- */

/* acond c a b: a if the scalar c holds, else b; only one is computed. a and
 * b have the same (array or tuple-of-arrays) type. */
ACC_API acc_node *acc_acond(acc_graph *g, acc_node *c, acc_node *a,
                            acc_node *b);
/* awhile cond body init: array functions (acc_lambda over parameters of
 * array type, see acc_param); cond : t -> Scalar bool is tested before the
 * first application of body : t -> t. */
ACC_API acc_node *acc_awhile(acc_graph *g, acc_node *cond, acc_node *body,
                             acc_node *init);

/* ------------------------------------------------------------------------
 * Standard library (LANGUAGE.md §3.1, §3.2)
 *
 * Functions written over the builder calls above, as Accelerate's Prelude
 * is written over its primitives: each returns the node of an ordinary
 * composition (docs/STDLIB.md spells each one out) and follows the builder's
 * rules: errors are sticky, a NULL argument makes the graph fail, and an
 * argument of the wrong type or rank makes the graph fail in the first
 * primitive that refuses it, so the message names that primitive ("rem",
 * "backpermute", "get", ...).  "Innermost" functions take an array of rank
 * r+1 >= 1 and treat every row (every index of the outer r dimensions) the
 * same way.  Scalar arguments (n, x, step, ...) are i64 or element-typed
 * scalar terms that do not refer to lambda parameters.
 * ------------------------------------------------------------------------ */

/* --- scalar helpers ------------------------------------------------------- */

/* even x, odd x: x an integer scalar term (any width, signed or not); a
 * bool scalar term (x `rem` 2 == 0, /= 0). */
ACC_API acc_node *acc_even(acc_graph *g, acc_node *x);
ACC_API acc_node *acc_odd(acc_graph *g, acc_node *x);

/* --- reductions of the innermost dimension: Array (r+1) e -> Array r e ---- */

/* sum xs = fold (+) 0 xs, product xs = fold (*) 1 xs; e a numeric scalar
 * type.  An empty row gives 0 (1). */
ACC_API acc_node *acc_sum(acc_graph *g, acc_node *xs);
ACC_API acc_node *acc_product(acc_graph *g, acc_node *xs);
/* maximum xs = fold1 max xs, minimum xs = fold1 min xs (max/min as in
 * acc_primop); e a scalar type.  An empty row is a runtime ACC_ERR_RUNTIME. */
ACC_API acc_node *acc_maximum(acc_graph *g, acc_node *xs);
ACC_API acc_node *acc_minimum(acc_graph *g, acc_node *xs);
/* and xs = fold (&&) True xs, or xs = fold (||) False xs on bool arrays.
 * An empty row gives True (False). */
ACC_API acc_node *acc_and(acc_graph *g, acc_node *xs);
ACC_API acc_node *acc_or(acc_graph *g, acc_node *xs);
/* all p xs = and (map p xs), any p xs = or (map p xs); p : e -> bool.
 * (acc_all is the All entry of a slice specification, hence the name.) */
ACC_API acc_node *acc_all_of(acc_graph *g, acc_node *p, acc_node *xs);
ACC_API acc_node *acc_any(acc_graph *g, acc_node *p, acc_node *xs);
/* foldAll f z xs = fold f z (flatten xs): every element of an array of any
 * rank reduced to a Scalar; an empty array gives z.  fold1All f xs has no
 * seed; an empty array is a runtime ACC_ERR_RUNTIME.  f : (e, e) -> e must
 * be associative. */
ACC_API acc_node *acc_fold_all(acc_graph *g, acc_node *f, acc_node *z,
                               acc_node *xs);
ACC_API acc_node *acc_fold1_all(acc_graph *g, acc_node *f, acc_node *xs);

/* --- producers ------------------------------------------------------------- */

/* enumFromStepN sh x step: an array of shape sh (a shape term of any rank)
 * whose element at row-major position k is x + k * step; x and step are
 * scalar terms of one numeric type, which is the element type (k is
 * converted to it as by acc_convert).  enumFromN sh x uses step 1. */
ACC_API acc_node *acc_enum_from_n(acc_graph *g, acc_node *shape,
                                  acc_node *x);
ACC_API acc_node *acc_enum_from_step_n(acc_graph *g, acc_node *shape,
                                       acc_node *x, acc_node *step);
/* zip xs ys: Array r a, Array r b -> Array r (a, b); the extent is the
 * intersection, as for zipWith. */
ACC_API acc_node *acc_zip(acc_graph *g, acc_node *xs, acc_node *ys);
/* unzip xs: Array r (a0, ..., a(n-1)) -> a tuple of n arrays Array r ai
 * (use acc_get, or compile it as n outputs); a pair gives the usual
 * (Array r a, Array r b).  An element that is an index of rank n is split
 * into its n i64 components; any other element type must be a tuple. */
ACC_API acc_node *acc_unzip(acc_graph *g, acc_node *xs);
/* indexed xs: Array r e -> Array r (index of rank r, e), pairing every
 * element with its index. */
ACC_API acc_node *acc_indexed(acc_graph *g, acc_node *xs);
/* zip3 .. zip9 (and beyond): Array r a0, ..., Array r a(n-1) -> Array r
 * (a0, .., a(n-1)) for n >= 2 arrays of one rank (the extent is the
 * intersection; the element may have at most ACC_MAX_COMPONENTS leaves);
 * acc_zip(g, xs, ys) is acc_zip_n of 2, and acc_unzip splits the result
 * again.  n < 2 is refused (ACC_ERR_INVALID_ARGUMENT, by zipWith). */
ACC_API acc_node *acc_zip_n(acc_graph *g, size_t n, acc_node *const *arrays);
/* length xs: the innermost extent of xs (rank >= 1), an i64 scalar term;
 * on a vector its number of elements (Accelerate's length). */
ACC_API acc_node *acc_length(acc_graph *g, acc_node *xs);

/* --- structural operations ------------------------------------------------- */

/* reverse xs: the innermost dimension in reverse order (rank >= 1; each
 * row is reversed). */
ACC_API acc_node *acc_reverse(acc_graph *g, acc_node *xs);
/* transpose xs: swaps the two innermost dimensions (rank >= 2; on a matrix
 * [m, n] the usual transpose [n, m]). */
ACC_API acc_node *acc_transpose(acc_graph *g, acc_node *xs);
/* flatten xs: Array r e -> Vector e, the elements in row-major order (a
 * Scalar gives a vector of one). */
ACC_API acc_node *acc_flatten(acc_graph *g, acc_node *xs);
/* take n xs, drop n xs: the first n elements of each row, and all but the
 * first n.  n is an i64 scalar term clamped to [0, length of the row], so
 * taking more than there is takes everything and a negative n takes
 * nothing (drops nothing).  Rank >= 1; the outer extents are kept. */
ACC_API acc_node *acc_take(acc_graph *g, acc_node *n, acc_node *xs);
ACC_API acc_node *acc_drop(acc_graph *g, acc_node *n, acc_node *xs);
/* init xs = take (n-1) xs, tail xs = drop 1 xs (n the innermost extent):
 * all but the last, all but the first element of each row; an empty row
 * stays empty. */
ACC_API acc_node *acc_init(acc_graph *g, acc_node *xs);
ACC_API acc_node *acc_tail(acc_graph *g, acc_node *xs);
/* slit i n xs = take n (drop i xs): n elements of each row starting at i
 * (both i64 scalar terms, clamped like take and drop). */
ACC_API acc_node *acc_slit(acc_graph *g, acc_node *i, acc_node *n,
                           acc_node *xs);
/* xs ++ ys: concatenation on the innermost dimension of two arrays of one
 * rank (>= 1) and element type; the result's innermost extent is the sum
 * of theirs, each outer extent the smaller of theirs (the intersection). */
ACC_API acc_node *acc_concat(acc_graph *g, acc_node *xs, acc_node *ys);

/* --- gather, scatter, filtering -------------------------------------------- */

/* gather indices xs: element at ix is xs ! (indices ! ix).  indices is an
 * Array s i64 reading a vector xs, or an Array s (index of rank r) reading
 * an Array r xs; the result is an Array s e.  An index out of range is a
 * runtime ACC_ERR_RUNTIME. */
ACC_API acc_node *acc_gather(acc_graph *g, acc_node *indices, acc_node *xs);
/* scatter to defaults xs: a copy of defaults where the element of xs at ix
 * is written at position to ! ix (to: Array s i64 for a vector defaults, or
 * Array s (index of rank r) for an Array r defaults; xs: Array s e; the
 * extents of to and xs are intersected).  With two writes to one target
 * the result is one of them (unspecified which).  A target out of range is
 * a runtime error. */
ACC_API acc_node *acc_scatter(acc_graph *g, acc_node *to, acc_node *defaults,
                              acc_node *xs);
/* compact keep xs: keep is an Array (r+1) bool, xs an Array (r+1) e (the
 * extents are intersected).  Returns a tuple of two arrays: a Vector e of
 * the elements whose keep is True, in row-major order, and an Array r i64
 * holding how many were kept in each row (a Scalar for vectors). */
ACC_API acc_node *acc_compact(acc_graph *g, acc_node *keep, acc_node *xs);
/* filter p xs = compact (map p xs) xs; p : e -> bool. */
ACC_API acc_node *acc_filter(acc_graph *g, acc_node *p, acc_node *xs);

/* --- linear algebra and Fourier transforms (LANGUAGE.md §3.8.1) -------------
 * Foreign nodes (see "Foreign functions and plugins") with pure fallbacks:
 * a loaded plugin (cblas, fftw) computes them where it can, and the
 * fallback everywhere else.  The plugins take f32 and f64; the fallbacks of
 * dot, gemv and gemm take any numeric element type.  Mixed element types
 * make the graph fail (in zipWith). */

/* dot xs ys: Vector e, Vector e -> Scalar e, the sum of the products over
 * the common length ("blas.dot").  On arrays of higher rank the fallback
 * works row by row (Array (r+1) e -> Array r e); the plugins take vectors. */
ACC_API acc_node *acc_dot(acc_graph *g, acc_node *xs, acc_node *ys);
/* gemv a x: Matrix e [m, n], Vector e [n] -> Vector e [m], y = a x; rows
 * and x are cut to their common length ("blas.gemv"). */
ACC_API acc_node *acc_gemv(acc_graph *g, acc_node *a, acc_node *x);
/* gemm a b: Matrix e [m, k], Matrix e [k, n] -> Matrix e [m, n], the
 * matrix product; the inner extents are cut to their common length
 * ("blas.gemm"). */
ACC_API acc_node *acc_gemm(acc_graph *g, acc_node *a, acc_node *b);
/* fft xs, ifft xs: xs is an array of rank 1 to 7 (a vector, a matrix, ...)
 * of (re, im) pairs of f32 or f64; the result has the same type and shape.
 * fft is the forward discrete Fourier transform over every dimension,
 * X[k] = sum_j x[j] e^(-2 pi i jk/n) per dimension (1-D on a vector, 2-D on
 * a matrix); ifft uses e^(+2 pi i jk/n) and divides by the number of
 * elements, so ifft (fft x) = x ("fft.forward", "fft.inverse").  The pure
 * fallback uses a radix-2 (Stockham) FFT for every dimension whose length
 * is a power of two and the direct O(n^2) DFT for other lengths, so it is
 * correct for every length (docs/PLUGINS.md); the fftw plugin takes ranks 1
 * to 3 of any length in O(n log n). */
ACC_API acc_node *acc_fft(acc_graph *g, acc_node *xs);
ACC_API acc_node *acc_ifft(acc_graph *g, acc_node *xs);

/* --- distributed collectives (docs/DISTRIBUTED.md) -------------------------
 * Foreign nodes named "mpi.*" whose fallbacks give the one-process result,
 * so a program runs unchanged without MPI; under mpirun the mpi plugin
 * implements them with MPI collectives over the context's communicator
 * (acc_context_options.mpi_comm), every process running the same program
 * on its own part of the data (SPMD).  They are issued in the program's
 * order on every rank; a rank whose peers do not come fails after
 * ACC_MPI_TIMEOUT seconds (docs/DISTRIBUTED.md, "Failures"). */

/* The combining operation of acc_mpi_allreduce. */
typedef enum acc_mpi_op {
    ACC_MPI_SUM = 1,
    ACC_MPI_PRODUCT = 2,
    ACC_MPI_MIN = 3,
    ACC_MPI_MAX = 4
} acc_mpi_op;

/* This process's rank in the communicator and the number of processes:
 * Scalar i32 ("mpi.rank", "mpi.size"; alone: 0 and 1). */
ACC_API acc_node *acc_mpi_rank(acc_graph *g);
ACC_API acc_node *acc_mpi_size(acc_graph *g);
/* allreduce op xs: Array r e -> Array r e (any rank, e a numeric scalar
 * type), element-wise op over the ranks' arrays, which must have the same
 * extents ("mpi.allreduce.sum", ".product", ".min", ".max"). */
ACC_API acc_node *acc_mpi_allreduce(acc_graph *g, acc_mpi_op op,
                                    acc_node *xs);
/* allgather xs: Array (r+1) e -> Array (r+1) e, the ranks' arrays
 * concatenated along the outer dimension in rank order; outer extents may
 * differ, the inner ones must not ("mpi.allgather"). */
ACC_API acc_node *acc_mpi_allgather(acc_graph *g, acc_node *xs);
/* bcast root xs: every rank gets the root's xs (any shape: the root's
 * extents are sent too); root is an integer scalar term ("mpi.bcast"). */
ACC_API acc_node *acc_mpi_bcast(acc_graph *g, acc_node *root, acc_node *xs);
/* alltoall xs: Array (r+1) e whose outer extent is a multiple of the
 * number of processes P: block k (outer extent / P rows) goes to rank k,
 * and block k of the result comes from rank k ("mpi.alltoall"). */
ACC_API acc_node *acc_mpi_alltoall(acc_graph *g, acc_node *xs);
/* halo xs: Array (r+1) e with n >= 1 rows -> n + 2 rows: the previous
 * rank's last row, xs, the next rank's first row.  ring != 0: ranks form a
 * ring (alone: xs's own last and first rows, periodic); ring == 0: an open
 * chain, whose first and last ranks repeat their own first and last rows
 * at the ends, as a clamped stencil does ("mpi.halo.ring",
 * "mpi.halo.chain"). */
ACC_API acc_node *acc_mpi_halo(acc_graph *g, int ring, acc_node *xs);

/* ------------------------------------------------------------------------
 * Programs
 * ------------------------------------------------------------------------ */
typedef struct acc_program acc_program;

/* Compiles the array terms `results` of graph `g` (n_results >= 1; a tuple
 * of arrays counts as one result per array) into a program for the
 * context's backend.  The program's inputs are all acc_input nodes of the
 * graph, in creation order.  The program keeps its own copy of everything
 * it needs: the graph may be freed or extended right after.  Reports the
 * graph's first builder error, if any, as this call's error. */
ACC_API acc_status acc_compile(acc_context *ctx, acc_graph *g,
                               size_t n_results, acc_node *const *results,
                               acc_program **out);

/* Frees a program; NULL-safe.  Must not race with a run of the program. */
ACC_API void acc_program_free(acc_program *program);
ACC_API const char *acc_program_last_error(const acc_program *program);

/* The program's signature.  acc_program_input/output give the element type
 * (a scalar or tuple type owned by the program) and the rank of input or
 * output i. */
ACC_API size_t acc_program_num_inputs(const acc_program *program);
ACC_API size_t acc_program_num_outputs(const acc_program *program);
ACC_API acc_status acc_program_input(const acc_program *program, size_t i,
                                     const acc_type **elem, int32_t *rank);
ACC_API acc_status acc_program_output(const acc_program *program, size_t i,
                                      const acc_type **elem, int32_t *rank);
/* The backend the program runs on. */
ACC_API acc_backend acc_program_backend(const acc_program *program);

/* The program's signature as data, for bindings that generate their
 * calling code: a JSON object
 *     {"inputs": [ITEM, ...], "outputs": [ITEM, ...]}
 *     ITEM := {"name": NAME, "elem": ELEM, "rank": R, "leaves": [S, ...]}
 * in acc_run's order.  NAME is the parameter's name for the inputs of a
 * text program (a tuple-of-arrays parameter xs gives "xs.0", "xs.1", ...,
 * or the names of its tuple pattern), else null; outputs have no name
 * (null).  ELEM is the element type as a tree of scalars: a scalar is
 * its name ("f32"), a tuple the JSON array of its fields
 * (["f32", ["i32", "bool"]]), a shape {"shape": RANK}.  R is the rank;
 * the leaves are the scalars of the buffers data[0], data[1], ... in
 * order.  *json is allocated by accel; release it with acc_free. */
ACC_API acc_status acc_program_signature_json(const acc_program *program,
                                              char **json);

/* Runs a program.  `inputs` are borrowed for the duration of the call and
 * must match the signature (count, element type, rank; non-negative
 * extents; non-NULL buffers unless the array is empty).
 *
 * For each output descriptor the caller either
 *  - leaves data[0] NULL: accel allocates the result, fills in the whole
 *    descriptor (type, rank, extents) with ownership ACC_OWNERSHIP_LIBRARY,
 *    and the caller releases it with acc_array_release (in host memory,
 *    unless memory is ACC_MEMORY_CUDA_DEVICE: see acc_memory); or
 *  - provides buffers and extents: the result is written there; the extents
 *    must equal the result's extents (ACC_ERR_SHAPE otherwise, naming both).
 *    When they overlap no input's and no other output's buffers, the step
 *    computing the output writes them directly (no copy); otherwise (an
 *    in-place run, say) the result is computed elsewhere and copied in at
 *    the end, so overlapping is allowed and correct.  After a failed run,
 *    provided buffers may hold partial results.
 * On failure no output is left allocated.  A program may be run from several threads at once.
 * The run is complete when acc_run returns (on cuda: on a stream of the
 * context's own, waited for).  Errors the device reports are
 * ACC_ERR_DEVICE (ACC_ERR_OUT_OF_DEVICE_MEMORY when memory runs out)
 * with a message naming the driver's error. */
ACC_API acc_status acc_run(acc_program *program, size_t n_inputs,
                           const acc_array *inputs, size_t n_outputs,
                           acc_array *outputs);

/* ------------------------------------------------------------------------
 * Execution handles: where and how runs are queued
 * ------------------------------------------------------------------------ */
typedef struct acc_exec acc_exec;

typedef struct acc_exec_options {
    size_t struct_size; /* sizeof(acc_exec_options)                        */
    /* cuda: the CUstream every copy and kernel of a run is queued on; NULL
     * is CUDA's legacy default stream.  Host backends ignore it. */
    void *stream;
    /* 0: acc_run_exec returns when the run is complete.  1: on cuda it may
     * return once the work is queued on the stream; inputs (and their
     * buffers) must then stay valid, and outputs are complete, only after
     * acc_exec_wait.  Host backends always complete the run first. */
    int32_t async;
    /* The deadline of each run through the handle, in seconds from the
     * start of that run (the entry of acc_run_exec): a run still working
     * at a check point past it stops with ACC_ERR_TIMEOUT.  0 = the
     * context's run_deadline_seconds (none by default); INFINITY = none,
     * whatever the context says.  Negative or NaN:
     * ACC_ERR_INVALID_ARGUMENT. */
    double deadline_seconds;
} acc_exec_options;

/* Fills the first `size` bytes of *options, a struct of `size` bytes (pass
 * sizeof *options), with the defaults (stream NULL, synchronous, the
 * context's deadline; every default is zero) and sets struct_size to
 * `size`.  Nothing past `size` bytes is written (see
 * acc_context_options_init_sized).  ACC_ERR_INVALID_ARGUMENT (nothing
 * written) for NULL or a size smaller than the first published struct
 * (struct_size, stream, async). */
ACC_API acc_status acc_exec_options_init_sized(acc_exec_options *options,
                                               size_t size);

/* acc_exec_options_init(&o) is acc_exec_options_init_sized(&o, sizeof o),
 * through the macro below.  The function of this name remains for
 * binaries built before the macro: it initialises only the first
 * published fields (struct_size, stream, async) and sets struct_size to
 * their size, so a deadline_seconds set after it is ignored (rebuild
 * against this header to have it read). */
ACC_API void acc_exec_options_init(acc_exec_options *options);
#define acc_exec_options_init(options) \
    ((void)acc_exec_options_init_sized((options), sizeof(acc_exec_options)))

/* Creates an execution handle for programs of `ctx`.  `options` may be
 * NULL for the defaults.  The handle keeps the context alive; it is used
 * by one thread at a time (several handles may run one program at once),
 * except for acc_exec_cancel, which any thread may call.
 * Errors: ACC_ERR_INVALID_HANDLE, ACC_ERR_INVALID_ARGUMENT (options'
 * struct_size too small, async not 0 or 1, deadline_seconds negative or
 * NaN), ACC_ERR_OUT_OF_HOST_MEMORY. */
ACC_API acc_status acc_exec_create(acc_context *ctx,
                                   const acc_exec_options *options,
                                   acc_exec **out);

/* Waits for the work queued through the handle (as acc_exec_wait), then
 * frees it.  NULL-safe. */
ACC_API void acc_exec_destroy(acc_exec *exec);

/* acc_run, queued through `exec` (its stream, synchronous or not).  The
 * program must belong to the handle's context.  Errors found before the
 * work is queued (arguments, host steps, out of memory) are returned at
 * once; with async, errors the device reports later are returned by
 * acc_exec_wait. */
ACC_API acc_status acc_run_exec(acc_exec *exec, acc_program *program,
                                size_t n_inputs, const acc_array *inputs,
                                size_t n_outputs, acc_array *outputs);

/* Waits until everything queued through `exec` is complete and returns
 * the status of what was queued since the previous wait: ACC_OK when every
 * run succeeded, else the first failure (one acc_run_exec already
 * returned, or an error the device reported on the stream, as
 * ACC_ERR_DEVICE naming the driver's error).  On host backends runs are
 * complete when acc_run_exec returns, and wait returns their status.
 * Library-owned outputs of a run acc_run_exec returned ACC_OK for remain
 * the caller's to release, even when wait then reports an error (their
 * contents are undefined). */
ACC_API acc_status acc_exec_wait(acc_exec *exec);

/* The message of the last failing call on the handle ("" when none). */
ACC_API const char *acc_exec_last_error(const acc_exec *exec);

/* Asks the run in progress through `exec` to stop; callable from any
 * thread, also while another thread is inside acc_run_exec (or
 * acc_exec_wait) on the handle, but not racing acc_exec_destroy.  It
 * only sets a flag (an atomic store) and returns ACC_OK
 * (ACC_ERR_INVALID_ARGUMENT for NULL, ACC_ERR_INVALID_HANDLE for a
 * handle that is not live).
 *
 * The promise: a run that observes the flag at one of its check points
 * stops there and acc_run_exec returns ACC_ERR_CANCELLED (deadlines
 * stop runs the same way, with ACC_ERR_TIMEOUT).  Check points are:
 * before each step the host-side scheduler runs, every iteration of an
 * awhile, every 1024 scalar function applications of the interpreter
 * (so inside a scalar while and every element loop), before each chunk
 * of a CPU kernel's parallel loop and every 4096 iterations of a scalar
 * while in a CPU kernel, and before each CUDA kernel launch (a launched
 * kernel runs to completion; with async, work already queued on the
 * stream completes).  A stopped run delivers nothing: no library-owned
 * output is left allocated (caller-provided buffers may hold partial
 * results, as after any failed run), every intermediate is released,
 * and the program and the handle stay usable.
 *
 * The flag is not reset when a run starts: a cancel made while no run is
 * in progress stops the next run at its first check point, so a cancel
 * racing the start of a run is never lost.  Every acc_run_exec on the
 * handle clears the flag as it returns, whatever its outcome: a cancel
 * that comes after the run's last check point has nothing left to stop
 * and does not carry over to the run after. */
ACC_API acc_status acc_exec_cancel(acc_exec *exec);

/* ------------------------------------------------------------------------
 * Foreign functions and plugins (DESIGN.md §8, LANGUAGE.md §3.8, §3.9;
 * docs/PLUGINS.md is the guide)
 *
 * A foreign node names an operation ("blas.dot") and carries a fallback
 * written in the array language.  When a program is compiled, each foreign
 * node resolves to the implementation registered in the context under its
 * name, for the program's backend, of the highest priority whose
 * capability predicate accepts the argument types; when there is none, the
 * fallback is compiled in its place (and may itself contain foreign nodes:
 * a cascade).  The program's plan (acc_program_explain) names the choice,
 * or says why the fallback is used.  Implementations come from plugins
 * (acc_plugin_load), from plain C functions (acc_register_c_function) or
 * from the application itself (acc_register_foreign).
 * ------------------------------------------------------------------------ */

/* foreign name fallback arg: arg is an array or a tuple of arrays; fallback
 * is a closed array function of one parameter of arg's type (acc_lambda
 * over an acc_param of that type, as for acc_awhile) that refers to no
 * parameter of an enclosing function.  The result has the fallback's
 * result type, and must be the same whichever is used.  `name` is copied;
 * it is 1 to 127 characters. */
ACC_API acc_node *acc_foreign(acc_graph *g, const char *name,
                              acc_node *fallback, acc_node *arg);
/* foreignExp name fallback arg: a scalar function.  arg is a scalar term
 * (a value), fallback a closed scalar lambda of one parameter of arg's
 * type.  Implementations are C functions registered with a scalar
 * signature (acc_register_c_function, such as "f64(f64)"); the reference
 * interpreter calls one when it is registered, else applies the fallback. */
ACC_API acc_node *acc_foreign_exp(acc_graph *g, const char *name,
                                  acc_node *fallback, acc_node *arg);

/* What a capability predicate is asked at compile time: the argument and
 * result arrays of one foreign node (a tuple contributes each of its
 * arrays, in order).  Extents are not known before the program runs; an
 * implementation that cannot handle the extents it is given at run time
 * returns ACC_ERR_UNSUPPORTED from execute, and the fallback runs instead. */
typedef struct acc_foreign_query {
    size_t struct_size;               /* sizeof(acc_foreign_query)         */
    const char *name;                 /* the foreign node's name           */
    acc_backend backend;              /* the program's backend             */
    size_t n_args;
    const acc_type *const *arg_elems; /* element type of each argument     */
    const int32_t *arg_ranks;
    size_t n_results;
    const acc_type *const *result_elems;
    const int32_t *result_ranks;
    void *user;                       /* acc_foreign_impl.user             */
    char *reason;                     /* a predicate that refuses may write */
    size_t reason_size;               /* why here (NUL-terminated)         */
} acc_foreign_query;

/* One call of an implementation at run time.  accel sets every field;
 * result_shape writes results[i].extents; execute reads args and writes
 * the buffers of results (allocated by accel, of the extents result_shape
 * gave).  Descriptors hold host pointers for host backends and device
 * pointers for CUDA (memory ACC_MEMORY_CUDA_DEVICE), where the workspace
 * is device memory too and all work must be queued on `stream`. */
typedef struct acc_foreign_call {
    size_t struct_size;         /* sizeof(acc_foreign_call)                 */
    size_t n_args;
    const acc_array *args;      /* borrowed for the call                    */
    size_t n_results;
    acc_array *results;         /* type and rank set by accel               */
    void *stream;               /* cuda: the run's CUstream (NULL: the
                                   legacy default stream); host: NULL      */
    /* Scratch memory of `bytes` bytes, valid until execute returns and
     * freed by accel; NULL when out of memory. */
    void *(*workspace)(struct acc_foreign_call *call, size_t bytes);
    void *state;                /* the per-program state (create), or NULL  */
    void *user;                 /* acc_foreign_impl.user                    */
    char *message;              /* a failing call may write why here        */
    size_t message_size;
    void *internal;             /* accel's; do not touch                    */
} acc_foreign_call;

/* An implementation of a foreign name.  Registering copies the struct and
 * the strings; the function pointers and `user` must stay valid while the
 * context lives. */
typedef struct acc_foreign_impl {
    size_t struct_size;         /* sizeof(acc_foreign_impl)                 */
    const char *name;           /* the foreign name implemented, "blas.dot" */
    const char *impl_name;      /* shown in plans and lists, "cblas.dot"    */
    /* ACC_BACKEND_INTERP or ACC_BACKEND_CPU: a host implementation, used
     * by both host backends; ACC_BACKEND_CUDA: device memory and a stream. */
    acc_backend backend;
    int32_t priority;           /* the highest accepting priority wins      */
    /* Whether the implementation handles these argument and result types;
     * NULL accepts everything.  Returns 1 to accept, 0 to refuse. */
    int (*accepts)(acc_foreign_query *query);
    /* Sets results[i].extents from the arguments (required). */
    acc_status (*result_shape)(acc_foreign_call *call);
    /* Computes the results (required).  Called from any thread, possibly
     * several at once for one program.  ACC_ERR_UNSUPPORTED means "not for
     * these extents": the fallback is evaluated instead. */
    acc_status (*execute)(acc_foreign_call *call);
    /* Optional per-program state (a plan, a library handle), created when a
     * program chooses this implementation and destroyed with the program. */
    acc_status (*create)(acc_foreign_query *query, void **state);
    void (*destroy)(void *user, void *state);
    void *user;                 /* passed back in queries and calls         */
    /* Optional: called once when the context is destroyed. */
    void (*release)(void *user);
    /* Optional sentence for acc_foreign_list, such as why the
     * implementation is unavailable on this machine; copied. */
    const char *note;
} acc_foreign_impl;

/* Registers an implementation in the context.  Programs compiled later
 * may choose it; compiled programs keep their choice.  Errors:
 * ACC_ERR_INVALID_ARGUMENT (NULL, struct_size too small, missing name or
 * execute or result_shape, a backend that is not INTERP, CPU or CUDA). */
ACC_API acc_status acc_register_foreign(acc_context *ctx,
                                        const acc_foreign_impl *impl);

/* Every implementation registered in the context, one per line:
 * "NAME IMPL_NAME backend=B priority=P from=ORIGIN[; NOTE]", ordered by
 * name then priority (highest first); "" when there are none.  *text is
 * allocated by accel; release it with acc_free. */
ACC_API acc_status acc_foreign_list(const acc_context *ctx, char **text);

/* --- plugins --------------------------------------------------------------
 * A plugin is a shared object that exports
 *
 *     acc_status acc_plugin_entry(acc_plugin_registrar *reg,
 *                                 uint32_t abi_version);
 *
 * (ACC_PLUGIN_ENTRY_SYMBOL).  acc_plugin_load calls it with the library's
 * ABI version; the entry first calls ACC_PLUGIN_DECLARE(reg, "its name"),
 * which states the ABI version the plugin was compiled for and fails with
 * ACC_ERR_ABI_MISMATCH when it differs, then adds its implementations with
 * reg->add and returns ACC_OK (or the first error; then nothing it added
 * is kept).  A plugin includes accel.h; one that calls accel's functions
 * (acc_type_*, acc_array_size, ...) links libaccel too. */
#define ACC_PLUGIN_ENTRY_SYMBOL "acc_plugin_entry"

typedef struct acc_plugin_registrar {
    size_t struct_size;     /* sizeof(acc_plugin_registrar) of the library */
    uint32_t abi_version;   /* the library's ABI version                   */
    /* Names the plugin and states the ABI version it was built for. */
    acc_status (*declare)(struct acc_plugin_registrar *self,
                          const char *plugin_name, uint32_t built_for_abi);
    /* Registers an implementation (as acc_register_foreign). */
    acc_status (*add)(struct acc_plugin_registrar *self,
                      const acc_foreign_impl *impl);
    void *internal;         /* accel's; do not touch                       */
    /* The loading context's mpi_comm option (acc_context_options), for
     * the mpi plugin; other plugins ignore it.  Read it only when
     * struct_size covers it. */
    const void *mpi_comm;
    /* The loading context's cache_dir option (acc_context_options; NULL:
     * the default folder, $XDG_CACHE_HOME/accel else ~/.cache/accel),
     * where a plugin may keep what it learns across processes (the fftw
     * plugin: FFTW's wisdom), and its num_threads option (0: one per
     * core).  Read them only when struct_size covers them. */
    const char *cache_dir;
    int32_t num_threads;
} acc_plugin_registrar;

typedef acc_status (*acc_plugin_entry_fn)(acc_plugin_registrar *reg,
                                          uint32_t abi_version);

#define ACC_PLUGIN_DECLARE(reg, plugin_name) \
    ((reg)->declare((reg), (plugin_name), ACC_ABI_VERSION))

/* Loads a plugin.  `path_or_name` is a path (it contains a '/') or a name
 * such as "cblas", looked up as accel_NAME.so (or NAME itself when it ends
 * in ".so") in, in order: the folders of the context's plugin_path option,
 * those of $ACC_PLUGIN_PATH (both ':'-separated), the plugins folder
 * installed next to the library (LIBDIR/accel/plugins, found from the
 * file libaccel was loaded from, so a moved installation works), and,
 * when libaccel runs from the build tree it was built in, that tree's
 * plugins/.  Loading the same file twice in one context
 * does nothing the second time.  Errors: ACC_ERR_PLUGIN when no file is
 * found (naming the folders searched) or the file cannot be loaded (naming
 * it and the missing library or symbol, as dlopen says),
 * ACC_ERR_ABI_MISMATCH naming the plugin's and the library's versions, or
 * the status the plugin's entry returned.  The plugin stays loaded until
 * the context is destroyed. */
ACC_API acc_status acc_plugin_load(acc_context *ctx, const char *path_or_name);

/* The plugins the context loads by itself (acc_context_options.plugins)
 * and what became of each, one line per plugin: every built-in plugin
 * (cblas, fftw, cublas, cufft, mpi), then every other plugin the option
 * names,
 *     "NAME: loaded from FILE"
 *     "NAME: loaded (by acc_plugin_load)"
 *     "NAME: not loaded: WHY"
 * (WHY: not found, naming the folders searched; the loader's error; the
 * backend it serves; or the option that leaves it out).  Loads them first
 * when no foreign node has been compiled yet, as that compile would.
 * *text is allocated by accel; release it with acc_free. */
ACC_API acc_status acc_plugin_status(acc_context *ctx, char **text);

/* Registers the C function `symbol` of the shared library `library` (a
 * path or a name dlopen finds; NULL for the program and the libraries it
 * has loaded) as an implementation of the foreign name `name`, for the
 * host backends, with priority 0.  It is called through libffi.
 * `signature` describes its C type (docs/PLUGINS.md has examples):
 *
 *   signature := ret "(" [ param { "," param } ] ")"
 *   ret       := "void" | scalar
 *   param     := scalar | ["const"] scalar "*"
 *   scalar    := bool | i8 | i16 | i32 | i64 | u8 | u16 | u32 | u64 | f32 | f64
 *
 * (spaces are allowed between tokens; bool is a C `bool`/_Bool).  The
 * foreign node's arrays map to the parameters from left to right:
 *  - each `T*` parameter receives the buffer of the next array: first the
 *    argument arrays (a tuple gives each of its arrays in order), then,
 *    once those are used up, the result arrays, which the function fills;
 *    the array must have element type T;
 *  - a scalar parameter `T`, while argument arrays remain, receives the
 *    value of the next argument array, which must be a Scalar (rank 0)
 *    of type T;
 *  - once every argument and result array has been given, the remaining
 *    parameters must be i64: they receive the extents of the argument
 *    arrays of rank >= 1, outermost first, array after array (a vector
 *    of n gives n; a matrix [m, k] gives m then k), as many as there are
 *    parameters.
 * A non-void `ret` is the value of the one result, a Scalar of that type;
 * a void function writes its results through pointers, and each result
 * array has the extents of the first argument array of its rank.  So
 * "void(f32*, f32*, i64)" maps a vector x : Vector f32 to a result of the
 * same length: f(x, out, n).  A signature that does not fit a foreign
 * node's types is refused at compile time (the plan says why) and the
 * fallback is used.  A function of scalar parameters with a non-void
 * `ret`, such as "f64(f64, f64)", also implements acc_foreign_exp nodes of
 * that name: the parameters receive the leaves of the argument in order.
 * Errors: ACC_ERR_PARSE for a bad signature, with the 0-based character
 * position and what was expected; ACC_ERR_NOT_FOUND naming the library or
 * the symbol dlopen/dlsym could not find; ACC_ERR_UNSUPPORTED when accel
 * was built without libffi. */
ACC_API acc_status acc_register_c_function(acc_context *ctx, const char *name,
                                           const char *library,
                                           const char *symbol,
                                           const char *signature);

/* --- user kernels ---------------------------------------------------------
 * Source code of the user's own, compiled by accel and registered as an
 * implementation of a foreign name in one call: C for the host backends
 * (compiled by the CPU backend's C compiler, through its kernel cache) or
 * CUDA C for the cuda backend (compiled by NVRTC, through the module
 * cache).  docs/PLUGINS.md, "User kernels", is the guide. */
typedef struct acc_user_kernel {
    size_t struct_size;     /* sizeof(acc_user_kernel)                     */
    const char *name;       /* the foreign name implemented, "my.scale"    */
    /* ACC_BACKEND_CPU (or _INTERP): C source for the host backends;
     * ACC_BACKEND_CUDA: CUDA C source for the cuda backend. */
    acc_backend backend;
    const char *source;     /* the whole translation unit (copied)        */
    const char *entry;      /* the function it defines: a C function, or a
                               __global__ (arrays) / __device__ (scalars)
                               CUDA function, declared extern "C"          */
    /* Its C type in the grammar of acc_register_c_function, which also
     * maps the foreign node's arrays to the parameters.  With only scalar
     * parameters and a non-void result ("f64(f64, f64)") it is a scalar
     * function: it implements acc_foreign_exp nodes and is compiled into
     * the kernels that use them. */
    const char *signature;
    int32_t priority;       /* as acc_foreign_impl.priority                */
    /* Host: 1 splits the call over the context's thread pool by rows of
     * result 0: the function ends with two more i64 parameters, lo and
     * hi, and computes rows [lo, hi) of result 0 (all of them at once
     * when the context has no pool). */
    int32_t split;
    /* CUDA: the launch.  All zero: one thread per element of result 0,
     * blocks of 256 threads, a one-dimensional grid of enough blocks (the
     * kernel compares its index with the element count, which it computes
     * from the extents it receives).  block[0] != 0: grid and block as
     * given.  `launch` (NULL: none) decides per call, from the call's
     * descriptors: it sets grid and block (both start as the default), or
     * returns ACC_ERR_UNSUPPORTED to run the fallback instead. */
    uint32_t grid[3];
    uint32_t block[3];
    acc_status (*launch)(void *user, const acc_foreign_call *call,
                         uint32_t grid[3], uint32_t block[3]);
    void *user;             /* passed to launch                            */
    /* CUDA: bytes of dynamic shared memory (`extern __shared__ T s[];`)
     * per block, the sharedMemBytes of every launch; 0: none.  At most
     * 48 KiB (CUDA's limit without an opt-in): a larger request fails the
     * launch.  Read only when struct_size covers it (added after the first
     * release; an older caller's kernels get none). */
    uint32_t shared_bytes;
} acc_user_kernel;

/* Compiles kernel->source and registers its function `entry` as an
 * implementation of `name`, called with the mapping of
 * acc_register_c_function (pointers to the arrays' buffers, scalars,
 * then the extents): host pointers on the host backends, device pointers
 * on the cuda backend, where the kernel is launched on the run's stream.
 * accel allocates the results (each of rank r has the extents of the
 * first argument array of rank r).  A signature that does not fit a
 * foreign node is refused when a program is compiled and its plan says
 * why; the fallback runs.  Errors: ACC_ERR_INVALID_ARGUMENT (a missing
 * field, an entry that is not a C identifier, a backend, a split
 * function without lo and hi, a CUDA kernel that returns a value),
 * ACC_ERR_PARSE (the signature, with the position), ACC_ERR_COMPILE with
 * the C compiler's or NVRTC's messages when the source does not compile
 * or the C compiler cannot be run (a CUDA kernel is compiled by NVRTC
 * here, for checking, when NVRTC is found, and again for the device of
 * each cuda program that chooses it; a scalar CUDA function only in the
 * kernels that call it), ACC_ERR_UNSUPPORTED when accel was built
 * without libffi (host). */
ACC_API acc_status acc_register_kernel(acc_context *ctx,
                                       const acc_user_kernel *kernel);

/* ------------------------------------------------------------------------
 * Plans and run statistics (what was compiled, and what the last run did)
 * ------------------------------------------------------------------------ */

/* Frees memory that accel handed to the caller (strings from
 * acc_program_explain, acc_parse_entries and the other functions that say
 * so).  NULL-safe. */
ACC_API void acc_free(void *memory);

typedef struct acc_plan_summary {
    size_t struct_size;     /* sizeof(acc_plan_summary)                      */
    acc_backend backend;    /* where the program runs                        */
    size_t kernels;         /* parallel steps (kernels) in the plan          */
    size_t intermediates;   /* arrays materialised that are neither inputs
                               nor outputs                                   */
    size_t foreign_calls;   /* foreign nodes that call an implementation     */
    size_t duplicated;      /* cheap producers computed in several consumers */
} acc_plan_summary;

/* Fills *out (set out->struct_size first).  The plan is fixed at compile
 * time. */
ACC_API acc_status acc_program_plan(const acc_program *program,
                                    acc_plan_summary *out);

/* The plan as text for people (json = 0) or as a JSON object (json = 1)
 * with at least the keys "backend", "kernels" (a number),
 * "intermediates" (a number) and "steps" (one object per kernel or host
 * step: its operation, the operations fused into it, its element type).
 * *text is allocated by accel; release it with acc_free. */
ACC_API acc_status acc_program_explain(const acc_program *program, int json,
                                       char **text);

typedef struct acc_run_stats {
    size_t struct_size;         /* sizeof(acc_run_stats)                      */
    uint64_t kernels_launched;  /* kernels run by the last completed run     */
    uint64_t bytes_allocated;   /* array memory allocated by that run        */
    uint64_t intermediate_bytes;/* of which for intermediate arrays          */
    double seconds;             /* its wall-clock duration                   */
} acc_run_stats;

/* Statistics of the program's last completed run (zeros before the first).
 * With concurrent runs, "last" is whichever finished last. */
ACC_API acc_status acc_program_last_run(const acc_program *program,
                                        acc_run_stats *out);

/* ------------------------------------------------------------------------
 * Text programs (LANGUAGE.md §4)
 * ------------------------------------------------------------------------ */

/* Parses and elaborates `source` (len bytes, or NUL-terminated when len is
 * (size_t)-1) into graph g.  The entry point `entry` (a definition whose
 * parameters are all annotated; NULL picks the only entry point, or fails
 * naming them when there are several) becomes: one acc_input per parameter
 * in order (a scalar parameter `(n : i64)` is a rank-0 input), and one
 * result per output array, stored in results[0..*n_results-1] (at most
 * max_results; a tuple of arrays gives several).  Errors are ACC_ERR_PARSE
 * (or ACC_ERR_TYPE / ACC_ERR_NOT_FOUND) with a message starting
 * "LINE:COLUMN: " that says what was found and what was expected. */
ACC_API acc_status acc_parse(acc_graph *g, const char *source, size_t len,
                             const char *entry, acc_node **results,
                             size_t max_results, size_t *n_results);

/* The entry points of a text program, as one allocated string of names
 * separated by '\n' (release with acc_free). */
ACC_API acc_status acc_parse_entries(const char *source, size_t len,
                                     char **names);

/* The entry points of a text program with their signatures, without
 * compiling them: a JSON object
 *     {"entries": [{"name": NAME, "inputs": [ITEM, ...],
 *                   "outputs": [ITEM, ...]}, ...]}
 * in source order, each ITEM as acc_program_signature_json gives it for
 * that entry compiled with acc_compile_text (the inputs named after the
 * parameters).  Every entry is elaborated (no context is needed); the
 * first that fails fails the call with acc_parse's error ("LINE:COLUMN:
 * ...").  *json is allocated by accel; release it with acc_free. */
ACC_API acc_status acc_parse_entries_json(const char *source, size_t len,
                                          char **json);

/* Convenience: acc_parse into a fresh graph, then acc_compile. */
ACC_API acc_status acc_compile_text(acc_context *ctx, const char *source,
                                    size_t len, const char *entry,
                                    acc_program **out);

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_H */
