/*
 * fake_support.h — the fixture and helpers shared by the tests of the
 * CUDA runtime on the fake driver (tests/cuda/test_*fake*.c): the fake's
 * controls reached with dlsym, a context on the fake device, the events
 * the fake records (copies, launches, waits) and the checks made on them.
 *
 * fake_support.c is linked into every tests/cuda/test_*fake*.c, and only
 * where the fake driver is built (cmake/AccelCuda.cmake defines
 * ACC_FAKE_DRIVER, its path); without it those tests skip, saying so.
 * Nothing here runs on a GPU: the fake cannot execute a kernel.
 */
#ifndef ACCEL_TESTS_CUDA_FAKE_SUPPORT_H
#define ACCEL_TESTS_CUDA_FAKE_SUPPORT_H

#include "accel.h"
#include "fake_driver.h"

#include <stddef.h>
#include <stdint.h>

/* The fake's controls and records (fake_driver.h), found by dlsym in the
 * instance the library loads, by fake_setup. */
typedef struct fake_driver_fns {
    fake_cuda_reset_fn reset;
    fake_cuda_configure_fn configure;
    fake_cuda_get_config_fn get_config;
    fake_cuda_counters_fn counters;
    fake_cuda_events_fn events;
    fake_cuda_clear_events_fn clear_events;
} fake_driver_fns;

extern fake_driver_fns fake;

/* The kernel cache folder of the test (a fresh one each test), and room
 * for the events the fake recorded. */
extern char fake_cache_dir[256];
extern fake_event fake_ev[8192];

/* The suite's fixture: ACC_CUDA_DRIVER names the fake (ACC_NVRTC unset),
 * the fake is reset and fake_cache_dir created; fake_teardown removes it.
 * Each file declares
 *   TestSuite(cuda_runtime_fake, .init = fake_setup, .fini = fake_teardown); */
void fake_setup(void);
void fake_teardown(void);

/* The fake's counters now. */
fake_counters fake_counts(void);

/* Changes the fake's configuration: edit gets the current one. */
void fake_configure(void (*edit)(fake_config *));

/* Whether NVRTC can be loaded here. */
int nvrtc_present(void);

/* A context on `backend` (CUDA device `device`) with fake_cache_dir as its
 * kernel cache; *st is acc_context_create's status. */
acc_context *fake_context(acc_backend backend, int32_t device, acc_status *st);

/* A context on the fake device (skips without NVRTC). */
acc_context *cuda_context(void);

/* Entry `entry` of the program text src, compiled (asserted). */
acc_program *compile_from(acc_context *ctx, const char *src,
                          const char *entry);

/* Host arrays of f32 over data: a vector of n, a rows x cols matrix. */
acc_array vec_f32(float *data, int64_t n);
acc_array mat_f32(float *data, int64_t rows, int64_t cols);

/* The programs the tests of the runtime's host-side logic run (dotp,
 * rowSums, rowProducts, scaled, sumAndMax, quotients, reshapedSums,
 * viaForeign): test_cuda_runtime_fake.c, test_cuda_fake_pool.c,
 * test_cuda_fake_streams.c and test_cuda_fake_launch.c. */
extern const char runtime_programs[];

/* An output descriptor asking for the result in device memory. */
acc_array device_output(void);

/* Recorded events of a kind (bytes 0: any size). */
size_t fake_count(fake_kind kind, size_t bytes);

/* No call to the fake misused the driver API. */
void expect_clean(void);

/* After every handle is gone: nothing left on the device. */
void expect_all_released(void);

/* The "cuda" member of the program's JSON plan, as text. */
void cuda_figures(acc_program *p, char *buf, size_t size);

/* The fake reports a division by zero (ACC_KERR_DIV_ZERO, site 0,
 * position 2) from the next launch, as the kernel would: for
 * fake_configure. */
void fail_next_launch(fake_config *c);

/* The nth recorded launch of `function` (asserted to exist). */
const fake_event *launch_of(const char *function, size_t nth);

/* The first launch of `function` had grid (gx, gy, 1), block (block, 1, 1). */
void expect_launch(const char *function, unsigned gx, unsigned gy,
                   unsigned block);

/* The launches recorded, by name, in order, into names (at most max). */
size_t launches(const char **names, size_t max);

/* The launches recorded are want[0..n), in order. */
void expect_sequence(const char *const *want, size_t n);

/* The launches recorded, as names separated by spaces (launches()). */
void launch_sequence(char *buf, size_t size);

/* The launches recorded, as launch_sequence writes them, are `want`. */
void expect_sequence_text(const char *want);

#endif /* ACCEL_TESTS_CUDA_FAKE_SUPPORT_H */
