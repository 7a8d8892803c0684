/*
 * support.c — the test helpers declared in support.h.  They use only the
 * public API; failures that make a test pointless fail it with cr_assert.
 */
#include "support.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/hooks.h>

/* The backend a test that asks for the interpreter runs on: ctest runs
 * the language and fusion suites a second time with ACC_TEST_BACKEND=cpu
 * (the tests named *.cpu), and, in the device suite (make test-gpu), with
 * ACC_TEST_BACKEND=cuda (*.cuda), so every one of their expectations is
 * checked on compiled kernels too. */
static acc_backend backend_for(acc_backend asked)
{
    const char *env = getenv("ACC_TEST_BACKEND");
    if (asked != ACC_BACKEND_INTERP || !env || !*env)
        return asked;
    cr_assert(strcmp(env, "cpu") == 0 || strcmp(env, "cuda") == 0,
              "ACC_TEST_BACKEND=%s: only \"cpu\" and \"cuda\" are known",
              env);
    return strcmp(env, "cpu") == 0 ? ACC_BACKEND_CPU : ACC_BACKEND_CUDA;
}

/* Whether a CUDA context can be created, asked in a child process so that
 * the test runner never initialises the driver itself: a process forked
 * after its parent initialised CUDA gets CUDA_ERROR_NOT_INITIALIZED (the
 * device suite once skipped a whole file on an H100 that way).  Writes the
 * refusal into why. */
int ts_cuda_usable(char *why, size_t size)
{
    int fd[2];
    snprintf(why, size, "the availability check could not run");
    if (pipe(fd) != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        acc_context_options o;
        acc_context *ctx = NULL;
        acc_context_options_init(&o);
        o.backend = ACC_BACKEND_CUDA;
        acc_status st = acc_context_create(&o, &ctx);
        const char *msg = st == ACC_OK ? "" : acc_last_error();
        ssize_t ignored = write(fd[1], msg, strlen(msg));
        (void)ignored;
        _exit(st == ACC_OK ? 0 : 1);
    }
    close(fd[1]);
    ssize_t n = pid > 0 ? read(fd[0], why, size - 1) : -1;
    why[n > 0 ? (size_t)n : 0] = '\0';
    close(fd[0]);
    int status = 1;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* ACC_TEST_BACKEND=cuda where the CUDA backend cannot run: the whole
 * executable is skipped before any test starts, with one line saying
 * why, and exit status 77 (ctest's SKIP_RETURN_CODE for the device
 * suite): it is reported as skipped, never as passed. */
ReportHook(PRE_ALL)(struct criterion_test_set *tests)
{
    char why[1024];
    const char *env = getenv("ACC_TEST_BACKEND");
    (void)tests;
    if (!env || strcmp(env, "cuda") != 0 || ts_cuda_usable(why, sizeof why))
        return;
    printf("SKIPPED: nothing ran on a GPU: %s\n", why);
    fflush(stdout);
    _exit(77);
}

static acc_context *context_with(acc_backend b, const char *plugins)
{
    acc_context_options opts;
    acc_context *ctx = NULL;
    acc_status st;

    acc_context_options_init(&opts);
    b = backend_for(b);
    opts.backend = b;
    opts.plugins = plugins;
    st = acc_context_create(&opts, &ctx);
    cr_assert(st == ACC_OK && ctx != NULL,
              "acc_context_create(%s) failed: %s (%s)", acc_backend_name(b),
              acc_status_string(st), acc_last_error());
    return ctx;
}

acc_context *ts_context(acc_backend b)
{
    return context_with(b, NULL);
}

acc_context *ts_context_without_plugins(acc_backend b)
{
    return context_with(b, "none");
}

acc_graph *ts_graph(acc_context *ctx)
{
    acc_graph *g = NULL;
    acc_status st = acc_graph_create(ctx, &g);

    cr_assert(st == ACC_OK && g != NULL, "acc_graph_create failed: %s (%s)",
              acc_status_string(st), acc_last_error());
    return g;
}

/* Total bytes of the leaves of element type `t`, packed without padding. */
static size_t packed_size(const acc_type *t)
{
    size_t n = acc_type_leaf_count(t), total = 0;

    for (size_t i = 0; i < n; i++)
        total += acc_scalar_size(acc_type_leaf(t, i));
    return total;
}

/* Copies the single element of a library-allocated rank-0 output into
 * `out`, leaf after leaf. */
static void copy_leaves(const acc_array *a, void *out, size_t out_size)
{
    size_t n = acc_type_leaf_count(a->type), at = 0;

    cr_assert_eq(packed_size(a->type), out_size,
                 "ts_eval_scalar: result leaves take %zu bytes, caller gave "
                 "%zu", packed_size(a->type), out_size);
    for (size_t i = 0; i < n; i++) {
        size_t sz = acc_scalar_size(acc_type_leaf(a->type, i));
        cr_assert_not_null(a->data[i], "ts_eval_scalar: leaf %zu is NULL", i);
        memcpy((unsigned char *)out + at, a->data[i], sz);
        at += sz;
    }
}

acc_status ts_eval_scalar(acc_context *ctx, acc_graph *g, acc_node *expr,
                          void *out_leaves, size_t out_size)
{
    acc_node *u = acc_unit(g, expr);
    acc_program *prog = NULL;
    acc_array out;
    acc_status st;

    st = acc_compile(ctx, g, 1, &u, &prog);
    if (st != ACC_OK)
        return st;
    cr_assert_eq(acc_program_num_outputs(prog), 1,
                 "ts_eval_scalar: program has %zu outputs, expected 1",
                 acc_program_num_outputs(prog));
    st = ts_run_program(prog, 0, NULL, 1, &out);
    if (st == ACC_OK) {
        cr_assert_eq(out.rank, 0, "ts_eval_scalar: result rank %d",
                     (int)out.rank);
        copy_leaves(&out, out_leaves, out_size);
        acc_array_release(&out);
    }
    acc_program_free(prog);
    return st;
}

acc_status ts_run(acc_context *ctx, acc_graph *g, size_t n_results,
                  acc_node *const *results, size_t n_in,
                  const acc_array *inputs, acc_array *outputs)
{
    acc_program *prog = NULL;
    acc_status st;

    st = acc_compile(ctx, g, n_results, results, &prog);
    if (st != ACC_OK)
        return st;
    st = ts_run_program(prog, n_in, inputs, acc_program_num_outputs(prog),
                        outputs);
    acc_program_free(prog);
    return st;
}

acc_array ts_host_array(const acc_type *elem, int32_t rank,
                        const int64_t *extents, void *const *data)
{
    acc_array a;
    acc_status st;
    int64_t none[ACC_MAX_RANK] = {0};

    memset(&a, 0, sizeof a);
    st = acc_array_init(&a, elem, rank, extents ? extents : none);
    cr_assert_eq(st, ACC_OK, "acc_array_init failed: %s (%s)",
                 acc_status_string(st), acc_last_error());
    if (data != NULL) {
        size_t n = acc_type_leaf_count(elem);
        for (size_t i = 0; i < n && i < ACC_MAX_COMPONENTS; i++)
            a.data[i] = data[i];
    }
    return a;
}

const acc_type *ts_sc(acc_scalar s)
{
    return acc_type_scalar(s);
}

acc_node *ts_lam1(acc_graph *g, acc_node *p, acc_node *body)
{
    return acc_lambda(g, 1, &p, body);
}

acc_node *ts_lam2(acc_graph *g, acc_node *a, acc_node *b, acc_node *body)
{
    acc_node *ps[2] = {a, b};

    return acc_lambda(g, 2, ps, body);
}

acc_node *ts_binop_fn(acc_graph *g, acc_scalar s, acc_primop op)
{
    acc_node *a = acc_param(g, ts_sc(s)), *b = acc_param(g, ts_sc(s));

    return ts_lam2(g, a, b, acc_binop(g, op, a, b));
}

acc_node *ts_idx1(acc_graph *g, acc_node *i)
{
    return acc_index(g, 1, &i);
}

acc_node *ts_idx2(acc_graph *g, acc_node *i, acc_node *j)
{
    acc_node *c[2] = {i, j};

    return acc_index(g, 2, c);
}

acc_node *ts_shape(acc_graph *g, size_t rank, const int64_t *ext)
{
    acc_node *c[ACC_MAX_RANK];

    for (size_t d = 0; d < rank; d++)
        c[d] = ts_i64(g, ext[d]);
    return acc_index(g, rank, c);
}

acc_node *ts_shape1(acc_graph *g, int64_t a)
{
    return ts_shape(g, 1, &a);
}

acc_node *ts_shape2(acc_graph *g, int64_t a, int64_t b)
{
    int64_t ext[2] = {a, b};

    return ts_shape(g, 2, ext);
}

acc_node *ts_index_weight(acc_graph *g, acc_node *ix, int32_t rank)
{
    acc_node *v = ts_i64(g, 1000);

    for (int32_t d = 0; d < rank; d++)
        v = acc_binop(g, ACC_OP_ADD, v,
                      acc_binop(g, ACC_OP_MUL, acc_get(g, ix, (size_t)d),
                                ts_i64(g, (d + 1) * 100)));
    return v;
}

/* (a, p) . (b, q) = (a*q + b, p*q) mod m: a digit d is (d, 10). */
acc_node *ts_cat_fn(acc_graph *g, const acc_type *pair, int64_t m)
{
    acc_node *x = acc_param(g, pair), *y = acc_param(g, pair);
    acc_node *mod = ts_i64(g, m);
    acc_node *a = acc_get(g, x, 0), *p = acc_get(g, x, 1);
    acc_node *b = acc_get(g, y, 0), *q = acc_get(g, y, 1);
    acc_node *items[2] = {
        acc_binop(g, ACC_OP_REM,
                  acc_binop(g, ACC_OP_ADD, acc_binop(g, ACC_OP_MUL, a, q), b),
                  mod),
        acc_binop(g, ACC_OP_REM, acc_binop(g, ACC_OP_MUL, p, q), mod)};

    return ts_lam2(g, x, y, acc_tuple(g, 2, items));
}

uint32_t ts_rnd(uint64_t *state, uint32_t n)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)(*state % n);
}

void ts_iota(int64_t *buf, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        buf[k] = k;
}

acc_node *ts_i64(acc_graph *g, int64_t v)
{
    return acc_const_i64(g, ACC_I64, v);
}

acc_node *ts_i32(acc_graph *g, int32_t v)
{
    return acc_const_i64(g, ACC_I32, v);
}

acc_node *ts_f32(acc_graph *g, float v)
{
    return acc_const_f64(g, ACC_F32, (double)v);
}

acc_node *ts_f64(acc_graph *g, double v)
{
    return acc_const_f64(g, ACC_F64, v);
}

acc_node *ts_bool(acc_graph *g, int v)
{
    return acc_const_bool(g, v);
}

acc_node *ts_int(acc_graph *g, acc_scalar s, int64_t v)
{
    return acc_const_i64(g, s, v);
}

acc_node *ts_u64(acc_graph *g, acc_scalar s, uint64_t v)
{
    return acc_const_u64(g, s, v);
}

int ts_contains_ci(const char *haystack, const char *needle)
{
    size_t n;

    if (haystack == NULL || needle == NULL)
        return 0;
    n = strlen(needle);
    for (const char *p = haystack; *p != '\0'; p++) {
        size_t k = 0;
        while (k < n && p[k] != '\0' &&
               tolower((unsigned char)p[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return n == 0;
}
