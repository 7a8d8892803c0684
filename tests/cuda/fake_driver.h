/*
 * fake_driver.h — the controls and records of the fake CUDA driver
 * (fake_driver*.c), which tests load instead of libcuda.so.1 through
 * ACC_CUDA_DRIVER.  The fake keeps "device" memory in host memory, checks
 * how the driver API is used (a current context, live streams, copies
 * inside live allocations, images that are cubins or PTX) and records
 * every copy, launch and synchronisation with the stream it used.  It
 * cannot execute a kernel: a launch is recorded and nothing is computed,
 * so tests on it check accel's host-side logic, never results.
 *
 * A test dlopen()s the same path the library loads (the same instance) and
 * reaches these functions with dlsym.
 */
#ifndef ACCEL_TESTS_CUDA_FAKE_DRIVER_H
#define ACCEL_TESTS_CUDA_FAKE_DRIVER_H

#include <stddef.h>
#include <stdint.h>

typedef enum fake_kind {
    FAKE_ALLOC = 1, FAKE_FREE, FAKE_HTOD, FAKE_DTOH, FAKE_DTOD, FAKE_LAUNCH,
    FAKE_SYNC, FAKE_MODULE_LOAD, FAKE_STREAM_CREATE, FAKE_STREAM_DESTROY
} fake_kind;

typedef struct fake_event {
    fake_kind kind;
    void *stream;        /* the CUstream used (copies, launches, syncs) */
    size_t bytes;        /* allocations and copies */
    char function[64];   /* launches: the kernel's name */
    unsigned grid[3], block[3];
    /* launches of accel's kernels (named accel_*; zero for a user
     * kernel): acc_kargs.out_size and .inner (read from the argument at
     * FAKE_KARGS_OUT_SIZE_OFFSET and FAKE_KARGS_INNER_OFFSET), and the
     * int64_t second parameter when the launch passes one (has_arg1):
     * accel's launches always pass two parameter pointers, the second
     * NULL for kernels with one parameter (cuda_launch.c) */
    int64_t out_size, inner, arg1;
    int has_arg1;
} fake_event;

typedef struct fake_counters {
    long allocs, alloc_failures, frees, live_allocs;
    size_t live_bytes;
    long htod, dtoh, dtod, launches, syncs;
    long modules_loaded, modules_unloaded, cubins, ptx_images;
    long streams_created, streams_destroyed;
    long primary_retains, primary_releases;
    long misuse; /* calls refused: no current context, a dead stream, a
                    copy outside an allocation, a bad image, ... */
    char last_misuse[160];
} fake_counters;

typedef struct fake_config {
    int init_error;          /* cuInit's result (0: CUDA_SUCCESS) */
    int devices;             /* cuDeviceGetCount */
    int cc_major, cc_minor;  /* compute capability of every device */
    long alloc_fail_after;   /* -1: never; n: after the next n successful
                                allocations, fail with
                                CUDA_ERROR_OUT_OF_MEMORY ... */
    long alloc_fail_times;   /* ... this many times (0: every time) */
    int sync_error;          /* cuStreamSynchronize's result (0: success),
                                as after a kernel failed on the device */
    int occupancy_block;     /* cuOccupancyMaxPotentialBlockSize's answer */
    int fail_launches;       /* launches from now that write
                                fail_code/site/pos into their error slot */
    int fail_code, fail_site;
    int64_t fail_pos;
    /* What a kernel would have written (the fake computes nothing): the
     * next launch of poke_function writes poke_len bytes of poke_bytes at
     * byte poke_offset of the buffer its A->part[poke_part] points to
     * (acc_kargs.part in core/skeletons/cuda/prelude.cuh.in), then
     * poke_function is cleared. */
    char poke_function[64];
    int poke_part;
    size_t poke_offset, poke_len;
    unsigned char poke_bytes[32];
} fake_config;

/* Where the error slot's device pointer lies in a kernel's argument block
 * (acc_kargs.err in core/skeletons/cuda/prelude.cuh.in); the fake writes
 * a failure there when asked to, as a failing kernel would.  The same for
 * the partial pointers (acc_kargs.part), for poke_function; out_size and
 * inner are recorded with each launch. */
enum { FAKE_KARGS_ERR_OFFSET = 184, FAKE_KARGS_PART_OFFSET = 168,
       FAKE_KARGS_OUT_SIZE_OFFSET = 80, FAKE_KARGS_INNER_OFFSET = 152 };

/* The defaults: init ok, one device of compute capability 9.0, no
 * failures, block size 256, no pokes.  Records and counters are
 * cleared. */
#define FAKE_CONFIG_DEFAULTS \
    {0, 1, 9, 0, -1, 0, 0, 256, 0, 0, 0, 0, "", 0, 0, 0, {0}}
void fake_cuda_reset(void);
void fake_cuda_configure(const fake_config *config);
void fake_cuda_get_config(fake_config *config);
void fake_cuda_counters(fake_counters *out);
/* Copies up to max recorded events into out; returns how many there are. */
size_t fake_cuda_events(fake_event *out, size_t max);
void fake_cuda_clear_events(void);

typedef void (*fake_cuda_reset_fn)(void);
typedef void (*fake_cuda_configure_fn)(const fake_config *);
typedef void (*fake_cuda_get_config_fn)(fake_config *);
typedef void (*fake_cuda_counters_fn)(fake_counters *);
typedef size_t (*fake_cuda_events_fn)(fake_event *, size_t);
typedef void (*fake_cuda_clear_events_fn)(void);

#endif
