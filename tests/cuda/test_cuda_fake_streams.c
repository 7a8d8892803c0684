/*
 * test_cuda_fake_streams.c — the streams of the CUDA runtime on the FAKE
 * driver (tests/cuda/fake_driver.c, loaded through ACC_CUDA_DRIVER): a
 * caller's stream reaches every copy, launch and wait; asynchronous runs
 * and their wait; device errors reported with the driver's name; one
 * program run from several threads at once; a CUDA foreign implementation
 * given device memory and the run's stream.  The fixture and the helpers
 * the files share are in fake_support.c.  Nothing in this file ran on a
 * GPU.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "support.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

#ifndef ACC_FAKE_DRIVER
Test(cuda_runtime_fake, fake_driver_not_built)
{
    cr_skip_test("the fake CUDA driver is built only where the CUDA "
                 "toolkit's cuda.h is installed (cmake/AccelCuda.cmake)");
}
#else

#include "core/backend/cuda/loader.h"
#include "fake_support.h"

TestSuite(cuda_runtime_fake, .init = fake_setup, .fini = fake_teardown);

static acc_program *compile(acc_context *ctx, const char *entry)
{
    return compile_from(ctx, runtime_programs, entry);
}

/* ---- streams and asynchronous runs --------------------------------------------- */

/* A stream of the test's own, made through the fake driver as a caller's
 * CUDA code would make it. */
typedef struct caller_cuda {
    cuda_driver drv;
    cu_device dev;
    cu_context ctx;
    cu_stream stream;
} caller_cuda;

static void caller_open(caller_cuda *c)
{
    diag why;
    diag_clear(&why);
    cr_assert_eq(cuda_load_driver(&c->drv, &why), ACC_OK, "%s", why.message);
    cr_assert_eq(c->drv.cuInit(0), CU_SUCCESS);
    cr_assert_eq(c->drv.cuDeviceGet(&c->dev, 0), CU_SUCCESS);
    cr_assert_eq(c->drv.cuDevicePrimaryCtxRetain(&c->ctx, c->dev), CU_SUCCESS);
    cr_assert_eq(c->drv.cuCtxPushCurrent(c->ctx), CU_SUCCESS);
    cr_assert_eq(c->drv.cuStreamCreate(&c->stream, 0), CU_SUCCESS);
}

static void caller_close(caller_cuda *c)
{
    cr_expect_eq(c->drv.cuStreamDestroy(c->stream), CU_SUCCESS);
    cr_expect_eq(c->drv.cuCtxPopCurrent(NULL), CU_SUCCESS);
    cr_expect_eq(c->drv.cuDevicePrimaryCtxRelease(c->dev), CU_SUCCESS);
}

/* Every copy, launch and wait recorded used `stream`; returns how many. */
static size_t all_on(void *stream)
{
    size_t n = fake.events(fake_ev, sizeof fake_ev / sizeof *fake_ev), k = 0;
    for (size_t i = 0; i < n; i++) {
        fake_kind kind = fake_ev[i].kind;
        if (kind != FAKE_HTOD && kind != FAKE_DTOH && kind != FAKE_DTOD &&
            kind != FAKE_LAUNCH && kind != FAKE_SYNC)
            continue;
        cr_expect_eq(fake_ev[i].stream, stream, "event %zu (kind %d) used stream "
                     "%p, not %p", i, (int)kind, fake_ev[i].stream, stream);
        k++;
    }
    return k;
}

static acc_exec *exec_on(acc_context *ctx, void *stream, int async)
{
    acc_exec_options o;
    acc_exec *x = NULL;
    acc_exec_options_init(&o);
    o.stream = stream;
    o.async = async;
    cr_assert_eq(acc_exec_create(ctx, &o, &x), ACC_OK, "%s",
                 acc_last_error());
    return x;
}

Test(cuda_runtime_fake, callers_stream_reaches_every_copy_and_launch)
{
    float xs[1000] = {0}, ys[1000] = {0};
    caller_cuda c;
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp");
    acc_array in[2] = {vec_f32(xs, 1000), vec_f32(ys, 1000)}, out;
    caller_open(&c);
    acc_exec *x = exec_on(ctx, (void *)c.stream, 0);
    fake.clear_events();
    out = ts_empty_output();
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_geq(all_on((void *)c.stream), 5, "2 uploads, the arguments, "
                  "a launch, a download, waits");
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 1);
    acc_array_release(&out);

    acc_exec *legacy = exec_on(ctx, NULL, 0); /* NULL: the default stream */
    fake.clear_events();
    out = ts_empty_output();
    cr_assert_eq(acc_run_exec(legacy, p, 2, in, 1, &out), ACC_OK);
    cr_expect_geq(all_on(NULL), 5);
    acc_array_release(&out);

    fake.clear_events(); /* acc_run: a stream of the context's own */
    cr_assert_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK);
    size_t n = fake.events(fake_ev, sizeof fake_ev / sizeof *fake_ev);
    void *own = NULL;
    for (size_t i = 0; i < n && !own; i++)
        if (fake_ev[i].kind == FAKE_LAUNCH)
            own = fake_ev[i].stream;
    cr_expect(own && own != (void *)c.stream);
    cr_expect_geq(all_on(own), 5);
    acc_array_release(&out);
    acc_exec_destroy(legacy);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    caller_close(&c);
    expect_all_released();
}

Test(cuda_runtime_fake, async_run_is_queued_and_wait_completes_it)
{
    float xs[1000] = {0}, ys[1000] = {0};
    caller_cuda c;
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp"); /* no runtime checks */
    acc_array in[2] = {vec_f32(xs, 1000), vec_f32(ys, 1000)};
    acc_array out[3] = {device_output(), device_output(), device_output()};
    caller_open(&c);
    acc_exec *x = exec_on(ctx, (void *)c.stream, 1);
    fake.clear_events();
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out[0]), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(fake_count(FAKE_LAUNCH, 0), 1);
    cr_expect_eq(fake_count(FAKE_SYNC, 0), 0, "the run returned without waiting");
    long before = fake_counts().allocs;
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out[1]), ACC_OK);
    cr_expect_gt(fake_counts().allocs, before, "blocks of a run still queued "
                 "are not handed to the next");
    cr_expect_eq(fake_count(FAKE_SYNC, 0), 0);
    cr_expect_eq(acc_exec_wait(x), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(fake_count(FAKE_SYNC, 0), 1);
    before = fake_counts().allocs;
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out[2]), ACC_OK);
    cr_expect_eq(fake_counts().allocs, before, "after the wait they are");
    cr_expect_eq(acc_exec_wait(x), ACC_OK);
    all_on((void *)c.stream);
    for (int i = 0; i < 3; i++)
        acc_array_release(&out[i]);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    caller_close(&c);
    expect_all_released();
}

static void sync_fails(fake_config *c) { c->sync_error = 719; }

Test(cuda_runtime_fake, device_errors_are_reported_with_the_drivers_name)
{
    float xs[1000] = {0}, ys[1000] = {0};
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp");
    acc_array in[2] = {vec_f32(xs, 1000), vec_f32(ys, 1000)};
    acc_array out = device_output();
    acc_exec *x = exec_on(ctx, NULL, 1);
    fake_configure(sync_fails); /* CUDA_ERROR_LAUNCH_FAILED from every wait */
    cr_assert_eq(acc_run_exec(x, p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(acc_exec_wait(x), ACC_ERR_DEVICE);
    cr_expect(strstr(acc_exec_last_error(x), "CUDA_ERROR_LAUNCH_FAILED "
                     "(unspecified launch failure)"), "%s",
              acc_exec_last_error(x));
    acc_array_release(&out);
    acc_array host_out = ts_empty_output();
    cr_expect_eq(acc_run(p, 2, in, 1, &host_out), ACC_ERR_DEVICE);
    cr_expect(strstr(acc_last_error(), "CUDA_ERROR_LAUNCH_FAILED"), "%s",
              acc_last_error());
    cr_expect_null(host_out.data[0], "no output is left allocated");
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    cr_expect_eq(fake_counts().live_allocs, 0);
}

/* ---- several threads ------------------------------------------------------------ */

typedef struct runner {
    acc_program *p;
    int failures;
} runner;

static void *run_many(void *arg)
{
    runner *r = arg;
    float xs[500] = {0}, ys[500] = {0};
    acc_array in[2] = {vec_f32(xs, 500), vec_f32(ys, 500)};
    for (int i = 0; i < 20; i++) {
        acc_array out = ts_empty_output();
        if (acc_run(r->p, 2, in, 1, &out) != ACC_OK)
            r->failures++;
        acc_array_release(&out);
    }
    return NULL;
}

/* One program run from four threads at once: each run has its own stream
 * (the context's idle streams are shared out), the pool is shared, and
 * the driver sees every call with a current context. */
Test(cuda_runtime_fake, runs_from_several_threads_at_once)
{
    pthread_t t[4];
    runner r[4];
    acc_context *ctx = cuda_context();
    acc_program *p = compile(ctx, "dotp");
    for (int i = 0; i < 4; i++) {
        r[i] = (runner){p, 0};
        cr_assert_eq(pthread_create(&t[i], NULL, run_many, &r[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        cr_expect_eq(r[i].failures, 0, "thread %d", i);
    }
    cr_expect_leq(fake_counts().streams_created, 4);
    expect_clean();
    acc_program_free(p);
    acc_context_destroy(ctx);
    expect_all_released();
}

/* ---- foreign calls ----------------------------------------------------------------- */

typedef struct seen_call {
    int calls;
    acc_memory arg_memory, result_memory;
    int32_t arg_device;
    void *stream, *workspace, *result;
    acc_status answer; /* what execute returns */
} seen_call;

static acc_status twice_shape(acc_foreign_call *call)
{
    memcpy(call->results[0].extents, call->args[0].extents,
           sizeof call->results[0].extents);
    return ACC_OK;
}

/* A "CUDA implementation" that records what it was given (it cannot
 * compute on the fake device). */
static acc_status twice_execute(acc_foreign_call *call)
{
    seen_call *s = call->user;
    s->calls++;
    s->arg_memory = call->args[0].memory;
    s->arg_device = call->args[0].device;
    s->result_memory = call->results[0].memory;
    s->result = call->results[0].data[0];
    s->stream = call->stream;
    s->workspace = call->workspace(call, 1000);
    return s->answer;
}

Test(cuda_runtime_fake, cuda_foreign_implementation_gets_device_memory)
{
    seen_call seen;
    memset(&seen, 0, sizeof seen);
    float xs[100] = {0};
    caller_cuda c;
    acc_context *ctx = cuda_context();
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = "test.twice";
    impl.impl_name = "fake.twice";
    impl.backend = ACC_BACKEND_CUDA;
    impl.result_shape = twice_shape;
    impl.execute = twice_execute;
    impl.user = &seen;
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK, "%s",
                 acc_last_error());
    acc_program *p = compile(ctx, "viaForeign");
    caller_open(&c);
    acc_exec *x = exec_on(ctx, (void *)c.stream, 0);
    acc_array in = vec_f32(xs, 100), out = ts_empty_output();
    fake.clear_events();
    cr_assert_eq(acc_run_exec(x, p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(seen.calls, 1);
    cr_expect_eq(seen.arg_memory, ACC_MEMORY_CUDA_DEVICE);
    cr_expect_eq(seen.arg_device, 0);
    cr_expect_eq(seen.result_memory, ACC_MEMORY_CUDA_DEVICE);
    cr_expect_not_null(seen.result);
    cr_expect_eq(seen.stream, (void *)c.stream, "the run's stream");
    cr_expect_not_null(seen.workspace, "device scratch from the pool");
    cr_expect_eq(fake_count(FAKE_HTOD, sizeof xs), 1, "the argument uploaded");
    cr_expect_eq(fake_count(FAKE_DTOH, sizeof xs), 1, "the result downloaded");
    all_on((void *)c.stream);
    acc_array_release(&out);
    seen.answer = ACC_ERR_UNSUPPORTED; /* the fallback runs instead */
    out = ts_empty_output();
    cr_expect_eq(acc_run_exec(x, p, 1, &in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(seen.calls, 2);
    acc_array_release(&out);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
    caller_close(&c);
    expect_all_released();
}

#endif /* ACC_FAKE_DRIVER */
