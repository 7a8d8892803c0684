/*
 * test_backend_memory.c — the memory operations of the backend interface
 * (core/backend/backend.h: alloc, copy, release) on the host backends
 * (interp, cpu): alloc gives a host array with its buffers, copy to the
 * host is a no-op and a copy to device memory is refused, bad extents
 * are ACC_ERR_SHAPE, release is NULL-safe.  tests/cuda/
 * test_cuda_fake_memory.c tests the CUDA backend's over the fake driver.
 * The operations are reached through the context's backend
 * (abi/src/context.h), as the executor reaches them.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "hand_run.h"
#include "support.h"

#include <stdint.h>
#include <string.h>

#include "abi/src/context.h"
#include "abi/src/program.h"
#include "core/backend/backend.h"
#include "core/backend/rt_array.h"

static const acc_type *f32(void) { return acc_type_scalar(ACC_F32); }

/* ---- host backends ------------------------------------------------------ */

TestSuite(backend_memory, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

static void host_backend(acc_context *ctx)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, ts_doubling_source, (size_t)-1,
                                  "twice", &p),
                 ACC_OK, "%s", acc_last_error());
    ts_hand_run h;
    ts_hand_begin(&h, ctx, p);
    int64_t n = 1000;
    rt_array *a = h.ops->alloc(h.run, NULL, f32(), 1, &n, "test", &h.d);
    cr_assert(a, "%s", h.d.message);
    cr_expect_eq(a->size, 1000);
    cr_expect(a->valid & RT_ON_HOST);
    cr_expect(a->data[0] != NULL);
    ((float *)a->data[0])[999] = 1.5f; /* the buffer is really there */
    cr_expect_eq(h.ops->copy(h.run, a, ACC_MEMORY_HOST, &h.d), ACC_OK, "%s",
              h.d.message);
    cr_expect_neq(h.ops->copy(h.run, a, ACC_MEMORY_CUDA_DEVICE, &h.d), ACC_OK);
    cr_expect_eq(h.d.status, ACC_ERR_INVALID_ARGUMENT);
    h.ops->release(h.run, a);
    h.ops->release(h.run, NULL); /* NULL-safe */
    diag_clear(&h.d);
    int64_t bad = -1;
    cr_expect_null(h.ops->alloc(h.run, NULL, f32(), 1, &bad, "test", &h.d));
    cr_expect_eq(h.d.status, ACC_ERR_SHAPE, "%s", h.d.message);
    diag_clear(&h.d);
    ts_hand_end(&h);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(backend_memory, interp_allocates_host_memory)
{
    host_backend(ts_context(ACC_BACKEND_INTERP));
}

Test(backend_memory, cpu_allocates_host_memory)
{
    host_backend(ts_cpu_context());
}

