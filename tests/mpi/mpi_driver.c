/*
 * mpi_driver.c — the tests of the distributed collectives
 * (docs/DISTRIBUTED.md), one program started by mpirun on every rank (so
 * not a Criterion test: Criterion forks each test into its own process,
 * and MPI ranks are processes).  Every rank builds the same programs, runs
 * them on data that depends on its rank, and compares the results with
 * what it computes itself from the formula of every rank's data.  The
 * expected rank and size come from the launcher's environment (0 and 1
 * when started alone: then the fallbacks must give the same results).
 *
 * (a second argument "cpu" runs the programs on the cpu backend, "cuda"
 * on the cuda backend, else the interpreter)
 *
 * On cuda the driver is the one ACC_CUDA_DRIVER names (ctest: the fake of
 * tests/cuda/fake_driver.c, ACC_MPI_CUDA_DRIVER in CMake to point it at
 * another).  The fake computes no kernel, so with it only the programs
 * whose results come from the collectives alone run, and each run is
 * checked against the copies the fake recorded: staged through host
 * memory (ACC_MPI_CUDA_AWARE=0) or device pointers passed to MPI (=1).
 * A driver that computes (one without the fake's records, or
 * ACC_MPI_TEST_COMPUTES=1) runs every program.
 *
 *   mpi_driver collectives   every collective, every op, several types,
 *                            ranks and shapes; the plan names the plugin
 *                            (under mpirun) or the fallback (alone)
 *   mpi_driver mismatch      ACC_MPI_CHECK=1: ranks at different
 *                            collectives, or one failing before one, all
 *                            get the same error, and can go on afterwards
 *   mpi_driver failure       ACC_MPI_TIMEOUT: the last rank's run fails
 *                            before the collective; the others return
 *                            ACC_ERR_TIMEOUT, then fail at once
 *
 * Prints "rank R: ok (N checks)" and exits 0, or names each failed check.
 */
#include "accel.h"
#include "../cuda/fake_driver.h" /* the fake's records: types only */

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int my_rank, n_ranks, launched, checks, failures;
static acc_context *ctx;
static int on_cuda;  /* the programs run on the cuda backend */
static int computes; /* kernels compute (not the fake driver) */
static fake_cuda_counters_fn fake_get_counters; /* the fake's, or NULL */
static fake_cuda_events_fn fake_events;
static fake_cuda_clear_events_fn fake_clear;
static fake_cuda_get_config_fn fake_get_config;
static fake_cuda_configure_fn fake_configure;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        checks++;                                                          \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "rank %d: FAILED at %s:%d: ", my_rank,         \
                    __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static int env_int(const char *a, const char *b, int dflt)
{
    const char *v = getenv(a);
    if (!v)
        v = getenv(b);
    return v ? atoi(v) : dflt;
}

/* ---- programs of one input ------------------------------------------------ */

typedef acc_node *(*build_fn)(acc_graph *g, acc_node *x);

static acc_program *compile1(const acc_type *elem, int32_t rank, build_fn f)
{
    acc_graph *g = NULL;
    acc_program *p = NULL;
    if (acc_graph_create(ctx, &g) != ACC_OK)
        return NULL;
    acc_node *x = elem ? acc_input(g, elem, rank) : NULL;
    acc_node *r = f(g, x);
    if (acc_compile(ctx, g, 1, &r, &p) != ACC_OK)
        fprintf(stderr, "rank %d: compile: %s\n", my_rank, acc_last_error());
    acc_graph_free(g);
    return p;
}

/* Runs p on one input (or none); the output is library-owned. */
static acc_status run1(acc_program *p, const acc_array *in, acc_array *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    return acc_run(p, in ? 1 : 0, in, 1, out);
}

static int plan_mentions(acc_program *p, const char *what)
{
    char *text = NULL;
    int yes = acc_program_explain(p, 0, &text) == ACC_OK && strstr(text, what);
    acc_free(text);
    return yes;
}

/* The path of device arrays the tests expect: ACC_MPI_CUDA_AWARE's
 * (-1 when unset: either). */
static int expect_aware(void)
{
    const char *v = getenv("ACC_MPI_CUDA_AWARE");
    return v && strcmp(v, "1") == 0 ? 1 : v && strcmp(v, "0") == 0 ? 0 : -1;
}

/* The plan names the plugin under mpirun and the fallback alone; on cuda
 * the plugin's implementation of the path taken. */
static void check_plan(acc_program *p, const char *name)
{
    char want[128], other[128];
    snprintf(want, sizeof want, "uses: %s (plugin mpi", name);
    if (launched && on_cuda) {
        int aware = expect_aware();
        snprintf(want, sizeof want, "uses: %s [device, %s] (plugin mpi", name,
                 aware == 1 ? "CUDA-aware MPI" : "staged through host");
        snprintf(other, sizeof other, "uses: %s [device, CUDA-aware MPI] "
                 "(plugin mpi", name);
        CHECK(plan_mentions(p, want) ||
                  (aware == -1 && plan_mentions(p, other)),
              "the plan of %s on cuda does not use the plugin's %s path",
              name, aware == 1 ? "CUDA-aware" : "staged");
    } else if (launched)
        CHECK(plan_mentions(p, want), "the plan of %s does not use the "
              "plugin", name);
    else
        CHECK(plan_mentions(p, "uses: fallback"), "the plan of %s does not "
              "use the fallback", name);
}

/* ---- the fake driver's records (cuda) -------------------------------------- */

static void *fake_lib;

/* The fake's functions when ACC_CUDA_DRIVER names it (the library loaded
 * the same file: dlopen returns that instance). */
static void find_fake(void)
{
    const char *path = getenv("ACC_CUDA_DRIVER");
    const char *comp = getenv("ACC_MPI_TEST_COMPUTES");
    fake_lib = path && *path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    void *f[5] = {NULL, NULL, NULL, NULL, NULL};
    if (fake_lib) {
        f[0] = dlsym(fake_lib, "fake_cuda_counters");
        f[1] = dlsym(fake_lib, "fake_cuda_events");
        f[2] = dlsym(fake_lib, "fake_cuda_clear_events");
        f[3] = dlsym(fake_lib, "fake_cuda_get_config");
        f[4] = dlsym(fake_lib, "fake_cuda_configure");
    }
    if (f[0] && f[1] && f[2] && f[3] && f[4]) {
        memcpy(&fake_get_counters, &f[0], sizeof f[0]);
        memcpy(&fake_events, &f[1], sizeof f[1]);
        memcpy(&fake_clear, &f[2], sizeof f[2]);
        memcpy(&fake_get_config, &f[3], sizeof f[3]);
        memcpy(&fake_configure, &f[4], sizeof f[4]);
    }
    computes = !fake_get_counters || (comp && strcmp(comp, "1") == 0);
}

static int recording(void)
{
    return on_cuda && launched && fake_events;
}

static void copies_begin(void)
{
    if (recording())
        fake_clear();
}

/* The index of the first event of `kind` at or after `from` (n: none). */
static size_t next_event(const fake_event *ev, size_t n, size_t from,
                         fake_kind kind)
{
    while (from < n && ev[from].kind != kind)
        from++;
    return from;
}

/* After one run of a program whose one step is the collective on its one
 * input of `bytes` bytes (uploaded by acc_run, the result downloaded):
 * staged, the argument is copied to the host, the stream waited for, the
 * result copied back; direct, no copy but the run's own, and the stream is
 * waited for before the collective (before the output's download). */
static void check_copies(const char *name, size_t bytes)
{
    fake_event ev[512];
    if (!recording() || bytes == 0)
        return;
    size_t n = fake_events(ev, 512);
    long htod = 0, dtoh = 0;
    for (size_t i = 0; i < n && i < 512; i++) {
        htod += ev[i].kind == FAKE_HTOD;
        dtoh += ev[i].kind == FAKE_DTOH;
    }
    n = n < 512 ? n : 512;
    size_t up = next_event(ev, n, 0, FAKE_HTOD); /* the input */
    size_t down = next_event(ev, n, up, FAKE_DTOH);
    size_t wait = next_event(ev, n, up, FAKE_SYNC);
    if (expect_aware() == 1) {
        CHECK(htod == 1 && dtoh == 1, "%s, direct: %ld copies to the device "
              "and %ld to the host, expected 1 and 1 (the run's own)", name,
              htod, dtoh);
        CHECK(wait < down && ev[wait].stream == ev[up].stream,
              "%s, direct: the run's stream is not waited for before the "
              "collective", name);
        return;
    }
    size_t back = next_event(ev, n, down, FAKE_HTOD);
    wait = next_event(ev, n, down, FAKE_SYNC);
    CHECK(htod == 2 && dtoh == 2, "%s, staged: %ld copies to the device and "
          "%ld to the host, expected 2 and 2", name, htod, dtoh);
    CHECK(down < n && ev[down].bytes == bytes &&
              ev[down].stream == ev[up].stream,
          "%s, staged: the argument (%zu bytes) is not copied to the host on "
          "the run's stream", name, bytes);
    CHECK(wait < back && back < n && ev[back].stream == ev[up].stream,
          "%s, staged: the stream is not waited for between the copy to the "
          "host and the result's copy back", name);
}

/* The broadcast's root (a Scalar i32 in device memory) is read with a
 * copy to the host by result_shape, then by execute (direct) or staged
 * with the arguments (staged): 2 copies of 4 bytes either way. */
static void check_root_read(void)
{
    fake_event ev[512];
    if (!recording())
        return;
    size_t n = fake_events(ev, 512);
    long reads = 0;
    for (size_t i = 0; i < n && i < 512; i++)
        reads += ev[i].kind == FAKE_DTOH && ev[i].bytes == 4;
    long want = 2;
    CHECK(reads == want, "bcast: %ld copies of the root to the host, "
          "expected %ld", reads, want);
}

/* ---- element values ------------------------------------------------------- */

static void put(acc_scalar s, void *buf, int64_t i, double v)
{
    switch (s) {
    case ACC_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case ACC_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case ACC_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case ACC_F32: ((float *)buf)[i] = (float)v; break;
    default: ((double *)buf)[i] = v; break;
    }
}

static double get(acc_scalar s, const void *buf, int64_t i)
{
    switch (s) {
    case ACC_I32: return ((const int32_t *)buf)[i];
    case ACC_U8: return ((const uint8_t *)buf)[i];
    case ACC_I64: return (double)((const int64_t *)buf)[i];
    case ACC_F32: return ((const float *)buf)[i];
    default: return ((const double *)buf)[i];
    }
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-5 * (1 + fabs(b));
}

/* A host array of rank `rank`; every element from value(r, i). */
static void make(acc_array *a, acc_scalar s, int32_t rank,
                 const int64_t *ext, int r, double (*value)(int, int64_t))
{
    acc_array_init(a, acc_type_scalar(s), rank, ext);
    int64_t n = acc_array_size(a);
    a->data[0] = calloc((size_t)(n ? n : 1), 8);
    for (int64_t i = 0; i < n; i++)
        put(s, a->data[0], i, value(r, i));
}

/* ---- rank and size --------------------------------------------------------- */

static acc_node *b_rank(acc_graph *g, acc_node *x)
{
    (void)x;
    return acc_mpi_rank(g);
}

static acc_node *b_size(acc_graph *g, acc_node *x)
{
    (void)x;
    return acc_mpi_size(g);
}

static void test_rank_size(void)
{
    build_fn fs[2] = {b_rank, b_size};
    int want[2] = {my_rank, n_ranks};
    for (int k = 0; k < 2; k++) {
        acc_program *p = compile1(NULL, 0, fs[k]);
        acc_array out;
        CHECK(p && run1(p, NULL, &out) == ACC_OK, "run: %s",
              acc_last_error());
        if (p && out.data[0])
            CHECK(*(int32_t *)out.data[0] == want[k], "%s is %d, expected %d",
                  k ? "size" : "rank", *(int32_t *)out.data[0], want[k]);
        check_plan(p, k ? "mpi.size" : "mpi.rank");
        acc_array_release(&out);
        acc_program_free(p);
    }
}

/* ---- all-reduce ------------------------------------------------------------- */

static acc_mpi_op the_op;

static acc_node *b_allreduce(acc_graph *g, acc_node *x)
{
    return acc_mpi_allreduce(g, the_op, x);
}

static acc_node *b_allreduce_sum(acc_graph *g, acc_node *x)
{
    return acc_mpi_allreduce(g, ACC_MPI_SUM, x);
}

static double reduce_value(int r, int64_t i)
{
    return (double)((r * 7 + i * 3) % 5 + 1); /* 1..5: products stay small */
}

static void test_allreduce_one(acc_mpi_op op, acc_scalar s, int32_t rank,
                               const int64_t *ext)
{
    static const char *const names[] = {"", "mpi.allreduce.sum",
                                        "mpi.allreduce.product",
                                        "mpi.allreduce.min",
                                        "mpi.allreduce.max"};
    the_op = op;
    acc_program *p = compile1(acc_type_scalar(s), rank, b_allreduce);
    acc_array in, out;
    make(&in, s, rank, ext, my_rank, reduce_value);
    copies_begin();
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    CHECK(st == ACC_OK, "%s %s: %s", names[op], acc_scalar_name(s),
          acc_last_error());
    if (st == ACC_OK)
        check_copies(names[op], (size_t)acc_array_size(&in) *
                                    acc_scalar_size(s));
    for (int64_t i = 0; st == ACC_OK && i < acc_array_size(&in); i++) {
        double want = reduce_value(0, i);
        for (int r = 1; r < n_ranks; r++) {
            double v = reduce_value(r, i);
            want = op == ACC_MPI_SUM ? want + v : op == ACC_MPI_PRODUCT
                   ? want * v : op == ACC_MPI_MIN ? fmin(want, v)
                   : fmax(want, v);
        }
        CHECK(close_to(get(s, out.data[0], i), want), "%s %s element %lld: "
              "%g, expected %g", names[op], acc_scalar_name(s), (long long)i,
              get(s, out.data[0], i), want);
    }
    if (st == ACC_OK)
        check_plan(p, names[op]);
    if (st == ACC_OK)
        acc_array_release(&out);
    free(in.data[0]);
    acc_program_free(p);
}

static void test_allreduce(void)
{
    int64_t vec[1] = {5}, mat[2] = {2, 3};
    for (int op = ACC_MPI_SUM; op <= ACC_MPI_MAX; op++) {
        test_allreduce_one((acc_mpi_op)op, ACC_F64, 1, vec);
        test_allreduce_one((acc_mpi_op)op, ACC_I32, 2, mat);
        test_allreduce_one((acc_mpi_op)op, ACC_U8, 0, NULL);
    }
    test_allreduce_one(ACC_MPI_SUM, ACC_F32, 1, vec);
    test_allreduce_one(ACC_MPI_MAX, ACC_I64, 2, mat);
}

/* ---- all-gather (variable sizes) -------------------------------------------- */

static acc_node *b_allgather(acc_graph *g, acc_node *x)
{
    return acc_mpi_allgather(g, x);
}

static double gather_value(int r, int64_t i)
{
    return r * 100.0 + (double)i;
}

static void test_allgather(void)
{
    acc_program *p = compile1(acc_type_scalar(ACC_F64), 2, b_allgather);
    int64_t ext[2] = {my_rank + 1, 3};
    acc_array in, out;
    make(&in, ACC_F64, 2, ext, my_rank, gather_value);
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    CHECK(st == ACC_OK, "allgather: %s", acc_last_error());
    int64_t rows = (int64_t)n_ranks * (n_ranks + 1) / 2;
    if (st == ACC_OK) {
        CHECK(out.rank == 2 && out.extents[0] == rows && out.extents[1] == 3,
              "allgather: extents [%lld, %lld], expected [%lld, 3]",
              (long long)out.extents[0], (long long)out.extents[1],
              (long long)rows);
        int64_t at = 0;
        for (int r = 0; r < n_ranks && out.extents[0] == rows; r++)
            for (int64_t i = 0; i < (r + 1) * 3; i++, at++)
                CHECK(get(ACC_F64, out.data[0], at) == gather_value(r, i),
                      "allgather element %lld: %g, expected %g",
                      (long long)at, get(ACC_F64, out.data[0], at),
                      gather_value(r, i));
        check_plan(p, "mpi.allgather");
        acc_array_release(&out);
    }
    free(in.data[0]);
    acc_program_free(p);
}

/* A tuple of arrays (zip xs (map (* -2) xs)): every leaf is gathered. */
static acc_node *b_gather_pairs(acc_graph *g, acc_node *x)
{
    acc_node *v = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *f = acc_lambda(g, 1, &v, acc_binop(g, ACC_OP_MUL, v,
                                                 acc_const_f64(g, ACC_F64, -2)));
    return acc_mpi_allgather(g, acc_zip(g, x, acc_map(g, f, x)));
}

static void test_allgather_tuple(void)
{
    acc_program *p = compile1(acc_type_scalar(ACC_F64), 1, b_gather_pairs);
    int64_t ext[1] = {my_rank + 2};
    acc_array in, out;
    make(&in, ACC_F64, 1, ext, my_rank, gather_value);
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    CHECK(st == ACC_OK, "allgather of pairs: %s", acc_last_error());
    int64_t n = (int64_t)n_ranks * (n_ranks + 3) / 2, at = 0;
    if (st == ACC_OK) {
        CHECK(out.extents[0] == n, "allgather of pairs: %lld elements, "
              "expected %lld", (long long)out.extents[0], (long long)n);
        for (int r = 0; r < n_ranks && out.extents[0] == n; r++)
            for (int64_t i = 0; i < r + 2; i++, at++)
                CHECK(get(ACC_F64, out.data[0], at) == gather_value(r, i) &&
                          get(ACC_F64, out.data[1], at) ==
                              -2 * gather_value(r, i),
                      "allgather of pairs, element %lld: (%g, %g)",
                      (long long)at, get(ACC_F64, out.data[0], at),
                      get(ACC_F64, out.data[1], at));
        acc_array_release(&out);
    }
    free(in.data[0]);
    acc_program_free(p);
}

/* ---- broadcast --------------------------------------------------------------- */

static acc_node *b_bcast(acc_graph *g, acc_node *x)
{
    return acc_mpi_bcast(g, acc_const_i64(g, ACC_I32, n_ranks - 1), x);
}

static double bcast_value(int r, int64_t i)
{
    return r * 10.0 + (double)i;
}

static void test_bcast(void)
{
    int root = n_ranks - 1;
    acc_program *p = compile1(acc_type_scalar(ACC_I64), 1, b_bcast);
    int64_t ext[1] = {my_rank == root ? n_ranks + 2 : 1};
    acc_array in, out;
    make(&in, ACC_I64, 1, ext, my_rank, bcast_value);
    copies_begin();
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    CHECK(st == ACC_OK, "bcast: %s", acc_last_error());
    if (st == ACC_OK)
        check_root_read();
    if (st == ACC_OK) {
        CHECK(out.extents[0] == n_ranks + 2, "bcast: %lld elements, expected "
              "the root's %d", (long long)out.extents[0], n_ranks + 2);
        for (int64_t i = 0; i < out.extents[0] && i < n_ranks + 2; i++)
            CHECK(get(ACC_I64, out.data[0], i) == bcast_value(root, i),
                  "bcast element %lld: %g, expected %g", (long long)i,
                  get(ACC_I64, out.data[0], i), bcast_value(root, i));
        check_plan(p, "mpi.bcast");
        acc_array_release(&out);
    }
    free(in.data[0]);
    acc_program_free(p);
}

/* ---- all-to-all ---------------------------------------------------------------- */

static acc_node *b_alltoall(acc_graph *g, acc_node *x)
{
    return acc_mpi_alltoall(g, x);
}

static double a2a_value(int r, int64_t i)
{
    return r * 1000.0 + (double)i;
}

static void test_alltoall(void)
{
    acc_program *p = compile1(acc_type_scalar(ACC_I32), 2, b_alltoall);
    int64_t ext[2] = {2 * n_ranks, 2}; /* two rows per destination */
    acc_array in, out;
    make(&in, ACC_I32, 2, ext, my_rank, a2a_value);
    copies_begin();
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    if (st == ACC_OK)
        check_copies("alltoall", (size_t)acc_array_size(&in) * 4);
    CHECK(st == ACC_OK, "alltoall: %s", acc_last_error());
    for (int k = 0; st == ACC_OK && k < n_ranks; k++)
        for (int64_t j = 0; j < 4; j++) /* block k comes from rank k */
            CHECK(get(ACC_I32, out.data[0], k * 4 + j) ==
                      a2a_value(k, my_rank * 4 + j),
                  "alltoall element %lld: %g, expected %g",
                  (long long)(k * 4 + j), get(ACC_I32, out.data[0], k * 4 + j),
                  a2a_value(k, my_rank * 4 + j));
    if (st == ACC_OK) {
        check_plan(p, "mpi.alltoall");
        acc_array_release(&out);
    }
    free(in.data[0]);
    acc_program_free(p);
}

/* ---- halo exchange -------------------------------------------------------------- */

static int ring_mode;

static acc_node *b_halo(acc_graph *g, acc_node *x)
{
    return acc_mpi_halo(g, ring_mode, x);
}

static double halo_value(int r, int64_t i)
{
    return r * 100.0 + (double)i;
}

/* Row `row` (of 3, 2 wide) of rank r's block. */
static double halo_expected(int ring, int64_t out_row, int64_t col)
{
    int r = my_rank, P = n_ranks;
    if (out_row >= 1 && out_row <= 3)
        return halo_value(r, (out_row - 1) * 2 + col);
    if (out_row == 0) {
        if (!ring && r == 0)
            return halo_value(r, col);
        return halo_value((r - 1 + P) % P, 2 * 2 + col);
    }
    if (!ring && r == P - 1)
        return halo_value(r, 2 * 2 + col);
    return halo_value((r + 1) % P, col);
}

static void test_halo(int ring)
{
    ring_mode = ring;
    acc_program *p = compile1(acc_type_scalar(ACC_F64), 2, b_halo);
    int64_t ext[2] = {3, 2};
    acc_array in, out;
    make(&in, ACC_F64, 2, ext, my_rank, halo_value);
    copies_begin();
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    CHECK(st == ACC_OK, "halo: %s", acc_last_error());
    if (st == ACC_OK)
        check_copies(ring ? "halo ring" : "halo chain", 6 * sizeof(double));
    if (st == ACC_OK) {
        CHECK(out.extents[0] == 5 && out.extents[1] == 2, "halo: extents "
              "[%lld, %lld], expected [5, 2]", (long long)out.extents[0],
              (long long)out.extents[1]);
        for (int64_t i = 0; i < 5 && out.extents[0] == 5; i++)
            for (int64_t j = 0; j < 2; j++)
                CHECK(get(ACC_F64, out.data[0], i * 2 + j) ==
                          halo_expected(ring, i, j),
                      "halo %s row %lld col %lld: %g, expected %g",
                      ring ? "ring" : "chain", (long long)i, (long long)j,
                      get(ACC_F64, out.data[0], i * 2 + j),
                      halo_expected(ring, i, j));
        check_plan(p, ring ? "mpi.halo.ring" : "mpi.halo.chain");
        acc_array_release(&out);
    }
    free(in.data[0]);
    acc_program_free(p);
}

/* ---- several collectives in one program, in order ------------------------------- */

/* m = allreduce max (sum xs); ys = allgather (map (+ the m) xs);
 * t = allreduce sum (sum ys); result: map (* the t) ys, and next to that
 * an independent allreduce min of xs whose result is added too: four
 * collectives that every rank must issue in one order. */
static acc_node *b_chain(acc_graph *g, acc_node *x)
{
    acc_node *m = acc_mpi_allreduce(g, ACC_MPI_MAX, acc_sum(g, x));
    acc_node *lo = acc_mpi_allreduce(g, ACC_MPI_MIN, x);
    acc_node *v = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *plus_m = acc_lambda(g, 1, &v, acc_binop(g, ACC_OP_ADD, v,
                                                      acc_the(g, m)));
    acc_node *ys = acc_mpi_allgather(g, acc_map(g, plus_m, x));
    acc_node *t = acc_mpi_allreduce(g, ACC_MPI_SUM, acc_sum(g, ys));
    acc_node *w = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *times_t = acc_lambda(g, 1, &w, acc_binop(g, ACC_OP_MUL, w,
                                                       acc_the(g, t)));
    acc_node *a = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *b = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *ab[2] = {a, b};
    acc_node *add = acc_lambda(g, 2, ab, acc_binop(g, ACC_OP_ADD, a, b));
    acc_node *both[2] = {acc_map(g, times_t, ys), lo};
    return acc_zipwith(g, add, 2, both);
}

static double chain_value(int r, int64_t i)
{
    return (double)(r + 1) * (double)(i + 1);
}

static void test_chain(void)
{
    acc_program *p = compile1(acc_type_scalar(ACC_F64), 1, b_chain);
    int64_t ext[1] = {3};
    acc_array in, out;
    make(&in, ACC_F64, 1, ext, my_rank, chain_value);
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    CHECK(st == ACC_OK, "chain: %s", acc_last_error());
    /* four collectives in the plan: none merged, dropped or fused away */
    char *plan = NULL;
    int found = 0;
    if (p && acc_program_explain(p, 0, &plan) == ACC_OK)
        for (const char *at = plan; (at = strstr(at, "foreign mpi.")); at++)
            found++;
    CHECK(found == 4, "chain: %d collectives in the plan, expected 4:\n%s",
          found, plan ? plan : "");
    acc_free(plan);
    double m = 0, t = 0, ys[64];
    for (int r = 0; r < n_ranks; r++)
        m = fmax(m, chain_value(r, 0) + chain_value(r, 1) + chain_value(r, 2));
    for (int r = 0, k = 0; r < n_ranks && k < 61; r++)
        for (int64_t i = 0; i < 3; i++, k++)
            t += ys[k] = chain_value(r, i) + m;
    t *= n_ranks;
    if (st == ACC_OK) {
        CHECK(out.extents[0] == 3, "chain: %lld elements (zipWith cuts to "
              "the 3 of the minimum)", (long long)out.extents[0]);
        for (int64_t i = 0; i < 3 && out.extents[0] == 3; i++)
            CHECK(close_to(get(ACC_F64, out.data[0], i),
                           ys[i] * t + chain_value(0, i)),
                  "chain element %lld: %g, expected %g", (long long)i,
                  get(ACC_F64, out.data[0], i), ys[i] * t + chain_value(0, i));
        acc_array_release(&out);
    }
    free(in.data[0]);
    acc_program_free(p);
}

/* ---- a device error before the collective (the fake) ---------------------------- */

/* The stream fails when it is waited for (as after a failed kernel): the
 * wait before the collective reports it.  Without ACC_MPI_CHECK on every
 * rank (none waits for the others); with it on the last rank only, and
 * the others stop at once, told that it failed. */
static void test_device_error(void)
{
    fake_config cfg;
    const char *check = getenv("ACC_MPI_CHECK");
    int agree = check && strcmp(check, "1") == 0;
    int fails = !agree || my_rank == n_ranks - 1;
    if (!recording())
        return;
    acc_program *p = compile1(acc_type_scalar(ACC_F64), 1, b_allreduce_sum);
    int64_t ext[1] = {4};
    acc_array in, out;
    make(&in, ACC_F64, 1, ext, my_rank, reduce_value);
    fake_get_config(&cfg);
    cfg.sync_error = fails ? 700 : 0; /* CUDA_ERROR_ILLEGAL_ADDRESS */
    fake_configure(&cfg);
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    const char *m = acc_last_error();
    if (fails)
        CHECK(st == ACC_ERR_PLUGIN && strstr(m, "mpi.allreduce.sum") &&
                  strstr(m, "ACC_ERR_DEVICE") && strstr(m, "CUDA error 700"),
              "a failed stream before the collective: %s: %s",
              acc_status_string(st), m);
    else
        CHECK(st == ACC_ERR_PLUGIN && strstr(m, "failed before it"),
              "rank %d failed on the device, seen from rank %d: %s: %s",
              n_ranks - 1, my_rank, acc_status_string(st), m);
    cfg.sync_error = 0;
    fake_configure(&cfg);
    if (st == ACC_OK)
        acc_array_release(&out);
    /* the communicator is still in step: the next collective works */
    st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    CHECK(st == ACC_OK, "after the device error: %s", acc_last_error());
    if (st == ACC_OK)
        acc_array_release(&out);
    free(in.data[0]);
    acc_program_free(p);
}

/* ---- ACC_MPI_CHECK: the same error on every rank ---------------------------------- */

static acc_status run_vector(build_fn f, int64_t n, char *message, size_t size)
{
    acc_program *p = compile1(acc_type_scalar(ACC_F64), 1, f);
    int64_t ext[1] = {n};
    acc_array in, out;
    make(&in, ACC_F64, 1, ext, my_rank, gather_value);
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    snprintf(message, size, "%s", st == ACC_OK ? "" : acc_last_error());
    if (st == ACC_OK)
        acc_array_release(&out);
    free(in.data[0]);
    acc_program_free(p);
    return st;
}

static acc_node *b_sum(acc_graph *g, acc_node *x)
{
    return acc_mpi_allreduce(g, ACC_MPI_SUM, x);
}

static acc_node *b_max(acc_graph *g, acc_node *x)
{
    return acc_mpi_allreduce(g, ACC_MPI_MAX, x);
}

/* The root is 0 everywhere but on rank 1, where it is out of range. */
static acc_node *b_bad_root(acc_graph *g, acc_node *x)
{
    return acc_mpi_bcast(g, acc_const_i64(g, ACC_I32, my_rank == 1 ? 99 : 0),
                         x);
}

static void test_mismatch(void)
{
    char m[2048];
    /* rank 0 at an all-reduce sum, the others at an all-reduce max */
    acc_status st = run_vector(my_rank == 0 ? b_sum : b_max, 4, m, sizeof m);
    CHECK(st == ACC_ERR_PLUGIN && strstr(m, "ACC_MPI_CHECK: the ranks are "
                                            "not at the same collective"),
          "different operations: %s: %s", acc_status_string(st), m);
    /* the same operation, other extents on the last rank */
    st = run_vector(b_sum, my_rank == n_ranks - 1 ? 5 : 4, m, sizeof m);
    CHECK(st == ACC_ERR_PLUGIN && strstr(m, "ACC_MPI_CHECK") &&
              strstr(m, "[4]") && strstr(m, "[5]"),
          "different extents: %s: %s", acc_status_string(st), m);
    /* rank 1 fails locally (its root is not a rank): all ranks stop */
    st = run_vector(b_bad_root, 3, m, sizeof m);
    if (my_rank == 1)
        CHECK(st == ACC_ERR_RUNTIME && strstr(m, "the root 99 is not a rank"),
              "bad root on rank 1: %s: %s", acc_status_string(st), m);
    else
        CHECK(st == ACC_ERR_PLUGIN && strstr(m, "rank 1 failed before it"),
              "bad root on rank 1, seen from rank %d: %s: %s", my_rank,
              acc_status_string(st), m);
    /* and the communicator still works */
    st = run_vector(b_sum, 4, m, sizeof m);
    CHECK(st == ACC_OK, "after the mismatches: %s", m);
}

/* ---- a failing rank ----------------------------------------------------------------- */

static void test_failure(void)
{
    char m[2048];
    acc_program *p = compile1(acc_type_scalar(ACC_F64), 1, b_sum);
    int64_t ext[2] = {4, 4};
    acc_array in, out;
    /* the last rank gives a matrix where the program takes a vector: its
     * run fails before the collective */
    int bad = my_rank == n_ranks - 1;
    make(&in, ACC_F64, bad ? 2 : 1, ext, my_rank, gather_value);
    acc_status st = p ? run1(p, &in, &out) : ACC_ERR_INTERNAL;
    snprintf(m, sizeof m, "%s", acc_last_error());
    if (bad)
        CHECK(st != ACC_OK, "the bad input was accepted");
    else
        CHECK(st == ACC_ERR_TIMEOUT && strstr(m, "another rank failed"),
              "waiting for the failed rank: %s: %s", acc_status_string(st), m);
    if (!bad) { /* the communicator is unusable from now on: at once */
        st = run1(p, &in, &out);
        snprintf(m, sizeof m, "%s", acc_last_error());
        CHECK(st == ACC_ERR_PLUGIN && strstr(m, "unusable since"),
              "the next collective: %s: %s", acc_status_string(st), m);
    }
    if (st == ACC_OK)
        acc_array_release(&out);
    free(in.data[0]);
    acc_program_free(p);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "collectives";
    launched = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK");
    my_rank = env_int("OMPI_COMM_WORLD_RANK", "PMIX_RANK", 0);
    n_ranks = env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1);
    acc_context_options o;
    acc_context_options_init(&o);
    const char *backend = argc > 2 ? argv[2] : "interp";
    on_cuda = strcmp(backend, "cuda") == 0;
    o.backend = strcmp(backend, "cpu") == 0 ? ACC_BACKEND_CPU
                : on_cuda ? ACC_BACKEND_CUDA : ACC_BACKEND_INTERP;
    if (acc_context_create(&o, &ctx) != ACC_OK) {
        fprintf(stderr, "rank %d: context: %s\n", my_rank, acc_last_error());
        /* no CUDA here (no NVRTC, say): skipped (ctest SKIP_RETURN_CODE) */
        return on_cuda ? 77 : 1;
    }
    if (on_cuda)
        find_fake();
    else
        computes = 1;
    if (strcmp(mode, "collectives") == 0) {
        test_rank_size();
        test_allreduce();
        test_allgather();
        if (computes) /* the pairs come from a map */
            test_allgather_tuple();
        test_bcast();
        test_alltoall();
        test_halo(0);
        test_halo(1);
        if (computes) /* sums and maps around the collectives */
            test_chain();
        test_device_error();
    } else if (strcmp(mode, "mismatch") == 0 && n_ranks > 1) {
        test_mismatch();
    } else if (strcmp(mode, "failure") == 0 && n_ranks > 1) {
        test_failure();
    } else {
        fprintf(stderr, "usage: mpi_driver collectives|mismatch|failure "
                "(the last two under mpirun -np 2 or more)\n");
        failures++;
    }
    acc_context_destroy(ctx);
    if (fake_lib)
        dlclose(fake_lib);
    if (failures)
        fprintf(stderr, "rank %d: %d of %d checks FAILED\n", my_rank,
                failures, checks);
    else
        printf("rank %d: ok (%d checks)\n", my_rank, checks);
    return failures != 0;
}
