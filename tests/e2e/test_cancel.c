/*
 * test_cancel.c — cancellation and deadlines of runs (accel.h:
 * acc_exec_cancel, acc_exec_options.deadline_seconds,
 * acc_context_options.run_deadline_seconds; docs/ABI.md, "Cancellation
 * and deadlines"), on the interpreter and the CPU backend.
 *
 * The programs loop for as long as an input says (a limit of INT64_MAX
 * never ends in practice), so the same program is stopped once and then
 * runs to its right result (after a cancel, on the same handle).  An awhile and a
 * scalar while (compiled into the CPU kernel of a map) are stopped by a
 * cancel from another thread and by a deadline of 50 ms; a long CPU
 * kernel whose elements each loop briefly is stopped within a few chunks
 * (its caller-provided output shows how many elements were computed).
 * Timings are never asserted, except that a stopped run returns at all
 * (within a minute).  The sanitizer build runs the same tests: a stopped
 * run leaks nothing.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

TestSuite(cancel, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

enum { N = 5 };
static const int64_t n5 = N;

static acc_context *context_on(acc_backend b)
{
    return b == ACC_BACKEND_CPU ? ts_cpu_context() : ts_context(b);
}

/* awhile (\v -> unit (v ! [0] < the limit)) (\v -> map (+1) v) xs:
 * inputs xs : Vector i64, limit : Scalar i64. */
static acc_program *awhile_program(acc_context *ctx)
{
    const acc_type *i64 = ts_sc(ACC_I64);
    const acc_type *vec = acc_type_array(ctx, i64, 1);
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, i64, 1);
    acc_node *limit = acc_input(g, i64, 0);
    acc_node *v = acc_param(g, vec);
    acc_node *first = acc_read(g, v, ts_idx1(g, ts_i64(g, 0)));
    acc_node *cond = ts_lam1(g, v, acc_unit(g, acc_binop(g, ACC_OP_LT, first,
                                                         acc_the(g, limit))));
    acc_node *w = acc_param(g, vec), *x = acc_param(g, i64);
    acc_node *inc = ts_lam1(g, x, acc_binop(g, ACC_OP_ADD, x, ts_i64(g, 1)));
    acc_node *body = ts_lam1(g, w, acc_map(g, inc, w));
    acc_program *p = ts_compile(ctx, g, acc_awhile(g, cond, body, xs));
    acc_graph_free(g);
    return p;
}

/* map (\x -> while (\s -> s < the limit) (\s -> s + 1) x) xs: inputs
 * xs : Vector i64, limit : Scalar i64.  On the CPU backend the loop is
 * compiled into the map's kernel. */
static acc_program *while_program(acc_context *ctx)
{
    const acc_type *i64 = ts_sc(ACC_I64);
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, i64, 1);
    acc_node *limit = acc_input(g, i64, 0);
    acc_node *s = acc_param(g, i64), *t = acc_param(g, i64);
    acc_node *cond = ts_lam1(g, s, acc_binop(g, ACC_OP_LT, s,
                                             acc_the(g, limit)));
    acc_node *step = ts_lam1(g, t, acc_binop(g, ACC_OP_ADD, t, ts_i64(g, 1)));
    acc_node *x = acc_param(g, i64);
    acc_node *f = ts_lam1(g, x, acc_while(g, cond, step, x));
    acc_program *p = ts_compile(ctx, g, acc_map(g, f, xs));
    acc_graph_free(g);
    return p;
}

static int64_t xs_buf[N] = {3, -7, 0, 42, 11};
static int64_t limit_buf;

static void inputs_with_limit(acc_array in[2], int64_t limit)
{
    limit_buf = limit;
    in[0] = ts_host(ACC_I64, 1, &n5, xs_buf);
    in[1] = ts_host(ACC_I64, 0, NULL, &limit_buf);
}

static acc_exec *exec_with_deadline(acc_context *ctx, double seconds)
{
    acc_exec_options o;
    acc_exec_options_init(&o);
    o.deadline_seconds = seconds;
    acc_exec *x = NULL;
    cr_assert_eq(acc_exec_create(ctx, &o, &x), ACC_OK, "%s",
                 acc_last_error());
    return x;
}

/* Runs p through x with the given limit; the status, and the output in
 * out (released by the caller on ACC_OK; on failure nothing was
 * delivered). */
static acc_status run_limit(acc_exec *x, acc_program *p, int64_t limit,
                            acc_array *out)
{
    acc_array in[2];
    inputs_with_limit(in, limit);
    *out = ts_empty_output();
    acc_status st = acc_run_exec(x, p, 2, in, 1, out);
    if (st != ACC_OK)
        cr_expect_null(out->data[0], "a stopped run delivers nothing");
    return st;
}

/* The awhile adds 1 to every element until element 0 reaches limit. */
static void expect_awhile_result(const acc_array *out, int64_t limit)
{
    const int64_t *y = out->data[0];
    for (int i = 0; i < N; i++)
        cr_expect_eq(y[i], xs_buf[i] + (limit - xs_buf[0]), "element %d", i);
}

/* The while raises each element to at least limit. */
static void expect_while_result(const acc_array *out, int64_t limit)
{
    const int64_t *y = out->data[0];
    for (int i = 0; i < N; i++)
        cr_expect_eq(y[i], xs_buf[i] < limit ? limit : xs_buf[i],
                     "element %d", i);
}

/* ---- deadlines ------------------------------------------------------------ */

/* On the CPU backend, every step of p is compiled: the loops run in
 * kernels, not in the interpreter. */
static void expect_compiled(acc_backend b, const acc_program *p)
{
    char *json = NULL;
    if (b != ACC_BACKEND_CPU)
        return;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    cr_expect(strstr(json, "\"interpreted\":0,") != NULL, "%s", json);
    acc_free(json);
}

static void deadline_stops(acc_backend b, acc_program *(*make)(acc_context *),
                           void (*expect)(const acc_array *, int64_t))
{
    acc_context *ctx = context_on(b);
    acc_program *p = make(ctx);
    expect_compiled(b, p);
    acc_exec *x = exec_with_deadline(ctx, 0.05);
    acc_array out;
    acc_status st = run_limit(x, p, INT64_MAX, &out);
    cr_assert_eq(st, ACC_ERR_TIMEOUT, "%s: %s", acc_status_string(st),
                 acc_last_error());
    cr_expect(strstr(acc_last_error(), "deadline of 0.05 s passed"), "%s",
              acc_last_error());
    cr_expect(strstr(acc_exec_last_error(x), "deadline"), "on the handle");
    cr_expect_eq(acc_exec_wait(x), ACC_ERR_TIMEOUT, "and for the wait");
    cr_expect_eq(acc_exec_wait(x), ACC_OK, "once");
    /* the same program with an end in sight (on a handle without a
     * deadline, so that a busy machine cannot make it time out) */
    acc_exec *y = exec_with_deadline(ctx, 0);
    cr_assert_eq(run_limit(y, p, 60, &out), ACC_OK, "%s", acc_last_error());
    expect(&out, 60);
    acc_array_release(&out);
    acc_exec_destroy(y);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(cancel, a_deadline_stops_an_endless_awhile_on_interp)
{
    deadline_stops(ACC_BACKEND_INTERP, awhile_program, expect_awhile_result);
}

Test(cancel, a_deadline_stops_an_endless_awhile_on_cpu)
{
    deadline_stops(ACC_BACKEND_CPU, awhile_program, expect_awhile_result);
}

Test(cancel, a_deadline_stops_an_endless_scalar_while_on_interp)
{
    deadline_stops(ACC_BACKEND_INTERP, while_program, expect_while_result);
}

Test(cancel, a_deadline_stops_an_endless_scalar_while_on_cpu)
{
    deadline_stops(ACC_BACKEND_CPU, while_program, expect_while_result);
}

/* ---- cancel from another thread ------------------------------------------ */

typedef struct runner {
    acc_exec *x;
    acc_program *p;
    acc_array out;
    acc_status st;
    int done;
    pthread_mutex_t lock;
    pthread_cond_t cond;
} runner;

static void *run_endless(void *arg)
{
    runner *r = arg;
    acc_status st = run_limit(r->x, r->p, INT64_MAX, &r->out);
    pthread_mutex_lock(&r->lock);
    r->st = st;
    r->done = 1;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Starts an endless run on a thread, cancels it from this one after
 * 30 ms, and requires it to return ACC_ERR_CANCELLED within a minute. */
static void cancel_stops(acc_backend b, acc_program *(*make)(acc_context *),
                         void (*expect)(const acc_array *, int64_t))
{
    acc_context *ctx = context_on(b);
    runner r = {.st = ACC_OK};
    r.p = make(ctx);
    cr_assert_eq(acc_exec_create(ctx, NULL, &r.x), ACC_OK);
    pthread_mutex_init(&r.lock, NULL);
    pthread_cond_init(&r.cond, NULL);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, run_endless, &r), 0);
    sleep_ms(30);
    cr_assert_eq(acc_exec_cancel(r.x), ACC_OK);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&r.lock);
    int waited = 0;
    while (!r.done && waited != ETIMEDOUT)
        waited = pthread_cond_timedwait(&r.cond, &r.lock, &until);
    int done = r.done;
    pthread_mutex_unlock(&r.lock);
    cr_assert(done, "the cancelled run did not return within a minute");
    pthread_join(t, NULL);
    cr_assert_eq(r.st, ACC_ERR_CANCELLED, "%s: %s", acc_status_string(r.st),
                 acc_exec_last_error(r.x));
    cr_expect(strstr(acc_exec_last_error(r.x), "run cancelled by "
                     "acc_exec_cancel"), "%s", acc_exec_last_error(r.x));
    /* the flag was cleared as the run returned: the next run completes */
    acc_array out;
    cr_assert_eq(run_limit(r.x, r.p, 25, &out), ACC_OK, "%s",
                 acc_last_error());
    expect(&out, 25);
    acc_array_release(&out);
    pthread_cond_destroy(&r.cond);
    pthread_mutex_destroy(&r.lock);
    acc_exec_destroy(r.x);
    acc_program_free(r.p);
    acc_context_destroy(ctx);
}

Test(cancel, another_thread_cancels_an_endless_awhile_on_interp)
{
    cancel_stops(ACC_BACKEND_INTERP, awhile_program, expect_awhile_result);
}

Test(cancel, another_thread_cancels_an_endless_awhile_on_cpu)
{
    cancel_stops(ACC_BACKEND_CPU, awhile_program, expect_awhile_result);
}

Test(cancel, another_thread_cancels_an_endless_scalar_while_on_interp)
{
    cancel_stops(ACC_BACKEND_INTERP, while_program, expect_while_result);
}

Test(cancel, another_thread_cancels_an_endless_scalar_while_on_cpu)
{
    cancel_stops(ACC_BACKEND_CPU, while_program, expect_while_result);
}

Test(cancel, a_cancel_between_runs_stops_the_next_run_only)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_program *p = awhile_program(ctx);
    acc_exec *x = NULL;
    cr_assert_eq(acc_exec_create(ctx, NULL, &x), ACC_OK);
    cr_assert_eq(acc_exec_cancel(x), ACC_OK);
    acc_array out;
    /* a finite run, stopped at its first check point */
    cr_expect_eq(run_limit(x, p, 20, &out), ACC_ERR_CANCELLED);
    cr_assert_eq(run_limit(x, p, 20, &out), ACC_OK, "%s", acc_last_error());
    expect_awhile_result(&out, 20);
    acc_array_release(&out);
    acc_exec_destroy(x);
    cr_expect_eq(acc_exec_cancel(x), ACC_ERR_INVALID_HANDLE);
    cr_expect_eq(acc_exec_cancel(NULL), ACC_ERR_INVALID_ARGUMENT);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* ---- a long kernel stops within a few chunks -------------------------------- */

enum { LONG_N = 1 << 22, LONG_STEPS = 1000 };
static const int64_t SENTINEL = 0x5a5a5a5a5a5a5a5a;

/* generate [LONG_N] (\[i] -> snd (while (\(k, s) -> k < LONG_STEPS)
 *                                      (\(k, s) -> (k + 1, s * C + i))
 *                                      (0, i))):
 * every element loops LONG_STEPS times, too few for the loop's own poll
 * (every 4096 iterations), so only the chunk check point can stop it. */
static acc_program *long_kernel_program(acc_context *ctx)
{
    const acc_type *i64 = ts_sc(ACC_I64);
    const acc_type *pair_f[2] = {i64, i64};
    const acc_type *pair = acc_type_tuple(ctx, 2, pair_f);
    acc_graph *g = ts_graph(ctx);
    acc_node *ix = acc_param(g, acc_type_shape(1));
    acc_node *i = acc_get(g, ix, 0);
    acc_node *c = acc_param(g, pair), *b = acc_param(g, pair);
    acc_node *cond = ts_lam1(g, c, acc_binop(g, ACC_OP_LT, acc_get(g, c, 0),
                                             ts_i64(g, LONG_STEPS)));
    acc_node *next[2] = {
        acc_binop(g, ACC_OP_ADD, acc_get(g, b, 0), ts_i64(g, 1)),
        acc_binop(g, ACC_OP_ADD,
                  acc_binop(g, ACC_OP_MUL, acc_get(g, b, 1),
                            ts_i64(g, 6364136223846793005)), i)};
    acc_node *body = ts_lam1(g, b, acc_tuple(g, 2, next));
    acc_node *init[2] = {ts_i64(g, 0), i};
    acc_node *loop = acc_while(g, cond, body, acc_tuple(g, 2, init));
    acc_node *f = ts_lam1(g, ix, acc_get(g, loop, 1));
    acc_program *p = ts_compile(ctx, g, acc_generate(g, ts_shape1(g, LONG_N),
                                                     f));
    acc_graph_free(g);
    return p;
}

Test(cancel, a_long_cpu_kernel_stops_within_a_few_chunks)
{
    acc_context *ctx = ts_cpu_context();
    acc_program *p = long_kernel_program(ctx);
    acc_exec *x = exec_with_deadline(ctx, 0.05);
    int64_t *buf = malloc(sizeof(int64_t) * LONG_N);
    cr_assert_not_null(buf);
    for (int64_t k = 0; k < LONG_N; k++)
        buf[k] = SENTINEL;
    const int64_t n = LONG_N;
    acc_array out = ts_host(ACC_I64, 1, &n, buf);
    acc_status st = acc_run_exec(x, p, 0, NULL, 1, &out);
    cr_assert_eq(st, ACC_ERR_TIMEOUT, "%s: %s", acc_status_string(st),
                 acc_last_error());
    /* the kernel wrote the caller's buffer directly: the elements it
     * computed before it stopped.  Without the check point before each
     * chunk it computes every element (4e9 iterations) and the run stops
     * only at the next step. */
    int64_t written = 0;
    for (int64_t k = 0; k < LONG_N; k++)
        written += buf[k] != SENTINEL;
    cr_expect_lt(written, LONG_N / 2, "%lld of %d elements computed",
                 (long long)written, LONG_N);
    free(buf);
    acc_exec_destroy(x);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* ---- the context's deadline, options ------------------------------------- */

Test(cancel, the_context_deadline_applies_to_acc_run_and_handles_may_opt_out)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.run_deadline_seconds = 1e-9; /* passed at the run's first check */
    acc_context *ctx = NULL;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s", acc_last_error());
    acc_program *p = while_program(ctx);
    acc_array in[2], out = ts_empty_output();
    inputs_with_limit(in, 10);
    cr_expect_eq(acc_run(p, 2, in, 1, &out), ACC_ERR_TIMEOUT, "%s",
                 acc_last_error());
    cr_expect_null(out.data[0]);
    acc_exec *inherits = exec_with_deadline(ctx, 0);
    cr_expect_eq(run_limit(inherits, p, 10, &out), ACC_ERR_TIMEOUT);
    acc_exec *none = exec_with_deadline(ctx, INFINITY);
    cr_assert_eq(run_limit(none, p, 10, &out), ACC_OK, "%s", acc_last_error());
    expect_while_result(&out, 10);
    acc_array_release(&out);
    acc_exec_destroy(none);
    acc_exec_destroy(inherits);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(cancel, bad_deadlines_are_refused)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    acc_context *ctx = NULL;
    o.run_deadline_seconds = -1;
    cr_expect_eq(acc_context_create(&o, &ctx), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "run_deadline_seconds is -1"), "%s",
              acc_last_error());
    o.run_deadline_seconds = NAN;
    cr_expect_eq(acc_context_create(&o, &ctx), ACC_ERR_INVALID_ARGUMENT);
    cr_expect_null(ctx);

    ctx = ts_context(ACC_BACKEND_INTERP);
    acc_exec_options e;
    acc_exec_options_init(&e);
    acc_exec *x = NULL;
    e.deadline_seconds = -0.5;
    cr_expect_eq(acc_exec_create(ctx, &e, &x), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "deadline_seconds is -0.5"), "%s",
              acc_last_error());
    e.deadline_seconds = NAN;
    cr_expect_eq(acc_exec_create(ctx, &e, &x), ACC_ERR_INVALID_ARGUMENT);
    cr_expect_null(x);
    /* a caller compiled before the field existed: no deadline */
    e.deadline_seconds = -1;
    e.struct_size = offsetof(acc_exec_options, async) + sizeof(int32_t);
    cr_expect_eq(acc_exec_create(ctx, &e, &x), ACC_OK, "%s", acc_last_error());
    acc_exec_destroy(x);
    acc_context_destroy(ctx);
}

Test(cancel, the_new_statuses_have_names)
{
    cr_expect_eq(ACC_ERR_CANCELLED, 701);
    cr_expect_eq(ACC_ERR_TIMEOUT, 702);
    cr_expect_str_eq(acc_status_string(ACC_ERR_CANCELLED), "ACC_ERR_CANCELLED");
    cr_expect_str_eq(acc_status_string(ACC_ERR_TIMEOUT), "ACC_ERR_TIMEOUT");
}
