/*
 * test_direct_runs.c — the CPU backend's direct runs (core/backend/cpu/
 * cpu_direct.h): a program that is one fold kernel over its inputs runs
 * without the executor once the host evaluator has computed its source's
 * extents and seed for the inputs' extents.
 *
 * Every result is compared bit for bit with the same program compiled
 * with ACC_DISABLE=direct (the executor on every run): both call the same
 * kernel with the same arguments, so nothing may differ.  The plan's
 * count of direct runs shows that the direct path was taken where it
 * should be and declined where it must be (a scalar input read by the
 * seed or the shape, a caller's output that overlaps an input or has
 * another shape, a library-allocated output, a kernel's runtime error,
 * an empty source).
 */
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

TestSuite(direct_runs, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

static const char programs[] =
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n"
    "\n"
    "rowmax (xs : Matrix f64) : Vector f64 =\n"
    "  fold1 (\\a b -> max a b) xs\n"
    "\n"
    "scaled (xs : Vector i32) : Scalar i32 =\n"
    "  map (\\s -> s * 3 + 1) (fold (+) 7 xs)\n"
    "\n"
    "sized (xs : Vector f64) : Scalar f64 =\n"
    "  let [n] = shape xs in fold (+) (f64 n * 0.5) xs\n"
    "\n"
    "pairs (xs : Vector i64) (ys : Vector f64) : Scalar (i64, f64) =\n"
    "  fold (\\(a, b) (c, d) -> (a + c, max b d)) (0, 0.0) (zip xs ys)\n"
    "\n"
    "checked (xs : Vector i64) : Scalar i64 =\n"
    "  fold (+) 0 (map (\\x -> quot 1000 x) xs)\n"
    "\n"
    "seeded (xs : Vector f32) (z : Scalar f32) : Scalar f32 =\n"
    "  fold (+) (the z) xs\n"
    "\n"
    "window (xs : Vector f32) (n : Scalar i64) : Scalar f32 =\n"
    "  fold (+) 0 (generate [the n] (\\[i] -> xs ! [i]))\n";

static acc_program *compile(acc_context *ctx, const char *entry, int direct)
{
    acc_program *p = NULL;
    if (!direct)
        setenv("ACC_DISABLE", "direct", 1);
    acc_status st = acc_compile_text(ctx, programs, (size_t)-1, entry, &p);
    unsetenv("ACC_DISABLE");
    cr_assert_eq(st, ACC_OK, "%s: %s", entry, acc_last_error());
    return p;
}

/* The plan's counts of remembered extents and direct runs: 0 when the
 * program is not marked (*marked 0). */
static unsigned long long direct_runs(const acc_program *p, int *marked,
                                      unsigned *remembered)
{
    char *plan = NULL;
    unsigned long long runs = 0;
    unsigned kept = 0;
    cr_assert_eq(acc_program_explain(p, 0, &plan), ACC_OK);
    const char *at = strstr(plan, "direct runs (one fold over the inputs): ");
    *marked = at != NULL;
    if (at)
        cr_assert_eq(sscanf(at, "direct runs (one fold over the inputs): %u "
                                "of 4 input extents remembered, %llu runs "
                                "direct", &kept, &runs), 2, "%s", plan);
    acc_free(plan);
    if (remembered)
        *remembered = kept;
    return runs;
}

/* Inputs of one run: host arrays over the caller's buffers. */
typedef struct run_in {
    size_t n;
    acc_array a[2];
} run_in;

/* Runs p on in into a caller's output of `bytes` bytes per leaf (rank
 * and extents as given), returning the status; got receives the leaves. */
static acc_status run_into(acc_program *p, const run_in *in,
                           const acc_type *type, int32_t rank,
                           const int64_t *ext, void **leaves)
{
    acc_array out;
    cr_assert_eq(acc_array_init(&out, type, rank, ext), ACC_OK);
    for (size_t k = 0; k < acc_type_leaf_count(type); k++)
        out.data[k] = leaves[k];
    return acc_run(p, in->n, in->a, 1, &out);
}

/* Runs `direct` twice (the second run may go direct) and `plain` once on
 * the same inputs and expects the three results bit for bit equal. */
static void expect_same(acc_program *direct, acc_program *plain,
                        const run_in *in, const acc_type *type, int32_t rank,
                        const int64_t *ext, size_t bytes, const char *what)
{
    enum { MOST = 4096 };
    unsigned char got[2][2][MOST], want[2][MOST];
    cr_assert(bytes <= MOST && acc_type_leaf_count(type) <= 2);
    void *w[2] = {want[0], want[1]};
    memset(want, 0x5a, sizeof want);
    cr_assert_eq(run_into(plain, in, type, rank, ext, w), ACC_OK, "%s: %s",
                 what, acc_last_error());
    for (int r = 0; r < 2; r++) {
        void *g[2] = {got[r][0], got[r][1]};
        memset(got[r], 0xa5, sizeof got[r]);
        cr_assert_eq(run_into(direct, in, type, rank, ext, g), ACC_OK,
                     "%s: %s", what, acc_last_error());
        for (size_t k = 0; k < acc_type_leaf_count(type); k++)
            cr_expect_eq(memcmp(got[r][k], want[k], bytes), 0,
                         "%s: run %d, leaf %zu differs from the executor's",
                         what, r + 1, k);
    }
}

static void fill_f32(float *x, int64_t n, int salt)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 7919 + salt) % 2001 - 1000) * 1.0009765625f *
               (i % 3 == 0 ? 1e-3f : i % 3 == 1 ? 1.0f : 1e3f);
}

/* dotp over sizes around the lanes and blocks: the first four sizes are
 * remembered and their second runs go direct; the others keep running
 * through the executor, with the same results. */
Test(direct_runs, fold_of_zipwith_equals_the_executor_bit_for_bit)
{
    static const int64_t sizes[] = {10000, 1, 65, 4097, 9999, 300000};
    acc_context *ctx = ts_cpu_context();
    acc_program *direct = compile(ctx, "dotp", 1);
    acc_program *plain = compile(ctx, "dotp", 0);
    float *x = malloc(300001 * sizeof *x), *y = malloc(300001 * sizeof *y);
    cr_assert(x && y);
    fill_f32(x, 300001, 1);
    fill_f32(y, 300001, 2);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int64_t n = sizes[s], m = n + 1; /* zipWith: the shorter length */
        run_in in = {2, {ts_host(ACC_F32, 1, &n, x),
                         ts_host(ACC_F32, 1, &m, y)}};
        char what[64];
        snprintf(what, sizeof what, "dotp n = %lld", (long long)n);
        expect_same(direct, plain, &in, acc_type_scalar(ACC_F32), 0, NULL,
                    sizeof(float), what);
    }
    int marked = 0;
    unsigned kept = 0;
    cr_expect_eq(direct_runs(direct, &marked, &kept), 4,
                 "the second runs of the four remembered sizes go direct");
    cr_expect(marked);
    cr_expect_eq(kept, 4);
    cr_expect_eq(direct_runs(plain, &marked, NULL), 0);
    cr_expect_not(marked, "ACC_DISABLE=direct leaves the program unmarked");
    /* the JSON plan: the counts inside the "cpu" object, which closes */
    char *json = NULL;
    cr_assert_eq(acc_program_explain(direct, 1, &json), ACC_OK);
    const char *cpu = strstr(json, "\"cpu\":{");
    const char *member =
        strstr(json, ",\"direct\":{\"remembered\":4,\"slots\":4,\"runs\":4}}");
    cr_expect(cpu && member && member > cpu, "%s", json);
    cr_expect_eq(json[strlen(json) - 1], '}', "%s", json);
    acc_free(json);
    acc_program_free(direct);
    acc_program_free(plain);
    free(x);
    free(y);
    acc_context_destroy(ctx);
}

/* fold1 over the rows of a matrix (a vector result), a map after a seeded
 * integer fold (wrapping), a seed computed from the extents, and a fold
 * of pairs over a zip (two leaves, inputs of different lengths). */
Test(direct_runs, rows_maps_after_seeds_of_extents_and_tuples)
{
    acc_context *ctx = ts_cpu_context();
    enum { N = 3000 };
    double *d = malloc(N * sizeof *d);
    int32_t *i32 = malloc(N * sizeof *i32);
    int64_t *i64 = malloc(N * sizeof *i64);
    cr_assert(d && i32 && i64);
    for (int64_t i = 0; i < N; i++) {
        d[i] = (double)((i * 37) % 1001) * 0.37 - 50.0;
        i32[i] = (int32_t)(i * 104729 + 2000000000);
        i64[i] = i * i - 7;
    }
    static const int64_t shapes[][2] = {{3, 1000}, {1, 33}, {60, 50}};
    acc_program *direct = compile(ctx, "rowmax", 1);
    acc_program *plain = compile(ctx, "rowmax", 0);
    for (size_t s = 0; s < 3; s++) {
        run_in in = {1, {ts_host(ACC_F64, 2, shapes[s], d)}};
        expect_same(direct, plain, &in, acc_type_scalar(ACC_F64), 1,
                    &shapes[s][0], (size_t)shapes[s][0] * sizeof(double),
                    "rowmax");
    }
    int marked = 0;
    cr_expect_eq(direct_runs(direct, &marked, NULL), 3);
    acc_program_free(direct);
    acc_program_free(plain);

    static const char *const vector_entries[] = {"scaled", "sized"};
    for (size_t e = 0; e < 2; e++) {
        direct = compile(ctx, vector_entries[e], 1);
        plain = compile(ctx, vector_entries[e], 0);
        acc_scalar t = e == 0 ? ACC_I32 : ACC_F64;
        for (int64_t n = 10; n <= N; n *= 3) {
            run_in in = {1, {ts_host(t, 1, &n, e == 0 ? (void *)i32 : d)}};
            expect_same(direct, plain, &in, acc_type_scalar(t), 0, NULL,
                        acc_scalar_size(t), vector_entries[e]);
        }
        cr_expect_eq(direct_runs(direct, &marked, NULL), 4, "%s",
                     vector_entries[e]);
        acc_program_free(direct);
        acc_program_free(plain);
    }

    direct = compile(ctx, "pairs", 1);
    plain = compile(ctx, "pairs", 0);
    const acc_type *pair = acc_type_tuple(
        ctx, 2, (const acc_type *[]){acc_type_scalar(ACC_I64),
                                     acc_type_scalar(ACC_F64)});
    cr_assert_not_null(pair);
    for (int64_t n = 7; n <= N; n *= 4) {
        int64_t m = n + 3;
        run_in in = {2, {ts_host(ACC_I64, 1, &m, i64),
                         ts_host(ACC_F64, 1, &n, d)}};
        expect_same(direct, plain, &in, pair, 0, NULL, sizeof(int64_t),
                    "pairs");
    }
    cr_expect_eq(direct_runs(direct, &marked, NULL), 4);
    acc_program_free(direct);
    acc_program_free(plain);
    free(d);
    free(i32);
    free(i64);
    acc_context_destroy(ctx);
}

/* A seed or a shape that reads an input's element is not a term of the
 * extents: such programs are never marked, and every run reads the
 * scalar again (same extents, other values, other results). */
Test(direct_runs, seeds_and_shapes_read_from_elements_are_never_remembered)
{
    acc_context *ctx = ts_cpu_context();
    float x[100];
    for (int i = 0; i < 100; i++)
        x[i] = (float)i;
    int64_t n = 100;
    acc_program *seeded = compile(ctx, "seeded", 1);
    acc_program *window = compile(ctx, "window", 1);
    for (int round = 0; round < 3; round++) {
        float z = (float)(round * 1000), got = -1;
        run_in in = {2, {ts_host(ACC_F32, 1, &n, x),
                         ts_host(ACC_F32, 0, NULL, &z)}};
        void *g[1] = {&got};
        cr_assert_eq(run_into(seeded, &in, acc_type_scalar(ACC_F32), 0, NULL,
                              g), ACC_OK, "%s", acc_last_error());
        cr_expect_eq(got, z + 4950.0f, "round %d: seed %g gave %g", round,
                     (double)z, (double)got);
        int64_t len = 10 + round * 30;
        run_in win = {2, {ts_host(ACC_F32, 1, &n, x),
                          ts_host(ACC_I64, 0, NULL, &len)}};
        cr_assert_eq(run_into(window, &win, acc_type_scalar(ACC_F32), 0, NULL,
                              g), ACC_OK, "%s", acc_last_error());
        cr_expect_eq(got, (float)(len * (len - 1) / 2), "round %d: length "
                     "%lld gave %g", round, (long long)len, (double)got);
    }
    int marked = 1;
    cr_expect_eq(direct_runs(seeded, &marked, NULL), 0);
    cr_expect_not(marked, "a seed read from an input is not remembered");
    cr_expect_eq(direct_runs(window, &marked, NULL), 0);
    cr_expect_not(marked, "a shape read from an input is not remembered");
    acc_program_free(seeded);
    acc_program_free(window);
    acc_context_destroy(ctx);
}

/* A kernel's runtime error in a direct run: the executor runs the
 * program again and reports the interpreter's error, as without the
 * direct path. */
Test(direct_runs, a_kernel_error_is_the_executors_error)
{
    acc_context *ctx = ts_cpu_context();
    acc_program *direct = compile(ctx, "checked", 1);
    acc_program *plain = compile(ctx, "checked", 0);
    int64_t x[500], n = 500, got = 0;
    for (int i = 0; i < 500; i++)
        x[i] = i + 1;
    run_in in = {1, {ts_host(ACC_I64, 1, &n, x)}};
    void *g[1] = {&got};
    for (int r = 0; r < 2; r++)
        cr_assert_eq(run_into(direct, &in, acc_type_scalar(ACC_I64), 0, NULL,
                              g), ACC_OK, "%s", acc_last_error());
    int marked = 0;
    cr_assert_eq(direct_runs(direct, &marked, NULL), 1);
    x[321] = 0;
    char want[1024];
    acc_status plain_st =
        run_into(plain, &in, acc_type_scalar(ACC_I64), 0, NULL, g);
    snprintf(want, sizeof want, "%s", acc_last_error());
    cr_assert_eq(plain_st, ACC_ERR_RUNTIME);
    cr_expect_eq(run_into(direct, &in, acc_type_scalar(ACC_I64), 0, NULL, g),
                 ACC_ERR_RUNTIME);
    cr_expect_str_eq(acc_last_error(), want);
    cr_expect_eq(direct_runs(direct, &marked, NULL), 1,
                 "the failed run is not counted as direct");
    acc_program_free(direct);
    acc_program_free(plain);
    acc_context_destroy(ctx);
}

/* Outputs the direct path declines, each with the executor's outcome:
 * one that overlaps an input, one of another shape (the executor's
 * error); an output the library allocates, which goes direct with the
 * executor's statistics; and an empty source (the seed). */
Test(direct_runs, declined_runs_keep_the_executors_outcome)
{
    acc_context *ctx = ts_cpu_context();
    acc_program *direct = compile(ctx, "dotp", 1);
    acc_program *plain = compile(ctx, "dotp", 0);
    float x[300], y[300], got = 0, want = 0;
    fill_f32(x, 300, 3);
    fill_f32(y, 300, 4);
    int64_t n = 300;
    run_in in = {2, {ts_host(ACC_F32, 1, &n, x), ts_host(ACC_F32, 1, &n, y)}};
    void *g[1] = {&got}, *w[1] = {&want};
    cr_assert_eq(run_into(plain, &in, acc_type_scalar(ACC_F32), 0, NULL, w),
                 ACC_OK);
    cr_assert_eq(run_into(direct, &in, acc_type_scalar(ACC_F32), 0, NULL, g),
                 ACC_OK); /* remembered */
    int marked = 0;
    cr_assert_eq(direct_runs(direct, &marked, NULL), 0);

    /* the output is element 299 of an input: the executor computes the
     * result elsewhere before storing it */
    float xs_copy[300];
    memcpy(xs_copy, x, sizeof x);
    run_in alias = {2, {ts_host(ACC_F32, 1, &n, xs_copy),
                        ts_host(ACC_F32, 1, &n, y)}};
    void *inside[1] = {&xs_copy[299]};
    cr_expect_eq(run_into(direct, &alias, acc_type_scalar(ACC_F32), 0, NULL,
                          inside), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(memcmp(&xs_copy[299], &want, sizeof want), 0,
                 "an output inside an input");

    /* another shape: the executor's error, word for word */
    int64_t three = 3;
    float vec[3];
    void *v[1] = {vec};
    acc_status plain_st =
        run_into(plain, &in, acc_type_scalar(ACC_F32), 1, &three, v);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", acc_last_error());
    cr_expect_eq(run_into(direct, &in, acc_type_scalar(ACC_F32), 1, &three, v),
                 plain_st);
    cr_expect_str_eq(acc_last_error(), msg);

    cr_expect_eq(direct_runs(direct, &marked, NULL), 0,
                 "none of these runs went direct");

    /* no buffers: the library allocates the result, as the executor
     * does, and the statistics are the executor's */
    acc_run_stats st[2];
    for (int k = 0; k < 2; k++) {
        acc_program *p = k ? direct : plain;
        acc_array out = ts_empty_output();
        cr_assert_eq(acc_run(p, 2, in.a, 1, &out), ACC_OK, "%s",
                     acc_last_error());
        cr_expect_eq(out.ownership, ACC_OWNERSHIP_LIBRARY);
        cr_expect_eq(out.rank, 0);
        cr_expect(acc_type_equal(out.type, acc_type_scalar(ACC_F32)));
        cr_expect_eq(memcmp(out.data[0], &want, sizeof want), 0);
        acc_array_release(&out);
        st[k].struct_size = sizeof st[k];
        cr_assert_eq(acc_program_last_run(p, &st[k]), ACC_OK);
    }
    cr_expect_eq(direct_runs(direct, &marked, NULL), 1);
    cr_expect_eq(st[1].kernels_launched, st[0].kernels_launched);
    cr_expect_eq(st[1].bytes_allocated, st[0].bytes_allocated);
    cr_expect_eq(st[1].bytes_allocated, sizeof(float));
    cr_expect_eq(st[1].intermediate_bytes, st[0].intermediate_bytes);

    /* an empty source, remembered: the seed, through the executor */
    int64_t zero = 0;
    run_in none = {2, {ts_host(ACC_F32, 1, &zero, x),
                       ts_host(ACC_F32, 1, &zero, y)}};
    for (int r = 0; r < 2; r++) {
        got = 42;
        cr_expect_eq(run_into(direct, &none, acc_type_scalar(ACC_F32), 0, NULL,
                              g), ACC_OK);
        cr_expect_eq(got, 0.0f);
    }
    /* and the remembered extents still go direct */
    cr_assert_eq(run_into(direct, &in, acc_type_scalar(ACC_F32), 0, NULL, g),
                 ACC_OK);
    cr_expect_eq(memcmp(&got, &want, sizeof got), 0);
    cr_expect_eq(direct_runs(direct, &marked, NULL), 2);
    acc_program_free(direct);
    acc_program_free(plain);
    acc_context_destroy(ctx);
}

/* A direct run is tried before the executor checks the arguments: every
 * defect the executor reports must still be reported, word for word, by
 * a marked program whose extents are remembered.  Each case spoils one
 * thing of a valid call (inputs and output as below). */
typedef struct bad_call {
    size_t n_in, n_out;
    int no_inputs, no_outputs; /* pass NULL for the array */
    acc_array in[2], out;
} bad_call;

typedef void (*spoil_fn)(bad_call *c, void *scratch);

static void spoil_n_inputs(bad_call *c, void *s) { (void)s; c->n_in = 1; }
static void spoil_n_outputs(bad_call *c, void *s) { (void)s; c->n_out = 2; }
static void spoil_no_outputs_given(bad_call *c, void *s) { (void)s; c->n_out = 0; }
static void spoil_inputs_null(bad_call *c, void *s) { (void)s; c->no_inputs = 1; }
static void spoil_outputs_null(bad_call *c, void *s) { (void)s; c->no_outputs = 1; }
static void spoil_in_size(bad_call *c, void *s) { (void)s; c->in[1].struct_size = 8; }
static void spoil_in_rank(bad_call *c, void *s)
{
    (void)s;
    c->in[0].rank = 2;
    c->in[0].extents[1] = 1;
}
static void spoil_in_rank_range(bad_call *c, void *s) { (void)s; c->in[0].rank = 9; }
static void spoil_in_negative(bad_call *c, void *s) { (void)s; c->in[1].extents[0] = -300; }
static void spoil_in_type_null(bad_call *c, void *s) { (void)s; c->in[0].type = NULL; }
static void spoil_in_type_f64(bad_call *c, void *s)
{
    (void)s;
    c->in[1].type = acc_type_scalar(ACC_F64);
}
static void spoil_in_type_junk(bad_call *c, void *s)
{
    c->in[0].type = (const acc_type *)s; /* zeroed bytes: not a type */
}
static void spoil_in_data(bad_call *c, void *s) { (void)s; c->in[1].data[0] = NULL; }
static void spoil_in_device(bad_call *c, void *s)
{
    (void)s;
    c->in[0].memory = ACC_MEMORY_CUDA_DEVICE;
}
static void spoil_in_memory(bad_call *c, void *s) { (void)s; c->in[1].memory = (acc_memory)7; }
static void spoil_out_size(bad_call *c, void *s) { (void)s; c->out.struct_size = 8; }
static void spoil_out_rank(bad_call *c, void *s)
{
    (void)s;
    c->out.rank = 1;
    c->out.extents[0] = 1;
}
static void spoil_out_rank_range(bad_call *c, void *s) { (void)s; c->out.rank = -1; }
static void spoil_out_type(bad_call *c, void *s)
{
    (void)s;
    c->out.type = acc_type_scalar(ACC_I32);
}
static void spoil_out_type_junk(bad_call *c, void *s)
{
    c->out.type = (const acc_type *)s;
}
static void spoil_out_device(bad_call *c, void *s)
{
    (void)s;
    c->out.memory = ACC_MEMORY_CUDA_DEVICE;
}
static void spoil_out_memory(bad_call *c, void *s) { (void)s; c->out.memory = (acc_memory)9; }
static void spoil_out_unallocated_device(bad_call *c, void *s)
{
    (void)s;
    c->out.data[0] = NULL;
    c->out.memory = ACC_MEMORY_CUDA_DEVICE;
}

Test(direct_runs, every_defect_the_executor_reports_is_reported_word_for_word)
{
    static const struct {
        const char *what;
        spoil_fn spoil;
    } cases[] = {
        {"one input", spoil_n_inputs},
        {"two outputs", spoil_n_outputs},
        {"no output", spoil_no_outputs_given},
        {"inputs NULL", spoil_inputs_null},
        {"outputs NULL", spoil_outputs_null},
        {"input struct_size", spoil_in_size},
        {"input rank", spoil_in_rank},
        {"input rank out of range", spoil_in_rank_range},
        {"input extent negative", spoil_in_negative},
        {"input type NULL", spoil_in_type_null},
        {"input type f64", spoil_in_type_f64},
        {"input type not a type", spoil_in_type_junk},
        {"input data NULL", spoil_in_data},
        {"input in device memory", spoil_in_device},
        {"input memory not a value", spoil_in_memory},
        {"output struct_size", spoil_out_size},
        {"output rank", spoil_out_rank},
        {"output rank out of range", spoil_out_rank_range},
        {"output type i32", spoil_out_type},
        {"output type not a type", spoil_out_type_junk},
        {"output in device memory", spoil_out_device},
        {"output memory not a value", spoil_out_memory},
        {"output to allocate in device memory", spoil_out_unallocated_device},
    };
    acc_context *ctx = ts_cpu_context();
    acc_program *direct = compile(ctx, "dotp", 1);
    acc_program *plain = compile(ctx, "dotp", 0);
    float x[300], y[300], got = 0;
    fill_f32(x, 300, 5);
    fill_f32(y, 300, 6);
    int64_t n = 300;
    bad_call valid = {2, 1, 0, 0,
                      {ts_host(ACC_F32, 1, &n, x), ts_host(ACC_F32, 1, &n, y)},
                      ts_host(ACC_F32, 0, NULL, &got)};
    for (int r = 0; r < 2; r++) /* remembered, then a direct run */
        cr_assert_eq(acc_run(direct, 2, valid.in, 1, &valid.out), ACC_OK,
                     "%s", acc_last_error());
    int marked = 0;
    cr_assert_eq(direct_runs(direct, &marked, NULL), 1);
    uint64_t junk[64];
    memset(junk, 0, sizeof junk);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        acc_status st[2];
        char msg[2][1024];
        for (int k = 0; k < 2; k++) {
            bad_call c = valid;
            cases[i].spoil(&c, junk);
            st[k] = acc_run(k ? direct : plain, c.n_in,
                            c.no_inputs ? NULL : c.in, c.n_out,
                            c.no_outputs ? NULL : &c.out);
            snprintf(msg[k], sizeof msg[k], "%s", acc_last_error());
        }
        cr_expect_neq(st[0], ACC_OK, "%s: the executor accepted it",
                      cases[i].what);
        cr_expect_eq(st[1], st[0], "%s: status %d, the executor's %d",
                     cases[i].what, (int)st[1], (int)st[0]);
        cr_expect_str_eq(msg[1], msg[0], "%s", cases[i].what);
    }
    cr_expect_eq(direct_runs(direct, &marked, NULL), 1,
                 "none of these runs went direct");
    acc_program_free(direct);
    acc_program_free(plain);
    acc_context_destroy(ctx);
}

/* Threads run one program with extents that change from run to run, so
 * that runs remember extents while others read them; every result must
 * be the executor's. */
enum { THREADS = 4, ROUNDS = 150, SIZES = 6 };
static const int64_t thread_sizes[SIZES] = {5000, 64, 4096, 777, 20000, 1};

typedef struct shared_run {
    acc_program *p;
    const float *x, *y;
    float want[SIZES];
    int bad;
} shared_run;

static void *run_thread(void *arg)
{
    shared_run *s = arg;
    for (int r = 0; r < ROUNDS; r++) {
        size_t k = (size_t)(r * 7 + (int)(uintptr_t)pthread_self()) % SIZES;
        int64_t n = thread_sizes[k];
        float got = 0;
        acc_array in[2] = {ts_host(ACC_F32, 1, &n, (void *)s->x),
                           ts_host(ACC_F32, 1, &n, (void *)s->y)};
        acc_array out = ts_host(ACC_F32, 0, NULL, &got);
        if (acc_run(s->p, 2, in, 1, &out) != ACC_OK ||
            memcmp(&got, &s->want[k], sizeof got) != 0)
            __atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

Test(direct_runs, concurrent_runs_with_changing_extents)
{
    acc_context *ctx = ts_cpu_context();
    acc_program *plain = compile(ctx, "dotp", 0);
    shared_run s = {compile(ctx, "dotp", 1), NULL, NULL, {0}, 0};
    float *x = malloc(20000 * sizeof *x), *y = malloc(20000 * sizeof *y);
    cr_assert(x && y);
    fill_f32(x, 20000, 5);
    fill_f32(y, 20000, 6);
    s.x = x;
    s.y = y;
    for (size_t k = 0; k < SIZES; k++) {
        int64_t n = thread_sizes[k];
        acc_array in[2] = {ts_host(ACC_F32, 1, &n, x),
                           ts_host(ACC_F32, 1, &n, y)};
        acc_array out = ts_host(ACC_F32, 0, NULL, &s.want[k]);
        cr_assert_eq(acc_run(plain, 2, in, 1, &out), ACC_OK);
    }
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, run_thread, &s), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    cr_expect_eq(s.bad, 0, "%d runs differed from the executor's", s.bad);
    int marked = 0;
    unsigned kept = 0;
    cr_expect_gt(direct_runs(s.p, &marked, &kept), 0);
    cr_expect_eq(kept, 4);
    acc_program_free(s.p);
    acc_program_free(plain);
    free(x);
    free(y);
    acc_context_destroy(ctx);
}
