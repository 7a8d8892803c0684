/*
 * mpi_device.c — the collectives on the cuda backend (docs/DISTRIBUTED.md,
 * "Memory"): the plugin registers, next to each host implementation, two
 * CUDA ones, which accel calls with device descriptors and the run's
 * stream (core/backend/cuda/cuda_foreign.c):
 *
 *  - staged: the stream is synchronised (the kernels that wrote the
 *    arguments are done), the arguments are copied to host buffers, the
 *    host collective of mpi_ops.c runs on them, and its results are copied
 *    into accel's device results, on the stream, waited for;
 *  - direct: the stream is synchronised and the device pointers go to MPI
 *    as they are, which only a CUDA-aware MPI accepts.
 *
 * Which one a program uses is decided when it is compiled (the plan names
 * it): ACC_MPI_CUDA_AWARE=0|1 when set, else MPIX_Query_cuda_support()
 * (Open MPI's run-time answer), else staged.
 *
 * The plugin does not link libcuda: it opens the driver the library uses
 * (ACC_CUDA_DRIVER when set, else libcuda.so.1, which the library has
 * loaded already: dlopen returns the same instance) for the four copy and
 * wait functions it needs, on first use.  Host buffers are ordinary
 * (pageable) memory, freed after each call.
 */
#include "mpi_plugin.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the driver's copy functions ------------------------------------------ */

/* The driver API's types as the plugin sees them (no CUDA header needed):
 * CUresult is an int, CUdeviceptr an unsigned long long, CUstream a
 * pointer. */
typedef int dev_result;
typedef unsigned long long dev_ptr;
typedef struct dev_stream_st *dev_stream;

typedef struct dev_driver {
    dev_result (*htod)(dev_ptr dst, const void *src, size_t bytes,
                       dev_stream s);
    dev_result (*dtoh)(void *dst, dev_ptr src, size_t bytes, dev_stream s);
    dev_result (*dtod)(dev_ptr dst, dev_ptr src, size_t bytes, dev_stream s);
    dev_result (*sync)(dev_stream s);
    dev_result (*error_string)(dev_result r, const char **text);
} dev_driver;

static dev_driver driver;
/* "" once the driver is loaded; written only by driver_load */
static char driver_why[768] = "the CUDA driver was not loaded";
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

static int resolve(void *lib, const char *symbol, void *slot)
{
    void *p = dlsym(lib, symbol);
    if (!p)
        snprintf(driver_why, sizeof driver_why, "the CUDA driver lacks %s",
                 symbol);
    else /* copied as bytes: ISO C has no object-to-function pointer cast */
        memcpy(slot, &p, sizeof p);
    return p != NULL;
}

static void driver_load(void)
{
    const char *forced = getenv("ACC_CUDA_DRIVER");
    const char *name = forced && *forced ? forced : "libcuda.so.1";
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib && !(forced && *forced))
        lib = dlopen(name = "libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(driver_why, sizeof driver_why, "the CUDA driver (%s) cannot "
                 "be opened: %s", name, e ? e : "dlopen failed");
        return;
    }
    /* never closed: the driver does not support being unloaded */
    if (resolve(lib, "cuMemcpyHtoDAsync_v2", &driver.htod) &&
        resolve(lib, "cuMemcpyDtoHAsync_v2", &driver.dtoh) &&
        resolve(lib, "cuMemcpyDtoDAsync_v2", &driver.dtod) &&
        resolve(lib, "cuStreamSynchronize", &driver.sync) &&
        resolve(lib, "cuGetErrorString", &driver.error_string))
        driver_why[0] = '\0';
}

static const char *op_name(const acc_foreign_call *c)
{
    return ((const mpi_impl_user *)c->user)->op->name;
}

/* The loaded driver, or NULL with the call's message written. */
static const dev_driver *driver_get(acc_foreign_call *c)
{
    pthread_once(&driver_once, driver_load);
    if (driver_why[0]) {
        mpi_fail(c, ACC_ERR_DEVICE, "%s: %s", op_name(c), driver_why);
        return NULL;
    }
    return &driver;
}

/* ACC_OK, or ACC_ERR_DEVICE naming what failed and the driver's words. */
static acc_status dev_check(acc_foreign_call *c, dev_result r,
                            const char *what)
{
    const char *text = NULL;
    if (r == 0)
        return ACC_OK;
    if (driver.error_string(r, &text) != 0 || !text)
        text = "no description";
    return mpi_fail(c, ACC_ERR_DEVICE, "%s: %s failed: CUDA error %d (%s)",
                    op_name(c), what, r, text);
}

static dev_stream stream_of(const acc_foreign_call *c)
{
    return (dev_stream)c->stream;
}

static acc_status stream_wait(acc_foreign_call *c, const dev_driver *d)
{
    return dev_check(c, d->sync(stream_of(c)), "synchronising the stream");
}

/* ---- copies inside a call ------------------------------------------------- */

/* The arguments' descriptors say where the call's arrays are (the
 * results' say it only from execute on: result_shape sees them before
 * accel allocates them); rank and size have no argument and write in
 * execute. */
static int on_device(const acc_foreign_call *c)
{
    const acc_array *a = c->n_args ? &c->args[0] : &c->results[0];
    return a->memory == ACC_MEMORY_CUDA_DEVICE;
}

acc_status mpi_copy(acc_foreign_call *c, void *dst, const void *src,
                    size_t bytes)
{
    const dev_driver *d;
    if (bytes == 0 || dst == src)
        return ACC_OK;
    if (!on_device(c)) {
        memcpy(dst, src, bytes);
        return ACC_OK;
    }
    if (!(d = driver_get(c)))
        return ACC_ERR_DEVICE;
    acc_status s = dev_check(c, d->dtod((dev_ptr)(uintptr_t)dst,
                                        (dev_ptr)(uintptr_t)src, bytes,
                                        stream_of(c)), "a device copy");
    return s == ACC_OK ? stream_wait(c, d) : s;
}

acc_status mpi_get(acc_foreign_call *c, void *host, const void *src,
                   size_t bytes)
{
    const dev_driver *d;
    if (bytes == 0)
        return ACC_OK;
    if (!on_device(c)) {
        memcpy(host, src, bytes);
        return ACC_OK;
    }
    if (!(d = driver_get(c)))
        return ACC_ERR_DEVICE;
    acc_status s = dev_check(c, d->dtoh(host, (dev_ptr)(uintptr_t)src, bytes,
                                        stream_of(c)), "a copy to the host");
    return s == ACC_OK ? stream_wait(c, d) : s;
}

acc_status mpi_put(acc_foreign_call *c, void *dst, const void *host,
                   size_t bytes)
{
    const dev_driver *d;
    if (bytes == 0)
        return ACC_OK;
    if (!on_device(c)) {
        memcpy(dst, host, bytes);
        return ACC_OK;
    }
    if (!(d = driver_get(c)))
        return ACC_ERR_DEVICE;
    acc_status s = dev_check(c, d->htod((dev_ptr)(uintptr_t)dst, host, bytes,
                                        stream_of(c)), "a copy to the device");
    return s == ACC_OK ? stream_wait(c, d) : s;
}

/* ---- the two paths -------------------------------------------------------- */

static size_t leaf_bytes(const acc_array *a, size_t leaf)
{
    return (size_t)acc_array_size(a) *
           acc_scalar_size(acc_type_leaf(a->type, leaf));
}

/* Host twins of the call's arrays: the same descriptors in host memory,
 * with buffers of their own (NULL where an array is empty). */
typedef struct staging {
    acc_array *arrays; /* the arguments, then the results */
    size_t n;
} staging;

static void staging_free(staging *h)
{
    for (size_t i = 0; h->arrays && i < h->n; i++)
        for (size_t j = 0; j < ACC_MAX_COMPONENTS; j++)
            free(h->arrays[i].data[j]);
    free(h->arrays);
}

static acc_status staging_make(acc_foreign_call *c, staging *h)
{
    h->n = c->n_args + c->n_results;
    h->arrays = calloc(h->n ? h->n : 1, sizeof *h->arrays);
    for (size_t i = 0; h->arrays && i < h->n; i++) {
        acc_array *a = &h->arrays[i];
        *a = i < c->n_args ? c->args[i] : c->results[i - c->n_args];
        a->memory = ACC_MEMORY_HOST;
        a->device = 0;
        for (size_t j = 0; j < ACC_MAX_COMPONENTS; j++)
            a->data[j] = NULL;
        for (size_t j = 0; j < acc_type_leaf_count(a->type); j++)
            if (leaf_bytes(a, j) && !(a->data[j] = malloc(leaf_bytes(a, j))))
                return mpi_fail(c, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of "
                                "host memory for the staging buffers",
                                op_name(c));
    }
    return h->arrays ? ACC_OK
                     : mpi_fail(c, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of "
                                "host memory", op_name(c));
}

/* Moves every leaf between the device arrays `dev` and their twins:
 * to the host (down) or to the device, on the stream, then waits. */
static acc_status staging_move(acc_foreign_call *c, const dev_driver *d,
                               const acc_array *dev, acc_array *host,
                               size_t n, int down)
{
    acc_status s = ACC_OK;
    for (size_t i = 0; s == ACC_OK && i < n; i++)
        for (size_t j = 0; s == ACC_OK &&
                           j < acc_type_leaf_count(dev[i].type); j++) {
            size_t bytes = leaf_bytes(&dev[i], j);
            dev_ptr p = (dev_ptr)(uintptr_t)dev[i].data[j];
            if (bytes)
                s = down ? dev_check(c, d->dtoh(host[i].data[j], p, bytes,
                                                stream_of(c)),
                                     "a copy to the host")
                         : dev_check(c, d->htod(p, host[i].data[j], bytes,
                                                stream_of(c)),
                                     "a copy to the device");
        }
    return s == ACC_OK ? stream_wait(c, d) : s;
}

/* A device error before the collective is this rank's local failure.  The
 * collectives that agree in execute (all-reduce, all-to-all, halo) enter
 * it failed, so that with ACC_MPI_CHECK=1 every rank stops there at once
 * ("rank R failed before it"); without the check the others find out at
 * the time limit, as for any failure before a collective.  All-gather and
 * broadcast agreed in result_shape, before the device was waited for; rank
 * and size do not communicate. */
static acc_status failed_before(acc_foreign_call *c, acc_status s)
{
    const mpi_impl_user *u = c->user;
    mpi_op_kind k = u->op->kind;
    if ((k >= MOP_SUM && k <= MOP_MAX) || k == MOP_ALLTOALL ||
        k == MOP_HALO_CHAIN || k == MOP_HALO_RING) {
        mpi_lock();
        (void)mpi_enter(u->st, u->op->name, c, s); /* s, or a broken comm */
        mpi_unlock();
    }
    return s;
}

acc_status mpi_staged_execute(acc_foreign_call *c)
{
    const mpi_impl_user *u = c->user;
    const dev_driver *d = driver_get(c);
    staging h = {NULL, 0};
    acc_status s = d ? staging_make(c, &h) : ACC_ERR_DEVICE;
    /* the stream's kernels wrote the arguments: the copies follow them */
    if (s == ACC_OK)
        s = staging_move(c, d, c->args, h.arrays, c->n_args, 1);
    if (s != ACC_OK) {
        staging_free(&h);
        return failed_before(c, s);
    }
    acc_foreign_call hc = *c;
    hc.args = h.arrays;
    hc.results = h.arrays + c->n_args;
    s = u->op->execute(&hc); /* its message: the buffer c shares */
    if (s == ACC_OK)
        s = staging_move(c, d, c->results, h.arrays + c->n_args,
                         c->n_results, 0);
    staging_free(&h);
    return s;
}

acc_status mpi_direct_execute(acc_foreign_call *c)
{
    const mpi_impl_user *u = c->user;
    const dev_driver *d = driver_get(c);
    /* MPI does not know the stream: the kernels that wrote the arguments
     * must be done before it reads them */
    acc_status s = d ? stream_wait(c, d) : ACC_ERR_DEVICE;
    return s == ACC_OK ? u->op->execute(c) : failed_before(c, s);
}

/* ---- which path ------------------------------------------------------------ */

static int library_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

int mpi_cuda_aware(char *how, size_t size)
{
    const char *v = getenv("ACC_MPI_CUDA_AWARE");
    int forced = v && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0);
    if (forced) {
        snprintf(how, size, "ACC_MPI_CUDA_AWARE=%s", v);
        return v[0] == '1';
    }
    int aware = library_cuda_aware();
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    snprintf(how, size, "MPIX_Query_cuda_support() is %d%s%s%s", aware,
             v && *v ? "; ACC_MPI_CUDA_AWARE='" : "", v && *v ? v : "",
             v && *v ? "' is neither 0 nor 1: ignored" : "");
#else
    snprintf(how, size, "this MPI cannot report CUDA support%s%s%s",
             v && *v ? "; ACC_MPI_CUDA_AWARE='" : "", v && *v ? v : "",
             v && *v ? "' is neither 0 nor 1: ignored" : "");
#endif
    return aware;
}
