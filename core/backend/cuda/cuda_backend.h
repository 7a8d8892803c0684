/*
 * cuda_backend.h — the CUDA backend as the rest of accel sees it: the
 * state of a context (device, primary context, memory pool, module cache,
 * streams), of a program (its kernels compiled and loaded), of a run (its
 * stream, the residency of its arrays, the interpreter hook that launches
 * kernels) and of an execution handle (acc_exec: the caller's stream and
 * what its asynchronous runs left to finish).
 *
 * It is a backend (backend.h: cuda_ops, cuda_ops.c).  The executor runs
 * the schedule: every step with a loaded kernel is launched by a driver
 * (drive_*.c, one per kernel kind, listed in cuda_program.c's `launchers`
 * table); every other step is run by the interpreter on host copies of
 * its arguments, which rt_host downloads on demand
 * (core/backend/rt_array.h).  docs/CUDA.md describes the whole design.
 */
#ifndef ACC_CORE_BACKEND_CUDA_CUDA_BACKEND_H
#define ACC_CORE_BACKEND_CUDA_CUDA_BACKEND_H

#include "core/backend/backend.h"

#include <stdint.h>

typedef struct cuda_backend cuda_backend;
typedef struct cuda_program cuda_program;
typedef struct cuda_run cuda_run;
typedef struct cuda_queue cuda_queue;

extern const backend_ops cuda_ops;

/* ---- contexts ------------------------------------------------------------------ */

/* Opens device `ordinal`: loads the driver and NVRTC, retains the
 * device's primary context, creates the pool and the module cache (in
 * cache_dir, NULL: the default folder).  NULL after recording on d a
 * sentence saying why (ACC_ERR_UNSUPPORTED when something is missing,
 * ACC_ERR_DEVICE, or out of host memory through diag_oom). */
cuda_backend *cuda_backend_create(int ordinal, const char *cache_dir,
                                  diag *d);
/* The context is gone: the pool's cache is freed at once; the rest when
 * the last library-owned device output is released.  NULL-safe. */
void cuda_backend_close(cuda_backend *b);

/* The folder the module cache writes to and its note (malloc'd; see
 * core/cache/cache_folder.h: cache_folder_report): ACC_OK or the error
 * recorded on d. */
acc_status cuda_backend_cache_report(cuda_backend *b, char **dir,
                                     char **note, diag *d);

typedef struct cuda_memory_stats {
    uint64_t driver_allocs, driver_frees, reuses, cached_bytes, live_bytes;
} cuda_memory_stats;
void cuda_backend_memory(cuda_backend *b, cuda_memory_stats *out);

/* ---- programs ------------------------------------------------------------------ */

/* Compiles (NVRTC, through the module cache), loads and looks up the
 * kernels of schedule s's array steps that have a CUDA skeleton and a
 * launcher (sched_step.kernel); the others are the interpreter's, or
 * with `strict` an error.  Errors are recorded on d. */
acc_status cuda_program_build(cuda_backend *be, const ir_program *ir,
                              sched_program *s, int strict,
                              cuda_program **out, diag *d);
void cuda_program_free(cuda_program *cp);
/* Kernels and cache figures appended to the plan's description (JSON: a
 * "cuda" member added to the object in b). */
void cuda_program_describe(strbuf *b, const cuda_program *cp, int json);

/* ---- user kernels (cuda_user.c; foreign/user_kernel.c) ------------------------- */

typedef struct cuda_user_fn cuda_user_fn;

/* Compiles user kernel `source` with NVRTC (found as the backend finds
 * it) to PTX for a common architecture, without a device, and checks that
 * it defines the __global__ function `entry` with C linkage.  ACC_OK when
 * it does, or when NVRTC is not found (nothing is checked); else
 * ACC_ERR_COMPILE recorded on d, the message naming `who` (the API
 * function), the kernel and NVRTC's log. */
acc_status cuda_user_check(const char *who, const char *source,
                           const char *name, const char *entry, diag *d);
/* The kernel `entry` of `source` loaded for be's device, through the
 * module cache (compiled by NVRTC for the device when not cached).
 * Errors (NVRTC's log, a missing entry) on d. */
acc_status cuda_user_load(cuda_backend *be, const char *source,
                          const char *name, const char *entry,
                          cuda_user_fn **out, diag *d);
void cuda_user_unload(cuda_backend *be, cuda_user_fn *f);
/* Launches f on `stream` with cuLaunchKernel's `params` and shared_bytes
 * of dynamic shared memory per block; the context must be current (it
 * is, in a foreign call).  Errors on d. */
acc_status cuda_user_launch(cuda_backend *be, const cuda_user_fn *f,
                            const uint32_t grid[3], const uint32_t block[3],
                            uint32_t shared_bytes, void *stream,
                            void **params, diag *d);

/* ---- execution handles ------------------------------------------------------ */

/* The CUDA side of an acc_exec: work goes to `stream` (a CUstream; NULL
 * is the legacy default stream); asynchronous runs hand their resources
 * to the queue until cuda_queue_wait.  NULL when out of memory. */
cuda_queue *cuda_queue_create(cuda_backend *be, void *stream, int async);
/* Waits for everything queued on the stream and gives back what the runs
 * left; ACC_OK or the driver's error (recorded on d). */
acc_status cuda_queue_wait(cuda_queue *q, diag *d);
/* Waits, then frees.  NULL-safe. */
void cuda_queue_destroy(cuda_queue *q);

/* ---- runs ------------------------------------------------------------------------- */

/* Starts a run of cp in env: makes the context current, picks the
 * stream (env->queue's, or one of the context's own when it is NULL),
 * adopts device inputs and keeps the run's destinations (the caller's
 * device output buffers that the step producing an output writes
 * directly, see core/backend/destinations.h) and its stop request
 * (core/base/stop.h), checked before every kernel launch (a launched
 * kernel runs to completion).  On failure records on env->d and returns
 * NULL. */
cuda_run *cuda_run_begin(cuda_program *cp, run_env *env);
/* Runs array step s with its loaded kernel, as the interface's run_step
 * (backend.h): ACC_OK, the error recorded on the run's diag, or ACC_OK
 * with *replay set to hand the step to the interpreter. */
acc_status cuda_run_step(cuda_run *run, const sched_step *s, int *replay);
/* Delivers result r into output descriptor `out` in device memory: the
 * caller's buffers (when not written directly), or new library-owned
 * device buffers.  ACC_OK, or the status recorded on d. */
acc_status cuda_deliver_device(cuda_run *run, acc_array *out, rt_array *r,
                               diag *d);
/* Ends the run (every array of the run must be released): a synchronous
 * run waits for its stream; an asynchronous one leaves its work queued.
 * Returns d's status after recording a driver error there. */
acc_status cuda_run_end(cuda_run *run, diag *d);

#endif
