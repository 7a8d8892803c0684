/*
 * rt_array.h — arrays at run time: buffers (one per scalar leaf of the
 * element type), extents, and a reference count.  Executors produce them;
 * the program's run function turns them into the caller's descriptors.
 *
 * Residency.  An array's contents are valid on the host (data[]), on a
 * device (dev[]), or both (`valid`).  Arrays never change once computed,
 * so a copy made in one direction stays valid.  The host backends only
 * ever see host arrays.  The CUDA backend's kernels produce device arrays
 * and upload host arrays they read (once: the array then lives in both
 * places); whoever reads host data (the interpreter through
 * interp_array_of, the delivery of results) calls rt_host, which
 * allocates host buffers and downloads through the array's dev_ops.
 */
#ifndef ACC_CORE_BACKEND_RT_ARRAY_H
#define ACC_CORE_BACKEND_RT_ARRAY_H

#include "core/ir/ir.h"

enum { RT_ON_HOST = 1, RT_ON_DEVICE = 2 };

typedef struct rt_array rt_array;

/* A device backend's handling of the device side of its arrays. */
typedef struct rt_device_ops {
    /* Copies the device contents of every leaf of a into dst[leaf] (host
     * buffers of a->size elements).  0 after recording an error on d. */
    int (*download)(const rt_array *a, void *const *dst, diag *d);
    /* Gives back the device buffers of an array that owns them. */
    void (*release)(rt_array *a);
} rt_device_ops;

struct rt_array {
    const acc_type *elem;
    int32_t rank;
    int64_t extents[ACC_MAX_RANK];
    int64_t size;
    void *data[ACC_MAX_COMPONENTS]; /* host buffers, when valid & RT_ON_HOST */
    int owns_data; /* data was allocated by accel and is freed with it */
    uint64_t host_bytes; /* of data, counted in rt_live_bytes */
    unsigned refs;
    unsigned valid; /* RT_ON_HOST | RT_ON_DEVICE */
    uint64_t dev[ACC_MAX_COMPONENTS]; /* device buffers (0 for an empty
                                         array), when valid & RT_ON_DEVICE */
    int owns_dev;   /* dev[] is released through dev_ops with the array */
    const rt_device_ops *dev_ops; /* set whenever valid & RT_ON_DEVICE */
    void *dev_state;              /* the backend's, for dev_ops */
    int kept_shell; /* the struct is its creator's (rt_wrap_at): the last
                       release frees what it owns, not the struct */
};

/* The number of elements of a shape; -1 for a negative extent or overflow. */
int64_t rt_shape_size(int32_t rank, const int64_t *extents);
/* Writes "[3, 4]" into buf. */
const char *rt_format_shape(int32_t rank, const int64_t *extents, char *buf,
                            size_t size);
/* A new host array with uninitialised buffers (refs = 1).  Errors
 * (negative extents, overflow, no memory) are recorded on d with `op`
 * named. */
rt_array *rt_alloc(const acc_type *elem, int32_t rank, const int64_t *extents,
                   const char *op, diag *d);
/* An array without buffers (valid = 0, refs = 1), for a device backend to
 * give device buffers.  Errors as rt_alloc. */
rt_array *rt_shell(const acc_type *elem, int32_t rank, const int64_t *extents,
                   const char *op, diag *d);
/* Bytes of leaf i of a. */
size_t rt_leaf_bytes(const rt_array *a, size_t i);
/* A borrowed view of a caller's descriptor (refs = 1): host buffers, or,
 * for device memory, device buffers whose dev_ops the backend sets. */
rt_array *rt_wrap(const acc_array *desc, diag *d);
/* The same view built in `shell`, storage of the caller's that outlives
 * every reference (a run's own frame: every array of a run is released
 * before it returns), so that wrapping allocates nothing; returns shell. */
rt_array *rt_wrap_at(rt_array *shell, const acc_array *desc);
/* Makes a's contents valid on the host (allocating host buffers and
 * downloading when it is device-only).  0 after recording an error. */
int rt_host(rt_array *a, diag *d);
/* Copies a's contents into host buffers dst[] (from the host copy when
 * there is one).  0 after recording an error. */
int rt_copy_to_host(const rt_array *a, void *const *dst, diag *d);
void rt_retain(rt_array *a);
void rt_release(rt_array *a);
/* The host buffers of a are handed to someone else (a library-owned
 * output): a no longer frees them, nor counts them. */
void rt_disown(rt_array *a);

/* The host memory of the arrays accel owns, process-wide: live now, and
 * the most live at once since rt_reset_peak (which sets it to what is
 * live).  For tests and figures: a run's intermediates are released after
 * their last use, so its peak is measurable. */
uint64_t rt_live_bytes(void);
uint64_t rt_peak_bytes(void);
void rt_reset_peak(void);

/* Linear position of index ix in an array of the given extents, and back. */
static inline int64_t rt_ravel(int32_t rank, const int64_t *extents,
                               const int64_t *ix)
{
    int64_t k = 0;
    for (int32_t d = 0; d < rank; d++)
        k = k * extents[d] + ix[d];
    return k;
}

static inline void rt_unravel(int32_t rank, const int64_t *extents, int64_t k,
                              int64_t *ix)
{
    for (int32_t d = rank - 1; d >= 0; d--) {
        int64_t e = extents[d];
        ix[d] = e ? k % e : 0;
        k = e ? k / e : 0;
    }
}

#endif
