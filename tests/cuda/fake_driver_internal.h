/*
 * fake_driver_internal.h — what the files of the fake CUDA driver share
 * (fake_driver.c, fake_driver_device.c, fake_driver_memory.c,
 * fake_driver_launch.c): the device's shape, the driver's state (one lock
 * guards it all), and the bookkeeping every entry point uses: recording
 * an event, counting a misuse, and the preconditions of work on the
 * device.  Hidden: the shared object exports only the driver API (cu*)
 * and the test interface of fake_driver.h (fake_cuda_*).
 */
#ifndef ACCEL_TESTS_CUDA_FAKE_DRIVER_INTERNAL_H
#define ACCEL_TESTS_CUDA_FAKE_DRIVER_INTERNAL_H

#include <cuda.h>

#include "fake_driver.h"

#include <pthread.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

enum { MAX_DEPTH = 16 };

/* A live allocation: "device" memory is host memory. */
typedef struct allocation {
    unsigned char *bytes;
    size_t size;
    struct allocation *next;
} allocation;

/* A stream, kept after it is destroyed (live 0) so that a dead handle is
 * recognised. */
typedef struct fake_stream {
    int live;
    struct fake_stream *next;
} fake_stream;

/* The device's shape: the emulated device's from ACC_EMU_DEVICE, the
 * plain fake's fixed one. */
typedef struct device_shape {
    const char *name;
    int sms;       /* multiprocessors */
    int block;     /* the occupancy block size (at most; the fake's
                      config.occupancy_block when 0) */
    int min_grid;  /* the occupancy minimum grid */
    int max_block; /* threads per block */
    size_t memory; /* bytes of device memory (0: as much as the host's) */
    int reverse;   /* a block's threads run last to first */
    unsigned shared; /* bytes of dynamic shared memory a launch may ask
                        for: 48 KiB, CUDA's limit without the opt-in
                        (cuFuncSetAttribute, which no fake has) */
} device_shape;

device_shape shape(void);

/* The driver's state (fake_driver.c), guarded by `lock`; the context
 * stack is each thread's own. */
extern pthread_mutex_t lock;
extern fake_config config;
extern fake_counters counters;
extern int initialised;
extern int primary_refs;
extern struct CUctx_st *const primary;
extern allocation *allocations;
extern fake_stream *streams;   /* every stream ever created (kept) */
extern _Thread_local CUcontext ctx_stack[MAX_DEPTH];
extern _Thread_local int ctx_depth;

/* ---- bookkeeping (called with the lock held) ------------------------------ */

/* A new event of `kind` in the record (the rest of it zero). */
fake_event *record(fake_kind kind, CUstream stream, size_t bytes);

/* Counts a misuse of the driver API (`what` is kept) and returns r. */
CUresult misuse(CUresult r, const char *what);

/* The common preconditions of work on the device. */
CUresult need_context(void);

/* NULL and the two special handles are the default streams. */
int stream_ok(CUstream s);

/* The live allocation holding [p, p + n), or NULL. */
allocation *holding(CUdeviceptr p, size_t n);

/* need_context, and a live stream s. */
CUresult copy_checks(CUstream s);

#pragma GCC visibility pop

#endif /* ACCEL_TESTS_CUDA_FAKE_DRIVER_INTERNAL_H */
