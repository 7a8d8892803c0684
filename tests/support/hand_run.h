/*
 * hand_run.h — a run of a compiled program begun by hand, with nothing
 * bound: enough for the memory operations of the backend interface
 * (core/backend/backend.h: alloc, copy, release), which need only the
 * run.  For tests/unit/test_backend_memory.c (host backends) and
 * tests/cuda/test_cuda_fake_memory.c (CUDA over the fake driver), which
 * reach the operations through the context's backend (abi/src/context.h),
 * as the executor does.  Internal functions: only tests that link
 * accel_internal may call these.
 */
#ifndef ACCEL_TESTS_HAND_RUN_H
#define ACCEL_TESTS_HAND_RUN_H

#include "accel.h"
#include "core/backend/backend.h"

/* twice: a map over a Vector f32, the program both tests run. */
extern const char ts_doubling_source[];

typedef struct ts_hand_run {
    diag d;
    run_env env;
    const backend_ops *ops;
    backend_run *run;
} ts_hand_run;

/* Begins a run of p on ctx's backend; asserts the backend has the memory
 * operations and the run began. */
void ts_hand_begin(ts_hand_run *h, acc_context *ctx, acc_program *p);
/* Ends the run; expects ACC_OK. */
void ts_hand_end(ts_hand_run *h);

#endif
