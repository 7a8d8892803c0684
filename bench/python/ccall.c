/* ccall.c — the C side of the Python overhead benchmark
 * (bench/python/overhead.py): runs a program the way a C caller does, so
 * that Python's call can be compared with C's in one process, on the same
 * compiled program and the same input buffers.
 *
 * Loaded by the benchmark through ctypes (a module of its own, not part of
 * libaccel: the binding itself needs no compiled code). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stddef.h>
#include <string.h>
#include <time.h>

#include "accel.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

acc_status accbench_run_c(acc_program *program, size_t n_inputs,
                          const acc_array *inputs, size_t n_outputs,
                          int reps, double *secs);

/* Runs `program` `reps` times on the descriptors `inputs` (as the binding
 * builds them), letting accel allocate the outputs (as the binding does
 * without out=) and releasing them, and writes the seconds of each call to
 * secs[r].  Returns the first failing status, else ACC_OK. */
acc_status accbench_run_c(acc_program *program, size_t n_inputs,
                          const acc_array *inputs, size_t n_outputs,
                          int reps, double *secs)
{
    enum { MAX_OUT = 16 };
    acc_status status = ACC_OK;
    if (n_outputs > MAX_OUT) {
        status = ACC_ERR_INVALID_ARGUMENT;
    }
    for (int r = 0; r < reps && status == ACC_OK; r++) {
        acc_array out[MAX_OUT];
        memset(out, 0, sizeof out);
        for (size_t k = 0; k < n_outputs; k++) {
            out[k].struct_size = sizeof out[k];
        }
        double t0 = now_seconds();
        status = acc_run(program, n_inputs, inputs, n_outputs, out);
        secs[r] = now_seconds() - t0;
        if (status == ACC_OK) {
            for (size_t k = 0; k < n_outputs; k++) {
                acc_array_release(&out[k]);
            }
        }
    }
    return status;
}
