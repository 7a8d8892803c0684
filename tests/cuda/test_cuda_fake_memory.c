/*
 * test_cuda_fake_memory.c — the memory operations of the backend
 * interface (core/backend/backend.h: alloc, copy, release) on the CUDA
 * backend over the fake driver: alloc takes
 * device memory (cuMemAlloc), copy to the host downloads (cuMemcpyDtoH)
 * and to the device uploads once (cuMemcpyHtoD), release gives the
 * device memory back (to the run's pool, then cuMemFree when the context
 * ends).  tests/unit/test_backend_memory.c tests the host backends'.
 * The operations are reached through the context's backend
 * (abi/src/context.h), as the executor reaches them.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "hand_run.h"
#include "support.h"

#include <stdint.h>
#include <string.h>

#include "abi/src/context.h"
#include "abi/src/program.h"
#include "core/backend/backend.h"
#include "core/backend/rt_array.h"

static const acc_type *f32(void) { return acc_type_scalar(ACC_F32); }

/* ---- the CUDA backend on the fake driver ------------------------------ */

#ifndef ACC_FAKE_DRIVER
Test(cuda_runtime_fake, fake_driver_not_built)
{
    cr_skip_test("the fake CUDA driver is built only where the CUDA "
                 "toolkit's cuda.h is installed (cmake/AccelCuda.cmake)");
}
#else

#include "fake_support.h"

TestSuite(cuda_runtime_fake, .init = fake_setup, .fini = fake_teardown);

Test(cuda_runtime_fake, memory_operations_use_the_driver)
{
    acc_context *ctx = cuda_context();
    acc_program *p = compile_from(ctx, ts_doubling_source, "twice");
    acc_context *host = ts_context(ACC_BACKEND_INTERP);
    acc_program *hp = compile_from(host, ts_doubling_source, "twice");
    ts_hand_run h, hh;
    ts_hand_begin(&h, ctx, p);
    ts_hand_begin(&hh, host, hp);
    fake_counters c0 = fake_counts();

    int64_t n = 1000;
    rt_array *a = h.ops->alloc(h.run, NULL, f32(), 1, &n, "test", &h.d);
    cr_assert(a, "%s", h.d.message);
    fake_counters c1 = fake_counts();
    cr_expect(a->valid == RT_ON_DEVICE && a->dev[0] != 0);
    cr_expect_eq(c1.live_bytes - c0.live_bytes >= 4000, 1,
                 "device memory for 1000 f32 (%zu bytes more)",
                 c1.live_bytes - c0.live_bytes);
    cr_expect_eq(h.ops->copy(h.run, a, ACC_MEMORY_HOST, &h.d), ACC_OK, "%s",
              h.d.message);
    cr_expect_eq(fake_counts().dtoh, c1.dtoh + 1, "one download");
    cr_expect(a->valid & RT_ON_HOST);
    cr_expect_eq(h.ops->copy(h.run, a, ACC_MEMORY_HOST, &h.d), ACC_OK);
    cr_expect_eq(fake_counts().dtoh, c1.dtoh + 1, "valid on the host: no "
                 "second download");

    /* a host array (the interpreter's) uploaded once */
    rt_array *b = hh.ops->alloc(hh.run, NULL, f32(), 1, &n, "test", &hh.d);
    cr_assert(b, "%s", hh.d.message);
    memset(b->data[0], 0, 4000);
    long htod = fake_counts().htod;
    cr_expect_eq(h.ops->copy(h.run, b, ACC_MEMORY_CUDA_DEVICE, &h.d),
                 ACC_OK, "%s", h.d.message);
    cr_expect(b->valid & RT_ON_DEVICE);
    cr_expect_eq(fake_counts().htod, htod + 1, "one upload");
    cr_expect_eq(h.ops->copy(h.run, b, ACC_MEMORY_CUDA_DEVICE, &h.d),
                 ACC_OK);
    cr_expect_eq(fake_counts().htod, htod + 1, "no second upload");
    cr_expect_neq(h.ops->copy(h.run, b, (acc_memory)99, &h.d), ACC_OK);
    cr_expect_eq(h.d.status, ACC_ERR_INVALID_ARGUMENT);
    diag_clear(&h.d);

    h.ops->release(h.run, a);
    h.ops->release(h.run, b);
    ts_hand_end(&h);
    ts_hand_end(&hh);
    acc_program_free(p);
    acc_program_free(hp);
    acc_context_destroy(ctx);
    acc_context_destroy(host);
    expect_clean();
    expect_all_released();
}

#endif
