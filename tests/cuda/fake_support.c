/*
 * fake_support.c — the fixture and helpers shared by the tests of the
 * CUDA runtime on the fake driver (fake_support.h).  Linked into every
 * tests/cuda/test_*fake*.c where the fake driver is built
 * (cmake/AccelCuda.cmake); it is no test of its own.  Nothing here ran
 * on a GPU.
 */
#ifndef ACC_FAKE_DRIVER
#error "fake_support.c is built only with the fake driver (ACC_FAKE_DRIVER, cmake/AccelCuda.cmake)"
#endif

#include "fake_support.h"

#include <criterion/criterion.h>

#include "core/backend/cuda/cuda_abi.h"
#include "core/backend/cuda/nvrtc.h"
#include "support.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fake reads the argument block where acc_kargs has these fields. */
_Static_assert(FAKE_KARGS_ERR_OFFSET == offsetof(cuda_kargs, err),
               "the fake reads the error slot where acc_kargs has it");
_Static_assert(FAKE_KARGS_OUT_SIZE_OFFSET == offsetof(cuda_kargs, out_size),
               "acc_kargs.out_size");
_Static_assert(FAKE_KARGS_INNER_OFFSET == offsetof(cuda_kargs, inner),
               "acc_kargs.inner");

/* ---- fixture ----------------------------------------------------------------------- */

fake_driver_fns fake;
char fake_cache_dir[256];
fake_event fake_ev[8192];

static void *fake_symbol(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    cr_assert_not_null(p, "the fake driver lacks %s", name);
    return p;
}

void fake_setup(void)
{
    setenv("ACC_CUDA_DRIVER", ACC_FAKE_DRIVER, 1);
    unsetenv("ACC_NVRTC");
    void *lib = dlopen(ACC_FAKE_DRIVER, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "%s: %s", ACC_FAKE_DRIVER, dlerror());
    void *p;
    p = fake_symbol(lib, "fake_cuda_reset");
    memcpy(&fake.reset, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_configure");
    memcpy(&fake.configure, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_get_config");
    memcpy(&fake.get_config, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_counters");
    memcpy(&fake.counters, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_events");
    memcpy(&fake.events, &p, sizeof p);
    p = fake_symbol(lib, "fake_cuda_clear_events");
    memcpy(&fake.clear_events, &p, sizeof p);
    fake.reset();
    const char *tmp = getenv("TMPDIR");
    snprintf(fake_cache_dir, sizeof fake_cache_dir, "%s/accel-fake-cuda-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(fake_cache_dir));
}

void fake_teardown(void)
{
    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fake_cache_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", fake_cache_dir);
}

fake_counters fake_counts(void)
{
    fake_counters c;
    fake.counters(&c);
    return c;
}

void fake_configure(void (*edit)(fake_config *))
{
    fake_config c;
    fake.get_config(&c);
    edit(&c);
    fake.configure(&c);
}

/* ---- contexts, programs and arrays ------------------------------------------------ */

int nvrtc_present(void)
{
    diag why;
    cuda_nvrtc nv;
    diag_clear(&why);
    return cuda_load_nvrtc(&nv, &why) == ACC_OK;
}

acc_context *fake_context(acc_backend backend, int32_t device, acc_status *st)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = backend;
    o.cache_dir = fake_cache_dir;
    o.cuda_device = device;
    *st = acc_context_create(&o, &ctx);
    return ctx;
}

acc_context *cuda_context(void)
{
    acc_status st;
    if (!nvrtc_present())
        cr_skip_test("NVRTC is not installed here: no CUDA context can be "
                     "created, even on the fake driver");
    acc_context *ctx = fake_context(ACC_BACKEND_CUDA, 0, &st);
    cr_assert_eq(st, ACC_OK, "%s: %s", acc_status_string(st),
                 acc_last_error());
    return ctx;
}

acc_program *compile_from(acc_context *ctx, const char *src,
                          const char *entry)
{
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, entry, &p);
    cr_assert_eq(st, ACC_OK, "%s: %s: %s", entry, acc_status_string(st),
                 acc_last_error());
    return p;
}

acc_array vec_f32(float *data, int64_t n)
{
    return ts_host(ACC_F32, 1, &n, data);
}

acc_array mat_f32(float *data, int64_t rows, int64_t cols)
{
    int64_t ext[2] = {rows, cols};
    return ts_host(ACC_F32, 2, ext, data);
}

/* ---- the programs of the runtime's tests (fake_support.h) ------------------------ */

const char runtime_programs[] =
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n"
    "\n"
    "rowSums (m : Matrix f32) : Vector f32 =\n"
    "  fold (+) 0 m\n"
    "\n"
    "rowProducts (m : Matrix f32) : Vector f32 =\n"
    "  fold1 (*) m\n"
    "\n"
    "scaled (xs : Vector f32) : Vector f32 =\n"
    "  map (\\x -> x * 2.0) xs\n"
    "\n"
    "sumAndMax (xs : Vector f32) : (Scalar f32, Scalar f32) =\n"
    "  (fold (+) 0 xs, fold max 0 xs)\n"
    "\n"
    "quotients (xs : Vector i32) (ys : Vector i32) : Vector i32 =\n"
    "  zipWith quot xs ys\n"
    "\n"
    "reshapedSums (m : Matrix f32) : Matrix f32 =\n"
    "  reshape [8, 8] (fold (+) 0 m)\n"
    "\n"
    "viaForeign (xs : Vector f32) : Vector f32 =\n"
    "  foreign \"test.twice\" (\\a -> map (\\x -> x * 2.0) a) xs\n";

acc_array device_output(void)
{
    acc_array out = ts_empty_output();
    out.memory = ACC_MEMORY_CUDA_DEVICE;
    return out;
}

/* ---- what the fake recorded ------------------------------------------------------- */

size_t fake_count(fake_kind kind, size_t bytes)
{
    size_t n = fake.events(fake_ev, sizeof fake_ev / sizeof *fake_ev), k = 0;
    for (size_t i = 0; i < n && i < sizeof fake_ev / sizeof *fake_ev; i++)
        k += fake_ev[i].kind == kind && (bytes == 0 || fake_ev[i].bytes == bytes);
    return k;
}

void expect_clean(void)
{
    fake_counters c = fake_counts();
    cr_expect_eq(c.misuse, 0, "driver API misuse: %s", c.last_misuse);
}

void expect_all_released(void)
{
    fake_counters c = fake_counts();
    cr_expect_eq(c.live_allocs, 0, "%ld device allocations leaked",
                 c.live_allocs);
    cr_expect_eq(c.frees, c.allocs);
    cr_expect_eq(c.primary_releases, c.primary_retains);
    cr_expect_eq(c.streams_destroyed, c.streams_created);
    cr_expect_eq(c.modules_unloaded, c.modules_loaded);
    expect_clean();
}

void cuda_figures(acc_program *p, char *buf, size_t size)
{
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    const char *at = strstr(json, "\"cuda\":{");
    cr_assert_not_null(at, "%s", json);
    snprintf(buf, size, "%s", at);
    acc_free(json);
}

void fail_next_launch(fake_config *c)
{
    c->fail_launches = 1;
    c->fail_code = 1; /* ACC_KERR_DIV_ZERO */
    c->fail_site = 0;
    c->fail_pos = 2;
}

/* ---- launches ------------------------------------------------------------------------ */

const fake_event *launch_of(const char *function, size_t nth)
{
    size_t n = fake.events(fake_ev, sizeof fake_ev / sizeof *fake_ev);
    for (size_t i = 0; i < n; i++)
        if (fake_ev[i].kind == FAKE_LAUNCH &&
            strcmp(fake_ev[i].function, function) == 0 && nth-- == 0)
            return &fake_ev[i];
    cr_assert_fail("no launch of %s", function);
    return NULL;
}

void expect_launch(const char *function, unsigned gx, unsigned gy,
                   unsigned block)
{
    const fake_event *e = launch_of(function, 0);
    cr_expect(e->grid[0] == gx && e->grid[1] == gy && e->grid[2] == 1 &&
                  e->block[0] == block && e->block[1] == 1 && e->block[2] == 1,
              "%s: grid (%u, %u, %u), block (%u, %u, %u); expected grid "
              "(%u, %u, 1), block (%u, 1, 1)", function, e->grid[0],
              e->grid[1], e->grid[2], e->block[0], e->block[1], e->block[2],
              gx, gy, block);
}

size_t launches(const char **names, size_t max)
{
    size_t n = fake.events(fake_ev, sizeof fake_ev / sizeof *fake_ev), k = 0;
    for (size_t i = 0; i < n && i < sizeof fake_ev / sizeof *fake_ev; i++)
        if (fake_ev[i].kind == FAKE_LAUNCH && k < max)
            names[k++] = fake_ev[i].function;
    return k;
}

void expect_sequence(const char *const *want, size_t n)
{
    const char *got[16];
    size_t k = launches(got, 16);
    cr_expect_eq(k, n, "%zu launches, expected %zu", k, n);
    for (size_t i = 0; i < n && i < k; i++)
        cr_expect_str_eq(got[i], want[i], "launch %zu", i);
}

void launch_sequence(char *buf, size_t size)
{
    const char *got[64];
    size_t n = launches(got, 64);
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
                 buf[0] ? " " : "", got[i]);
}

void expect_sequence_text(const char *want)
{
    char got[512];
    launch_sequence(got, sizeof got);
    cr_expect_str_eq(got, want);
}
